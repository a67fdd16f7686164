"""Helpers shared by the primitive ops: recording decision, promotion, broadcasting, dims."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from .. import dtypes
from .._core.array_conversion import to_array
from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase, wrap

_NP_ONES = np.ones  # (see _ones)

# np.broadcast_to costs ~4 us whatever the size (measured at 8x8: 3.8 us against 0.9 us for
# allocating and filling a copy), so small broadcasts are materialised and large ones are views.
SMALL = 4096


_ZEROS: dict = {}


def zero_of(dtype: np.dtype) -> np.ndarray:
    """A shared, read-only 0-d zero of ``dtype``. NumPy takes it faster than the Python ``0``,
    which it must first convert (8x8 float32: np.maximum 0.6 against 1.1 us, np.where 1.2
    against 1.7 us)."""
    zero = _ZEROS.get(dtype)
    if zero is None:
        zero = _ZEROS[dtype] = np.zeros((), dtype)
        zero.flags.writeable = False
    return zero


def as_tensor(value: object, like: TensorBase) -> TensorBase:
    """A non-tensor operand (Python scalar, array, list) as a tensor; scalars keep PyTorch's
    'weak' typing, so ``float32_tensor * 2.5`` stays float32."""
    if isinstance(value, (bool, int, float)):
        dtype = scalar_result_dtype(like._data.dtype, value)
        try:
            return wrap(np.asarray(value, dtype=dtype))
        except OverflowError:  # an int outside an integer dtype's range (a bool never is)
            return wrap(np.asarray(dtypes.wrap_int(int(value), dtype), dtype=dtype))
    if isinstance(value, TensorBase):
        return value
    if getattr(value, "is_sparse", False) is True and hasattr(value, "to_dense"):
        # dense <op> sparse (tl.sparse, a layer above): the sparse operand densified, a
        # differentiable step, so dense + adj and dense - adj give PyTorch's dense results
        return value.to_dense()
    if isinstance(value, complex) or (isinstance(value, (np.ndarray, np.generic))
                                      and np.asarray(value).dtype.kind == "c"):
        # dropping the imaginary part would give a silently wrong result
        raise TypeError(f"complex operands are not supported: a tensor of dtype "
                        f"{like._data.dtype} and shape {like._data.shape} cannot be combined with "
                        f"{type(value).__name__} {value!r} (tinygrad_lite has no complex dtypes)")
    if isinstance(value, (np.ndarray, np.generic)):
        return wrap(np.asarray(value))
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"unsupported operand type(s): a tensor of dtype {like._data.dtype} and "
                        f"shape {like._data.shape} cannot be combined with "
                        f"{type(value).__name__} {value!r}")
    return wrap(to_array(value, None, float_default=True))  # like Tensor(value)


def scalar_result_dtype(dtype: np.dtype, value: bool | int | float) -> np.dtype:
    """The dtype of ``tensor <op> python_scalar``: the tensor's, unless the scalar is of a higher
    category (bool < int < float), which then gives that category's default (int64, float32)."""
    kind = dtype.kind
    if isinstance(value, bool) or (isinstance(value, int) and kind != "b") or kind == "f":
        return dtype
    return dtypes.result_type(np.empty(1, dtype), value)


def broadcast_mismatch(sa: tuple, sb: tuple) -> str | None:
    """PyTorch's reason why shapes ``sa`` and ``sb`` do not broadcast, naming the first
    clashing dim ("the size of tensor a (2) must match ..."), or None if they do."""
    rank = max(len(sa), len(sb))
    for i in range(1, rank + 1):
        da = sa[-i] if i <= len(sa) else 1
        db = sb[-i] if i <= len(sb) else 1
        if da != db and da != 1 and db != 1:
            return (f"the size of tensor a ({da}) must match the size of tensor b ({db}) at "
                    f"non-singleton dimension {rank - i}")
    return None


