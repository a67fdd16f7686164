"""``import tinygrad_lite`` against ``import numpy`` (and ``import torch`` when installed): each
timed in fresh interpreters, best of ``--repeat`` (interleaved, so that a busy moment of a shared
machine hits all of them alike), with the ratio to NumPy's own import. Then the first calls a
tutorial makes (``tl.nn.Linear``, ``tl.optim.SGD``, a forward and backward, an optimizer step),
timed in the same fresh interpreters: with the package as it loads (the rest on first use), and
with every lazily loaded submodule loaded up front, as ``import tinygrad_lite`` used to; the
difference is what each first use pays to load its modules.

Bytecode is cached (in a temporary ``PYTHONPYCACHEPREFIX``, filled by one untimed run first), as
for an installed package; ``--from-source`` compiles every module on each run instead (what a
``PYTHONDONTWRITEBYTECODE=1`` environment does to a source checkout, never to NumPy's wheel).

    python3 benchmarks/bench_import.py [--repeat 5] [--from-source]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run in a fresh interpreter: time one import, then (for tinygrad_lite) a tutorial's first calls
CHILD = """
import json, sys, time
sys.path.insert(0, {root!r})
start = time.perf_counter()
import {module}
times = {{"import": time.perf_counter() - start}}
if {module!r} == "tinygrad_lite":
    tl = tinygrad_lite
    times["modules"] = sum(name.split(".")[0] == "tinygrad_lite" for name in sys.modules)
    if {eager}:  # every lazily loaded submodule up front, as the package used to
        start = time.perf_counter()
        for name in getattr(tl, "_LAZY_SUBMODULES", ()):  # (none: all load already)
            getattr(tl, name)
        times["load the rest"] = time.perf_counter() - start

    def timed(label, fn):
        start = time.perf_counter()
        value = fn()
        times[label] = time.perf_counter() - start
        return value

    model = timed("tl.nn.Linear(64, 10)", lambda: tl.nn.Linear(64, 10))
    opt = timed("tl.optim.SGD(...)", lambda: tl.optim.SGD(model.parameters(), lr=0.1))
    x, y = tl.randn(32, 64), tl.randint(0, 10, (32,))
    timed("forward + backward", lambda: tl.nn.functional.cross_entropy(model(x), y).backward())
    timed("optimizer step", opt.step)
print(json.dumps(times))
"""


def run_child(module: str, env: dict[str, str], eager: bool = False) -> dict[str, float]:
    code = CHILD.format(root=str(ROOT), module=module, eager=eager)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="fresh interpreters per import")
    parser.add_argument("--from-source", action="store_true",
                        help="no bytecode cache: compile every module on each run")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench_import_") as cache:
        env = dict(os.environ)
        if args.from_source:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = cache
        runs = {"numpy": ("numpy", False), "tinygrad_lite": ("tinygrad_lite", False),
                "tinygrad_lite, all loaded": ("tinygrad_lite", True)}
        if importlib.util.find_spec("torch") is not None:
            runs["torch"] = ("torch", False)
        for module, eager in runs.values():  # untimed: fills the bytecode cache
            run_child(module, env, eager)
        best: dict[str, dict[str, float]] = {name: {} for name in runs}
        for _ in range(args.repeat):
            for name, (module, eager) in runs.items():
                for key, value in run_child(module, env, eager).items():
                    best[name][key] = min(best[name].get(key, float("inf")), value)

    numpy_s = best["numpy"]["import"]
    lazy, eager = best["tinygrad_lite"], best["tinygrad_lite, all loaded"]
    rows = {f"import {name}": best[name]["import"] for name in runs if name in ("numpy", "torch")}
    rows["import tinygrad_lite"] = lazy["import"]
    rows["  + loading the rest"] = eager["import"] + eager["load the rest"]
    print(f"import time, best of {args.repeat} fresh interpreters "
          f"({'from source' if args.from_source else 'bytecode cached'}):")
    print(f"  {'':28} {'seconds':>8} {'/ numpy':>8}")
    for label, seconds in sorted(rows.items(), key=lambda row: "torch" in row[0]):
        print(f"  {label:28} {seconds:8.3f} {seconds / numpy_s:7.2f}x")
    print(f"  tinygrad_lite modules loaded: {lazy['modules']:.0f}")
    print("first calls after the import (seconds, best of each):")
    print(f"  {'':28} {'lazy':>8} {'all loaded':>11} {'difference':>11}")
    for key in lazy:
        if key in ("import", "modules"):
            continue
        print(f"  {key:28} {lazy[key]:8.4f} {eager[key]:11.4f} {lazy[key] - eager[key]:11.4f}")


if __name__ == "__main__":
    main()
