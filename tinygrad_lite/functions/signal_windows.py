"""PyTorch's window functions (``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window``, ``kaiser_window``): 1-D tensors for spectral analysis and audio code.

``periodic=True`` (PyTorch's default) gives the first ``N`` points of the symmetric window of
length ``N + 1``, the form an FFT over a period expects.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import is_float_dtype
from .creation import _finish, _np_dtype
from .registry import public

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]


def _window(name: str, window_length: int, periodic: bool, dtype: Any, requires_grad: bool,
            device: Any, shape_of: Any) -> Any:
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    dt = _np_dtype(dtype)
    if not is_float_dtype(dt):
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dt}")
    if window_length <= 1:
        return _finish(np.ones(window_length, dt), requires_grad, device)
    length = window_length + 1 if periodic else window_length
    # positions as fractions of the symmetric window: 0, 1/(L-1), ..., 1
    fraction = np.arange(length, dtype=np.float64) / (length - 1)
    values = shape_of(fraction)[:window_length]
    return _finish(values.astype(dt), requires_grad, device)


@public(method=False)
def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                layout: Any = None, device: Any = None, requires_grad: bool = False) -> Any:
    """``0.5 - 0.5 cos(2 pi n / (N - 1))``."""
    return _window("hann_window", window_length, periodic, dtype, requires_grad, device,
                   lambda f: 0.5 - 0.5 * np.cos(2 * np.pi * f))


@public(method=False)
def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype: Any = None, layout: Any = None,
                   device: Any = None, requires_grad: bool = False) -> Any:
    """``alpha - beta cos(2 pi n / (N - 1))``."""
    return _window("hamming_window", window_length, periodic, dtype, requires_grad, device,
                   lambda f: alpha - beta * np.cos(2 * np.pi * f))


@public(method=False)
def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    layout: Any = None, device: Any = None, requires_grad: bool = False) -> Any:
    """``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``."""
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, device,
                   lambda f: 0.42 - 0.5 * np.cos(2 * np.pi * f) + 0.08 * np.cos(4 * np.pi * f))


@public(method=False)
def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    layout: Any = None, device: Any = None, requires_grad: bool = False) -> Any:
    """The triangle ``1 - |2 n / (N - 1) - 1|``."""
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, device,
                   lambda f: 1 - np.abs(2 * f - 1))


@public(method=False)
def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype: Any = None, layout: Any = None, device: Any = None,
                  requires_grad: bool = False) -> Any:
    """``I0(beta sqrt(1 - (2 n / (N - 1) - 1)^2)) / I0(beta)``."""
    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, device,
                   lambda f: np.i0(beta * np.sqrt(np.clip(1 - (2 * f - 1) ** 2, 0, None)))
                   / np.i0(beta))
