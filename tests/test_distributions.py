"""tl.distributions families against PyTorch (float64): log_prob, entropy, moments, cdf and
icdf, and their gradients in the parameters; sample shapes, supports and reparameterised
samples; the matrix families (Wishart, LKJCholesky), mixtures and low-rank Gaussians; the
ExponentialFamily base; KL divergences; validation errors."""

import math
import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.distributions as dist

torch = pytest.importorskip("torch")
TD = torch.distributions
rng = np.random.default_rng(0)
A = lambda *x: np.array(x, dtype=np.float64)  # noqa: E731


def _o(a, grad=False):
    return tl.tensor(np.asarray(a, np.float64), requires_grad=grad)


def _close(ours, theirs, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol,
                               atol=atol)


def _t(a, grad=False):
    return torch.tensor(np.asarray(a, np.float64), requires_grad=grad)


def pair(name, *params, **kw):
    ours = getattr(dist, name)(*[tl.tensor(p) if isinstance(p, np.ndarray) else p
                              for p in params], **{k: tl.tensor(v) for k, v in kw.items()})
    theirs = getattr(TD, name)(*[torch.tensor(p) if isinstance(p, np.ndarray) else p
                                 for p in params], **{k: torch.tensor(v) for k, v in kw.items()})
    return ours, theirs


POS = np.array([0.5, 1.5, 3.0])
PROB = np.array([0.2, 0.5, 0.9])
CASES = {
    "Normal": (("Normal", np.array([0.0, 1.0, -2.0]), POS, {}), np.array([0.3, -1.0, 2.0])),
    "LogNormal": (("LogNormal", np.array([0.0, 1.0, -2.0]), POS, {}), POS),
    "Uniform": (("Uniform", np.array([0.0, -1.0, 2.0]), np.array([1.0, 3.0, 2.5]), {}),
                np.array([0.5, 0.0, 2.2])),
    "Exponential": (("Exponential", POS, {}), POS),
    "Laplace": (("Laplace", np.array([0.0, 1.0, -2.0]), POS, {}), np.array([0.3, -1.0, 2.0])),
    "Cauchy": (("Cauchy", np.array([0.0, 1.0, -2.0]), POS, {}), np.array([0.3, -1.0, 2.0])),
    "Gamma": (("Gamma", POS, np.array([1.0, 2.0, 0.5]), {}), POS),
    "Beta": (("Beta", POS, np.array([1.0, 2.0, 0.5]), {}), np.array([0.2, 0.5, 0.7])),
    "Bernoulli": (("Bernoulli", {"probs": PROB}), np.array([1.0, 0.0, 1.0])),
    "Bernoulli-logits": (("Bernoulli", {"logits": np.array([-1.0, 0.0, 2.0])}),
                         np.array([1.0, 0.0, 1.0])),
    "Poisson": (("Poisson", POS, {}), np.array([0.0, 2.0, 5.0])),
    "Geometric": (("Geometric", {"probs": PROB}), np.array([0.0, 2.0, 5.0])),
    "Binomial": (("Binomial", 10.0, {"probs": PROB}), np.array([0.0, 4.0, 9.0])),
}


