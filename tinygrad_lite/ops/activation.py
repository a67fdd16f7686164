"""Activations as primitives: GELU, leaky ReLU, the ELU family (ELU, SELU, CELU) and
hardswish.

**GELU**, ``x * Phi(x)`` (exact, with erf) or its tanh approximation.

As a composite, GELU records six to eight elementwise nodes per call, each a full pass over a
Transformer's widest activation, forward and backward. Here the forward is one erf (or tanh)
and a few in-place passes, the normal CDF it computes is saved, and the backward is
``Phi(x) + x * phi(x)`` from it: no second erf. The rule is written with operators and
``unary_rule``, so under ``create_graph`` it is recorded like any other and differentiates
again (second order in the op catalogue).

With the compiled kernels on (``_kernels``, family ``activation``), float32 exact GELU is one
fused pass, the others' chains of passes shrink to a kernel, NumPy's exp or tanh, and a kernel;
leaky_relu and its gradient are one pass each. The kernels repeat the reference's operations
in its order, so their results are the reference's bits but for exp/tanh (still NumPy's).

**ELU** with PyTorch's three coefficients, ``x * scale`` where ``x > 0``, else ``alpha * scale
* expm1(x * input_scale)`` (SELU and CELU are ELUs with other coefficients). Its rule
``elu_backward(grad, x)`` is a primitive too, with PyTorch's double backward: towards ``grad``
the rule again, towards ``x`` the rule of ``grad * grad_output`` times the mask ``x < 0``. The
mask multiplies, so a NaN or inf in either gradient propagates where PyTorch's does. (A
composite of ``where`` would drop it, and ``exp(x) - 1`` loses the small values that expm1
keeps: ELU of -1e-10 is off by 8e-8 relative, of float32 -1e-5 by 1e-3.)

**Hardswish**, PyTorch's ``x * min(max(x + 3, 0), 6) / 6`` (NaN and -inf give NaN), with the
same pair of primitives: ``hardswish_backward(grad, x)`` is 0 where ``x <= -3``, ``grad * (x / 3
+ 1/2)`` where ``x < 3``, else ``grad``; its derivative towards ``x`` is ``gg * grad / 3``
strictly inside (-3, 3), selected (PyTorch's ``where``), towards ``grad`` the rule itself.
"""

from __future__ import annotations

import math

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from ..dtypes import is_float_dtype
from .common import array_of, is_array, unary_rule, wrap, writable
from .elementwise import cast, where_rule
from .kernel_choice import kernels_for, run, run_kernels
from .piecewise import tie_zero_slope
from .special import _erf_numpy
from .special import erf as erf_op

__all__ = ["gelu", "leaky_relu", "elu", "elu_backward", "hardswish",
           "hardswish_backward"]

_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_TANH_SCALE = math.sqrt(2.0 / math.pi)
_TANH_CUBIC = 0.044715


def _erf(v):
    return _erf_numpy(v) if is_array(v) else erf_op(v)


# erf(x) ~ x P(x^2) / Q(x^2) on [-4, 4] (+-1 beyond, to float32 precision): a rational
# approximation with float32 accuracy (a few ulp, 4e-7 absolute at worst) in about a dozen
# whole-array passes, 3-4x faster than scipy's erf, which computes every element to double
# precision. Used for float32 GELU only; float64 keeps the exact erf.
_ERF_P = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
          -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
          -1.60960333262415e-02)
_ERF_Q = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
          -7.37332916720468e-03, -1.42647390514189e-02)


def _erf_float32(x: np.ndarray) -> np.ndarray:
    clipped = np.clip(x, -4.0, 4.0)
    square = clipped * clipped

    def horner(coefficients: tuple) -> np.ndarray:
        acc = square * coefficients[0]
        acc += coefficients[1]
        for c in coefficients[2:]:
            acc *= square
            acc += c
        return acc

    numerator = horner(_ERF_P)
    numerator *= clipped
    numerator /= horner(_ERF_Q)
    return numerator


def _exact_gelu_grad(grad: np.ndarray, x: np.ndarray, phi_cdf: np.ndarray) -> np.ndarray:
    """``grad * (Phi(x) + x phi(x))`` in one buffer (the operators' version of the rule makes
    a fresh array per pass), the same operations in the same order."""
    out = writable(np.multiply(x, -0.5))  # (0-d operands give a scalar)
    out *= x
    np.exp(out, out=out)
    out *= _INV_SQRT_2PI  # phi(x), the standard normal density
    out *= x
    out += phi_cdf
    out *= grad
    return out


