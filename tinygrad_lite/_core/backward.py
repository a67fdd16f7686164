"""The entry points of backward: ``backward`` and ``grad`` check their arguments, seed the roots
and hand over to the engine. ``Tensor.backward`` and ``tinygrad_lite.autograd`` both call them."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from .engine import run_backward
from .tensor_base import TensorBase, wrap
from .warnings import warn

__all__ = ["backward", "grad", "ones_seed"]

Tensors = TensorBase | Sequence[TensorBase]


def _as_tuple(x: Tensors | None) -> tuple:
    if x is None:
        return ()
    return (x,) if isinstance(x, TensorBase) else tuple(x)


@functools.lru_cache(maxsize=64)
def ones_seed(shape: tuple, dtype: np.dtype) -> TensorBase:
    """A read-only tensor of ones: the implicit gradient of a one-element output. Shared between
    calls; read-only, so the engine copies it rather than adopting it as a ``.grad``."""
    data = np.ones(shape, dtype)
    data.flags.writeable = False
    return wrap(data)


def _root_grads(outputs: tuple, grad_outputs: tuple) -> list:
    """Seed gradients: ones for one-element outputs, otherwise the given tensors (checked).
    As in PyTorch, gradients beyond the number of outputs are ignored; too few is an error."""
    if grad_outputs and len(grad_outputs) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients")
    seeds = []
    for i, out in enumerate(outputs):
        g = grad_outputs[i] if grad_outputs else None
        if g is None:
            if out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            seeds.append(ones_seed(out._data.shape, out._data.dtype))
            continue
        if not isinstance(g, TensorBase):
            g = wrap(np.asarray(g, dtype=out._data.dtype))
        if g._data.shape != out._data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g._data.shape} and "
                f"output[{i}] has a shape of {out._data.shape}."
            )
        seeds.append(g.to(out.dtype) if g._data.dtype != out._data.dtype else g)
    return seeds


def _check_inputs(outputs: tuple, inputs: tuple, api: str) -> None:
    """PyTorch's checks, in its order (``api`` is ``grad`` or ``backward``): ``inputs`` not
    empty, every output part of a graph, every input able to receive a gradient."""
    if not inputs:
        raise RuntimeError(f"`inputs` argument to `{api}()` cannot be empty.")
    for i, out in enumerate(outputs):
        if out.grad_fn is None and not out._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn")
    for t in inputs:
        if t.grad_fn is None and not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad"
                               if api == "grad" else
                               "can't retain_grad on Tensor that has requires_grad=False")


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
    chosen = None if inputs is None else _as_tuple(inputs)
    if chosen is not None:
        _check_inputs(outputs, chosen, "backward")
    run_backward(outputs, seeds, retain_graph, create_graph, inputs=chosen, accumulate=True)


def grad(
    outputs: Tensors,
    inputs: Tensors,
    grad_outputs: Tensors | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    materialize_grads: bool = False,
) -> tuple:
    """The gradients of ``outputs`` with respect to ``inputs``, returned as a tuple; no ``.grad``
    is touched. With ``create_graph=True`` the results are differentiable themselves; with
    ``materialize_grads=True`` unused inputs get zeros instead of None. (``tl.autograd.grad``
    adds ``is_grads_batched``: ``autograd/gradients.py``.)"""
    outs, ins = _as_tuple(outputs), _as_tuple(inputs)
    _check_inputs(outs, ins, "grad")
    if not only_inputs:
        warn("only_inputs argument is deprecated and is ignored now (defaults to True). To "
             "accumulate gradient for other parts of the graph, please use "
             "torch.autograd.backward.", FutureWarning)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    allow_unused = bool(allow_unused) or materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    seeds = _root_grads(outs, _as_tuple(grad_outputs))
    # the engine captures one gradient per input edge: ask once for an input listed twice
    first = {id(t): None for t in ins}
    unique = [t for t in ins if first.pop(id(t), 0) is None]
    grads = run_backward(outs, seeds, retain_graph, create_graph, inputs=unique, accumulate=False)
    by_id = {id(t): g for t, g in zip(unique, grads)}
    result = []
    for i, t in enumerate(ins):
        g = by_id[id(t)]
        if g is None and not allow_unused:
            raise RuntimeError(
                f"The differentiated Tensor at index {i} appears to not have been used in the "
                "graph. Set allow_unused=True if this is the desired behavior."
            )
        if g is not None and not create_graph:
            # a plain backward works on arrays; give the caller a tensor that owns its memory
            g = wrap(g if g.base is None and g.flags.writeable else g.copy())
            by_id[id(t)] = g._data.copy()  # a repeated input gets its own copy
        elif g is not None and g._data.base is not None and not g._data.flags.c_contiguous:
            # a crop or transpose of a bigger gradient (padding, convolution): a recorded copy,
            # so the caller gets contiguous memory as without create_graph (and as PyTorch's
            # gradient penalties expect: they .view() it)
            g = g.clone(memory_format="contiguous_format")
        if g is None and materialize_grads:
            g = wrap(np.zeros_like(t._data))
        result.append(g)
    return tuple(result)
