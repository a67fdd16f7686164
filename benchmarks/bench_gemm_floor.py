"""The GEMM floor of each model's training step, through NumPy's BLAS and through PyTorch's
matmul: whether PyTorch's speed on these models comes from faster matrix products.

The products are the ones one tinygrad_lite training step makes (``bench_models``' recording
of every ``mm``/``mm_into`` call: shapes and dtype). Each framework then runs that same list of
products on fresh random operands, in its own process (2 BLAS threads, PyTorch 2 intra-op
threads; in one process PyTorch's OpenMP threads spin and slow NumPy's down), rounds
interleaved. Reported: the fastest round's median over ``--steps`` passes of the whole list.

If PyTorch's matmul is no faster on the same products, a step of ours can only get below our
floor by doing fewer or cheaper products: PyTorch's CNN and ResNet steps do (oneDNN's direct
convolutions are not GEMMs), its GPT and LSTM steps do not.

    python3 benchmarks/bench_gemm_floor.py [--models cnn,resnet,gpt,lstm] [--steps 30] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_models
import numpy as np

REPO = Path(__file__).resolve().parent.parent
WARMUP = 3  # untimed passes before the timed ones


def record(model_name: str, path: str) -> int:
    """Write the (shape a, shape b, dtype) of every product of one tinygrad_lite step of
    ``model_name`` to ``path`` as JSON; the number of products."""
    sys.path.insert(0, str(REPO))
    import tinygrad_lite as tl

    step = bench_models.training_step(tl, model_name)
    step()
    step()  # (the optimizer's state exists from the second step on)
    products = bench_models._record_gemms(tl, step)
    with open(path, "w") as handle:
        json.dump([(list(a), list(b), str(dtype)) for a, b, dtype in products], handle)
    return len(products)


def floor_ms(path: str, framework: str, steps: int) -> float:
    """Median milliseconds of one pass over the recorded products with ``framework``'s matmul
    (``numpy`` or ``pytorch``)."""
    with open(path) as handle:
        products = json.load(handle)
    rng = np.random.default_rng(0)
    operands = [(rng.standard_normal(a).astype(dtype), rng.standard_normal(b).astype(dtype))
                for a, b, dtype in products]
    matmul = np.matmul
    if framework == "pytorch":
        import torch

        torch.set_num_threads(2)
        operands = [(torch.from_numpy(a), torch.from_numpy(b)) for a, b in operands]
        matmul = torch.matmul
    times = []
    for _ in range(WARMUP + steps):  # (the first passes load and size the BLAS buffers)
        start = time.perf_counter()
        for a, b in operands:
            matmul(a, b)
        times.append(time.perf_counter() - start)
    return statistics.median(times[WARMUP:]) * 1e3


def _in_subprocess(code: str) -> str:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2",
           "MKL_NUM_THREADS": "2"}
    prelude = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); " \
              "import bench_gemm_floor as b; "
    done = subprocess.run([sys.executable, "-c", prelude + code], capture_output=True,
                          text=True, check=True, env=env, cwd=REPO)
    return done.stdout.strip().splitlines()[-1]


def main(argv: list[str] | None = None) -> int:
    """Print, per model, the number of products and both frameworks' floor."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default=",".join(bench_models.MODELS))
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args(argv)
    print("| model | products | NumPy (OpenBLAS) ms | PyTorch matmul ms | PyTorch / NumPy |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        for model_name in args.models.split(","):
            path = str(Path(scratch) / f"{model_name}.json")
            count = int(_in_subprocess(f"print(b.record({model_name!r}, {path!r}))"))
            runs: dict[str, list[float]] = {"numpy": [], "pytorch": []}
            for _ in range(args.rounds):  # interleaved: the host's speed drifts
                for framework in runs:
                    runs[framework].append(float(_in_subprocess(
                        f"print(b.floor_ms({path!r}, {framework!r}, {args.steps}))")))
            ours, theirs = min(runs["numpy"]), min(runs["pytorch"])
            print(f"| {model_name} | {count} | {ours:.1f} | {theirs:.1f} | "
                  f"{theirs / ours:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
