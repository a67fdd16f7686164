"""Model parallelism on several ranks, one section per kind (``--section``):

    python3 benchmarks/bench_parallel.py [--section tensor] [--nproc 1 2 4]

Each section lives in ``benchmarks/_parallel_<section>.py`` with ``worker()`` (run on every rank
of one job; rank 0 returns its figures) and ``table(results)`` (markdown from the figures of the
jobs at each rank count). Every job is started through ``tinygrad_lite.distributed.run`` with
one BLAS thread per rank, so that the ranks, not BLAS threads, share the cores. Sections:

- ``tensor``: a tensor-parallel MLP (``_parallel_tensor.py``).

On a machine with fewer cores than ranks the ranks time-share the cores: the speed-ups then
say what the communication costs, not what parallelism gains.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import _parallel_tensor  # noqa: E402

SECTIONS = {"tensor": _parallel_tensor}
MARK = "BENCH_PARALLEL_RESULT "


def run_job(section: str, nproc: int) -> dict:
    """Start ``section``'s worker on ``nproc`` ranks; rank 0's figures."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE.parent),
                                                        os.environ.get("PYTHONPATH", "")])}
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[variable] = "1"
    out = subprocess.run([sys.executable, "-m", "tinygrad_lite.distributed.run",
                          "--nproc-per-node", str(nproc), __file__, "--worker", section],
                         capture_output=True, text=True, env=env, timeout=1800)
    lines = [line for line in out.stdout.splitlines() if line.startswith(MARK)]
    if out.returncode or not lines:
        raise RuntimeError(f"{section} on {nproc} ranks failed:\n{out.stdout}\n{out.stderr}")
    return json.loads(lines[0][len(MARK):])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", choices=sorted(SECTIONS), action="append")
    parser.add_argument("--nproc", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        figures = SECTIONS[args.worker].worker()
        if figures is not None:
            print(MARK + json.dumps(figures), flush=True)
        return 0
    for section in args.section or sorted(SECTIONS):
        results = [run_job(section, n) for n in args.nproc]
        print(SECTIONS[section].table(results), "\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
