"""``gradcheck`` and ``gradgradcheck``: compare autograd's gradients with finite differences.

Both build the full Jacobian twice, analytically (one backward per output element) and by
central differences in float64 (two forward passes per input element), so they are meant for
small inputs: testing a custom Function or a new op, as ``torch.autograd.gradcheck`` is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._core.backward import grad
from .._core.grad_mode import enable_grad
from .._core.warnings import warn
from ..tensor import Tensor
from . import forward_ad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck``/``gradgradcheck`` when the gradients do not match."""



def _as_tuple(x: Any) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _describe(func: Callable, outputs: tuple) -> str:
    """What is under test: the function's name and the grad_fn of its outputs."""
    owner = getattr(func, "__self__", None)
    name = (owner.__name__ + "." + func.__name__ if isinstance(owner, type)
            else getattr(func, "__qualname__", repr(func)))
    nodes = sorted({o.grad_fn.name() for o in outputs
                    if isinstance(o, Tensor) and o.grad_fn is not None})
    return f"{name} (grad_fn {', '.join(nodes)})" if nodes else name


def _outputs(func: Callable, inputs: tuple) -> tuple:
    return tuple(o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor))


def _analytic(outputs: tuple, diff: list) -> list:
    """``jac[k][o]``: d outputs[o] / d diff[k], as an (input numel, output numel) array."""
    tensor = Tensor
    jac = [[np.zeros((t._data.size, o._data.size)) for o in outputs] for t in diff]
    for o_idx, out in enumerate(outputs):
        if not out._requires_grad:
            continue
        for j in range(out._data.size):
            seed = np.zeros(out._data.size, out._data.dtype)
            seed[j] = 1
            grads = grad(out, diff, grad_outputs=tensor._wrap(seed.reshape(out._data.shape)),
                          retain_graph=True, allow_unused=True)
            for k, g in enumerate(grads):
                if g is not None:
                    jac[k][o_idx][:, j] = g._data.reshape(-1)
    return jac


def _forward(func: Callable, inputs: tuple, diff: list) -> list:
    """The same Jacobians by forward-mode AD: one evaluation per input element, that input a
    dual tensor with a one-hot tangent (``jac[k][o]`` row by row)."""
    tensor = Tensor
    jac: list = [None] * len(diff)
    for k, t in enumerate(diff):
        position = next(i for i, x in enumerate(inputs) if x is t)
        for i in range(t._data.size):
            tangent = np.zeros(t._data.shape, t._data.dtype)
            tangent.reshape(-1)[i] = 1
            with forward_ad.dual_level(), enable_grad():
                args = list(inputs)
                args[position] = forward_ad.make_dual(t.detach(), tensor._wrap(tangent))
                outs = _outputs(func, tuple(args))
                if jac[k] is None:
                    jac[k] = [np.zeros((t._data.size, o._data.size)) for o in outs]
                for o_idx, out in enumerate(outs):
                    pushed = forward_ad.unpack_dual(out).tangent
                    if pushed is not None:
                        jac[k][o_idx][i] = pushed._data.reshape(-1)
    return jac


def _numeric(func: Callable, inputs: tuple, diff: list, eps: float) -> list:
    """The same Jacobians by central differences, perturbing each input element in place."""
    jac = []
    with enable_grad():  # gradgradcheck's function calls autograd.grad itself
        for t in diff:
            flat = t._data.reshape(-1)
            if not np.shares_memory(flat, t._data):
                raise ValueError("gradcheck: inputs must be contiguous arrays")
            cols = None
            for i in range(flat.size):
                orig = flat[i]
                flat[i] = orig + eps
                plus = [o._data.astype(np.float64).reshape(-1) for o in _outputs(func, inputs)]
                flat[i] = orig - eps
                minus = [o._data.astype(np.float64).reshape(-1) for o in _outputs(func, inputs)]
                flat[i] = orig
                if cols is None:
                    cols = [np.zeros((flat.size, p.size)) for p in plus]
                for c, p, m in zip(cols, plus, minus):
                    c[i] = (p - m) / (2 * eps)
            jac.append(cols)
    return jac


