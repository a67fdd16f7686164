"""Data types and PyTorch's type-promotion rules, on top of NumPy dtypes."""

from __future__ import annotations

import builtins
from typing import Any, cast

import numpy as np

__all__ = [
    "DType", "bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "bfloat16", "get_default_dtype", "set_default_dtype",
    "to_dtype", "result_type", "promote_types", "is_float_dtype", "finfo_of", "require_real",
    "can_cast", "cpp_type_name", "torch_dtype_name",
]

_BOOL, _INT, _FLOAT = 0, 1, 2  # promotion categories, lowest to highest


class DType:
    """A tensor element type (``tinygrad_lite.float32`` and friends), wrapping a NumPy dtype."""

    __slots__ = ("name", "np", "category", "itemsize")

    def __init__(self, name: str, np_dtype: Any, category: int, itemsize: int = 0) -> None:
        self.name = name
        # None: a dtype whose NumPy type comes from an optional package not loaded yet
        # (bfloat16 from ml_dtypes); to_dtype loads it, or refuses it with the install command
        self.np: np.dtype = np.dtype(np_dtype) if np_dtype is not None else cast(np.dtype, None)
        self.category = category
        self.itemsize = self.np.itemsize if self.np is not None else itemsize

    @property
    def is_floating_point(self) -> builtins.bool:
        """True for float16/32/64, the only dtypes that can require gradients."""
        return self.category == _FLOAT

    @property
    def is_signed(self) -> builtins.bool:
        """Whether the type holds negative values: not bool nor the unsigned ints."""
        return self.category == _FLOAT or (self.category == _INT and self.np.kind == "i")

    @property
    def is_complex(self) -> builtins.bool:
        """False: tinygrad_lite has no complex dtypes."""
        return False

    def to_real(self) -> DType:
        """The real counterpart of a complex dtype: a real dtype is its own."""
        return self

    @property
    def abbr(self) -> str:
        """PyTorch's short name: ``f32``, ``bf16``, ``i64``, ``u8``, ``b8``."""
        if self.name == "bfloat16":
            return "bf16"
        kind = "b" if self.category == _BOOL else "f" if self.category == _FLOAT else self.np.kind
        return f"{kind}{self.itemsize * 8}"

    def __repr__(self) -> str:
        return f"tinygrad_lite.{self.name}"

    def __reduce__(self) -> str:  # pickles as the module-level singleton
        return self.name


# the class prints as PyTorch's (<class 'torch.dtype'>): tl.dtype is it, and the dtypes pickle
# as the package's names (tinygrad_lite.float32), which are these singletons too
DType.__name__ = DType.__qualname__ = "dtype"
DType.__module__ = "tinygrad_lite"


bool = DType("bool", np.bool_, _BOOL)  # noqa: A001 - PyTorch's name, shadowing is intended
uint8 = DType("uint8", np.uint8, _INT)
int8 = DType("int8", np.int8, _INT)
int16 = DType("int16", np.int16, _INT)
int32 = DType("int32", np.int32, _INT)
int64 = DType("int64", np.int64, _INT)
# PyTorch's "shell" unsigned types: storage, conversion and a few ops; promotion with any other
# dtype except a floating one is refused, as PyTorch refuses it
uint16 = DType("uint16", np.uint16, _INT)
uint32 = DType("uint32", np.uint32, _INT)
uint64 = DType("uint64", np.uint64, _INT)
float16 = DType("float16", np.float16, _FLOAT)
float32 = DType("float32", np.float32, _FLOAT)
float64 = DType("float64", np.float64, _FLOAT)


# PyTorch's bfloat16 (8 exponent bits like float32, 8 significant bits). NumPy has none; the
# ml_dtypes package (JAX's) registers one with NumPy's ufuncs. Importing it costs ~0.2 s, so its
# NumPy type is loaded on the first use of bfloat16 (see _load_bfloat16), not at import.
bfloat16 = DType("bfloat16", None, _FLOAT, itemsize=2)

_ALL = [bool, uint8, int8, int16, int32, int64, uint16, uint32, uint64, float16, float32, float64]
_SHELL_UNSIGNED = {uint16.np, uint32.np, uint64.np}
_FROM_NUMPY = {d.np: d for d in _ALL}
_DEFAULT_FOR_CATEGORY = {_BOOL: bool, _INT: int64, _FLOAT: float32}
_ALIASES = {
    "float": float32, "double": float64, "half": float16, "long": int64, "int": int32,
    "short": int16, "bool": bool, builtins.bool: bool, int: int64, float: float64,
    "bfloat16": bfloat16,
}
_BFLOAT16_FINFO: list = []  # ml_dtypes' finfo of bfloat16 once loaded (np.finfo refuses it)
_BFLOAT16_INSTALL = "pip install 'tinygrad-lite[bfloat16]' (or pip install ml_dtypes)"


