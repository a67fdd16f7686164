"""LU factorisation with partial pivoting, batched over leading dims: LAPACK getrf's packed
``L\\U`` and its 1-based int32 row interchanges (PyTorch's ``linalg.lu_factor_ex``), with
PyTorch's backward rule (``linalg_lu_backward``) for square, tall and wide inputs.

The rule is written with matmul, constant masks and ``solve``, so it runs on arrays (first order)
and on tensors (create_graph: second order). For ``A = P L U`` (L unit lower, m x k; U upper,
k x n), square: ``gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T``; tall and wide split
``L`` and ``U`` as PyTorch does. U's leading k x k block must be invertible (full rank), as in
PyTorch. Also here: a node for the ops PyTorch does not differentiate (geqrf, ldl); the NumPy
routines the factorisation runs on are in ``lapack.py``.
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
from .lapack import getrf, permutation_matrix

__all__ = ["lu_factor_ex", "check_float_matrix", "not_differentiable"]


def check_float_matrix(a: np.ndarray, op: str) -> None:
    """PyTorch's dtype checks of a linear-algebra input (float32/float64 only)."""
    if not is_float_dtype(a.dtype):
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got "
                           f"{torch_dtype_name(a.dtype)}")
    if a.dtype.itemsize < 4:
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got "
                           f"{torch_dtype_name(a.dtype)}")


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
