"""Tensor methods about types, devices, sizes and random filling, kept out of ``tensor.py`` so
that it stays short; ``tensor.py`` binds every function of ``METHODS`` onto ``Tensor`` by name.
Each takes the tensor first, as a method does."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes, functions, ops
from ._core.device import (
    CPU,
    DeviceUnavailableError,
    check_device,
    is_meta_array,
    meta_array,
    wants_meta,
)
from ._core.grad_mode import grad_state
from ._core.memory_format import is_in_format
from ._core.size import Size, sizes_or_keyword
from ._core.tensor_base import TensorBase, wrap
from .dtypes import finfo_of, is_float_dtype
from .functions.creation import check_creation_options
from .functions.generator import Generator, rng_of
from .functions.torch_stream import draw_dtype

__all__ = ["METHODS", "TYPE_NAMES", "type_name"]

# PyTorch's legacy type strings, by dtype name (what ``x.type()`` returns)
TYPE_NAMES = {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor",
              "float16": "torch.HalfTensor", "bfloat16": "torch.BFloat16Tensor",
              "int64": "torch.LongTensor", "int32": "torch.IntTensor",
              "int16": "torch.ShortTensor", "int8": "torch.CharTensor",
              "uint8": "torch.ByteTensor", "bool": "torch.BoolTensor",
              "uint16": "torch.UInt16Tensor", "uint32": "torch.UInt32Tensor",
              "uint64": "torch.UInt64Tensor"}
_DTYPE_OF_TYPE = {v: k for k, v in TYPE_NAMES.items()}


def type_name(dtype: Any) -> str:
    """``torch.FloatTensor`` and friends, for a dtype."""
    return TYPE_NAMES[dtypes.to_dtype(dtype).name]


def type(self: TensorBase, dtype: Any = None, non_blocking: bool = False,  # noqa: A001
         **kwargs: Any) -> Any:
    """Without arguments, the type string (``'torch.FloatTensor'``); with a dtype, a type
    string or a legacy tensor class (``tl.FloatTensor``), the tensor converted to it."""
    if dtype is None:
        return type_name(self._data.dtype)
    if isinstance(dtype, str) and dtype in _DTYPE_OF_TYPE:
        dtype = _DTYPE_OF_TYPE[dtype]
    elif hasattr(dtype, "_legacy_dtype"):
        dtype = dtype._legacy_dtype
    return ops.cast(self, dtypes.to_dtype(dtype).np)


def type_as(self: TensorBase, other: TensorBase) -> TensorBase:
    """This tensor converted to ``other``'s dtype."""
    return ops.cast(self, other._data.dtype)


def _new(self: TensorBase, fill: Any, size: tuple, dtype: Any, requires_grad: bool,
         device: Any) -> TensorBase:
    check_device(device, "new tensor", meta_ok=True)
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list, Size)) \
        else tuple(size)
    dt = self._data.dtype if dtype is None else dtypes.to_dtype(dtype).np
    dtypes.require_real(fill, dt, "new_full")
    if wants_meta(device) if device is not None else is_meta_array(self._data):
        data = meta_array(shape, dt)  # new_* follow this tensor's device, as in PyTorch
    else:
        data = np.empty(shape, dt) if fill is None else np.full(shape, fill, dt)
    out = wrap(data)
    return out.requires_grad_(True) if requires_grad else out


def new_zeros(self: TensorBase, *sizes: Any, size: Any = None, dtype: Any = None,
             device: Any = None, requires_grad: bool = False, **options: Any) -> TensorBase:
    """Zeros of ``size`` with this tensor's dtype (unless ``dtype``)."""
    check_creation_options(options, "new_zeros")
    sizes = sizes_or_keyword(sizes, size, "new_zeros", "size")
    return _new(self, 0, sizes, dtype, requires_grad, device)


def new_ones(self: TensorBase, *sizes: Any, size: Any = None, dtype: Any = None,
            device: Any = None, requires_grad: bool = False, **options: Any) -> TensorBase:
    """Ones of ``size`` with this tensor's dtype (unless ``dtype``)."""
    check_creation_options(options, "new_ones")
    sizes = sizes_or_keyword(sizes, size, "new_ones", "size")
    return _new(self, 1, sizes, dtype, requires_grad, device)


def new_empty(self: TensorBase, *sizes: Any, size: Any = None, dtype: Any = None,
             device: Any = None, requires_grad: bool = False, **options: Any) -> TensorBase:
    """An uninitialised tensor of ``size`` with this tensor's dtype (unless ``dtype``)."""
    check_creation_options(options, "new_empty")
    sizes = sizes_or_keyword(sizes, size, "new_empty", "size")
    return _new(self, None, sizes, dtype, requires_grad, device)