def broadcast_error(op: str, a: TensorBase, b: TensorBase) -> RuntimeError:
    """The error for operands whose shapes do not broadcast, naming the first clashing dim."""
    sa, sb = a._data.shape, b._data.shape
    why = broadcast_mismatch(sa, sb)
    return RuntimeError(f"{op}: shapes {sa} and {sb} cannot be broadcast together"
                        + (f": {why}" if why else ""))


def require_broadcastable_to(shape: tuple, target: tuple, op: str, what: str,
                             target_name: str) -> None:
    """Raise unless ``shape`` broadcasts to exactly ``target`` (an in-place write's rule)."""
    try:
        ok = np.broadcast_shapes(shape, target) == target
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"{op}: the {what} of shape {shape} must be broadcastable to the "
                           f"{target_name}'s shape {target}")


# The float dtypes NumPy has fast loops and a GEMM for: the array fast paths take these (16-bit
# floats keep NumPy's reductions, which accumulate them in float32).
FAST_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# Up to this many terms, a sum of products is one einsum pass with no product array (3-4x
# faster than a product and a sum); beyond, the pairwise sum of ``np.add.reduce`` keeps float32
# rounding low.
EINSUM_MAX_TERMS = 4096


def last_axis_dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``sum(a * b, axis=-1, keepdims=True)``: for two C-contiguous float32/float64 arrays of
    one shape with rows of at most ``EINSUM_MAX_TERMS``, one ``einsum`` pass with no product
    array."""
    if (a.shape == b.shape and a.ndim and 0 < a.shape[-1] <= EINSUM_MAX_TERMS
            and a.dtype == b.dtype and a.dtype in FAST_FLOATS
            and a.flags.c_contiguous and b.flags.c_contiguous):
        rows = np.einsum("ij,ij->i", a.reshape(-1, a.shape[-1]), b.reshape(-1, b.shape[-1]))
        return rows.reshape(a.shape[:-1] + (1,))
    return array_sum(np.multiply(a, b), -1, keepdims=True)


_SAME_SIZE_INT: dict[int, np.dtype] = {2: np.dtype(np.int16), 4: np.dtype(np.int32),
                                     8: np.dtype(np.int64)}


def masked_bits(grad: np.ndarray, mask: np.ndarray, out: np.ndarray | None = None
                ) -> np.ndarray | None:
    """``grad`` where the bool ``mask`` holds and +0.0 elsewhere, exactly (inf and NaN pass
    where kept, and give 0 where not, as PyTorch's masked gradients do): the bit patterns are
    multiplied by the mask as integers, one branch-free pass (a floating ``grad * mask`` would
    turn inf * 0 into NaN; ``np.where`` branches per element). Written into ``out`` when given;
    None when ``grad`` is not a 2/4/8-byte float array of the mask's shape."""
    ints = _SAME_SIZE_INT.get(grad.dtype.itemsize)
    if ints is None or not dtypes.is_float_dtype(grad.dtype) or grad.shape != mask.shape:
        return None
    if out is None:
        return np.multiply(grad.view(ints), mask).view(grad.dtype)
    np.multiply(grad.view(ints), mask, out=out.view(ints))
    return out


# From this many elements, ``select`` picks by bit masks: np.where branches per element, which
# on a random mask costs ~5 ns each (2M floats: 10 ms against about 2 ms)
_SELECT_MIN_SIZE = 4096


def select(mask: np.ndarray, x: Any, y: Any) -> np.ndarray:
    """``np.where(mask, x, y)`` for a bool array and two arrays (or a Python 0 on one side),
    exactly, branch-free when all are floats of the mask's shape and large: each side's bit
    pattern kept by its mask and the two or-ed (one of them is all zero bits)."""
    if mask.size >= _SELECT_MIN_SIZE and mask.dtype == np.bool_:
        if isinstance(x, np.ndarray) and isinstance(y, (int, float)) and y == 0 \
                and math.copysign(1, y) > 0:
            kept = masked_bits(x, mask)
            if kept is not None:
                return kept
        elif isinstance(y, np.ndarray) and isinstance(x, (int, float)) and x == 0 \
                and math.copysign(1, x) > 0:
            kept = masked_bits(y, ~mask)
            if kept is not None:
                return kept
        elif (isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and x.dtype == y.dtype
              and x.shape == y.shape):
            kept = masked_bits(x, mask)
            if kept is not None:
                ints = _SAME_SIZE_INT[x.dtype.itemsize]
                other = np.multiply(y.view(ints), ~mask)
                np.bitwise_or(kept.view(ints), other, out=kept.view(ints))
                return kept
    return np.where(mask, x, y)


def sum_to(grad, shape: tuple):
    """Sum a broadcast gradient (array or Tensor) back down to ``shape``."""
    if grad.shape == shape:
        return grad
    lead = grad.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and grad.shape[lead + i] != 1
    )
    if is_array(grad):
        return array_sum(grad, dims).reshape(shape)
    return grad.sum(dims).reshape(shape)  # a Tensor under create_graph: recorded


