"""The activation kernels (``_kernels/source/activation.py``): exact and tanh GELU, leaky_relu
and ReLU's gradient, on both backends.

Bounds: the kernels repeat the reference's float operations in its order (exp and tanh stay
NumPy's), so they agree with the NumPy path bit for bit (measured: 0 ulps, forward and backward,
both dtypes, over random data and special values); the tests hold them to that. Gradients are
checked in float64 through the kernels (the threshold is lowered so gradcheck's small inputs
take them), second order through the recorded rules with the kernels on, and everything against
PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import backend, force_threads, numba_only, spy, ulp_distance

import tinygrad_lite as tl
from tinygrad_lite import _kernels

torch = pytest.importorskip("torch")

__all__ = ["backend", "numba_only"]  # (fixtures, used by name)

FLOATS = [np.float32, np.float64]

OPS = {
    "gelu": (lambda m, x: m.nn.functional.gelu(x)),
    "gelu_tanh": (lambda m, x: m.nn.functional.gelu(x, approximate="tanh")),
    "leaky_relu": (lambda m, x: m.nn.functional.leaky_relu(x, 0.01)),
    "leaky_relu_steep": (lambda m, x: m.nn.functional.leaky_relu(x, 3.0)),
    "leaky_relu_negative": (lambda m, x: m.nn.functional.leaky_relu(x, -0.5)),
    "relu": (lambda m, x: m.nn.functional.relu(x)),
}


def _data(shape, dtype, seed=0, specials=True):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    if specials and x.size >= 8:
        flat = x.reshape(-1)
        flat[:8] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 5.0, -5.0, 1e-30]
    return x


def _run(op, x, grad):
    t = tl.tensor(x, requires_grad=True)
    y = OPS[op](tl, t)
    y.backward(tl.tensor(grad))
    return y.detach().numpy(), t.grad.numpy()


def _torch(op, x, grad):
    """PyTorch's results in float64, rounded to ``x``'s dtype (its float32 vectorised GELU
    gives NaN at +inf, where its scalar loop and float64 give inf)."""
    t = torch.tensor(x.astype(np.float64), requires_grad=True)
    y = OPS[op](torch, t)
    y.backward(torch.tensor(grad.astype(np.float64)))
    return y.detach().numpy().astype(x.dtype), t.grad.numpy().astype(x.dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", list(OPS))
def test_the_kernels_give_the_references_bits(numba_only, op, dtype):
    x = _data((48, 70), dtype)
    grad = np.random.default_rng(1).standard_normal(x.shape).astype(dtype)
    grad.reshape(-1)[8:11] = [np.inf, np.nan, 0.0]
    with np.errstate(all="ignore"):
        ours = _run(op, x, grad)
        with _kernels.use_backend("numpy"):
            reference = _run(op, x, grad)
    assert ulp_distance(ours[0], reference[0]) == 0
    assert ulp_distance(ours[1], reference[1]) == 0


@pytest.mark.parametrize("op", list(OPS))
def test_the_kernel_path_is_taken(numba_only, monkeypatch, op):
    calls = spy(monkeypatch, "activation")
    _run(op, _data((4, 5), np.float32), np.ones((4, 5), np.float32))
    kernels = {"gelu": "gelu_erf", "gelu_tanh": "gelu_tanh", "relu": "relu_backward"}
    assert any(name.startswith(kernels.get(op, "leaky_relu")) for name in calls), calls


def test_float64_exact_gelu_forward_keeps_the_reference_erf(numba_only, monkeypatch):
    calls = spy(monkeypatch, "activation")
    _run("gelu", _data((4, 5), np.float64), np.ones((4, 5)))
    assert calls == ["gelu_erf_backward_exponent", "gelu_erf_backward_finish"]


@pytest.mark.parametrize("op", list(OPS))
def test_the_parallel_variants_give_the_serial_bits(numba_only, monkeypatch, op):
    x = _data((64, 33), np.float32)
    grad = np.random.default_rng(2).standard_normal(x.shape).astype(np.float32)
    with np.errstate(all="ignore"):
        serial = _run(op, x, grad)
        force_threads(monkeypatch)
        calls = spy(monkeypatch, "activation")
        threaded = _run(op, x, grad)
    assert calls and all(name.endswith("_parallel") for name in calls)
    assert ulp_distance(serial[0], threaded[0]) == 0
    assert ulp_distance(serial[1], threaded[1]) == 0


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", list(OPS))
def test_against_pytorch_with_nan_and_inf(backend, op, dtype):
    x = _data((16, 40), dtype)
    grad = np.random.default_rng(3).standard_normal(x.shape).astype(dtype)
    with np.errstate(all="ignore"):
        ours, theirs = _run(op, x, grad), _torch(op, x, grad)
    tol = {"rtol": 2e-6, "atol": 1e-6} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-14}
    np.testing.assert_allclose(ours[0], theirs[0], **tol)  # (NaN where PyTorch has NaN)
    np.testing.assert_allclose(ours[1], theirs[1], **tol)


@pytest.mark.parametrize("op", list(OPS))
def test_gradients_through_the_kernels(backend, op):
    x = tl.tensor(_data((3, 7), np.float64, specials=False) + 0.05, requires_grad=True)
    fn = lambda t: OPS[op](tl, t)  # noqa: E731
    assert tl.autograd.gradcheck(fn, (x,))
    assert tl.autograd.gradgradcheck(fn, (x,))  # create_graph with the kernels on


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", list(OPS))
def test_zero_dim_empty_and_non_contiguous_inputs(backend, op, dtype):
    rng = np.random.default_rng(4)
    cases = [np.asarray(dtype(1.5)), np.asarray(dtype(-0.7)), np.zeros((0, 3), dtype),
             np.asfortranarray(rng.standard_normal((6, 9)).astype(dtype)),
             rng.standard_normal((8, 10)).astype(dtype)[:, ::2]]
    for x in cases:
        grad = np.ones(x.shape, dtype)
        ours, theirs = _run(op, x, grad), _torch(op, np.array(x, order="C"), grad)
        assert ours[0].shape == x.shape and ours[0].dtype == dtype
        np.testing.assert_allclose(ours[0], theirs[0], rtol=2e-6, atol=1e-6)
        np.testing.assert_allclose(ours[1], theirs[1], rtol=2e-6, atol=1e-6)
