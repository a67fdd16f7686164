"""Tensor's op methods. Each forwards to the function of the same name in ``functions.py``
(the ``tl.*`` API), so one implementation serves ``x.exp()`` and ``tl.exp(x)``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .tensor import Tensor

F: Any = None  # the ``functions`` module, bound at the end of tensor.py (it imports Tensor)


class TensorMethods:
    """Mixin holding the op methods of ``Tensor``."""

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

    # shape
    def reshape(self, *shape: Any) -> Tensor:
        """A tensor with the same data and a new shape."""
        return F.reshape(self, *shape)

    def view(self, *shape: Any) -> Tensor:
        """Same as ``reshape`` (NumPy decides whether memory is shared)."""
        return F.reshape(self, *shape)

    def permute(self, *dims: Any) -> Tensor:
        """Reorder the dimensions."""
        return F.permute(self, *dims)

    def expand(self, *sizes: Any) -> Tensor:
        """Broadcast to new sizes without copying."""
        return F.expand(self, *sizes)

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Swap two dimensions."""
        return F.transpose(self, dim0, dim1)

    def squeeze(self, dim: Any = None) -> Tensor:
        """Remove dimensions of size 1."""
        return F.squeeze(self, dim)

    def unsqueeze(self, dim: int) -> Tensor:
        """Insert a dimension of size 1."""
        return F.unsqueeze(self, dim)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """Merge a range of dimensions into one."""
        return F.flatten(self, start_dim, end_dim)

    def view_as(self, other: Tensor) -> Tensor:
        """Same as ``reshape(other.shape)``."""
        return F.reshape(self, other.shape)

    def reshape_as(self, other: Tensor) -> Tensor:
        """``reshape(other.shape)``."""
        return F.reshape(self, other.shape)

    @property
    def T(self) -> Tensor:  # noqa: N802 - PyTorch's name
        """All dimensions reversed (the transpose of a matrix)."""
        return F.permute(self, tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self) -> Tensor:  # noqa: N802 - PyTorch's name
        """The last two dimensions swapped (batched matrix transpose)."""
        return F.transpose(self, -2, -1)

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

    # -- more shape ops (functions_shape.py) ---------------------------------------------------
    def unflatten(self, dim: int, sizes: Any) -> Tensor:
        """Split dimension ``dim`` into ``sizes``."""
        return F.unflatten(self, dim, sizes)

    def expand_as(self, other: Tensor) -> Tensor:
        """``expand(other.shape)``."""
        return F.expand(self, other.shape)

    def broadcast_to(self, size: Any) -> Tensor:
        """Broadcast to ``size``."""
        return F.broadcast_to(self, size)

    def repeat(self, *sizes: Any) -> Tensor:
        """Tile the tensor ``sizes[i]`` times along each dim."""
        return F.repeat(self, *sizes)

    def tile(self, *dims: Any) -> Tensor:
        """Like repeat; missing leading dims count as 1."""
        return F.tile(self, dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list))
                      else dims)

    def flip(self, *dims: Any) -> Tensor:
        """Reverse the order of elements along ``dims``."""
        return F.flip(self, dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list))
                      else dims)

    def roll(self, shifts: Any, dims: Any = None) -> Tensor:
        """Rotate elements along ``dims`` by ``shifts``."""
        return F.roll(self, shifts, dims)

    def split(self, split_size: Any, dim: int = 0) -> tuple:
        """Split into chunks of one size or of the listed sizes."""
        return F.split(self, split_size, dim)

    def chunk(self, chunks: int, dim: int = 0) -> tuple:
        """Split into ``chunks`` nearly equal pieces."""
        return F.chunk(self, chunks, dim)

    def unbind(self, dim: int = 0) -> tuple:
        """The slices along ``dim``."""
        return F.unbind(self, dim)

    def narrow(self, dim: int, start: int, length: int) -> Tensor:
        """The slice ``start:start + length`` of ``dim``."""
        return F.narrow(self, dim, start, length)

    def select(self, dim: int, index: int) -> Tensor:
        """The slice at ``index`` of ``dim`` (which is removed)."""
        return F.select(self, dim, index)

    def movedim(self, source: int, destination: int) -> Tensor:
        """Move dimension ``source`` to ``destination``."""
        return F.movedim(self, source, destination)

    def tril(self, diagonal: int = 0) -> Tensor:
        """Lower triangle of the last two dims."""
        return F.tril(self, diagonal)

    def triu(self, diagonal: int = 0) -> Tensor:
        """Upper triangle of the last two dims."""
        return F.triu(self, diagonal)

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
        """The diagonal of dims ``dim1``/``dim2``, as a new last dim."""
        return F.diagonal(self, offset, dim1, dim2)

    def contiguous(self) -> Tensor:
        """``self`` if its memory is contiguous, else a contiguous copy."""
        return F.contiguous(self)

    # -- indexing (functions_index.py) ---------------------------------------------------------
    def gather(self, dim: int, index: Any) -> Tensor:
        """Values picked along ``dim`` at ``index``."""
        return F.gather(self, dim, index)

    def scatter(self, dim: int, index: Any, src: Any = None, *, value: Any = None,
                reduce: Any = None) -> Tensor:
        """A copy with ``src`` written at ``index`` along ``dim``."""
        return F.scatter(self, dim, index, src, value=value, reduce=reduce)

    def scatter_add(self, dim: int, index: Any, src: Any) -> Tensor:
        """A copy with ``src`` added at ``index`` along ``dim``."""
        return F.scatter_add(self, dim, index, src)

    def index_select(self, dim: int, index: Any) -> Tensor:
        """The entries ``index`` of dimension ``dim``."""
        return F.index_select(self, dim, index)

    def masked_fill(self, mask: Any, value: Any) -> Tensor:
        """``value`` where ``mask`` is true."""
        return F.masked_fill(self, mask, value)

    def masked_select(self, mask: Any) -> Tensor:
        """The elements where ``mask`` is true, as a 1-D tensor."""
        return F.masked_select(self, mask)

    def take_along_dim(self, indices: Any, dim: Any = None) -> Tensor:
        """Gather with broadcasting (see ``tl.take_along_dim``)."""
        return F.take_along_dim(self, indices, dim)

    def nonzero(self, *, as_tuple: bool = False) -> Any:
        """Indices of the nonzero elements."""
        return F.nonzero(self, as_tuple=as_tuple)

    # -- in-place ops (ops/inplace.py): version bump, leaf check, graph rebase -----------------
    def add_(self, other: Any, *, alpha: Any = 1) -> Tensor:
        """In place: ``self += alpha * other``."""
        return _inplace().arith(self, "add_", np.add, _scaled(other, alpha),
                                lambda s: F.add(s, other, alpha=alpha))

    def sub_(self, other: Any, *, alpha: Any = 1) -> Tensor:
        """In place: ``self -= alpha * other``."""
        return _inplace().arith(self, "sub_", np.subtract, _scaled(other, alpha),
                                lambda s: F.sub(s, other, alpha=alpha))

    def mul_(self, other: Any) -> Tensor:
        """In place: ``self *= other``."""
        return _inplace().arith(self, "mul_", np.multiply, other, lambda s: F.mul(s, other))

    def div_(self, other: Any) -> Tensor:
        """In place: ``self /= other`` (float tensors only, as the result is float)."""
        return _inplace().arith(self, "div_", np.divide, other, lambda s: F.div(s, other))

    def pow_(self, exponent: Any) -> Tensor:
        """In place: ``self **= exponent``."""
        return _inplace().arith(self, "pow_", np.power, exponent,
                                lambda s: F.pow(s, exponent))

    def clamp_(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
        """In place: limit to ``[min, max]``."""
        return _inplace().apply(self, "clamp_", lambda s: F.clamp(s, min, max))

    clip_ = clamp_

    def relu_(self) -> Tensor:
        """In place: ``max(self, 0)``."""
        return _inplace().apply(self, "relu_", F.relu)

    def neg_(self) -> Tensor:
        """In place: ``-self``."""
        return _inplace().apply(self, "neg_", F.neg)

    def exp_(self) -> Tensor:
        """In place: ``exp(self)``."""
        return _inplace().apply(self, "exp_", F.exp)

    def masked_fill_(self, mask: Any, value: Any) -> Tensor:
        """In place: ``value`` where ``mask`` is true."""
        return _inplace().apply(self, "masked_fill_", lambda s: F.masked_fill(s, mask, value))

    def fill_(self, value: Any) -> Tensor:
        """In place: every element set to ``value`` (a number or a 0-dim tensor)."""
        return _inplace().fill(self, value, "fill_")

    def zero_(self) -> Tensor:
        """In place: every element set to 0."""
        return _inplace().fill(self, 0, "zero_")

    def copy_(self, src: Any) -> Tensor:
        """In place: the values of ``src`` (broadcast, converted to this dtype)."""
        return _inplace().copy(self, src)

    def __iadd__(self, other: Any) -> Tensor:
        return self.add_(other)

    def __isub__(self, other: Any) -> Tensor:
        return self.sub_(other)

    def __imul__(self, other: Any) -> Tensor:
        return self.mul_(other)

    def __itruediv__(self, other: Any) -> Tensor:
        return self.div_(other)

    def __setitem__(self, index: Any, value: Any) -> None:
        _inplace().setitem(self, index, value)


def _scaled(other: Any, alpha: Any) -> Any:
    """``alpha * other`` for the in-place fast path (computed without recording)."""
    if alpha == 1:
        return other
    from .tensor import Tensor

    return Tensor._wrap(other.data * alpha) if isinstance(other, Tensor) else other * alpha


_INPLACE: Any = None  # ops.inplace, imported on first use (ops import Tensor, which imports us)


def _inplace() -> Any:
    global _INPLACE
    if _INPLACE is None:
        from .ops import inplace

        _INPLACE = inplace
    return _INPLACE


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