def is_half_float(dtype: np.dtype) -> bool:
    """Whether ``dtype`` is float16 or bfloat16: the dtypes PyTorch's CPU sums, means and scans
    accumulate in float32, rounding once at the end (NumPy's float16 loops round after every
    step along any but the innermost axis and in every ``accumulate``; ml_dtypes' bfloat16
    loops always do)."""
    # itemsize first: the test costs float32 and float64 arrays one attribute read (hot path)
    return dtype.itemsize == 2 and (dtype.kind == "f" or dtype is dtypes.bfloat16.np)


def writable(result: Any) -> np.ndarray:
    """A ufunc's result as an array that later in-place passes (``out=``) can write into:
    NumPy returns a scalar, not a 0-d array, when every operand is 0-d."""
    return result if type(result) is np.ndarray else np.array(result)


def array_sum(data: np.ndarray, axis, keepdims: bool = False) -> np.ndarray:
    """``np.add.reduce(data, axis)``; a float16 or bfloat16 array accumulates in float32, as
    PyTorch's kernels do (ml_dtypes' own loop accumulates in bfloat16: 10,000 ones sum to 256;
    NumPy's float16 one overflows on [6e4, 6e4, -6e4] summed along an outer axis)."""
    # NumPy's stubs type ``keepdims`` only as a literal True or False, not as a bool variable
    if is_half_float(data.dtype):
        return np.add.reduce(data, axis=axis, dtype=np.float32,  # type: ignore[call-overload]
                             keepdims=keepdims).astype(data.dtype)
    return np.add.reduce(data, axis=axis, keepdims=keepdims)  # type: ignore[call-overload]


def sum_rows(grad):
    """``grad.sum(0)`` (a bias's gradient) of an array or a tensor. A float32/float64 matrix
    is summed as ``ones @ grad`` (BLAS's GEMV, 2-5x faster than NumPy's reduction over the
    outer axis, which adds one row at a time; both sum each column in float32 or float64)."""
    if not is_array(grad):
        return grad.sum(0)
    if grad.ndim == 2 and grad.dtype.kind == "f" and grad.dtype.itemsize >= 4:
        return np.matmul(_ones(grad.shape[0], grad.dtype), grad)
    return array_sum(grad, 0)


@functools.lru_cache(maxsize=64)
def _ones(n: int, dtype: np.dtype) -> np.ndarray:
    """A read-only vector of ``n`` ones (made with NumPy's own ``ones``, taken at import: the
    compiler's tracing swaps ``np.ones`` for a recorded one while it runs)."""
    ones = _NP_ONES(n, dtype)
    ones.flags.writeable = False
    return ones


def require_int_dim(dim: Any, op: str) -> None:
    """PyTorch's TypeError where one int dim is taken and something else came."""
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{op}(): argument 'dim' must be int, not {type(dim).__name__}")


