"""The newer tl.distributions (transforms, TransformedDistribution and the families built on it,
relaxed distributions, StudentT, Chi2, F, ContinuousBernoulli, VonMises, NegativeBinomial,
Multinomial, MixtureSameFamily, LowRankMultivariateNormal): values and gradients against
PyTorch (float64), reparameterised-sample gradients, sample shapes and moments, validation."""

import math

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.distributions as dist

A = lambda *x: np.array(x, dtype=np.float64)  # noqa: E731
POS, REAL, UNIT = A(0.5, 1.5, 3.0), A(0.0, 1.0, -2.0), A(0.2, 0.5, 0.7)

# name: (positional params, keyword params, a value in the support)
CASES = {
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


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_pytorch(name):
    torch = pytest.importorskip("torch")
    args, kwargs, value = CASES[name]
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
    torch = pytest.importorskip("torch")
    TD = torch.distributions
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


def test_transforms_match_pytorch():
    torch = pytest.importorskip("torch")
    TD = torch.distributions
    x = np.random.default_rng(1).standard_normal((2, 3))
    scale = A(2.0, -1.0, 3.0)
    pairs = [(dist.ExpTransform(), TD.ExpTransform()),
             (dist.SigmoidTransform(), TD.SigmoidTransform()),
             (dist.TanhTransform(), TD.TanhTransform()),
             (dist.SoftplusTransform(), TD.SoftplusTransform()),
             (dist.StickBreakingTransform(), TD.StickBreakingTransform()),
             (dist.AffineTransform(1.0, tl.tensor(scale), event_dim=1),
              TD.AffineTransform(1.0, torch.tensor(scale), event_dim=1)),
             (dist.ComposeTransform([dist.ExpTransform(), dist.PowerTransform(2.0)]),
              TD.ComposeTransform([TD.ExpTransform(), TD.PowerTransform(2.0)])),
             (dist.ExpTransform().inv, TD.ExpTransform().inv)]
    for ours, theirs in pairs:
        xin = np.abs(x) + 0.5 if ours.domain is dist.constraints.positive else x
        tx, ty = torch.tensor(xin), theirs(torch.tensor(xin))
        y = ours(tl.tensor(xin))
        np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-10, err_msg=repr(ours))
        np.testing.assert_allclose(ours.inv(y).numpy(), xin, rtol=1e-7, err_msg=repr(ours))
        np.testing.assert_allclose(ours.log_abs_det_jacobian(tl.tensor(xin), y).numpy(),
                                   theirs.log_abs_det_jacobian(tx, ty).numpy(), rtol=1e-9,
                                   err_msg=repr(ours))
        assert ours.domain.event_dim == theirs.domain.event_dim
        assert ours.codomain.event_dim == theirs.codomain.event_dim
        assert ours.bijective == theirs.bijective


def test_kl_divergences_match_pytorch():
    torch = pytest.importorskip("torch")
    TD = torch.distributions
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


def test_reparameterised_gradients_match_pytorch_statistically():
    """d/dparam E[f(x)] from rsample: ours and PyTorch's agree within Monte Carlo noise."""
    torch = pytest.importorskip("torch")
    tl.manual_seed(0)
    torch.manual_seed(0)
    cases = [("Gumbel", (0.5, 1.5)), ("Weibull", (1.5, 2.0)), ("Kumaraswamy", (2.0, 3.0)),
             ("StudentT", (5.0, 0.5, 1.5)), ("Gamma", (2.5, 1.5)), ("Beta", (2.0, 3.0)),
             ("HalfNormal", (1.5,)), ("ContinuousBernoulli", (0.3,)),
             ("FisherSnedecor", (6.0, 9.0))]
    n = 10000
    for name, params in cases:
        grads = []
        for lib, mod in ((tl, dist), (torch, torch.distributions)):
            ps = [lib.tensor(p, dtype=lib.float64, requires_grad=True) for p in params]
            sample = getattr(mod, name)(*ps).rsample((n,))
            (sample.clamp(max=5.0) ** 2).mean().backward()
            grads.append(np.array([p.grad.item() for p in ps]))
        np.testing.assert_allclose(grads[0], grads[1], rtol=0.1, atol=0.03, err_msg=name)


