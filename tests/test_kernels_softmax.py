"""The softmax kernels (``_kernels/source/softmax.py``): softmax and log_softmax over the last
dim and the fused cross-entropy's forward, on both backends.

Bounds against the NumPy path (float32 and float64, rows of 7 to 1000; measured on random data,
logits of standard deviation 4, in units of the dtype's epsilon):
- softmax forward: 8 ulps per element (measured 6: rows over 128 sum in blocks, NumPy's
  pairwise sum halves them; rows up to 128 sum in NumPy's order);
- log_softmax forward: 2 eps times the row's largest |value| (measured 0.65; an element near 0
  ends in a cancellation, where its own ulps say nothing);
- softmax backward ``(g - dot) y``: 8 eps times ``(|g| + max|g|) y`` per element (the
  cancellation's scale; measured 2.1); log_softmax backward ``g - exp(y) sum(g)``: 8 eps times
  ``|g| + exp(y) sum|g|`` (measured 1.1);
- cross-entropy: the loss to 4 eps relative (measured 1.2), its gradient to 32 eps of the row's
  largest |value| (measured 8: the log-sum-exp's last-bit difference, scaled by the logits).
"""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import (
    backend,
    force_threads,
    numba_only,
    relative_error,
    spy,
    ulp_distance,
)

import tinygrad_lite as tl
from tinygrad_lite import _kernels

torch = pytest.importorskip("torch")

__all__ = ["backend", "numba_only"]  # (fixtures, used by name)

FLOATS = [np.float32, np.float64]


def _softmax(m, x):
    return m.nn.functional.softmax(x, -1)


def _log_softmax(m, x):
    return m.nn.functional.log_softmax(x, -1)


OPS = {"softmax": _softmax, "log_softmax": _log_softmax}


def _run(fn, x, grad, lib=tl):
    t = lib.tensor(x, requires_grad=True)
    y = fn(lib, t)
    y.backward(lib.tensor(grad))
    return y.detach().numpy(), t.grad.numpy()


def _grad_scale(op, x, grad, y):
    """Each gradient element's scale: what its rounding is relative to (see the docstring)."""
    if op == "softmax":
        return (np.abs(grad) + np.abs(grad).max(-1, keepdims=True)) * y
    return np.abs(grad) + np.exp(y) * np.abs(grad).sum(-1, keepdims=True)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("length", [7, 64, 65, 300, 1000])
@pytest.mark.parametrize("op", list(OPS))
def test_agreement_with_the_numpy_path(numba_only, op, length, dtype):
    rng = np.random.default_rng(length)
    x = (rng.standard_normal((40, length)) * 4).astype(dtype)
    grad = rng.standard_normal(x.shape).astype(dtype)
    ours = _run(OPS[op], x, grad)
    with _kernels.use_backend("numpy"):
        reference = _run(OPS[op], x, grad)
    eps = np.finfo(dtype).eps
    if op == "softmax":
        assert ulp_distance(ours[0], reference[0]) <= 8
    else:
        assert relative_error(ours[0], reference[0], axis=-1) <= 2
    scale = _grad_scale(op, x, grad, reference[0])
    assert (np.abs(ours[1] - reference[1]) <= 8 * eps * scale).all()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("classes", [10, 65, 300])
def test_cross_entropy_agreement_with_the_numpy_path(numba_only, classes, dtype):
    rng = np.random.default_rng(classes)
    x = (rng.standard_normal((64, classes)) * 4).astype(dtype)
    target = rng.integers(0, classes, 64)

    def run():
        t = tl.tensor(x, requires_grad=True)
        loss = tl.nn.functional.cross_entropy(t, tl.tensor(target))
        loss.backward()
        return loss.detach().numpy(), t.grad.numpy()

    ours = run()
    with _kernels.use_backend("numpy"):
        reference = run()
    eps = np.finfo(dtype).eps
    assert abs(ours[0] - reference[0]) <= 4 * eps * abs(reference[0])
    assert relative_error(ours[1], reference[1], axis=-1) <= 32


def test_the_kernel_path_is_taken(numba_only, monkeypatch):
    calls = spy(monkeypatch, "softmax")
    x = np.random.default_rng(0).standard_normal((5, 6)).astype(np.float32)
    for fn in OPS.values():
        _run(fn, x, np.ones_like(x))
    t = tl.tensor(x, requires_grad=True)
    tl.nn.functional.cross_entropy(t, tl.tensor([0, 1, 2, 3, 4])).backward()
    assert calls == ["shift_rows", "softmax_normalize", "softmax_backward",
                     "shift_rows", "log_softmax_normalize", "log_softmax_backward",
                     "shift_rows", "cross_entropy_losses"]


