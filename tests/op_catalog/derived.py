"""Inputs derived from a catalogue row's samples, and the row run in PyTorch for comparison.

Every row's function is written against ``tl``; ``in_library(fn, torch)`` is the same function
with its module's ``tl`` (and ``F``) names bound to torch, so the one text runs in both (a
function that is itself a tinygrad_lite function is looked up by name in torch). From a row's
float64 samples ``derive`` makes:

- ``base``: the samples themselves;
- ``0-d``: every input a 0-d tensor (its first sample value);
- ``size-0``: the leading dim of the inputs (or of the first input alone, or their last dim)
  made 0, the first of these that PyTorch accepts;
- ``non-contiguous``: the same values through a transposed (2-D and up) or strided (1-D) view;
- ``singular``: the samples with exact zeros, ties (repeated values), equal arguments and the
  row's own kinks (``SINGULAR_POINTS``) written into them.

A variant whose shapes PyTorch refuses for the op is not derived for that row (PyTorch's
signature decides what "allows" means); rows that cannot run in PyTorch at all are listed in
``NOT_IN_TORCH`` with the reason.
"""

from __future__ import annotations

import types
from collections.abc import Callable

import numpy as np

import tinygrad_lite as tl

# the row's non-smooth points beyond the generic ones (0, ties, equal arguments): thresholds
# and bounds where a one-sided rule has to pick a side as PyTorch does
SINGULAR_POINTS: dict[str, list[float]] = {
    "clamp": [-0.5, 0.5], "clamp-min": [0.1], "clip-max": [0.3], "clamp_min": [0.1],
    "clamp_max": [-0.1], "hardshrink": [0.5, -0.5], "round": [0.5, 1.5, -0.5],
    "round-decimals": [0.05, 0.15], "floor": [1.0, -1.0], "ceil": [1.0, -1.0],
    "trunc": [1.0, -1.0], "frac": [1.0, -1.0], "maximum-scalar": [0.25],
    "fmod": [1.3 / 3], "remainder": [1.3 / 3],
    "hardtanh": [-0.7, 0.8], "relu6": [1.5], "softshrink": [0.3, -0.3], "threshold": [0.2],
    "softplus-threshold": [0.5], "huber-delta": [0.5, -0.5], "abs": [0.0], "relu": [0.0],
    "sign": [0.0], "norm-1": [0.0],
}


def in_library(fn: Callable, lib) -> Callable:
    """``fn`` with the names ``tl`` and ``F`` of its module bound to ``lib`` (tl or torch)."""
    if lib is tl:
        return fn
    if _is_library_function(fn):  # a library function passed as the row itself
        return _counterpart(fn, lib)
    if not isinstance(fn, types.FunctionType):
        return fn
    scope = dict(fn.__globals__)
    scope["tl"], scope["F"] = lib, lib.nn.functional
    for key, value in list(scope.items()):
        if _is_library_function(value):  # imported by name (``from ... import pad``)
            try:
                scope[key] = _counterpart(value, lib)
            except AttributeError:  # a reference helper with no torch twin: kept
                pass
        elif (isinstance(value, types.FunctionType) and value.__globals__ is fn.__globals__
                and value is not fn):  # the module's own helpers see torch too
            scope[key] = _rebound(value, scope)
    return _rebound(fn, scope)


def _rebound(fn: types.FunctionType, scope: dict) -> types.FunctionType:
    out = types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, fn.__closure__)
    out.__kwdefaults__ = fn.__kwdefaults__
    return out


def _is_library_function(value: object) -> bool:
    return callable(value) and not isinstance(value, type) and (
        getattr(value, "__module__", None) or "").startswith("tinygrad_lite")


def _counterpart(fn: Callable, lib) -> Callable:
    """The function of the same name in ``lib``, looked up first in the namespace that
    matches the tinygrad_lite module it came from."""
    module = fn.__module__
    spaces = [lib, lib.nn.functional, lib.special, lib.linalg]
    for key, space in (("linalg", lib.linalg), ("special", lib.special),
                       ("nn", lib.nn.functional)):
        if key in module:
            spaces.insert(0, space)
    name = getattr(fn, "__name__", "")
    for space in spaces:
        if hasattr(space, name):
            return getattr(space, name)
    raise AttributeError(f"torch has no {name}")


