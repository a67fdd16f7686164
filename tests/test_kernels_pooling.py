"""2-d max and average pooling on both kernel backends (``ops/pooling.py`` with the compiled
``pooling`` family, or the NumPy windows of ``nn.functional``).

Values, PyTorch's indices and gradients against PyTorch in float64 over padding, strides,
dilation, ceil_mode, ``count_include_pad`` and ``divisor_override``, NaN and inf inputs;
float64 gradcheck and gradgradcheck (the backward under ``create_graph`` is a recorded
scatter); float32 against the NumPy path: max pooling's values bit for bit, averages and gradients
within 1 ulp relative (the same float32 sums, possibly added in another order).
"""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import backend

import tinygrad_lite as tl
from tinygrad_lite import _kernels
from tinygrad_lite.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

__all__ = ["backend"]  # (a fixture, used by name)


MAX_CASES = [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
    {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 0), "dilation": (2, 1)},
    {"kernel_size": 2, "stride": 1},
    {"kernel_size": 4, "stride": 3, "padding": 2, "dilation": 2, "ceil_mode": True},
]
AVG_CASES = [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
     "count_include_pad": False},
    {"kernel_size": (3, 2), "stride": (1, 2), "padding": (1, 1), "divisor_override": 5},
]


def _both(name: str, kwargs: dict, x: np.ndarray, upstream_seed: int = 1):
    """(values, indices or None, input gradient) from PyTorch and from here."""
    results = []
    for lib in (tl, torch):
        xt = lib.tensor(x, requires_grad=True)
        fn = getattr(lib.nn.functional, name)
        if name == "max_pool2d":
            out, index = fn(xt, return_indices=True, **kwargs)
        else:
            out, index = fn(xt, **kwargs), None
        upstream = np.random.default_rng(upstream_seed).standard_normal(tuple(out.shape))
        out.backward(lib.tensor(upstream))
        results.append((out.detach().numpy(), None if index is None else index.numpy(),
                        xt.grad.numpy()))
    return results


@pytest.mark.parametrize("kwargs", MAX_CASES, ids=str)
def test_max_pool2d_matches_pytorch(backend, kwargs):
    x = np.random.default_rng(0).standard_normal((2, 3, 11, 10))
    x[0, 0, :3, :3] = 0.5  # ties: the first maximum wins
    (ours, our_index, our_grad), (theirs, their_index, their_grad) = _both(
        "max_pool2d", kwargs, x)
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(our_index, their_index)
    np.testing.assert_allclose(our_grad, their_grad, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kwargs", AVG_CASES, ids=str)
def test_avg_pool2d_matches_pytorch(backend, kwargs):
    x = np.random.default_rng(2).standard_normal((2, 3, 11, 10))
    (ours, _, our_grad), (theirs, _, their_grad) = _both("avg_pool2d", kwargs, x)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(our_grad, their_grad, rtol=1e-12, atol=1e-14)


def test_unbatched_and_non_contiguous_input_match_pytorch(backend):
    x = np.random.default_rng(3).standard_normal((3, 9, 8))
    for name, kwargs in (("max_pool2d", MAX_CASES[1]), ("avg_pool2d", AVG_CASES[2])):
        (ours, our_index, our_grad), (theirs, their_index, their_grad) = _both(name, kwargs, x)
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
        np.testing.assert_allclose(our_grad, their_grad, rtol=1e-12, atol=1e-14)
        if our_index is not None:
            np.testing.assert_array_equal(our_index, their_index)
    wide = np.random.default_rng(4).standard_normal((2, 8, 3, 9))
    for lib in (tl, torch):  # a transposed (non-contiguous) input
        xt = lib.tensor(wide).permute(0, 2, 3, 1)
        out = lib.nn.functional.max_pool2d(xt, 3, 2, 1)
        avg = lib.nn.functional.avg_pool2d(xt, 3, 2, 1)
        if lib is tl:
            ours = (out.numpy(), avg.numpy())
    np.testing.assert_array_equal(ours[0], out.numpy())
    np.testing.assert_allclose(ours[1], avg.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name,kwargs", [("max_pool2d", MAX_CASES[2]),
                                         ("max_pool2d", MAX_CASES[0]),
                                         ("avg_pool2d", AVG_CASES[4])], ids=str)