REAL, UNIT = A(0.0, 1.0, -2.0), A(0.2, 0.5, 0.7)
# name: (positional params, keyword params, a value in the support); log_prob and entropy
# gradients compared too
CASES_WITH_GRADIENTS = {
    "Gumbel": ((REAL, POS), {}, A(0.3, -1.0, 2.0)),
    "HalfNormal": ((POS,), {}, A(0.3, 1.0, 2.0)),
    "HalfCauchy": ((POS,), {}, A(0.3, 1.0, 2.0)),
    "Weibull": ((POS, A(0.7, 2.0, 3.0)), {}, A(0.3, 1.0, 2.0)),
    "Pareto": ((A(0.5, 1.5, 1.0), A(0.7, 2.0, 3.0)), {}, A(0.6, 2.0, 2.0)),
    "Kumaraswamy": ((POS, A(0.7, 2.0, 3.0)), {}, A(0.3, 0.5, 0.9)),
    "LogisticNormal": ((A(0.1, -0.5), A(0.5, 1.5)), {}, A(0.2, 0.3, 0.5)),
    "StudentT": ((A(0.7, 2.5, 5.0), REAL, POS), {}, A(0.3, -1.0, 2.0)),
    "Chi2": ((A(0.7, 2.5, 5.0),), {}, A(0.3, 1.0, 2.0)),
    "FisherSnedecor": ((A(1.7, 3.5, 5.0), A(2.5, 4.5, 6.0)), {}, A(0.3, 1.0, 2.0)),
    "ContinuousBernoulli": ((A(0.2, 0.4995, 0.9),), {}, A(0.3, 0.5, 0.9)),
    "VonMises": ((REAL, A(0.5, 1.5, 5.0)), {}, A(0.3, -1.0, 2.0)),
    "NegativeBinomial": ((A(2.0, 3.5, 5.0),), {"probs": UNIT}, A(0.0, 3.0, 7.0)),
    "Multinomial": ((5,), {"probs": UNIT / UNIT.sum()}, A(1.0, 1.0, 3.0)),
    "RelaxedBernoulli": ((A(0.5, 1.0, 2.0),), {"probs": UNIT}, A(0.3, 0.5, 0.9)),
    "RelaxedOneHotCategorical": ((A(0.5),), {"logits": A(0.2, -0.5, 0.7)},
                                 A(0.2, 0.3, 0.5)),
}


def build(lib, name, args, kwargs, grad=False):
    """The distribution from ``lib`` (tl or torch) and its tensor parameters."""
    params = []

    def conv(v):
        if not isinstance(v, np.ndarray):
            return v
        t = lib.tensor(v, requires_grad=grad) if lib is tl else \
            lib.tensor(v).requires_grad_(grad)
        params.append(t)
        return t
    mod = dist if lib is tl else lib.distributions
    return getattr(mod, name)(*map(conv, args), **{k: conv(v) for k, v in kwargs.items()}), \
        params


@pytest.mark.parametrize("case", sorted(CASES))
def test_family_matches_pytorch(case):
    (name, *params), value = CASES[case]
    kwargs = params.pop() if params and isinstance(params[-1], dict) else {}
    ours, theirs = pair(name, *params, **kwargs)
    checks = [("log_prob", lambda d, lib: d.log_prob(lib.tensor(value)))]
    for attr in ("entropy", "mean", "variance", "mode", "cdf"):
        if attr == "cdf":
            checks.append((attr, lambda d, lib: d.cdf(lib.tensor(value))))
        elif attr == "entropy":
            checks.append((attr, lambda d, lib: d.entropy()))
        else:
            checks.append((attr, lambda d, lib, a=attr: getattr(d, a)))
    compared = 0
    not_yet = {("Gamma", "cdf")}  # needs the incomplete gamma function
    for what, get in checks:
        if (case, what) in not_yet:
            continue
        try:
            expected = get(theirs, torch)
        except NotImplementedError:
            continue
        got = get(ours, tl)
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-7,
                                   atol=1e-10, err_msg=f"{case} {what}")
        compared += 1
    assert compared >= 3
    sample = ours.sample((4, 2))
    assert tuple(sample.shape) == (4, 2, *ours.batch_shape)
    assert np.isfinite(ours.log_prob(sample).detach().numpy()).all() or case == "Uniform"


