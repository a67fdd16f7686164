"""``bench_ops.py --per-op``: forward, and forward + backward, of each common op on (N, N) float32.

The NumPy floor does the same arithmetic by hand: the forward, then the input gradients for a
fixed upstream gradient ``g`` (the frameworks call ``y.backward(g)``, so no extra reduction op is
timed). Each (framework, N) runs in its own subprocess that times every op in both modes; the
gradients are checked against the floor's first.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _harness as harness
import _workloads as wl
import numpy as np

FRAMEWORKS = ("numpy", "tinygrad_lite", "torch")


def _softmax(a: np.ndarray) -> np.ndarray:
    e = np.exp(a - a.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _sigmoid(a: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-a))


# name -> (number of inputs, framework expression, NumPy forward, NumPy input gradients given g).
# Input 0 is N(0, 1); input 1 is N(0, 1), or positive (|x| + 0.5) for div and log.
OPS: dict[str, tuple[int, Callable, Callable, Callable]] = {
    "add": (2, lambda a, b: a + b, lambda a, b: a + b, lambda a, b, y, g: (g, g)),
    "mul": (2, lambda a, b: a * b, lambda a, b: a * b, lambda a, b, y, g: (g * b, g * a)),
    "div": (2, lambda a, b: a / b, lambda a, b: a / b,
            lambda a, b, y, g: (g / b, -g * a / (b * b))),
    "matmul": (2, lambda a, b: a @ b, lambda a, b: a @ b,
               lambda a, b, y, g: (g @ b.T, a.T @ g)),
    "relu": (1, lambda a: a.relu(), lambda a: np.maximum(a, 0), lambda a, y, g: (g * (a > 0),)),
    "exp": (1, lambda a: a.exp(), np.exp, lambda a, y, g: (g * y,)),
    "log": (1, lambda a: a.log(), np.log, lambda a, y, g: (g / a,)),
    "tanh": (1, lambda a: a.tanh(), np.tanh, lambda a, y, g: (g * (1 - y * y),)),
    "sigmoid": (1, lambda a: a.sigmoid(), _sigmoid, lambda a, y, g: (g * y * (1 - y),)),
    "sum": (1, lambda a: a.sum(), np.sum, lambda a, y, g: (np.broadcast_to(g, a.shape),)),
    "mean(1)": (1, lambda a: a.mean(1), lambda a: a.mean(1),
                lambda a, y, g: (np.broadcast_to(g[:, None] / a.shape[1], a.shape),)),
    "softmax(1)": (1, lambda a: a.softmax(1), _softmax,
                   lambda a, y, g: (y * (g - (g * y).sum(1, keepdims=True)),)),
    "transpose": (1, lambda a: a.transpose(0, 1), lambda a: a.T, lambda a, y, g: (g.T,)),
    "reshape": (1, lambda a: a.reshape(-1), lambda a: a.reshape(-1),
                lambda a, y, g: (g.reshape(a.shape),)),
}
POSITIVE = {"div": 1, "log": 0, "lgamma": 0, "xlogy": 1}  # which input must be positive


# -- the sorting, special-math, linear-algebra and indexing ops of the tensor-API issue ---------
# Integer indices are fixed per size and converted once per framework (not timed).
_INDEX_CACHE: dict[tuple[str, int, str], Any] = {}


def _index(a: Any, kind: str) -> Any:
    """A fixed int64 index for ``a`` (N, N) in ``a``'s framework: "rows" is (N,) row numbers with
    repeats (index_add), "cols" an (N, N) column index per element (gather, scatter)."""
    n = a.shape[0]
    fw = "numpy" if isinstance(a, np.ndarray) else type(a).__module__.split(".")[0]
    key = (fw, n, kind)
    if key not in _INDEX_CACHE:
        rng = np.random.default_rng(7)
        idx = rng.integers(0, n, n if kind == "rows" else (n, n))
        if fw == "torch":
            import torch

            _INDEX_CACHE[key] = torch.from_numpy(idx)
        elif fw == "numpy":
            _INDEX_CACHE[key] = idx
        else:
            harness.add_repo_to_path()
            import tinygrad_lite as tl

            _INDEX_CACHE[key] = tl.tensor(idx)
    return _INDEX_CACHE[key]


def _scatter_add_cols(idx: np.ndarray, values: np.ndarray) -> np.ndarray:
    """out[i, idx[i, j]] += values[i, j], on (N, N), by one bincount."""
    n = idx.shape[0]
    flat = (np.arange(n)[:, None] * n + idx).ravel()
    return np.bincount(flat, weights=values.ravel(), minlength=n * n).reshape(n, n)


def _rev_cumsum(g: np.ndarray) -> np.ndarray:
    return np.cumsum(g[:, ::-1], 1)[:, ::-1]


def _topk_k(a: Any) -> int:
    return max(1, a.shape[1] // 8)


def _np_topk(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    k = _topk_k(a)
    part = np.argpartition(-a, k - 1, 1)[:, :k]
    order = np.argsort(-np.take_along_axis(a, part, 1), 1)
    idx = np.take_along_axis(part, order, 1)
    return np.take_along_axis(a, idx, 1), idx


def _np_cummax_idx(a: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.maximum.accumulate(np.where(a == y, np.arange(a.shape[1]), 0), 1)


# sort, topk and cummax return values and indices (the backward needs the indices), so their
# floors compute both, as a NumPy program that needs the indices does; the floor's backward
# reuses them (see WITH_INDICES)


def _np_sort(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    idx = np.argsort(a, 1)
    return np.take_along_axis(a, idx, 1), idx


def _np_cummax(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    y = np.maximum.accumulate(a, 1)
    return y, _np_cummax_idx(a, y)


def _np_cdist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    d2 = (a * a).sum(1)[:, None] + (b * b).sum(1)[None] - 2 * (a @ b.T)
    return np.sqrt(np.maximum(d2, 0))


def _cdist_grads(a: np.ndarray, b: np.ndarray, y: np.ndarray, g: np.ndarray) -> tuple:
    w = np.where(y > 0, g / np.where(y > 0, y, 1), 0)
    return w.sum(1)[:, None] * a - w @ b, w.sum(0)[:, None] * b - w.T @ a


def _kron_grads(a: np.ndarray, b: np.ndarray, y: np.ndarray, g: np.ndarray) -> tuple:
    g4 = g.reshape(a.shape[0], b.shape[0], a.shape[1], b.shape[1])
    return (np.tensordot(g4, b, axes=([1, 3], [0, 1])),
            np.tensordot(g4, a, axes=([0, 2], [0, 1])))


def _np_index_add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    y = a.copy()
    np.add.at(y, _index(a, "rows"), b)
    return y


BATCH = 2  # baddbmm: a batch of 2 (N, N) products
KRON_B = 4  # kron: (N, N) by a (4, 4) factor, (4N, 4N) out
# name -> per-input shapes for size n, where they are not (n, n)
SHAPES: dict[str, Callable[[int], list[tuple[int, ...]]]] = {
    "baddbmm": lambda n: [(BATCH, n, n)] * 3,
    "kron": lambda n: [(n, n), (KRON_B, KRON_B)],
}
WITH_INDICES = {"sort(1)", "topk(N/8)", "cummax(1)"}  # NumPy forward returns (values, indices)
UNIT = {"erfinv": 0}  # which input must lie in (-1, 1)
# (rtol, atol) of the gradient check where the default 1e-4 is below float32 rounding: kron's
# small factor gets sums of N² products, whose order differs between implementations
TOLERANCE = {"kron": (1e-3, 1e-2)}

OPS.update({
    "sort(1)": (1, lambda a: a.sort(1)[0], _np_sort,
                lambda a, y, g: (_scatter_add_cols(y[1], g),)),
    "topk(N/8)": (1, lambda a: a.topk(_topk_k(a), 1)[0], _np_topk,
                  lambda a, y, g: (_scatter_add_cols(y[1], g),)),
    "cumsum(1)": (1, lambda a: a.cumsum(1), lambda a: np.cumsum(a, 1),
                  lambda a, y, g: (_rev_cumsum(g),)),
    "cummax(1)": (1, lambda a: a.cummax(1)[0], _np_cummax,
                  lambda a, y, g: (_scatter_add_cols(y[1], g),)),
    "logcumsumexp(1)": (1, lambda a: a.logcumsumexp(1), lambda a: np.logaddexp.accumulate(a, 1),
                        lambda a, y, g: (np.exp(a) * _rev_cumsum(g * np.exp(-y)),)),
    "atan2": (2, lambda a, b: a.atan2(b), np.arctan2,
              lambda a, b, y, g: (g * b / (a * a + b * b), -g * a / (a * a + b * b))),
    "hypot": (2, lambda a, b: a.hypot(b), np.hypot,
              lambda a, b, y, g: (g * a / y, g * b / y)),
    "logaddexp": (2, lambda a, b: a.logaddexp(b), np.logaddexp,
                  lambda a, b, y, g: (g * np.exp(a - y), g * np.exp(b - y))),
    "xlogy": (2, lambda a, b: a.xlogy(b), lambda a, b: a * np.log(b),
              lambda a, b, y, g: (g * np.log(b), g * a / b)),
    "addmm": (3, lambda c, a, b: c.addmm(a, b), lambda c, a, b: c + a @ b,
              lambda c, a, b, y, g: (g, g @ b.T, a.T @ g)),
    "baddbmm": (3, lambda c, a, b: c.baddbmm(a, b), lambda c, a, b: c + a @ b,
                lambda c, a, b, y, g: (g, g @ b.transpose(0, 2, 1), a.transpose(0, 2, 1) @ g)),
    "kron": (2, lambda a, b: a.kron(b), np.kron, _kron_grads),
    "cdist": (2, lambda a, b: _lib(a).cdist(a, b), _np_cdist, _cdist_grads),
    "repeat_interleave(2)": (1, lambda a: a.repeat_interleave(2, 1),
                               lambda a: np.repeat(a, 2, 1),
                               lambda a, y, g: (g.reshape(a.shape[0], -1, 2).sum(2),)),
    "index_add(0)": (2, lambda a, b: a.index_add(0, _index(a, "rows"), b), _np_index_add,
                     lambda a, b, y, g: (g, g[_index(a, "rows")])),
    "scatter_reduce(sum)": (
        2, lambda a, b: a.scatter_reduce(1, _index(a, "cols"), b, "sum"),
        lambda a, b: a + _scatter_add_cols(_index(a, "cols"), b).astype(a.dtype),
        lambda a, b, y, g: (g, np.take_along_axis(g, _index(a, "cols"), 1))),
    "gather(1)": (1, lambda a: a.gather(1, _index(a, "cols")),
                  lambda a: np.take_along_axis(a, _index(a, "cols"), 1),
                  lambda a, y, g: (_scatter_add_cols(_index(a, "cols"), g),)),
    "take_along_dim(1)": (1, lambda a: _lib(a).take_along_dim(a, _index(a, "cols"), 1),
                          lambda a: np.take_along_axis(a, _index(a, "cols"), 1),
                          lambda a, y, g: (_scatter_add_cols(_index(a, "cols"), g),)),
})


def _lib(a: Any) -> Any:
    """The module of ``a``'s framework (torch or tinygrad_lite), for functions without a method."""
    import importlib

    return importlib.import_module(type(a).__module__.split(".")[0])


