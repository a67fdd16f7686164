"""Context parallelism (ring attention): per-rank score memory, bytes moved and wall time.

    python3 benchmarks/_parallel_context.py [--seq 1024,2048,4096,8192] [--nprocs 1,2,4]

For each number of ranks cp, starts itself on cp ranks (tinygrad_lite.distributed.run). Every
rank runs causal ``F.scaled_dot_product_attention`` inside ``context_parallel`` (load-balanced,
key/value blocks passed round the ring), forward and backward, on float32 (1, H, T, E) inputs,
and reports:

- the largest score tile it held (``ops.ring_attention.stats``): ``(T / 2cp)^2`` per head with
  balancing (one tile per pair of chunks), against the ``T^2`` scores of single-process naive
  attention, so it falls as ``(T / cp)^2``; with ``--blocks 128`` (``_cp_options.block_size``)
  tiles of at most 128 x 128 inside each step instead, as the single-process blocked kernel;
- the peak of NumPy memory (tracemalloc) during forward + backward on the busiest rank, and for
  one process the same for the plain (naive) and the blocked (flash) single-process attention;
- bytes it sent round the ring, against ``(cp - 1) * kv`` forward and ``(2 cp - 1) * kv``
  backward, ``kv`` being one rank's key and value shard (``2 * H * T / cp * E * 4`` bytes);
- wall time of forward + backward (median of ``--repeat``, the slowest rank), with
  ``--threads`` BLAS threads per rank (1 by default).

On a machine with fewer cores than ranks the ranks share the cores, so wall times say what
the extra ranks cost there, not what they gain on separate machines.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

HEADS, DIM = 1, 64


def traced_peak(fn) -> int:
    """Peak bytes NumPy and Python allocated while ``fn()`` ran (above what was live before)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak


def worker(seqs: list[int], repeat: int, block: int | None) -> None:
    """The measurements on every rank; rank 0 prints one JSON line per sequence length."""
    import tinygrad_lite as tl
    import tinygrad_lite.distributed as dist
    import tinygrad_lite.nn.functional as F  # noqa: N812 - PyTorch's alias
    from tinygrad_lite.distributed.device_mesh import init_device_mesh
    from tinygrad_lite.distributed.tensor.experimental import _attention, context_parallel
    from tinygrad_lite.nn._functional.attention import attention_math
    from tinygrad_lite.ops import ring_attention

    dist.init_process_group("mpi")
    _attention._cp_options.block_size = block
    mesh = init_device_mesh("cpu", (dist.get_world_size(),), mesh_dim_names=("cp",))
    group = mesh.get_group()
    cp, rank = mesh.size(), mesh.get_local_rank()
    for seq in seqs:
        rng = np.random.default_rng(seq)
        arrays = [rng.standard_normal((1, HEADS, seq, DIM)).astype(np.float32) for _ in range(4)]
        q, k, v, do = (tl.tensor(a) for a in arrays)
        record: dict = {}

        def step(q=q, k=k, v=v, do=do, record=record) -> None:
            ring_attention.stats.reset()
            q.grad = k.grad = v.grad = None
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            record["forward_bytes"] = ring_attention.stats.bytes_sent
            out.backward(do)
            record["backward_bytes"] = ring_attention.stats.bytes_sent - record["forward_bytes"]
            record["peak_tile"] = ring_attention.stats.peak_tile_elements
            record["pairs"] = ring_attention.stats.forward_pairs

        with context_parallel(mesh, buffers=[q, k, v, do], buffer_seq_dims=[2, 2, 2, 2]):
            for t in (q, k, v):
                t.requires_grad_()
            dist.barrier(group)
            peak = traced_peak(step)
            times = []
            for _ in range(repeat):
                dist.barrier(group)
                start = time.perf_counter()
                step()
                times.append(time.perf_counter() - start)
            for t in (q, k, v):
                t.requires_grad_(False)
        row = {"seq": seq, "cp": cp, "block": block or 0, "peak_tile": record["peak_tile"],
               "traced_peak": peak,
               "forward_bytes": record["forward_bytes"],
               "backward_bytes": record["backward_bytes"], "pairs": record["pairs"],
               "seconds": statistics.median(times)}
        rows = [None] * cp
        dist.all_gather_object(rows, row, group=group)
        if rank != 0:
            continue
        out = {key: max(r[key] for r in rows) for key in row}  # the busiest rank
        out["pairs_min"] = min(r["pairs"] for r in rows)
        if cp == 1 and not block:  # single-process references: the naive and the blocked attention
            for name, fn in (("naive", lambda a, b, c: attention_math(a, b, c, None, 0.0, True,
                                                                       DIM ** -0.5)),
                             ("flash", lambda a, b, c: F.scaled_dot_product_attention(
                                 a, b, c, is_causal=True))):
                qq, kk, vv = (tl.tensor(a, requires_grad=True) for a in arrays[:3])
                gg = tl.tensor(arrays[3])
                out[f"{name}_peak"] = traced_peak(
                    lambda fn=fn, qq=qq, kk=kk, vv=vv, gg=gg: fn(qq, kk, vv).backward(gg))
        print(json.dumps(out), flush=True)
    dist.destroy_process_group()


