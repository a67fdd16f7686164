"""Graph nodes (``grad_fn``), saved-tensor bookkeeping and removable hook handles."""

from __future__ import annotations

import itertools
import operator
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, cast

from .grad_mode import grad_state
from .graph_errors import modified_error, released_error
from .saved_hooks import Packed, hook_state
from .saved_view import SAVED_NAMES, raw_saved, saved_value
from .tensor_base import TensorBase, wrap

__all__ = ["Node", "AccumulateGrad", "RemovableHandle", "RetainGradHook", "trace_node_creation"]

# An edge says where a gradient goes: (node, output index) for a tensor made by an op, or
# (leaf tensor, 0) for a leaf that requires grad, where the engine accumulates into ``.grad``.
Edge = tuple[Any, int]
# What ``save_output`` keeps: (array, version counter, version at save time).
SavedOutput = tuple[Any, list[int], int]

_data_of = operator.attrgetter("_data")

def edge_of(t: TensorBase) -> Edge | None:
    """The edge that carries the gradient of ``t`` back into the graph, or None if it needs none."""
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    return (t, 0) if t._requires_grad else None


class Node:
    """One recorded op: where its input gradients go, what it saved, and its backward rule.

    Subclasses implement ``backward(*grad_outputs) -> tuple`` with one entry per input (None where
    an input needs no gradient). A built-in rule is written once, in operators and the helpers of
    ``ops.common``: the engine runs it on NumPy arrays in a plain backward (no wrappers, nothing
    recorded) and on Tensors under ``create_graph=True``, where it is recorded and can be
    differentiated again. Nodes with ``takes_arrays = False`` (custom Functions) always get
    Tensors. Nodes never hold their output tensors, only arrays, so a graph has no reference
    cycles and is freed by reference counting alone.
    """

    next_edges: tuple[Edge | None, ...]  # one per input: where its gradient goes (see edge_of)

    # Class-level defaults: a node only stores what differs, which keeps recording an op cheap.
    n_outputs = 1
    takes_arrays = True
    _saved: tuple | None = ()
    _saved_versions: Sequence[int] = ()
    _saved_out: SavedOutput | None = None
    # True while the engine may call ``backward(grad)`` straight away: one output, built-in
    # (array) rule, no tensor hooks. Everything else goes through the engine's slower path.
    _direct = True
    _tensor_hooks: dict[int, OrderedDict] | None = None
    _node_hooks: tuple[OrderedDict, OrderedDict] | None = None  # (pre-hooks, post-hooks)
    _creation_trace: list | None = None  # set only in anomaly mode (see anomaly.py)

    def __init__(self, *inputs: TensorBase) -> None:
        edges = []
        for t in inputs:  # edge_of, inlined: this runs once per recorded op
            fn = t.grad_fn
            edges.append((fn, t._output_nr) if fn is not None else (t, 0) if t._requires_grad
                         else None)
        self.next_edges = tuple(edges)

    # -- saved tensors -------------------------------------------------------------------------
    def save_for_backward(self, *tensors: TensorBase) -> None:
        """Keep tensors for backward, with their versions so later in-place changes are caught;
        inside ``saved_tensors_hooks``, keep what its pack hook makes of them instead."""
        if hook_state.stack:
            stack = hook_state.stack
            pack, unpack = stack[-1]
            out = self._saved.out if isinstance(self._saved, Packed) else None
            # the hooks are off while the pack hook runs, as in PyTorch: a pack hook that
            # computes on the tensor (t * 4) saves its own inputs plainly, not through itself
            hook_state.stack = ()
            try:
                self._saved = Packed((unpack, pack(t)) if t is not None else None
                                     for t in tensors)
            finally:
                hook_state.stack = stack
            self._saved.out = out
            return
        self._saved = tensors
        versions: list[int] = []
        for t in tensors:
            versions.append(t._version_counter[0])
        self._saved_versions = versions

    def _unpacked(self) -> tuple:
        """The saved tensors brought back by their unpack hooks (arrays in a plain backward)."""
        assert isinstance(self._saved, Packed)
        tensors = tuple(None if p is None else p[0](p[1]) for p in self._saved)
        if self.takes_arrays and not grad_state.enabled:
            return tuple(None if t is None else t._data for t in tensors)
        return tensors

    @property
    def saved_tensors(self) -> tuple:
        """The saved tensors (their arrays during a plain backward of a built-in node); raises if
        backward already freed them or one was modified in place."""
        if self._saved is None:  # released by backward
            raise released_error(self)
        saved = self._saved
        if type(saved) is Packed:
            return self._unpacked()
        versions = self._saved_versions
        for i, t in enumerate(saved):
            if t is not None and t._version_counter[0] != versions[i]:
                raise modified_error(
                    self, t._data, None if t.grad_fn is None else (t.grad_fn, t._output_nr),
                    versions[i], t._version_counter[0],
                    f"one of the tensors it saved for backward (saved tensor {i}, shape "
                    f"{tuple(t.shape)}, dtype {t.dtype})")
        if self.takes_arrays and not grad_state.enabled:
            return tuple(map(_data_of, saved))
        return saved

    def save_output(self, out: TensorBase) -> None:
        """Keep this op's own output for backward (exp, relu, ...) without a reference cycle.

        Holding the output tensor would make ``out -> grad_fn -> out`` a cycle that only the
        cyclic GC frees; the node keeps the array and the version counter instead.
        """
        if hook_state.stack:  # the pack hook gets a plain tensor: no reference cycle
            pack, unpack = hook_state.stack[-1]
            if not isinstance(self._saved, Packed):
                self._saved = Packed()
            self._saved.out = (unpack, pack(wrap(out._data)))
            return
        self._saved_out = (out._data, out._version_counter, out._version_counter[0])

    def saved_output(self) -> Any:
        """The saved output: its array during a plain backward, else a tensor that (under
        ``create_graph``) is differentiable through this node."""
        if self._saved is None:  # released by backward
            raise released_error(self)
        packed_out = getattr(self._saved, "out", None)
        if packed_out is not None:  # saved under saved_tensors_hooks
            data = packed_out[0](packed_out[1])._data
            if self.takes_arrays and not grad_state.enabled:
                return data
            return wrap(data, self if grad_state.enabled else None)
        # set by save_output, which an op calls whenever its rule uses saved_output
        data, counter, version = cast(SavedOutput, self._saved_out)
        if counter[0] != version:
            # PyTorch names the node that made the output; which output is not kept here
            raise modified_error(self, data, (self, 0) if self.n_outputs == 1 else None,
                                 version, counter[0], f"its output, saved for backward (shape "
                                 f"{data.shape}, dtype {data.dtype}),")
        if self.takes_arrays and not grad_state.enabled:
            return data
        # attached to this node while a graph is recorded, so higher-order gradients flow
        t = wrap(data, self if grad_state.enabled else None)
        t._version_counter = counter
        return t

    @property
    def _released(self) -> bool:
        """Whether backward has freed what this node saved (the engine sets ``_saved`` and
        ``_saved_out`` to None after running it, unless ``retain_graph``)."""
        return self._saved is None

    # -- introspection, PyTorch style ----------------------------------------------------------
    def _where(self) -> str:
        """For error messages: where the user's code created this node, or how to find out.

        Recording the location on every node costs ~20% of a small op's time (measured on
        ``((a*b)+c).relu().sum()`` at 8x8), so only anomaly mode records it.
        """
        trace = self._creation_trace
        if trace is None:
            return (" (run under tl.autograd.detect_anomaly() to see where in your code this op "
                    "was created)")
        filename, lineno, func, line = trace[-1]
        return f"\n  {self.name()} was created at {filename}:{lineno}, in {func}: {line}"

    def name(self) -> str:
        """The op's name as PyTorch prints it, e.g. ``MulBackward0``."""
        return type(self).__name__

    @classmethod
    def rename(cls, result: TensorBase) -> TensorBase:
        """``result`` with its node shown as ``cls``, PyTorch's name for a composite recorded as
        one node of ``cls``'s base with the same rule (``sqrt`` as pow's: ``SqrtBackward0``).
        Any other node (the composite took another path) is left as it is. Only for a node
        the composite's own last op made, never an input's."""
        node = result.grad_fn
        if node is not None and isinstance(node, cls.__bases__) \
                and getattr(type(node), "backward", None) is getattr(cls, "backward", None):
            node.__class__ = cls
        return result

    @property
    def next_functions(self) -> tuple:
        """``((node_or_AccumulateGrad_or_None, output_nr), ...)``, one pair per input."""
        out: list[tuple[Any, int]] = []
        for edge in self.next_edges:
            if edge is None:
                out.append((None, 0))
            elif isinstance(edge[0], Node):
                out.append(edge)
            else:
                out.append((AccumulateGrad(edge[0]), 0))
        return tuple(out)

    def register_tensor_hook(self, output_nr: int, hook: Callable) -> RemovableHandle:
        """Run ``hook(grad)`` when the gradient of output ``output_nr`` is complete."""
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
            self._direct = False
        hooks = self._tensor_hooks.setdefault(output_nr, OrderedDict())
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def _hooks_dicts(self) -> tuple[OrderedDict, OrderedDict]:
        if self._node_hooks is None:
            self._node_hooks = (OrderedDict(), OrderedDict())
            self._direct = False
        return self._node_hooks

    def register_prehook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(grad_outputs)`` before this node's backward (after the hooks of its output
        tensors); a tuple it returns replaces ``grad_outputs``. Gradients are Tensors (None
        for an output that received none)."""
        hooks = self._hooks_dicts()[0]
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def register_hook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(grad_inputs, grad_outputs)`` after this node's backward: ``grad_inputs``
        are the gradients it computed for its inputs; a tuple the hook returns replaces them."""
        hooks = self._hooks_dicts()[1]
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def backward(self, *grad_outputs: Any) -> tuple:
        """Gradients with respect to the inputs, given gradients with respect to the outputs
        (arrays in a plain backward, Tensors under create_graph; None for an output of a
        several-output node that received no gradient)."""
        raise NotImplementedError(f"{self.name()} has no backward rule")

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"