def test_non_finite_inputs_match_pytorch(backend, name, kwargs):
    x = np.random.default_rng(5).standard_normal((1, 2, 8, 9))
    x[0, 0, 1, 1], x[0, 1, 4, 4], x[0, 1, 6, 0] = np.nan, np.inf, -np.inf
    x[0, 0, 6:, 6:] = -np.inf  # an all -inf window: its first real element is the index
    (ours, our_index, our_grad), (theirs, their_index, their_grad) = _both(name, kwargs, x)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, equal_nan=True)
    if our_index is not None:
        np.testing.assert_array_equal(our_index, their_index)
    np.testing.assert_allclose(our_grad, their_grad, rtol=1e-12, equal_nan=True)


def test_the_kernel_takes_pytorchs_nan_of_a_window_with_two():
    """PyTorch's CPU loop keeps the last NaN of a window; so does the kernel. (The NumPy
    windows path keeps the first one: its index differs from PyTorch's there.)"""
    if not _kernels.available():
        pytest.skip("numba is not installed")
    x = np.random.default_rng(5).standard_normal((1, 2, 8, 9))
    x[0, 0, 1, 1], x[0, 0, 1, 2] = np.nan, np.nan
    with _kernels.use_backend("numba"):
        (ours, our_index, our_grad), (theirs, their_index, their_grad) = _both(
            "max_pool2d", MAX_CASES[1], x)
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(our_index, their_index)
    np.testing.assert_allclose(our_grad, their_grad, rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("name,kwargs", [("max_pool2d", MAX_CASES[1]),
                                         ("max_pool2d", MAX_CASES[3]),
                                         ("avg_pool2d", AVG_CASES[4]),
                                         ("avg_pool2d", AVG_CASES[5])], ids=str)
def test_gradcheck_and_second_order(backend, name, kwargs):
    x = tl.tensor(np.random.default_rng(6).standard_normal((1, 2, 7, 6)), requires_grad=True)
    fn = getattr(tl.nn.functional, name)

    def f(a):
        return fn(a, **kwargs).square()

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


@pytest.mark.parametrize("name,kwargs", [("max_pool2d", MAX_CASES[1]),
                                         ("avg_pool2d", AVG_CASES[1]),
                                         ("avg_pool2d", AVG_CASES[4])], ids=str)
def test_float32_kernels_agree_with_the_numpy_path(name, kwargs):
    """Pooled values: max bit for bit (it picks elements), averages within 1 ulp relative (the
    same float32 sums, added in another order). Gradients within 1 ulp relative: where windows
    overlap an element's gradient is a float32 sum in another order."""
    if not _kernels.available():
        pytest.skip("numba is not installed")
    x = np.random.default_rng(7).standard_normal((4, 8, 15, 14)).astype(np.float32)
    upstream = None
    results = {}
    for name_ in ("numpy", "numba"):
        with _kernels.use_backend(name_):
            xt = tl.tensor(x, requires_grad=True)
            out = getattr(tl.nn.functional, name)(xt, **kwargs)
            if upstream is None:
                upstream = np.random.default_rng(8).standard_normal(
                    tuple(out.shape)).astype(np.float32)
            out.backward(tl.tensor(upstream))
            results[name_] = (out.detach().numpy(), xt.grad.numpy())
    for a, b in zip(results["numpy"], results["numba"], strict=True):
        assert a.dtype == np.float32 and b.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=np.finfo(np.float32).eps, atol=1e-7)
    if name == "max_pool2d":
        np.testing.assert_array_equal(results["numpy"][0], results["numba"][0])