def test_categorical_and_multivariate_normal_match_pytorch():
    logits = rng.standard_normal((2, 4))
    ours, theirs = dist.Categorical(logits=tl.tensor(logits)), TD.Categorical(
        logits=torch.tensor(logits))
    value = np.array([3, 0])
    np.testing.assert_allclose(ours.log_prob(tl.tensor(value)).numpy(),
                               theirs.log_prob(torch.tensor(value)).numpy(), rtol=1e-10)
    np.testing.assert_allclose(ours.entropy().numpy(), theirs.entropy().numpy(), rtol=1e-10)
    np.testing.assert_allclose(ours.probs.numpy(), theirs.probs.numpy(), rtol=1e-10)
    assert ours.sample((5,)).shape == (5, 2) and ours.enumerate_support().shape == (4, 2)
    probs = np.array([0.2, 0.3, 0.5])
    assert dist.Categorical(probs=tl.tensor(probs * 4)).probs.numpy() == pytest.approx(probs)
    a = rng.standard_normal((3, 3))
    cov = a @ a.T + np.eye(3)
    loc = rng.standard_normal(3)
    mvn = dist.MultivariateNormal(tl.tensor(loc), covariance_matrix=tl.tensor(cov))
    tmvn = TD.MultivariateNormal(torch.tensor(loc), covariance_matrix=torch.tensor(cov))
    x = rng.standard_normal((4, 3))
    np.testing.assert_allclose(mvn.log_prob(tl.tensor(x)).numpy(),
                               tmvn.log_prob(torch.tensor(x)).numpy(), rtol=1e-10)
    np.testing.assert_allclose(mvn.entropy().numpy(), tmvn.entropy().numpy(), rtol=1e-10)
    assert mvn.rsample((6,)).shape == (6, 3)


@pytest.mark.parametrize("name", sorted(CASES_WITH_GRADIENTS))
def test_values_and_gradients_match_pytorch(name):
    args, kwargs, value = CASES_WITH_GRADIENTS[name]
    ours, our_params = build(tl, name, args, kwargs, grad=True)
    theirs, their_params = build(torch, name, args, kwargs, grad=True)
    probe = A(0.1, 0.5, 0.8)
    getters = {"log_prob": lambda d, lib: d.log_prob(lib.tensor(value)),
               "entropy": lambda d, lib: d.entropy(),
               "mean": lambda d, lib: d.mean, "variance": lambda d, lib: d.variance,
               "mode": lambda d, lib: d.mode,
               "cdf": lambda d, lib: d.cdf(lib.tensor(value)),
               "icdf": lambda d, lib: d.icdf(lib.tensor(probe))}
    compared = []
    for what, get in getters.items():
        try:
            expected = get(theirs, torch)
        except (NotImplementedError, AttributeError):
            continue
        got = get(ours, tl)
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-7,
                                   atol=1e-10, err_msg=f"{name} {what}")
        if what in ("log_prob", "entropy") and expected.requires_grad:
            their_grads = torch.autograd.grad(expected.sum(), their_params, allow_unused=True,
                                              retain_graph=True)
            our_grads = tl.autograd.grad(got.sum(), our_params, allow_unused=True,
                                         retain_graph=True)
            for g_ours, g_theirs in zip(our_grads, their_grads):
                if g_theirs is not None:
                    np.testing.assert_allclose(g_ours.numpy(), g_theirs.numpy(), rtol=1e-6,
                                               atol=1e-10, err_msg=f"{name} d{what}")
        compared.append(what)
    few = name.startswith("Relaxed") or name == "LogisticNormal"  # PyTorch has log_prob only
    assert "log_prob" in compared and len(compared) >= (1 if few else 3)
    assert ours.has_rsample == theirs.has_rsample
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert tuple(ours.sample((4, 2)).shape) == tuple(theirs.sample((4, 2)).shape)


