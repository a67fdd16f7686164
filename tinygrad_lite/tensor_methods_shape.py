"""Tensor's shape, indexing and in-place methods (the rest of ``TensorMethods``). Each forwards
to ``functions`` (the ``tl.*`` API) or, for in-place ops, to ``ops/inplace.py``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .tensor import Tensor

F: Any = None  # the ``functions`` module, bound at the end of tensor.py (it imports Tensor)


class ShapeMethods:
    """Mixin holding the shape, indexing and in-place methods of ``Tensor``."""

    __slots__ = ()

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

    def t(self) -> Tensor:
        """The transpose of a matrix (0-D and 1-D tensors as they are)."""
        return F.t(self)

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
