"""``TracedArray``: an ndarray that records every NumPy call made on it into the active trace.

While ``tl.compile`` traces a call, the arrays of its inputs and state are swapped for traced
views of the same memory, and the eager run proceeds as usual on real numbers. NumPy hands each
ufunc (``a + b``, ``np.exp``, ``x.sum()``, ``y += z``) to ``__array_ufunc__`` and each array
function (``np.concatenate``, ``np.where``, ``np.einsum``) to ``__array_function__``; the ndarray
methods that bypass both (``reshape``, ``astype``, indexing, ...) are wrapped below. Each records
one op and returns its result as a new traced value, so the trace follows the data.

What cannot be followed is refused rather than guessed: a Python number taken out of a traced
array (``bool(a)``, ``a.item()``) becomes a ``check`` op that the replay verifies; results whose
shape depends on the data (``np.nonzero``, boolean-mask indexing, ``np.unique``) and data leaving
NumPy (``tolist``, ``tobytes``) are graph breaks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["TracedArray", "ACTIVE", "GraphBreakError", "record", "unwrap", "as_traced", "plain"]

# Functions whose result's shape depends on the values: not replayable as straight-line code.
DATA_DEPENDENT_SHAPE = {"nonzero", "flatnonzero", "argwhere", "unique", "unique_values",
                        "unique_counts", "unique_inverse", "unique_all", "compress", "extract",
                        "trim_zeros", "setdiff1d", "intersect1d", "union1d", "setxor1d"}
# Array functions that write into their first argument.
MUTATES_FIRST = {"copyto", "put", "putmask", "place", "fill_diagonal", "put_along_axis"}
# Array functions whose Python result depends only on shapes/dtypes (fixed under the guards).
METADATA = {"shape", "ndim", "size", "result_type", "may_share_memory", "shares_memory",
            "iscomplexobj", "isrealobj", "min_scalar_type", "can_cast", "isfortran"}


_ASARRAY, _ARRAY = np.asarray, np.array  # taken at import: while tracing, both are recorded


class GraphBreakError(RuntimeError):
    """Raised with ``fullgraph=True`` where the traced function does something a replay
    cannot reproduce (PyTorch raises its ``Unsupported`` error there)."""


class _Active:
    """The trace being recorded (None outside ``tl.compile``'s tracing calls)."""

    trace: Any = None
    busy = False  # inside a recorded call: NumPy's own helper calls are part of it
    generation = 0  # bumped by every trace: a TracedArray of an older trace is plain data


ACTIVE = _Active()


def plain(arr: np.ndarray) -> np.ndarray:
    """A plain ndarray view of ``arr`` (``ndarray.view`` itself is recorded on traced arrays)."""
    return np.ndarray.view(arr, np.ndarray)


_PLAIN = frozenset({int, float, bool, str, type(None), type(Ellipsis), np.ndarray})


def unwrap(obj: Any) -> Any:
    """``obj`` with every TracedArray inside it (lists, tuples, dicts) as a plain ndarray view."""
    kind = type(obj)
    if kind is TracedArray:
        return np.ndarray.view(obj, np.ndarray)
    if kind is tuple or kind is list:
        items = [o if type(o) in _PLAIN else unwrap(o) for o in obj]
        return items if kind is list else tuple(items)
    if kind is dict:
        return {k: v if type(v) in _PLAIN else unwrap(v) for k, v in obj.items()}
    if kind in _PLAIN:
        return obj
    if isinstance(obj, TracedArray):
        return plain(obj)
    if type(obj) is slice and any(isinstance(c, TracedArray)
                                  for c in (obj.start, obj.stop, obj.step)):
        return slice(*(int(c) if isinstance(c, TracedArray) else c
                       for c in (obj.start, obj.stop, obj.step)))
    return obj


def as_traced(result: Any) -> TracedArray:
    """A fresh traced array holding ``result`` (an owned array, a NumPy or Python scalar), in
    the same memory order: NumPy may lay a result out in another axis order (a ufunc on a
    permuted input), and a later reduction's rounding follows that order."""
    arr = _ASARRAY(result)
    return _ARRAY(np.ndarray.view(arr, TracedArray), copy=True, subok=True, order="K")


def record(kind: str, target: Any, args: tuple, kwargs: dict, mutated: Any = ()) -> Any:
    """Run one NumPy call on plain arrays and, while a trace is active, record it there; the
    result comes back as traced values (the ``out=`` arrays themselves for in-place calls)."""
    plain_args, plain_kwargs = unwrap(args), unwrap(kwargs) if kwargs else kwargs
    busy, ACTIVE.busy = ACTIVE.busy, True
    try:
        if kind == "call":
            result = target(*plain_args, **plain_kwargs)
        elif kind == "method":
            result = getattr(plain_args[0], target)(*plain_args[1:], **plain_kwargs)
        elif kind == "getitem":
            result = plain_args[0][plain_args[1]]
        elif kind == "setitem":
            plain_args[0][plain_args[1]] = plain_args[2]
            result = None
        else:  # check: a Python value out of the data
            result = _CONVERT[target](plain_args[0])
    finally:
        ACTIVE.busy = busy
    if busy:
        return result
    trace = ACTIVE.trace
    if trace is None or not trace.recording():
        return _originals(result, plain_kwargs.get("out"), kwargs.get("out"))
    try:
        return trace.add_op(kind, target, args, kwargs, result, mutated)
    except GraphBreakError:
        raise
    except Exception as err:  # noqa: BLE001 - a recorder bug must not break the user's run
        trace.graph_break(f"the compiler could not record {kind} {target!r} ({err!r})")
        return _originals(result, plain_kwargs.get("out"), kwargs.get("out"))


def _originals(result: Any, plain_out: Any, out: Any) -> Any:
    """The caller's own ``out=`` arrays in place of the plain views NumPy returned."""
    if out is None or plain_out is None:
        return result
    if isinstance(out, tuple):
        if isinstance(result, tuple):
            return tuple(o if r is p else r for r, p, o in zip(result, plain_out, out))
        return out[0] if result is plain_out[0] else result
    return out if result is plain_out else result


_CONVERT: dict[str, Any] = {"bool": bool, "float": float, "int": int,
                            "index": lambda a: a.__index__(), "item": lambda a: a.item()}


class TracedArray(np.ndarray):
    """An ndarray whose NumPy operations are recorded into the trace that created it."""

    _tv: int | None = None  # this array's value number in the active trace (None: untracked)
    _gen = -1  # the trace generation that numbered it

    def __array_finalize__(self, obj: Any) -> None:
        self._tv = None  # a view NumPy made without telling us: unusable until recorded

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        target = ufunc if method == "__call__" else getattr(ufunc, method)
        out = kwargs.get("out")
        mutated = list(out) if out is not None else []
        if method == "at":
            mutated = [inputs[0]]
        return record("call", target, inputs, kwargs, mutated=mutated)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        name = func.__name__
        if ACTIVE.trace is not None:
            if name in DATA_DEPENDENT_SHAPE or (name == "where" and len(args) == 1
                                                 and not kwargs):
                ACTIVE.trace.graph_break(f"np.{name} (its result's shape depends on the data)")
            if name in METADATA:
                return func(*unwrap(args), **unwrap(kwargs))
        mutated = []
        if name in MUTATES_FIRST:
            mutated = [args[0] if args else kwargs.get("dst", kwargs.get("a"))]
        if kwargs.get("out") is not None:
            out = kwargs["out"]
            mutated += list(out) if isinstance(out, tuple) else [out]
        return record("call", func, args, kwargs, mutated=mutated)

    # -- indexing ----------------------------------------------------------------------------
    def __getitem__(self, index: Any) -> Any:
        if _boolean_mask(index):
            _break("boolean-mask indexing (its result's shape depends on the data)")
        return record("getitem", None, (self, index), {})

    def __setitem__(self, index: Any, value: Any) -> None:
        if _boolean_mask(index):
            _break("boolean-mask assignment (which elements it writes depends on the data)")
        record("setitem", None, (self, index, value), {}, mutated=[self])

    def __iter__(self) -> Any:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    # -- Python values out of the data: checked on every replay ------------------------------
    def __bool__(self) -> bool:
        return record("check", "bool", (self,), {})

    def __float__(self) -> float:
        return record("check", "float", (self,), {})

    def __int__(self) -> int:
        return record("check", "int", (self,), {})

    def __index__(self) -> int:
        return record("check", "index", (self,), {})

    def item(self, *args: Any) -> Any:
        """The element as a Python number (a checked value while tracing)."""
        if args:
            return record("check", "item", (self[args[0] if len(args) == 1 else args],), {})
        return record("check", "item", (self,), {})

    def __complex__(self) -> complex:
        _break("complex() of a traced array")
        return complex(plain(self))

    def tolist(self) -> Any:
        """Data leaving NumPy: a graph break while tracing."""
        _break("ndarray.tolist()")
        return plain(self).tolist()

    def tobytes(self, order: Any = "C") -> bytes:
        """Data leaving NumPy: a graph break while tracing."""
        _break("ndarray.tobytes()")
        return plain(self).tobytes(order)

    def __repr__(self) -> str:
        return repr(plain(self))

    def __str__(self) -> str:
        return str(plain(self))

    def __format__(self, spec: str) -> str:
        _break("formatting an array's values")
        return format(plain(self), spec)

    def __reduce__(self) -> Any:
        return plain(self).copy().__reduce__()

    def __copy__(self) -> Any:
        return self.copy()

    def __deepcopy__(self, memo: Any) -> Any:
        return self.copy()

    @property
    def T(self) -> Any:  # noqa: N802 (NumPy's name)
        """The transpose (recorded)."""
        return record("method", "transpose", (self,), {})

    @property
    def mT(self) -> Any:  # noqa: N802 (NumPy's name)
        """The batched matrix transpose (recorded)."""
        return record("method", "swapaxes", (self, -1, -2), {})

    @property  # type: ignore[misc]
    def real(self) -> Any:
        """The real part (recorded)."""
        return record("call", np.real, (self,), {})

    @property  # type: ignore[misc]
    def imag(self) -> Any:
        """The imaginary part (recorded)."""
        return record("call", np.imag, (self,), {})

    @property
    def flat(self) -> Any:
        """A flat iterator: not traceable."""
        _break("ndarray.flat")
        return plain(self).flat


def _break(reason: str) -> None:
    if ACTIVE.trace is not None:
        ACTIVE.trace.graph_break(reason)


def _boolean_mask(index: Any) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return any(isinstance(i, np.ndarray) and i.dtype == np.bool_ and i.ndim > 0 for i in items)


# Methods that change the array in place.
_IN_PLACE = {"fill", "sort", "partition", "put", "itemset", "resize", "setfield", "byteswap",
             "setflags"}
# Methods that hand out data or memory without going through NumPy ops.
_LEAKS = {"tofile", "dump", "dumps", "__dlpack__", "__array__", "getfield", "ctypes",
          "__buffer__"}
# Methods that only read metadata.
_SAFE = {"__array_finalize__", "__array_ufunc__", "__array_function__", "__getitem__",
         "__setitem__", "__iter__", "__bool__", "__float__", "__int__", "__index__", "item",
         "__complex__", "tolist", "tobytes", "__repr__", "__str__", "__format__", "__reduce__",
         "__reduce_ex__", "__copy__", "__deepcopy__", "__array_wrap__", "__array_prepare__",
         "__class_getitem__", "__len__", "__sizeof__", "__setstate__", "__getstate__",
         "__init_subclass__", "__subclasshook__", "__new__", "__init__", "__getattribute__",
         "__setattr__", "__delattr__", "__dir__", "__eq__", "__ne__", "__lt__", "__le__",
         "__gt__", "__ge__", "__hash__", "__contains__", "__array_namespace__", "to_device",
         "__array_priority__", "__class__", "__doc__", "__buffer__", "__release_buffer__"}


def _method(name: str) -> Any:
    in_place = name in _IN_PLACE

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        if name in _LEAKS:
            _break(f"ndarray.{name}")
            return getattr(plain(self), name)(*args, **kwargs)
        if name == "nonzero":
            _break("ndarray.nonzero (its result's shape depends on the data)")
        out = kwargs.get("out")
        mutated = ([self] if in_place else []) + ([out] if out is not None else [])
        return record("method", name, (self, *args), kwargs, mutated=mutated)

    method.__name__ = name
    method.__doc__ = f"``ndarray.{name}``, recorded while tracing."
    return method


for _name in dir(np.ndarray):
    _attr = getattr(np.ndarray, _name)
    if (callable(_attr) and _name not in _SAFE and _name not in TracedArray.__dict__
            and not (_name.startswith("__") and _name.endswith("__"))):
        setattr(TracedArray, _name, _method(_name))

