"""``autograd.grad``: the engine's ``grad`` (``_core/backward.py``, one backward), and
``is_grads_batched``, where the first dimension of every grad_output is a batch of seeds: one
backward per seed, the results stacked (a stack is an op, a layer above the engine, so this part
lives here)."""

from __future__ import annotations

import numpy as np

from .._core.backward import Tensors, _as_tuple
from .._core.backward import grad as core_grad
from .._core.tensor_base import wrap
from ..functions.shape import stack

__all__ = ["grad"]


def grad(outputs: Tensors, inputs: Tensors, grad_outputs: Tensors | None = None,
         retain_graph: bool | None = None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: bool | None = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple:
    """The gradients of ``outputs`` with respect to ``inputs`` (PyTorch's ``autograd.grad``);
    see ``_core.backward.grad``, and ``_batched`` for ``is_grads_batched``."""
    if not is_grads_batched:
        return core_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                         only_inputs, allow_unused, materialize_grads)
    outs, ins = _as_tuple(outputs), _as_tuple(inputs)  # (checked by each row's grad call)
    if retain_graph is None:
        retain_graph = create_graph
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    return _batched(outs, ins, _as_tuple(grad_outputs), retain_graph, create_graph,
                    bool(allow_unused) or materialize_grads, materialize_grads)


def _batched(outs: tuple, ins: tuple, grad_outputs: tuple, retain_graph: bool,
                  create_graph: bool, allow_unused: bool, materialize_grads: bool) -> tuple:
    """``grad(..., is_grads_batched=True)``: the first dimension of every grad_output is a batch
    of seeds. PyTorch vmaps one backward over it; here it is one backward per seed (the graph
    kept for all but the last) with the results stacked."""
    if len(grad_outputs) < len(outs):
        raise RuntimeError(f"got {len(outs)} tensors and {len(grad_outputs)} gradients")
    batch = None
    for i, (out, g) in enumerate(zip(outs, grad_outputs)):
        if g is None:
            continue
        if g.ndim == 0 or tuple(g.shape[1:]) != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                "expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of torch.Size({list(g._data.shape)}) "
                f"and output[{i}] has a shape of torch.Size({list(out._data.shape)}). If you "
                "only want some tensors in `grad_output` "
                "to be considered batched, consider using vmap."
            )
        batch = g.shape[0]
    if batch is None:  # nothing batched: one ordinary call
        return core_grad(outs, ins, list(grad_outputs), retain_graph, create_graph,
                    allow_unused=allow_unused, materialize_grads=materialize_grads)
    def row_seeds(b: int) -> list:  # one row of every batched grad_output
        return [None if g is None else g[b] for g in grad_outputs[:len(outs)]]

    rows = [core_grad(outs, ins, row_seeds(b),
                 retain_graph=retain_graph or b < batch - 1, create_graph=create_graph,
                 allow_unused=allow_unused)
            for b in range(batch)]
    # an unused input's zeros are not batched (PyTorch materializes them after the vmap)
    return tuple(stack(list(per_input)) if per_input[0] is not None
                 else wrap(np.zeros_like(t._data)) if materialize_grads else None
                 for t, per_input in zip(ins, zip(*rows)))