def new_full(self: TensorBase, size: Any, fill_value: Any, *, dtype: Any = None,
             device: Any = None, requires_grad: bool = False, **options: Any) -> TensorBase:
    """``fill_value`` in ``size`` with this tensor's dtype (unless ``dtype``)."""
    check_creation_options(options, "new_full")
    return _new(self, fill_value, (size,), dtype, requires_grad, device)


def new_tensor(self: TensorBase, data: Any, *, dtype: Any = None, device: Any = None,
               requires_grad: bool = False) -> TensorBase:
    """A new tensor from ``data`` (copied) with this tensor's dtype (unless ``dtype``)."""
    check_device(device, "new_tensor")
    arr = np.array(data._data if isinstance(data, TensorBase) else data,
                   dtype=self._data.dtype if dtype is None else dtypes.to_dtype(dtype).np)
    out = wrap(arr)
    return out.requires_grad_(True) if requires_grad else out


def nelement(self: TensorBase) -> int:
    """The number of elements (``numel``)."""
    return int(self._data.size)


def element_size(self: TensorBase) -> int:
    """Bytes per element."""
    return int(self._data.itemsize)


def is_contiguous(self: TensorBase, memory_format: Any = None) -> bool:
    """Whether the elements lie in memory without gaps in row-major order (or in the order of
    ``memory_format``, e.g. ``tl.channels_last``)."""
    return is_in_format(self._data, memory_format) and not self._expanded


def is_floating_point(self: TensorBase) -> bool:
    """Whether the dtype is a floating-point one."""
    return is_float_dtype(self._data.dtype)


def is_signed(self: TensorBase) -> bool:
    """Whether the dtype can hold negative values."""
    return self._data.dtype.kind == "i" or is_float_dtype(self._data.dtype)


def ndimension(self: TensorBase) -> int:
    """The number of dimensions (``dim()``)."""
    return int(self._data.ndim)


def get_device(self: TensorBase) -> int:
    """-1: the tensor is in CPU memory, as PyTorch says for CPU tensors."""
    return -1


def cuda(self: TensorBase, device: Any = None, non_blocking: bool = False,
         **kwargs: Any) -> TensorBase:
    """Refused: there is no GPU here (the same error as ``.to("cuda")``)."""
    raise DeviceUnavailableError(
        "cuda: tinygrad_lite was not compiled with CUDA enabled; its tensors live in CPU memory "
        "(NumPy arrays). Use .cpu() or .to('cpu'), or choose the device with "
        "tl.cuda.is_available().")


def share_memory_(self: TensorBase) -> TensorBase:
    """Accepted for portability; see ``tl.multiprocessing`` for tensors shared between
    processes."""
    return self


# -- random filling, in place (nn.init and user code fill parameters this way) ------------------

def _fill_random(self: TensorBase, values: np.ndarray, op: str) -> TensorBase:
    if grad_state.enabled and self._requires_grad and self.grad_fn is None:
        raise RuntimeError(f"{op}: a leaf Variable that requires grad is being used in an "
                           "in-place operation; wrap it in tl.no_grad()")
    self._data[...] = values
    self._version_counter[0] += 1
    return self


def uniform_(self: TensorBase, a: float = 0.0, b: float = 1.0, *,
             generator: Generator | None = None) -> TensorBase:
    """Fill with uniform values in [a, b)."""
    return _fill_random(self, rng_of(generator).uniform_as(
        a, b, self._data.shape, draw_dtype(self._data.dtype)), "uniform_")


def normal_(self: TensorBase, mean: float = 0.0, std: float = 1.0, *,
            generator: Generator | None = None) -> TensorBase:
    """Fill with normal values."""
    data = self._data
    return _fill_random(self, rng_of(generator).normal_as(
        mean, std, data.shape, draw_dtype(data.dtype), data.flags.c_contiguous), "normal_")


def bernoulli_(self: TensorBase, p: Any = 0.5, *,
               generator: Generator | None = None) -> TensorBase:
    """Fill with 0/1 draws that are 1 with probability ``p`` (a float or a tensor)."""
    probs = p._data if isinstance(p, TensorBase) else p
    draw = rng_of(generator).random(self._data.shape) < probs
    return _fill_random(self, draw, "bernoulli_")


def exponential_(self: TensorBase, lambd: float = 1.0, *,
                 generator: Generator | None = None) -> TensorBase:
    """Fill with exponential draws of rate ``lambd``."""
    return _fill_random(self, rng_of(generator).exponential_as(
        lambd, self._data.shape, draw_dtype(self._data.dtype)), "exponential_")


