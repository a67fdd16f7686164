"""``torch.autograd.graph``'s path: ``Node``, the class of every ``grad_fn``, and the
saved-tensor hooks (both live in ``_core``)."""

from .._core.graph import Node
from .._core.saved_hooks import save_on_cpu, saved_tensors_hooks

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu"]
