"""Tensor's op methods. Each forwards to the function of the same name in ``functions.py``
(the ``tl.*`` API), so one implementation serves ``x.exp()`` and ``tl.exp(x)``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .tensor_methods_shape import ShapeMethods

if TYPE_CHECKING:
    from .tensor import Tensor

F: Any = None  # the ``functions`` module, bound at the end of tensor.py (it imports Tensor)


class TensorMethods(ShapeMethods):
    """Mixin holding the op methods of ``Tensor``: math here, shape, indexing and in-place ops in
    ``ShapeMethods`` (tensor_methods_shape.py)."""

    __slots__ = ()

    # elementwise
    def add(self, other: Any, *, alpha: Any = 1) -> Tensor:
        """``self + alpha * other``."""
        return F.add(self, other, alpha=alpha)

    def sub(self, other: Any, *, alpha: Any = 1) -> Tensor:
        """``self - alpha * other``."""
        return F.sub(self, other, alpha=alpha)

    def mul(self, other: Any) -> Tensor:
        """``self * other``."""
        return F.mul(self, other)

    def div(self, other: Any) -> Tensor:
        """``self / other`` (true division)."""
        return F.div(self, other)

    def pow(self, exponent: Any) -> Tensor:
        """``self ** exponent``."""
        return F.pow(self, exponent)

    def neg(self) -> Tensor:
        """``-self``."""
        return F.neg(self)

    def exp(self) -> Tensor:
        """Elementwise ``e ** x``."""
        return F.exp(self)

    def log(self) -> Tensor:
        """Elementwise natural logarithm."""
        return F.log(self)

    def sin(self) -> Tensor:
        """Elementwise sine."""
        return F.sin(self)

    def cos(self) -> Tensor:
        """Elementwise cosine."""
        return F.cos(self)

    def sqrt(self) -> Tensor:
        """Elementwise square root."""
        return F.sqrt(self)

    def relu(self) -> Tensor:
        """``max(x, 0)`` elementwise."""
        return F.relu(self)

    def tanh(self) -> Tensor:
        """Elementwise hyperbolic tangent."""
        return F.tanh(self)

    def sigmoid(self) -> Tensor:
        """Elementwise logistic sigmoid."""
        return F.sigmoid(self)

    def maximum(self, other: Any) -> Tensor:
        """Elementwise maximum of ``self`` and ``other``."""
        return F.maximum(self, other)

    def softmax(self, dim: int, dtype: Any = None) -> Tensor:
        """Softmax over ``dim``."""
        return F.softmax(self, dim, dtype)

    def log_softmax(self, dim: int, dtype: Any = None) -> Tensor:
        """Log-softmax over ``dim``."""
        return F.log_softmax(self, dim, dtype)

    # reductions
    def sum(self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
        """Sum of all elements or over ``dim``."""
        return F.sum(self, dim, keepdim, dtype=dtype)

    def mean(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        """Mean of all elements or over ``dim``."""
        return F.mean(self, dim, keepdim)

    def max(self, dim: Any = None, keepdim: bool = False) -> Any:
        """Largest element, or ``(values, indices)`` over ``dim``."""
        return F.max(self, dim, keepdim)

    def min(self, dim: Any = None, keepdim: bool = False) -> Any:
        """Smallest element, or ``(values, indices)`` over ``dim``."""
        return F.min(self, dim, keepdim)

    def amax(self, dim: Any = (), keepdim: bool = False) -> Tensor:
        """Maximum over ``dim`` (int or tuple)."""
        return F.amax(self, dim, keepdim)

    # linear algebra
    def matmul(self, other: Any) -> Tensor:
        """Matrix product ``self @ other``."""
        return F.matmul(self, other)

    # -- more elementwise ops (functions_math.py) -------------------------------------------------
    def negative(self) -> Tensor:
        """``-self``."""
        return F.neg(self)

    def abs(self) -> Tensor:
        """Elementwise absolute value."""
        return F.abs(self)

    absolute = abs

    def __abs__(self) -> Tensor:
        return F.abs(self)

    def sign(self) -> Tensor:
        """Elementwise -1, 0 or 1."""
        return F.sign(self)

    def clamp(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
        """``self`` limited to ``[min, max]``."""
        return F.clamp(self, min, max)

    clip = clamp

    def rsqrt(self) -> Tensor:
        """``1 / sqrt(x)``."""
        return F.rsqrt(self)

    def square(self) -> Tensor:
        """``x * x``."""
        return F.square(self)

    def exp2(self) -> Tensor:
        """``2 ** x``."""
        return F.exp2(self)

    def expm1(self) -> Tensor:
        """``exp(x) - 1``, accurate near 0."""
        return F.expm1(self)

    def log2(self) -> Tensor:
        """Base-2 logarithm."""
        return F.log2(self)

    def log10(self) -> Tensor:
        """Base-10 logarithm."""
        return F.log10(self)

    def log1p(self) -> Tensor:
        """``log(1 + x)``, accurate near 0."""
        return F.log1p(self)

    def tan(self) -> Tensor:
        """Elementwise tangent."""
        return F.tan(self)

    def reciprocal(self) -> Tensor:
        """``1 / x``."""
        return F.reciprocal(self)

    def floor(self) -> Tensor:
        """Round down (zero gradient)."""
        return F.floor(self)

    def ceil(self) -> Tensor:
        """Round up (zero gradient)."""
        return F.ceil(self)

    def round(self, *, decimals: int = 0) -> Tensor:
        """Round half to even (zero gradient)."""
        return F.round(self, decimals=decimals)

    def trunc(self) -> Tensor:
        """Round towards zero (zero gradient)."""
        return F.trunc(self)

    def minimum(self, other: Any) -> Tensor:
        """Elementwise minimum of ``self`` and ``other``."""
        return F.minimum(self, other)

    def lerp(self, end: Any, weight: Any) -> Tensor:
        """``self + weight * (end - self)``."""
        return F.lerp(self, end, weight)

    def where(self, condition: Any, other: Any) -> Tensor:
        """``self`` where ``condition`` is true, else ``other``."""
        return F.where(condition, self, other)

    def eq(self, other: Any) -> Tensor:
        """``self == other`` (bool)."""
        return F.eq(self, other)

    def ne(self, other: Any) -> Tensor:
        """``self != other`` (bool)."""
        return F.ne(self, other)

    def lt(self, other: Any) -> Tensor:
        """``self < other`` (bool)."""
        return F.lt(self, other)

    def le(self, other: Any) -> Tensor:
        """``self <= other`` (bool)."""
        return F.le(self, other)

    def gt(self, other: Any) -> Tensor:
        """``self > other`` (bool)."""
        return F.gt(self, other)

    def ge(self, other: Any) -> Tensor:
        """``self >= other`` (bool)."""
        return F.ge(self, other)

    def logical_and(self, other: Any) -> Tensor:
        """Elementwise logical AND (bool)."""
        return F.logical_and(self, other)

    def logical_or(self, other: Any) -> Tensor:
        """Elementwise logical OR (bool)."""
        return F.logical_or(self, other)

    def logical_xor(self, other: Any) -> Tensor:
        """Elementwise logical XOR (bool)."""
        return F.logical_xor(self, other)

    def logical_not(self) -> Tensor:
        """Elementwise logical NOT (bool)."""
        return F.logical_not(self)

    def isnan(self) -> Tensor:
        """Elementwise: is NaN (bool)."""
        return F.isnan(self)

    def isinf(self) -> Tensor:
        """Elementwise: is infinite (bool)."""
        return F.isinf(self)

    def isfinite(self) -> Tensor:
        """Elementwise: is finite (bool)."""
        return F.isfinite(self)

    def __invert__(self) -> Tensor:
        return _bitwise("invert", self, None)

    def __and__(self, other: Any) -> Tensor:
        return _bitwise("bitwise_and", self, other)

    def __or__(self, other: Any) -> Tensor:
        return _bitwise("bitwise_or", self, other)

    def __xor__(self, other: Any) -> Tensor:
        return _bitwise("bitwise_xor", self, other)

    # -- more reductions and linear algebra (functions_reduce.py) --------------------------------
    def amin(self, dim: Any = (), keepdim: bool = False) -> Tensor:
        """Minimum over ``dim`` (int or tuple)."""
        return F.amin(self, dim, keepdim)

    def argmax(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        """Index of the largest element (over ``dim``)."""
        return F.argmax(self, dim, keepdim)

    def argmin(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        """Index of the smallest element (over ``dim``)."""
        return F.argmin(self, dim, keepdim)

    def prod(self, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
        """Product of all elements or over ``dim``."""
        return F.prod(self, dim, keepdim, dtype=dtype)

    def cumsum(self, dim: int, *, dtype: Any = None) -> Tensor:
        """Cumulative sum along ``dim``."""
        return F.cumsum(self, dim, dtype=dtype)

    def cumprod(self, dim: int, *, dtype: Any = None) -> Tensor:
        """Cumulative product along ``dim``."""
        return F.cumprod(self, dim, dtype=dtype)

    def var(self, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
            correction: Any = None) -> Tensor:
        """Variance over ``dim`` (``correction`` 1 by default)."""
        return F.var(self, dim, unbiased, keepdim, correction=correction)

    def std(self, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
            correction: Any = None) -> Tensor:
        """Standard deviation over ``dim`` (``correction`` 1 by default)."""
        return F.std(self, dim, unbiased, keepdim, correction=correction)

    def logsumexp(self, dim: Any, keepdim: bool = False) -> Tensor:
        """``log(sum(exp(x), dim))``, computed stably."""
        return F.logsumexp(self, dim, keepdim)

    def norm(self, p: Any = "fro", dim: Any = None, keepdim: bool = False,
             dtype: Any = None) -> Tensor:
        """Vector norm (p = 2/'fro', 1, inf, ...)."""
        return F.norm(self, p, dim, keepdim, dtype)

    def all(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        """Whether all elements (over ``dim``) are true."""
        return F.all(self, dim, keepdim)

    def any(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        """Whether any element (over ``dim``) is true."""
        return F.any(self, dim, keepdim)

    def mm(self, mat2: Any) -> Tensor:
        """Matrix product of 2-D tensors."""
        return F.mm(self, mat2)

    def bmm(self, mat2: Any) -> Tensor:
        """Batched matrix product of 3-D tensors."""
        return F.bmm(self, mat2)

    def mv(self, vec: Any) -> Tensor:
        """Matrix-vector product."""
        return F.mv(self, vec)

    def dot(self, other: Any) -> Tensor:
        """Inner product of 1-D tensors."""
        return F.dot(self, other)

    def outer(self, vec2: Any) -> Tensor:
        """Outer product of 1-D tensors."""
        return F.outer(self, vec2)

def _bitwise(name: str, a: Any, b: Any) -> Tensor:
    """``~``, ``&``, ``|``, ``^``: logical on bool tensors, bitwise on integers (no gradient)."""
    from .tensor import Tensor

    x = a.data
    if x.dtype.kind == "f":
        raise TypeError(f"{name}: only integer and bool tensors are supported, got {a.dtype}")
    if b is None:
        return Tensor._wrap(np.invert(x))
    y = b.data if isinstance(b, Tensor) else np.asarray(b)
    return Tensor._wrap(np.asarray(getattr(np, name)(x, y)))