def main(argv: list[str] | None = None) -> int:
    """Run the workers for each number of ranks and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seq", default="1024,2048,4096,8192")
    parser.add_argument("--nprocs", default="1,2,4")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--blocks", default="0,128",
                        help="score tiles inside a step: 0 = one per chunk pair, else at most "
                             "this many rows and columns (_cp_options.block_size)")
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS threads per rank (the launcher would give each rank "
                             "cores / ranks, and a lone rank's 2 threads spin badly on a busy "
                             "machine)")
    parser.add_argument("--block", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    seqs = [int(s) for s in args.seq.split(",")]
    if args.worker:
        worker(seqs, args.repeat, args.block or None)
        return 0
    results = []
    for block in (int(b) for b in args.blocks.split(",")):
        for nproc in (int(n) for n in args.nprocs.split(",")):
            done = subprocess.run([sys.executable, "-m", "tinygrad_lite.distributed.run",
                                   "--nproc-per-node", str(nproc), __file__, "--worker",
                                   "--seq", args.seq, "--repeat", str(args.repeat),
                                   "--block", str(block)], capture_output=True, text=True,
                                  env={**os.environ, **{var: str(args.threads) for var in (
                                      "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                      "MKL_NUM_THREADS")}})
            if done.returncode != 0:
                print(done.stdout + done.stderr, file=sys.stderr)
                return done.returncode
            results += [json.loads(line) for line in done.stdout.splitlines()
                        if line.startswith("{")]
    mb = 1 / 2**20
    print(f"context parallelism: causal attention, float32 (1, {HEADS}, T, {DIM}), load "
          f"balanced, ring rotation, {args.threads} BLAS thread(s) per rank; per rank (the "
          "busiest)")
    print("| T | cp | tiles | score tile (MB) | naive T^2 scores (MB) | tile ratio "
          "| traced peak (MB) | fwd bytes (formula) | bwd bytes (formula) | pairs min/max "
          "| fwd+bwd (ms) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in sorted(results, key=lambda r: (r["block"], r["seq"], r["cp"])):
        seq, cp = r["seq"], r["cp"]
        kv = 2 * HEADS * (seq // cp) * DIM * 4
        naive = HEADS * seq * seq * 4
        tiles = f"<= {r['block']}^2" if r["block"] else "chunk pair"
        print(f"| {seq} | {cp} | {tiles} | {r['peak_tile'] * 4 * mb:.2f} | {naive * mb:.1f} | "
              f"1/{naive / (r['peak_tile'] * 4):.0f} | {r['traced_peak'] * mb:.1f} | "
              f"{r['forward_bytes']} ({(cp - 1) * kv}) | {r['backward_bytes']} "
              f"({(2 * cp - 1) * kv if cp > 1 else 0}) | {r['pairs_min']}/{r['pairs']} | "
              f"{r['seconds'] * 1e3:.0f} |")
    singles = [r for r in results if "naive_peak" in r]
    if singles:
        print("\nsingle process, forward + backward, traced peak (MB)")
        print("| T | naive attention | blocked (flash) attention | ring, cp = 1 |")
        print("|---|---|---|---|")
        for r in sorted(singles, key=lambda r: r["seq"]):
            print(f"| {r['seq']} | {r['naive_peak'] * mb:.1f} | {r['flash_peak'] * mb:.1f} | "
                  f"{r['traced_peak'] * mb:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