def _load_bfloat16() -> builtins.bool:
    """Give ``bfloat16`` its NumPy type from ml_dtypes (once); False if the package is missing."""
    if bfloat16.np is not None:
        return True
    try:
        import ml_dtypes  # optional: only programs that use bfloat16 pay for its import
    except ImportError:
        return False
    bfloat16.np = np.dtype(ml_dtypes.bfloat16)
    _BFLOAT16_FINFO.append(ml_dtypes.finfo(ml_dtypes.bfloat16))
    _ALL.insert(_ALL.index(float32), bfloat16)
    _FROM_NUMPY[bfloat16.np] = bfloat16
    return True


def finfo_of(np_dtype: np.dtype) -> np.finfo:
    """``np.finfo`` of a float dtype, bfloat16 included."""
    return _BFLOAT16_FINFO[0] if np_dtype is bfloat16.np else np.finfo(np_dtype)


def require_real(value: Any, np_dtype: np.dtype, op: str) -> None:
    """Refuse a complex fill value or bound (NumPy would drop its imaginary part silently):
    PyTorch's error for a value its dtype cannot hold."""
    if isinstance(value, (builtins.complex, np.complexfloating)):
        raise RuntimeError(f"{op}: value {value!r} cannot be converted to type "
                           f"{np.dtype(np_dtype).name} without overflow (tinygrad_lite has no "
                           f"complex dtypes)")


def is_float_dtype(np_dtype: np.dtype) -> builtins.bool:
    """True for NumPy's float kinds and for ml_dtypes' bfloat16 (whose NumPy kind is "V")."""
    return np_dtype.kind == "f" or np_dtype is bfloat16.np


def get_default_dtype() -> DType:
    """The dtype of tensors made from Python floats (float32 unless ``set_default_dtype``)."""
    return _DEFAULT_FOR_CATEGORY[_FLOAT]


def default_float_np(dtype: Any = None) -> np.dtype:
    """The NumPy dtype of new floating parameters: ``dtype``, else the default dtype."""
    return get_default_dtype().np if dtype is None else to_dtype(dtype).np


def float_result_type(*operands: Any) -> np.dtype:
    """``result_type`` of the operands as a floating dtype: an integer or bool result becomes
    the default float dtype (what PyTorch's float-valued binary functions give)."""
    result = result_type(*operands)
    return result if is_float_dtype(result) else get_default_dtype().np


def set_default_dtype(d: Any) -> None:
    """Make ``d`` (float16, float32 or float64) the dtype of new floating-point tensors: from
    Python floats, ``Tensor(...)``, and creation functions given no dtype, as in PyTorch."""
    chosen = to_dtype(d)
    if chosen.category != _FLOAT:
        raise TypeError(f"only floating-point types are supported as the default type, got "
                        f"{chosen.name}")
    _DEFAULT_FOR_CATEGORY[_FLOAT] = chosen


def to_dtype(spec: Any) -> DType:
    """A DType from a DType, NumPy dtype, Python type or name; TypeError if unsupported."""
    if isinstance(spec, DType) and spec.np is not None:
        return spec
    alias = spec if isinstance(spec, DType) else \
        _ALIASES.get(spec) if isinstance(spec, (str, type)) else None
    if alias is not None:
        if alias.np is None and not _load_bfloat16():
            raise TypeError(f"{alias.name} needs the ml_dtypes package (NumPy has no native "
                            f"{alias.name}): {_BFLOAT16_INSTALL}; or use float16 or float32")
        return alias
    try:
        np_dtype = np.dtype(spec)
    except TypeError:
        np_dtype = None
    if np_dtype is not None and np_dtype.name == "bfloat16" and np_dtype.kind == "V":
        _load_bfloat16()  # an ml_dtypes array made by the user before tl used bfloat16
    found = _FROM_NUMPY.get(np_dtype) if np_dtype is not None else None
    if found is None:
        names = ", ".join(d.name for d in _ALL)
        raise TypeError(f"unsupported dtype {spec!r}; tinygrad_lite supports {names}")
    return found


def from_numpy_dtype(np_dtype: np.dtype) -> DType:
    """The DType of a NumPy dtype (exact match only)."""
    try:
        return _FROM_NUMPY[np_dtype]
    except KeyError:
        return to_dtype(np_dtype)


def wrap_int(value: int, np_dtype: np.dtype) -> int:
    """A Python int taken modulo 2**bits into an integer dtype's range, as PyTorch converts a
    number for an integer tensor (``uint8 tensor + (-3)`` adds 253, ``full((2,), -1,
    dtype=uint8)`` holds 255); NumPy would raise instead."""
    info = np.iinfo(np_dtype)
    span = 1 << info.bits
    value %= span
    return value - span if value > info.max else value


def checked_int(value: int, np_dtype: np.dtype) -> int:
    """A Python int converted for an integer dtype as PyTorch's ``full``/``fill_`` convert it:
    RuntimeError outside the dtype's range, except that an unsigned dtype takes negatives down
    to ``-max`` wrapped (``full((2,), -1, dtype=uint8)`` holds 255, c10's overflow rule)."""
    info = np.iinfo(np_dtype)
    low = -int(info.max) if info.min == 0 else int(info.min)
    if not low <= value <= info.max:
        raise RuntimeError(f"value cannot be converted to type {np.dtype(np_dtype).name}_t "
                           f"without overflow")
    return wrap_int(value, np_dtype)


