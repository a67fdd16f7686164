"""InverseGamma, GeneralizedPareto, Wishart, LKJCholesky, OneHotCategoricalStraightThrough,
ExponentialFamily and the Cat/Stack/CorrCholesky/PositiveDefinite transforms against
torch.distributions: densities, moments, entropies, supports, gradients, sampling, errors."""

import math
import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")
D, TD = tl.distributions, torch.distributions


def _t(a, grad=False):
    return torch.tensor(np.asarray(a, np.float64), requires_grad=grad)


def _o(a, grad=False):
    return tl.tensor(np.asarray(a, np.float64), requires_grad=grad)


def _close(ours, theirs, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol,
                               atol=atol)


def test_inverse_gamma_matches_pytorch():
    conc, rate, x = [0.7, 1.5, 2.5, 4.0], [1.0, 0.5, 2.0, 3.0], [0.3, 1.2, 0.8, 2.5]
    oc, orate = _o(conc, True), _o(rate, True)
    tc, trate = _t(conc, True), _t(rate, True)
    ours, theirs = D.InverseGamma(oc, orate), TD.InverseGamma(tc, trate)
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
    sample = D.InverseGamma(_o([3.0]), _o([2.0])).rsample((4000,))
    assert sample.shape == (4000, 1) and float(sample.min()) > 0
    assert abs(float(sample.mean()) - 1.0) < 0.08  # mean rate / (conc - 1) = 1
    expanded = ours.expand((2, 4))
    assert expanded.batch_shape == (2, 4) and expanded.log_prob(_o(x)).shape == (2, 4)
    with pytest.raises(ValueError, match="concentration"):
        D.InverseGamma(_o([-1.0]), _o([1.0]))


@pytest.mark.parametrize("conc", [0.4, -0.3, 0.0, 1.2])
def test_generalized_pareto_matches_pytorch(conc):
    # float32: PyTorch's GeneralizedPareto compares with a float32 zero (fails on float64)
    loc, scale = [0.5, -1.0], [2.0, 0.7]
    params = [loc, scale, [conc, conc]]
    ours = D.GeneralizedPareto(*[tl.tensor(p, requires_grad=True) for p in params])
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
    ours = D.Wishart(_o(df), covariance_matrix=oc)
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
    _close(D.ExponentialFamily.entropy(ours), theirs.entropy(), rtol=1e-8)
    for attr in ("mean", "variance", "mode", "precision_matrix", "scale_tril",
                 "covariance_matrix"):
        _close(getattr(ours, attr), getattr(theirs, attr), rtol=1e-9, atol=1e-10)
    prec = np.linalg.inv(cov)
    for kwargs in ({"precision_matrix": prec}, {"scale_tril": np.linalg.cholesky(cov)}):
        o = D.Wishart(_o(df), **{k: _o(v) for k, v in kwargs.items()})
        t = TD.Wishart(_t(df), **{k: _t(v) for k, v in kwargs.items()})
        _close(o.log_prob(_o(value)), t.log_prob(_t(value)), rtol=1e-8)
        _close(o.covariance_matrix, t.covariance_matrix, rtol=1e-9)
    expanded = D.Wishart(5.0, covariance_matrix=_o(cov[0])).expand((4,))
    assert expanded.batch_shape == (4,) and expanded.log_prob(_o(value[0])).shape == (4,)


def test_wishart_sampling_and_errors():
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    oc = _o(cov, True)
    w = D.Wishart(7.0, covariance_matrix=oc)
    tl.manual_seed(1)
    samples = w.rsample((3000,))
    assert samples.shape == (3000, 2, 2)
    assert bool(w.support.check(samples.detach()).all())
    np.testing.assert_allclose(samples.detach().numpy().mean(0), 7.0 * cov, rtol=0.06)
    samples.mean(0).sum().backward()  # d E[S] / d cov = df, elementwise
    np.testing.assert_allclose(oc.grad.numpy(), np.full((2, 2), 7.0), rtol=0.1)
    with pytest.raises(AssertionError, match="Exactly one of covariance_matrix"):
        D.Wishart(3.0, covariance_matrix=_o(cov), scale_tril=_o(cov))
    with pytest.raises(ValueError, match=r"expected to be greater than ndim - 1 = 1"):
        D.Wishart(0.5, covariance_matrix=_o(cov))
    with pytest.raises(ValueError, match="at least two-dimensional"):
        D.Wishart(3.0, covariance_matrix=_o([1.0, 2.0]))
    with pytest.warns(UserWarning, match="Low df values detected"):
        D.Wishart(1.5, covariance_matrix=_o(cov))


def test_lkj_cholesky():
    conc = [0.5, 2.0]
    ours, theirs = D.LKJCholesky(3, _o(conc, True)), TD.LKJCholesky(3, _t(conc, True))
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
    r = D.LKJCholesky(2, 1.5).sample((6000,)).numpy()[:, 1, 0]
    assert abs(float((r ** 2).mean()) - 1 / 4) < 0.02
    assert ours.expand((4, 2)).sample().shape == (4, 2, 3, 3)
    with pytest.raises(ValueError, match="greater than or equal to 2. Found dim=1"):
        D.LKJCholesky(1)
    assert repr(D.LKJCholesky(2).support) == repr(TD.LKJCholesky(2).support) == "CorrCholesky()"


