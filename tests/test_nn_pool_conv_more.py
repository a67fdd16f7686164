"""The 3-d convolutions, lazy convolutions, 3-d / adaptive-max / Lp pooling, unpooling, ceil_mode
and gumbel_softmax against PyTorch (float64 values, input and weight gradients, indices, reprs,
errors), plus float64 gradient checks to second order."""

import numpy as np
import pytest
from helpers import check_grads, check_second_order

import tinygrad_lite as tl
import tinygrad_lite.nn.functional as F  # noqa: N812
from tinygrad_lite import nn

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _rng(seed=0):
    return np.random.default_rng(seed)


def _compare(tl_fn, th_fn, *arrays, grad=True, rtol=1e-10, atol=1e-12):
    """Run both frameworks on float64 copies; compare outputs (tuple outputs: values then
    indices) and, when ``grad``, the gradients of every float input under one upstream."""
    a = [tl.tensor(x, requires_grad=grad and x.dtype.kind == "f") for x in arrays]
    b = [torch.tensor(x, requires_grad=grad and x.dtype.kind == "f") for x in arrays]
    out, ref = tl_fn(*a), th_fn(*b)
    if isinstance(ref, tuple):
        (out, idx), (ref, ref_idx) = out, ref
        np.testing.assert_array_equal(idx.numpy(), ref_idx.numpy())
        assert idx.dtype == tl.int64
    assert tuple(out.shape) == tuple(ref.shape)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=rtol, atol=atol)
    if grad:
        g = _rng(9).standard_normal(tuple(ref.shape))
        out.backward(tl.tensor(g))
        ref.backward(torch.tensor(g))
        for x, y in zip(a, b):
            if y.requires_grad:
                np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-9, atol=1e-12)
    return out


# -- convolutions -----------------------------------------------------------------------------


@pytest.mark.parametrize("kw", [
    dict(), dict(stride=2, padding=1),
    dict(stride=(1, 2, 1), padding=(0, 1, 2), dilation=(2, 1, 1)),
    dict(groups=2, padding="same", dilation=(1, 2, 1)), dict(padding="valid", stride=(2, 1, 3))])
def test_conv3d_matches_torch(kw):
    r = _rng(1)
    x, w, b = r.standard_normal((2, 4, 5, 6, 7)), r.standard_normal((6, 4 // kw.get("groups", 1),
                                                                     3, 2, 3)), r.standard_normal(6)
    _compare(lambda *t: F.conv3d(*t, **kw), lambda *t: TF.conv3d(*t, **kw), x, w, b)
    _compare(lambda *t: F.conv3d(*t, **kw), lambda *t: TF.conv3d(*t, **kw), x[0], w)  # unbatched


@pytest.mark.parametrize("kw", [
    dict(), dict(stride=2, padding=1, output_padding=1),
    dict(stride=(2, 1, 3), padding=(1, 0, 1), output_padding=(1, 0, 2), groups=2),
    dict(stride=2, dilation=(2, 1, 1), output_padding=(1, 0, 1))])
def test_conv_transpose3d_matches_torch(kw):
    r = _rng(2)
    x, w, b = r.standard_normal((2, 4, 3, 4, 3)), r.standard_normal((4, 3, 3, 2, 3)), None
    b = r.standard_normal(3 * kw.get("groups", 1))
    _compare(lambda *t: F.conv_transpose3d(*t, **kw), lambda *t: TF.conv_transpose3d(*t, **kw),
             x, w, b)
    _compare(lambda *t: F.conv_transpose3d(*t, **kw), lambda *t: TF.conv_transpose3d(*t, **kw),
             x[1], w)


def _copy_params(ours, theirs):
    for name, p in theirs.named_parameters():
        getattr(ours, name).data = tl.tensor(p.detach().numpy().copy())


