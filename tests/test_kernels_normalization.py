"""The normalisation kernels (``_kernels/source/normalization.py``): layer norm, RMS norm and
batch norm (training and eval), forward and backward, on both backends.

Bounds against the NumPy path (float32 and float64, rows of 20 to 300, batches (8, 6, 20) to
(16, 64, 128); measured on random data, in units of the dtype's epsilon times the largest
|value| of the row (layer/RMS norm) or of the whole result (batch norm)): outputs 8 (measured
4.2), input gradients 8 (measured 2.7), weight and bias gradients 32 (measured 13: sums over
every row or position, in another order than the reference's; the kernels add in float64).
Batch norm in eval mode is the reference's bits (one multiply-add per element, as it).
"""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import backend, force_threads, numba_only, relative_error, spy

import tinygrad_lite as tl
from tinygrad_lite import _kernels

torch = pytest.importorskip("torch")

__all__ = ["backend", "numba_only"]  # (fixtures, used by name)

FLOATS = [np.float32, np.float64]


def _layer_norm(m, x, w, b):
    return m.nn.functional.layer_norm(x, x.shape[-1:], w, b)


def _layer_norm_two_dims(m, x):
    return m.nn.functional.layer_norm(x, x.shape[-2:])


def _rms_norm(m, x, w):
    return m.nn.functional.rms_norm(x, x.shape[-1:], w)


def _rms_norm_plain(m, x):
    return m.nn.functional.rms_norm(x, x.shape[-1:], eps=1e-6)


def _batch_norm(m, x, w, b):
    return m.nn.functional.batch_norm(x, None, None, w, b, training=True)


def _batch_norm_plain(m, x):
    return m.nn.functional.batch_norm(x, None, None, training=True)


def _batch_norm_eval(m, x, w, b):
    c = x.shape[1]
    mean = m.tensor(np.linspace(-1, 1, c).astype(x.detach().numpy().dtype))
    var = m.tensor(np.linspace(0.5, 2, c).astype(x.detach().numpy().dtype))
    return m.nn.functional.batch_norm(x, mean, var, w, b, training=False)


# name: (function, parameter shapes from the input shape (N, C, L), rows axis for the bounds)
OPS = {
    "layer_norm": (_layer_norm, lambda s: [s[-1:], s[-1:]], -1),
    "layer_norm_two_dims": (_layer_norm_two_dims, lambda s: [], None),
    "rms_norm": (_rms_norm, lambda s: [s[-1:]], -1),
    "rms_norm_plain": (_rms_norm_plain, lambda s: [], -1),
    "batch_norm": (_batch_norm, lambda s: [s[1:2], s[1:2]], None),
    "batch_norm_plain": (_batch_norm_plain, lambda s: [], None),
    "batch_norm_eval": (_batch_norm_eval, lambda s: [s[1:2], s[1:2]], None),
}


def _arrays(op, shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 2 + 3).astype(dtype)
    params = [rng.standard_normal(p).astype(dtype) for p in OPS[op][1](shape)]
    return [x, *params]


def _run(op, arrays, grad, lib=tl):
    tensors = [lib.tensor(a, requires_grad=True) for a in arrays]
    y = OPS[op][0](lib, *tensors)
    y.backward(lib.tensor(grad))
    return [y.detach().numpy()] + [t.grad.numpy() for t in tensors]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(8, 6, 20), (16, 64, 128), (10, 4, 300)])
@pytest.mark.parametrize("op", list(OPS))
def test_agreement_with_the_numpy_path(numba_only, op, shape, dtype):
    arrays = _arrays(op, shape, dtype)
    grad = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    ours = _run(op, arrays, grad)
    with _kernels.use_backend("numpy"):
        reference = _run(op, arrays, grad)
    axis = OPS[op][2]
    if op == "batch_norm_eval":
        for a, b in zip(ours, reference, strict=True):
            np.testing.assert_array_equal(a, b)
        return
    assert relative_error(ours[0], reference[0], axis=axis) <= 8
    assert relative_error(ours[1], reference[1], axis=axis) <= 8
    for a, b in zip(ours[2:], reference[2:], strict=True):
        assert relative_error(a, b) <= 32


