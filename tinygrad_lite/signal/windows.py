"""``tinygrad_lite.signal.windows`` (PyTorch's ``torch.signal.windows``): window functions
computed as PyTorch computes them (from a ``linspace``), so a window made with
``requires_grad=True`` is the differentiable result of that computation, as in PyTorch.
``sym=True`` gives a symmetric window (filter design), ``sym=False`` a periodic one (spectral
analysis); float32 and float64 only."""

# ruff: noqa: N803 - the window length is PyTorch's (and SciPy's) argument ``M``

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from .. import _layout, dtypes, functions
from .._core.tensor_base import TensorBase
from .._layout import strided

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _check(name: str, M: int, dtype: Any, layout: Any) -> dtypes.DType:
    """The dtype to use (the default one for None), after PyTorch's checks of every window."""
    dtype = dtypes.get_default_dtype() if dtype is None else dtype
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (dtypes.float32, dtypes.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _trivial(M: int, dtype: Any, device: Any, requires_grad: bool,
             one: bool = False) -> TensorBase | None:
    """The empty window for M == 0 (and, with ``one``, ``[1.]`` for M == 1), else None."""
    if M == 0:
        return functions.empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if one and M == 1:
        return functions.ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    return None


def _span(start: float, end: float, M: int, dtype: Any, device: Any,
          requires_grad: bool) -> TensorBase:
    """``linspace(start, end, M)``, the argument every window is a function of."""
    return functions.linspace(start, end, M, dtype=dtype, device=device,
                              requires_grad=requires_grad)


def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True,
                dtype: Any = None, layout: _layout.layout = strided, device: Any = None,
                requires_grad: bool = False) -> TensorBase:
    """The exponential (Poisson) window ``exp(-|n - center| / tau)``."""
    dtype = _check("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    empty = _trivial(M, dtype, device, requires_grad)
    if empty is not None:
        return empty
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    k = _span(-center / tau, (-center + (M - 1)) / tau, M, dtype, device, requires_grad)
    return functions.exp(-functions.abs(k))


def cosine(M: int, *, sym: bool = True, dtype: Any = None, layout: _layout.layout = strided,
           device: Any = None, requires_grad: bool = False) -> TensorBase:
    """The cosine (sine) window ``sin(pi * (n + 0.5) / M)``."""
    dtype = _check("cosine", M, dtype, layout)
    empty = _trivial(M, dtype, device, requires_grad)
    if empty is not None:
        return empty
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    k = _span(0.5 * constant, (0.5 + (M - 1)) * constant, M, dtype, device, requires_grad)
    return functions.sin(k)


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype: Any = None,
             layout: _layout.layout = strided, device: Any = None,
             requires_grad: bool = False) -> TensorBase:
    """The Gaussian window ``exp(-(n - (M - 1) / 2)^2 / (2 std^2))``."""
    dtype = _check("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    empty = _trivial(M, dtype, device, requires_grad)
    if empty is not None:
        return empty
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / (std * math.sqrt(2))
    k = _span(start * constant, (start + (M - 1)) * constant, M, dtype, device, requires_grad)
    return functions.exp(-(k ** 2))


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype: Any = None,
           layout: _layout.layout = strided, device: Any = None,
           requires_grad: bool = False) -> TensorBase:
    """The Kaiser window ``I0(beta * sqrt(1 - (2n / (M - 1) - 1)^2)) / I0(beta)``."""
    dtype = _check("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    empty = _trivial(M, dtype, device, requires_grad, one=True)
    if empty is not None:
        return empty
    b = functions.tensor(beta, dtype=dtype, device=device)  # beta rounded to the dtype
    beta = b.item()
    constant = 2.0 * beta / (M if not sym else M - 1)
    k = _span(-beta, min(beta, -beta + (M - 1) * constant), M, dtype, device, requires_grad)
    return functions.i0(functions.sqrt(b * b - k ** 2)) / functions.i0(b)


def hamming(M: int, *, sym: bool = True, dtype: Any = None, layout: _layout.layout = strided,
            device: Any = None, requires_grad: bool = False) -> TensorBase:
    """The Hamming window: ``general_hamming`` with ``alpha=0.54``."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M: int, *, sym: bool = True, dtype: Any = None, layout: _layout.layout = strided,
         device: Any = None, requires_grad: bool = False) -> TensorBase:
    """The Hann window: ``general_hamming`` with ``alpha=0.5``."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M: int, *, sym: bool = True, dtype: Any = None, layout: _layout.layout = strided,
             device: Any = None, requires_grad: bool = False) -> TensorBase:
    """The Blackman window: ``general_cosine`` with ``a=[0.42, 0.5, 0.08]``."""
    dtype = _check("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def bartlett(M: int, *, sym: bool = True, dtype: Any = None, layout: _layout.layout = strided,
             device: Any = None, requires_grad: bool = False) -> TensorBase:
    """The Bartlett (triangular) window ``1 - |2n / (M - 1) - 1|``."""
    dtype = _check("bartlett", M, dtype, layout)
    empty = _trivial(M, dtype, device, requires_grad, one=True)
    if empty is not None:
        return empty
    constant = 2 / (M if not sym else M - 1)
    k = _span(-1, -1 + (M - 1) * constant, M, dtype, device, requires_grad)
    return 1 - functions.abs(k)


def general_cosine(M: int, *, a: Iterable, sym: bool = True, dtype: Any = None,
                   layout: _layout.layout = strided, device: Any = None,
                   requires_grad: bool = False) -> TensorBase:
    """The generalized cosine window ``sum_i (-1)^i a_i cos(2 pi i n / (M - 1))``."""
    dtype = _check("general_cosine", M, dtype, layout)
    empty = _trivial(M, dtype, device, requires_grad, one=True)
    if empty is not None:
        return empty
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * math.pi / (M if not sym else M - 1)
    k = _span(0, (M - 1) * constant, M, dtype, device, requires_grad)
    a_i = functions.tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype, device=device,
                           requires_grad=requires_grad)
    i = functions.arange(a_i.shape[0], dtype=dtype, device=device, requires_grad=requires_grad)
    return (a_i.unsqueeze(-1) * functions.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M: int, *, alpha: float = 0.54, sym: bool = True, dtype: Any = None,
                    layout: _layout.layout = strided, device: Any = None,
                    requires_grad: bool = False) -> TensorBase:
    """The generalized Hamming window ``alpha - (1 - alpha) cos(2 pi n / (M - 1))``."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)



def nuttall(M: int, *, sym: bool = True, dtype: Any = None, layout: _layout.layout = strided,
            device: Any = None, requires_grad: bool = False) -> TensorBase:
    """The minimum 4-term Blackman-Harris window of Nuttall: ``general_cosine`` with
    ``a=[0.3635819, 0.4891775, 0.1365995, 0.0106411]``."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)
