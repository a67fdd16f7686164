"""In-place ops: write a result into a tensor's memory, bump its version, and rebase its graph.

An in-place op computes its result out of place, then copies the values into the tensor's own
array (so views sharing that memory see them) and, when the result was recorded, makes the
result's node the tensor's ``grad_fn``: later ops then differentiate through the modification,
as in PyTorch. Nodes that saved the tensor before the change see its version counter move, and
their backward raises instead of silently using the new values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numpy as np

from .. import dtypes
from .._core.grad_mode import grad_state, is_inference_mode_enabled
from .._core.tensor_base import TensorBase
from ..dtypes import is_float_dtype
from .common import require_broadcastable_to, wrap
from .elementwise import cast, where
from .indexing import index_put
from .linalg.inverse import torch_dtype_name as _torch_name
from .movement import (
    expand,
    getitem,
    is_basic_index,
    normalize_index,
    permute,
    put_at,
    reshape,
    scatter_into_zeros,
)

# In-place ops return the tensor they modified: its own type, whatever subclass it is.
_TensorT = TypeVar("_TensorT", bound=TensorBase)

LEAF_ERROR = "a leaf Variable that requires grad is being used in an in-place operation."


def check_writable(self: TensorBase, op: str) -> None:
    """Raise for in-place writes PyTorch refuses: leaves that require grad (outside no_grad)
    and broadcast views whose elements share memory."""
    if grad_state.enabled and self._requires_grad and self.grad_fn is None:
        # PyTorch's text first; an index write goes through a view of the leaf, as there
        message = f"a view of {LEAF_ERROR}" if op == "setitem" else LEAF_ERROR
        raise RuntimeError(f"{message}\n{op}: the leaf has shape {self._data.shape}; wrap the "
                           "update in tinygrad_lite.no_grad() or use an out-of-place op")
    base = _root(self)
    if grad_state.enabled and base is not self and base._requires_grad and base.grad_fn is None:
        raise RuntimeError(f"a view of {LEAF_ERROR}\n{op}: the view has shape "
                           f"{self._data.shape}, its base {base._data.shape}")
    if (self._inference or base._inference) and not is_inference_mode_enabled():
        raise RuntimeError(f"{op}: an in-place update to an inference tensor (made inside "
                           "inference_mode) is not allowed outside inference_mode; clone() it "
                           "to get a normal tensor first")
    if isinstance(self._data, np.generic):
        # NumPy gives some 0-d results as scalars (np.exp of a 0-d array, a mean): read-only
        # objects, not memory; the tensor takes a 0-d array of its own to be written into
        self._data = np.array(self._data)
    if not self._data.flags.writeable or _is_expanded(self):
        if _is_expanded(self) or _from_broadcast(self):
            what = ("a broadcast view (from expand) where several elements share one memory "
                    "location")
        elif getattr(self, "_view_of", None) is not None:
            what = "a view whose elements overlap in memory (unfold or as_strided windows)"
        else:
            what = "read-only memory (a NumPy array that is not writeable)"
        raise RuntimeError(f"{op}: unsupported operation: the tensor of shape "
                           f"{self._data.shape} is {what}; clone() it before writing to it")


def _from_broadcast(t: TensorBase) -> bool:
    """Whether ``t`` is (a view of) a broadcast: a tensor in its chain of views repeats
    elements with a zero stride (a large expand() result)."""
    while True:
        if t._data.size > 1 and 0 in t._data.strides:
            return True
        parent = getattr(t, "_view_of", None)
        if parent is None:
            return False
        t = parent[0]


def _is_expanded(t: TensorBase) -> bool:
    """Whether ``t`` is (a view of) an expand() result: small ones are private copies (see
    ops/movement.py), which must refuse writes exactly as the large read-only views do."""
    while True:
        if t._expanded:
            return True
        parent = getattr(t, "_view_of", None)
        if parent is None:
            return False
        t = parent[0]


def _root(t: TensorBase) -> TensorBase:
    """The tensor that ``t`` is (a chain of) views of, or ``t`` itself."""
    while getattr(t, "_view_of", None) is not None:
        t = t._view_of[0]
    return t


def apply(self: _TensorT, op: str, compute: Callable[[TensorBase], TensorBase]) -> _TensorT:
    """Run ``compute`` on (a stand-in for) ``self`` and store the result in ``self``."""
    check_writable(self, op)
    if grad_state.enabled:
        # The result's node may save its input; give it a private copy of the old values,
        # carrying self's place in the graph, since self's memory is overwritten below.
        source = wrap(self._data.copy())
        source.grad_fn, source._output_nr = self.grad_fn, self._output_nr
        source._requires_grad = self._requires_grad
    else:
        source = wrap(self._data)
    result = compute(source)
    store(self, result, op)
    return self


def store(self: TensorBase, result: TensorBase, op: str) -> None:
    """Copy ``result`` into ``self``'s memory, bump the version and adopt the result's node."""
    if result._data.shape != self._data.shape:
        raise RuntimeError(
            f"{op}: output with shape {self._data.shape} doesn't match the broadcast shape "
            f"{result._data.shape}"
        )
    if result._data.dtype != self._data.dtype:
        if not dtypes.can_cast(result._data.dtype, self._data.dtype):
            raise RuntimeError(
                f"{op}: result type {result.dtype.name} can't be cast to the desired output type "
                f"{self.dtype.name}"
            )
        result = cast(result, self._data.dtype)
    np.copyto(self._data, result._data)
    self._version_counter[0] += 1
    if result.grad_fn is not None:
        if getattr(self, "_view_of", None) is not None:
            result = _rebase_base(self, result)
        self.grad_fn, self._output_nr = result.grad_fn, result._output_nr
        self._requires_grad = True


def _rebase_base(view: TensorBase, result: TensorBase) -> TensorBase:
    """After an in-place op on a view, give the tensor it views a new graph node too (PyTorch's
    CopySlices): the base's gradient is zero in the written region, which instead sends its
    gradient to ``result``. Returns the view's new graph position, read back from the base."""
    steps, base = [], view
    while getattr(base, "_view_of", None) is not None:
        source, kind, arg = base._view_of
        steps.append((kind, arg, source._data.shape))
        base = source
    if base is view or not np.shares_memory(base._data, view._data):
        return result  # the view owns its memory (NumPy copied): nothing else changed

    region = np.ones(view._data.shape, dtype=bool)
    spread = result
    for kind, arg, shape in steps:  # view -> base: the adjoint of each view step
        if kind == "reshape":
            region, spread = region.reshape(shape), reshape(spread, shape)
        elif kind == "permute":
            inverse = tuple(int(i) for i in np.argsort(arg))
            region, spread = region.transpose(inverse), permute(spread, inverse)
        else:
            full = np.zeros(shape, dtype=bool)
            full[arg] = region
            region, spread = full, scatter_into_zeros(spread, arg, shape)
    new_base = where(wrap(region), spread, _graph_alias(base))
    base.grad_fn, base._output_nr, base._requires_grad = new_base.grad_fn, 0, True
    out = new_base
    for kind, arg, _ in reversed(steps):  # base -> view: replay the view on the new base
        out = (reshape(out, arg) if kind == "reshape" else permute(out, arg)
               if kind == "permute" else getitem(out, arg))
    return out