def test_the_parallel_variants_give_the_serial_bits(numba_only, monkeypatch):
    x = np.random.default_rng(1).standard_normal((50, 70))
    grad = np.random.default_rng(2).standard_normal(x.shape)
    serial = [_run(fn, x, grad) for fn in OPS.values()]
    force_threads(monkeypatch)
    calls = spy(monkeypatch, "softmax")
    threaded = [_run(fn, x, grad) for fn in OPS.values()]
    assert calls and all(name.endswith("_parallel") for name in calls)
    for a, b in zip(serial, threaded, strict=True):
        assert ulp_distance(a[0], b[0]) == 0 and ulp_distance(a[1], b[1]) == 0


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", list(OPS))
def test_against_pytorch_with_nan_and_inf(backend, op, dtype):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((12, 33)) * 3).astype(dtype)
    x[0, 4] = np.nan  # the row becomes NaN
    x[1, 2] = np.inf  # inf - inf: NaN in the row, as PyTorch
    x[2, :] = -np.inf  # a row of -inf: NaN
    x[3, 5] = -np.inf  # one -inf: probability 0
    grad = rng.standard_normal(x.shape).astype(dtype)
    ours, theirs = _run(OPS[op], x, grad), _run(OPS[op], x, grad, torch)
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-14}
    np.testing.assert_allclose(ours[0], theirs[0], **tol)
    np.testing.assert_allclose(ours[1], theirs[1], **tol)


@pytest.mark.parametrize("dtype", FLOATS)
def test_cross_entropy_against_pytorch(backend, dtype):
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((20, 9)) * 3).astype(dtype)
    target = rng.integers(0, 9, 20)
    for reduction in ("mean", "sum"):
        results = []
        for lib in (tl, torch):
            t = lib.tensor(x, requires_grad=True)
            loss = lib.nn.functional.cross_entropy(t, lib.tensor(target), reduction=reduction)
            loss.backward()
            results.append((loss.detach().numpy(), t.grad.numpy()))
        tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == np.float32 else {"rtol": 1e-12}
        np.testing.assert_allclose(results[0][0], results[1][0], **tol)
        np.testing.assert_allclose(results[0][1], results[1][1], **tol)
    x[3, 2] = np.nan  # a NaN logit makes the loss NaN
    loss = tl.nn.functional.cross_entropy(tl.tensor(x), tl.tensor(target))
    assert np.isnan(loss.item())


@pytest.mark.parametrize("op", list(OPS))
def test_gradients_through_the_kernels(backend, op):
    x = tl.tensor(np.random.default_rng(7).standard_normal((3, 6)), requires_grad=True)
    fn = lambda t: OPS[op](tl, t)  # noqa: E731
    assert tl.autograd.gradcheck(fn, (x,))
    assert tl.autograd.gradgradcheck(fn, (x,))  # create_graph with the kernels on


def test_cross_entropy_gradients_through_the_kernels(backend):
    x = tl.tensor(np.random.default_rng(8).standard_normal((4, 5)), requires_grad=True)
    target = tl.tensor([1, 0, 4, 2])
    fn = lambda t: tl.nn.functional.cross_entropy(t, target)  # noqa: E731
    assert tl.autograd.gradcheck(fn, (x,))
    assert tl.autograd.gradgradcheck(fn, (x,))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", list(OPS))
def test_zero_dim_empty_other_dims_and_non_contiguous(backend, op, dtype):
    rng = np.random.default_rng(9)
    cases = [(np.asarray(dtype(0.3)), -1), (np.zeros((0, 4), dtype), -1),
             (np.zeros((3, 0), dtype), -1),
             (rng.standard_normal((5, 8)).astype(dtype), 0),  # not the last dim: NumPy
             (np.asfortranarray(rng.standard_normal((6, 9)).astype(dtype)), -1),
             (rng.standard_normal((4, 10)).astype(dtype)[:, ::2], -1)]
    name = "softmax" if op == "softmax" else "log_softmax"
    for x, dim in cases:
        grad = np.ones(x.shape, dtype)
        results = []
        for lib in (tl, torch):
            t = lib.tensor(np.array(x, order="C") if lib is torch else x, requires_grad=True)
            y = getattr(lib.nn.functional, name)(t, dim)
            y.backward(lib.tensor(grad))
            results.append((y.detach().numpy(), t.grad.numpy()))
        assert results[0][0].shape == x.shape and results[0][0].dtype == dtype
        np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5, atol=1e-6)


def _attention(lib, q, k, v, causal):
    return lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)


@pytest.mark.parametrize("causal", [False, True])
def test_fused_attention_softmax_through_the_kernels(backend, monkeypatch, causal):
    rng = np.random.default_rng(10)
    q, k, v = (rng.standard_normal((2, 3, 5, 4)) for _ in range(3))
    grad = rng.standard_normal((2, 3, 5, 4))
    calls = spy(monkeypatch, "softmax") if backend == "numba" else []
    results = []
    for lib in (tl, torch):
        ts = [lib.tensor(a, requires_grad=True) for a in (q, k, v)]
        out = _attention(lib, *ts, causal)
        out.backward(lib.tensor(grad))
        results.append([out.detach().numpy()] + [t.grad.numpy() for t in ts])
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    if backend == "numba":
        assert calls == ["shift_rows", "softmax_normalize", "softmax_backward"]
    ts = [tl.tensor(a[:1, :1], requires_grad=True) for a in (q, k, v)]
    fn = lambda *xs: _attention(tl, *xs, causal)  # noqa: E731
    assert tl.autograd.gradcheck(fn, ts)
    assert tl.autograd.gradgradcheck(fn, ts)
