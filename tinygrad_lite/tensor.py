"""The Tensor: a NumPy array plus what autograd needs (grad, grad_fn, hooks, version)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from . import dtypes
from .autograd import graph as _graph
from .autograd.grad_mode import grad_state
from .autograd.graph import Node, RemovableHandle, RetainGradHook
from .tensor_methods import TensorMethods

__all__ = ["Tensor"]


class Tensor(TensorMethods):
    """An n-dimensional array that records the operations applied to it, for automatic
    differentiation. ``Tensor(data)`` makes a float32 tensor, like ``torch.Tensor``; use
    ``tinygrad_lite.tensor(data)`` to infer the dtype from the data."""

    # Class-level defaults: most tensors never change these, so creating one only sets ``data``
    # and its version counter (see ``_wrap``), which keeps the per-op cost low.
    grad_fn: Node | None = None
    _requires_grad = False
    _grad: Tensor | None = None
    _output_nr = 0
    _backward_hooks: OrderedDict | None = None
    _post_accumulate_hooks: OrderedDict | None = None
    _retains_grad = False
    __hash__ = object.__hash__  # identity hash: == is elementwise, as in PyTorch
    __array_ufunc__ = None  # make ``ndarray * tensor`` call Tensor.__rmul__

    def __init__(self, data: Any, dtype: Any = None, requires_grad: bool = False) -> None:
        self.data = _to_array(data, dtype, float_default=True)
        self._version_counter = [0]
        if requires_grad:
            self.requires_grad_(True)

    @staticmethod
    def _wrap(data: np.ndarray, grad_fn: Node | None = None) -> Tensor:
        """Wrap an array without copying (internal fast path used by every op)."""
        t = object.__new__(Tensor)
        t.data = data
        t._version_counter = [0]
        if grad_fn is not None:
            t.grad_fn = grad_fn
            t._requires_grad = True
        return t

    @staticmethod
    def from_output(data: np.ndarray, node: Node, counter: list) -> Tensor:
        """A node's saved output as a tensor: attached to ``node`` while a graph is recorded
        (``create_graph=True``), so higher-order gradients flow through it."""
        t = Tensor._wrap(data, node if grad_state.enabled else None)
        t._version_counter = counter
        return t

    # -- basic attributes ----------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        """The size of each dimension."""
        return self.data.shape

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self.data.ndim

    @property
    def dtype(self) -> dtypes.DType:
        """The element type, e.g. ``tinygrad_lite.float32``."""
        return dtypes.from_numpy_dtype(self.data.dtype)

    @property
    def device(self) -> str:
        """Always ``"cpu"``: tensors live in NumPy arrays."""
        return "cpu"

    def size(self, dim: int | None = None) -> Any:
        """The shape, or the size of one dimension."""
        if dim is None:
            return self.data.shape
        from .ops import normalize_dims

        return self.data.shape[normalize_dims(dim, self.data.ndim, "size")[0]]

    def dim(self) -> int:
        """The number of dimensions."""
        return self.data.ndim

    def numel(self) -> int:
        """The number of elements."""
        return self.data.size

    def item(self) -> Any:
        """The value of a one-element tensor as a Python number."""
        if self.data.size != 1:
            raise RuntimeError(
                f"item: a tensor with {self.data.size} elements cannot be converted to a Python "
                "scalar"
            )
        return self.data.item()

    def numpy(self) -> np.ndarray:
        """The underlying array (shared memory). Raises for a tensor that requires grad."""
        if self._requires_grad:
            raise RuntimeError(
                "Can't call numpy() on a tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return self.data

    def tolist(self) -> Any:
        """The data as (nested) Python lists of numbers."""
        return self.data.tolist()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype, copy=False)

    def __len__(self) -> int:
        if self.data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.data.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self.data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.data.shape[0]))

    def __bool__(self) -> bool:
        if self.data.size != 1:
            raise RuntimeError(
                f"Boolean value of a tensor with {self.data.size} values is ambiguous"
            )
        return bool(self.data)

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.data.dtype.kind not in "iu" or self.data.size != 1:
            raise TypeError("only integer tensors of a single element can be used as an index")
        return int(self.data.item())

    def __repr__(self) -> str:
        from ._format import format_tensor

        return format_tensor(self)

    # -- autograd ------------------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded for differentiation."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` on a leaf tensor, in place; returns the tensor."""
        if self.grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed tensor in a graph-free way, use .detach()."
            )
        if requires_grad and self.data.dtype.kind != "f":
            raise RuntimeError(
                f"only tensors of floating point dtype can require gradients, got {self.dtype}"
            )
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def is_leaf(self) -> bool:
        """True for tensors not produced by a recorded op (user-created, or requires_grad=False)."""
        return self.grad_fn is None

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient (leaves, and non-leaves after ``retain_grad()``)."""
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            import warnings

            warnings.warn(
                "The .grad attribute of a tensor that is not a leaf is being accessed; it is not "
                "filled in by backward. Call .retain_grad() on it first if you want its gradient, "
                "or access the leaf tensor instead.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad must be a Tensor or None, got {type(value)}")
            if value.data.shape != self.data.shape or value.data.dtype != self.data.dtype:
                raise RuntimeError(
                    f"assigned grad has shape {value.data.shape} and dtype {value.dtype}, but "
                    f"the tensor has shape {self.data.shape} and dtype {self.dtype}"
                )
        self._grad = value

    @property
    def _version(self) -> int:
        """How many times this tensor (or a view sharing its memory) was modified in place."""
        return self._version_counter[0]

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

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
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
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Sequence[Tensor] | Tensor | None = None,
    ) -> None:
        """Compute the gradient of this tensor with respect to the graph's leaves, accumulating
        it into their ``.grad``. ``gradient`` is required unless the tensor has one element."""
        if gradient is None and inputs is None and self.data.size == 1 and self.grad_fn:
            # the usual loss.backward(): skip argument normalisation, seed with a shared 1
            seed = _autograd.ones_seed(self.data.shape, self.data.dtype)
            _engine.run_backward((self,), (seed,), bool(retain_graph or create_graph),
                                 create_graph)
            return
        _autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self) -> Tensor:
        """A tensor sharing this one's data (and version counter) but outside the graph."""
        out = Tensor._wrap(self.data)
        out._version_counter = self._version_counter
        return out

    def clone(self) -> Tensor:
        """A copy with its own memory; gradients flow back to this tensor."""
        return _ops.clone(self)

    # -- dtype conversion ----------------------------------------------------------------------
    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """Convert to a dtype (``to(tl.float64)``, ``to(other_tensor)``); ``"cpu"`` is accepted."""
        target = kwargs.pop("dtype", None)
        copy = kwargs.pop("copy", False)
        kwargs.pop("device", None)
        if kwargs:
            raise TypeError(f"to: unexpected keyword arguments {sorted(kwargs)}")
        for arg in args:
            if isinstance(arg, Tensor):
                target = arg.dtype
            elif not (isinstance(arg, str) and arg.startswith("cpu")):
                target = arg
        if target is None:
            return self.clone() if copy else self
        result = _ops.cast(self, dtypes.to_dtype(target).np)
        return result.clone() if copy and result is self else result

    def float(self) -> Tensor:
        """Convert to float32."""
        return self.to(dtypes.float32)

    def double(self) -> Tensor:
        """Convert to float64."""
        return self.to(dtypes.float64)

    def half(self) -> Tensor:
        """Convert to float16."""
        return self.to(dtypes.float16)

    def long(self) -> Tensor:
        """Convert to int64."""
        return self.to(dtypes.int64)

    def int(self) -> Tensor:
        """Convert to int32."""
        return self.to(dtypes.int32)

    def bool(self) -> Tensor:
        """Convert to bool."""
        return self.to(dtypes.bool)

    def cpu(self) -> Tensor:
        """This tensor (everything lives on the CPU)."""
        return self

    # -- arithmetic operators (see ops/ for the primitives; __add__, __mul__, ... are bound to
    # them at the end of this file) ----------------------------------------------------------
    def __radd__(self, other: Any) -> Tensor:
        return _ops.add(other, self)

    def __rsub__(self, other: Any) -> Tensor:
        return _ops.sub(other, self)

    def __rmul__(self, other: Any) -> Tensor:
        return _ops.mul(other, self)

    def __rtruediv__(self, other: Any) -> Tensor:
        return _ops.div(other, self)

    def __rpow__(self, other: Any) -> Tensor:
        return _ops.pow(other, self)

    def __pos__(self) -> Tensor:
        return self

    def __matmul__(self, other: Any) -> Tensor:
        return _fn.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return _fn.matmul(other, self)

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _ops.compare(np.equal, self, other, "eq")

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _ops.compare(np.not_equal, self, other, "ne")

    def __lt__(self, other: Any) -> Tensor:
        return _ops.compare(np.less, self, other, "lt")

    def __le__(self, other: Any) -> Tensor:
        return _ops.compare(np.less_equal, self, other, "le")

    def __gt__(self, other: Any) -> Tensor:
        return _ops.compare(np.greater, self, other, "gt")

    def __ge__(self, other: Any) -> Tensor:
        return _ops.compare(np.greater_equal, self, other, "ge")

    def __getitem__(self, index: Any) -> Tensor:
        return _ops.getitem(self, index)