def setitem(self: TensorBase, index, value) -> None:
    """``self[index] = value``: differentiable with respect to a non-leaf ``self`` and ``value``."""
    check_writable(self, "setitem")
    _require_index_put_dtype(self, index, value)
    value_grad = isinstance(value, TensorBase) and value._requires_grad
    if not (grad_state.enabled and (self._requires_grad or value_grad)):
        # the fast path (no graph): NumPy's own assignment, with PyTorch-style errors
        idx = normalize_index(index)
        values = value._data if isinstance(value, TensorBase) else np.asarray(value)
        try:
            put_at(self._data, idx, values)  # PyTorch's integer-first order for mixed indexes
        except IndexError as err:
            raise IndexError(f"setitem: {err} (indexing a tensor of shape "
                             f"{self._data.shape})") from None
        except ValueError:
            raise RuntimeError(
                f"setitem: shape mismatch: value tensor of shape {values.shape} cannot be "
                f"broadcast to indexing result of shape {np.shape(self._data[idx])}"
            ) from None
        self._version_counter[0] += 1
        return
    store(self, index_put(_graph_alias(self), index, value, op="setitem"), "setitem")


def _require_index_put_dtype(self: TensorBase, index, value) -> None:
    """PyTorch writes a tensor through an advanced index with index_put, which does not cast:
    its dtype must be ``self``'s (basic indexes copy with a cast, and a 0-dim value under a
    bool mask is a masked_fill, which casts too)."""
    if not isinstance(value, TensorBase) or value._data.dtype == self._data.dtype:
        return
    idx = normalize_index(index)
    if is_basic_index(idx):
        return
    if value._data.ndim == 0 and any(isinstance(i, np.ndarray) and i.dtype == np.bool_
                                     for i in idx):
        return
    raise RuntimeError(
        f"Index put requires the source and destination dtypes match, got "
        f"{_torch_name(self._data.dtype)} for the destination and "
        f"{_torch_name(value._data.dtype)} for the source.")