def _add_scipy_rows() -> None:
    """erf, erfinv and lgamma: NumPy has none, so SciPy's ufuncs are the floor (rows skipped
    when SciPy is missing)."""
    try:
        from scipy import special as sp
    except ImportError:
        return
    root_pi = np.float32(2 / np.sqrt(np.pi))
    OPS.update({
        "erf": (1, lambda a: a.erf(), sp.erf,
                lambda a, y, g: (g * root_pi * np.exp(-a * a),)),
        "erfinv": (1, lambda a: a.erfinv(), sp.erfinv,
                   lambda a, y, g: (g / root_pi * np.exp(y * y),)),
        "lgamma": (1, lambda a: a.lgamma(), sp.gammaln, lambda a, y, g: (g * sp.psi(a),)),
    })


_add_scipy_rows()


def inputs(name: str, n: int) -> tuple[list[np.ndarray], np.ndarray]:
    """The op's float32 inputs and the upstream gradient ``g`` (shaped like its output)."""
    rng = np.random.default_rng(4)
    shapes = SHAPES[name](n) if name in SHAPES else [(n, n)] * OPS[name][0]
    arrays = [rng.standard_normal(shape, dtype=np.float32) for shape in shapes]
    if name in POSITIVE:
        arrays[POSITIVE[name]] = np.abs(arrays[POSITIVE[name]]) + np.float32(0.5)
    if name in UNIT:
        arrays[UNIT[name]] = np.tanh(arrays[UNIT[name]]) * np.float32(0.9)
    y = OPS[name][2](*arrays)
    if name in WITH_INDICES:
        y = y[0]
    return arrays, rng.standard_normal(np.shape(y)).astype(np.float32)