def test_lowrank_mvn_and_mixture_match_pytorch():
    rng = np.random.default_rng(0)
    loc, w, d = rng.standard_normal((2, 3)), rng.standard_normal((2, 3, 2)), rng.random((2, 3))
    ours = dist.LowRankMultivariateNormal(tl.tensor(loc), tl.tensor(w), tl.tensor(d + 0.5))
    theirs = TD.LowRankMultivariateNormal(torch.tensor(loc), torch.tensor(w),
                                          torch.tensor(d + 0.5))
    x = rng.standard_normal((4, 2, 3))
    for a, b in [(ours.log_prob(tl.tensor(x)), theirs.log_prob(torch.tensor(x))),
                 (ours.entropy(), theirs.entropy()), (ours.variance, theirs.variance),
                 (ours.covariance_matrix, theirs.covariance_matrix),
                 (ours.precision_matrix, theirs.precision_matrix)]:
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9)
    assert tuple(ours.rsample((5,)).shape) == (5, 2, 3)
    logits, locs, scales = rng.standard_normal((2, 3)), rng.standard_normal((2, 3)), \
        rng.random((2, 3)) + 0.5
    ours = dist.MixtureSameFamily(dist.Categorical(logits=tl.tensor(logits)),
                                  dist.Normal(tl.tensor(locs), tl.tensor(scales)))
    theirs = TD.MixtureSameFamily(TD.Categorical(logits=torch.tensor(logits)),
                                  TD.Normal(torch.tensor(locs), torch.tensor(scales)))
    v = rng.standard_normal((5, 2))
    for a, b in [(ours.log_prob(tl.tensor(v)), theirs.log_prob(torch.tensor(v))),
                 (ours.mean, theirs.mean), (ours.variance, theirs.variance),
                 (ours.cdf(tl.tensor(v)), theirs.cdf(torch.tensor(v)))]:
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9)
    assert tuple(ours.sample((7,)).shape) == (7, 2)


def test_inverse_gamma_matches_pytorch():
    conc, rate, x = [0.7, 1.5, 2.5, 4.0], [1.0, 0.5, 2.0, 3.0], [0.3, 1.2, 0.8, 2.5]
    oc, orate = _o(conc, True), _o(rate, True)
    tc, trate = _t(conc, True), _t(rate, True)
    ours, theirs = dist.InverseGamma(oc, orate), TD.InverseGamma(tc, trate)
    for attr in ("mean", "mode", "variance"):
        _close(getattr(ours, attr), getattr(theirs, attr))
    _close(ours.entropy(), theirs.entropy())
    _close(ours.cdf(_o(x)), theirs.cdf(_t(x)), rtol=1e-8)
    lo, lt = ours.log_prob(_o(x)), theirs.log_prob(_t(x))
    _close(lo, lt)
    lo.sum().backward()
    lt.sum().backward()
    _close(oc.grad, tc.grad)
    _close(orate.grad, trate.grad)
    assert ours.has_rsample and repr(ours.support) == repr(theirs.support)
    assert ours.concentration is ours.base_dist.concentration
    tl.manual_seed(0)
    sample = dist.InverseGamma(_o([3.0]), _o([2.0])).rsample((4000,))
    assert sample.shape == (4000, 1) and float(sample.min()) > 0
    assert abs(float(sample.mean()) - 1.0) < 0.08  # mean rate / (conc - 1) = 1
    expanded = ours.expand((2, 4))
    assert expanded.batch_shape == (2, 4) and expanded.log_prob(_o(x)).shape == (2, 4)
    with pytest.raises(ValueError, match="concentration"):
        dist.InverseGamma(_o([-1.0]), _o([1.0]))