def _with_zero_dim(shapes: list[tuple], where: str) -> list[tuple]:
    if where == "leading":
        return [(0,) + s[1:] if s else s for s in shapes]
    if where == "first":
        return [(0,) + s[1:] if i == 0 and s else s for i, s in enumerate(shapes)]
    return [s[:-1] + (0,) if s else s for s in shapes]


def size_zero_candidates(shapes: list[tuple]) -> list[list[tuple]]:
    """Shapes with a zero-size dim, in the order tried."""
    out = []
    for where in ("leading", "first", "last"):
        derived = _with_zero_dim(shapes, where)
        if derived != shapes and derived not in out:
            out.append(derived)
    return out


def singular_arrays(name: str, arrays: list[np.ndarray]) -> list[np.ndarray]:
    """The samples with zeros, ties, equal arguments and the row's kinks written in."""
    points = [0.0] + SINGULAR_POINTS.get(name, [])
    out = []
    for k, a in enumerate(arrays):
        a = a.copy()
        flat = a.reshape(-1)
        if flat.size >= 2:
            flat[1::3] = flat[0::3][:len(flat[1::3])]  # ties: each third value repeated
        for i, p in enumerate(points):  # the kinks, at spread-out positions
            if flat.size:
                flat[(2 + 3 * i + k) % flat.size] = p
        out.append(a)
    if len(out) >= 2 and out[0].shape == out[1].shape and out[0].size >= 4:
        out[1].reshape(-1)[-2:] = out[0].reshape(-1)[-2:]  # equal arguments
    return out


def leaves_and_inputs(lib, arrays: list[np.ndarray], layout: str, dtype) -> tuple[list, list]:
    """Leaf tensors (requiring grad) and the op's inputs built from them in ``layout``."""
    leaves, inputs = [], []
    for a in arrays:
        if layout == "non-contiguous" and a.ndim >= 2:
            leaf = lib.tensor(np.ascontiguousarray(np.swapaxes(a, 0, -1)), dtype=dtype,
                              requires_grad=True)
            inputs.append(leaf.transpose(0, -1))
        elif layout == "non-contiguous" and a.ndim == 1:
            doubled = np.repeat(a, 2)  # every other element is the input: a strided view
            leaf = lib.tensor(doubled, dtype=dtype, requires_grad=True)
            inputs.append(leaf[::2])
        else:
            leaf = lib.tensor(a, dtype=dtype, requires_grad=True)
            inputs.append(leaf)
        leaves.append(leaf)
    return leaves, inputs


def to_numpy(t) -> np.ndarray:
    """A tensor's values (torch's lazily zero tensors included)."""
    if hasattr(t, "_is_zerotensor") and t._is_zerotensor():
        return np.zeros(tuple(t.shape))
    return np.array(t.detach().numpy(), dtype=np.float64)


def evaluate(lib, fn: Callable, arrays: list[np.ndarray], layout: str, dtype: str,
             second_order: bool) -> dict:
    """The row's output, the gradients of its leaves under a fixed upstream, and (float64) the
    derivative of those gradients along fixed weights: a Hessian-vector product."""
    leaves, inputs = leaves_and_inputs(lib, arrays, layout, getattr(lib, dtype))
    out = fn(*inputs)
    shape = tuple(out.shape)
    upstream = lib.tensor(np.random.default_rng(1).standard_normal(shape), dtype=out.dtype)
    result = {"out": to_numpy(out), "dtype": str(out.dtype).split(".")[-1]}
    if not out.requires_grad:
        return result
    grads = lib.autograd.grad(out, leaves, grad_outputs=upstream, create_graph=second_order,
                              allow_unused=True)
    result["grads"] = [None if g is None else to_numpy(g) for g in grads]
    if not second_order:
        return result
    rng = np.random.default_rng(2)
    probe = None
    for g, leaf in zip(grads, leaves):
        if g is not None and g.requires_grad:
            term = (g * lib.tensor(rng.standard_normal(tuple(leaf.shape)), dtype=g.dtype)).sum()
            probe = term if probe is None else probe + term
    if probe is None:  # the gradient is constant (a linear op)
        result["hvp"] = None
        return result
    hvp = lib.autograd.grad(probe, leaves, allow_unused=True)
    result["hvp"] = [None if h is None else to_numpy(h) for h in hvp]
    return result