class GeluBackward0(Node):
    approximate: str

    def backward(self, grad):
        x, saved = self.saved_tensors  # saved: Phi(x) (exact) or tanh(inner) (tanh form)
        if is_array(x) and is_array(grad):
            kern = kernels_for("activation", x, grad, saved) if grad.shape == x.shape else None
            if kern is not None:
                return (run_kernels(_gelu_grad_kernel, kern, self.approximate, grad, x, saved),)
        if self.approximate != "tanh" and is_array(x) and is_array(grad):
            return (_exact_gelu_grad(grad, x, saved),)
        if self.approximate == "tanh":
            if not is_array(x):  # under create_graph: recompute, so the rule is recorded
                saved = unary_rule("tanh", _TANH_SCALE * (x + _TANH_CUBIC * x * x * x))
            slope = _TANH_SCALE * (1.0 + 3.0 * _TANH_CUBIC * x * x)
            return (grad * (0.5 * (1.0 + saved) + 0.5 * x * (1.0 - saved * saved) * slope),)
        if not is_array(x):
            saved = 0.5 * (1.0 + _erf(x * _INV_SQRT2))
        density = _INV_SQRT_2PI * unary_rule("exp", -0.5 * x * x)
        return (grad * (saved + x * density),)


def _gelu_grad_kernel(kern, approximate: str, grad: np.ndarray, x: np.ndarray,
                      saved: np.ndarray) -> np.ndarray:
    """GELU's gradient by the kernels (contiguous float arrays of one shape and dtype)."""
    t = x.dtype.type
    out = np.empty_like(x)
    flat = out.reshape(-1)
    g, v, s = grad.reshape(-1), x.reshape(-1), saved.reshape(-1)
    if approximate == "tanh":
        run(kern, "gelu_tanh_backward", x.size, g, v, s, flat, t(3.0 * _TANH_CUBIC),
             t(_TANH_SCALE), t(1.0), t(0.5))
        return out
    run(kern, "gelu_erf_backward_exponent", x.size, v, flat, t(-0.5))
    np.exp(flat, out=flat)
    run(kern, "gelu_erf_backward_finish", x.size, g, v, s, flat, t(_INV_SQRT_2PI))
    return out


