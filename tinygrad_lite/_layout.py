"""The layout objects: memory formats (``tl.contiguous_format``, ``tl.channels_last``,
``tl.channels_last_3d``, ``tl.preserve_format``) and layouts (``tl.strided``, ``tl.sparse_coo``).

Memory formats lay tensors out as PyTorch does (``channels_last``: NHWC memory behind an NCHW
tensor, see ``_core/memory_format.py``) in ``to``, ``contiguous``, ``clone``, ``empty`` and
``Module.to``; elsewhere they are accepted and the result is row-major."""

from __future__ import annotations

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d",
           "preserve_format", "legacy_contiguous_format", "layout", "strided", "sparse_coo"]


class _NamedConstant:
    """A named singleton printed as ``torch.<name>``; equal to that string too (``t.layout``
    reports layouts as strings here)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return other == repr(self)
        return self is other

    def __hash__(self) -> int:
        return hash(repr(self))

    def __reduce__(self) -> str:
        return self.name  # pickles as the module-level constant of that name


class memory_format(_NamedConstant):  # noqa: N801 - PyTorch's name
    """How a tensor's dims are ordered in memory (accepted; tensors here are row-major)."""


class layout(_NamedConstant):  # noqa: N801 - PyTorch's name
    """How a tensor's elements are stored: ``strided`` (dense) or ``sparse_coo``."""


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
legacy_contiguous_format = contiguous_format  # the same object in PyTorch
strided = layout("strided")
sparse_coo = layout("sparse_coo")