def geometric_(self: TensorBase, p: float, *, generator: Generator | None = None) -> TensorBase:
    """Fill with geometric draws (trials until the first success, from 1)."""
    return _fill_random(self, rng_of(generator).geometric(p, self._data.shape), "geometric_")


def log_normal_(self: TensorBase, mean: float = 1.0, std: float = 2.0, *,
                generator: Generator | None = None) -> TensorBase:
    """Fill with log-normal draws (``exp`` of normal(mean, std))."""
    return _fill_random(self, rng_of(generator).lognormal(mean, std, self._data.shape),
                        "log_normal_")


def cauchy_(self: TensorBase, median: float = 0.0, sigma: float = 1.0, *,
            generator: Generator | None = None) -> TensorBase:
    """Fill with Cauchy draws."""
    values = median + sigma * rng_of(generator).standard_cauchy(self._data.shape)
    return _fill_random(self, values, "cauchy_")


def random_(self: TensorBase, from_: int = 0, to: int | None = None, *,
            generator: Generator | None = None) -> TensorBase:
    """Fill with integers in ``[from_, to)``; ``random_(to)`` means ``[0, to)``; without
    bounds, ``[0, 2**mantissa]`` for floats or the dtype's range."""
    if to is None and from_ != 0:
        from_, to = 0, from_
    if to is None:
        dt = self._data.dtype
        to = 2 ** (finfo_of(dt).nmant + 1) if is_float_dtype(dt) else int(np.iinfo(dt).max) \
            if dt.kind in "iu" else 2
    values = rng_of(generator).integers(from_, to, self._data.shape)
    return _fill_random(self, values, "random_")


def multinomial(self: TensorBase, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None) -> TensorBase:
    """``tl.multinomial`` with this tensor as the weights."""
    return functions.multinomial(self, num_samples, replacement, generator=generator)


def bernoulli(self: TensorBase, p: float | None = None, *,
              generator: Generator | None = None) -> TensorBase:
    """``tl.bernoulli`` of this tensor's probabilities."""
    return functions.bernoulli(self, p, generator=generator)


def unfold(self: TensorBase, dimension: int, size: int, step: int) -> TensorBase:
    """Sliding windows of ``size`` elements every ``step`` along ``dimension``: that dim
    becomes the window count and a new last dim of ``size`` holds each window."""
    (d,) = ops.normalize_dims(dimension, max(self._data.ndim, 1), "unfold")
    n = self._data.shape[d] if self._data.ndim else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    starts = np.arange(0, n - size + 1, step)
    index = starts[:, None] + np.arange(size)[None, :]
    moved = functions.movedim(self, d, -1) if self._data.ndim else self.reshape(1)
    windows = moved[..., wrap(index)]  # (..., count, size)
    # a 0-d tensor is one window of its one element: shape (size,), as in PyTorch
    return functions.movedim(windows, -2, d) if self._data.ndim else windows.reshape(-1)


def _floordiv(self: TensorBase, other: Any) -> TensorBase:
    return functions.floor_divide(self, other)


def _rfloordiv(self: TensorBase, other: Any) -> TensorBase:
    return functions.floor_divide(other, self)


def _mod(self: TensorBase, other: Any) -> TensorBase:
    return functions.remainder(self, other)


def _rmod(self: TensorBase, other: Any) -> TensorBase:
    return functions.remainder(other, self)


def _shift(value: Any, amount: Any, left: bool) -> TensorBase:
    """``value << amount`` / ``>>``: ``tl.bitwise_left_shift`` / ``bitwise_right_shift``."""
    shift = functions.bitwise_left_shift if left else functions.bitwise_right_shift
    return shift(value, amount)


def _lshift(self: TensorBase, other: Any) -> TensorBase:
    return _shift(self, other, True)


def _rshift(self: TensorBase, other: Any) -> TensorBase:
    return _shift(self, other, False)


def _rlshift(self: TensorBase, other: Any) -> TensorBase:
    return _shift(other, self, True)


def _rrshift(self: TensorBase, other: Any) -> TensorBase:
    return _shift(other, self, False)


def _rand(self: TensorBase, other: Any) -> TensorBase:
    return functions.bitwise_and(self, other)  # & | ^ commute; a Python scalar keeps our dtype


def _ror(self: TensorBase, other: Any) -> TensorBase:
    return functions.bitwise_or(self, other)


def _rxor(self: TensorBase, other: Any) -> TensorBase:
    return functions.bitwise_xor(self, other)


