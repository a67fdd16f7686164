"""tl.signal.windows: values (against NumPy's windows and the closed forms; against torch where
installed), periodic vs symmetric, dtypes, requires_grad, and PyTorch's argument errors."""

import inspect
import math

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.signal import windows

NAMES = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
         "general_hamming", "hamming", "hann", "kaiser", "nuttall"]
EXTRA = {"general_cosine": {"a": [0.5, 0.3, 0.2]}, "gaussian": {"std": 2.3},
         "kaiser": {"beta": 8.6}, "general_hamming": {"alpha": 0.6}, "exponential": {"tau": 3.0}}


def test_module_and_names():
    import tinygrad_lite.signal.windows as module

    assert tl.signal.windows is module and sorted(module.__all__) == NAMES
    assert "signal" in tl.__all__
    for name in NAMES:
        params = inspect.signature(getattr(windows, name)).parameters
        assert list(params)[0] == "M" and params["sym"].default is True
        assert params["layout"].default is tl.strided and params["requires_grad"].default is False
        assert all(p.kind is p.KEYWORD_ONLY for p in list(params.values())[1:])


@pytest.mark.parametrize("length", [2, 3, 8, 51])
def test_symmetric_windows_match_numpy(length):
    M = length  # noqa: N806 - the windows' name for it
    n = np.arange(M)
    expected = {
        "hann": np.hanning(M), "hamming": np.hamming(M), "blackman": np.blackman(M),
        "bartlett": np.bartlett(M), "kaiser": np.kaiser(M, 12.0),
        "cosine": np.sin(np.pi * (n + 0.5) / M),
        "gaussian": np.exp(-0.5 * ((n - (M - 1) / 2) / 1.0) ** 2),
        "exponential": np.exp(-np.abs(n - (M - 1) / 2) / 1.0),
        "general_hamming": 0.54 - 0.46 * np.cos(2 * np.pi * n / (M - 1)),
        "nuttall": sum((-1) ** i * a * np.cos(2 * np.pi * i * n / (M - 1))
                       for i, a in enumerate([0.3635819, 0.4891775, 0.1365995, 0.0106411])),
    }
    for name, want in expected.items():
        got = getattr(windows, name)(M, dtype=tl.float64)
        assert got.dtype is tl.float64
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12, err_msg=name)
        got32 = getattr(windows, name)(M)
        assert got32.dtype is tl.float32  # the default dtype
        np.testing.assert_allclose(got32.numpy(), want, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("name", ["hann", "hamming", "blackman", "bartlett", "kaiser", "nuttall",
                                  "general_cosine", "general_hamming"])
def test_periodic_is_the_longer_symmetric_window_cut(name):
    kw = EXTRA.get(name, {})
    periodic = getattr(windows, name)(10, sym=False, dtype=tl.float64, **kw).numpy()
    longer = getattr(windows, name)(11, dtype=tl.float64, **kw).numpy()
    np.testing.assert_allclose(periodic, longer[:-1], rtol=1e-12, atol=1e-12)


def test_small_lengths():
    for name in NAMES:
        kw = EXTRA.get(name, {"a": [1.0]} if name == "general_cosine" else {})
        assert tuple(getattr(windows, name)(0, **kw).shape) == (0,)
        assert getattr(windows, name)(1, **kw).tolist() == [1.0]


def test_requires_grad_records_the_computation():
    w = windows.hann(5, requires_grad=True)
    assert w.requires_grad and not w.is_leaf  # as in PyTorch: computed from a linspace
    w.sum().backward()
    k = windows.gaussian(4, requires_grad=True)
    assert k.requires_grad and k.grad_fn is not None
    assert windows.bartlett(1, requires_grad=True).requires_grad


def test_errors():
    cases = [
        (lambda: windows.hann(-1), ValueError,
         "general_cosine requires non-negative window length, got M=-1"),
        (lambda: windows.hann(3, dtype=tl.int64), ValueError,
         "general_cosine expects float32 or float64 dtypes, got: tinygrad_lite.int64"),
        (lambda: windows.blackman(3, dtype=tl.float16), ValueError,
         "blackman expects float32 or float64 dtypes, got: tinygrad_lite.float16"),
        (lambda: windows.hann(3, layout=tl.sparse_coo), ValueError,
         "general_cosine is implemented for strided tensors only, got: torch.sparse_coo"),
        (lambda: windows.gaussian(3, std=0), ValueError,
         "Standard deviation must be positive, got: 0 instead."),
        (lambda: windows.exponential(3, center=1.0), ValueError,
         "Center must be None for symmetric windows"),
        (lambda: windows.exponential(3, tau=0), ValueError, "Tau must be positive, got: 0"),
        (lambda: windows.kaiser(3, beta=-1), ValueError, "beta must be non-negative, got: -1"),
        (lambda: windows.general_cosine(3, a=[]), ValueError, "Coefficients cannot be empty"),
        (lambda: windows.general_cosine(3, a=5), TypeError, "Coefficients must be a list/tuple"),
    ]
    for fn, kind, text in cases:
        with pytest.raises(kind) as info:
            fn()
        assert str(info.value).startswith(text)


def test_exponential_center():
    w = windows.exponential(6, center=1.0, tau=2.0, sym=False, dtype=tl.float64)
    np.testing.assert_allclose(w.numpy(), np.exp(-np.abs(np.arange(6) - 1.0) / 2.0))


@pytest.mark.parametrize("name", NAMES)
def test_values_match_torch(name):
    torch = pytest.importorskip("torch")
    for M in (0, 1, 2, 3, 7, 10, 64):
        for sym in (True, False):
            for dtype, tol in (("float32", 4e-6), ("float64", 1e-12)):
                kw = dict(EXTRA.get(name, {}))
                if name == "exponential" and not sym:
                    kw["center"] = 2.5
                theirs = getattr(torch.signal.windows, name)(M, sym=sym,
                                                             dtype=getattr(torch, dtype), **kw)
                ours = getattr(windows, name)(M, sym=sym, dtype=getattr(tl, dtype), **kw)
                assert ours.dtype is getattr(tl, dtype) and tuple(ours.shape) == tuple(
                    theirs.shape)
                np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=0, atol=tol,
                                           err_msg=f"{name} M={M} sym={sym} {dtype}")
    theirs = inspect.signature(getattr(torch.signal.windows, name)).parameters
    ours = inspect.signature(getattr(windows, name)).parameters
    assert list(ours) == list(theirs)
    for key in ours:
        if key not in ("dtype", "layout", "device"):
            assert ours[key].default == theirs[key].default or (
                math.isnan(ours[key].default) and math.isnan(theirs[key].default))
