"""How much of a convolutional model's training step is its convolutions, in tinygrad_lite and
in PyTorch: the evidence for where the CNN and ResNet steps lose to PyTorch.

Each (model, framework) runs in its own process (2 BLAS threads, PyTorch 2 intra-op threads;
in one process PyTorch's OpenMP threads spin between its ops and slow ours down). Per step: the
whole step, the time inside convolutions (forward, and backward for the input and weight
gradients) and the rest, as medians over the timed steps.

- tinygrad_lite: the convolution's forward (``ops.conv.convolution``) and its node's backward
  are wrapped with timers.
- PyTorch: ``torch.profiler``'s self CPU time of the ops named ``*convolution*`` (oneDNN's
  forward and ``convolution_backward``), per step.

    python3 benchmarks/bench_conv_share.py [--models cnn,resnet] [--steps 10] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import bench_models

REPO = Path(__file__).resolve().parent.parent


def _tinygrad_lite(model_name: str, steps: int) -> dict:
    """Per-step milliseconds (step, convolutions) of tinygrad_lite, timers around the
    convolution's forward and backward."""
    sys.path.insert(0, str(REPO))
    import tinygrad_lite as tl
    from tinygrad_lite.nn._functional import conv as functional_conv
    from tinygrad_lite.ops import conv as conv_ops

    spent = [0.0]

    def timed(fn: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[0] += time.perf_counter() - start
        return run

    functional_conv.convolution = timed(conv_ops.convolution)
    conv_ops.ConvolutionBackward0.backward = timed(conv_ops.ConvolutionBackward0.backward)
    tl.set_num_threads(2)
    step = bench_models.training_step(tl, model_name)
    for _ in range(3):
        step()
    totals, convs = [], []
    for _ in range(steps):
        spent[0] = 0.0
        start = time.perf_counter()
        step()
        totals.append(time.perf_counter() - start)
        convs.append(spent[0])
    return {"step": statistics.median(totals) * 1e3, "conv": statistics.median(convs) * 1e3}


def _pytorch(model_name: str, steps: int) -> dict:
    """Per-step milliseconds (step, convolutions) of PyTorch: the step timed plainly, the
    convolutions' share from a profiled run of the same number of steps."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    torch.set_num_threads(2)
    step = bench_models.training_step(torch, model_name)
    for _ in range(3):
        step()
    totals = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        totals.append(time.perf_counter() - start)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(steps):
            step()
    conv_us = sum(e.self_cpu_time_total for e in prof.key_averages()
                  if "convolution" in e.key)
    return {"step": statistics.median(totals) * 1e3, "conv": conv_us / 1e3 / steps}


def _in_subprocess(model_name: str, framework: str, steps: int) -> dict:
    """``_<framework>(model_name, steps)`` in a fresh process with 2 threads everywhere."""
    env_code = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
                f"import bench_conv_share as b, json; "
                f"print(json.dumps(b._{framework}({model_name!r}, {steps})))")
    env = {"OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2", "MKL_NUM_THREADS": "2"}
    out = subprocess.run([sys.executable, "-c", env_code], capture_output=True, text=True,
                         check=True, env={**os.environ, **env}, cwd=REPO)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    """Print, per model, each framework's step, its convolutions and the rest (the round with
    the fastest step)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="cnn,resnet")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args(argv)
    print("| model | framework | step ms | convolutions ms | rest ms |")
    print("|---|---|---|---|---|")
    frameworks = ("tinygrad_lite", "pytorch")
    for model_name in args.models.split(","):
        runs: dict[str, list[dict]] = {f: [] for f in frameworks}
        for _ in range(args.rounds):  # rounds interleaved: the host's speed drifts
            for framework in frameworks:
                runs[framework].append(_in_subprocess(model_name, framework, args.steps))
        for framework in frameworks:
            best = min(runs[framework], key=lambda r: r["step"])
            print(f"| {model_name} | {framework} | {best['step']:.1f} | {best['conv']:.1f} | "
                  f"{best['step'] - best['conv']:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
