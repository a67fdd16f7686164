"""``tl.Size``: the type of ``x.shape`` and ``x.size()``, a tuple of ints, as ``torch.Size``."""

from __future__ import annotations

import math
from typing import Any, SupportsIndex, overload

__all__ = ["Size"]


class Size(tuple):
    """A tensor's shape: a tuple of ints with ``numel()``; slices and sums stay Sizes."""

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