@pytest.mark.parametrize("make", [
    lambda m: m.Conv3d(4, 6, (3, 2, 3), stride=(1, 2, 1), padding=1, groups=2),
    lambda m: m.Conv3d(4, 2, 2, bias=False, dilation=2),
    lambda m: m.ConvTranspose3d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
    lambda m: m.ConvTranspose3d(4, 2, (2, 3, 2), bias=False)])
def test_conv3d_modules_match_torch(make):
    ours, theirs = make(nn), make(torch.nn).double()
    assert repr(ours) == repr(theirs)
    assert tuple(ours.weight.shape) == tuple(theirs.weight.shape)
    _copy_params(ours, theirs)
    x = _rng(3).standard_normal((2, 4, 5, 6, 5))
    got = ours(tl.tensor(x)).detach().numpy()
    np.testing.assert_allclose(got, theirs(torch.tensor(x)).detach().numpy(), rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("name,args,shape", [
    ("LazyConv1d", (4, 3), (2, 3, 9)), ("LazyConv2d", (4, 3, 2, 1, 1, 1, False), (2, 6, 7, 8)),
    ("LazyConv3d", (4, 2), (3, 4, 5, 6)), ("LazyConvTranspose1d", (5, 3, 2), (2, 3, 6)),
    ("LazyConvTranspose2d", (4, 3, 2, 1, 1, 2), (2, 4, 5, 4)),
    ("LazyConvTranspose3d", (2, 2), (3, 3, 4, 3))])
def test_lazy_convs_infer_in_channels_like_torch(name, args, shape):
    ours = getattr(nn, name)(*args, dtype=tl.float64)
    theirs = getattr(torch.nn, name)(*args, dtype=torch.float64)
    assert repr(ours) == repr(theirs)
    assert ours.has_uninitialized_params()
    assert len(list(ours.parameters())) == len(list(theirs.parameters()))  # uninitialized
    x = _rng(4).standard_normal(shape)
    out = ours(tl.tensor(x))
    ref = theirs(torch.tensor(x))
    assert type(ours).__name__ == type(theirs).__name__ == name[4:]
    assert repr(ours) == repr(theirs) and ours.in_channels == theirs.in_channels
    assert [tuple(p.shape) for p in ours.parameters()] == \
        [tuple(p.shape) for p in theirs.parameters()]
    assert tuple(out.shape) == tuple(ref.shape)
    _copy_params(ours, theirs)
    np.testing.assert_allclose(ours(tl.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-10, atol=1e-12)
    with pytest.raises(RuntimeError, match="Expected"):
        getattr(nn, name)(*args)(tl.randn(*(2,) * (len(shape) + 2)))


def test_lazy_conv_trains_with_an_optimizer_built_first_and_loads_state():
    lazy = nn.LazyConv2d(4, 3)
    opt = tl.optim.SGD(lazy.parameters(), lr=0.1)  # before the first forward, as PyTorch allows
    lazy(tl.randn(2, 3, 6, 6)).sum().backward()
    before = lazy.weight.detach().numpy().copy()
    opt.step()
    assert type(lazy) is nn.Conv2d and (lazy.weight.detach().numpy() != before).any()
    fresh = nn.LazyConv2d(4, 3)
    fresh.load_state_dict(lazy.state_dict())
    x = tl.randn(1, 3, 6, 6)
    np.testing.assert_array_equal(fresh(x).detach().numpy(), lazy(x).detach().numpy())
    assert fresh.in_channels == 3 and type(fresh) is nn.Conv2d


def test_conv3d_gradients_to_second_order():
    r = _rng(5)
    x, w = r.standard_normal((1, 2, 3, 4, 3)), r.standard_normal((2, 2, 2, 2, 2))
    check_grads(lambda a, c: F.conv3d(a, c, stride=(1, 2, 1), padding=1), x, w)
    check_second_order(lambda a, c: F.conv3d(a, c, padding=(1, 0, 1)) ** 2, x, w)
    check_grads(lambda a, c: F.conv_transpose3d(a, c, stride=2, output_padding=1), x,
                r.standard_normal((2, 1, 2, 2, 2)))
    check_second_order(lambda a, c: F.conv_transpose3d(a, c, stride=2) ** 2, x,
                       r.standard_normal((2, 1, 2, 2, 2)))


# -- max and average pooling (ceil_mode, 3-d) --------------------------------------------------


MAX_CASES = [  # nd, shape, kernel, stride, padding, dilation, ceil_mode
    (1, (2, 3, 10), 3, 2, 1, 1, True), (1, (2, 3, 9), 2, None, 0, 1, True),
    (1, (3, 11), 4, 3, 2, 2, True), (2, (2, 2, 7, 6), 3, 2, 1, 1, True),
    (2, (2, 2, 7, 8), (2, 3), (2, 2), (1, 0), 1, True), (2, (2, 2, 9, 8), 2, None, 0, 1, True),
    (2, (1, 2, 8, 7), 3, (3, 2), 1, (1, 2), True), (2, (2, 6, 6), 2, 1, 1, 1, False),
    (3, (2, 2, 5, 6, 7), 2, None, 0, 1, False), (3, (2, 2, 5, 6, 7), 3, 2, 1, 1, True),
    (3, (2, 5, 5, 4), (2, 3, 2), (2, 2, 3), (1, 1, 0), 1, True),
    (3, (1, 2, 6, 7, 5), 2, 2, 0, (2, 1, 1), False), (3, (1, 2, 4, 4, 4), 2, None, 0, 1, True)]


@pytest.mark.parametrize("nd,shape,k,s,p,d,ceil", MAX_CASES)
def test_max_pool_matches_torch_with_indices(nd, shape, k, s, p, d, ceil):
    x = _rng(6).integers(-3, 4, shape).astype(np.float64)  # ties inside windows
    x.flat[3] = np.nan
    ours, theirs = getattr(F, f"max_pool{nd}d"), getattr(TF, f"max_pool{nd}d")
    _compare(lambda a: ours(a, k, s, p, d, ceil, True), lambda a: theirs(a, k, s, p, d, ceil, True),
             x)
    _compare(lambda a: getattr(F, f"max_pool{nd}d_with_indices")(a, k, s, p, d, ceil),
             lambda a: theirs(a, k, s, p, d, ceil, True), x, grad=False)
    module = getattr(nn, f"MaxPool{nd}d")(k, s, p, d, ceil_mode=ceil)
    assert repr(module) == repr(getattr(torch.nn, f"MaxPool{nd}d")(k, s, p, d, ceil_mode=ceil))
    np.testing.assert_array_equal(module(tl.tensor(x)).numpy(),
                                  theirs(torch.tensor(x), k, s, p, d, ceil).numpy())


def test_max_pool_all_minus_inf_window_indices_name_real_elements():
    x = np.full((1, 1, 5, 5), -np.inf)
    _compare(lambda a: F.max_pool2d(a, 3, 2, 1, 2, True, True),
             lambda a: TF.max_pool2d(a, 3, 2, 1, 2, True, True), x, grad=False)


AVG_CASES = [  # nd, shape, kernel, stride, padding, ceil_mode
    (1, (2, 3, 10), 3, 2, 1, True), (1, (3, 9), 2, None, 0, True), (1, (2, 2, 11), 4, 3, 2, True),
    (2, (2, 2, 7, 6), 3, 2, 1, True), (2, (2, 2, 7, 8), (2, 3), (2, 2), (1, 0), True),
    (2, (1, 2, 8, 7), 3, (3, 2), 1, True), (2, (2, 6, 5), 2, 1, 1, False),
    (3, (2, 2, 5, 6, 7), 2, None, 0, False), (3, (2, 2, 5, 6, 7), 3, 2, 1, True),
    (3, (2, 5, 5, 4), (2, 3, 2), (2, 2, 3), (1, 1, 0), True)]


@pytest.mark.parametrize("nd,shape,k,s,p,ceil", AVG_CASES)
@pytest.mark.parametrize("include_pad", [True, False])
def test_avg_pool_matches_torch(nd, shape, k, s, p, ceil, include_pad):
    x = _rng(7).standard_normal(shape)
    ours, theirs = getattr(F, f"avg_pool{nd}d"), getattr(TF, f"avg_pool{nd}d")
    _compare(lambda a: ours(a, k, s, p, ceil, include_pad),
             lambda a: theirs(a, k, s, p, ceil, include_pad), x)
    if nd > 1:
        _compare(lambda a: ours(a, k, s, p, ceil, include_pad, 5),
                 lambda a: theirs(a, k, s, p, ceil, include_pad, 5), x)
    module = getattr(nn, f"AvgPool{nd}d")(k, s, p, ceil, include_pad)
    reference = getattr(torch.nn, f"AvgPool{nd}d")(k, s, p, ceil, include_pad)
    assert repr(module) == repr(reference)
    np.testing.assert_allclose(module(tl.tensor(x)).numpy(), reference(torch.tensor(x)).numpy(),
                               rtol=1e-12)


def test_pool_ceil_mode_and_3d_gradients_to_second_order():
    x = _rng(8).standard_normal((1, 2, 5, 4, 5))  # distinct values: max is smooth
    for fn in (lambda a: F.max_pool3d(a, 2, 2, 1, ceil_mode=True) ** 2,
               lambda a: F.avg_pool3d(a, 3, 2, 1, True, False) ** 2,
               lambda a: F.max_pool2d(a[0], 3, 2, 1, ceil_mode=True) ** 2,
               lambda a: F.avg_pool1d(a[0, 0], 2, 2, 1, True) ** 2):
        check_grads(fn, x)
        check_second_order(fn, x)


# -- adaptive pooling --------------------------------------------------------------------------


ADAPTIVE_CASES = [  # nd, shape, output_size
    (1, (2, 3, 10), 4), (1, (3, 7), 3), (1, (2, 3, 8), 4), (1, (2, 2, 5), 7),
    (2, (2, 3, 7, 5), (3, 2)), (2, (2, 3, 8, 6), 4), (2, (3, 9, 5), (None, 3)),
    (2, (1, 2, 6, 6), 1), (2, (1, 2, 6, 4), (3, 2)),
    (3, (2, 2, 5, 7, 6), (2, 3, 4)), (3, (2, 5, 4, 3), 2), (3, (1, 2, 4, 6, 5), (None, 3, None)),
    (3, (1, 2, 4, 6, 6), (2, 3, 2))]


@pytest.mark.parametrize("nd,shape,size", ADAPTIVE_CASES)
def test_adaptive_pools_match_torch(nd, shape, size):
    r = _rng(10)
    x = r.standard_normal(shape)
    _compare(lambda a: getattr(F, f"adaptive_avg_pool{nd}d")(a, size),
             lambda a: getattr(TF, f"adaptive_avg_pool{nd}d")(a, size), x)
    ties = r.integers(-2, 3, shape).astype(np.float64)
    ties.flat[2] = np.nan
    for data in (x, ties):
        _compare(lambda a: getattr(F, f"adaptive_max_pool{nd}d")(a, size, True),
                 lambda a: getattr(TF, f"adaptive_max_pool{nd}d")(a, size, True), data)
        _compare(lambda a: getattr(F, f"adaptive_max_pool{nd}d_with_indices")(a, size),
                 lambda a: getattr(TF, f"adaptive_max_pool{nd}d")(a, size, True), data,
                 grad=False)
    for cls, args in ((f"AdaptiveAvgPool{nd}d", (size,)), (f"AdaptiveMaxPool{nd}d", (size,))):
        module, reference = getattr(nn, cls)(*args), getattr(torch.nn, cls)(*args)
        assert repr(module) == repr(reference)
        np.testing.assert_allclose(module(tl.tensor(x)).numpy(),
                                   reference(torch.tensor(x)).numpy(), rtol=1e-12)
    vals, idx = nn.AdaptiveMaxPool1d(3, return_indices=True)(tl.tensor(x.reshape(-1, shape[-1])))
    assert tuple(idx.shape) == tuple(vals.shape)


def test_adaptive_gradients_to_second_order():
    x = _rng(11).standard_normal((1, 2, 5, 7, 3))
    for fn in (lambda a: F.adaptive_max_pool3d(a, (2, 3, 2)) ** 2,
               lambda a: F.adaptive_avg_pool3d(a, (3, 4, 2)) ** 2,
               lambda a: F.adaptive_max_pool2d(a[0], (3, 2)) ** 2,
               lambda a: F.adaptive_max_pool1d(a[0, 0], 3) ** 2):
        check_grads(fn, x)
        check_second_order(fn, x)


# -- Lp pooling and max unpooling ------------------------------------------------------------


LP_CASES = [  # nd, shape, norm_type, kernel, stride, ceil_mode
    (1, (2, 3, 9), 2, 3, None, False), (1, (3, 10), 3, 3, 2, True),
    (1, (2, 2, 8), 1.5, 2, 1, False),
    (2, (2, 2, 7, 6), 2, 3, 2, True), (2, (2, 2, 6, 8), 3.0, (2, 3), None, False),
    (2, (2, 5, 7), 1, 2, (2, 1), True),
    (3, (2, 2, 5, 4, 6), 2, 2, None, False), (3, (1, 2, 5, 6, 5), 3, (2, 3, 2), 2, True)]


@pytest.mark.parametrize("nd,shape,norm,k,s,ceil", LP_CASES)
def test_lp_pool_matches_torch(nd, shape, norm, k, s, ceil):
    x = np.abs(_rng(12).standard_normal(shape)) + 0.1  # odd/fractional p: positive windows
    _compare(lambda a: getattr(F, f"lp_pool{nd}d")(a, norm, k, s, ceil),
             lambda a: getattr(TF, f"lp_pool{nd}d")(a, norm, k, s, ceil), x, rtol=1e-9)
    module, reference = (getattr(m, f"LPPool{nd}d")(norm, k, s, ceil) for m in (nn, torch.nn))
    assert repr(module) == repr(reference)
    np.testing.assert_allclose(module(tl.tensor(x)).numpy(), reference(torch.tensor(x)).numpy(),
                               rtol=1e-10)
    check_second_order(lambda a: getattr(F, f"lp_pool{nd}d")(a, norm, k, s, ceil),
                       x[(0,) * (len(shape) - nd - 1)][:1])


UNPOOL_CASES = [  # nd, shape, kernel, stride, padding, output_size
    (1, (2, 3, 10), 2, None, 0, None), (1, (3, 11), 3, 2, 1, (11,)),
    (2, (2, 2, 6, 8), 2, None, 0, None), (2, (2, 2, 7, 6), 3, 2, 1, (1, 2, 7, 6)),
    (2, (2, 6, 7), 2, None, 0, (7, 7)),
    (3, (2, 2, 4, 6, 6), 2, None, 0, None), (3, (1, 2, 5, 5, 6), 3, 2, 1, (5, 5, 6))]


@pytest.mark.parametrize("nd,shape,k,s,p,size", UNPOOL_CASES)
def test_max_unpool_matches_torch(nd, shape, k, s, p, size):
    x = _rng(13).standard_normal(shape)
    pooled, idx = getattr(TF, f"max_pool{nd}d")(torch.tensor(x), k, s, p, return_indices=True)
    y, index = pooled.numpy(), idx.numpy()
    _compare(lambda a, i: getattr(F, f"max_unpool{nd}d")(a, i, k, s, p, size),
             lambda a, i: getattr(TF, f"max_unpool{nd}d")(a, i, k, s, p, size), y, index)
    module, reference = (getattr(m, f"MaxUnpool{nd}d")(k, s, p) for m in (nn, torch.nn))
    assert repr(module) == repr(reference)
    np.testing.assert_array_equal(module(tl.tensor(y), tl.tensor(index), size).numpy(),
                                  reference(torch.tensor(y), torch.tensor(index), size).numpy())
    # the round trip: pooling with tinygrad_lite's indices, then unpooling; overlapping
    # windows may pick one element twice, where central differences see only the last write
    v, i = getattr(F, f"max_pool{nd}d")(tl.tensor(x), k, s, p, return_indices=True)
    flat = i.numpy().reshape(-1, int(np.prod(i.shape[-nd:])))
    if any(len(set(row)) < len(row) for row in flat):
        return
    check_grads(lambda a: getattr(F, f"max_unpool{nd}d")(a, i, k, s, p, size), v.numpy())
    check_second_order(lambda a: getattr(F, f"max_unpool{nd}d")(a, i, k, s, p, size) ** 2,
                       v.numpy())


# -- gumbel_softmax ---------------------------------------------------------------------------


def test_gumbel_softmax_reproducible_hard_straight_through():
    logits = _rng(14).standard_normal((5, 4, 3))
    tl.manual_seed(3)
    a = tl.tensor(logits, requires_grad=True)
    soft = F.gumbel_softmax(a, tau=0.5, dim=1)
    tl.manual_seed(3)
    again = F.gumbel_softmax(tl.tensor(logits), tau=0.5, dim=1)
    np.testing.assert_array_equal(soft.detach().numpy(), again.numpy())
    np.testing.assert_allclose(soft.detach().numpy().sum(1), 1.0, rtol=1e-12)
    # recover the noise: softmax((logits + g) / tau) fixes g up to a per-row constant
    noise = np.log(soft.detach().numpy()) * 0.5 - logits
    noise -= noise.mean(1, keepdims=True)
    tl.manual_seed(3)
    b = tl.tensor(logits, requires_grad=True)
    hard = F.gumbel_softmax(b, tau=0.5, hard=True, dim=1)
    h = hard.detach().numpy()
    assert set(np.unique(h)) == {0.0, 1.0} and np.all(h.sum(1) == 1)
    np.testing.assert_array_equal(h.argmax(1), soft.detach().numpy().argmax(1))
    # straight-through: the hard sample's gradient is the soft sample's
    g = _rng(15).standard_normal(h.shape)
    t = torch.tensor(logits, requires_grad=True)
    ref_soft = torch.softmax((t + torch.tensor(noise)) / 0.5, 1)
    ref_soft.backward(torch.tensor(g))
    hard.backward(tl.tensor(g))
    np.testing.assert_allclose(b.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(soft.detach().numpy(), ref_soft.detach().numpy(), rtol=1e-9)
    check_second_order(lambda x: (tl.manual_seed(1), F.gumbel_softmax(x, hard=True))[1],
                       logits[0])


def test_gumbel_max_frequencies_follow_softmax():
    tl.manual_seed(0)
    logits = np.log(np.array([0.6, 0.3, 0.1]))
    hard = F.gumbel_softmax(tl.tensor(np.tile(logits, (4000, 1))), hard=True).numpy()
    np.testing.assert_allclose(hard.mean(0), [0.6, 0.3, 0.1], atol=0.03)


# -- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize("call,exc,match", [
    (lambda: F.max_pool2d(tl.randn(1, 2, 3, 3), 4), RuntimeError, "Output size is too small"),
    (lambda: F.avg_pool3d(tl.randn(1, 2, 3, 3, 2), 3), RuntimeError, "Output size is too small"),
    (lambda: F.max_pool3d(tl.randn(2, 3, 3), 2), RuntimeError, "4D.*5D"),
    (lambda: F.max_pool2d(tl.randn(1, 1, 4, 4), 2, padding=2), RuntimeError, "half"),
    (lambda: F.max_pool2d(tl.randn(1, 1, 4, 4), 2, stride=0), RuntimeError, "stride"),
    (lambda: F.avg_pool2d(tl.randn(1, 1, 4, 4), 2, divisor_override=0), RuntimeError, "zero"),
    (lambda: F.adaptive_max_pool2d(tl.randn(3, 3), 2), RuntimeError, "3D or 4D"),
    (lambda: F.adaptive_avg_pool3d(tl.randn(2, 3, 3), 2), RuntimeError, "4D or 5D"),
    (lambda: F.adaptive_max_pool2d(tl.randn(1, 2, 3, 3), (2, 2, 2)), RuntimeError, "must be 2"),
    (lambda: F.adaptive_avg_pool1d(tl.randn(2, 3, 3), (2, 3)), RuntimeError, "must be 1"),
    (lambda: F.adaptive_max_pool1d(tl.randn(2, 3, 3), -1), RuntimeError, "greater than"),
    (lambda: F.conv3d(tl.randn(2, 3, 3), tl.randn(2, 3, 1, 1, 1)), RuntimeError, "4D"),
    (lambda: F.conv3d(tl.randn(1, 3, 2, 2, 2), tl.randn(2, 3, 3, 1, 1)), RuntimeError,
     "Kernel size can't be greater"),
    (lambda: F.conv3d(tl.randn(1, 2, 4, 4, 4), tl.randn(2, 3, 1, 1, 1)), RuntimeError,
     "channels"),
    (lambda: F.conv_transpose3d(tl.randn(1, 2, 4, 4, 4), tl.randn(3, 2, 1, 1, 1)),
     RuntimeError, "do not match"),
    (lambda: F.max_unpool2d(tl.randn(1, 2, 3, 3), tl.tensor(np.full((1, 2, 3, 3), 100)), 2),
     RuntimeError, "invalid max index: 100"),
    (lambda: F.max_unpool2d(tl.randn(1, 2, 3, 3), tl.zeros(1, 2, 3, 3, dtype=tl.int64), 2,
                            output_size=(9, 9)), ValueError, "between 4 and 8"),
    (lambda: F.max_unpool2d(tl.randn(1, 2, 3, 3), tl.zeros(1, 2, 3, 3, dtype=tl.int64), 2,
                            output_size=(1, 2, 6, 6, 6)), ValueError, "2 or 4 elements"),
    (lambda: F.max_unpool1d(tl.randn(1, 2, 3), tl.zeros(1, 2, 2, dtype=tl.int64), 2),
     RuntimeError, "same as that of the input"),
    (lambda: F.lp_pool2d(tl.randn(1, 2, 3, 3), 2, 4), RuntimeError, "Output size is too small"),
])
def test_errors_match_torch(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_torch_raises_the_same_types():
    """The error cases above are errors in PyTorch too (same exception type)."""
    z = torch.zeros
    for call, exc in [
            (lambda: TF.max_pool2d(torch.randn(1, 2, 3, 3), 4), RuntimeError),
            (lambda: TF.max_pool2d(torch.randn(1, 1, 4, 4), 2, stride=0), RuntimeError),
            (lambda: TF.adaptive_max_pool2d(torch.randn(1, 2, 3, 3), (2, 2, 2)), RuntimeError),
            (lambda: TF.max_unpool2d(torch.randn(1, 2, 3, 3), z(1, 2, 3, 3, dtype=torch.long), 2,
                                     output_size=(9, 9)), ValueError),
            (lambda: TF.max_unpool2d(torch.randn(1, 2, 3, 3),
                                     z(1, 2, 3, 3, dtype=torch.long) + 100, 2), RuntimeError)]:
        with pytest.raises(exc):
            call()


def test_adaptive_zero_output_size_is_empty_like_torch():
    x = np.ones((3, 4, 5))
    for name in ("adaptive_max_pool2d", "adaptive_avg_pool2d"):
        out = getattr(F, name)(tl.tensor(x), (0, 2))
        assert tuple(out.shape) == tuple(getattr(TF, name)(torch.tensor(x), (0, 2)).shape)
