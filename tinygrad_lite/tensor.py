"""The public Tensor: the state of ``TensorBase`` plus its methods and operators.

Most methods are the ``tl.*`` functions themselves, bound by name from
``functions.TENSOR_METHODS`` at the end of this module (``x.exp()`` is ``tl.exp(x)``). Written
out here: conversion (``to``), autograd (``backward``, hooks, ``.grad``, ``.data``), the
arithmetic operators, and the few methods whose arguments differ from their function's
(``x.view(2, 3)``, ``x.T``, ...). The rest of the surface is bound from the ``_tensor`` package,
one module per concept (types, creation, random filling, shape, layout, devices, operators,
pickling, autograd state, callables, linalg, storage, DLPack), in one loop at the end.

Types: the ops and functions below this module cannot import ``Tensor``, so they declare their
results as ``TensorBase``, and so do the methods here that return such a result; at runtime each
is a ``Tensor`` (``register_result_type``, at the end of this module). Methods returning ``self``
(``cpu()``, the in-place operators) or a tensor wrapped here (``detach()``, ``.data``) say
``Tensor``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from . import dtypes, functions, ops
from ._core.array_conversion import to_array
from ._core.backward import backward, ones_seed
from ._core.device import CPU, META, check_device, device, is_meta_array, meta_array, wants_meta
from ._core.engine import run_backward
from ._core.grad_mode import grad_state
from ._core.graph import RemovableHandle, RetainGradHook
from ._core.memory_format import format_name, is_in_format
from ._core.shared_storage import is_shared_array, share_array
from ._core.size import Size, sizes_or_keyword
from ._core.tensor_base import TensorBase, grad_dtype_np, register_result_type, wrap
from ._core.tracing import report_graph_break, tracing_state
from ._core.warnings import warn, warn_once
from ._tensor import (
    autograd,
    callables,
    creation,
    devices,
    dlpack,
    layout,
    linalg,
    operators,
    pickling,
    random,
    shape,
    storage,
    types,
)
from ._tensor.format import format_tensor
from .ops.linalg.inverse import torch_dtype_name

__all__ = ["Tensor"]


class Tensor(TensorBase):
    """An n-dimensional array that records the operations applied to it, for automatic
    differentiation. ``Tensor(data)`` makes a float32 tensor, like ``torch.Tensor``; use
    ``tinygrad_lite.tensor(data)`` to infer the dtype from the data."""

    # named where users reach it, as PyTorch's prints <class 'torch.Tensor'> (also its pickle
    # name; files naming the defining module still load)
    __module__ = "tinygrad_lite"

    def __init__(self, *data: Any, dtype: Any = None, requires_grad: bool = False,
                 device: Any = None) -> None:
        check_device(device, "Tensor")
        if data and all(isinstance(n, (int, np.integer)) and not isinstance(n, bool)
                        for n in data):  # Tensor(2, 3): sizes (zero-filled, not uninitialised)
            self._data = np.zeros(tuple(int(n) for n in data),
                                  dtypes.to_dtype(dtype).np if dtype is not None
                                  else dtypes.get_default_dtype().np)
        else:
            if len(data) > 1:
                raise TypeError("Tensor(): expected sizes (ints) or one data argument, got "
                                f"{len(data)} arguments")
            self._data = to_array(data[0] if data else [], dtype, float_default=True)
        self._version_counter = [0]
        if requires_grad:
            self.requires_grad_(True)

    # -- basic attributes ----------------------------------------------------------------------
    @property
    def data(self) -> Tensor:
        """The values as a new tensor outside the graph, as in PyTorch: it shares memory with
        this one and does not require grad, and its in-place changes are neither recorded nor
        counted in this tensor's version (so autograd cannot catch them; prefer ``detach()``).
        Assigning ``t.data = other`` swaps in ``other``'s storage, whatever its shape."""
        return wrap(self._data)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, TensorBase):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._data = value._data

    @property
    def device(self) -> device:
        """``device(type='cpu')``: tensors live in NumPy arrays (``device(type='meta')`` for a
        meta tensor: a shape and dtype without memory, see ``_core/device.py``)."""
        return META if is_meta_array(self._data) else CPU

    @property
    def is_meta(self) -> bool:
        """Whether this is a meta tensor (no values, only a shape and a dtype)."""
        return is_meta_array(self._data)

    @property
    def is_cpu(self) -> bool:
        """Whether the values are in CPU memory (all tensors but meta ones)."""
        return not is_meta_array(self._data)

    def share_memory_(self) -> Tensor:
        """Move the values into shared memory (inherited by forked processes, sent as a handle
        to others by ``tl.multiprocessing``); a no-op when they already are. Views made earlier
        keep the old memory."""
        if not is_shared_array(self._data):
            self._data = share_array(self._data)
        return self

    def is_shared(self) -> bool:
        """Whether the values are in shared memory (see ``share_memory_``)."""
        return is_shared_array(self._data)

    def size(self, dim: int | None = None) -> Any:
        """The shape (a ``tl.Size``), or the size of one dimension."""
        if dim is None:
            return Size(self._data.shape)
        if not self._data.ndim:  # (normalize_dims lets 0 and -1 through for a 0-d tensor)
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._data.shape[ops.normalize_dims(dim, self._data.ndim, "size")[0]]

    def dim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    def numel(self) -> int:
        """The number of elements."""
        return self._data.size

    def item(self) -> Any:
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(
                f"item: a tensor with {self._data.size} elements cannot be converted to a Python "
                "scalar"
            )
        _no_values(self, "item")
        if tracing_state.active:
            report_graph_break("Tensor.item()")
        return self._data.item()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The underlying array (shared memory). Raises for a tensor that requires grad, unless
        ``force`` (PyTorch's ``detach().cpu().numpy()`` in one call)."""
        if self._requires_grad and grad_state.enabled and not force:
            raise RuntimeError(
                "Can't call numpy() on a tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        if is_meta_array(self._data):
            raise TypeError("can't convert meta device type tensor to numpy: a meta tensor has "
                            "no values")
        if tracing_state.active:
            report_graph_break("Tensor.numpy()")
        return self._data

    def tolist(self) -> Any:
        """The data as (nested) Python lists of numbers."""
        _no_values(self, "tolist")
        if tracing_state.active:
            report_graph_break("Tensor.tolist()")
        return self._data.tolist()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype, copy=False)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator[TensorBase]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(
                f"Boolean value of a tensor with {self._data.size} values is ambiguous"
            )
        if tracing_state.active:
            report_graph_break("bool(Tensor)")
        return bool(self._data)

    def __float__(self) -> float:
        if self._data.size != 1:  # PyTorch's type here (item() raises RuntimeError)
            raise ValueError(f"only one element tensors can be converted to Python scalars "
                             f"(float() of a tensor of shape {tuple(self._data.shape)})")
        if self._requires_grad:
            warn_once("Converting a tensor with requires_grad=True to a scalar may lead to "
                      "unexpected behavior.\nConsider using tensor.detach() first.")
        return float(self.item())

    def __int__(self) -> int:
        if self._data.size != 1:
            raise ValueError(f"only one element tensors can be converted to Python scalars "
                             f"(int() of a tensor of shape {tuple(self._data.shape)})")
        return int(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be used as an index")
        return int(self._data.item())

    def __repr__(self) -> str:
        return format_tensor(self)

    def __format__(self, format_spec: str) -> str:
        # as PyTorch: a 0-d plain Tensor formats as its Python number (f"{loss:.4f}"); anything
        # else only takes the empty spec (its repr) and raises TypeError otherwise
        if self._data.ndim == 0 and type(self) is Tensor:
            return format(self._data.item(), format_spec)
        return object.__format__(self, format_spec)

    # -- autograd ------------------------------------------------------------------------------
    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient (leaves, and non-leaves after ``retain_grad()``)."""
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            warn("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                 "Its .grad attribute won't be populated during autograd.backward(). If you "
                 "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                 ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                 "mistake, make sure you access the leaf Tensor instead.")
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value._data.shape != self._data.shape:  # PyTorch's texts
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a "
                    f"tensor of size '{list(self._data.shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size")
            allowed = grad_dtype_np(self)  # the tensor's dtype unless grad_dtype is set
            if allowed is not None and value._data.dtype != allowed:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype "
                    f"'{dtypes.cpp_type_name(value._data.dtype)}' to a "
                    f"tensor with grad_dtype '{torch_dtype_name(allowed)}'. The gradient must "
                    "match the tensor's grad_dtype (set grad_dtype, or None for any dtype, to "
                    "change it)")
        self._grad = value

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf tensor after backward (leaves always keep it)."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on a tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        self._retains_grad = True
        self.grad_fn.register_tensor_hook(self._output_nr, RetainGradHook(self))

    @property
    def retains_grad(self) -> bool:
        """Whether a non-leaf tensor keeps ``.grad`` (see ``retain_grad``)."""
        return self._retains_grad

    def register_hook(self, hook: Callable[[Tensor], TensorBase | None]) -> RemovableHandle:
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned tensor replaces
        the gradient. Leaves: before accumulation into ``.grad``. Returns a removable handle."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn.register_tensor_hook(self._output_nr, hook)
        if self._backward_hooks is None:
            self._backward_hooks = OrderedDict()
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]
                                           ) -> RemovableHandle:
        """Call ``hook(tensor)`` on a leaf after backward has added into its ``.grad`` (e.g. to
        step an optimizer per parameter). Returns a removable handle."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors (this one "
                f"was made by {self.grad_fn.name()}); use register_hook for its gradient instead"
            )
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = OrderedDict()
        handle = RemovableHandle(self._post_accumulate_hooks)
        self._post_accumulate_hooks[handle.id] = hook
        return handle

    def backward(
        self,
        gradient: TensorBase | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Sequence[TensorBase] | TensorBase | None = None,
    ) -> None:
        """Compute the gradient of this tensor with respect to the graph's leaves, accumulating
        it into their ``.grad``. ``gradient`` is required unless the tensor has one element."""
        if gradient is None and inputs is None and self._data.size == 1 and self.grad_fn:
            # the usual loss.backward(): skip argument normalisation, seed with a shared 1
            seed = ones_seed(self._data.shape, self._data.dtype)
            run_backward((self,), (seed,), bool(retain_graph or create_graph),
                                 create_graph)
            return
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self) -> Tensor:
        """A tensor sharing this one's data (and version counter) but outside the graph."""
        out = wrap(self._data)
        out._version_counter = self._version_counter
        return out

    def clone(self, *, memory_format: Any = None) -> TensorBase:
        """A copy with its own memory; gradients flow back to this tensor. The copy keeps the
        strides of a dense tensor (a transpose, a channels-last layout: PyTorch's
        ``preserve_format``), else is row-major, unless ``memory_format`` says otherwise."""
        return ops.clone(self, "preserve_format" if memory_format is None else memory_format)

    # -- dtype conversion ----------------------------------------------------------------------
    def to(self, *args: Any, **kwargs: Any) -> TensorBase:
        """Convert to a dtype (``to(tl.float64)``, ``to(other_tensor)``); ``"cpu"`` is accepted."""
        target = kwargs.pop("dtype", None)
        copy = kwargs.pop("copy", False)
        where = kwargs.pop("device", None)
        check_device(where, "to", meta_ok=True)
        kwargs.pop("non_blocking", None)
        layout = format_name(kwargs.pop("memory_format", None))
        if kwargs:
            raise TypeError(f"to: unexpected keyword arguments {sorted(kwargs)}")
        if layout not in (None, "preserve_format") and not is_in_format(self._data, layout):
            # a copy in the asked memory layout (recorded), then any dtype conversion below
            return ops.clone(self, layout).to(*args, **kwargs)
        flags = 0  # to(dtype, non_blocking, copy) positionally: the second bool is copy
        for arg in args:
            if isinstance(arg, Tensor):
                target = arg.dtype
            elif isinstance(arg, bool):
                flags += 1
                copy = copy or (flags == 2 and arg)
            elif isinstance(arg, (str, device)) or isinstance(arg, int):
                check_device(arg, "to", meta_ok=True)
                where = arg
            else:
                target = arg
        if where is not None and wants_meta(where) != is_meta_array(self._data):
            if not wants_meta(where):
                raise NotImplementedError("to: cannot copy out of a meta tensor; it has no data "
                                          "(make the tensor anew on the CPU, e.g. with "
                                          "Module.to_empty(device='cpu'))")
            dt = self._data.dtype if target is None else dtypes.to_dtype(target).np
            return wrap(meta_array(self._data.shape, dt))
        if target is None:
            return self.clone() if copy else self
        result = ops.cast(self, dtypes.to_dtype(target).np)
        return result.clone() if copy and result is self else result

    def cpu(self) -> Tensor:
        """This tensor (everything lives on the CPU)."""
        return self

    # -- arithmetic operators (see ops/ for the primitives; __add__, __mul__, ... are bound to
    # them at the end of this file) ----------------------------------------------------------
    # (addition and multiplication commute exactly: the tensor goes first, so the node's first
    # edge is the tensor's, as PyTorch's for ``2 * t``)
    def __radd__(self, other: Any) -> TensorBase:
        return ops.add(self, other)

    def __rsub__(self, other: Any) -> TensorBase:
        if isinstance(other, (int, float, complex)) and not isinstance(other, bool):
            return ops.rsub_number(self, other)  # PyTorch's RsubBackward1, one edge
        return ops.sub(other, self)

    def __rmul__(self, other: Any) -> TensorBase:
        return ops.mul(self, other)

    def __rtruediv__(self, other: Any) -> TensorBase:
        return ops.div(other, self)

    def __rpow__(self, other: Any) -> TensorBase:
        return ops.pow(other, self)

    def __pos__(self) -> TensorBase:
        return functions.positive(self)  # (an error on bool tensors, as PyTorch's)

    def __matmul__(self, other: Any) -> TensorBase:
        return functions.matmul(self, other)

    def __rmatmul__(self, other: Any) -> TensorBase:
        return functions.matmul(other, self)

    # Comparisons are elementwise (bool tensors), as in PyTorch: the tl.* functions themselves.
    __eq__, __ne__ = functions.eq, functions.ne
    __lt__, __le__, __gt__, __ge__ = functions.lt, functions.le, functions.gt, functions.ge

    def __getitem__(self, index: Any) -> TensorBase:
        return ops.getitem(self, index)

    def __abs__(self) -> TensorBase:
        return functions.abs(self)

    def __invert__(self) -> TensorBase:
        if dtypes.is_float_dtype(self._data.dtype):  # the operator's error (bitwise_not's differs)
            raise TypeError(f"~ (operator.invert) is only implemented on integer and Boolean-type "
                            f"tensors, got {self.dtype}")
        return functions.bitwise_not(self)

    def __and__(self, other: Any) -> TensorBase:
        return functions.bitwise_and(self, other)

    def __or__(self, other: Any) -> TensorBase:
        return functions.bitwise_or(self, other)

    def __xor__(self, other: Any) -> TensorBase:
        return functions.bitwise_xor(self, other)

    def __iadd__(self, other: Any) -> Tensor:
        return functions.add_(self, other)

    def __isub__(self, other: Any) -> Tensor:
        return functions.sub_(self, other)

    def __imul__(self, other: Any) -> Tensor:
        return functions.mul_(self, other)

    def __itruediv__(self, other: Any) -> Tensor:
        return functions.div_(self, other)

    def __setitem__(self, index: Any, value: Any) -> None:
        functions.setitem(self, index, value)

    # -- methods whose arguments differ from their tl.* function -----------------------------
    def where(self, condition: Any, other: Any) -> TensorBase:
        """``self`` where ``condition`` is true, else ``other``."""
        return functions.where(condition, self, other)

    def polygamma(self, n: int) -> TensorBase:
        """``tl.polygamma(n, self)`` (the order comes second in the method form)."""
        return functions.polygamma(n, self)

    def view(self, *shape: Any, size: Any = None, dtype: Any = None) -> TensorBase:
        """``self`` with a new shape sharing its memory (a RuntimeError when the strides do not
        allow it, as PyTorch), or ``view(dtype)``: the same bytes read as another dtype."""
        if size is not None or dtype is not None:
            shape = sizes_or_keyword(shape, size if dtype is None else dtypes.to_dtype(dtype),
                                     "view", "size" if dtype is None else "dtype")
        if len(shape) == 1 and isinstance(shape[0], dtypes.DType):
            return self._view_as_dtype(shape[0])
        result = functions.reshape(self, *shape)
        data = self._data
        source = getattr(self, "_view_of", None)
        # Only a user's own permute/transpose/slice/expand fixes strides the way PyTorch's would;
        # an op's output may be laid out differently here than in PyTorch, so a copy is allowed
        if source is not None and data.size > 1:
            if source[1] == "expand" and source[0]._data.shape == source[2]:
                # (a small expand is stored densely: use the broadcast's strides)
                laid_out = np.broadcast_to(source[0]._data, data.shape)
                copied = not np.may_share_memory(laid_out.reshape(result.shape), laid_out)
            else:  # (through reshapes, e.g. an unsqueeze of a transpose)
                origin = source
                while origin is not None and origin[1] == "reshape":
                    origin = getattr(origin[0], "_view_of", None)
                copied = (origin is not None and origin[1] in ("permute", "getitem")
                          and not np.may_share_memory(result._data, data))
            if copied:  # NumPy had to copy: the view's strides cannot express the new shape
                raise RuntimeError(
                    "view size is not compatible with input tensor's size and stride (at least "
                    "one dimension spans across two contiguous subspaces). Use .reshape(...) "
                    f"instead. (view of a tensor of shape {tuple(data.shape)} as "
                    f"{tuple(result.shape)}: it is transposed, permuted, sliced or expanded)")
        return result

    def _view_as_dtype(self, dtype: dtypes.DType) -> TensorBase:
        """The bytes of ``self`` reinterpreted as ``dtype`` (the last dim rescaled by the ratio
        of element sizes); not differentiable across dtypes, as in PyTorch."""
        data = np.asarray(self._data)
        if dtype.np == data.dtype:
            return functions.reshape(self, self.shape)
        old, new = data.dtype.itemsize, dtype.itemsize
        if old != new:  # PyTorch's conditions and texts
            what = (f"to view {torch_dtype_name(data.dtype)} as {torch_dtype_name(dtype.np)} "
                    "(different element sizes)")
            if data.ndim == 0:
                raise RuntimeError(f"self.dim() cannot be 0 {what}")
            if data.strides[-1] != old and data.shape[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got "
                                   f"{data.strides[-1] // old}")
            if (data.shape[-1] * old) % new:
                raise RuntimeError(f"self.size(-1) must be divisible by {new // old} {what}, "
                                   f"but got {data.shape[-1]}")
            offset = layout.storage_offset(self)
            if (offset * old) % new:
                raise RuntimeError(f"self.storage_offset() must be divisible by {new // old} "
                                   f"{what}, but got {offset}")
        out = wrap(data.view(dtype.np))
        out._version_counter = self._version_counter  # the same memory, as PyTorch's view
        return out

    def view_as(self, other: TensorBase) -> TensorBase:
        """Same as ``reshape(other.shape)``."""
        return functions.reshape(self, other.shape)

    def reshape_as(self, other: TensorBase) -> TensorBase:
        """``reshape(other.shape)``."""
        return functions.reshape(self, other.shape)

    def expand_as(self, other: TensorBase) -> TensorBase:
        """``expand(other.shape)``."""
        return functions.expand(self, other.shape)

    def tile(self, *sizes: Any, dims: Any = None) -> TensorBase:
        """Like repeat; missing leading dims count as 1."""
        return functions.tile(self, _sizes(sizes_or_keyword(sizes, dims, "tile", "dims")))

    def flip(self, *axes: Any, dims: Any = None) -> TensorBase:
        """Reverse the order of elements along ``dims``."""
        if not axes and dims is None:
            raise TypeError('flip() missing 1 required positional arguments: "dims"')
        return functions.flip(self, _sizes(sizes_or_keyword(axes, dims, "flip", "dims")))

    def negative(self) -> TensorBase:
        """``-self``."""
        return ops.neg(self)

    @property
    def T(self) -> TensorBase:  # noqa: N802 - PyTorch's name
        """All dimensions reversed (the transpose of a matrix)."""
        return ops.permute(self, tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self) -> TensorBase:  # noqa: N802 - PyTorch's name
        """The last two dimensions swapped (batched matrix transpose)."""
        if self._data.ndim < 2:  # PyTorch's rules: a 0-d tensor as it is, a vector refused
            if self._data.ndim:
                raise RuntimeError("tensor.mT is only supported on matrices or batches of "
                                   f"matrices. Got {self._data.ndim}-D tensor.")
            warn_once("Tensor.mT is deprecated on 0-D tensors. This function is the identity in "
                      "these cases.")
            return self
        return functions.transpose(self, -2, -1)

    __hash__ = TensorBase.__hash__  # defining __eq__ would otherwise make tensors unhashable

    # The arithmetic operators are the primitive ops themselves: one Python call less per op.
    __add__, __sub__, __mul__ = ops.add, ops.sub, ops.mul
    __truediv__, __pow__, __neg__ = ops.div, ops.pow, ops.neg


def _no_values(t: TensorBase, op: str) -> None:
    """Refuse to read the values of a meta tensor (it has none), as PyTorch does."""
    if is_meta_array(t._data):
        raise NotImplementedError(f"{op}: cannot copy out of a meta tensor (shape "
                                  f"{tuple(t._data.shape)}); it has no data")


def _sizes(dims: tuple) -> Any:
    """``f(1, 2)`` and ``f((1, 2))`` both mean the sizes (1, 2)."""
    return dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims


# The rest of the surface, by concept (see _tensor/__init__.py); a method written out above takes
# precedence over a function of the same name
_SURFACE = (types, creation, random, shape, layout, devices, operators, pickling, autograd,
            callables, linalg, storage, dlpack)
for _name in functions.TENSOR_METHODS:
    if _name not in Tensor.__dict__:
        setattr(Tensor, _name, getattr(functions, _name))
for _concept in _SURFACE:
    for _name, _method in _concept.METHODS.items():
        if _name not in Tensor.__dict__:
            setattr(Tensor, _name, _method)
    for _name, _property in _concept.PROPERTIES.items():
        setattr(Tensor, _name, _property)
register_result_type(Tensor)  # every op's result is a Tensor from now on (see TensorBase)