@pytest.mark.parametrize("conc", [0.4, -0.3, 0.0, 1.2])
def test_generalized_pareto_matches_pytorch(conc):
    # float32: PyTorch's GeneralizedPareto compares with a float32 zero (fails on float64)
    loc, scale = [0.5, -1.0], [2.0, 0.7]
    params = [loc, scale, [conc, conc]]
    ours = dist.GeneralizedPareto(*[tl.tensor(p, requires_grad=True) for p in params])
    theirs = TD.GeneralizedPareto(*[torch.tensor(p, requires_grad=True) for p in params])
    x, u = [0.9, -0.8], [0.2, 0.9]
    for name in ("log_prob", "cdf", "log_cdf", "log_survival_function"):
        _close(getattr(ours, name)(tl.tensor(x)), getattr(theirs, name)(torch.tensor(x)),
               rtol=1e-5, atol=1e-6)
    _close(ours.icdf(tl.tensor(u)), theirs.icdf(torch.tensor(u)), rtol=1e-5)
    for attr in ("mean", "variance", "mode"):
        _close(getattr(ours, attr), getattr(theirs, attr), rtol=1e-6)
    _close(ours.entropy(), theirs.entropy(), rtol=1e-6)
    ours.icdf(tl.tensor(u)).sum().backward()  # rsample is icdf(U): its reparameterised grad
    theirs.icdf(torch.tensor(u)).sum().backward()
    _close(ours.loc.grad, theirs.loc.grad, rtol=1e-5)
    _close(ours.scale.grad, theirs.scale.grad, rtol=1e-5)
    if conc != 0.0:
        _close(ours.concentration.grad, theirs.concentration.grad, rtol=1e-4)
    sample = ours.rsample((50,))
    assert sample.shape == (50, 2) and sample.requires_grad
    assert bool(ours.support.check(sample.detach()).all())
    if conc < 0:  # bounded support [loc, loc - scale / xi]
        with pytest.raises(ValueError, match="support"):
            ours.log_prob(tl.tensor([0.6, 100.0]))


def test_wishart_matches_pytorch():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 3))
    cov = a @ a.transpose(0, 2, 1) + 3 * np.eye(3)
    df = [4.5, 6.0]
    oc, tc = _o(cov, True), _t(cov, True)
    ours = dist.Wishart(_o(df), covariance_matrix=oc)
    theirs = TD.Wishart(_t(df), covariance_matrix=tc)
    assert ours.batch_shape == (2,) and ours.event_shape == (3, 3)
    value = (a @ a.transpose(0, 2, 1) + np.eye(3)) * 2
    lo, lt = ours.log_prob(_o(value)), theirs.log_prob(_t(value))
    _close(lo, lt, rtol=1e-9)
    lo.sum().backward()
    lt.sum().backward()
    _close(oc.grad, tc.grad, rtol=1e-8, atol=1e-10)
    _close(ours.entropy(), theirs.entropy(), rtol=1e-9)
    # the ExponentialFamily entropy (Bregman divergence of the log-normalizer) agrees
    _close(dist.ExponentialFamily.entropy(ours), theirs.entropy(), rtol=1e-8)
    for attr in ("mean", "variance", "mode", "precision_matrix", "scale_tril",
                 "covariance_matrix"):
        _close(getattr(ours, attr), getattr(theirs, attr), rtol=1e-9, atol=1e-10)
    prec = np.linalg.inv(cov)
    for kwargs in ({"precision_matrix": prec}, {"scale_tril": np.linalg.cholesky(cov)}):
        o = dist.Wishart(_o(df), **{k: _o(v) for k, v in kwargs.items()})
        t = TD.Wishart(_t(df), **{k: _t(v) for k, v in kwargs.items()})
        _close(o.log_prob(_o(value)), t.log_prob(_t(value)), rtol=1e-8)
        _close(o.covariance_matrix, t.covariance_matrix, rtol=1e-9)
    expanded = dist.Wishart(5.0, covariance_matrix=_o(cov[0])).expand((4,))
    assert expanded.batch_shape == (4,) and expanded.log_prob(_o(value[0])).shape == (4,)


