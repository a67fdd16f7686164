"""Functional transforms, as ``torch.autograd.functional``: jacobian, hessian, vjp, jvp, hvp, vhp.

All are built on reverse mode (``autograd.grad``): a Jacobian takes one backward per output
element, and ``jvp`` uses the double-vjp trick (the vjp ``u -> J^T u`` is linear in ``u``, so
differentiating it with respect to ``u`` in direction ``v`` gives ``J v``). Inputs are detached
copies, so the caller's tensors are untouched; with ``create_graph=True`` the results stay
connected to the original inputs and can be differentiated again. ``vectorize`` and the
strategy arguments are accepted for compatibility and ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.backward import grad as _grad
from ..tensor import Tensor

__all__ = ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"]



def _as_tuple(x: Any, arg: str, fn: str) -> tuple[bool, tuple]:
    """``(was_tuple, tensors)``, checking that ``x`` is a tensor or a tuple of them (a list is
    refused, as in PyTorch)."""
    tensor = Tensor
    is_tuple = isinstance(x, tuple)
    if not is_tuple and not isinstance(x, tensor):
        raise TypeError(f"The {arg} given to {fn} must be either a Tensor or a tuple of Tensors "
                        f"but the given {arg} has type {type(x)}.")
    xs = x if is_tuple else (x,)
    for i, t in enumerate(xs):
        if not isinstance(t, tensor):
            raise TypeError(f"The {arg} given to {fn} must be either a Tensor or a tuple of "
                            f"Tensors but the value at index {i} has type {type(t)}.")
    return is_tuple, xs


def _prepare(inputs: tuple, create_graph: bool) -> tuple:
    """Inputs that require grad: connected to the originals under create_graph, else detached."""
    out = []
    for t in inputs:
        if create_graph and t._requires_grad:
            out.append(t.reshape(t.shape))  # a new node on top of t: gradients reach t
        else:
            out.append(t.detach().requires_grad_(True))
    return tuple(out)


def _finish(x: Any, create_graph: bool) -> Any:
    return x if create_graph else x.detach()


def _zeros_like(t: Any) -> Any:
    return Tensor._wrap(np.zeros(t._data.shape, t._data.dtype))


def _fill_none(grads: tuple, like: tuple, strict: bool, fn: str, create_graph: bool) -> tuple:
    out = []
    for i, (g, t) in enumerate(zip(grads, like)):
        if g is None:
            if strict:
                raise RuntimeError(
                    f"{fn}: the output of the user-provided function is independent of input "
                    f"{i}. This is not allowed in strict mode."
                )
            g = _zeros_like(t)
        out.append(_finish(g, create_graph))
    return tuple(out)


def _grads(outputs: tuple, inputs: tuple, grad_outputs: list, create_graph: bool) -> tuple:
    """``autograd.grad`` that tolerates outputs which do not depend on any input."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o._requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad([o for o, _ in pairs], inputs, grad_outputs=[g for _, g in pairs],
                 retain_graph=True, create_graph=create_graph, allow_unused=True)


