"""Transforms (``torch.distributions.transforms``), TransformedDistribution and
``biject_to``/``transform_to``: values, inverses, log-Jacobians, shapes, constraints and
gradients against PyTorch (float64), and the change of variables without it."""

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.distributions as dist

A = lambda *x: np.array(x, dtype=np.float64)  # noqa: E731


def _t(a, grad=False):
    torch = pytest.importorskip("torch")
    return torch.tensor(np.asarray(a, np.float64), requires_grad=grad)


def _o(a, grad=False):
    return tl.tensor(np.asarray(a, np.float64), requires_grad=grad)


def _close(ours, theirs, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol,
                               atol=atol)


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


def test_corr_cholesky_and_positive_definite_transforms():
    TD = pytest.importorskip("torch").distributions
    x = np.random.default_rng(3).standard_normal((2, 6))
    ours, theirs = dist.CorrCholeskyTransform(), TD.CorrCholeskyTransform()
    xo, xt = _o(x, True), _t(x, True)
    yo, yt = ours(xo), theirs(xt)
    _close(yo, yt)
    assert bool(dist.constraints.corr_cholesky.check(yo.detach()).all())
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
    assert isinstance(dist.biject_to(dist.constraints.corr_cholesky), dist.CorrCholeskyTransform)
    m = np.random.default_rng(4).standard_normal((3, 3))
    pd_o, pd_t = dist.PositiveDefiniteTransform(), TD.PositiveDefiniteTransform()
    _close(pd_o(_o(m)), pd_t(_t(m)))
    _close(pd_o.inv(pd_o(_o(m))), pd_t.inv(pd_t(_t(m))), rtol=1e-9)
    assert pd_o == dist.PositiveDefiniteTransform()
    assert isinstance(dist.transform_to(dist.constraints.positive_definite),
                      dist.PositiveDefiniteTransform)


def test_cat_and_stack_transforms():
    TD = pytest.importorskip("torch").distributions
    x = np.random.default_rng(5).standard_normal((3, 5))
    parts_o = [dist.ExpTransform(), dist.AffineTransform(1.0, 2.0), dist.SigmoidTransform()]
    parts_t = [TD.ExpTransform(), TD.AffineTransform(1.0, 2.0), TD.SigmoidTransform()]
    cat_o = dist.CatTransform(parts_o, dim=1, lengths=[2, 2, 1])
    cat_t = TD.CatTransform(parts_t, dim=1, lengths=[2, 2, 1])
    xo, xt = _o(x, True), _t(x, True)
    yo, yt = cat_o(xo), cat_t(xt)
    _close(yo, yt)
    _close(cat_o.inv(yo), xt)
    _close(cat_o.log_abs_det_jacobian(xo, yo), cat_t.log_abs_det_jacobian(xt, yt))
    assert cat_o.event_dim == 0 and cat_o.length == 5 and cat_o.bijective
    np.testing.assert_array_equal(cat_o.codomain.check(yo.detach()),
                                  cat_t.codomain.check(yt).numpy())
    stack_o, stack_t = dist.StackTransform(parts_o, dim=0), TD.StackTransform(parts_t, dim=0)
    ys_o, ys_t = stack_o(xo), stack_t(xt)
    _close(ys_o, ys_t)
    _close(stack_o.inv(ys_o), xt)
    _close(stack_o.log_abs_det_jacobian(xo, ys_o), stack_t.log_abs_det_jacobian(xt, ys_t))
    np.testing.assert_array_equal(stack_o.codomain.check(ys_o.detach()),
                                  stack_t.codomain.check(ys_t).numpy())
    (ys_o.sum() + yo.sum()).backward()
    (ys_t.sum() + yt.sum()).backward()
    _close(xo.grad, xt.grad)
    c = dist.constraints
    bij = dist.biject_to(c.cat([c.positive, c.real], dim=-1, lengths=[2, 3]))
    # positive is greater_than(0): exp then a shift by 0, as PyTorch's registry gives
    assert isinstance(bij, dist.CatTransform) and repr(bij.transforms[0]) == repr(
        TD.biject_to(TD.constraints.positive))
    assert isinstance(dist.transform_to(c.stack([c.positive, c.unit_interval])),
                      dist.StackTransform)
    with pytest.raises(AssertionError, match=r"x.size\(1\) = 5 must equal length 4"):
        dist.CatTransform(parts_o, dim=1, lengths=[2, 1, 1])(xo)
    with pytest.raises(AssertionError, match="must equal len"):
        dist.StackTransform(parts_o[:2], dim=0)(xo)


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