def gradcheck(
    func: Callable,
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    fast_mode: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    check_grad_dtypes: bool = False,
    masked: bool | None = None,
) -> bool:
    """Check the gradients of ``func`` with respect to the ``inputs`` that require grad against
    float64 central differences: reverse mode (``check_backward_ad``, on by default) and forward
    mode (``check_forward_ad``, dual tensors). Returns True, or raises ``GradcheckError`` naming
    the mode, the input, the worst element, both values and the op under test (False if
    ``raise_exception=False``). ``nondet_tol``, ``check_undefined_grad``, ``fast_mode``, the
    batched checks (no vmap batching rules here), ``check_grad_dtypes`` and ``masked`` are
    accepted and ignored."""
    inputs = _as_tuple(inputs)
    tensor = Tensor
    diff = [t for t in inputs if isinstance(t, tensor) and t._requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    for i, t in enumerate(diff):
        if t._data.dtype != np.float64:
            warn(f"gradcheck: input {i} has dtype {t.dtype}, not float64; the check "
                 "may fail from rounding alone")
    with enable_grad():
        outputs = _outputs(func, inputs)
        computed = [("backward", _analytic(outputs, diff))] if check_backward_ad else []
    if check_forward_ad:
        computed.append(("forward", _forward(func, inputs, diff)))
    numeric = _numeric(func, inputs, diff, eps)
    what = _describe(func, outputs)
    for mode, analytic in computed:
        message = _mismatch(mode, analytic, numeric, inputs, diff, outputs, what, atol, rtol)
        if message is not None:
            if raise_exception:
                raise GradcheckError(message)
            return False
    return True


def _mismatch(mode: str, analytic: list, numeric: list, inputs: tuple, diff: list,
              outputs: tuple, what: str, atol: float, rtol: float) -> str | None:
    """The message for the first Jacobian block of ``analytic`` (computed in ``mode``) that
    differs from ``numeric`` beyond the tolerances, or None."""
    for k, t in enumerate(diff):
        index = next(i for i, x in enumerate(inputs) if x is t)
        for o, out in enumerate(outputs):
            a, n = analytic[k][o], numeric[k][o]
            excess = np.abs(a - n) - (atol + rtol * np.abs(n))
            if excess.size == 0 or excess.max() <= 0:
                continue
            row, col = np.unravel_index(int(np.argmax(excess)), excess.shape)  # (input, output)
            in_idx = np.unravel_index(row, t._data.shape) if t._data.ndim else ()
            out_idx = np.unravel_index(col, out._data.shape) if out._data.ndim else ()
            return (
                # PyTorch's first line, then which element and by how much
                f"Jacobian mismatch for output {o} with respect to input {index},\n"
                f"Jacobian mismatch ({mode} mode) for output {o} with respect to input {index} "
                f"of {what}: worst element at input index {tuple(int(x) for x in in_idx)}, "
                f"output index {tuple(int(x) for x in out_idx)}: analytic "
                f"{float(a[row, col]):.10g}, numeric {float(n[row, col]):.10g} (|difference| "
                f"{abs(a[row, col] - n[row, col]):.6g} > atol {atol} + rtol {rtol} * "
                f"|numeric|).\nanalytical:\n{a}\nnumerical:\n{n}"
            )
    return None


def gradgradcheck(
    func: Callable,
    inputs: Any,
    grad_outputs: Sequence | None = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    fast_mode: bool = False,
) -> bool:
    """Check second derivatives: ``gradcheck`` of the gradient of ``func`` (computed with
    ``create_graph=True``) with respect to the inputs and to ``grad_outputs`` (random float64
    tensors when not given)."""
    tensor = Tensor
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if isinstance(t, tensor) and t._requires_grad]
    with enable_grad():
        outputs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = [tensor._wrap(rng.standard_normal(o._data.shape).astype(o._data.dtype))
                        .requires_grad_() for o in outputs]
    grad_outputs = list(_as_tuple(grad_outputs))
    n = len(inputs)

    def first_derivatives(*args: Any) -> tuple:
        xs, gos = args[:n], args[n:]
        outs = _outputs(func, xs)
        grads = grad(outs, [xs[i] for i in diff_idx], grad_outputs=list(gos),
                     create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    first_derivatives.__qualname__ = f"the gradient of {_describe(func, outputs)}"
    return gradcheck(first_derivatives, (*inputs, *grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
