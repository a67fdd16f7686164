"""Catalogue rows of elementwise arithmetic and math: the binary ops (each expanded into
same-shape, broadcast, 0-dim and Python-scalar variants), the unary functions, rounding, clamps,
powers and the floating-point helpers (fmod, frexp, ldexp, copysign, nan_to_num, ...)."""

import numpy as np

import tinygrad_lite as tl
from op_catalog.registry import row

BINARY = {
    # name: (tensor function, domain, NumPy reference)
    "add": (lambda a, b: a + b, "real", np.add),
    "sub": (lambda a, b: a - b, "real", np.subtract),
    "mul": (lambda a, b: a * b, "real", np.multiply),
    "div": (lambda a, b: a / b, "nonzero", np.divide),
    "pow": (lambda a, b: a ** b, "positive", np.power),
    "maximum": (tl.maximum, "distinct", np.maximum),
    "minimum": (tl.minimum, "distinct", np.minimum),
    "add-alpha": (lambda a, b: tl.add(a, b, alpha=0.5), "real", lambda a, b: a + 0.5 * b),
    "sub-alpha": (lambda a, b: tl.sub(a, b, alpha=2), "real", lambda a, b: a - 2 * b),
    "lerp-scalar-weight": (lambda a, b: tl.lerp(a, b, 0.3), "real", lambda a, b: a + 0.3 * (b - a)),
    "lerp-tensor-weight": (lambda a, w: tl.lerp(a, a * 2, w), "real", lambda a, w: a + w * a),
    "where": (lambda a, b: tl.where(a > 0, a, b), "nonzero", lambda a, b: np.where(a > 0, a, b)),
    "max-binary": (tl.max, "distinct", np.maximum),
    "min-binary": (lambda a, b: a.min(b), "distinct", np.minimum),
    "atan2": (tl.atan2, "nonzero", np.arctan2),
    "hypot": (tl.hypot, "nonzero", np.hypot),
    "clamp-tensor-bounds": (lambda a, b: a.clamp(b, b + 1.5), "distinct",
                            lambda a, b: np.minimum(np.maximum(a, b), b + 1.5)),
}


BINARY_SHAPES = {
    "same": [(3, 4), (3, 4)],
    "broadcast": [(2, 3, 4), (3, 1)],
    "broadcast-both": [(4, 1), (1, 5)],
    "broadcast-left": [(4,), (3, 4)],
    "0dim": [(), (2, 3)],
}


UNARY = {
    # name: (tensor function, domain, NumPy reference)
    "neg": (lambda a: -a, "real", np.negative),
    "exp": (tl.exp, "real", np.exp),
    "exp2": (tl.exp2, "real", np.exp2),
    "expm1": (tl.expm1, "unit", np.expm1),
    "log": (tl.log, "positive", np.log),
    "log2": (tl.log2, "positive", np.log2),
    "log10": (tl.log10, "positive", np.log10),
    "log1p": (tl.log1p, "unit", np.log1p),
    "sin": (tl.sin, "real", np.sin),
    "cos": (tl.cos, "real", np.cos),
    "tan": (tl.tan, "unit", np.tan),
    "tanh": (tl.tanh, "real", np.tanh),
    "sigmoid": (tl.sigmoid, "real", lambda a: 1 / (1 + np.exp(-a))),
    "relu": (tl.relu, "nonzero", lambda a: np.maximum(a, 0)),
    "sqrt": (tl.sqrt, "positive", np.sqrt),
    "rsqrt": (tl.rsqrt, "positive", lambda a: 1 / np.sqrt(a)),
    "square": (tl.square, "real", np.square),
    "reciprocal": (tl.reciprocal, "nonzero", np.reciprocal),
    "abs": (tl.abs, "nonzero", np.abs),
    "sign": (tl.sign, "nonzero", np.sign),
    "floor": (tl.floor, "real", np.floor),
    "ceil": (tl.ceil, "real", np.ceil),
    "round": (tl.round, "real", np.round),
    "round-decimals": (lambda a: tl.round(a, decimals=1), "real", lambda a: np.round(a, 1)),
    "trunc": (tl.trunc, "real", np.trunc),
    "clamp": (lambda a: a.clamp(-0.5, 0.5), "real", lambda a: np.clip(a, -0.5, 0.5)),
    "clamp-min": (lambda a: a.clamp(min=0.1), "real", lambda a: np.maximum(a, 0.1)),
    "clip-max": (lambda a: tl.clip(a, max=0.3), "real", lambda a: np.minimum(a, 0.3)),
    "softmax": (lambda a: a.softmax(-1), "real",
                lambda a: np.exp(a) / np.exp(a).sum(-1, keepdims=True)),
    "log_softmax": (lambda a: a.log_softmax(0), "real",
                    lambda a: a - np.log(np.exp(a).sum(0, keepdims=True))),
}


for _name, (_fn, _domain, _ref) in BINARY.items():
    for _variant, _shapes in BINARY_SHAPES.items():
        row(f"{_name}-{_variant}", _fn, _shapes, _domain, _ref)