def _gelu_kernel(kern, approximate: str, data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(GELU, saved) by the kernels: float32 exact GELU in one pass; tanh GELU as the inner
    polynomial, NumPy's tanh, the product. (float64 exact GELU keeps the reference: its erf
    is most of the time, and numba's per-element libm erf is no faster.)"""
    t = data.dtype.type
    out, saved = np.empty_like(data), np.empty_like(data)
    v, o, s = data.reshape(-1), out.reshape(-1), saved.reshape(-1)
    if approximate == "tanh":
        run(kern, "gelu_tanh_inner", v.size, v, s, t(_TANH_CUBIC), t(_TANH_SCALE), t(1.0))
        np.tanh(s, out=s)
        run(kern, "gelu_tanh_finish", v.size, v, s, o, t(1.0), t(0.5))
    else:
        run(kern, "gelu_erf32_forward", v.size, v, o, s)
    return out, saved


def gelu(x: TensorBase, approximate: str = "none") -> TensorBase:
    """GELU of a floating tensor; ``approximate`` is 'none' (erf) or 'tanh'."""
    if not is_float_dtype(x._data.dtype):
        x = cast(x, np.dtype(np.float32))
    data = x._data
    kern = None
    if approximate == "tanh" or data.dtype == np.float32:
        kern = kernels_for("activation", data)
    with np.errstate(over="ignore", invalid="ignore"):
        if kern is not None:
            out, saved = run_kernels(_gelu_kernel, kern, approximate, data)
        elif approximate == "tanh":
            inner = writable(data * data)  # (0-d operands give a scalar)
            inner *= _TANH_CUBIC
            inner += 1.0
            inner *= data
            inner *= _TANH_SCALE
            saved = np.tanh(inner, out=inner)
            out = saved + 1.0
            out *= data
            out *= 0.5
        else:
            scaled = data * _INV_SQRT2
            erf = _erf_float32 if data.dtype == np.float32 else _erf_numpy
            saved = np.asarray(erf(scaled), dtype=data.dtype)
            saved += 1.0
            saved *= 0.5  # Phi(x), the standard normal CDF
            out = saved * data
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = GeluBackward0(x)
    node.approximate = approximate
    node.save_for_backward(x, wrap(saved))
    return wrap(out, node)


class LeakyReluBackward0(Node):
    """``grad`` where the input is positive, ``slope * grad`` elsewhere (PyTorch's rule)."""

    slope: float

    def backward(self, grad):
        (x,) = self.saved_tensors
        positive = array_of(x) > 0  # a constant mask: no graph needed
        if not is_array(grad):  # recorded, with a zero derivative towards the input
            return (tie_zero_slope(where_rule(positive, grad, grad * self.slope), x),)
        kern = kernels_for("activation", grad, x) if grad.shape == x.shape else None
        if kern is not None:
            return (run_kernels(_leaky_relu_grad_kernel, kern, grad, x, self.slope),)
        if 0.0 <= self.slope <= 1.0:
            # grad * (1 or slope): the factor as max(mask, slope), branch-free (np.where on
            # a random sign mask is ~12x slower: a mispredicted branch per element); x * 1 is
            # exact, so the values are PyTorch's, inf and NaN included
            factor = np.maximum(positive.astype(grad.dtype), grad.dtype.type(self.slope))
            factor *= grad
            return (factor,)
        return (np.where(positive, grad, grad * self.slope),)


def leaky_relu(x: TensorBase, slope: float) -> TensorBase:
    """``x`` where positive, ``slope * x`` elsewhere, of a floating tensor, as one node."""
    data = x._data
    kern = kernels_for("activation", data)
    if kern is not None:  # x where x > 0, else slope x: the same values as the passes below
        out = run_kernels(_leaky_relu_kernel, kern, data, slope)
    else:
        out = _leaky_relu_numpy(data, slope)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = LeakyReluBackward0(x)
    node.slope = slope
    node.save_for_backward(x)
    return wrap(out, node)


def _leaky_relu_kernel(kern, data: np.ndarray, slope: float) -> np.ndarray:
    out = np.empty_like(data)
    run(kern, "leaky_relu_forward", data.size, data.reshape(-1), out.reshape(-1),
        data.dtype.type(slope))
    return out


def _leaky_relu_grad_kernel(kern, grad: np.ndarray, x: np.ndarray, slope: float) -> np.ndarray:
    out = np.empty_like(grad)
    run(kern, "leaky_relu_backward", grad.size, grad.reshape(-1), x.reshape(-1),
        out.reshape(-1), grad.dtype.type(slope))
    return out


def _leaky_relu_numpy(data: np.ndarray, slope: float) -> np.ndarray:
    scaled = writable(data * slope)  # (0-d operands give a scalar)
    if 0.0 < slope <= 1.0:  # max(x, slope x) is the same, NaN and infinities included,
        out = np.maximum(data, scaled, out=scaled)  # without np.where's branch per element
    else:
        out = np.where(data > 0, data, scaled)
    return out


# -- the ELU family ---------------------------------------------------------------------------

class EluBackward0(Node):
    """``elu``'s gradient, ``elu_backward(grad, x)``: recorded under ``create_graph``."""

    coefficients: tuple  # (alpha, scale, input_scale)
    label: str = "EluBackward0"

    def name(self) -> str:
        """PyTorch's name: CELU has its own node, ELU and SELU share this one."""
        return self.label

    def backward(self, grad):
        (x,) = self.saved_tensors
        return (elu_backward(grad, x, *self.coefficients),)


class EluBackwardBackward0(Node):
    """The derivatives of ``elu_backward(grad, x)``, PyTorch's: towards ``grad`` the rule
    itself, towards ``x`` the rule of ``gg * grad * input_scale`` times the mask ``x < 0``."""

    coefficients: tuple

    def backward(self, gg):
        grad, x = self.saved_tensors
        edges = self.next_edges
        alpha, scale, input_scale = self.coefficients
        towards_grad = elu_backward(gg, x, *self.coefficients) if edges[0] else None
        towards_x = None
        if edges[1]:
            data = array_of(x)
            # a multiplied mask: 0 * NaN is NaN (a where-select would hide it)
            mask = (data < 0).astype(data.dtype)
            inner = elu_backward(gg * grad * input_scale, x, *self.coefficients)
            towards_x = inner * (mask if is_array(inner) else wrap(mask))
        return (towards_grad, towards_x)


def _elu_rule(grad: np.ndarray, x: np.ndarray, alpha: float, scale: float,
              input_scale: float) -> np.ndarray:
    """PyTorch's ``elu_backward`` on arrays: ``grad * input_scale * alpha * scale *
    exp(x * input_scale)`` where ``x <= 0``, else ``grad * scale`` (NaN input: the latter)."""
    non_positive = x <= 0
    slope = np.exp(np.minimum(x, 0) * input_scale)  # (no exp of a positive value: no overflow)
    negative = grad * input_scale
    negative *= alpha * scale
    negative *= slope
    return np.where(non_positive, negative, grad * scale)


def _recorded_rule(rule, node_cls: type[Node], grad, x, **attributes):
    """``rule(grad, x)`` of a gradient rule that is a primitive itself: on arrays, or on
    tensors under ``create_graph``, then recorded as a ``node_cls`` node (its attributes
    set from ``attributes``) that saves both, so the rule differentiates again."""
    if is_array(grad) and is_array(x):
        return rule(grad, x)
    grad_t = grad if isinstance(grad, TensorBase) else wrap(np.asarray(grad))
    x_t = x if isinstance(x, TensorBase) else wrap(np.asarray(x))
    out = rule(grad_t._data, x_t._data)
    if not (grad_state.enabled and (grad_t._requires_grad or x_t._requires_grad)):
        return wrap(out)
    node = node_cls(grad_t, x_t)
    for name, value in attributes.items():
        setattr(node, name, value)
    node.save_for_backward(grad_t, x_t)
    return wrap(out, node)


def elu_backward(grad, x, alpha: float, scale: float, input_scale: float):
    """ELU's gradient from the upstream ``grad`` and the input ``x`` (arrays, or tensors under
    ``create_graph``, then recorded: see ``EluBackwardBackward0``)."""
    return _recorded_rule(lambda g, v: _elu_rule(g, v, alpha, scale, input_scale),
                          EluBackwardBackward0, grad, x,
                          coefficients=(alpha, scale, input_scale))


def elu(x: TensorBase, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0,
        label: str = "EluBackward0", grad_input_scale: float | None = None) -> TensorBase:
    """PyTorch's ELU of a float32/float64 tensor: ``x * scale`` where ``x > 0``, else
    ``alpha * scale * expm1(x * input_scale)``; ``label`` names the node (CeluBackward0 for
    CELU), ``grad_input_scale`` is the gradient's ``input_scale`` where PyTorch's differs
    (CELU's: ``1 / alpha`` with alpha rounded to float32 first)."""
    data = x._data
    negative = np.expm1(np.minimum(data, 0) * input_scale)
    negative *= alpha * scale
    out = np.where(data <= 0, negative, data * scale)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = EluBackward0(x)
    node.coefficients = (alpha, scale,
                         input_scale if grad_input_scale is None else grad_input_scale)
    node.label = label
    node.save_for_backward(x)
    return wrap(out, node)


# -- hardswish --------------------------------------------------------------------------------

class HardswishBackward0(Node):
    """``hardswish``'s gradient, ``hardswish_backward(grad, x)``: recorded under
    ``create_graph``."""

    def backward(self, grad):
        (x,) = self.saved_tensors
        return (hardswish_backward(grad, x),)


class HardswishBackwardBackward0(Node):
    """The derivatives of ``hardswish_backward(grad, x)``, PyTorch's: towards ``grad`` the rule
    itself, towards ``x`` ``gg * grad / 3`` where ``-3 < x < 3``, else 0 (selected)."""

    def backward(self, gg):
        grad, x = self.saved_tensors
        edges = self.next_edges
        towards_grad = hardswish_backward(gg, x) if edges[0] else None
        towards_x = None
        if edges[1]:
            data = array_of(x)
            inside = (data > -3.0) & (data < 3.0)  # a constant mask: no graph needed
            towards_x = where_rule(inside, gg * grad / 3.0, 0.0)
        return (towards_grad, towards_x)


def _hardswish_rule(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """PyTorch's ``hardswish_backward`` on arrays."""
    inside = grad * (x / 3.0 + 0.5)
    return np.where(x <= -3.0, np.zeros_like(inside), np.where(x < 3.0, inside, grad))


def hardswish_backward(grad, x):
    """Hardswish's gradient from the upstream ``grad`` and the input ``x`` (arrays, or tensors
    under ``create_graph``, then recorded: see ``HardswishBackwardBackward0``)."""
    return _recorded_rule(_hardswish_rule, HardswishBackwardBackward0, grad, x)


def hardswish(x: TensorBase) -> TensorBase:
    """PyTorch's hardswish of a floating tensor, ``x * min(max(x + 3, 0), 6) / 6``."""
    data = x._data
    with np.errstate(over="ignore", invalid="ignore"):  # (x * 6 of 1e308: inf, as PyTorch's)
        out = np.minimum(np.maximum(data + 3.0, 0.0), 6.0)
        out = writable(out)
        out *= data
        out /= 6.0
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = HardswishBackward0(x)
    node.save_for_backward(x)
    return wrap(out, node)
