"""Reduction and linear-algebra primitives: sum, amax/amin, matmul."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes
from .._core.autocast_state import autocast_state
from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import (
    array_of,
    array_sum,
    is_array,
    is_half_float,
    masked_bits,
    normalize_dims,
    sum_rows,
    sum_to,
    swap_last_dims,
    wrap,
)
from .elementwise import autocast_lower, cast
from .movement import broadcast_to

_INT64 = np.dtype(np.int64)
_HALF = np.dtype(np.float16)
_SINGLE = np.dtype(np.float32)


def _kept_shape(shape: tuple, dims: tuple | None) -> tuple:
    """``shape`` with the reduced ``dims`` (None: all) set to 1, as keepdim=True gives."""
    if dims is None:
        return (1,) * len(shape)
    return tuple(1 if i in dims else n for i, n in enumerate(shape))


class SumBackward0(Node):
    input_shape: tuple[int, ...]
    # set when the reduced dims were dropped; else grad broadcasts as it is
    kept_shape: tuple[int, ...] | None = None

    def backward(self, grad):
        if self.kept_shape is not None:
            grad = grad.reshape(self.kept_shape)
        return (broadcast_to(grad, self.input_shape),)


class SumBackward1(SumBackward0):
    """Sum over some dimensions (PyTorch's name for ``sum(dim=...)``)."""


def reduce_sum(x: TensorBase, dim=None, keepdim: bool = False, dtype=None) -> TensorBase:
    """Sum over ``dim`` (int, tuple or None: all); bool and int sums give int64, as in PyTorch.
    An empty ``dim`` (``()``, ``[]``) sums over all dims, as PyTorch's does."""
    dims = None if dim is None else normalize_dims(dim, x._data.ndim, "sum") or None
    if dtype is not None:
        x = cast(x, dtypes.to_dtype(dtype).np)
    elif x._data.dtype.kind in "biu":
        x = cast(x, _INT64)
    out = np.asarray(array_sum(x._data, dims, keepdim))
    if dtype is not None and out.dtype != x._data.dtype:
        out = out.astype(x._data.dtype)  # NumPy sums int32 in int64; sum(dtype=int32) is int32
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = SumBackward0(x) if dim is None else SumBackward1(x)
    node.input_shape = x._data.shape
    if dims and not keepdim:
        node.kept_shape = _kept_shape(x._data.shape, dims)
    return wrap(out, node)


class MeanBackward0(SumBackward0):
    """Mean of all elements: the gradient divided by the count, spread back."""

    count: int

    def backward(self, grad):
        if is_array(grad):
            with np.errstate(divide="ignore", invalid="ignore"):  # an empty mean: NaN
                return super().backward(grad / grad.dtype.type(self.count))
        return super().backward(grad / self.count)


class MeanBackward1(MeanBackward0):
    """Mean over some dimensions (PyTorch's name for ``mean(dim=...)``)."""


def reduce_mean(x: TensorBase, dim=None, keepdim: bool = False) -> TensorBase:
    """Mean over ``dim`` (int, tuple or None: all) of a floating tensor: the sum divided by
    the count in the tensor's dtype (one node, PyTorch's ``MeanBackward``). An empty ``dim``
    reduces all dims, as in PyTorch."""
    dims = None if dim is None else normalize_dims(dim, x._data.ndim, "mean") or None
    shape = x._data.shape
    count = x._data.size if dims is None else int(np.prod([shape[d] for d in dims]))
    half = is_half_float(x._data.dtype)
    # float16/bfloat16: the sum and the division in float32, rounded once (PyTorch: the mean
    # of [6e4, 6e4] in float16 is 6e4, though their sum is inf there)
    out = np.asarray(np.add.reduce(x._data, axis=dims,  # type: ignore[call-overload]
                                   dtype=_SINGLE if half else None, keepdims=keepdim))
    with np.errstate(divide="ignore", invalid="ignore"):  # the mean of nothing is NaN
        out = np.divide(out, out.dtype.type(count), out=out if out.ndim else None)
    out = np.asarray(out).astype(x._data.dtype) if half else out
    if not (grad_state.enabled and x._requires_grad):
        return wrap(np.asarray(out))
    node = MeanBackward0(x) if dim is None else MeanBackward1(x)
    node.input_shape, node.count = shape, count
    if dims and not keepdim:
        node.kept_shape = _kept_shape(shape, dims)
    return wrap(np.asarray(out), node)


class AmaxBackward0(Node):
    dims: tuple[int, ...]
    kept_shape: tuple[int, ...]
    # whether a NaN result's gradient is shared by the NaNs (PyTorch's full reductions: max(),
    # min(), median()); amax/amin compare values only, so a NaN result gives NaN gradients
    nan_ties = False

    def backward(self, grad):
        x = array_of(self.saved_tensors[0])
        out = array_of(self.saved_output()).reshape(self.kept_shape)
        # The gradient is shared evenly among the elements equal to the maximum, as in PyTorch;
        # each element's share is a constant.
        hit = x == out
        if self.nan_ties and x.dtype.kind == "f":
            hit |= np.isnan(x) & np.isnan(out)
        hits = hit.astype(x.dtype)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = hits / hits.sum(axis=self.dims, keepdims=True)
        result = (share if is_array(grad) else wrap(share)) * grad.reshape(self.kept_shape)
        if self.nan_ties and is_array(result):
            # PyTorch's full max()/min()/median() fill the hits and leave exact zeros elsewhere
            # (a NaN gradient stays off the other elements); amax/amin multiply by the mask
            kept = masked_bits(result, hit)
            result = kept if kept is not None else result
        return (result,)


class MaxBackward1(AmaxBackward0):
    """``max()`` over all elements (PyTorch's name)."""

    nan_ties = True


class AminBackward0(AmaxBackward0):
    """``amin``: the same rule, ties share the gradient."""


class MinBackward1(AmaxBackward0):
    """``min()`` over all elements (PyTorch's name)."""

    nan_ties = True


class MedianBackward0(AmaxBackward0):
    """``median()`` over all elements: the elements equal to the median share the gradient."""

    nan_ties = True


class NanmedianBackward0(MedianBackward0):
    """``nanmedian()`` over all elements."""


def select_evenly(x: TensorBase, value: np.ndarray, node_cls: type[AmaxBackward0]
                  ) -> TensorBase:
    """The 0-d result ``value`` of a reduction of all of ``x`` that picks one of its elements
    (a median): its gradient is shared evenly by the elements equal to it (by the NaNs when it
    is NaN), as PyTorch shares it."""
    out = np.asarray(value, dtype=x._data.dtype).reshape(())
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = node_cls(x)
    node.save_for_backward(x)
    node.dims = tuple(range(x._data.ndim))
    node.kept_shape = (1,) * x._data.ndim
    result = wrap(out, node)
    node.save_output(result)
    return result


_EXTREMUM_NODES = {"max": MaxBackward1, "amax": AmaxBackward0, "min": MinBackward1,
                   "amin": AminBackward0}


def empty_reduction_check(shape: tuple, dim: Any, dims: tuple, name: str,
                          error: type[Exception] = RuntimeError) -> None:
    """PyTorch's errors for a max/min-like reduction of an empty tensor: over all elements
    (``error``, RuntimeError for the values, IndexError for the arg- functions), or over a dim of
    size 0 (IndexError); reducing other dims of an empty tensor gives an empty result."""
    if dim is None:
        raise error(f"{name}(): Expected reduction dim to be specified for input.numel() == 0 "
                    f"(a tensor of shape {tuple(shape)}). Specify the reduction dim with the "
                    f"'dim' argument.")
    for d in dims:
        if shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size "
                             f"(a tensor of shape {tuple(shape)}).")


