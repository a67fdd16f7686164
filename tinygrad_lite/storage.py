"""``torch.storage``'s path: the storage classes (``tl.storage.TypedStorage``), which print and
pickle under this module's name as PyTorch's do under ``torch.storage``."""

from ._tensor.storage import TypedStorage, UntypedStorage

__all__ = ["TypedStorage", "UntypedStorage"]
