"""The regularised incomplete gamma functions as a primitive: ``igamma(a, x) = P(a, x)`` and
``igammac(a, x) = Q(a, x) = 1 - P(a, x)``, PyTorch's ``torch.igamma``/``torch.igammac`` (and
``Tensor.igamma``). Differentiable in ``x`` (first and higher order: the rule is written in
recorded ops), refused in ``a`` as PyTorch refuses it.

Values come from ``scipy.special`` when it is installed, else from the power series below
``x = a + 1`` and Legendre's continued fraction (modified Lentz) above, in float64.
"""

from __future__ import annotations

import math

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from ..dtypes import is_float_dtype
from . import special
from .common import is_array, sum_to, wrap
from .elementwise import cast, promote
from .movement import expand
from .unary import exp, log

__all__ = ["igamma", "gammainc", "gammainc_fallback"]

_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])


def gammainc_fallback(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(a, x) in float64 without SciPy (NaN where a <= 0 or x < 0)."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    valid = (a > 0) & (x >= 0)
    safe_a, safe_x = np.where(valid, a, 1.0), np.where(valid, x, 1.0)
    with np.errstate(all="ignore"):
        prefix = np.exp(safe_a * np.log(safe_x) - safe_x - _lgamma(safe_a))
        term = 1.0 / safe_a
        total = term.copy()
        for n in range(1, 500):  # the series: x^a e^-x / Gamma(a) * sum x^n / (a)_(n+1)
            term = term * safe_x / (safe_a + n)
            total = total + term
        b = safe_x + 1.0 - safe_a  # Q's continued fraction, by modified Lentz
        tiny = 1e-300
        c = np.full(a.shape, 1.0 / tiny)
        d = 1.0 / np.where(b == 0, tiny, b)
        h = d.copy()
        for i in range(1, 300):
            an = -i * (i - safe_a)
            b = b + 2.0
            d = an * d + b
            d = 1.0 / np.where(np.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = np.where(np.abs(c) < tiny, tiny, c)
            h = h * d * c
        out = np.where(safe_x < safe_a + 1.0, prefix * total, 1.0 - prefix * h)
    out = np.where(x == 0, 0.0, np.where(np.isinf(x), 1.0, out))
    return np.where(valid, out, np.nan)


def _values(a: np.ndarray, x: np.ndarray, upper: bool) -> np.ndarray:
    sp = special.scipy_special()
    if sp is not None:
        with np.errstate(all="ignore"):
            return sp.gammaincc(a, x) if upper else sp.gammainc(a, x)
    lower = gammainc_fallback(a, x)
    return 1.0 - lower if upper else lower


class IgammaBackward0(Node):
    """d/dx P(a, x) = x^(a-1) e^-x / Gamma(a) (and minus that for Q); no rule in ``a``."""

    upper: bool
    op: str

    def backward(self, grad):
        a, x = self.saved_tensors
        if self.next_edges[0] is not None:
            raise NotImplementedError(f"the derivative for '{self.op}' with respect to its first "
                                      "argument (input, a) is not implemented")
        if is_array(grad):
            with np.errstate(all="ignore"):
                density = np.exp((a - 1.0) * np.log(x) - x - special.lgamma(wrap(a))._data)
            density = density.astype(grad.dtype, copy=False)
        else:
            density = exp((a - 1.0) * log(x) - x - special.lgamma(a))
        return None, (-grad if self.upper else grad) * density


def igamma(input: TensorBase | float, other: TensorBase | float, upper: bool = False,
           op: str = "igamma") -> TensorBase:
    """P(a, x) (``upper``: Q(a, x)) of ``input`` = a and ``other`` = x, broadcast and promoted
    as PyTorch; integer inputs are refused as PyTorch refuses them."""
    a, x = promote(input, other)
    if not is_float_dtype(a._data.dtype):
        raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{a.dtype}' (igamma takes "
                                  f"floating-point tensors; got shapes {tuple(a.shape)} and "
                                  f"{tuple(x.shape)})")
    shape = np.broadcast_shapes(a._data.shape, x._data.shape)
    out = np.asarray(_values(a._data, x._data, upper), a._data.dtype).reshape(shape)
    if not (grad_state.enabled and (a._requires_grad or x._requires_grad)):
        return wrap(out)
    a = a if a._data.shape == shape else expand(a, shape)
    x = x if x._data.shape == shape else expand(x, shape)
    node = IgammaBackward0(a, x)
    node.upper, node.op = upper, op
    node.save_for_backward(a, x)
    return wrap(out, node)


# -- torch.special.gammainc / gammaincc ---------------------------------------------------------

class GammaincBackward0(Node):
    """``tl.special.gammainc``/``gammaincc``: d/dx = +-x^(a-1) e^-x / Gamma(a) in the operands'
    own dtypes, the gradient summed to x's shape in x's dtype; no rule in ``a``."""

    upper: bool

    def backward(self, grad):
        a, x = self.saved_tensors
        if self.next_edges[0] is not None:
            name = "gammaincc" if self.upper else "gammainc"
            raise NotImplementedError(f"the derivative for '{name}' with respect to its first "
                                      "argument (input, a) is not implemented")
        plain = is_array(grad)
        if plain:  # a plain backward: the same tensor ops, unrecorded (grad mode is off)
            a, x, grad = wrap(a), wrap(x), wrap(grad)
        density = exp((a - 1.0) * log(x) - x - special.lgamma(a))
        grad_x = sum_to((-grad if self.upper else grad) * density, x._data.shape)
        if grad_x._data.dtype != x._data.dtype:
            grad_x = cast(grad_x, x._data.dtype)
        return None, grad_x._data if plain else grad_x


def gammainc(a: TensorBase, x: TensorBase, upper: bool) -> TensorBase:
    """``torch.special.gammainc`` (``upper``: ``gammaincc``) of tensors ``a`` and ``x``, in
    NumPy's promoted dtype of the two; differentiable in x."""
    dtype = np.result_type(a._data.dtype, x._data.dtype)
    out = wrap(np.asarray(_values(a._data, x._data, upper), dtype))
    if not (grad_state.enabled and (a._requires_grad or x._requires_grad)):
        return out
    node = GammaincBackward0(a, x)
    node.upper = upper
    node.save_for_backward(a, x)
    return wrap(out._data, node)
