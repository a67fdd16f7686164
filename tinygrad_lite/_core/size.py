"""``tl.Size``: the type of ``x.shape`` and ``x.size()``, a tuple of ints, as ``torch.Size``."""

from __future__ import annotations

import math
from typing import Any, SupportsIndex, overload

__all__ = ["Size", "sizes_or_keyword"]


class Size(tuple):
    """A tensor's shape: a tuple of ints with ``numel()``; slices and sums stay Sizes."""

    __module__ = "tinygrad_lite"  # prints as <class 'torch.Size'> prints: tl.Size is it

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds."""
        return math.prod(self)

    @overload
    def __getitem__(self, index: SupportsIndex) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> Size: ...

    def __getitem__(self, index: Any) -> Any:
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other: Any) -> Size:
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other: Any) -> Size:
        return Size(tuple(other) + tuple(self))

    def __repr__(self) -> str:
        return f"tinygrad_lite.Size({list(self)})"

    def __reduce__(self) -> tuple:
        return (Size, (tuple(self),))


def sizes_or_keyword(positional: tuple, keyword: Any, op: str, name: str) -> tuple:
    """The sizes (or dims) of ``op(*positional)`` or of ``op(name=keyword)``: PyTorch accepts
    ``zeros(size=(2, 3))``, ``x.reshape(shape=...)``, ``x.permute(dims=...)``; both at once is
    Python's "multiple values" TypeError."""
    if keyword is None:
        return positional
    if positional:
        raise TypeError(f"{op}() got multiple values for argument '{name}'")
    return (keyword,)
