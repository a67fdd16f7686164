"""A tensor's autograd state beyond tensor.py's: ``detach_``, ``output_nr``, ``grad_dtype`` and
``is_inference``."""

from __future__ import annotations

from typing import Any

from .. import dtypes
from .._core.tensor_base import TensorBase

__all__ = ["METHODS", "PROPERTIES"]


def detach_(self: TensorBase) -> TensorBase:
    """Make ``self`` a leaf that requires no gradient, in place (it leaves the graph)."""
    if getattr(self, "_view_of", None) is not None:  # any view, as PyTorch's
        raise RuntimeError("Can't detach views in-place. Use detach() instead.")
    self.grad_fn = None
    self._requires_grad = False
    return self


def is_inference(self: TensorBase) -> bool:
    """Whether the tensor was made inside ``inference_mode``: an inference tensor keeps no
    version counter and refuses in-place changes outside such a block."""
    return bool(self._inference)


def _get_grad_dtype(self: TensorBase) -> Any:
    """The dtype the engine keeps ``.grad`` in (None: the incoming gradient's own); leaves only."""
    if self.grad_fn is not None:
        raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
    return self.dtype if self._grad_dtype is False else self._grad_dtype


def _set_grad_dtype(self: TensorBase, value: Any) -> None:
    if self.grad_fn is not None:
        raise RuntimeError("grad_dtype can only be set on leaf tensors.")
    self._grad_dtype = None if value is None else dtypes.to_dtype(value)


grad_dtype = property(_get_grad_dtype, _set_grad_dtype, doc=(
    "The dtype of ``.grad`` for this leaf: by default the tensor's own; set it to have incoming "
    "gradients cast to another dtype, or to None to keep whatever dtype they arrive in."))


METHODS: dict[str, Any] = {f.__name__: f for f in (detach_, is_inference)}
PROPERTIES = {
    "output_nr": property(lambda self: int(self._output_nr)),
    "grad_dtype": grad_dtype,  # settable
}
