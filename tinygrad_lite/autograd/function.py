"""Custom differentiable ops: ``tl.autograd.Function``, as ``torch.autograd.Function``.

A subclass defines ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)`` as static methods
and is called through ``apply``. The ``ctx`` *is* the graph node: each Function class gets a Node
subclass named after it (``MyExp`` -> ``MyExpBackward``, as PyTorch names it), so ``grad_fn``,
``next_functions`` and drawings show the custom op like any built-in one. Unlike built-in nodes,
these always receive Tensors (``takes_arrays = False``); under ``create_graph=True`` grad mode is
on while ``backward`` runs, so a backward written in tensor ops can be differentiated again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .._core import grad_mode as _grad_mode
from .._core.grad_mode import no_grad
from .._core.graph import Edge, Node
from .._core.warnings import warn
from ..ops.common import _DelayedErrorBackward  # one stand-in for every NumPy-only backward
from ..tensor import Tensor
from . import anomaly as _anomaly
from . import forward_ad as _forward_ad

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]



def _check_saveable(tensors: tuple, method: str) -> None:
    """Only tensors (or None) can be saved on a ctx."""
    for i, t in enumerate(tensors):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"{method} can only save variables, but argument {i} is of type "
                            f"{type(t).__name__}")


class BackwardCFunction(Node):
    """The node (and ``ctx``) of a custom Function call; PyTorch's name for it.

    Besides the Node machinery it offers the ctx API: ``save_for_backward``/``saved_tensors``
    (version-checked), ``needs_input_grad``, ``mark_dirty``, ``mark_non_differentiable``,
    ``set_materialize_grads``; any other attribute may be set freely.
    """

    takes_arrays = False
    _direct = False
    _forward_cls: type[Function]
    _materialize_grads = True
    _dirty: tuple = ()
    _non_differentiable: tuple = ()
    _saved_as_output: dict[int, int] | None = None  # saved index -> output index
    _saved_for_forward: tuple = ()
    _in_jvp = False  # while the Function's jvp runs, saved_tensors are save_for_forward's
    # (shape, dtype) of each argument / output that is a tensor, None for the others
    _input_meta: tuple[tuple[tuple[int, ...], np.dtype] | None, ...]
    _output_meta: tuple[tuple[tuple[int, ...], np.dtype] | None, ...]  # set by _connect

    def __init__(self, args: tuple) -> None:
        tensor = Tensor
        edges: list[Edge | None] = []
        needs: list[bool] = []
        recording = _grad_mode.grad_state.enabled
        for a in args:
            if isinstance(a, tensor) and a._requires_grad and recording:
                edges.append((a.grad_fn, a._output_nr) if a.grad_fn is not None else (a, 0))
                needs.append(True)
            else:
                edges.append(None)
                needs.append(False)
        self.next_edges = tuple(edges)
        self.needs_input_grad = tuple(needs)
        self._input_meta = tuple((a._data.shape, a._data.dtype) if isinstance(a, tensor) else None
                                 for a in args)

    # -- the ctx API ---------------------------------------------------------------------------
    def save_for_backward(self, *tensors: Any) -> None:
        """Keep tensors (or None) for backward, with their versions to catch in-place changes."""
        _check_saveable(tensors, "save_for_backward")
        self._saved = tensors
        self._saved_versions = [0 if t is None else t._version_counter[0] for t in tensors]

    def save_for_forward(self, *tensors: Any) -> None:
        """Keep tensors (or None) for ``jvp``, where ``saved_tensors`` returns them."""
        _check_saveable(tensors, "save_for_forward")
        self._saved_for_forward = tensors

    def mark_dirty(self, *tensors: Any) -> None:
        """Declare input tensors that ``forward`` modified in place (call inside forward)."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Any) -> None:
        """Declare outputs that are not differentiable (indices, masks): they won't require
        grad, and their gradient in backward is zeros (or None without materialized grads)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Whether None output gradients reach ``backward`` as zeros (default True) or None."""
        self._materialize_grads = bool(value)

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to ``save_for_backward``; a saved output is, under create_graph,
        connected to this node so that double backward flows through it."""
        if self._in_jvp:
            return tuple(self._saved_for_forward)
        saved = super().saved_tensors  # the release and version checks
        if not self._saved_as_output or not _grad_mode.grad_state.enabled:
            return saved
        tensors = list(saved)
        wrap = Tensor._wrap
        for i, nr in self._saved_as_output.items():
            t = wrap(tensors[i]._data, self)
            t._output_nr = nr
            t._version_counter = tensors[i]._version_counter
            tensors[i] = t
        return tuple(tensors)

    @property
    def saved_variables(self) -> tuple:
        """Old PyTorch name of ``saved_tensors``."""
        return self.saved_tensors

    # -- backward --------------------------------------------------------------------------------
    def backward(self, *grad_outputs: Any) -> tuple:
        """Run the Function's ``backward`` on this ctx and check what it returned."""
        cls = self._forward_cls
        if self._materialize_grads:
            grad_outputs = tuple(
                g if g is not None or meta is None else Tensor._wrap(np.zeros(*meta))
                for g, meta in zip(grad_outputs, self._output_meta))
        result = cls.backward(self, *grad_outputs)
        if not isinstance(result, tuple):
            result = (result,)
        n_in = len(self.next_edges)
        if len(result) < n_in or any(g is not None for g in result[n_in:]):
            raise RuntimeError(  # PyTorch's text, then what to return and where
                f"function {self.name()} returned an incorrect number of gradients (expected "
                f"{n_in}, got {len(result)}): return one per argument of forward, None for "
                f"arguments that need no gradient{self._where()}")
        return tuple(self._check_grad(i, g) for i, g in enumerate(result[:n_in]))

    def _check_grad(self, i: int, grad: Any) -> Any:
        """The gradient for input ``i`` as a tensor of the input's shape and dtype (or None)."""
        if grad is None or self.next_edges[i] is None:
            meta = self._input_meta[i]
            if grad is not None and meta is None:
                raise RuntimeError(
                    f"function {self._forward_cls.__name__}.backward returned a gradient "
                    f"different than None at position {i}, but the corresponding forward input "
                    f"was not a Tensor{self._where()}"
                )
            return None
        tensor = Tensor
        if not isinstance(grad, tensor):
            if not isinstance(grad, np.ndarray):  # (arrays are taken, a convenience of ours)
                raise RuntimeError(f"expected Variable or None (got {type(grad).__name__})")
            grad = tensor._wrap(grad)
        meta = self._input_meta[i]
        assert meta is not None  # the input has an edge, so it is a tensor
        shape, dtype = meta
        got = grad._data.shape  # a broadcast gradient is summed back to the input's shape
        if got != shape:  # (PyTorch's validate_outputs, is_expandable_to); others are errors
            if len(shape) > len(got) or any(a not in (b, 1) for a, b in zip(shape[::-1],
                                                                             got[::-1])):
                raise RuntimeError(
                    f"Function {self.name()} returned an invalid gradient at index {i} - got "
                    f"{list(got)} but expected shape compatible with {list(shape)} (the shape "
                    f"of input {i}){self._where()}")
            grad = grad.sum_to_size(shape)
        return grad if grad._data.dtype == dtype else grad.to(dtype)


