"""PyTorch's ``torch.nn.utils.convert_parameters``: parameters to one vector and back, written
as PyTorch writes them so that the graph, aliasing and errors are the same: the vector is a
differentiable ``cat`` of the flattened parameters, and ``vector_to_parameters`` makes each
parameter's data a view of its slice of the vector (no copy)."""

from __future__ import annotations

from collections.abc import Iterable

from ... import functions as _fn
from ..._core.tensor_base import TensorBase
from ...tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> TensorBase:
    """All parameters flattened and concatenated into one 1-D tensor (in the autograd graph:
    gradients of the vector reach the parameters). An empty iterable is an error, as
    ``cat`` of nothing is."""
    vec = [param.view(-1) for param in parameters]
    if not vec:  # (PyTorch's ``torch.cat`` rejects the empty list with this ValueError)
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    return _fn.cat(vec)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Point each parameter's data at its consecutive slice of ``vec`` (viewed to the
    parameter's shape; the parameters then share ``vec``'s memory). A ``vec`` longer than the
    parameters is accepted, its tail unused; a slice that is too short fails to view."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    pointer = 0
    for param in parameters:
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param


def _typename(obj: object) -> str:
    """``torch.typename`` of a non-tensor: the qualified class name, builtins unqualified."""
    cls = type(obj)
    return cls.__qualname__ if cls.__module__ == "builtins" else \
        f"{cls.__module__}.{cls.__qualname__}"