# Python scalars on either side (PyTorch's weak scalar typing keeps the tensor's dtype)
row("add-scalar-right", lambda a: a + 2.5, [(3,)], "real")
row("add-scalar-left", lambda a: 2.5 + a, [(3,)], "real")
row("sub-scalar-left", lambda a: 1.0 - a, [(2, 3)], "real")
row("mul-scalar", lambda a: 3 * a * 0.5, [(4,)], "real")
row("div-scalar-left", lambda a: 2.0 / a, [(5,)], "nonzero")
row("div-scalar-right", lambda a: a / 4, [(5,)], "real")
row("pow-scalar-exponent", lambda a: a ** 3, [(3, 4)], "real")
row("pow-fractional-exponent", lambda a: a ** 0.5, [(3, 4)], "positive")
row("pow-negative-exponent", lambda a: a ** -2, [(3, 4)], "nonzero")
row("pow-scalar-base", lambda a: 2.0 ** a, [(3, 4)], "real")
row("maximum-scalar", lambda a: tl.maximum(a, tl.tensor(0.25, dtype=a.dtype)), [(3, 4)],
    "distinct", lambda a: np.maximum(a, 0.25))
row("where-scalar", lambda a: tl.where(a > 0, a, 0.0), [(3, 4)], "nonzero",
    lambda a: np.where(a > 0, a, 0.0))
for _name, (_fn, _domain, _ref) in UNARY.items():
    row(_name, _fn, [(3, 4)], _domain, _ref)
row("exp-0dim", tl.exp, [()], "real", np.exp)
row("pow-2", lambda a: a ** 2, [(3, 4)], "real", lambda a: a ** 2)
row("pow-3", lambda a: a ** 3, [(3, 4)], "real", lambda a: a ** 3)
row("pow-0.5", lambda a: a ** 0.5, [(3, 4)], "positive", np.sqrt)
row("pow-neg1", lambda a: a ** -1, [(3, 4)], "nonzero", lambda a: 1 / a)
row("pow-neg0.5", lambda a: a ** -0.5, [(3, 4)], "positive", lambda a: 1 / np.sqrt(a))
row("asin", tl.asin, [(3, 4)], "unit", np.arcsin)
row("acos", tl.acos, [(3, 4)], "unit", np.arccos)
row("atan", tl.atan, [(3, 4)], "real", np.arctan)
row("sinh", tl.sinh, [(3, 4)], "real", np.sinh)
row("cosh", tl.cosh, [(3, 4)], "real", np.cosh)
row("asinh", tl.asinh, [(3, 4)], "real", np.arcsinh)
row("acosh", lambda a: tl.acosh(a + 1.5), [(3, 4)], "positive",
    lambda a: np.arccosh(a + 1.5))
row("atanh", tl.atanh, [(3, 4)], "unit", np.arctanh)
row("logaddexp", tl.logaddexp, [(3, 4), (4,)], "real", np.logaddexp)
row("logaddexp2", tl.logaddexp2, [(3, 4), (3, 4)], "real", np.logaddexp2)
row("copysign", lambda a, b: tl.copysign(a, b), [(3, 4), (3, 4)], "nonzero", np.copysign)
row("frac", tl.frac, [(3, 4)], "nonzero", lambda a: a - np.trunc(a))
row("fmod", lambda a: tl.fmod(a * 3, 1.3), [(3, 4)], "nonzero",
    lambda a: np.fmod(a * 3, 1.3))
row("remainder", lambda a: tl.remainder(a * 3, 1.3), [(3, 4)], "nonzero",
    lambda a: np.remainder(a * 3, 1.3))
row("float_power", lambda a: tl.float_power(a, 2.5).to(a.dtype), [(3, 4)], "positive",
    lambda a: a ** 2.5)
row("deg2rad", tl.deg2rad, [(3, 4)], "real", np.deg2rad)
row("nan_to_num", tl.nan_to_num, [(3, 4)], "real", np.nan_to_num)
row("fmax", tl.fmax, [(3, 4), (3, 4)], "distinct", np.fmax)
row("fmin-broadcast", tl.fmin, [(3, 4), (4,)], "distinct", np.fmin)
row("clamp_min", lambda a: tl.clamp_min(a, 0.1), [(3, 4)], "distinct",
    lambda a: np.maximum(a, 0.1))
row("clamp_max", lambda a: a.clamp_max(-0.1), [(3, 4)], "distinct",
    lambda a: np.minimum(a, -0.1))
row("addcmul", lambda a, b, c: tl.addcmul(a, b, c, value=0.5), [(3, 4), (3, 4), (4,)],
    "real", lambda a, b, c: a + 0.5 * b * c)
row("addcdiv", lambda a, b, c: a.addcdiv(b, c, value=-2), [(3, 4), (3, 1), (3, 4)],
    "nonzero", lambda a, b, c: a - 2 * b / c)
row("rsub", lambda a, b: tl.rsub(a, b, alpha=2), [(3, 4), (3, 4)], "real",
    lambda a, b: b - 2 * a)
row("ldexp", lambda a: tl.ldexp(a, tl.tensor([1, -2, 0, 3])), [(3, 4)], "real",
    lambda a: a * np.array([2.0, 0.25, 1.0, 8.0]))
row("frexp-mantissa", lambda a: tl.frexp(a * 3).mantissa, [(3, 4)], "nonzero",
    lambda a: np.frexp(a * 3)[0])
row("vander", lambda a: tl.vander(a, 4), [(3,)], "real", lambda a: np.vander(a, 4))
row("vander-increasing", lambda a: tl.vander(a, increasing=True), [(4,)], "real",
    lambda a: np.vander(a, increasing=True))
row("angle", lambda a: tl.angle(a) + a, [(3, 4)], "nonzero",
    lambda a: np.where(a < 0, np.pi, 0.0) + a)
row("conj_physical", lambda a: tl.conj_physical(a) * 2, [(3,)], "real", lambda a: a * 2)
