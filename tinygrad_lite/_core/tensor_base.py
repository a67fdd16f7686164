"""The state every tensor carries (array, grad, grad_fn, hooks, version), without its methods.

The layers below the public ``Tensor`` (the graph, the engine, ``ops/``, ``functions/``) create
and inspect tensors through this base class only. The public class (``tensor.py``) subclasses it
and adds the methods and operators; it registers itself once with ``register_result_type`` so
that ``wrap``, which every op calls on its result, builds instances of it. That registration and
the Tensor methods themselves (a backward rule under ``create_graph`` calls ``grad.sum()``, say)
are the only ways a lower layer reaches a higher one.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes
from ..dtypes import is_float_dtype
from . import quiet
from .quiet import _front as _quiet_front
from .size import Size

__all__ = ["TensorBase", "wrap", "register_result_type"]


class TensorBase:
    """An array plus what autograd needs: ``_data`` (the ndarray), ``grad_fn``, ``.grad``, hooks
    and the version counter shared by tensors that share memory."""

    # Class-level defaults: most tensors never change these, so creating one only sets ``_data``
    # and its version counter (see ``wrap``), which keeps the per-op cost low.
    _data: np.ndarray
    _version_counter: list
    grad_fn: Any = None
    _requires_grad = False
    _grad: Any = None
    _output_nr = 0
    _backward_hooks: OrderedDict | None = None
    _post_accumulate_hooks: OrderedDict | None = None
    _retains_grad = False
    _grad_dtype: Any = False  # grad_dtype: False = the tensor's dtype, None = any, else a DType
    _inference = False  # made inside inference_mode (see track_inference_tensors)
    _expanded = False  # a small expand() result: a private copy that in-place ops must refuse
    __hash__ = object.__hash__  # identity hash: == is elementwise, as in PyTorch
    __array_ufunc__ = None  # ``ndarray * t``: t's reflected operator (Tensor: operators.py)

    if TYPE_CHECKING:
        # The methods and operators are added by the public Tensor (tensor.py), which this layer
        # cannot import; for the type checker every other attribute is one of them.
        def __getattr__(self, name: str) -> Any: ...
        def __add__(self, other: Any) -> Any: ...
        def __radd__(self, other: Any) -> Any: ...
        def __sub__(self, other: Any) -> Any: ...
        def __rsub__(self, other: Any) -> Any: ...
        def __mul__(self, other: Any) -> Any: ...
        def __rmul__(self, other: Any) -> Any: ...
        def __truediv__(self, other: Any) -> Any: ...
        def __rtruediv__(self, other: Any) -> Any: ...
        def __pow__(self, other: Any) -> Any: ...
        def __rpow__(self, other: Any) -> Any: ...
        def __matmul__(self, other: Any) -> Any: ...
        def __neg__(self) -> Any: ...
        def __getitem__(self, index: Any) -> Any: ...
        def __eq__(self, other: Any) -> Any: ...
        def __ne__(self, other: Any) -> Any: ...
        def __lt__(self, other: Any) -> Any: ...
        def __le__(self, other: Any) -> Any: ...
        def __gt__(self, other: Any) -> Any: ...
        def __ge__(self, other: Any) -> Any: ...
        def __invert__(self) -> Any: ...
        def __and__(self, other: Any) -> Any: ...
        def __or__(self, other: Any) -> Any: ...

    @property
    def shape(self) -> Size:
        """The size of each dimension (a ``tl.Size``, a tuple of ints)."""
        return Size(self._data.shape)

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    @property
    def dtype(self) -> dtypes.DType:
        """The element type, e.g. ``tinygrad_lite.float32``."""
        return dtypes.from_numpy_dtype(self._data.dtype)

    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded for differentiation."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Any:
        """Set ``requires_grad`` on a leaf tensor, in place; returns the tensor."""
        if self.grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if requires_grad and not is_float_dtype(self._data.dtype):
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
    def _version(self) -> int:
        """How many times this tensor (or a view sharing its memory) was modified in place."""
        if self._inference:
            raise RuntimeError("Inference tensors do not track version counter (this tensor was "
                               "made inside inference_mode)")
        return self._version_counter[0]

    @staticmethod
    def _wrap(data: np.ndarray, grad_fn: Any = None) -> Any:
        """``wrap`` as a static method, for code that holds a tensor class (``type(g)._wrap``)."""
        return wrap(data, grad_fn)


# The class ``wrap`` instantiates: the public Tensor once tensor.py has registered it.
_result_type: type[TensorBase] = TensorBase
_new, _NDARRAY = object.__new__, np.ndarray  # (globals: wrap's array check is one identity test)

# Tensors made inside ``inference_mode`` are inference tensors. While no such block is open (in
# any thread), ``wrap`` allocates with plain ``object.__new__``: marking costs nothing outside.
_inference_blocks: dict[str, Any] = {"open": 0, "in_block": None}


def _new_marking_inference(cls: type) -> Any:
    t: Any = object.__new__(cls)
    if _inference_blocks["in_block"]():
        t._inference = True
    return t


def track_inference_tensors(entering: bool, in_block: Any) -> None:
    """An ``inference_mode`` block opens (``entering``) or closes; ``in_block()`` says whether
    the calling thread is inside one. Tensors are marked only while some block is open."""
    global _new
    _inference_blocks["open"] += 1 if entering else -1
    _inference_blocks["in_block"] = in_block
    _new = _new_marking_inference if _inference_blocks["open"] > 0 else object.__new__


def register_result_type(cls: type) -> None:
    """Make ``wrap`` (and so every op) create instances of ``cls``, a subclass of TensorBase.
    Called once, by tensor.py, right after it defines the public Tensor."""
    global _result_type
    if not issubclass(cls, TensorBase):
        raise TypeError(f"register_result_type: {cls.__name__} is not a TensorBase subclass")
    _result_type = cls


def wrap(data: np.ndarray, grad_fn: Any = None) -> Any:
    """A tensor around ``data`` without copying (the fast path every op uses for its result);
    with ``grad_fn`` it is that node's output and requires grad."""
    filters = warnings.filters  # NumPy's warnings stay silent (see quiet.py): inlined check
    if not filters or filters[0] is not _quiet_front[0]:
        quiet.silence_numpy_warnings()
    if data.__class__ is not _NDARRAY and not isinstance(data, _NDARRAY):  # a ufunc's 0-d
        data = np.asarray(data)  # result is a NumPy scalar: views and numpy() need an array
    t: TensorBase = _new(_result_type)
    t._data = data
    t._version_counter = [0]
    if grad_fn is not None:
        t.grad_fn = grad_fn
        t._requires_grad = True
    return t


def grad_dtype_np(t: TensorBase) -> np.dtype | None:
    """The NumPy dtype ``t.grad`` is kept in (``Tensor.grad_dtype``); None: the gradient's own."""
    chosen = t._grad_dtype
    if chosen is False:
        return t._data.dtype
    return None if chosen is None else chosen.np