def amax(x: TensorBase, dim=None, keepdim: bool = False, name: str = "amax") -> TensorBase:
    """Maximum (``name`` amax/max) or minimum (amin/min) over ``dim`` (int, tuple or None for
    all); ties share the gradient equally."""
    dims = normalize_dims(dim, x._data.ndim, name)
    if x._data.size == 0:
        empty_reduction_check(x._data.shape, dim, dims, name)
    reducer = x._data.min if name in ("min", "amin") else x._data.max
    out = np.asarray(reducer(axis=dims, keepdims=keepdim))
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = _EXTREMUM_NODES[name](x)
    node.save_for_backward(x)
    node.dims = dims
    node.kept_shape = _kept_shape(x._data.shape, dims)
    result = wrap(out, node)
    node.save_output(result)
    return result


def mm(a, b):
    """``a @ b`` for arrays or tensors. NumPy has no half-precision GEMM (a float16 product
    runs a scalar loop, ~100x slower; ml_dtypes' bfloat16 one also returns float32): 16-bit
    float operands are multiplied as float32 and the result rounded back, which is also how
    PyTorch's CPU kernels accumulate."""
    if is_array(a) and a.dtype.itemsize == 2 and (a.dtype == _HALF
                                                 or a.dtype is dtypes.bfloat16.np):
        return np.matmul(a.astype(_SINGLE), b.astype(_SINGLE)).astype(a.dtype)
    return a @ b