def test_wishart_sampling_and_errors():
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    oc = _o(cov, True)
    w = dist.Wishart(7.0, covariance_matrix=oc)
    tl.manual_seed(1)
    samples = w.rsample((3000,))
    assert samples.shape == (3000, 2, 2)
    assert bool(w.support.check(samples.detach()).all())
    np.testing.assert_allclose(samples.detach().numpy().mean(0), 7.0 * cov, rtol=0.06)
    samples.mean(0).sum().backward()  # d E[S] / d cov = df, elementwise
    np.testing.assert_allclose(oc.grad.numpy(), np.full((2, 2), 7.0), rtol=0.1)
    with pytest.raises(AssertionError, match="Exactly one of covariance_matrix"):
        dist.Wishart(3.0, covariance_matrix=_o(cov), scale_tril=_o(cov))
    with pytest.raises(ValueError, match=r"expected to be greater than ndim - 1 = 1"):
        dist.Wishart(0.5, covariance_matrix=_o(cov))
    with pytest.raises(ValueError, match="at least two-dimensional"):
        dist.Wishart(3.0, covariance_matrix=_o([1.0, 2.0]))
    with pytest.warns(UserWarning, match="Low df values detected"):
        dist.Wishart(1.5, covariance_matrix=_o(cov))


def test_lkj_cholesky():
    conc = [0.5, 2.0]
    ours, theirs = dist.LKJCholesky(3, _o(conc, True)), TD.LKJCholesky(3, _t(conc, True))
    assert ours.event_shape == (3, 3) and ours.batch_shape == (2,)
    torch.manual_seed(0)
    value = theirs.sample((5,))
    lo, lt = ours.log_prob(_o(value.numpy())), theirs.log_prob(value)
    _close(lo, lt)
    lo.sum().backward()
    lt.sum().backward()
    _close(ours.concentration.grad, theirs.concentration.grad)
    tl.manual_seed(2)
    sample = ours.sample((400,))
    assert sample.shape == (400, 2, 3, 3) and bool(ours.support.check(sample).all())
    assert torch.distributions.constraints.corr_cholesky.check(
        torch.tensor(sample.numpy())).all()
    # dim 2: the correlation r = L[1, 0] has E[r^2] = 1 / (2 eta + 1)
    r = dist.LKJCholesky(2, 1.5).sample((6000,)).numpy()[:, 1, 0]
    assert abs(float((r ** 2).mean()) - 1 / 4) < 0.02
    assert ours.expand((4, 2)).sample().shape == (4, 2, 3, 3)
    with pytest.raises(ValueError, match="greater than or equal to 2. Found dim=1"):
        dist.LKJCholesky(1)
    assert repr(dist.LKJCholesky(2).support) == repr(TD.LKJCholesky(2).support) == "CorrCholesky()"


def test_one_hot_categorical_straight_through():
    logits = [[0.1, 1.2, -0.5], [2.0, 0.0, 0.3]]
    ol, tlg = _o(logits, True), _t(logits, True)
    ours, theirs = dist.OneHotCategoricalStraightThrough(logits=ol), \
        TD.OneHotCategoricalStraightThrough(logits=tlg)
    assert ours.has_rsample and isinstance(ours, dist.OneHotCategorical)
    sample = ours.rsample((4,))
    assert sample.shape == (4, 2, 3) and sample.requires_grad
    np.testing.assert_array_equal(sample.detach().numpy().sum(-1), np.ones((4, 2)))
    weights = np.arange(24, dtype=np.float64).reshape(4, 2, 3)
    (sample * _o(weights)).sum().backward()
    (theirs.rsample((4,)) * _t(weights)).sum().backward()
    _close(ol.grad, tlg.grad)  # the straight-through gradient does not depend on the draw
    _close(ours.log_prob(sample.detach()), theirs.log_prob(_t(sample.detach().numpy())))