def numpy_cases(name: str, arrays: list, g: np.ndarray) -> tuple[Callable, Callable]:
    """(forward, forward + gradients) for the floor."""
    _, _, fwd, bwd = OPS[name]

    def both() -> tuple:
        y = fwd(*arrays)
        return bwd(*arrays, y, g)

    return lambda: fwd(*arrays), both


def framework_cases(fw: str, name: str, arrays: list, g: np.ndarray) -> tuple[Callable, Callable]:
    """(forward recorded for autograd, forward + backward) for tinygrad_lite or torch."""
    if fw == "tinygrad_lite":
        harness.add_repo_to_path()
        import tinygrad_lite as lib

        leaves = [lib.tensor(x, requires_grad=True) for x in arrays]
    else:
        import torch as lib

        lib.set_num_threads(2)
        leaves = [lib.tensor(x, requires_grad=True) for x in arrays]
    tg = lib.tensor(g)
    expr = OPS[name][1]

    def both() -> Any:
        for t in leaves:
            t.grad = None
        expr(*leaves).backward(tg)
        return tuple(t.grad for t in leaves)

    return lambda: expr(*leaves), both


def selected(ops: str | None) -> list[str]:
    """The op names of ``--ops`` (comma-separated; default all), in table order."""
    if not ops:
        return list(OPS)
    wanted = [o.strip() for o in ops.split(",") if o.strip()]
    unknown = [o for o in wanted if o not in OPS]
    if unknown:
        raise SystemExit(f"unknown --ops {unknown}; choose from {list(OPS)}")
    return [o for o in OPS if o in wanted]


