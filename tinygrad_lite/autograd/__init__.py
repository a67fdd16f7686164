"""Automatic differentiation: ``backward``, ``grad`` and grad-mode control."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Union

import numpy as np

from . import function
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .engine import run_backward
from .explain import explain
from .function import Function, once_differentiable
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph import Node, RemovableHandle

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = [
    "backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "Node",
    "RemovableHandle", "Function", "once_differentiable", "function", "functional", "gradcheck",
    "gradgradcheck", "GradcheckError", "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
    "explain",
]

Tensors = Union["Tensor", Sequence["Tensor"]]


def _as_tuple(x: Tensors | None) -> tuple:
    if x is None:
        return ()
    from ..tensor import Tensor

    return (x,) if isinstance(x, Tensor) else tuple(x)


@functools.lru_cache(maxsize=64)
def ones_seed(shape: tuple, dtype: np.dtype) -> Tensor:
    """A read-only tensor of ones: the implicit gradient of a one-element output. Shared between
    calls; read-only, so the engine copies it rather than adopting it as a ``.grad``."""
    from ..tensor import Tensor

    data = np.ones(shape, dtype)
    data.flags.writeable = False
    return Tensor._wrap(data)


def _root_grads(outputs: tuple, grad_outputs: tuple) -> list:
    """Seed gradients: ones for one-element outputs, otherwise the given tensors (checked)."""
    from ..tensor import Tensor

    if grad_outputs and len(grad_outputs) != len(outputs):
        raise RuntimeError(
            f"got {len(grad_outputs)} gradients for {len(outputs)} outputs; pass one per output"
        )
    seeds = []
    for i, out in enumerate(outputs):
        g = grad_outputs[i] if grad_outputs else None
        if g is None:
            if out.data.size != 1:
                raise RuntimeError(
                    f"grad can be implicitly created only for scalar outputs, but output {i} has "
                    f"shape {out.data.shape}; pass a gradient of that shape (e.g. "
                    "backward(torch.ones_like(out)) or call .sum() first)"
                )
            seeds.append(ones_seed(out.data.shape, out.data.dtype))
            continue
        if not isinstance(g, Tensor):
            g = Tensor._wrap(np.asarray(g, dtype=out.data.dtype))
        if g.data.shape != out.data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.data.shape} and "
                f"output[{i}] has a shape of {out.data.shape}"
            )
        seeds.append(g.to(out.dtype) if g.data.dtype != out.data.dtype else g)
    return seeds


def backward(
    tensors: Tensors,
    grad_tensors: Tensors | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Tensors | None = None,
) -> None:
    """Accumulate the gradients of ``tensors`` into ``.grad`` of the graph's leaves (or of
    ``inputs`` only). Saved values are freed afterwards unless ``retain_graph=True``."""
    outputs = _as_tuple(tensors)
    seeds = _root_grads(outputs, _as_tuple(grad_tensors))
    if retain_graph is None:
        retain_graph = create_graph
    chosen = _as_tuple(inputs) or None
    run_backward(outputs, seeds, retain_graph, create_graph, inputs=chosen, accumulate=True)


def grad(
    outputs: Tensors,
    inputs: Tensors,
    grad_outputs: Tensors | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> tuple:
    """The gradients of ``outputs`` with respect to ``inputs``, returned as a tuple; no ``.grad``
    is touched. With ``create_graph=True`` the results are differentiable themselves."""
    outs, ins = _as_tuple(outputs), _as_tuple(inputs)
    if not ins:
        raise RuntimeError("grad requires at least one input tensor")
    seeds = _root_grads(outs, _as_tuple(grad_outputs))
    if retain_graph is None:
        retain_graph = create_graph
    grads = run_backward(outs, seeds, retain_graph, create_graph, inputs=ins, accumulate=False)
    result = []
    for i, g in enumerate(grads):
        if g is None and not allow_unused:
            raise RuntimeError(
                f"input {i} of grad (shape {ins[i].data.shape}) was not used to compute the "
                "outputs. Set allow_unused=True if this is expected."
            )
        if g is not None and not create_graph:
            from ..tensor import Tensor

            # a plain backward works on arrays; give the caller a tensor that owns its memory
            g = Tensor._wrap(g if g.base is None and g.flags.writeable else g.copy())
        result.append(g)
    return tuple(result)


from . import functional  # noqa: E402  (it builds on grad, defined above)