# PyTorch's saved-value introspection (``grad_fn._saved_self``, ``_raw_saved_other``, ...) as
# properties: a ``__getattr__`` would slow every attribute read of every node (the engine's too)
def _saved_property(read: Callable[[Any, str, Callable], Any], key: str, name: str) -> property:
    def get(node: Node) -> Any:
        return read(node, key, edge_of)

    return property(get, doc=f"PyTorch's ``{name}``.")


for _key in SAVED_NAMES:
    setattr(Node, f"_saved_{_key}", _saved_property(saved_value, _key, f"_saved_{_key}"))
    setattr(Node, f"_raw_saved_{_key}", _saved_property(raw_saved, _key, f"_raw_saved_{_key}"))


class AccumulateGrad:
    """What ``next_functions`` shows for a leaf: the node accumulating into ``variable.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable: TensorBase) -> None:
        self.variable = variable

    def name(self) -> str:
        """Always ``AccumulateGrad``."""
        return "AccumulateGrad"

    @property
    def next_functions(self) -> tuple:
        """A leaf has no inputs."""
        return ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AccumulateGrad) and other.variable is self.variable

    def __hash__(self) -> int:
        return id(self.variable)

    def __repr__(self) -> str:
        return f"<AccumulateGrad for tensor of shape {tuple(self.variable.shape)}>"


class RemovableHandle:
    """Returned by every ``register_*hook``: ``remove()`` unregisters it (idempotent); also a
    context manager that removes the hook on exit."""

    _ids = itertools.count()

    def __init__(self, hooks_dict: dict, *, extra_dict: Any = None) -> None:
        self.id = next(RemovableHandle._ids)
        self._hooks_ref = weakref.ref(hooks_dict)
        # other dicts keyed by the same id (e.g. the hook's options), cleaned up with it
        extra = [] if extra_dict is None else \
            [extra_dict] if isinstance(extra_dict, dict) else list(extra_dict)
        self._extra_refs = [weakref.ref(d) for d in extra]

    def remove(self) -> None:
        """Unregister the hook; calling it again does nothing."""
        for ref in (self._hooks_ref, *self._extra_refs):
            hooks = ref()
            if hooks is not None:
                hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


class RetainGradHook:
    """The hook behind ``retain_grad()``: stores the gradient on the tensor while it is alive.

    It holds a weak reference, so the graph never keeps the tensor alive (no cycle through the
    node that produced it). Runs after the tensor's other hooks, as in PyTorch.
    """

    __slots__ = ("ref",)

    def __init__(self, t: TensorBase) -> None:
        self.ref = weakref.ref(t)

    def __call__(self, grad: TensorBase) -> None:
        t = self.ref()
        if t is None:
            return
        if t._grad is None:
            # Under create_graph keep the graph-connected gradient; otherwise a private copy.
            t._grad = grad if grad_state.enabled else type(grad)._wrap(grad._data.copy())
        else:
            t._grad = t._grad + grad


_plain_node_init = Node.__init__


def trace_node_creation(record: Callable[[Node], None] | None) -> None:
    """Call ``record(node)`` on every node created from now on (anomaly mode uses it to note
    where the user's code made each op); ``None`` turns it off. Swapping ``Node.__init__`` in and
    out keeps node creation untouched while no one is tracing."""
    if record is None:
        Node.__init__ = _plain_node_init  # type: ignore[method-assign]
        return

    def traced_init(self: Node, *inputs: TensorBase) -> None:
        _plain_node_init(self, *inputs)
        record(self)

    Node.__init__ = traced_init  # type: ignore[method-assign]