def test_relaxed_rsample_gradients_and_temperature():
    tl.manual_seed(0)
    logits = tl.tensor([0.0, 1.0, -1.0], requires_grad=True)
    samples = dist.RelaxedOneHotCategorical(tl.tensor(0.1), logits=logits).rsample((2000,))
    assert tuple(samples.shape) == (2000, 3)
    np.testing.assert_allclose(samples.sum(-1).detach().numpy(), 1.0, rtol=1e-5)
    # low temperature: nearly one-hot, and the category frequencies follow softmax(logits)
    assert (samples.max(-1)[0].detach().numpy() > 0.9).mean() > 0.85
    np.testing.assert_allclose(samples.detach().numpy().mean(0),
                               logits.softmax(-1).detach().numpy(), atol=0.04)
    samples[:, 1].mean().backward()
    g = logits.grad.numpy()
    assert g[1] > 0 and g[0] < 0 and g[2] < 0
    probs = tl.tensor([0.3], requires_grad=True)
    b = dist.RelaxedBernoulli(tl.tensor(0.5), probs=probs).rsample((4000,))
    b.mean().backward()
    assert 0.0 < b.min().item() and b.max().item() < 1.0 and probs.grad.item() > 0


def test_sample_moments():
    tl.manual_seed(1)
    cases = [(dist.Gumbel(tl.tensor(1.0), tl.tensor(2.0)), 1e4),
             (dist.Weibull(tl.tensor(1.5), tl.tensor(2.0)), 1e4),
             (dist.StudentT(tl.tensor(6.0), tl.tensor(1.0), tl.tensor(2.0)), 2e4),
             (dist.NegativeBinomial(tl.tensor(3.0), probs=tl.tensor(0.4)), 1e4),
             (dist.Chi2(tl.tensor(3.0)), 1e4), (dist.Pareto(tl.tensor(1.0), tl.tensor(5.0)), 1e4),
             (dist.VonMises(tl.tensor(0.5), tl.tensor(4.0)), 1e4),
             (dist.Multinomial(10, probs=tl.tensor([0.2, 0.3, 0.5])), 1e4)]
    for d, n in cases:
        s = d.sample((int(n),)).numpy()
        np.testing.assert_allclose(s.mean(0), d.mean.numpy(), rtol=0.05, atol=0.05,
                                   err_msg=type(d).__name__)
        if not isinstance(d, dist.VonMises):
            np.testing.assert_allclose(s.var(0), d.variance.numpy(), rtol=0.15,
                                       err_msg=type(d).__name__)
    v = dist.VonMises(tl.tensor(0.5), tl.tensor(4.0)).sample((10000,)).numpy()
    assert 1 - np.abs(np.exp(1j * v).mean()) == pytest.approx(
        dist.VonMises(tl.tensor(0.5), tl.tensor(4.0)).variance.item(), abs=0.02)


def test_transformed_distribution_without_torch():
    base = dist.Normal(tl.tensor([0.0, 1.0]), tl.tensor([1.0, 0.5]))
    lognormal = dist.TransformedDistribution(base, [dist.ExpTransform()])
    x = tl.tensor([0.5, 2.0])
    np.testing.assert_allclose(lognormal.log_prob(x).numpy(),
                               dist.LogNormal(base.loc, base.scale).log_prob(x).numpy(),
                               rtol=1e-6)
    assert lognormal.support is dist.constraints.positive and lognormal.has_rsample
    np.testing.assert_allclose(lognormal.cdf(x).numpy(), base.cdf(x.log()).numpy(), rtol=1e-6)
    flipped = dist.TransformedDistribution(base, dist.AffineTransform(0.0, -1.0))
    np.testing.assert_allclose(flipped.cdf(-x).numpy(), 1 - base.cdf(x).numpy(), rtol=1e-6)
    assert tuple(lognormal.expand((3, 2)).sample((4,)).shape) == (4, 3, 2)
    ln = dist.LogisticNormal(tl.zeros(3), tl.ones(3))
    s = ln.sample((5,))
    assert tuple(s.shape) == (5, 4) and np.allclose(s.sum(-1).numpy(), 1.0, atol=1e-6)
    # biject_to maps the reals onto each constraint
    for c in (dist.constraints.positive, dist.constraints.unit_interval,
              dist.constraints.interval(1.0, 3.0), dist.constraints.greater_than(2.0),
              dist.constraints.simplex):
        t = dist.biject_to(c)
        y = t(tl.tensor([[-3.0, 0.0, 4.0]]))
        assert c.check(y).all(), c
        np.testing.assert_allclose(t.inv(y).numpy(), [[-3.0, 0.0, 4.0]], atol=1e-5)
    assert dist.transform_to(dist.constraints.simplex) == dist.SoftmaxTransform()
    assert dist.identity_transform(x) is x


def test_validation_errors():
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