def test_exponential_family_base_and_subclass():
    class Exp(dist.ExponentialFamily):
        arg_constraints = {"rate": dist.constraints.positive}

        def __init__(self, rate):
            self.rate = rate
            super().__init__(rate.shape)

        @property
        def _natural_params(self):
            return (-self.rate,)

        def _log_normalizer(self, x):
            return -(-x).log()

        _mean_carrier_measure = 0

    entropy = Exp(_o([0.5, 2.0, 3.0])).entropy()
    np.testing.assert_allclose(entropy.detach().numpy(), 1 - np.log([0.5, 2.0, 3.0]))
    assert issubclass(dist.Wishart, dist.ExponentialFamily)
    with pytest.raises(NotImplementedError), \
            pytest.warns(UserWarning, match="does not define `arg_constraints`"):
        dist.ExponentialFamily(()).entropy()  # (validated by default: PyTorch's warning)


def test_kl_divergences_match_pytorch():
    pairs = [("Normal", (np.array([0.0, 1.0]), np.array([1.0, 2.0])),
              (np.array([0.5, -1.0]), np.array([2.0, 0.5]))),
             ("Exponential", (np.array([1.0, 2.0]),), (np.array([3.0, 0.5]),)),
             ("Gamma", (np.array([1.0, 2.0]), np.array([1.5, 0.5])),
              (np.array([3.0, 0.5]), np.array([2.0, 1.0]))),
             ("Beta", (np.array([1.0, 2.0]), np.array([1.5, 0.5])),
              (np.array([3.0, 0.5]), np.array([2.0, 1.0]))),
             ("Laplace", (np.array([0.0, 1.0]), np.array([1.0, 2.0])),
              (np.array([0.5, -1.0]), np.array([2.0, 0.5]))),
             ("Poisson", (np.array([1.0, 2.0]),), (np.array([3.0, 0.5]),))]
    for name, p_args, q_args in pairs:
        ours = dist.kl_divergence(getattr(dist, name)(*map(tl.tensor, p_args)),
                               getattr(dist, name)(*map(tl.tensor, q_args)))
        theirs = TD.kl_divergence(getattr(TD, name)(*map(torch.tensor, p_args)),
                                  getattr(TD, name)(*map(torch.tensor, q_args)))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-9, err_msg=name)
    p, q = rng.random((2, 4)), rng.random((2, 4))
    np.testing.assert_allclose(
        dist.kl_divergence(dist.Categorical(probs=tl.tensor(p)),
                           dist.Categorical(probs=tl.tensor(q))).numpy(),
        TD.kl_divergence(TD.Categorical(probs=torch.tensor(p)),
                         TD.Categorical(probs=torch.tensor(q))).numpy(), rtol=1e-9)
    with pytest.raises(NotImplementedError, match="No KL"):  # (Normal-Exponential is inf)
        dist.kl_divergence(dist.Normal(0.0, 1.0), dist.Categorical(probs=tl.tensor([0.5, 0.5])))
    # the families defined through transforms (and Chi2, ContinuousBernoulli), float64
    pairs = [("Gumbel", (0.0, 1.0), (1.0, 2.0)), ("HalfNormal", (1.0,), (2.0,)),
             ("Pareto", (1.0, 2.0), (0.5, 3.0)), ("LogNormal", (0.0, 1.0), (1.0, 2.0)),
             ("Cauchy", (0.0, 1.0), (1.0, 2.0)), ("Chi2", (2.0,), (3.0,)),
             ("ContinuousBernoulli", (0.3,), (0.8,))]
    for name, p, q in pairs:
        p, q = [np.array(v) for v in p], [np.array(v) for v in q]  # float64
        ours = dist.kl_divergence(getattr(dist, name)(*map(tl.tensor, p)),
                                  getattr(dist, name)(*map(tl.tensor, q)))
        theirs = TD.kl_divergence(getattr(TD, name)(*map(torch.tensor, p)),
                                  getattr(TD, name)(*map(torch.tensor, q)))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-9, err_msg=name)
    base_p, base_q = dist.Normal(0.0, 1.0), dist.Normal(1.0, 2.0)
    t = [dist.AffineTransform(1.0, 2.0)]
    kl = dist.kl_divergence(dist.TransformedDistribution(base_p, t),
                            dist.TransformedDistribution(base_q, t))
    assert kl.item() == pytest.approx(dist.kl_divergence(base_p, base_q).item())