def normalize_dims(dim: int | np.integer | tuple | list | None, ndim: int,
                   op: str) -> tuple[int, ...]:
    """``dim`` (None, int or sequence; negatives allowed) as sorted, range-checked axes."""
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    rank = max(ndim, 1)  # PyTorch accepts dim 0 and -1 on a 0-dim tensor
    out = []
    for d in dims:
        if not -rank <= d < rank:
            raise IndexError(
                f"{op}: dimension out of range (expected to be in range of [{-rank}, {rank - 1}], "
                f"but got {d})"
            )
        out.append(int(d) % rank)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{op}: dim {dims} contains a repeated dimension")
    return tuple(sorted(out)) if ndim else ()


def unary_result(out, x: TensorBase, node_cls: type[Node], save: str | None = None
                 ) -> TensorBase:
    """Wrap ``out = f(x)``; when recording, attach a ``node_cls`` node that keeps ``x``
    (``save="input"``) or the result itself (``save="output"``) for its backward rule."""
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = node_cls(x)
    result = wrap(out, node)
    if save == "input":
        node.save_for_backward(x)
    elif save == "output":
        node.save_output(result)
    return result


# -- helpers for backward rules -----------------------------------------------------------------
# A backward rule runs on NumPy arrays in a plain backward (fast: no wrappers, nothing recorded)
# and on Tensors under create_graph=True (recorded, so it can be differentiated again). Rules use
# operators, ``.shape``/``.reshape`` and the helpers below, which work on either.


def is_array(x: object) -> bool:
    """True in a plain backward, where rules see NumPy arrays (or NumPy scalars, which NumPy
    returns for 0-d results) instead of Tensors."""
    return not isinstance(x, TensorBase)


def array_of(x: object) -> np.ndarray:
    """The NumPy array behind ``x`` (a Tensor or already an array)."""
    return x._data if isinstance(x, TensorBase) else np.asarray(x)


def swap_last_dims(x):
    """The batched matrix transpose ``x.mT``."""
    return x.swapaxes(-1, -2) if is_array(x) else x.mT


def constant(value: np.ndarray, like):
    """A NumPy constant (mask, share) in the form a rule needs: as is next to arrays, wrapped
    as a tensor next to tensors (under create_graph)."""
    return value if is_array(like) else wrap(value)


def open_grid(shape: tuple) -> list:
    """``np.ogrid`` for ``shape`` (index arrays that broadcast against each other), built
    directly: ``np.ogrid`` itself costs ~20 us per call."""
    ndim = len(shape)
    return [np.arange(n).reshape((1,) * i + (n,) + (1,) * (ndim - i - 1))
            for i, n in enumerate(shape)]


def unary_rule(name: str, x):
    """``np.<name>(x)`` for arrays; the Tensor method of that name otherwise (exp, log, sin,
    cos), so the rule is recorded under create_graph."""
    if is_array(x):
        return getattr(np, name)(x)
    return getattr(x, name)()


def ufunc_at(ufunc: np.ufunc, out: np.ndarray, index, values) -> None:
    """``ufunc.at(out, index, values)`` (e.g. ``np.add.at``: repeated indices all take part).

    Where ``index`` is a tuple of integer arrays (a gather/scatter grid, an embedding's rows),
    the positions are turned into one flat index first: NumPy's ``ufunc.at`` has a fast loop
    for a single 1-D index only, and is 5x slower on a multi-dimensional one."""
    index_arrays = _integer_arrays(index, out.shape)
    if index_arrays is None or np.size(values) < SMALL or not out.flags.c_contiguous:
        ufunc.at(out, index, values)  # (below SMALL, building the flat index costs more)
        return
    rows = _row_numbers(index_arrays, out.shape)
    if rows is None:
        ufunc.at(out, index, values)
        return
    rest = out.shape[len(index_arrays):]
    block = math.prod(rest)
    flat = rows.reshape(rows.shape + (1,) * len(rest)) * block + np.arange(block).reshape(rest)
    ufunc.at(out.reshape(-1), flat.reshape(-1), np.broadcast_to(values, flat.shape).reshape(-1))


