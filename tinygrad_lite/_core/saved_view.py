"""PyTorch's introspection of what a node saved: ``grad_fn._saved_self``, ``_saved_other``,
``_saved_result`` (and ``_saved_<name>`` for a value the rule keeps, e.g. ``_saved_exponent``),
and ``grad_fn._raw_saved_self.register_hooks(pack, unpack)``, which routes one saved tensor
through pack/unpack hooks (``saved_tensors_hooks`` for a single tensor)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .graph_errors import released_error
from .saved_hooks import Packed
from .tensor_base import TensorBase, wrap

__all__ = ["saved_value", "raw_saved", "SAVED_NAMES"]

# PyTorch's names of the inputs a rule saves, by input position
_POSITIONS = {"self": 0, "input": 0, "mat1": 0, "other": 1, "mat2": 1, "weight": 1, "vec": 1,
              "exponent": 1}
# the names a node answers (``_saved_<name>``, ``_raw_saved_<name>``)
SAVED_NAMES = (*_POSITIONS, "result")


EdgeOf = Callable[[TensorBase], Any]  # graph.edge_of, handed in (graph imports this module)


def _saved_index(node: Any, key: str, edge_of: EdgeOf) -> int | None:
    """Which of the node's saved tensors is the input PyTorch calls ``key``."""
    position = _POSITIONS.get(key)
    saved = node._saved
    if position is None or saved is None or isinstance(saved, Packed):
        return None
    edges = node.next_edges
    wanted = edges[position] if position < len(edges) else None
    if wanted is not None:
        for i, t in enumerate(saved):
            edge = edge_of(t) if t is not None else None
            if edge is not None and edge[0] is wanted[0] and edge[1] == wanted[1]:
                return i
    # an input that needs no gradient has no edge to match: by position, when the rule saved
    # its inputs in order (one per input)
    return position if len(saved) == len(edges) else None


def saved_value(node: Any, key: str, edge_of: EdgeOf) -> Any:
    """``node._saved_<key>``."""
    if node._saved is None:
        raise released_error(node)
    if key == "result" and (node._saved_out is not None
                            or getattr(node._saved, "out", None) is not None):
        out = node.saved_output()
        return out if isinstance(out, TensorBase) else wrap(out)
    index = _saved_index(node, key, edge_of)
    if index is not None:
        found = node._saved[index]
        if key == "exponent" and found.ndim == 0 and not found._requires_grad:
            return found.item()  # pow's Python-number exponent, as PyTorch gives it back
        return found
    if isinstance(node._saved, Packed) and key in _POSITIONS:
        tensors = node._unpacked()
        position = _POSITIONS[key]
        if position < len(tensors):
            found = tensors[position]
            return found if isinstance(found, TensorBase) else wrap(found)
    value = node.__dict__.get(key)
    if value is not None:
        return wrap(value) if isinstance(value, np.ndarray) else value
    raise AttributeError(f"'{node.name()}' object has no attribute '_saved_{key}' (this "
                         f"rule saves no value called {key!r})")


class _RawSaved:
    """One saved tensor of a node, as ``_raw_saved_<name>`` gives it."""

    def __init__(self, node: Any, key: str, edge_of: EdgeOf) -> None:
        self.node, self.key, self.edge_of = node, key, edge_of

    def register_hooks(self, pack_hook: Callable[[Any], Any],
                       unpack_hook: Callable[[Any], Any]) -> None:
        """Pack the tensor now with ``pack_hook``; backward gets ``unpack_hook(packed)``."""
        node = self.node
        if node._saved is None:
            raise released_error(node)
        if self.key == "result":
            out = node.saved_output()
            packed = Packed((lambda t: t, t) if t is not None else None
                            for t in node._saved) if not isinstance(node._saved, Packed) \
                else node._saved
            packed.out = (unpack_hook, pack_hook(out if isinstance(out, TensorBase)
                                                 else wrap(out)))
            node._saved = packed
            return
        index = _saved_index(node, self.key, self.edge_of)
        if index is None:
            raise RuntimeError(f"{node.name()}: no saved tensor called {self.key!r} to "
                               "register hooks on (hooks registered twice, or not saved)")
        entries = [(lambda t: t, t) if t is not None else None for t in node._saved]
        entries[index] = (unpack_hook, pack_hook(node._saved[index]))
        packed = Packed(entries)
        packed.out = None
        node._saved = packed

    def __repr__(self) -> str:
        return f"<SavedTensor {self.key} of {self.node.name()}>"


def raw_saved(node: Any, key: str, edge_of: EdgeOf) -> _RawSaved:
    """``node._raw_saved_<key>``."""
    if key != "result" and _saved_index(node, key, edge_of) is None:
        raise AttributeError(f"'{node.name()}' object has no attribute '_raw_saved_{key}'")
    return _RawSaved(node, key, edge_of)
