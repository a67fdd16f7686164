"""Random small programs of tensor ops for differential testing against PyTorch: an op table
(each op's text with ``a``, ``b`` as operands and ``L`` as the library), programs drawn as steps
over it, and running one with ``L = tinygrad_lite`` or ``L = torch`` to get its value, gradients
and a Hessian-vector product in float64. Shared by ``tests/test_differential_torch.py`` and the
larger fuzzer ``benchmarks/fuzz_graphs.py`` (which adds ops to the table)."""

from __future__ import annotations

import re

import numpy as np

SHAPE = (3, 4)  # every value broadcasts to this: full (3, 4), a row (1, 4) or a column (3, 1)

# name -> (arity, program text with a, b as operands and L as the library). Each keeps its
# result broadcastable to SHAPE and finite on any finite input, so the programs compose freely.
OPS: dict[str, tuple[int, str]] = {
    "add": (2, "a + b"),
    "sub": (2, "a - b"),
    "mul": (2, "a * b"),
    "div": (2, "a / (b * b + 0.5)"),
    "pow": (2, "(a * a + 0.5) ** L.tanh(b)"),
    "maximum": (2, "L.maximum(a, b)"),
    "minimum": (2, "L.minimum(a, b)"),
    "atan2": (2, "L.atan2(a, b * b + 0.1)"),
    "where": (2, "L.where(a > b, a, b * 2)"),
    "lerp": (2, "L.lerp(a, b, 0.3)"),
    "matmul": (2, "L.broadcast_to(a, (3, 4)) @ L.broadcast_to(b, (3, 4)).transpose(0, 1) "
                  "@ L.broadcast_to(a, (3, 4)) / 4"),
    "exp": (1, "L.exp(L.tanh(a) * 3)"),
    "log": (1, "L.log(a * a + 0.5)"),
    "sqrt": (1, "L.sqrt(a * a + 0.1)"),
    "tanh": (1, "L.tanh(a)"),
    "sigmoid": (1, "L.sigmoid(a)"),
    "sin": (1, "L.sin(a)"),
    "abs": (1, "L.abs(a)"),
    "relu": (1, "L.relu(a)"),
    "square": (1, "a * a"),
    "neg": (1, "-a"),
    "clamp": (1, "L.clamp(a, -0.5, 0.7)"),
    "softplus": (1, "L.nn.functional.softplus(a)"),
    "gelu": (1, "L.nn.functional.gelu(a)"),
    "silu": (1, "L.nn.functional.silu(a)"),
    "elu": (1, "L.nn.functional.elu(a)"),
    "leaky_relu": (1, "L.nn.functional.leaky_relu(a, 0.1)"),
    "softmax": (1, "L.softmax(L.broadcast_to(a, (3, 4)), dim=1)"),
    "log_softmax": (1, "L.log_softmax(L.broadcast_to(a, (3, 4)), dim=0)"),
    "logsumexp": (1, "L.logsumexp(a, dim=1, keepdim=True)"),
    "sum_rows": (1, "a.sum(dim=0, keepdim=True)"),
    "mean_cols": (1, "a.mean(dim=1, keepdim=True)"),
    "amax": (1, "a.amax(dim=1, keepdim=True)"),
    "max_dim": (1, "a.max(dim=0, keepdim=True)[0]"),
    "prod": (1, "L.tanh(a).prod(dim=1, keepdim=True)"),
    "norm": (1, "L.broadcast_to(a, (3, 4)).norm(dim=1, keepdim=True)"),
    "var": (1, "L.broadcast_to(a, (3, 4)).var(dim=1, keepdim=True)"),
    "cumsum": (1, "L.cumsum(a, dim=1)"),
    "cumprod": (1, "L.cumprod(L.tanh(a), dim=1)"),
    "flip": (1, "L.flip(a, dims=(1,))"),
    "normalize": (1, "L.nn.functional.normalize(L.broadcast_to(a, (3, 4)), dim=1)"),
    "layer_norm": (1, "L.nn.functional.layer_norm(L.broadcast_to(a, (3, 4)), (4,))"),
    "transpose2": (1, "L.broadcast_to(a, (3, 4)).transpose(0, 1).reshape(3, 4)"),
    "cat_split": (1, "L.cat([a, a * 2], dim=1)[:, 1:1 + a.shape[1]]"),
    "index": (1, "L.broadcast_to(a, (3, 4))[[2, 0, 1]]"),
    "gather": (1, "L.broadcast_to(a, (3, 4)).gather(1, L.tensor([[1, 0, 3, 3]] * 3))"),
}

INPUT_SHAPES = [(3, 4), (1, 4), (3, 1)]
WEIGHT = np.random.default_rng(1).standard_normal(SHAPE)


def program_text(steps: list[tuple[str, int, int]], ops: dict = OPS) -> str:
    """The program as Python: ``v0, v1, v2`` are the inputs, each step adds one value (the op
    names looked up in ``ops``)."""
    lines, n = [], len(INPUT_SHAPES)
    for op, i, j in steps:
        arity, expr = ops[op]
        a, b = f"v{i % n}", f"v{j % n}"
        lines.append(f"v{n} = " + _substitute(expr, a, b if arity == 2 else a))
        n += 1
    lines.append(f"out = (v{n - 1} * W).sum()")
    return "\n".join(lines)


def _substitute(expr: str, a: str, b: str) -> str:
    """Replace the operand names ``a``/``b`` (whole words only) in an op's text."""
    return re.sub(r"\b[ab]\b", lambda m: a if m[0] == "a" else b, expr)


def to_numpy(t) -> np.ndarray:
    """A tensor's values (torch's lazily zero tensors included)."""
    if hasattr(t, "_is_zerotensor") and t._is_zerotensor():
        return np.zeros(tuple(t.shape))
    return np.array(t.detach().numpy())


def run(text: str, lib, inputs: list[np.ndarray]):
    """Value, gradients and Hessian-vector products of the program in ``lib`` (tl or torch)."""
    vs = [lib.tensor(x, dtype=lib.float64, requires_grad=True) for x in inputs]
    scope = {"L": lib, "W": lib.tensor(WEIGHT, dtype=lib.float64),
             **{f"v{i}": v for i, v in enumerate(vs)}}
    exec(text, scope)
    out = scope["out"]
    grads = lib.autograd.grad(out, vs, create_graph=True, allow_unused=True)
    grads = [lib.zeros_like(v) if g is None else g for v, g in zip(vs, grads)]
    probe = sum(((g * lib.tensor(np.full(v.shape, 0.5 + i), dtype=lib.float64)).sum()
                 for i, (g, v) in enumerate(zip(grads, vs))), lib.tensor(0.0, dtype=lib.float64))
    if probe.requires_grad:
        hvp = lib.autograd.grad(probe, vs, allow_unused=True)
        hvp = [np.zeros(v.shape) if h is None else to_numpy(h) for v, h in zip(vs, hvp)]
    else:  # the program is linear in every input
        hvp = [np.zeros(v.shape) for v in vs]
    return to_numpy(out), [to_numpy(g) for g in grads], hvp