def _to_array(data: Any, dtype: Any, float_default: bool) -> np.ndarray:
    """Copy ``data`` into a new array of a supported dtype.

    NumPy arrays and scalars keep their dtype; Python floats become float32 (PyTorch's default),
    and with ``float_default`` everything does (the ``Tensor(...)`` constructor).
    """
    if isinstance(data, Tensor):
        data = data.data
    target = dtypes.to_dtype(dtype).np if dtype is not None else None
    try:
        arr = np.array(data, dtype=target)
    except (TypeError, ValueError) as err:
        raise TypeError(
            f"tensor: could not convert data of type {type(data).__name__}: {err}"
        ) from None
    if target is None:
        if float_default:
            arr = arr.astype(np.float32)
        elif arr.dtype == np.float64 and not isinstance(data, (np.ndarray, np.generic)):
            arr = arr.astype(np.float32)  # Python floats: the default float dtype
        elif arr.dtype.kind not in "biuf" or arr.dtype not in dtypes._FROM_NUMPY:
            if arr.dtype.kind == "f":
                arr = arr.astype(np.float64)
            else:
                raise TypeError(f"tensor: unsupported data of dtype {arr.dtype}")
    return arr


# ops and functions build on Tensor, so they are imported after it. TensorMethods forwards to
# ``functions``, which is bound into its module here for the same reason.
from . import autograd as _autograd  # noqa: E402
from . import functions as _fn  # noqa: E402
from . import ops as _ops  # noqa: E402
from . import tensor_methods as _tensor_methods  # noqa: E402
from . import tensor_methods_shape as _tensor_methods_shape  # noqa: E402
from .autograd import engine as _engine  # noqa: E402

_tensor_methods.F = _tensor_methods_shape.F = _fn
_graph._Tensor = Tensor
# The arithmetic operators are the primitive ops themselves: one Python call less per op.
Tensor.__add__, Tensor.__sub__, Tensor.__mul__ = _ops.add, _ops.sub, _ops.mul
Tensor.__truediv__, Tensor.__pow__, Tensor.__neg__ = _ops.div, _ops.pow, _ops.neg