def rebuild_tensor(cls: Any, data: np.ndarray, requires_grad: bool) -> TensorBase:
    """Unpickling: a leaf tensor (or Parameter) of ``cls`` holding ``data``."""
    t = cls.__new__(cls)
    t._data = data
    t._version_counter = [0]
    if requires_grad:
        t.requires_grad_(True)
    return t


def rebuild_meta_tensor(cls: Any, shape: tuple, dtype: np.dtype, requires_grad: bool
                        ) -> TensorBase:
    """Unpickling (``copy.deepcopy``) a meta tensor: a meta tensor of the same shape and dtype."""
    return rebuild_tensor(cls, meta_array(shape, dtype), requires_grad)


def _reduce_ex(self: TensorBase, protocol: Any) -> tuple:
    """Pickling (multiprocessing, ``copy``): the values and ``requires_grad``; the graph that
    made a non-leaf tensor is not part of it, as in PyTorch."""
    if is_meta_array(self._data):  # copying its placeholder would allocate the whole shape
        return (rebuild_meta_tensor, (self.__class__, self._data.shape, self._data.dtype,
                                      self._requires_grad))
    return (rebuild_tensor, (self.__class__, self._data, self._requires_grad))


def _deepcopy(self: TensorBase, memo: dict) -> TensorBase:
    if id(self) in memo:
        return memo[id(self)]
    if self.grad_fn is not None:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                           "the deepcopy protocol at the moment. If you were attempting to "
                           "deepcopy a module, this may be because of a torch.nn.utils."
                           "weight_norm usage, see https://github.com/pytorch/pytorch/pull/"
                           "103001")
    data = self._data
    copied = rebuild_tensor(self.__class__, meta_array(data.shape, data.dtype)
                            if is_meta_array(data) else data.copy(), self._requires_grad)
    memo[id(self)] = copied
    if self._grad is not None:
        copied._grad = _deepcopy(self._grad, memo)
    for name, value in getattr(self, "__dict__", {}).items():  # e.g. Buffer's persistent flag
        if name not in ("_data", "_version_counter", "_grad", "grad_fn", "_requires_grad") \
                and not name.startswith("_backward") and not name.startswith("_post"):
            setattr(copied, name, value)
    return copied


OPERATORS = {"__floordiv__": _floordiv, "__rfloordiv__": _rfloordiv, "__mod__": _mod,
             "__rmod__": _rmod, "__lshift__": _lshift, "__rshift__": _rshift,
             "__rlshift__": _rlshift, "__rrshift__": _rrshift, "__rand__": _rand,
             "__ror__": _ror, "__rxor__": _rxor,
             "__reduce_ex__": _reduce_ex, "__deepcopy__": _deepcopy}

def byte(self: TensorBase) -> TensorBase:
    """Convert to uint8."""
    return ops.cast(self, np.dtype(np.uint8))


def char(self: TensorBase) -> TensorBase:
    """Convert to int8."""
    return ops.cast(self, np.dtype(np.int8))


def short(self: TensorBase) -> TensorBase:
    """Convert to int16."""
    return ops.cast(self, np.dtype(np.int16))


def sum_to_size(self: TensorBase, *sizes: Any, size: Any = None) -> TensorBase:
    """Sum this tensor down to ``size``, which it must be expandable from (the reverse of
    ``expand``: leading dims summed away, size-1 dims summed with keepdim)."""
    size = sizes_or_keyword(sizes, size, "sum_to_size", "size")
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list, Size)) \
        else tuple(size)
    have = self._data.shape
    lead = len(have) - len(shape)
    if lead < 0 or any(s != 1 and s != h for s, h in zip(shape, have[lead:])):
        raise RuntimeError(f"size {list(shape)} is not expandable to size {list(have)}")
    out = self
    if lead:
        out = ops.reduce_sum(out, tuple(range(lead)), False)
    dims = tuple(i for i, (s, h) in enumerate(zip(shape, have[lead:])) if s == 1 and h != 1)
    return ops.reduce_sum(out, dims, True) if dims else out


METHODS = {f.__name__: f for f in (
    type, type_as, new_zeros, new_ones, new_empty, new_full, new_tensor, nelement,
    element_size, is_contiguous, is_floating_point, is_signed, ndimension,
    get_device, cuda, share_memory_, uniform_, normal_, bernoulli_, exponential_, geometric_,
    log_normal_, cauchy_, random_, multinomial, bernoulli, unfold, byte, char, short,
    sum_to_size)} | OPERATORS
PROPERTIES = {"is_cuda": False, "is_sparse": False, "is_quantized": False,
              "is_mps": False, "layout": "torch.strided"}
DEVICE = CPU