def test_validation_errors_match_pytorch():
    with pytest.raises(ValueError, match="Expected parameter scale"):
        dist.Normal(tl.tensor([0.0]), tl.tensor([-1.0]))
    with pytest.raises(ValueError, match="within the support"):
        dist.Exponential(tl.tensor([1.0])).log_prob(tl.tensor([-1.0]))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        dist.Bernoulli()
    assert dist.Normal(tl.tensor([0.0]), tl.tensor([-1.0]), validate_args=False).scale.item() == -1
    with pytest.raises(ValueError, match="Expected parameter scale"):
        dist.Gumbel(tl.tensor([0.0]), tl.tensor([-1.0]))
    with pytest.raises(ValueError, match="Expected parameter"):
        dist.HalfNormal(tl.tensor([-1.0]))
    with pytest.raises(ValueError, match="Expected parameter df"):
        dist.StudentT(tl.tensor([-1.0]))
    with pytest.raises(ValueError, match="Expected parameter probs"):
        dist.RelaxedBernoulli(tl.tensor(0.5), probs=tl.tensor([1.5]))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        dist.NegativeBinomial(tl.tensor(2.0))
    with pytest.raises(ValueError, match="within the support"):
        dist.HalfNormal(tl.tensor([1.0])).log_prob(tl.tensor([-1.0]))
    with pytest.raises(ValueError, match="within the support"):
        dist.Pareto(tl.tensor([1.0]), tl.tensor([2.0])).log_prob(tl.tensor([0.5]))
    with pytest.raises(ValueError, match="within the support"):
        dist.Kumaraswamy(tl.tensor([1.0]), tl.tensor([2.0])).log_prob(tl.tensor([1.5]))
    with pytest.raises(ValueError, match="transforms must be"):
        dist.TransformedDistribution(dist.Normal(0.0, 1.0), "exp")
    with pytest.raises(ValueError, match="does not equal"):
        dist.MixtureSameFamily(dist.Categorical(logits=tl.zeros(2)),
                               dist.Normal(tl.zeros(3), tl.ones(3)))
    quiet = dist.HalfNormal(tl.tensor([1.0]), validate_args=False)
    assert math.isinf(quiet.log_prob(tl.tensor([-1.0])).item())


@pytest.mark.parametrize("a,b", [(0.5, 0.5), (1.0, 1.0), (0.5, 2.0), (2.0, 0.5), (1.0, 3.0),
                                 (3.0, 1.0), (2.0, 3.0), (1.0, 0.5), (0.5, 1.0)])
def test_beta_mode_edges_match_pytorch(a, b):
    """Beta's mode at and around the concentration-1 edges follows PyTorch (including NaN)."""
    ours = dist.Beta(tl.tensor(a), tl.tensor(b)).mode.item()
    theirs = torch.distributions.Beta(torch.tensor(a), torch.tensor(b)).mode.item()
    assert np.isclose(ours, theirs, equal_nan=True)


def test_zero_dim_bool_and_keeps_bool():
    """``&`` on zero-dim comparison results stays a bool tensor (was a TypeError)."""
    both = (tl.tensor(0.5) < 1) & (tl.tensor(2.0) > 1)
    assert both.dtype == tl.bool and both.item() is True


def test_everything_is_exported():
    for name in ("InverseGamma", "GeneralizedPareto", "Wishart", "LKJCholesky",
                 "OneHotCategoricalStraightThrough", "ExponentialFamily", "CatTransform",
                 "StackTransform", "CorrCholeskyTransform", "PositiveDefiniteTransform"):
        assert name in dist.__all__ and getattr(dist, name) is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isfinite(dist.InverseGamma(2.0, 1.0).entropy().item())
