"""axis=/keepdims= and out= on the tl.* API, div(rounding_mode=), nansum/nanmean/histogram,
reflected bitwise operators, 0-d scans, the pow fast paths and erfc in the far tail; compared
with PyTorch where it is installed."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.ops.special import erfc_fallback

X = np.arange(12.0, dtype=np.float32).reshape(3, 4) - 5.0

REDUCTIONS = ["sum", "mean", "amax", "amin", "prod", "var", "std", "logsumexp", "nansum",
              "nanmean", "argmax", "argmin", "any", "all", "max", "min", "median", "nanmedian"]


def _value(r):
    r = r[0] if isinstance(r, tuple) else r
    return np.asarray(r._data if hasattr(r, "_data") else r.numpy())


@pytest.mark.parametrize("name", REDUCTIONS)
def test_axis_keepdims_aliases(name):
    x = tl.tensor(X > 0) if name in ("any", "all") else tl.tensor(X)
    for kwargs, same in [({"axis": 1}, {"dim": 1}),
                         ({"axis": 0, "keepdims": True}, {"dim": 0, "keepdim": True}),
                         ({"dim": 1, "keepdims": True}, {"dim": 1, "keepdim": True})]:
        got, want = getattr(tl, name)(x, **kwargs), getattr(tl, name)(x, **same)
        np.testing.assert_array_equal(_value(got), _value(want))
        np.testing.assert_array_equal(_value(getattr(x, name)(**kwargs)), _value(want))
    with pytest.raises(TypeError, match="alias"):
        getattr(tl, name)(x, dim=0, axis=0)


def test_axis_matches_torch():
    torch = pytest.importorskip("torch")
    t, x = torch.tensor(X), tl.tensor(X)
    for name in ["sum", "mean", "amax", "var", "std", "logsumexp", "prod", "nansum"]:
        want = getattr(t, name)(axis=1, keepdims=True).numpy()
        np.testing.assert_allclose(_value(getattr(x, name)(axis=1, keepdims=True)), want,
                                   rtol=1e-5)


def test_out_writes_in_place_and_returns_out():
    a, b = tl.tensor(X), tl.tensor(X + 1)
    out = tl.empty(3, 4)
    data = out._data
    assert tl.add(a, b, out=out) is out
    assert out._data is data  # same storage when the shape fits
    np.testing.assert_array_equal(out.numpy(), X + X + 1)
    for fn, want in [(lambda o: tl.mul(a, 2, out=o), X * 2),
                     (lambda o: tl.matmul(a, b.T, out=o), X @ (X + 1).T),
                     (lambda o: tl.cat([a, b], out=o), np.concatenate([X, X + 1])),
                     (lambda o: tl.stack([a, b], 1, out=o), np.stack([X, X + 1], 1)),
                     (lambda o: tl.sum(a, 1, out=o), X.sum(1)),
                     (lambda o: tl.mean(a, axis=0, out=o), X.mean(0)),
                     (lambda o: tl.clamp(a, -1, 1, out=o), np.clip(X, -1, 1)),
                     (lambda o: tl.exp(a, out=o), np.exp(X)),
                     (lambda o: tl.sqrt(a.abs(), out=o), np.sqrt(np.abs(X))),
                     (lambda o: tl.where(a > 0, a, b, out=o), np.where(X > 0, X, X + 1)),
                     (lambda o: tl.arange(5, out=o), np.arange(5.0)),
                     (lambda o: tl.ones(2, 2, out=o), np.ones((2, 2)))]:
        o = tl.empty(0)
        assert fn(o) is o
        np.testing.assert_allclose(o.numpy(), want, rtol=1e-6)


def test_out_dtype_resize_grad_and_tuples():
    a = tl.tensor(X)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Long"):
        tl.add(a, 1, out=tl.empty(3, 4, dtype=tl.int64))
    wide = tl.empty(3, 4, dtype=tl.float64)
    tl.add(a, 1, out=wide)  # float32 -> float64 is allowed
    assert wide.dtype == tl.float64
    ints = tl.zeros(3, dtype=tl.int64)
    tl.arange(3, out=ints)  # creation functions take out's dtype
    np.testing.assert_array_equal(ints.numpy(), [0, 1, 2])
    with pytest.warns(UserWarning, match="was resized"):
        tl.add(a, 1, out=tl.empty(2))
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        tl.mul(tl.ones(2, requires_grad=True), 2, out=tl.empty(2))
    with tl.no_grad():
        tl.mul(tl.ones(2, requires_grad=True), 2, out=tl.empty(2))
    values, indices = tl.empty(0), tl.empty(0, dtype=tl.int64)
    result = tl.max(a, 1, out=(values, indices))
    assert result.values is values and result.indices is indices
    np.testing.assert_array_equal(indices.numpy(), X.argmax(1))


def test_out_matches_torch_errors():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.add(torch.ones(2), 1, out=torch.empty(2, dtype=torch.long))
    with pytest.raises(RuntimeError):
        tl.add(tl.ones(2), 1, out=tl.empty(2, dtype=tl.long))


def test_div_rounding_mode_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.array([-7.0, 7.0, 5.5, -5.5, 0.0])
    b = np.array([2.0, -2.0, 2.0, 3.0, 1.0])
    ai, bi = np.array([-7, 7, 9, -9]), np.array([2, -2, 4, 4])
    for mode in ["trunc", "floor"]:
        np.testing.assert_array_equal(
            tl.div(tl.tensor(a), tl.tensor(b), rounding_mode=mode).numpy(),
            torch.div(torch.tensor(a), torch.tensor(b), rounding_mode=mode).numpy())
        got = tl.tensor(ai).div(tl.tensor(bi), rounding_mode=mode)
        want = torch.tensor(ai).div(torch.tensor(bi), rounding_mode=mode)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    with pytest.raises(RuntimeError, match="rounding_mode"):
        tl.div(tl.ones(2), 2, rounding_mode="round")
    x = tl.tensor([3.5, -2.5], requires_grad=True)
    tl.div(x, 2, rounding_mode="trunc").sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])  # PyTorch: zero gradient


def test_nan_reductions_and_histogram_match_torch():
    torch = pytest.importorskip("torch")
    v = X.copy()
    v[0, 1] = v[2, 3] = np.nan
    for dim in [None, 0, 1, (0, 1)]:
        for name in ["nansum", "nanmean"]:
            kwargs = {} if dim is None else {"dim": dim}
            np.testing.assert_allclose(getattr(tl, name)(tl.tensor(v), **kwargs).numpy(),
                                       getattr(torch, name)(torch.tensor(v), **kwargs).numpy(),
                                       rtol=1e-6)
    x = tl.tensor(v, requires_grad=True)
    tl.nanmean(x).backward()
    tx = torch.tensor(v, requires_grad=True)
    torch.nanmean(tx).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError):
        tl.nanmean(tl.tensor([1, 2]))
    data = np.random.default_rng(0).standard_normal(50).astype(np.float32)
    for kwargs in [{"bins": 7}, {"bins": 4, "range": (-1.0, 1.0)}, {"bins": 5, "density": True},
                   {"bins": 3, "weight": np.abs(data)}]:
        tk = {k: torch.tensor(w) if k == "weight" else w for k, w in kwargs.items()}
        lk = {k: tl.tensor(w) if k == "weight" else w for k, w in kwargs.items()}
        got, want = tl.histogram(tl.tensor(data), **lk), torch.histogram(torch.tensor(data), **tk)
        np.testing.assert_allclose(got.hist.numpy(), want.hist.numpy(), rtol=1e-5)
        np.testing.assert_allclose(got.bin_edges.numpy(), want.bin_edges.numpy(), rtol=1e-5)
    edges = torch.tensor([-1.0, 0.0, 2.0])
    np.testing.assert_allclose(tl.histogram(tl.tensor(data), tl.tensor(edges.numpy())).hist,
                               torch.histogram(torch.tensor(data), edges).hist.numpy())


def test_bitwise_operators_match_torch():
    torch = pytest.importorskip("torch")
    cases = [lambda m, t: 3 | t, lambda m, t: 1 << t, lambda m, t: 64 >> t, lambda m, t: 5 & t,
             lambda m, t: 6 ^ t, lambda m, t: t << 1, lambda m, t: True & (t > 1)]
    for case in cases:
        for dtype in ["int32", "int64", "uint8"]:
            got = case(tl, tl.tensor([1, 2, 3], dtype=getattr(tl, dtype)))
            want = case(torch, torch.tensor([1, 2, 3], dtype=getattr(torch, dtype)))
            np.testing.assert_array_equal(got.numpy(), want.numpy())
            assert got.numpy().dtype == want.numpy().dtype
    for bad in [lambda m: m.ones(2) & 1, lambda m: 1 | m.ones(2),
                lambda m: m.ones(2, dtype=m.long) << 1.5]:
        with pytest.raises(NotImplementedError):
            bad(torch)
        with pytest.raises(NotImplementedError):  # a RuntimeError, as in PyTorch
            bad(tl)


def test_zero_dim_scans_and_linspace_bool():
    x = tl.tensor(3.0, requires_grad=True)
    assert x.cumsum(0).item() == 3.0 and x.cumprod(-1).item() == 3.0
    x.cumprod(0).backward()
    assert x.grad.item() == 1.0
    with pytest.raises(IndexError):
        x.cumsum(1)
    with pytest.raises(RuntimeError, match="linspace"):
        tl.linspace(0, 1, 5, dtype=tl.bool)


def test_pow_fast_paths_match_torch_at_special_values():
    torch = pytest.importorskip("torch")
    v = np.array([-np.inf, -2.0, -0.0, 0.0, 0.25, 3.0, np.inf, np.nan], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for e in [2, 3, 0.5, -1, -0.5, 2.0]:
            got = (tl.tensor(v) ** e).numpy()
            want = (torch.tensor(v) ** e).numpy()
            np.testing.assert_array_equal(got, want)
            assert got.dtype == np.float32
            real = ~np.isnan(want)  # the sign of -0.0 too; a NaN's sign bit means nothing
            np.testing.assert_array_equal(np.signbit(got[real]), np.signbit(want[real]))
    x = tl.tensor([0.5, 2.0], dtype=tl.float64, requires_grad=True)
    for e in [2, 3, 0.5, -1, -0.5]:
        assert tl.autograd.gradcheck(lambda t, e=e: t ** e, (x,))
        assert tl.autograd.gradgradcheck(lambda t, e=e: t ** e, (x,))
    b = tl.tensor(2.0, dtype=tl.float64, requires_grad=True)  # a tensor exponent keeps its graph
    assert tl.autograd.gradgradcheck(lambda t, u: t ** u, (x, b))


def test_erfc_fallback_far_tail():
    x = np.array([-3.0, -0.5, 0.0, 0.3, 1.0, 2.0, 5.0, 10.0, 26.0, np.inf, -np.inf])
    want = np.array([1.9999779095030015, 1.5204998778130465, 1.0, 0.6713732405408726,
                     0.15729920705028516, 0.004677734981047266, 1.5374597944280347e-12,
                     2.0884875837625446e-45, 5.663192408856145e-296, 0.0, 2.0])
    np.testing.assert_allclose(erfc_fallback(x), want, rtol=1e-13)
    assert np.isnan(erfc_fallback(np.array([np.nan]))).all()
    tail = tl.erfc(tl.tensor(10.0, dtype=tl.float64)).item()
    assert tail == pytest.approx(2.0884875837625446e-45, rel=1e-13)