def mm_into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = a @ b`` on arrays, BLAS writing straight into ``out`` where NumPy has a GEMM
    for the dtype (float32/float64; 16-bit ones go through ``mm``)."""
    if out.dtype.itemsize >= 4 and out.dtype.kind == "f":
        np.matmul(a, b, out=out)
    else:
        out[...] = mm(a, b)


class MmBackward0(Node):
    def backward(self, grad):
        a, b = self.saved_tensors
        ea, eb = self.next_edges
        if len(a.shape) > 2 and all(d == 1 for d in b.shape[:-2]):
            # a batch times one matrix (2-D, or with batch dims of size 1): fold the batch into
            # the rows, so each gradient is one 2-D GEMM (the matrix's sum over the batch
            # inside it) instead of a stack of products and a sum (a transposed convolution's
            # weight gradient was a (N, ..., K, M) temporary)
            k, n = b.shape[-2:]
            grad2 = grad.reshape(-1, n)
            matrix = b.reshape(k, n)
            return (mm(grad2, swap_last_dims(matrix)).reshape(a.shape) if ea else None,
                    mm(swap_last_dims(a.reshape(-1, k)), grad2).reshape(b.shape)
                    if eb else None)
        return (sum_to(mm(grad, swap_last_dims(b)), a.shape) if ea else None,
                sum_to(mm(swap_last_dims(a), grad), b.shape) if eb else None)


def require_same_dtype(op: str, *tensors: TensorBase | None) -> None:
    """PyTorch's matrix products do not promote: a float64 batch into a float32 layer is a
    mistake to report (it would silently double the cost and hide a missing ``.float()``)."""
    present = [t for t in tensors if t is not None]
    first = present[0]._data.dtype
    if any(t._data.dtype != first for t in present[1:]):
        names = ", ".join(str(dtypes.from_numpy_dtype(t._data.dtype)) for t in present)
        shapes = ", ".join(str(tuple(t._data.shape)) for t in present)
        raise RuntimeError(
            f"{op}: expected all operands to have the same dtype, but got {names} (shapes "
            f"{shapes}); convert one side, e.g. input.float() or layer.double()")


def matmul2d(a: TensorBase, b: TensorBase) -> TensorBase:
    """Matrix product of operands with at least 2 dims each (batch dims broadcast)."""
    if autocast_state.dtype is not None:
        a, b = autocast_lower(a, b)
    require_same_dtype("matmul", a, b)
    if a._data.shape[-1] != b._data.shape[-2]:
        raise RuntimeError(
            f"matmul: shapes {a._data.shape} and {b._data.shape} cannot be multiplied: a.shape[-1] "
            f"({a._data.shape[-1]}) must equal b.shape[-2] ({b._data.shape[-2]})"
        )
    try:
        if a._data.ndim > 2 and all(d == 1 for d in b._data.shape[:-2]):
            # a batch times one matrix (2-D, or with size-1 batch dims): one 2-D GEMM over the
            # folded batch, not a GEMM per batch entry
            k, n = b._data.shape[-2:]
            batch = np.broadcast_shapes(a._data.shape[:-2], b._data.shape[:-2])
            out = mm(a._data.reshape(-1, k), b._data.reshape(k, n)).reshape(
                batch + (a._data.shape[-2], n))
        else:
            out = mm(a._data, b._data)
    except ValueError:
        raise RuntimeError(
            f"matmul: the batch dimensions of {a._data.shape} and {b._data.shape} cannot be "
            "broadcast together"
        ) from None
    if not (grad_state.enabled and (a._requires_grad or b._requires_grad)):
        return wrap(out)
    node = MmBackward0(a, b)
    node.save_for_backward(a, b)
    return wrap(out, node)


class AddmmBackward0(Node):
    """Backward of ``linear``: PyTorch's name for the node of ``nn.Linear`` on a batch."""

    bias_shape: tuple[int, ...]  # set when there is a bias

    def name(self) -> str:
        """``AddmmBackward0`` with a bias, ``MmBackward0`` without, as PyTorch names them."""
        return "AddmmBackward0" if len(self.next_edges) == 3 else "MmBackward0"

    def backward(self, grad):
        x, w = self.saved_tensors
        edges = self.next_edges
        # batch dims flattened: (N, out), one 2-D GEMM (N spelled out: -1 is ambiguous when a
        # size is 0)
        rows = math.prod(x.shape[:-1])
        grad2 = grad.reshape(rows, w.shape[0])
        grad_x = mm(grad2, w).reshape(x.shape) if edges[0] else None
        grad_w = mm(swap_last_dims(grad2), x.reshape(rows, w.shape[1])) if edges[1] else None
        grad_b = sum_to(sum_rows(grad2), self.bias_shape) if len(edges) == 3 and edges[2] else None
        return grad_x, grad_w, grad_b


