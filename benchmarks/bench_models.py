"""Training steps of small models against PyTorch CPU in the same run, and against their GEMM floor.

One step = forward, backward and the optimizer's update. Each (model, framework) runs in its own
subprocess with the same BLAS thread count, so that peak RSS is the step's own; the model code is
written once against the PyTorch API and run with ``torch`` and with ``tinygrad_lite``.

- LeNet-style CNN: 1x28x28, batch 100, conv5x5 16 + BN + ReLU + maxpool, conv5x5 32 + BN + ReLU +
  maxpool, linear; SGD with momentum.
- small ResNet: 3x32x32, batch 64, a 3x3 stem of 16 channels and 4 basic blocks (16, 16, 32
  with stride 2 and a 1x1 downsample, 32), adaptive average pool, linear; SGD with momentum.
- small GPT: 4 layers, width 128, 4 heads, T = 64, batch 16, exact GELU, AdamW.
- LSTM: 1 layer, input 64, hidden 128, sequence 64, batch 32, linear head; Adam.

The **GEMM floor** is the time of the same matrix products alone in NumPy: every product
tinygrad_lite's step sends to BLAS (forward and backward) is recorded with its shapes, then
timed on fresh contiguous arrays. A step cannot be faster than its GEMMs in this design.
PyTorch's step over the same floor is printed beside it: PyTorch's GEMMs (oneDNN/MKL) are not
NumPy's, but its fused elementwise kernels show what the non-GEMM part of a step costs there.

On a shared machine a process can run 1.5x slower from one minute to the next, so the two
frameworks' subprocesses alternate for ``--rounds`` rounds and each reports its fastest round
(each round's figure being the median of ``--steps`` steps); peak RSS is the largest seen.

    python3 benchmarks/bench_models.py [--models cnn,resnet,gpt,lstm] [--steps 5] [--rounds 3]
        [--threads 2] [--neighbours N] [--variants]

``--variants`` runs tinygrad_lite eager and ``tl.compile`` with the numba kernels and with the
NumPy reference (``TINYGRAD_LITE_KERNELS``), PyTorch eager and ``torch.compile`` (Inductor's C++
backend), and reports the first call of the compiled steps from a cold kernel cache (the first
round, in a fresh ``TINYGRAD_LITE_CACHE_DIR``) and a warm one (later rounds).

``--neighbours N`` times each step quiet and beside N other processes doing NumPy matrix
products with all cores (1: one neighbour; 3 on 2 cores: an oversubscribed machine), both
frameworks in the same run: the slowdown a user sees training beside other work.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
MODELS = ("cnn", "resnet", "gpt", "lstm")


# -- the models, written once against the PyTorch API (``lib`` is torch or tinygrad_lite) ------

def lenet(lib: Any) -> tuple[Any, Any, Any]:
    """(model, optimizer, step inputs) of the LeNet-style CNN."""
    nn = lib.nn
    model = nn.Sequential(
        nn.Conv2d(1, 16, 5, padding=2), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 5, padding=2), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 7 * 7, 10))
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = lib.randn(100, 1, 28, 28)
    y = lib.randint(0, 10, (100,))
    return model, opt, (x, y)


def resnet(lib: Any) -> tuple[Any, Any, Any]:
    """(model, optimizer, step inputs) of the small ResNet."""
    nn = lib.nn

    class Block(nn.Module):
        """A basic residual block: two 3x3 convolutions with BN, a 1x1 shortcut when needed."""

        def __init__(self, cin: int, cout: int, stride: int) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.shortcut = nn.Sequential()
            if stride != 1 or cin != cout:
                self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                              nn.BatchNorm2d(cout))

        def forward(self, x: Any) -> Any:
            out = self.bn1(self.conv1(x)).relu()
            return (self.bn2(self.conv2(out)) + self.shortcut(x)).relu()

    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
        Block(16, 16, 1), Block(16, 16, 1), Block(16, 32, 2), Block(32, 32, 1),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return model, opt, (lib.randn(64, 3, 32, 32), lib.randint(0, 10, (64,)))


def gpt(lib: Any) -> tuple[Any, Any, Any]:
    """(model, optimizer, step inputs) of the small GPT."""
    nn, F = lib.nn, lib.nn.functional  # noqa: N806 - PyTorch's alias
    width, heads, layers, length, vocab = 128, 4, 4, 64, 65

    class Layer(nn.Module):
        """Pre-norm attention and MLP with residuals."""

        def __init__(self) -> None:
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.fc, self.out = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

        def forward(self, x: Any) -> Any:
            b, t, c = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
            q, k, v = (z.view(b, t, heads, c // heads).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        """Token and position embeddings, the layers, a final norm and the vocabulary head."""

        def __init__(self) -> None:
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, width), nn.Embedding(length, width)
            self.layers = nn.Sequential(*[Layer() for _ in range(layers)])
            self.ln, self.head = nn.LayerNorm(width), nn.Linear(width, vocab)

        def forward(self, idx: Any) -> Any:
            x = self.tok(idx) + self.pos(lib.arange(idx.shape[1]))
            return self.head(self.ln(self.layers(x))).reshape(-1, vocab)

    model = GPT()
    opt = lib.optim.AdamW(model.parameters(), lr=3e-4)
    idx = lib.randint(0, vocab, (16, length))
    return model, opt, (idx, lib.randint(0, vocab, (16 * length,)))


def lstm(lib: Any) -> tuple[Any, Any, Any]:
    """(model, optimizer, step inputs) of the LSTM."""
    nn = lib.nn

    class Tagger(nn.Module):
        """An LSTM and a linear head on its last output."""

        def __init__(self) -> None:
            super().__init__()
            self.lstm, self.head = nn.LSTM(64, 128, batch_first=True), nn.Linear(128, 10)

        def forward(self, x: Any) -> Any:
            out, _ = self.lstm(x)
            return self.head(out[:, -1])

    model = Tagger()
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    return model, opt, (lib.randn(32, 64, 64), lib.randint(0, 10, (32,)))


BUILDERS = {"cnn": lenet, "resnet": resnet, "gpt": gpt, "lstm": lstm}


def training_step(lib: Any, model_name: str) -> Callable[[], None]:
    """One training step (forward, cross-entropy, backward, optimizer update) of model
    ``model_name`` in ``lib`` (torch or tinygrad_lite), seeded with 0."""
    lib.manual_seed(0)
    model, opt, (x, y) = BUILDERS[model_name](lib)
    loss_fn = lib.nn.functional.cross_entropy

    def step() -> None:
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    return step


# -- one (model, framework) in this process ------------------------------------------------------

def run_one(model_name: str, framework: str, steps: int, threads: int) -> dict:
    """Median step time, peak RSS and (for tinygrad_lite) the GEMM floor of one model.
    ``framework`` is ``torch`` or ``tinygrad_lite``, optionally ``+compile`` (``tl.compile`` /
    ``torch.compile`` of the whole step). ``first_ms``: the first call, and for a compiled step
    the first two (for tl.compile two traces: the fresh optimizer creates its state in the
    first call, so the second records the step again, now with state). ``retrace_ms``
    (tl.compile): the same step compiled afresh later in the process, its trace and first
    replay, with numba and the kernels already loaded."""
    framework, _, variant = framework.partition("+")
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if framework == "torch":
        lib = importlib.import_module("torch")
        lib.set_num_threads(threads)
    else:
        sys.path.insert(0, str(REPO))
        lib = importlib.import_module("tinygrad_lite")
    rss_imported = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    step = training_step(lib, model_name)

    # the first call: with a cold kernel cache the eager kernels compile in it; a compiled step
    # traces in it and again in the next call (the optimizer's state is new), so both count
    first_start = time.perf_counter()
    plain_step = step
    if variant == "compile":
        step = lib.compile(step)
        step()
    step()
    first_ms = 1e3 * (time.perf_counter() - first_start)
    gemms = (_record_gemms(lib, step) if framework == "tinygrad_lite" and variant != "compile"
             else [])
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = {"ms": 1e3 * statistics.median(times), "peak_mib": peak / 1024,
              "step_mib": (peak - max(rss_before, rss_imported)) / 1024, "first_ms": first_ms}
    if variant == "compile" and framework == "tinygrad_lite":
        # the same step compiled afresh in this process: numba and the kernels are loaded by
        # now, so this is the compiler's own cost (trace, passes, codegen, first replay)
        again = lib.compile(plain_step)
        start = time.perf_counter()
        again()
        again()
        result["retrace_ms"] = 1e3 * (time.perf_counter() - start)
    if gemms:
        result["floor_ms"] = 1e3 * _gemm_floor(gemms, steps)
        result["gemms"] = len(gemms)
    return result


def _record_gemms(lib: Any, step: Any) -> list[tuple]:
    """The (shape a, shape b, dtype) of every BLAS product one step of tinygrad_lite makes: its
    ``mm`` and ``mm_into`` helpers are swapped, for one step, in every module that imported
    them."""
    reduce_ops = importlib.import_module(lib.__name__ + ".ops.reduce")
    original_mm, original_into = reduce_ops.mm, reduce_ops.mm_into
    seen: list[tuple] = []

    def recording_mm(a: Any, b: Any) -> Any:
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
            seen.append((a.shape, b.shape, a.dtype))
        return original_mm(a, b)

    def recording_into(a: Any, b: Any, out: Any) -> None:
        seen.append((a.shape, b.shape, a.dtype))
        original_into(a, b, out)

    swaps = [(m, attr, original, recording)
             for attr, original, recording in (("mm", original_mm, recording_mm),
                                               ("mm_into", original_into, recording_into))
             for name, m in list(sys.modules.items())
             if name.startswith(lib.__name__) and getattr(m, attr, None) is original]
    for m, attr, _, recording in swaps:
        setattr(m, attr, recording)
    try:
        step()
    finally:
        for m, attr, original, _ in swaps:
            setattr(m, attr, original)
    return seen


def _gemm_floor(gemms: list[tuple], steps: int) -> float:
    """Median seconds of the recorded products run alone on fresh contiguous arrays."""
    rng = np.random.default_rng(0)
    operands = [(rng.standard_normal(sa).astype(dt), rng.standard_normal(sb).astype(dt))
                for sa, sb, dt in gemms]
    times = []
    for _ in range(steps + 1):
        start = time.perf_counter()
        for a, b in operands:
            np.matmul(a, b)
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:])


# -- the table ------------------------------------------------------------------------------------

def _subprocess(model_name: str, framework: str, steps: int, threads: int,
                **extra_env: str) -> dict | None:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads), **extra_env)
    cmd = [sys.executable, __file__, "--one", f"{model_name}:{framework}", "--steps", str(steps),
           "--threads", str(threads)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        if framework == "torch" and "No module named 'torch'" in done.stderr:
            return None
        raise RuntimeError(f"{model_name} on {framework} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _fastest(runs: list[dict]) -> dict | None:
    """The fastest round's figures (its time and floor), with the largest peak RSS seen."""
    if not runs:
        return None
    best = dict(min(runs, key=lambda r: r["ms"]))
    if "floor_ms" in best:
        best["floor_ms"] = min(r["floor_ms"] for r in runs)
    best["peak_mib"] = max(r["peak_mib"] for r in runs)
    best["step_mib"] = max(r["step_mib"] for r in runs)
    return best


