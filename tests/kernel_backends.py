"""Running kernel tests on both backends: the NumPy reference and the compiled (numba) kernels,
with the size threshold lowered so that small inputs (gradcheck's) take the kernels too; the
units-in-the-last-place distance the tests bound the kernels' rounding by; and a spy on a
kernel family that shows the kernel path was taken."""

from __future__ import annotations

import numpy as np
import pytest

from tinygrad_lite import _kernels
from tinygrad_lite._kernels import threads
from tinygrad_lite.ops import kernel_choice


@pytest.fixture(params=["numpy", "numba"])
def backend(request, monkeypatch):
    """Each test once per backend (numba's case skipped where numba is not installed), any
    float32/float64 input size taking the kernels."""
    if request.param == "numba":
        pytest.importorskip("numba")
    monkeypatch.setattr(kernel_choice, "MIN_ELEMENTS", 1)
    monkeypatch.setattr(kernel_choice, "LARGE_MIN_ELEMENTS", 1)
    with _kernels.use_backend(request.param):
        yield request.param


@pytest.fixture
def numba_only(monkeypatch):
    """The numba backend (skipped without numba), any size taking the kernels."""
    pytest.importorskip("numba")
    monkeypatch.setattr(kernel_choice, "MIN_ELEMENTS", 1)
    monkeypatch.setattr(kernel_choice, "LARGE_MIN_ELEMENTS", 1)
    with _kernels.use_backend("numba"):
        yield


def force_threads(monkeypatch) -> None:
    """Make every kernel call take its parallel variant with two threads."""
    monkeypatch.setattr(kernel_choice, "THREADED", True)
    monkeypatch.setattr(threads, "PARALLEL_MIN_ELEMENTS", 0)
    monkeypatch.setitem(threads._state, "threads", 2)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> int:
    """The largest distance between ``a`` and ``b`` (same float dtype and shape) in units in
    the last place: the number of representable values between them. NaN must be NaN in both
    (else the distance is reported as huge), equal values (infinities too) count 0."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.size == 0:
        return 0
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if (nan_a != nan_b).any():
        return 2 ** 62
    ints = np.int32 if a.dtype == np.float32 else np.int64
    ia, ib = a.view(ints).astype(np.int64), b.view(ints).astype(np.int64)
    # signed magnitudes on one line: negative floats count down from -0
    top = np.int64(np.iinfo(ints).min)
    ia = np.where(ia < 0, top - ia, ia)
    ib = np.where(ib < 0, top - ib, ib)
    distance = np.where(nan_a | (a == b), 0, np.abs(ia - ib))
    return int(distance.max())


def relative_error(ours: np.ndarray, reference: np.ndarray, axis: int | None = None) -> float:
    """max |ours - reference| in units of the dtype's epsilon times the largest |reference|
    (along ``axis``: each row against its own largest value): the measure for results that
    end in a cancellation (a gradient ``g - mean(g)``), where an element's own ulps say
    nothing. NaN must match."""
    ours, reference = np.asarray(ours), np.asarray(reference)
    assert np.array_equal(np.isnan(ours), np.isnan(reference))
    if reference.size == 0:
        return 0.0
    finite = np.isfinite(reference)
    assert np.array_equal(ours[~finite], reference[~finite], equal_nan=True)
    ref = np.where(finite, reference, 0)
    scale = np.abs(ref).max(axis=axis, keepdims=axis is not None)
    scale = np.maximum(scale, np.finfo(reference.dtype).tiny)
    diff = np.abs(np.where(finite, ours, 0) - ref) / (scale * np.finfo(reference.dtype).eps)
    return float(diff.max())


def spy(monkeypatch, name: str) -> list[str]:
    """Record the kernels of family ``name`` that run (their names, in call order)."""
    module = _kernels.family(name)
    assert module is not None, f"the kernel family {name!r} did not load"
    calls: list[str] = []
    for attr, value in list(vars(module).items()):
        if attr.startswith("_") or not callable(value) or not hasattr(value, "py_func"):
            continue

        def recorded(*args, _attr=attr, _kernel=value):
            calls.append(_attr)
            return _kernel(*args)

        monkeypatch.setattr(module, attr, recorded)
    return calls