def worker(fw: str, n: int, min_time: float, repeats: int, ops: str | None = None) -> int:
    """Check and time every op forward and forward + backward; print one JSON line."""
    out: dict[str, Any] = {}
    for name in selected(ops):
        arrays, g = inputs(name, n)
        want = numpy_cases(name, arrays, g)[1]()
        fwd, both = (numpy_cases if fw == "numpy" else
                     lambda *a: framework_cases(fw, *a))(name, arrays, g)
        got = [np.asarray(x if isinstance(x, np.ndarray) else x.numpy()) for x in both()]
        for i, (gv, wv) in enumerate(zip(got, want)):
            rtol, atol = TOLERANCE.get(name, (1e-4, 1e-4))
            if gv.shape != np.shape(wv) or not np.allclose(gv, wv, rtol=rtol, atol=atol):
                print(f"CORRECTNESS MISMATCH: per-op {name} {fw} {n}x{n}: gradient of input {i} "
                      f"differs from the NumPy floor's", file=sys.stderr)
                return harness.MISMATCH_EXIT
        out[name] = [harness.time_per_iteration(fwd, min_time, repeats).median,
                     harness.time_per_iteration(both, min_time, repeats).median]
    harness.emit({"ops": out, "threads": harness.thread_info()})
    return 0


def run(args: argparse.Namespace, script: Path) -> harness.Report:
    """Per size: a table op x (forward, forward + backward) for every framework vs NumPy."""
    frameworks, notes = wl.available([f for f in args.frameworks if f in FRAMEWORKS])
    title = "bench_ops --per-op: forward and forward+backward of each op, float32 (N, N)"
    print(f"# {title}\n{harness.environment_header()}")
    print(f"rounds {args.rounds} | repeat >= {args.min_time} s | {args.repeats} repeats | "
          f"sizes {args.sizes} | frameworks {frameworks}", flush=True)
    text = [f"### {title}", ""] + [f"note: {n}" for n in notes]
    extra = ["--per-op", "--min-time", str(args.min_time), "--repeats", str(args.repeats)]
    if args.ops:
        extra += ["--ops", args.ops]
    found = harness.run_rounds(script, [str(n) for n in args.sizes], frameworks, args.rounds,
                               extra, lambda r: f"{len(r['ops'])} ops")
    if found is None:
        return harness.Report(title, text, [], failed=True)

    def med(fw: str, n: int, op: str, mode: int) -> float:
        return harness.median([r["ops"][op][mode] for r in found[(fw, str(n))]])

    others = [fw for fw in frameworks if fw != "numpy"]
    for n in args.sizes:
        headers = ["op", "numpy fwd µs"]
        headers += [h for fw in others for h in (f"{fw} fwd µs", "×numpy")]
        headers += ["numpy fwd+bwd µs"]
        headers += [h for fw in others for h in (f"{fw} fwd+bwd µs", "×numpy")]
        rows = []
        for op in selected(args.ops):
            row: list[object] = [op]
            for mode in (0, 1):
                floor = med("numpy", n, op, mode)
                row.append(harness.fmt_us(floor))
                for fw in others:
                    t = med(fw, n, op, mode)
                    row += [harness.fmt_us(t), f"{t / floor:.2f}"]
            rows.append(row)
        text += [f"{n}x{n} (median of {args.rounds} rounds):", "",
                 harness.markdown_table(headers, rows), ""]
    text.append("Every op's gradients matched the NumPy floor's (rtol 1e-4, atol 1e-4; "
                f"looser for {sorted(TOLERANCE)}: see TOLERANCE).")
    return harness.Report(title, text, [])
