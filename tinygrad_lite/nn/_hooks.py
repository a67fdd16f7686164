"""The machinery behind module backward hooks: identity nodes around a module's tensors.

``Module.__call__`` passes the module's tensor inputs, and later its tensor outputs, through an
identity node each (PyTorch calls it ``BackwardHookFunctionBackward``). The output node sees the
gradients with respect to the outputs (and runs the backward pre-hooks); the input node, which
runs after every op of the module, sees the gradients with respect to the inputs and runs the
full backward hooks with both. Because the gradients are taken at the module's boundary, ops
inside the module (in-place ones included) cannot change what the hooks see.
"""

from __future__ import annotations

from typing import Any

from .._core.graph import Node
from ..tensor import Tensor


def _as_tensors(grads: tuple) -> tuple:
    return tuple(g if g is None or isinstance(g, Tensor) else Tensor._wrap(g) for g in grads)


def _like_incoming(new: tuple, incoming: tuple, what: str, module: Any) -> tuple:
    """Hook results back in the engine's currency (arrays in a plain backward), checked."""
    if not isinstance(new, (tuple, list)) or len(new) != len(incoming):
        raise RuntimeError(
            f"backward hook of {type(module).__name__} returned {len(new) if isinstance(new, (tuple, list)) else type(new).__name__} "  # noqa: E501
            f"values for {what}, expected a tuple of {len(incoming)}"
        )
    out = []
    for g_new, g_old in zip(new, incoming):
        if g_new is not None and g_old is not None and tuple(g_new.shape) != tuple(g_old.shape):
            raise RuntimeError(
                f"backward hook of {type(module).__name__} returned a gradient of shape "
                f"{tuple(g_new.shape)} for {what}, expected {tuple(g_old.shape)}"
            )
        plain = g_old is not None and not isinstance(g_old, Tensor)
        out.append(g_new._data if plain and isinstance(g_new, Tensor) else g_new)
    return tuple(out)


class BackwardHookFunctionBackward(Node):
    """Identity on several tensors; reports their gradients to the hook state."""

    def backward(self, *grads):
        return self.state.on_grads(self.kind, grads)


class BackwardHookState:
    """Per call of a module: collects grad_output, then fires the hooks with grad_input."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self.n_inputs = 0
        self.has_input_node = False
        self.grad_output: tuple | None = None

    def _wrap(self, tensors: list, kind: str) -> list:
        """Route the tensors that require grad through one identity node."""
        needing = [t for t in tensors if t._requires_grad]
        if not needing:
            return tensors
        node = BackwardHookFunctionBackward(*tensors)
        node.n_outputs = len(tensors)
        node._direct = False  # the engine passes several output gradients
        node.state, node.kind = self, kind
        out = []
        for i, t in enumerate(tensors):
            w = Tensor._wrap(t._data, node if t._requires_grad else None)
            w._version_counter = t._version_counter
            w._output_nr = i
            out.append(w)
        return out

    def wrap_inputs(self, args: tuple) -> tuple:
        """The positional arguments with tensors replaced by identity-node outputs."""
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.n_inputs = len(positions)
        wrapped = self._wrap([args[i] for i in positions], "input")
        self.has_input_node = any(w.grad_fn is not None for w in wrapped)
        new = list(args)
        for i, w in zip(positions, wrapped):
            new[i] = w
        return tuple(new)

    def wrap_outputs(self, output: Any) -> Any:
        """The output (a tensor or a tuple/list of them) through the output identity node."""
        if isinstance(output, Tensor):
            return self._wrap([output], "output")[0]
        if isinstance(output, (tuple, list)):
            positions = [i for i, o in enumerate(output) if isinstance(o, Tensor)]
            wrapped = self._wrap([output[i] for i in positions], "output")
            new = list(output)
            for i, w in zip(positions, wrapped):
                new[i] = w
            return type(output)(new) if isinstance(output, tuple) else new
        return output

    def on_grads(self, kind: str, grads: tuple) -> tuple:
        """Called by the identity nodes in backward (outputs first, then inputs)."""
        pre_hooks, hooks = self.module._backward_hook_lists()
        module = self.module
        if kind == "output":
            for hook in pre_hooks:
                result = hook(module, _as_tensors(grads))
                if result is not None:
                    grads = _like_incoming(tuple(result), grads, "grad_output", module)
            self.grad_output = _as_tensors(grads)
            if not self.has_input_node:  # no input needs a gradient: fire now, as PyTorch does
                for hook in hooks:
                    hook(module, (None,) * max(self.n_inputs, 1), self.grad_output)
            return grads
        grad_output = self.grad_output if self.grad_output is not None else ()
        for hook in hooks:
            result = hook(module, _as_tensors(grads), grad_output)
            if result is not None:
                grads = _like_incoming(tuple(result), grads, "grad_input", module)
        return grads
