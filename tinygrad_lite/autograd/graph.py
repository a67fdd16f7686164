"""``torch.autograd.graph``'s path: ``Node``, the class of every ``grad_fn`` (it lives in
``_core``)."""

from .._core.graph import Node

__all__ = ["Node"]
