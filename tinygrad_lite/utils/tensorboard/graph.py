"""``SummaryWriter.add_graph``: a model's recorded autograd graph as a TensorBoard GraphDef.

PyTorch traces the model with TorchScript; here the model runs once (gradients on, nothing is
kept) and the graph that autograd recorded is what TensorBoard's Graphs tab shows: one node per
recorded op (``AddmmBackward0`` shows as ``Addmm``), its inputs the ops that made them, the
parameters and the model's inputs as their own nodes. Ops are named into the scope of the module
that produced them (``Sequential/Linear[0]/Addmm``), so the tab folds each module into a box.
A module's scope goes to the op that made its output and to every op only that output depends
on within the module; ops of the parent in between keep the parent's scope.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..._core.grad_mode import enable_grad
from ..._core.tensor_base import TensorBase
from ...nn.modules._hooks import register_module_forward_hook

__all__ = ["graph_def"]


def _tensors(value: Any) -> list:
    """The tensors in a module's output (tuples, lists and dicts of them too)."""
    if isinstance(value, TensorBase):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    return []


def _scoped_names(model: Any) -> dict[int, str]:
    """id(module) -> its scope path, PyTorch's style: ``Net/Linear[fc1]``."""
    root = type(model).__name__
    paths = {id(model): root}
    for name, module in model.named_modules():
        if name:
            parent = paths.get(id(_parent_of(model, name)), root)
            paths[id(module)] = f"{parent}/{type(module).__name__}[{name.rsplit('.', 1)[-1]}]"
    return paths


def _parent_of(model: Any, dotted: str) -> Any:
    module = model
    for part in dotted.split(".")[:-1]:
        module = getattr(module, part)
    return module


def _run(model: Any, inputs: tuple) -> tuple[list, dict[int, str]]:
    """Run the model once, noting which module produced each output node."""
    paths = _scoped_names(model)
    made_by: dict[int, str] = {}

    def note(module: Any, args: Any, output: Any) -> None:
        for t in _tensors(output):
            if t.grad_fn is not None and id(module) in paths:
                made_by.setdefault(id(t.grad_fn), paths[id(module)])  # innermost first

    handle = register_module_forward_hook(note)
    try:
        with enable_grad():
            outputs = _tensors(model(*inputs))
    finally:
        handle.remove()
    return outputs, made_by


def graph_def(model: Any, input_to_model: Any, graph_pb2: Any, node_def_pb2: Any,
              attr_value_pb2: Any, tensor_shape_pb2: Any) -> Any:
    """The GraphDef of ``model`` run on ``input_to_model`` (a tensor or a tuple of them)."""
    inputs = input_to_model if isinstance(input_to_model, (tuple, list)) else (input_to_model,)
    # floating inputs run as copies that require grad, so the graph records where they enter
    inputs = tuple(t.detach().requires_grad_(True)
                   if isinstance(t, TensorBase) and t.is_floating_point() else t
                   for t in (inputs if input_to_model is not None else ()))
    outputs, made_by = _run(model, inputs)
    root = type(model).__name__
    param_names = {id(p): n for n, p in model.named_parameters()}
    input_ids = {id(t): i for i, t in enumerate(inputs) if isinstance(t, TensorBase)}
    graph = graph_pb2.GraphDef()
    names: dict[int, str] = {}  # id(node or leaf) -> node name in the GraphDef
    counts: dict[str, int] = {}

    def shape_attr(shape: tuple) -> Any:
        dims = [tensor_shape_pb2.TensorShapeProto.Dim(size=int(s)) for s in shape]
        proto = tensor_shape_pb2.TensorShapeProto(dim=dims)
        return attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(shape=[proto]))

    def add(name: str, op: str, shape: tuple | None, sources: list[str]) -> str:
        counts[name] = counts.get(name, 0) + 1
        unique = name if counts[name] == 1 else f"{name}_{counts[name] - 1}"
        node = node_def_pb2.NodeDef(name=unique, op=op, input=sources)
        if shape is not None:
            node.attr["_output_shapes"].CopyFrom(shape_attr(shape))
        graph.node.append(node)
        return unique

    def leaf_name(t: TensorBase) -> str:
        if id(t) not in names:
            if id(t) in param_names:
                dotted = param_names[id(t)]
                names[id(t)] = add(f"{root}/{dotted}", "Parameter", tuple(t.shape), [])
            else:
                index = input_ids.get(id(t))
                label = f"input/input.{index}" if index is not None else "input/tensor"
                names[id(t)] = add(label, "IO Node", tuple(t.shape), [])
        return names[id(t)]

    # every op node, reached from the outputs; a node's scope is the module that produced it,
    # else the scope of the op that consumes it (ops inside a module feed its output). The
    # order is a depth-first post-order: producers before their consumers
    order: list = []
    scope: dict[int, str] = {}
    stack = [(t.grad_fn, made_by.get(id(t.grad_fn), root), False) for t in outputs
             if t.grad_fn is not None]
    seen: set[int] = set()
    while stack:
        node, inherited, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        scope[id(node)] = made_by.get(id(node), inherited)
        stack.append((node, inherited, True))
        for edge in node.next_edges:
            if edge is not None and not isinstance(edge[0], TensorBase) and \
                    id(edge[0]) not in seen:
                stack.append((edge[0], scope[id(node)], False))
    for node in order:
        sources = []
        for edge in node.next_edges:
            if edge is None:
                continue
            producer = edge[0]
            sources.append(leaf_name(producer) if isinstance(producer, TensorBase)
                           else names.get(id(producer), ""))
        op = re.sub(r"Backward\d*$", "", type(node).__name__)  # SumBackward1 -> Sum
        out = node._saved_out[0] if node._saved_out is not None else None
        shape = tuple(np.shape(out)) if out is not None else None
        names[id(node)] = add(f"{scope[id(node)]}/{op}", op, shape, [s for s in sources if s])
    for i, t in enumerate(outputs):
        if t.grad_fn is not None:
            add(f"output/output.{i}", "IO Node", tuple(t.shape), [names[id(t.grad_fn)]])
    return graph