def _stack(rows: list, out_shape: tuple, in_shape: tuple) -> Any:
    """Rows d out[j] / d input (each of ``in_shape``) as one tensor of out_shape + in_shape."""
    tensor = Tensor
    n = len(rows)
    if not any(r._requires_grad for r in rows):
        data = np.stack([r._data for r in rows]) if rows else np.zeros((0, *in_shape))
        return tensor._wrap(data.reshape(out_shape + in_shape))
    # Differentiable rows (create_graph): sum of one-hot(j) (x) row_j, using recorded ops only.
    total = None
    for j, r in enumerate(rows):
        onehot = np.zeros((n,) + (1,) * len(in_shape), r._data.dtype)
        onehot[j] = 1
        term = tensor._wrap(onehot) * r.reshape((1,) + in_shape)
        total = term if total is None else total + term
    assert total is not None  # rows is not empty: without rows, the branch above returned
    return total.reshape(out_shape + in_shape)


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """The Jacobian of ``func`` at ``inputs``: entry ``[i][j]`` has shape output i's shape +
    input j's shape; the nesting follows whether ``inputs``/outputs are tuples."""
    # PyTorch's argument checks (both strategies give the same values here)
    assert strategy in ("forward-mode", "reverse-mode"), (
        'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
        'function has more outputs than inputs, "forward-mode" tends to be more performant. '
        'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    in_tuple, xs = _as_tuple(inputs, "inputs", "jacobian")
    xs = _prepare(xs, create_graph)
    out_tuple, outs = _as_tuple(func(*xs), "outputs of the user-provided function", "jacobian")
    tensor = Tensor
    result = []
    for out in outs:
        rows: list[list] = [[] for _ in xs]
        for j in range(out._data.size):
            seed = np.zeros(out._data.size, out._data.dtype)
            seed[j] = 1
            grads = _grads((out,), xs, [tensor._wrap(seed.reshape(out._data.shape))],
                           create_graph)
            grads = _fill_none(grads, xs, strict, "jacobian", True)
            for k, g in enumerate(grads):
                rows[k].append(g)
        per_input = tuple(_finish(_stack(r, out._data.shape, x._data.shape), create_graph)
                          for r, x in zip(rows, xs))
        result.append(per_input if in_tuple else per_input[0])
    return tuple(result) if out_tuple else result[0]


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a scalar ``func`` at ``inputs``: shape input.shape + input.shape, or
    ``[i][j]`` blocks for a tuple of inputs."""
    in_tuple, xs = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*args: Any) -> Any:
        out = func(*args)
        if not isinstance(out, Tensor) or out._data.size != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        g = jacobian(func, args, create_graph=True, strict=strict)
        return tuple(x.reshape(a.shape) for x, a in zip(g, args))

    jac = jacobian(gradient, xs, create_graph=create_graph, strict=strict)
    return jac if in_tuple else jac[0][0]


def _check_v(v: Any, like: tuple, what: str, fn: str) -> tuple:
    """``v`` as a tuple matching ``like`` (ones for one-element ``like`` when ``v`` is None)."""
    if v is None:
        if any(t._data.size != 1 for t in like):
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element." if what == "output" else "The vector v can only "
                "be None if the input to the user-provided function is a single Tensor with a "
                "single element.")
        return tuple(Tensor._wrap(np.ones(t._data.shape, t._data.dtype)) for t in like)
    _, vs = _as_tuple(v, "v", fn)
    if len(vs) != len(like):
        raise RuntimeError(f"{fn}: v has {len(vs)} tensors but the {what} has {len(like)}")
    for a, t in zip(vs, like):
        if a._data.shape != t._data.shape:
            raise RuntimeError(f"v has invalid size: should be {t.shape} but got {a.shape}.")
    return vs


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), v^T J)``: the vector-Jacobian product at ``inputs``."""
    in_tuple, xs = _as_tuple(inputs, "inputs", "vjp")
    xs = _prepare(xs, create_graph)
    out_tuple, outs = _as_tuple(func(*xs), "outputs of the user-provided function", "vjp")
    vs = _check_v(v, outs, "output", "vjp")
    grads = _fill_none(_grads(outs, xs, list(vs), create_graph), xs, strict, "vjp", create_graph)
    outs = tuple(_finish(o, create_graph) for o in outs)
    return (outs if out_tuple else outs[0]), (grads if in_tuple else grads[0])


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), J v)``: the Jacobian-vector product, by the double-vjp trick."""
    in_tuple, xs = _as_tuple(inputs, "inputs", "jvp")
    vs = _check_v(v, xs, "input", "jvp")
    xs = _prepare(xs, create_graph)
    out_tuple, outs = _as_tuple(func(*xs), "outputs of the user-provided function", "jvp")
    us = [_zeros_like(o).requires_grad_(True) for o in outs]  # J^T u is linear in u
    g = _grads(outs, xs, us, True)
    pairs = [(gi, vi) for gi, vi in zip(g, vs) if gi is not None and gi._requires_grad]
    if pairs:
        jv = _grad([p for p, _ in pairs], us, grad_outputs=[q for _, q in pairs],
                   create_graph=create_graph, allow_unused=True)
    else:
        jv = (None,) * len(us)
    jv = _fill_none(jv, outs, strict, "jvp", create_graph)
    outs = tuple(_finish(o, create_graph) for o in outs)
    return (outs if out_tuple else outs[0]), (jv if out_tuple else jv[0])


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False, _fn: str = "vhp") -> tuple:
    """``(func(inputs), v^T H)`` for a scalar ``func``: differentiate the gradient along v.
    (``_fn``: the API named in errors, ``hvp`` when called by it.)"""
    in_tuple, xs = _as_tuple(inputs, "inputs", _fn)
    vs = _check_v(v, xs, "input", "vhp")
    xs = _prepare(xs, create_graph)
    out = func(*xs)
    if not isinstance(out, Tensor) or out._data.size != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {_fn} should contain "
                           "a single element")
    g = _grads((out,), xs, [None], True)
    pairs = [(gi, vi, k) for k, (gi, vi) in enumerate(zip(g, vs))
             if gi is not None and gi._requires_grad]
    result: list = [None] * len(xs)
    if pairs:
        result = list(_grad([p for p, _, _ in pairs], xs, grad_outputs=[q for _, q, _ in pairs],
                            create_graph=create_graph, allow_unused=True))
    res = _fill_none(tuple(result), xs, strict, "vhp", create_graph)
    return _finish(out, create_graph), (res if in_tuple else res[0])


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), H v)`` for a scalar ``func``; the Hessian of a twice-differentiable
    function is symmetric, so this is ``vhp``."""
    return vhp(func, inputs, v, create_graph=create_graph, strict=strict, _fn="hvp")
