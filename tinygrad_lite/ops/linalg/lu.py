"""LU factorisation with partial pivoting, batched over leading dims: LAPACK getrf's packed
``L\\U`` and its 1-based int32 row interchanges (PyTorch's ``linalg.lu_factor_ex``), with
PyTorch's backward rule (``linalg_lu_backward``) for square, tall and wide inputs.

The rule is written with matmul, constant masks and ``solve``, so it runs on arrays (first order)
and on tensors (create_graph: second order). For ``A = P L U`` (L unit lower, m x k; U upper,
k x n), square: ``gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T``; tall and wide split
``L`` and ``U`` as PyTorch does. U's leading k x k block must be invertible (full rank), as in
PyTorch. Also here: the NumPy kernels the composites need (permutations from pivots, getrs for
a singular solve_ex), and a node for the ops PyTorch does not differentiate (geqrf, ldl).
"""

from __future__ import annotations

import numpy as np

from ..._core.grad_mode import grad_state
from ..._core.graph import Node
from ..._core.tensor_base import TensorBase
from ...dtypes import is_float_dtype
from ..common import constant, is_array, swap_last_dims, wrap
from ..shape import cat
from .inverse import solve, torch_dtype_name

__all__ = ["getrf", "getrs", "trsm", "permutation", "permutation_matrix", "lu_factor_ex",
           "check_float_matrix", "not_differentiable"]


def check_float_matrix(a: np.ndarray, op: str) -> None:
    """PyTorch's dtype checks of a linear-algebra input (float32/float64 only)."""
    if not is_float_dtype(a.dtype):
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got "
                           f"{torch_dtype_name(a.dtype)}")
    if a.dtype.itemsize < 4:
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got "
                           f"{torch_dtype_name(a.dtype)}")


def getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LAPACK getrf over a batch (..., m, n): the packed ``L\\U`` (L's unit diagonal implied),
    the 1-based int32 pivots (..., min(m, n)) and info (the first exactly-zero pivot, 1-based,
    else 0)."""
    *batch, m, n = a.shape
    k = min(m, n)
    count = int(np.prod(batch, dtype=np.int64))
    lu = np.array(a, copy=True).reshape(count, m, n)
    piv = np.empty((count, k), np.int32)
    info = np.zeros(count, np.int32)
    rows = np.arange(count)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for j in range(k):
            p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)  # the first largest, as idamax
            piv[:, j] = p + 1
            top = lu[rows, j].copy()
            lu[rows, j] = lu[rows, p]
            lu[rows, p] = top
            pivot = lu[:, j, j]
            singular = pivot == 0
            info[(info == 0) & singular] = j + 1
            # a zero pivot leaves its (zero) column unscaled, as getrf does
            lu[:, j + 1:, j] *= np.where(singular, 1, 1 / np.where(singular, 1, pivot))[:, None]
            lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, None, j, j + 1:]
    return lu.reshape(a.shape), piv.reshape(*batch, k), info.reshape(batch)


def permutation(pivots: np.ndarray, m: int) -> np.ndarray:
    """``perm`` (..., m) from 1-based pivots: row i of ``P^T A`` is row ``perm[i]`` of A."""
    batch, k = pivots.shape[:-1], pivots.shape[-1]
    count = int(np.prod(batch, dtype=np.int64))
    perm = np.array(np.broadcast_to(np.arange(m), (*batch, m))).reshape(count, m)
    piv = pivots.reshape(count, k).astype(np.int64) - 1
    rows = np.arange(count)
    for j in range(k):
        target = piv[:, j]
        held = perm[rows, j].copy()
        perm[rows, j] = perm[rows, target]
        perm[rows, target] = held
    return perm.reshape(*batch, m)


def permutation_matrix(pivots: np.ndarray, m: int, dtype: np.dtype) -> np.ndarray:
    """``P`` (..., m, m) with ``A = P L U``: ``P[perm[i], i] = 1``."""
    perm = permutation(pivots, m)
    p = np.zeros((*perm.shape, m), dtype)
    np.put_along_axis(p, perm[..., None, :], 1, axis=-2)
    return p


def trsm(t: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    """``X`` with ``T X = B`` by substitution, reading T's lower or upper triangle (the same
    batch shapes): a zero on the diagonal gives inf/NaN, as LAPACK's trsm, not an error."""
    n = t.shape[-1]
    x = np.array(b, copy=True)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in range(n) if lower else reversed(range(n)):
            done = slice(0, i) if lower else slice(i + 1, n)
            rest = (t[..., i, None, done] @ x[..., done, :])[..., 0, :]
            x[..., i, :] = (x[..., i, :] - rest) / t[..., i, i, None]
    return x


