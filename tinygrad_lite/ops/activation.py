"""GELU as one primitive: ``x * Phi(x)`` (exact, with erf) or its tanh approximation.

As a composite, GELU records six to eight elementwise nodes per call, each a full pass over a
Transformer's widest activation, forward and backward. Here the forward is one erf (or tanh)
and a few in-place passes, the normal CDF it computes is saved, and the backward is
``Phi(x) + x * phi(x)`` from it: no second erf. The rule is written with operators and
``unary_rule``, so under ``create_graph`` it is recorded like any other and differentiates
again (second order in the op catalogue).
"""

from __future__ import annotations

import math

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import is_array, unary_rule, wrap
from .elementwise import cast
from .special import _erf_numpy
from .special import erf as erf_op

__all__ = ["gelu"]

_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_TANH_SCALE = math.sqrt(2.0 / math.pi)
_TANH_CUBIC = 0.044715


def _erf(v):
    return _erf_numpy(v) if is_array(v) else erf_op(v)


class GeluBackward0(Node):
    approximate: str

    def backward(self, grad):
        x, saved = self.saved_tensors  # saved: Phi(x) (exact) or tanh(inner) (tanh form)
        if self.approximate == "tanh":
            if not is_array(x):  # under create_graph: recompute, so the rule is recorded
                saved = unary_rule("tanh", _TANH_SCALE * (x + _TANH_CUBIC * x * x * x))
            slope = _TANH_SCALE * (1.0 + 3.0 * _TANH_CUBIC * x * x)
            return (grad * (0.5 * (1.0 + saved) + 0.5 * x * (1.0 - saved * saved) * slope),)
        if not is_array(x):
            saved = 0.5 * (1.0 + _erf(x * _INV_SQRT2))
        density = _INV_SQRT_2PI * unary_rule("exp", -0.5 * x * x)
        return (grad * (saved + x * density),)


def gelu(x: TensorBase, approximate: str = "none") -> TensorBase:
    """GELU of a floating tensor; ``approximate`` is 'none' (erf) or 'tanh'."""
    if x._data.dtype.kind != "f":
        x = cast(x, np.dtype(np.float32))
    data = x._data
    with np.errstate(over="ignore", invalid="ignore"):
        if approximate == "tanh":
            inner = data * data
            inner *= _TANH_CUBIC
            inner += 1.0
            inner *= data
            inner *= _TANH_SCALE
            saved = np.tanh(inner, out=inner)
            out = saved + 1.0
            out *= data
            out *= 0.5
        else:
            saved = np.asarray(_erf_numpy(data * _INV_SQRT2), dtype=data.dtype)
            saved += 1.0
            saved *= 0.5  # Phi(x), the standard normal CDF
            out = saved * data
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = GeluBackward0(x)
    node.approximate = approximate
    node.save_for_backward(x, wrap(saved))
    return wrap(out, node)