def take_at(data: np.ndarray, index):
    """``data[index]`` for an advanced index. One integer array is ``take`` along the first
    axis (2-4x faster than NumPy's fancy indexing); several, when large, are turned into one
    row number for ``take`` (1.8x faster)."""
    index_arrays = _integer_arrays(index, data.shape)
    if index_arrays is None:
        return data[index]
    if len(index_arrays) == 1:
        return data.take(index_arrays[0], 0)
    if not data.flags.c_contiguous or max(i.size for i in index_arrays) < 4 * SMALL:
        return data[index]
    rows = _row_numbers(index_arrays, data.shape)
    if rows is None:
        return data[index]
    k = len(index_arrays)
    return data.reshape((math.prod(data.shape[:k]),) + data.shape[k:]).take(rows, 0)


def _integer_arrays(index, shape: tuple) -> tuple | None:
    """``index`` as a tuple of at most ``len(shape)`` integer arrays (the remaining dims taken
    whole: trailing ``:`` and ``...`` dropped), or None for any other index."""
    if not isinstance(index, tuple):
        return None
    whole = slice(None)
    while index and (index[-1] is Ellipsis or  # x[i, :] and x[i, ...] read what x[i] does
                     (isinstance(index[-1], slice) and index[-1] == whole)):
        index = index[:-1]
    if not index or len(index) > len(shape):
        return None
    if not all(isinstance(i, np.ndarray) and i.dtype.kind in "iu" for i in index):
        return None
    return index


def _row_numbers(index_arrays: tuple, shape: tuple) -> np.ndarray | None:
    """The row-major number of the element (or trailing block) each combination of
    ``index_arrays`` picks in an array of ``shape``, broadcast to their common shape; None
    where an index is out of range (NumPy's own IndexError then names the axis)."""
    stride, rows = 1, None
    for positions, n in zip(reversed(index_arrays), reversed(shape[:len(index_arrays)])):
        positions = positions.astype(np.int64, copy=False)
        if positions.size:
            low, high = positions.min(), positions.max()
            if low < -n or high >= n:
                return None
            if low < 0:
                positions = np.where(positions < 0, positions + n, positions)
        term = positions * stride
        rows = term if rows is None else rows + term
        stride *= n
    return rows


class _DelayedErrorBackward(Node):
    """Stands in for the graph of a backward computed on NumPy arrays under ``create_graph``
    (PyTorch's ``once_differentiable``): differentiating it raises."""

    fn_name: str  # e.g. "FlashAttention.backward"

    def backward(self, *grads: Any) -> tuple:
        """Always raises: the backward it stands for recorded no graph."""
        raise RuntimeError(
            f"trying to differentiate twice a function that was marked with "
            f"@once_differentiable ({self.fn_name}); write its backward in tensor ops, without "
            f"once_differentiable, to allow double backward{self._where()}"
        )


def first_order_grads(fn_name: str, sources: tuple, grads: tuple) -> tuple:
    """The input gradients ``grads`` (arrays or None) of a rule with a NumPy-only backward, for
    a backward under ``create_graph``: as tensors that a second differentiation through reports
    (with ``fn_name``) instead of silently treating as constants, when any of ``sources`` (the
    incoming gradients and saved tensors) requires grad."""
    tensors = tuple(None if g is None else wrap(g) for g in grads)
    if not (grad_state.enabled and any(isinstance(t, TensorBase) and t._requires_grad
                                       for t in sources)):
        return tensors
    node = _DelayedErrorBackward(*[t for t in sources if isinstance(t, TensorBase)])
    node.fn_name = fn_name
    node.n_outputs = len(grads)
    node._direct = node.n_outputs == 1
    out = []
    for nr, g in enumerate(tensors):
        if g is not None:
            g = wrap(g._data, node)
            g._output_nr = nr
        out.append(g)
    return tuple(out)