@pytest.mark.parametrize("op", list(OPS))
def test_the_kernel_path_is_taken(numba_only, monkeypatch, op):
    calls = spy(monkeypatch, "normalization")
    arrays = _arrays(op, (4, 3, 5), np.float32)
    _run(op, arrays, np.ones((4, 3, 5), np.float32))
    kernels = {"layer": ["layer_norm_forward", "layer_norm_backward"],
               "rms": ["rms_norm_forward", "rms_norm_backward"],
               "batch": ["batch_norm_forward", "batch_norm_backward"]}[op.split("_")[0]]
    assert calls == (["channel_affine"] if op == "batch_norm_eval" else kernels)


@pytest.mark.parametrize("op", list(OPS))
def test_the_parallel_variants_agree_with_the_serial_ones(numba_only, monkeypatch, op):
    arrays = _arrays(op, (20, 6, 30), np.float64)
    grad = np.random.default_rng(2).standard_normal((20, 6, 30))
    serial = _run(op, arrays, grad)
    force_threads(monkeypatch)
    calls = spy(monkeypatch, "normalization")
    threaded = _run(op, arrays, grad)
    assert calls and all(name.endswith("_parallel") for name in calls)
    np.testing.assert_array_equal(serial[0], threaded[0])
    np.testing.assert_array_equal(serial[1], threaded[1])
    for a, b in zip(serial[2:], threaded[2:], strict=True):  # (partial sums per block)
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", list(OPS))
def test_against_pytorch_with_nan_and_inf(backend, op, dtype):
    arrays = _arrays(op, (6, 5, 12), dtype, seed=3)
    arrays[0][1, 2, 3] = np.nan  # its row (layer/RMS norm) or channel (batch norm) is NaN
    arrays[0][4, 1, 7] = np.inf
    grad = np.random.default_rng(4).standard_normal(arrays[0].shape).astype(dtype)
    with np.errstate(all="ignore"):
        ours, theirs = _run(op, arrays, grad), _run(op, arrays, grad, torch)
    tol = {"rtol": 1e-4, "atol": 1e-5} if dtype == np.float32 else {"rtol": 1e-10, "atol": 1e-12}
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, **tol)  # (NaN where PyTorch has NaN)


@pytest.mark.parametrize("op", list(OPS))
def test_gradients_through_the_kernels(backend, op):
    arrays = _arrays(op, (4, 3, 5), np.float64, seed=5)
    tensors = [tl.tensor(a, requires_grad=True) for a in arrays]
    fn = lambda *ts: OPS[op][0](tl, *ts)  # noqa: E731
    assert tl.autograd.gradcheck(fn, tensors)
    assert tl.autograd.gradgradcheck(fn, tensors)  # create_graph with the kernels on


def test_running_statistics_match_pytorch(backend):
    x = _arrays("batch_norm", (8, 4, 10), np.float32, seed=6)[0]
    stats = []
    for lib in (tl, torch):
        mean, var = lib.zeros(4), lib.ones(4)
        lib.nn.functional.batch_norm(lib.tensor(x), mean, var, training=True, momentum=0.2)
        stats.append((mean.numpy(), var.numpy()))
    np.testing.assert_allclose(stats[0][0], stats[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(stats[0][1], stats[1][1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", list(OPS))
def test_empty_2d_and_non_contiguous_inputs(backend, op, dtype):
    rng = np.random.default_rng(7)
    inputs = [np.asfortranarray(rng.standard_normal((5, 4, 6)).astype(dtype)),
              rng.standard_normal((5, 4, 12)).astype(dtype)[:, :, ::2],
              rng.standard_normal((7, 4)).astype(dtype)]  # (N, C): batch norm's L = 1
    if not op.startswith("batch"):
        inputs.append(np.zeros((0, 3, 6), dtype))  # (batch norm raises on one value/channel)
    for x in inputs:
        shape = x.shape
        params = [rng.standard_normal(p).astype(dtype) for p in OPS[op][1](shape)]
        grad = rng.standard_normal(shape).astype(dtype)
        ours = _run(op, [x, *params], grad)
        theirs = _run(op, [np.array(x, order="C"), *params], grad, torch)
        assert ours[0].shape == shape and ours[0].dtype == dtype
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