# A ctx for code that spells it the PyTorch way (``def forward(ctx: FunctionCtx, ...)``).
FunctionCtx = BackwardCFunction


class Function:
    """Base class of custom differentiable ops; see the module docstring.

    Example::

        class MyExp(tl.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, grad):
                (y,) = ctx.saved_tensors
                return grad * y

        MyExp.apply(x)
    """

    _backward_cls: type[BackwardCFunction] = BackwardCFunction
    # PyTorch's switch for deriving a vmap rule from forward/setup_context (see ``vmap``)
    generate_vmap_rule = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all "
             "static, so you should invoke them on the class itself. Instantiating an autograd "
             "function will raise an error in a future version of PyTorch.", DeprecationWarning)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # What PyTorch's metaclass does: the node class of this Function, named <Name>Backward.
        cls._backward_cls = type(f"{cls.__name__}Backward", (BackwardCFunction,),
                                 {"_forward_cls": cls, "__module__": cls.__module__})

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        """Compute the outputs from the inputs (Tensors are given without a graph)."""
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        """Optional: fill ``ctx`` here instead of in ``forward`` (then forward takes no ctx)."""
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """Gradients with respect to each forward argument (None for non-tensors)."""
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD.")

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """Optional, for forward-mode AD: the outputs' tangents from the inputs' tangents.
        Used when the Function has no ``backward``; otherwise forward mode goes through
        ``backward`` (see ``forward_ad``)."""
        raise NotImplementedError("a Function subclass must implement jvp(ctx, *tangents) to "
                                  "be used with forward-mode AD")

    @staticmethod
    def vmap(info: Any, in_dims: Any, *args: Any) -> Any:
        """Optional: the Function's batching rule under ``vmap`` (PyTorch's signature)."""
        raise NotImplementedError("To use autograd.Function with vmap, you must either override "
                                  "the vmap staticmethod or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` and, if any tensor argument requires grad, record one graph node."""
        if cls is Function:
            raise RuntimeError("apply must be called on a subclass of Function")
        ctx = cls._backward_cls(args)
        if _anomaly._state.enabled:
            _anomaly.record_creation(ctx)
        separate = cls.setup_context is not Function.setup_context
        with no_grad():
            if separate:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        if cls.backward is Function.backward and cls.jvp is not Function.jvp and \
                _forward_ad.has_tangents(args):
            return _push_tangents(cls, ctx, args, outputs)
        if not any(ctx.needs_input_grad):
            for t in ctx._dirty:
                t._version_counter[0] += 1
            return outputs
        return _connect(ctx, outputs)


def _push_tangents(cls: type[Function], ctx: BackwardCFunction, args: tuple,
                   outputs: Any) -> Any:
    """Forward-mode AD through a Function with ``jvp`` and no ``backward``: its outputs become
    dual tensors of the open level, their tangents ``jvp`` of the arguments' tangents (no
    reverse-mode graph goes through it, as it has no backward)."""
    tangents = [(_forward_ad.tangent_or_zeros(a) if isinstance(a, Tensor) else None)
                for a in args]
    ctx._in_jvp = True
    try:
        with no_grad():
            pushed = cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
    single = not isinstance(outputs, tuple)
    outs = (outputs,) if single else outputs
    pushed = (pushed,) if not isinstance(pushed, tuple) else pushed
    if len(pushed) != len(outs):
        raise RuntimeError(f"function {cls.__name__}.jvp returned an incorrect number of "
                           f"tangents (expected {len(outs)}, got {len(pushed)})")
    result = tuple(_forward_ad.as_dual(o, t) if isinstance(o, Tensor) and t is not None else o
                   for o, t in zip(outs, pushed))
    return result[0] if single else result


def _connect(ctx: BackwardCFunction, outputs: Any) -> Any:
    """Attach the forward's outputs to ``ctx``: fresh tensors sharing their data, except dirty
    (in-place modified) inputs, which are themselves rebased onto the node, as in PyTorch."""
    tensor = Tensor
    single = not isinstance(outputs, tuple)
    outs = (outputs,) if single else outputs
    dirty = {id(t) for t in ctx._dirty}
    non_diff = {id(t) for t in ctx._non_differentiable}
    saved = {id(t): i for i, t in enumerate(ctx._saved or ())}
    ctx.n_outputs = len(outs)
    ctx._output_meta = tuple((o._data.shape, o._data.dtype) if isinstance(o, tensor) else None
                             for o in outs)
    result = []
    for nr, out in enumerate(outs):
        if not isinstance(out, tensor):
            result.append(out)
            continue
        if id(out) in non_diff:
            result.append(out)
            continue
        if id(out) in dirty:
            if out.grad_fn is None and out._requires_grad:
                raise RuntimeError(
                    f"{type(ctx).__name__}: a leaf Variable that requires grad (shape "
                    f"{out._data.shape}) is being used in an in-place operation (mark_dirty)"
                )
            out._version_counter[0] += 1
            new = out
        else:
            new = tensor._wrap(out._data)
            new._version_counter = out._version_counter
        new.grad_fn, new._requires_grad, new._output_nr = ctx, True, nr
        if id(out) in saved:  # saved outputs reconnect to this node when unpacked under grad
            if ctx._saved_as_output is None:
                ctx._saved_as_output = {}
            ctx._saved_as_output[saved[id(out)]] = nr
            if new is out:
                raise RuntimeError(
                    f"{type(ctx).__name__}: saving a dirty (in-place modified) output for "
                    "backward is not supported; save the input before modifying it instead"
                )
        result.append(new)
    for t in ctx._dirty:
        if not any(t is o for o in outs):
            raise RuntimeError(
                f"{type(ctx).__name__}: a tensor passed to mark_dirty() must be returned by "
                "forward as an output"
            )
    return result[0] if single else tuple(result)


def once_differentiable(fn: Callable) -> Callable:
    """Decorate a Function's ``backward`` that is not differentiable itself (e.g. it works on
    NumPy arrays): it runs without recording, and a second differentiation raises."""

    @functools.wraps(fn)
    def wrapper(ctx: Any, *grads: Any) -> Any:
        with no_grad():
            result = fn(ctx, *grads)
        tensor = Tensor
        if not _grad_mode.grad_state.enabled:
            return result
        sources = [g for g in grads if isinstance(g, tensor)]
        sources += [t for t in ctx._saved or () if t is not None]
        if not any(t._requires_grad for t in sources):
            return result
        single = not isinstance(result, tuple)
        outs = (result,) if single else result
        node = _DelayedErrorBackward(*sources)
        node.fn_name = f"{getattr(ctx, '_forward_cls', type(ctx)).__name__}.backward"
        node.n_outputs = len(outs)
        node._direct = node.n_outputs == 1
        wrapped = []
        for nr, g in enumerate(outs):
            if isinstance(g, tensor):
                g = tensor._wrap(g._data, node)
                g._output_nr = nr
            wrapped.append(g)
        return wrapped[0] if single else tuple(wrapped)

    return wrapper
