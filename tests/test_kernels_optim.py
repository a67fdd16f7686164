"""The optimizers' fused update kernels (the ``optim`` kernel family) against the NumPy updates
and PyTorch.

SGD (momentum, dampening, Nesterov), Adam, AdamW (amsgrad) and RMSprop (centered, momentum),
with weight decay and maximize, run one compiled pass per parameter when numba is there. The
kernels do the NumPy updates' operations in the same order and dtype, so a run of steps gives
the NumPy backend's bits exactly (bound: 0 ulps) in float32 and float64; both backends follow
PyTorch's updates, non-finite gradients included.
"""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import backend

import tinygrad_lite as tl
from tinygrad_lite import _kernels
from tinygrad_lite.ops import kernel_choice

torch = pytest.importorskip("torch")

__all__ = ["backend"]  # (a fixture, used by name)


@pytest.fixture(autouse=True)
def any_size_takes_the_kernels(monkeypatch):
    """The parameters here are small; below ``MIN_ELEMENTS`` the NumPy update would run."""
    monkeypatch.setattr(kernel_choice, "MIN_ELEMENTS", 1)

CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "dampening": 0.3, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "maximize": True}),
    ("SGD", {"lr": 1.0, "momentum": 0.5, "weight_decay": 1.0}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("Adam", {"lr": 0.02, "betas": (0.8, 0.9), "eps": 1e-6, "maximize": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.3, "amsgrad": True, "maximize": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "centered": True, "weight_decay": 0.05}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "alpha": 0.9, "maximize": True}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5, "centered": True}),
]
SHAPES = [(7, 5), (13,), (), (3, 4, 2)]


def _gradients(dtype, steps: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(steps)]


def _run(lib, name: str, kwargs: dict, dtype, grads: list) -> list[np.ndarray]:
    """The parameters after one step per entry of ``grads`` (gradients set directly)."""
    rng = np.random.default_rng(1)
    params = [lib.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True)
              for s in SHAPES]
    opt = getattr(lib.optim, name)(params, **kwargs)
    for step in grads:
        for p, g in zip(params, step, strict=True):
            p.grad = lib.tensor(g)
        opt.step()
    return [p.detach().numpy() for p in params]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,kwargs", CASES, ids=lambda c: str(c))
def test_kernels_give_the_numpy_updates_bits(name, kwargs, dtype):
    if not _kernels.available():
        pytest.skip("numba is not installed")
    grads = _gradients(dtype, 6)
    results = {}
    for which in ("numpy", "numba"):
        with _kernels.use_backend(which):
            results[which] = _run(tl, name, kwargs, dtype, grads)
    for a, b in zip(results["numpy"], results["numba"], strict=True):
        assert a.dtype == dtype
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name,kwargs", CASES, ids=lambda c: str(c))
def test_updates_match_pytorch(backend, name, kwargs):
    grads = _gradients(np.float64, 6, seed=2)
    ours = _run(tl, name, kwargs, np.float64, grads)
    theirs = _run(torch, name, kwargs, np.float64, grads)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    ours32 = _run(tl, name, kwargs, np.float32, _gradients(np.float32, 6, seed=2))
    theirs32 = _run(torch, name, kwargs, np.float32, _gradients(np.float32, 6, seed=2))
    for a, b in zip(ours32, theirs32, strict=True):
        np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("name,kwargs", [CASES[1], CASES[3], CASES[6], CASES[9], CASES[13]],
                         ids=lambda c: str(c))
def test_non_finite_gradients_match_pytorch(backend, name, kwargs):
    grads = _gradients(np.float64, 3, seed=3)
    grads[1][0][0, 0], grads[1][0][2, 3], grads[2][1][4] = np.nan, np.inf, -np.inf
    ours = _run(tl, name, kwargs, np.float64, grads)
    theirs = _run(torch, name, kwargs, np.float64, grads)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, equal_nan=True)


def test_state_and_a_changed_learning_rate_carry_across_backends(backend):
    """State written by one backend's steps is read by the other's (the same arrays), and a
    learning rate changed between steps (a scheduler) is used."""
    grads = _gradients(np.float64, 4, seed=4)
    rng = np.random.default_rng(1)
    data = [rng.standard_normal(s) for s in SHAPES]
    results = []
    for lib in (tl, torch):
        params = [lib.tensor(d, requires_grad=True) for d in data]
        opt = lib.optim.Adam(params, lr=0.1, amsgrad=True)
        for i, step in enumerate(grads):
            for p, g in zip(params, step, strict=True):
                p.grad = lib.tensor(g)
            if lib is tl:
                with _kernels.use_backend("numpy" if i % 2 else backend):
                    opt.step()
            else:
                opt.step()
            opt.param_groups[0]["lr"] *= 0.5
        results.append([p.detach().numpy() for p in params])
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_float16_parameters_take_the_numpy_update():
    """The kernels cover float32 and float64; a float16 parameter keeps the NumPy update."""
    grads = _gradients(np.float16, 3, seed=5)
    results = {}
    for name in ("numpy", "numba"):
        with _kernels.use_backend(name):
            results[name] = _run(tl, "Adam", {"lr": 0.01}, np.float16, grads)
    for a, b in zip(results["numpy"], results["numba"], strict=True):
        assert a.dtype == np.float16
        np.testing.assert_array_equal(a, b)


def test_small_parameters_keep_the_numpy_update(monkeypatch):
    """A kernel call's fixed cost is more than a small parameter's update: below
    ``kernel_choice.MIN_ELEMENTS`` elements the NumPy update runs."""
    from tinygrad_lite.optim import optimizer
    monkeypatch.setattr(kernel_choice, "MIN_ELEMENTS", 2048)
    small, large = tl.zeros(100, requires_grad=True), tl.zeros(4096, requires_grad=True)
    with _kernels.use_backend("numba"):
        assert optimizer.update_kernels(small, small._data, (0.1,)) is None
        if _kernels.available():
            assert optimizer.update_kernels(large, large._data, (0.1,)) is not None