def linear_rows(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None) -> np.ndarray:
    """``x @ weight.T + bias`` for a batch ``x`` (rows, in_features) or one input, a fresh C-ordered
    array. OpenBLAS computes this product 1.2-2x faster as ``weight @ x.T`` when the batch has
    at most half as many rows as there are output features (32 rows into 256 features: 126 ->
    95 us on this machine kind, one or two threads; with as many rows as features it is the
    other way round), so a small batch takes that form and the bias add (or a copy) lays the
    transposed result out row by row. Each element is the same dot product either way."""
    rows, inner = x.shape if x.ndim == 2 else (0, 0)  # (a 1-D input: one GEMV)
    features = weight.shape[0]
    if (rows and 2 * rows <= features and inner >= 128 and rows * inner * features >= 1 << 20
            and x.dtype.kind == "f" and x.dtype.itemsize >= 4):
        transposed = np.matmul(weight, x.T)  # (features, rows)
        out = np.empty((rows, features), transposed.dtype)
        if bias is None:
            np.copyto(out, transposed.T)
        else:
            np.add(transposed.T, bias, out=out)
        return out
    out = mm(x, weight.T)
    if bias is not None:
        out += bias  # ``out`` is a fresh array: add in place
    return out


def linear(x: TensorBase, weight: TensorBase, bias: TensorBase | None = None) -> TensorBase:
    """``x @ weight.T + bias`` as one op (``nn.Linear``). A primitive for speed: one node and one
    backward rule instead of a transpose, a matmul and a broadcast add (three nodes)."""
    if not isinstance(x, TensorBase):  # e.g. a NumPy batch handed straight to nn.Linear
        raise TypeError(f"linear(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__} (convert it with tl.from_numpy or tl.tensor)")
    if autocast_state.dtype is not None:
        x, weight, bias = autocast_lower(x, weight, bias)
    require_same_dtype("linear", x, weight, bias)
    if weight._data.ndim != 2 or x._data.ndim == 0 or x._data.shape[-1] != weight._data.shape[1]:
        raise RuntimeError(
            f"linear: input of shape {x._data.shape} and weight of shape {weight._data.shape} do "
            f"not match: weight must be 2-D (out_features, in_features) and input.shape[-1] must "
            f"equal in_features"
        )
    if bias is not None and bias._data.shape not in ((weight._data.shape[0],), ()):
        raise RuntimeError(
            f"linear: bias of shape {bias._data.shape} does not match out_features "
            f"({weight._data.shape[0]})"
        )
    bias_data = None if bias is None else bias._data
    if x._data.ndim > 2:  # fold the batch dims: one 2-D GEMM is faster than a stack of them
        out = linear_rows(x._data.reshape(-1, x._data.shape[-1]), weight._data,
                          bias_data).reshape(x._data.shape[:-1] + weight._data.shape[:1])
    else:
        out = linear_rows(x._data, weight._data, bias_data)
    inputs = (x, weight) if bias is None else (x, weight, bias)
    if not (grad_state.enabled and (x._requires_grad or weight._requires_grad
                                    or (bias is not None and bias._requires_grad))):
        return wrap(out)
    node = AddmmBackward0(*inputs)
    node.save_for_backward(x, weight)
    if bias is not None:
        node.bias_shape = bias._data.shape
    return wrap(out, node)