def _graph_alias(self: TensorBase) -> TensorBase:
    """A tensor sharing ``self``'s array and place in the graph but not its version counter
    (index_put saves no input values, so no copy is needed)."""
    alias = wrap(self._data)
    alias.grad_fn, alias._output_nr = self.grad_fn, self._output_nr
    alias._requires_grad = self._requires_grad
    return alias


def _all_true(self: TensorBase) -> TensorBase:
    return wrap(np.ones(self._data.shape, dtype=bool))


def fill(self: _TensorT, value, op: str = "fill_") -> _TensorT:
    """``fill_``/``zero_``: every element set to ``value`` (a number or 0-dim tensor; the
    gradient flows to a tensor value, and none to the old contents)."""
    if isinstance(value, TensorBase) and value._data.ndim:
        raise RuntimeError(f"{op}: only supports 0-dimension value tensor but got tensor with "
                           f"{value._data.ndim} dimensions (shape {value._data.shape})")
    value_grad = isinstance(value, TensorBase) and value._requires_grad
    if grad_state.enabled and (self._requires_grad or value_grad):

        return apply(self, op, lambda s: where(_all_true(s), value, s))
    check_writable(self, op)
    if isinstance(value, TensorBase):
        value = value._data.item()
    elif self._data.dtype.kind in "iu" and isinstance(value, int) and not isinstance(value,
                                                                                       bool):
        value = dtypes.checked_int(value, self._data.dtype)  # fill_(-1) on uint8: 255
    self._data.fill(value)
    self._version_counter[0] += 1
    return self


def copy(self: _TensorT, src) -> _TensorT:
    """``copy_``: the values of ``src`` broadcast to ``self``'s shape and converted to its dtype
    (any conversion, as in PyTorch); differentiable with respect to ``src``."""
    src_t = src if isinstance(src, TensorBase) else wrap(np.asarray(src))
    require_broadcastable_to(src_t._data.shape, self._data.shape, "copy_", "source", "destination")
    recording = grad_state.enabled and (self._requires_grad or src_t._requires_grad)
    if recording and is_float_dtype(self._data.dtype):

        def compute(s: TensorBase) -> TensorBase:
            value = cast(src_t, s._data.dtype) if src_t._data.dtype != s._data.dtype else src_t
            return where(_all_true(s), expand(value, s._data.shape), s)

        return apply(self, "copy_", compute)
    check_writable(self, "copy_")
    np.copyto(self._data, src_t._data, casting="unsafe")
    self._version_counter[0] += 1
    return self


def arith(self: _TensorT, op: str, ufunc: np.ufunc, other, compute: Callable) -> _TensorT:
    """add_/sub_/mul_/div_/pow_: NumPy's ``ufunc(self, other, out=self)`` when nothing is
    recorded and no conversion is involved (how optimizers update parameters under no_grad);
    otherwise the general path (``apply``), which also produces the errors."""
    other_data = other._data if isinstance(other, TensorBase) else other
    if ((not grad_state.enabled or not (self._requires_grad or (
            isinstance(other, TensorBase) and other._requires_grad)))
            and is_float_dtype(self._data.dtype) and self._data.flags.writeable
            and not _is_expanded(self)
            and (isinstance(other_data, (int, float)) and not isinstance(other_data, bool)
                 or (isinstance(other_data, np.ndarray)
                     and other_data.dtype == self._data.dtype
                     and other_data.ndim <= self._data.ndim))
            and not (grad_state.enabled and _root(self)._requires_grad)
            and not self._inference):
        try:
            if ufunc is np.divide or ufunc is np.power:  # errstate costs ~3 us: only here
                with np.errstate(divide="ignore", invalid="ignore"):
                    ufunc(self._data, other_data, out=self._data)
            else:
                ufunc(self._data, other_data, out=self._data)
        except ValueError:
            return apply(self, op, compute)  # not broadcastable to self: the general error
        self._version_counter[0] += 1
        return self
    return apply(self, op, compute)