def getrs(lu: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``X`` with ``A X = B`` from getrf's factors (the same batch shapes), as LAPACK's getrs:
    a zero pivot gives inf/NaN rather than an error."""
    n = lu.shape[-1]
    lower = np.tril(lu, -1) + np.eye(n, dtype=lu.dtype)
    x = np.take_along_axis(b, permutation(pivots, n)[..., None], axis=-2)
    return trsm(lu, trsm(lower, x, True), False)


# -- the backward rule --------------------------------------------------------------------------


def _mask(rows: int, cols: int, lower: bool, diagonal: int, like):
    ones = np.ones((rows, cols), like.dtype if is_array(like) else like._data.dtype)
    return constant(np.tril(ones, diagonal) if lower else np.triu(ones, diagonal), like)


def _solve(a, b):
    return np.linalg.solve(a, b) if is_array(a) else solve(a, b)


def _times_inv_t(g, u):
    """``g U^-T``, i.e. ``(U^-1 g^T)^T``."""
    return swap_last_dims(_solve(u, swap_last_dims(g)))


def _cat(parts: list, dim: int):
    return np.concatenate(parts, axis=dim) if is_array(parts[0]) else cat(parts, dim)


def lu_backward(lu, grad, p):
    """PyTorch's ``lu_factor_ex_backward``: the gradient of A from that of its packed LU."""
    m, n = lu.shape[-2], lu.shape[-1]
    k = min(m, n)
    eye = np.eye(m, k, dtype=lu.dtype if is_array(lu) else lu._data.dtype)
    lower = lu[..., :, :k] * _mask(m, k, True, -1, lu) + constant(eye, lu)
    upper = lu[..., :k, :] * _mask(k, n, False, 0, lu)
    g_l, g_u = grad[..., :, :k], grad[..., :k, :]
    lt, ut = swap_last_dims(lower), swap_last_dims(upper)
    if m == n:
        g = (lt @ g_l) * _mask(n, n, True, -1, lu) + (g_u @ ut) * _mask(n, n, False, 0, lu)
        g = _solve(lt, _times_inv_t(g, upper))
    elif m < n:  # wide: U = [U1 | U2], U1 square
        g = (lt @ g_l - (g_u * _mask(k, n, False, 0, lu)) @ ut) * _mask(k, k, True, -1, lu)
        g = _times_inv_t(g, upper[..., :, :k])
        g = _cat([g + g_u[..., :, :k] * _mask(k, k, False, 0, lu), g_u[..., :, k:]], -1)
        g = _solve(lt, g)
    else:  # tall: L = [L1; L2], L1 square
        g = (g_u @ ut - lt @ (g_l * _mask(m, k, True, -1, lu))) * _mask(k, k, False, 0, lu)
        g = _solve(swap_last_dims(lower[..., :k, :]), g)
        g = _cat([g + g_l[..., :k, :] * _mask(k, k, True, -1, lu), g_l[..., k:, :]], -2)
        g = _times_inv_t(g, upper)
    return constant(p, lu) @ g


class LinalgLuFactorExBackward0(Node):
    """The node of ``lu_factor_ex``: ``lu_backward`` on its saved packed output."""

    p: np.ndarray  # the permutation matrix of A = P L U (a constant)

    def backward(self, grad):
        return (lu_backward(self.saved_output(), grad, self.p),)


def lu_factor_ex(x: TensorBase, op: str) -> tuple[TensorBase, TensorBase, TensorBase]:
    """``(LU, pivots, info)`` of each matrix (``op`` names the caller in errors); LU is
    differentiable (for full-rank inputs)."""
    a = x._data
    if a.ndim < 2:
        raise RuntimeError(f"{op}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(a.shape)} instead")
    check_float_matrix(a, op)
    lu, piv, info = getrf(a)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(lu), wrap(piv), wrap(info)
    node = LinalgLuFactorExBackward0(x)
    node.p = permutation_matrix(piv, a.shape[-2], a.dtype)
    out = wrap(lu, node)
    node.save_output(out)
    return out, wrap(piv), wrap(info)


# -- ops PyTorch does not differentiate -----------------------------------------------------------


class NotImplementedBackward(Node):
    """The node of an op PyTorch has no derivative for: its backward raises."""

    label: str  # the op, as PyTorch's error names it
    grad_fn_name: str

    def name(self) -> str:
        """PyTorch's name of this grad_fn (``GeqrfBackward0``, ``NotImplemented``)."""
        return self.grad_fn_name

    def backward(self, *grads):
        raise NotImplementedError(f"the derivative for '{self.label}' is not implemented.")


def not_differentiable(label: str, grad_fn_name: str, inputs: list[TensorBase],
                       outs: list[np.ndarray]) -> tuple:
    """The outputs of an op PyTorch has no derivative for: they require grad when an input
    does, and backward through them raises NotImplementedError, as PyTorch's."""
    if not (grad_state.enabled and any(t._requires_grad for t in inputs)):
        return tuple(wrap(o) for o in outs)
    node = NotImplementedBackward(*inputs)
    node.label, node.grad_fn_name = label, grad_fn_name
    if len(outs) > 1:
        node.n_outputs = len(outs)
        node._direct = False
    results = []
    for i, arr in enumerate(outs):
        t = wrap(arr, node)
        t._output_nr = i
        results.append(t)
    return tuple(results)