# a neighbour: another program doing NumPy matrix products with its default (all-core) threads
_NEIGHBOUR = ("import numpy as np\n"
              "a = np.random.default_rng(0).standard_normal((700, 700))\n"
              "while True:\n    a = np.tanh(a @ a)\n")


def _busy_table(args: argparse.Namespace) -> list[dict]:
    """Each framework's step quiet and beside ``--neighbours`` neighbour processes, in the same
    run: how much the step slows down when it shares the machine."""
    print(f"loadavg {os.getloadavg()[0]:.2f}, {args.threads} BLAS threads, beside "
          f"{args.neighbours} neighbour process(es) doing NumPy GEMMs with all cores; fastest "
          f"of {args.rounds} rounds of the median of {args.steps} steps")
    print("| model | tl quiet ms | tl busy ms | tl busy/quiet | PyTorch quiet ms "
          "| PyTorch busy ms | PyTorch busy/quiet |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    for name in args.models.split(","):
        quiet: dict[str, list[dict]] = {"tinygrad_lite": [], "torch": []}
        busy: dict[str, list[dict]] = {"tinygrad_lite": [], "torch": []}
        for _ in range(args.rounds):
            for framework in quiet:
                result = _subprocess(name, framework, args.steps, args.threads)
                if result is not None:
                    quiet[framework].append(result)
            env = dict(os.environ)
            for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
                env.pop(var, None)
            neighbours = [subprocess.Popen([sys.executable, "-c", _NEIGHBOUR], env=env)
                          for _ in range(args.neighbours)]
            try:
                time.sleep(1.0)  # let them start their thread pools
                for framework in busy:
                    result = _subprocess(name, framework, args.steps, args.threads)
                    if result is not None:
                        busy[framework].append(result)
            finally:
                for neighbour in neighbours:
                    neighbour.kill()
                    neighbour.wait()
        cells = []
        for framework in ("tinygrad_lite", "torch"):
            q, b = _fastest(quiet[framework]), _fastest(busy[framework])
            cells += ([f"{q['ms']:.1f}", f"{b['ms']:.1f}", f"{b['ms'] / q['ms']:.2f}x"]
                      if q and b else ["-", "-", "-"])
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
        rows.append({"model": name, "quiet": quiet, "busy": busy})
    return rows


# (label, framework for run_one, kernel backend or None)
VARIANTS = [("tl numba", "tinygrad_lite", "numba"), ("tl numpy", "tinygrad_lite", "numpy"),
            ("tl.compile numba", "tinygrad_lite+compile", "numba"),
            ("tl.compile numpy", "tinygrad_lite+compile", "numpy"),
            ("torch", "torch", None), ("torch.compile", "torch+compile", None)]


def _variant_table(args: argparse.Namespace) -> list[dict]:
    """Every variant of each model in the same run: tinygrad_lite eager and compiled on both
    kernel backends, PyTorch eager and ``torch.compile``; step time as a ratio to PyTorch
    eager, the GEMM floor, and the first call with a cold and a warm kernel cache."""
    import tempfile
    labels = [label for label, _, _ in VARIANTS]
    print(f"loadavg {os.getloadavg()[0]:.2f}, {args.threads} BLAS threads, fastest of "
          f"{args.rounds} rounds of the median of {args.steps} steps; ratios to PyTorch eager")
    print("| model | " + " | ".join(labels) + " | GEMM floor | tl.compile numba / floor "
          "| first call ms cold / warm (tl numba; tl.compile numba; torch.compile) "
          "| first compiled call / eager step: new process, warm cache; numba loaded |")
    print("|---" * (len(labels) + 5) + "|")
    rows = []
    for name in args.models.split(","):
        with tempfile.TemporaryDirectory(prefix="tl-kernel-cache-") as cache:
            runs: dict[str, list[dict]] = {label: [] for label in labels}
            for _ in range(args.rounds):  # the first round starts from an empty kernel cache
                for label, framework, backend in VARIANTS:
                    env = {"TINYGRAD_LITE_CACHE_DIR": cache}
                    if backend:
                        env["TINYGRAD_LITE_KERNELS"] = backend
                    result = _subprocess(name, framework, args.steps, args.threads, **env)
                    if result is not None:
                        runs[label].append(result)
        best = {label: _fastest(found) for label, found in runs.items()}
        reference = best["torch"]
        cells = []
        for label in labels:
            b = best[label]
            cells.append("-" if b is None else
                         f"{b['ms']:.1f} ({b['ms'] / reference['ms']:.2f}x)" if reference else
                         f"{b['ms']:.1f}")
        floor = best["tl numba"]["floor_ms"] if best["tl numba"] else float("nan")
        compiled = best["tl.compile numba"]

        def first(label: str, runs: dict = runs) -> str:
            found = runs[label]
            if not found:
                return "-"
            warm = min(r["first_ms"] for r in found[1:]) if len(found) > 1 else float("nan")
            return f"{found[0]['first_ms']:.0f} / {warm:.0f}"

        eager = best["tl numba"]
        if compiled and eager:  # the first compiled call in eager steps (see retrace_ms)
            warm = min((r["first_ms"] for r in runs["tl.compile numba"][1:]), default=math.nan)
            retrace = min(r["retrace_ms"] for r in runs["tl.compile numba"])
            in_steps = f"{warm / eager['ms']:.1f}x; {retrace / eager['ms']:.1f}x"
        else:
            in_steps = "-"
        print(f"| {name} | " + " | ".join(cells) + f" | {floor:.1f} | "
              f"{compiled['ms'] / floor if compiled else float('nan'):.2f}x | "
              f"{first('tl numba')}; {first('tl.compile numba')}; {first('torch.compile')} | "
              f"{in_steps} |", flush=True)
        rows.append({"model": name, "runs": runs})
    return rows


def main(argv: list[str] | None = None) -> list[dict]:
    """Run the table (or, with ``--one``, a single model in this process) and print it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--variants", action="store_true",
                        help="every backend and compiled variant, with first-call times")
    parser.add_argument("--neighbours", type=int, default=0,
                        help="also time each step beside this many busy neighbour processes")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        model_name, framework = args.one.split(":")
        print(json.dumps(run_one(model_name, framework, args.steps, args.threads)))
        return []
    if args.neighbours:
        return _busy_table(args)
    if args.variants:
        return _variant_table(args)
    print(f"loadavg {os.getloadavg()[0]:.2f}, {args.threads} BLAS threads, fastest of "
          f"{args.rounds} alternating rounds of the median of {args.steps} steps")
    print("| model | tinygrad_lite ms | PyTorch ms | ratio | GEMM floor ms | tl / floor "
          "| PyTorch / floor | peak RSS MiB tl / torch (step's own) |")
    print("|---|---|---|---|---|---|---|---|")
    rows = []
    for name in args.models.split(","):
        runs: dict[str, list[dict]] = {"tinygrad_lite": [], "torch": []}
        for _ in range(args.rounds):
            for framework, seen in runs.items():
                result = _subprocess(name, framework, args.steps, args.threads)
                if result is not None:
                    seen.append(result)
        ours, theirs = _fastest(runs["tinygrad_lite"]), _fastest(runs["torch"])
        assert ours is not None
        ratio = f"{ours['ms'] / theirs['ms']:.2f}x" if theirs else "-"
        torch_ms = f"{theirs['ms']:.1f}" if theirs else "-"
        rss = (f"{ours['peak_mib']:.0f} / {theirs['peak_mib']:.0f} ({ours['step_mib']:.0f} / "
               f"{theirs['step_mib']:.0f})" if theirs else f"{ours['peak_mib']:.0f}")
        torch_floor = f"{theirs['ms'] / ours['floor_ms']:.2f}x" if theirs else "-"
        print(f"| {name} | {ours['ms']:.1f} | {torch_ms} | {ratio} | {ours['floor_ms']:.1f} "
              f"| {ours['ms'] / ours['floor_ms']:.2f}x | {torch_floor} | {rss} |", flush=True)
        rows.append({"model": name, "tinygrad_lite": ours, "torch": theirs})
    return rows


if __name__ == "__main__":
    main()
