"""Differential fuzzing against PyTorch: random small graphs of tinygrad_lite ops, run once with
``L = tinygrad_lite`` and once with ``L = torch`` (the same program text serves both), comparing
values, gradients and second derivatives (a Hessian-vector product through ``create_graph``) in
float64, NaN and infinity positions included: where PyTorch reports NaN, ours must too.

Every graph is drawn from its own seed, so a mismatch is reproduced by ``--seed N --graphs 1``;
the report groups the mismatches by the ops of their graphs and prints the smallest program of
each group as Python. A third of the graphs run on a coarse grid (multiples of 1/2) so that exact
zeros, ties and kinks come up often.

    python3 benchmarks/fuzz_graphs.py [--graphs 20000] [--seed 0] [--steps 5] [--show 20]
                                      [--ops cumsum,stack,round_ste,norm]

Exit status 1 when a mismatch outside the documented last-bit differences was found (the
tolerances: relative 1e-9 for values, 1e-8 for gradients, 1e-7 for second derivatives, plus 64
ulps of the array's largest entry for sums that cancel). A kink that PyTorch's rounding puts on
the other side (a layer_norm output of 1.7e-17 where ours is exactly 0, then leaky_relu) shows
up here too: such a report is a last-bit difference of the value before the kink. The suite's
``tests/test_differential_torch.py`` runs a smaller, fixed sample of the same kind.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

import tinygrad_lite as tl  # noqa: E402
from tests.random_programs import INPUT_SHAPES, program_text, run  # noqa: E402
from tests.random_programs import OPS as BASE_OPS  # noqa: E402

# the suite's op table (tests/random_programs.py) and, here, the ops with kinks, ties and
# thresholds that singular-point fixes are checked on
OPS: dict[str, tuple[int, str]] = {**BASE_OPS, **{
    "stack": (2, "L.stack([L.broadcast_to(a, (3, 4)), L.broadcast_to(b, (3, 4))], dim=2)"
                 ".sum(dim=2)"),
    "stack_first": (2, "L.stack([L.broadcast_to(a, (3, 4)), L.broadcast_to(b, (3, 4)) * 2])[1]"),
    "smooth_l1": (2, "L.nn.functional.smooth_l1_loss(L.broadcast_to(a, (3, 4)), "
                     "L.broadcast_to(b, (3, 4)), reduction='none', beta=0.5)"),
    "huber": (2, "L.nn.functional.huber_loss(L.broadcast_to(a, (3, 4)), "
                 "L.broadcast_to(b, (3, 4)), reduction='none', delta=1.0)"),
    "kl_div": (2, "L.nn.functional.kl_div(L.broadcast_to(a, (3, 4)), "
                  "L.broadcast_to(b * b, (3, 4)), reduction='none')"),
    "round": (1, "L.round(a * 2) * a"),
    "round_ste": (1, "a + (L.round(a * 3) / 3 - a).detach()"),
    "softplus_kink": (1, "L.nn.functional.softplus(a, beta=2.0, threshold=1.0)"),
    "hardtanh": (1, "L.nn.functional.hardtanh(a, -0.5, 0.5)"),
    "relu6": (1, "L.nn.functional.relu6(a * 4)"),
    "hardshrink": (1, "L.nn.functional.hardshrink(a, 0.5)"),
    "softshrink": (1, "L.nn.functional.softshrink(a, 0.5)"),
    "threshold": (1, "L.nn.functional.threshold(a, 0.5, -1.0)"),
    "hardswish": (1, "L.nn.functional.hardswish(a * 3)"),
    "norm_all": (1, "L.broadcast_to(a, (3, 4)).norm(p='fro', dim=(0, 1), keepdim=True)"),
    "std": (1, "L.broadcast_to(a, (3, 4)).std(dim=1, keepdim=True)"),
}}
NAMES = sorted(OPS)

# Tolerances of the documented last-bit differences: values and gradients agree to these
# relative errors wherever both are finite (second derivatives chain more roundings).
RTOL = {"value": 1e-9, "grad": 1e-8, "hvp": 1e-7}


def draw(seed: int, max_steps: int, names: list[str] = NAMES
         ) -> tuple[list[tuple[str, int, int]], list[np.ndarray]]:
    """The program steps and the inputs of graph ``seed`` (ops drawn from ``names``)."""
    rng = np.random.default_rng(seed)
    steps = [(names[rng.integers(len(names))], int(rng.integers(50)), int(rng.integers(50)))
             for _ in range(int(rng.integers(1, max_steps + 1)))]
    inputs = [rng.standard_normal(s) for s in INPUT_SHAPES]
    if seed % 3 == 0:  # a coarse grid: exact zeros and ties, the kinks
        inputs = [np.round(x * 2) / 2 for x in inputs]
    return steps, inputs



def differs(ours: np.ndarray, theirs: np.ndarray, rtol: float) -> str | None:
    """Why ``ours`` is not PyTorch's ``theirs`` (None when it is): NaN where PyTorch has NaN,
    the same infinities, and the finite values within ``rtol``."""
    ours, theirs = np.broadcast_arrays(np.asarray(ours, float), np.asarray(theirs, float))
    nan_o, nan_t = np.isnan(ours), np.isnan(theirs)
    if (nan_o != nan_t).any():
        return f"NaN at {np.argwhere(nan_o != nan_t).tolist()[:4]} (ours NaN: {nan_o.sum()}, " \
               f"PyTorch's: {nan_t.sum()})"
    inf_o, inf_t = np.isinf(ours), np.isinf(theirs)
    if (inf_o != inf_t).any() or (ours[inf_o] != theirs[inf_t]).any():
        return "infinities differ"
    fin = np.isfinite(theirs)
    err = np.abs(ours[fin] - theirs[fin])
    # relative to each value, and to the array's largest one: a sum of large terms that
    # cancels keeps rounding of the size of those terms (64 ulps of the largest here)
    largest = float(np.abs(theirs[fin]).max(initial=0.0))
    bound = rtol * (np.abs(theirs[fin]) + 10.0) + 64 * np.finfo(np.float64).eps * largest
    if (err > bound).any():
        k = int(np.argmax(err / bound))
        return f"off by {err[k]:.3g} (ours {ours[fin][k]!r}, PyTorch's {theirs[fin][k]!r})"
    return None


def check(seed: int, max_steps: int, names: list[str] = NAMES
          ) -> tuple[str, list[tuple[str, int, int]]] | None:
    """None when graph ``seed`` matches PyTorch; else (what differs, the program's steps)."""
    steps, inputs = draw(seed, max_steps, names)
    text = program_text(steps, OPS)
    try:
        theirs = run(text, torch, inputs)
    except RuntimeError:  # PyTorch refuses (a rule it cannot differentiate twice): ours must too
        try:
            run(text, tl, inputs)
        except RuntimeError:
            return None
        return "PyTorch raised, ours did not", steps
    try:
        with np.errstate(all="raise", under="ignore"):  # no NumPy warning may come out of
            # the package (underflow is not one: NumPy ignores it by default, and exp of a
            # large negative value is 0 in PyTorch too)
            ours = run(text, tl, inputs)
    except Exception as e:  # noqa: BLE001 - any failure is a finding to report
        return f"raised {type(e).__name__}: {e}"[:200], steps
    for what, a, b in [("value", ours[0], theirs[0])] + \
            [(f"grad v{k}", g, h) for k, (g, h) in enumerate(zip(ours[1], theirs[1]))] + \
            [(f"hvp v{k}", g, h) for k, (g, h) in enumerate(zip(ours[2], theirs[2]))]:
        why = differs(a, b, RTOL[what.split()[0]])
        if why:
            return f"{what}: {why}", steps
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0, help="the first graph's seed")
    parser.add_argument("--steps", type=int, default=5, help="most ops per graph")
    parser.add_argument("--show", type=int, default=20, help="groups to print")
    parser.add_argument("--ops", default="", help="comma-separated op names to draw from "
                        "(default: all)")
    args = parser.parse_args()
    names = sorted(args.ops.split(",")) if args.ops else NAMES
    unknown = set(names) - set(OPS)
    if unknown:
        parser.error(f"unknown ops {sorted(unknown)}; known: {', '.join(NAMES)}")
    warnings.simplefilter("ignore")  # PyTorch's and ours (kl_div's 'mean' notice...)
    start = time.perf_counter()
    groups: dict[tuple, list] = collections.defaultdict(list)
    count = 0
    for seed in range(args.seed, args.seed + args.graphs):
        found = check(seed, args.steps, names)
        if found is not None:
            count += 1
            why, steps = found
            key = (why.split(":")[0], tuple(sorted({op for op, _, _ in steps})))
            groups[key].append((len(steps), seed, why))
    wall = time.perf_counter() - start
    print(f"{args.graphs} graphs (seeds {args.seed}..{args.seed + args.graphs - 1}, up to "
          f"{args.steps} ops of {len(names)}) in {wall:.1f} s: {count} mismatches in "
          f"{len(groups)} groups")
    ordered = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    for (what, ops), found in ordered[:args.show]:
        n_steps, seed, why = min(found)
        steps, inputs = draw(seed, args.steps, names)
        print(f"\n== {len(found)} x {what} in graphs of {', '.join(ops)}; smallest: seed {seed}")
        print(f"   {why}")
        print(f"   inputs = {[x.tolist() for x in inputs]!r}")
        print("   " + program_text(steps, OPS).replace("\n", "\n   "))
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main())