def can_cast(source: np.dtype, target: np.dtype) -> builtins.bool:
    """PyTorch's rule for writing a result of dtype ``source`` into a tensor of dtype
    ``target`` (in-place ops, ``out=``): allowed unless it lowers the category (bool < integer
    < floating). Unlike NumPy's "same_kind", int16 into uint8 is allowed (and wraps)."""
    return _category_of_dtype(source) <= _category_of_dtype(target)


def _category_of_dtype(np_dtype: np.dtype) -> int:
    kind = np_dtype.kind
    return _BOOL if kind == "b" else _INT if kind in "iu" else _FLOAT  # (bfloat16's kind is V)


def _category_of_scalar(value: Any) -> int:
    if isinstance(value, builtins.bool):
        return _BOOL
    return _INT if isinstance(value, int) else _FLOAT


def _promote_same_tier(dtypes: list[np.dtype]) -> np.dtype | None:
    """PyTorch promotion among operands of one tier: the highest category wins outright."""
    if not dtypes:
        return None
    top = max(_FROM_NUMPY[d].category for d in dtypes)
    if top != _FLOAT and len(set(dtypes)) > 1 and not _SHELL_UNSIGNED.isdisjoint(dtypes):
        names = " and ".join(sorted({_FROM_NUMPY[d].name for d in dtypes}))
        raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {names}")
    result = None
    for d in dtypes:
        if _FROM_NUMPY[d].category == top:
            result = d if result is None else _promote_pair(result, d)
    return result


def _promote_pair(a: np.dtype, b: np.dtype) -> np.dtype:
    """PyTorch's promotion of two dtypes of one category: NumPy's, except that bfloat16 and
    float16 meet at float32 and a wider float absorbs bfloat16."""
    if a == b:
        return a
    if a is bfloat16.np or b is bfloat16.np:
        other = b if a is bfloat16.np else a
        return float32.np if other.itemsize <= 4 else other
    return np.promote_types(a, b)


# how some of PyTorch's messages name a dtype: caffe2's C++ type names ("expected dtype float
# for `end` but got dtype double")
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
              "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
              "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
              "bool": "bool"}


_SCALAR_TYPE_NAMES = {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
                      "float64": "Double", "int64": "Long", "int32": "Int", "int16": "Short",
                      "int8": "Char", "uint8": "Byte", "bool": "Bool", "uint16": "UInt16",
                      "uint32": "UInt32", "uint64": "UInt64"}


def torch_dtype_name(np_dtype: np.dtype) -> str:
    """PyTorch's ScalarType name of ``np_dtype`` in its error messages (``Long``, ``Half``)."""
    name = np.dtype(np_dtype).name
    return _SCALAR_TYPE_NAMES.get(name, name)


def cpp_type_name(np_dtype: np.dtype) -> str:
    """The C++ name PyTorch's messages give ``np_dtype`` in some errors (``double``)."""
    name = np.dtype(np_dtype).name
    return _CPP_NAMES.get(name, name)


def promote_types(a: np.dtype, b: np.dtype) -> np.dtype:
    """PyTorch's ``promote_types`` of two NumPy dtypes: the higher category wins outright
    (int64 and float16 give float16), within one category as ``_promote_pair``."""
    ca, cb = _category_of_dtype(a), _category_of_dtype(b)
    if ca != cb:
        return a if ca > cb else b
    return _promote_pair(a, b)


def result_type(*operands: Any) -> np.dtype:
    """The NumPy dtype PyTorch's promotion gives for these operands (arrays or Python scalars).

    Three tiers, as in PyTorch: dimensioned tensors, zero-dim tensors, Python scalars. A lower
    tier only matters when it has a higher category (bool < int < float) than every tier above,
    and a Python scalar then contributes its category's default dtype, so ``float32 * 2.5`` stays
    float32 and ``int64 * 2.5`` becomes float32.
    """
    dimensioned: list[np.dtype] = []
    zero_dim: list[np.dtype] = []
    scalar_cats: list[int] = []
    for op in operands:
        if isinstance(op, np.ndarray):
            (dimensioned if op.ndim else zero_dim).append(op.dtype)
        elif isinstance(op, np.generic):  # a zero-dim tensor's data can be a NumPy scalar
            zero_dim.append(op.dtype)
        else:
            scalar_cats.append(_category_of_scalar(op))
    result = _promote_same_tier(dimensioned)
    candidate = _promote_same_tier(zero_dim)
    if candidate is not None and (
        result is None or _FROM_NUMPY[candidate].category > _FROM_NUMPY[result].category
    ):
        result = candidate
    if scalar_cats:
        top = max(scalar_cats)
        if result is None or top > _FROM_NUMPY[result].category:
            result = _DEFAULT_FOR_CATEGORY[top].np
    return cast(np.dtype, result)  # None only when called without operands
