"""Product and cumulative primitives: prod, cumsum, cumprod.

Their gradients divide by the input where it is nonzero (so they stay differentiable under
create_graph). Where the input has zeros, the exact "product of the others" is computed without
division: in NumPy in a plain backward, and from recorded ops (exclusive cumulative products for
prod, a masked cumprod for cumprod) under create_graph, so higher derivatives stay exact there too
(PyTorch also special-cases zeros).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import array_of, is_array, is_half_float, normalize_dims, wrap
from .elementwise import cast, where
from .movement import permute, reshape
from .reduce import reduce_sum
from .shape import cat, pad_constant

_INT64 = np.dtype(np.int64)


def _prod_of_others(x: np.ndarray, dims: tuple) -> np.ndarray:
    """For each element, the product of the other elements of its reduction group (exact, no
    division: works with zeros)."""
    rest = [d for d in range(x.ndim) if d not in dims]
    perm = rest + list(dims)
    xt = x.transpose(perm)
    flat = xt.reshape(xt.shape[:len(rest)] + (-1,))
    ones = np.ones(flat.shape[:-1] + (1,), x.dtype)
    left = np.multiply.accumulate(np.concatenate([ones, flat[..., :-1]], -1), -1)
    right = np.multiply.accumulate(np.concatenate([ones, flat[..., :0:-1]], -1), -1)[..., ::-1]
    return (left * right).reshape(xt.shape).transpose(np.argsort(perm))


def _group_last(x: TensorBase, dims: tuple) -> tuple[TensorBase, tuple, tuple]:
    """``x`` with the ``dims`` moved last and flattened into one axis, the permutation used and
    the permuted shape (to undo it)."""
    rest = [d for d in range(x._data.ndim) if d not in dims]
    perm = tuple(rest + list(dims))
    xt = permute(x, perm)
    shape = xt._data.shape
    return reshape(xt, shape[:len(rest)] + (-1,)), perm, shape


def _ungroup(y: TensorBase, perm: tuple, shape: tuple) -> TensorBase:
    return permute(reshape(y, shape), tuple(int(i) for i in np.argsort(perm)))


def _prod_of_others_graph(x: TensorBase, dims: tuple) -> TensorBase:
    """``_prod_of_others`` from recorded ops (under create_graph): the product of the elements
    before each one times the product of those after it, both exclusive cumulative products, so
    no division and derivatives of any order are exact at zeros."""
    flat, perm, shape = _group_last(x, dims)
    lead = ((0, 0),) * (flat._data.ndim - 1)
    before = cumprod(pad_constant(flat[..., :-1], lead + ((1, 0),), 1.0), -1)
    after = cumprod(pad_constant(flat[..., :0:-1], lead + ((1, 0),), 1.0), -1)[..., ::-1]
    return _ungroup(before * after, perm, shape)


class ProdBackward0(Node):
    dims: tuple[int, ...]
    kept_shape: tuple[int, ...]

    def backward(self, grad):
        (x,) = self.saved_tensors
        g = grad.reshape(self.kept_shape)
        xa = array_of(x)
        if (xa == 0).any():
            if is_array(grad):
                return (g * _prod_of_others(xa, self.dims),)
            return (g * _prod_of_others_graph(x, self.dims),)
        # grad * (result / input), PyTorch's order (it matters when they round: float16)
        return (g * (self.saved_output().reshape(self.kept_shape) / x),)


class ProdBackward1(ProdBackward0):
    """``prod(dim)`` (PyTorch's name)."""


def _product_in_dtype(data: np.ndarray, dims: tuple, keepdim: bool) -> np.ndarray:
    """The product over ``dims`` of a float16/bfloat16 array, rounded to its dtype after every
    factor: PyTorch's CPU prod, unlike its sum, accumulates in the input's dtype (300 * 300 *
    (1/300) * (1/300) is inf in float16), where NumPy's float16 loop would keep a float32
    product along the innermost axis."""
    flat, _, shape = _group_last_array(data, dims)
    if not flat.shape[-1]:
        out = np.ones(flat.shape[:-1], data.dtype)
    else:
        out = np.multiply.accumulate(flat, axis=-1)[..., -1]
    kept = tuple(1 if i in dims else n for i, n in enumerate(data.shape))
    return out.reshape(kept if keepdim else tuple(n for i, n in enumerate(data.shape)
                                                   if i not in dims))


def _group_last_array(data: np.ndarray, dims: tuple) -> tuple[np.ndarray, tuple, tuple]:
    """``_group_last`` of an array: the ``dims`` moved last and flattened into one axis."""
    rest = [d for d in range(data.ndim) if d not in dims]
    perm = tuple(rest + list(dims))
    moved = data.transpose(perm)
    group = int(np.prod([data.shape[d] for d in dims]))  # (-1 is ambiguous when empty)
    return moved.reshape(moved.shape[:len(rest)] + (group,)), perm, moved.shape


def prod(x: TensorBase, dim=None, keepdim: bool = False, dtype=None) -> TensorBase:
    """Product over ``dim`` (an int, or None for all elements); bool and int give int64."""
    if dtype is not None:
        x = cast(x, dtypes.to_dtype(dtype).np)
    elif x._data.dtype.kind in "biu":
        x = cast(x, _INT64)
    if dim is not None and not isinstance(dim, (int, np.integer)):
        raise TypeError(f"prod: dim must be an int or None, got {dim!r}")
    dims = normalize_dims(dim, x._data.ndim, "prod")
    # ufunc methods, not ndarray.prod/np.cumprod: NumPy then attributes a floating-point
    # warning to this module, where the package's filter silences it (see _core/quiet.py)
    if is_half_float(x._data.dtype):
        out = _product_in_dtype(x._data, dims, keepdim)
    else:
        # dtype=: NumPy would widen int32 (a prod(dtype=int32)) to int64
        out = np.asarray(np.multiply.reduce(x._data, axis=dims, keepdims=keepdim,  # type: ignore[call-overload]
                                            dtype=x._data.dtype))
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = ProdBackward0(x) if dim is None else ProdBackward1(x)
    node.save_for_backward(x)
    node.dims = dims
    node.kept_shape = tuple(1 if i in dims else n for i, n in enumerate(x._data.shape))
    result = wrap(out, node)
    node.save_output(result)
    return result


def _scan_input(x: TensorBase, dim: int, dtype, op: str) -> tuple[TensorBase, int]:
    if dtype is not None:
        x = cast(x, dtypes.to_dtype(dtype).np)
    elif x._data.dtype.kind in "biu":
        x = cast(x, _INT64)
    # a 0-d tensor scans as one element: dim 0 or -1, as in PyTorch
    (d,) = normalize_dims(dim, max(x._data.ndim, 1), op)
    return x, d


class CumsumBackward0(Node):
    dim: int

    def backward(self, grad):
        return (reverse_cumsum(grad, self.dim) if grad.ndim else grad,)


def _accumulate(ufunc: np.ufunc, data: np.ndarray, dim: int) -> np.ndarray:
    """``ufunc.accumulate`` along ``dim`` (a copy for a 0-d array); float16 and bfloat16
    accumulate in float32 and each output is rounded once, as in PyTorch's scans (NumPy's and
    ml_dtypes' loops round the running value: float16 [6e4, 6e4, -6e4] would give
    [6e4, inf, inf], PyTorch's [6e4, inf, 6e4])."""
    if not data.ndim:
        return data.copy()
    if is_half_float(data.dtype):
        return ufunc.accumulate(data.astype(np.float32), axis=dim).astype(data.dtype)
    # dtype=: NumPy would widen int32 (a cumsum(dtype=int32)) to int64
    return ufunc.accumulate(data, axis=dim, dtype=data.dtype)


def cumsum(x: TensorBase, dim: int, dtype=None) -> TensorBase:
    """Cumulative sum along ``dim``."""
    x, d = _scan_input(x, dim, dtype, "cumsum")
    out = _accumulate(np.add, x._data, d)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = CumsumBackward0(x)
    node.dim = d
    return wrap(out, node)


def _cumprod_grad_with_zeros(x: np.ndarray, grad: np.ndarray, dim: int) -> np.ndarray:
    """d(sum(grad * cumprod(x)))/dx for slices with zeros, as PyTorch computes it: before a
    slice's first zero z, ``reversed_cumsum(y * grad) / x`` over the positions before z; at z,
    the sum over j >= z of ``grad[j]`` times the products of x before z and from z + 1 to j;
    after z exactly 0 (however large or NaN ``grad`` is there, as in PyTorch)."""
    xm, gm = np.moveaxis(x, dim, -1), np.moveaxis(grad, dim, -1)
    zero = xm == 0
    seen = np.cumsum(zero, -1)  # zeros up to and including each position
    before, first = seen == 0, zero & (seen == 1)
    one = np.ones((), xm.dtype)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        w = np.where(before, np.multiply.accumulate(xm, -1) * gm, np.zeros((), gm.dtype))
        flip = (Ellipsis, slice(None, None, -1))
        out = np.where(before, np.cumsum(w[flip], -1)[flip] / xm, np.zeros((), w.dtype))
        prefix = np.where(before, xm, one).prod(-1, keepdims=True)  # x before the first zero
        from_z = np.multiply.accumulate(np.where(before | first, one, xm), -1)
        at_first = np.where(seen >= 1, gm * from_z, np.zeros((), w.dtype)).sum(-1, keepdims=True)
        out = np.where(first, at_first * prefix, out)
    return np.moveaxis(out.astype(w.dtype, copy=False), -1, dim)


def _cumprod_grad_graph(x: TensorBase, grad: TensorBase, dim: int) -> TensorBase:
    """``_cumprod_grad_with_zeros`` from recorded ops (under create_graph), without division,
    in PyTorch's differentiable form: x[k]'s gradient sums ``grad[j]`` (j >= k) times the
    product that omits x[k], built as ``prod(x[:k]) * cumprod(x[k + 1:])``. Keeping that product
    of two factors (rather than one masked cumulative product) matters at zeros: a higher
    derivative then multiplies a NaN or inf coming back by the zero factor and stays NaN where
    PyTorch's does. O(n) recorded ops and O(n^2) work along ``dim``; it runs only under
    create_graph with zeros in x."""
    n = x._data.shape[dim]
    lead = (slice(None),) * dim

    def part(start: int, stop: int | None) -> tuple:
        return lead + (slice(start, stop),)

    columns = []
    for k in range(n):
        before = prod(x[part(0, k)], dim, keepdim=True) if k else None
        if k == n - 1:
            omitted = before
        else:
            after = cumprod(x[part(k + 1, None)], dim)
            first = before if before is not None else wrap(
                np.ones(after._data.shape[:dim] + (1,) + after._data.shape[dim + 1:],
                        after._data.dtype))
            omitted = cat([first, after if before is None else before * after], dim)
        columns.append(reduce_sum(grad[part(k, None)] * omitted, (dim,), keepdim=True))
    return cat(columns, dim)


class CumprodBackward0(Node):
    dim: int

    def backward(self, grad):
        (x,) = self.saved_tensors
        if not grad.ndim or grad.shape[self.dim] == 1:  # the identity: PyTorch passes grad on
            return (grad,)
        xa = array_of(x)
        if (xa == 0).any():
            if not is_array(grad):
                return (_cumprod_grad_graph(x, grad, self.dim),)
            return (_cumprod_grad_with_zeros(xa, grad, self.dim),)
        return (reverse_cumsum(grad * self.saved_output(), self.dim) / x,)


def cumprod(x: TensorBase, dim: int, dtype=None) -> TensorBase:
    """Cumulative product along ``dim``."""
    x, d = _scan_input(x, dim, dtype, "cumprod")
    out = _accumulate(np.multiply, x._data, d)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = CumprodBackward0(x)
    node.save_for_backward(x)
    node.dim = d
    result = wrap(out, node)
    node.save_output(result)
    return result


# -- backward-rule helpers that build on the ops above (arrays in a plain backward, tensors
# under create_graph; see common.py) --------------------------------------------------------

def reverse_cumsum(x, dim: int):
    """Sums from the end along ``dim`` (the adjoint of a cumulative sum)."""
    flip = (slice(None),) * dim + (slice(None, None, -1),)
    if is_array(x):  # float16/bfloat16 accumulate in float32, as cumsum does
        return _accumulate(np.add, x[flip], dim)[flip]
    return cumsum(x[flip], dim)[flip]


# -- logcumsumexp ------------------------------------------------------------------------------

def _reverse_logcumsumexp(x, dim: int):
    """``log(sum(exp(x)))`` from each position to the end along ``dim``."""
    flip = (slice(None),) * dim + (slice(None, None, -1),)
    if is_array(x):  # float16/bfloat16 accumulate in float32, as logcumsumexp does
        return _accumulate(np.logaddexp, x[flip], dim)[flip]
    return logcumsumexp(x[flip], dim)[flip]


class LogcumsumexpBackward0(Node):
    """``dx_j = sum over i >= j of g_i exp(x_j - y_i)``, summed in log space separately for the
    positive and the negative ``g`` (no overflow: every term is at most ``|g_i|``)."""

    dim: int

    def backward(self, grad):
        (x,) = self.saved_tensors
        y = self.saved_output()
        d = self.dim
        if not y.ndim:  # one element: y = x
            return (grad,)
        if is_array(grad) and is_array(x) and is_array(y):
            out = np.zeros(np.broadcast_shapes(x.shape, grad.shape), x.dtype)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                for sign in (1, -1):
                    part = np.where(sign * grad > 0, np.log(np.abs(grad)) - y, -np.inf)
                    out += sign * np.exp(x + _reverse_logcumsumexp(part.astype(x.dtype), d))
            out[np.isneginf(x)] = 0  # exp(-inf - y) is 0, also where y is -inf too
            return (out,)
        total = None
        for sign in (1, -1):
            mask = wrap(array_of(sign * grad > 0))
            safe = where(mask, grad.abs() if sign == 1 else (-grad), 1.0)  # log(1) at the others
            part = where(mask, safe.log() - y, -np.inf)
            term = (x + _reverse_logcumsumexp(part, d)).exp()
            total = term if total is None else total - term
        return (where(wrap(np.isneginf(array_of(x))), 0.0, total),)


def logcumsumexp(x: TensorBase, dim: int) -> TensorBase:
    """``log(cumsum(exp(x)))`` along ``dim``, by a running ``logaddexp`` (exact for values far
    below the maximum, which a shift by the maximum rounds away)."""
    data = x._data
    if data.dtype.kind not in "fc" and not is_half_float(data.dtype):
        raise NotImplementedError(
            f"logcumsumexp: not implemented for {dtypes.from_numpy_dtype(data.dtype)} tensors")
    (d,) = normalize_dims(dim, max(data.ndim, 1), "logcumsumexp")
    with np.errstate(invalid="ignore"):  # logaddexp(inf, inf) is inf, NumPy's loop warns
        out = _accumulate(np.logaddexp, data, d)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = LogcumsumexpBackward0(x)
    node.dim = d
    node.save_for_backward(x)
    result = wrap(out, node)
    node.save_output(result)
    return result
