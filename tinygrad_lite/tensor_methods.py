"""Tensor's op methods. Each forwards to the function of the same name in ``functions.py``
(the ``tl.*`` API), so one implementation serves ``x.exp()`` and ``tl.exp(x)``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tensor import Tensor

F: Any = None  # the ``functions`` module, bound at the end of tensor.py (it imports Tensor)


class TensorMethods:
    """Mixin holding the op methods of ``Tensor``."""

    __slots__ = ()

    # elementwise
    def add(self, other: Any) -> Tensor:
        """``self + other``."""
        return F.add(self, other)

    def sub(self, other: Any) -> Tensor:
        """``self - other``."""
        return F.sub(self, other)

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

    @property
    def T(self) -> Tensor:  # noqa: N802 - PyTorch's name
        """All dimensions reversed (the transpose of a matrix)."""
        return F.permute(self, tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self) -> Tensor:  # noqa: N802 - PyTorch's name
        """The last two dimensions swapped (batched matrix transpose)."""
        return F.transpose(self, -2, -1)