def test_one_hot_categorical_straight_through():
    logits = [[0.1, 1.2, -0.5], [2.0, 0.0, 0.3]]
    ol, tlg = _o(logits, True), _t(logits, True)
    ours, theirs = D.OneHotCategoricalStraightThrough(logits=ol), \
        TD.OneHotCategoricalStraightThrough(logits=tlg)
    assert ours.has_rsample and isinstance(ours, D.OneHotCategorical)
    sample = ours.rsample((4,))
    assert sample.shape == (4, 2, 3) and sample.requires_grad
    np.testing.assert_array_equal(sample.detach().numpy().sum(-1), np.ones((4, 2)))
    weights = np.arange(24, dtype=np.float64).reshape(4, 2, 3)
    (sample * _o(weights)).sum().backward()
    (theirs.rsample((4,)) * _t(weights)).sum().backward()
    _close(ol.grad, tlg.grad)  # the straight-through gradient does not depend on the draw
    _close(ours.log_prob(sample.detach()), theirs.log_prob(_t(sample.detach().numpy())))


def test_exponential_family_base_and_subclass():
    class Exp(D.ExponentialFamily):
        arg_constraints = {"rate": D.constraints.positive}

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
    assert issubclass(D.Wishart, D.ExponentialFamily)
    with pytest.raises(NotImplementedError):
        D.ExponentialFamily(()).entropy()


def test_corr_cholesky_and_positive_definite_transforms():
    x = np.random.default_rng(3).standard_normal((2, 6))
    ours, theirs = D.CorrCholeskyTransform(), TD.CorrCholeskyTransform()
    xo, xt = _o(x, True), _t(x, True)
    yo, yt = ours(xo), theirs(xt)
    _close(yo, yt)
    assert bool(D.constraints.corr_cholesky.check(yo.detach()).all())
    _close(ours.inv(yo), xt, rtol=1e-8)
    lo, lt = ours.log_abs_det_jacobian(xo, yo), theirs.log_abs_det_jacobian(xt, yt)
    _close(lo, lt, rtol=1e-9)
    (lo.sum() + yo.sum()).backward()
    (lt.sum() + yt.sum()).backward()
    _close(xo.grad, xt.grad, rtol=1e-8)
    assert ours.forward_shape((5, 6)) == theirs.forward_shape((5, 6)) == (5, 4, 4)
    assert ours.inverse_shape((4, 4)) == (6,)
    with pytest.raises(ValueError, match="not a flattened lower-diagonal"):
        ours.forward_shape((5,))
    assert isinstance(D.biject_to(D.constraints.corr_cholesky), D.CorrCholeskyTransform)
    m = np.random.default_rng(4).standard_normal((3, 3))
    pd_o, pd_t = D.PositiveDefiniteTransform(), TD.PositiveDefiniteTransform()
    _close(pd_o(_o(m)), pd_t(_t(m)))
    _close(pd_o.inv(pd_o(_o(m))), pd_t.inv(pd_t(_t(m))), rtol=1e-9)
    assert pd_o == D.PositiveDefiniteTransform()
    assert isinstance(D.transform_to(D.constraints.positive_definite),
                      D.PositiveDefiniteTransform)


def test_cat_and_stack_transforms():
    x = np.random.default_rng(5).standard_normal((3, 5))
    parts_o = [D.ExpTransform(), D.AffineTransform(1.0, 2.0), D.SigmoidTransform()]
    parts_t = [TD.ExpTransform(), TD.AffineTransform(1.0, 2.0), TD.SigmoidTransform()]
    cat_o = D.CatTransform(parts_o, dim=1, lengths=[2, 2, 1])
    cat_t = TD.CatTransform(parts_t, dim=1, lengths=[2, 2, 1])
    xo, xt = _o(x, True), _t(x, True)
    yo, yt = cat_o(xo), cat_t(xt)
    _close(yo, yt)
    _close(cat_o.inv(yo), xt)
    _close(cat_o.log_abs_det_jacobian(xo, yo), cat_t.log_abs_det_jacobian(xt, yt))
    assert cat_o.event_dim == 0 and cat_o.length == 5 and cat_o.bijective
    np.testing.assert_array_equal(cat_o.codomain.check(yo.detach()),
                                  cat_t.codomain.check(yt).numpy())
    stack_o, stack_t = D.StackTransform(parts_o, dim=0), TD.StackTransform(parts_t, dim=0)
    ys_o, ys_t = stack_o(xo), stack_t(xt)
    _close(ys_o, ys_t)
    _close(stack_o.inv(ys_o), xt)
    _close(stack_o.log_abs_det_jacobian(xo, ys_o), stack_t.log_abs_det_jacobian(xt, ys_t))
    np.testing.assert_array_equal(stack_o.codomain.check(ys_o.detach()),
                                  stack_t.codomain.check(ys_t).numpy())
    (ys_o.sum() + yo.sum()).backward()
    (ys_t.sum() + yt.sum()).backward()
    _close(xo.grad, xt.grad)
    c = D.constraints
    bij = D.biject_to(c.cat([c.positive, c.real], dim=-1, lengths=[2, 3]))
    assert isinstance(bij, D.CatTransform) and isinstance(bij.transforms[0], D.ExpTransform)
    assert isinstance(D.transform_to(c.stack([c.positive, c.unit_interval])), D.StackTransform)
    with pytest.raises(AssertionError, match=r"x.size\(1\) = 5 must equal length 4"):
        D.CatTransform(parts_o, dim=1, lengths=[2, 1, 1])(xo)
    with pytest.raises(AssertionError, match="must equal len"):
        D.StackTransform(parts_o[:2], dim=0)(xo)


def test_everything_is_exported():
    for name in ("InverseGamma", "GeneralizedPareto", "Wishart", "LKJCholesky",
                 "OneHotCategoricalStraightThrough", "ExponentialFamily", "CatTransform",
                 "StackTransform", "CorrCholeskyTransform", "PositiveDefiniteTransform"):
        assert name in D.__all__ and getattr(D, name) is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isfinite(D.InverseGamma(2.0, 1.0).entropy().item())
