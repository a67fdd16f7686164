"""The small GPT trained on 4 ranks, with the parallelism chosen by a flag; every mode prints the
same losses as one process training on the whole batch (``--mode single``).

    python examples/gpt_parallel.py --mode single
    python -m tinygrad_lite.distributed.run --nproc-per-node 4 examples/gpt_parallel.py --mode fsdp
    ... --mode hsdp   # fully_shard on a 2 x 2 mesh: replicate x shard (HSDP)
    ... --mode pp     # 2 pipeline stages (PipelineStage, ScheduleGPipe) x 2 data-parallel
    ... --mode tp     # 2-way tensor parallel (ColwiseParallel/RowwiseParallel) x 2 data-parallel

The model is a character-level GPT on ``examples/data/river.txt``: token and position
embeddings, pre-norm blocks of causal self-attention and a GELU MLP, a final LayerNorm and the
vocabulary head. Each step takes ``--batch`` random windows of ``--length`` characters (the same
on every rank: drawn from the step number); each data-parallel rank trains on its slice of the
batch. The printed loss is the whole batch's mean, so all modes print the same numbers (float64
by default: they agree to about 1e-12).

- fsdp: ``fully_shard`` on every block, then on the model; AdamW updates the shards.
- hsdp: the same on ``init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp_replicate",
  "dp_shard"))``: parameters sharded over 2 ranks, replicated over the other 2.
- pp: a ``(pp, dp)`` mesh; stage 0 holds the embeddings and the first half of the blocks, stage
  1 the rest and the head; ``ScheduleGPipe`` runs ``--microbatches`` microbatches through them;
  gradients are then averaged over the data-parallel group.
- tp: a ``(dp, tp)`` mesh; ``parallelize_module`` splits each block's q/k/v and first MLP layer
  by output features (``ColwiseParallel``: the heads split between the ranks) and the attention
  projection and second MLP layer by input features (``RowwiseParallel``); gradients are then
  averaged over the data-parallel group.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a plain checkout too
import tinygrad_lite as tl  # noqa: E402
import tinygrad_lite.distributed as dist  # noqa: E402
from tinygrad_lite import nn  # noqa: E402
from tinygrad_lite.distributed.device_mesh import init_device_mesh  # noqa: E402
from tinygrad_lite.distributed.fsdp import fully_shard  # noqa: E402
from tinygrad_lite.nn import functional as F  # noqa: E402, N812 - PyTorch's alias

TEXT = Path(__file__).resolve().parent / "data" / "river.txt"
MODES = ("single", "fsdp", "hsdp", "pp", "tp")


class Block(nn.Module):
    """Pre-norm causal self-attention and a GELU MLP, each with a residual connection."""

    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.head_dim = width // heads
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        # separate q, k, v (not one fused qkv) so that tensor parallelism can split each by
        # heads
        self.q, self.k, self.v = (nn.Linear(width, width) for _ in range(3))
        self.proj = nn.Linear(width, width)
        self.fc, self.out = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

    def forward(self, x: tl.Tensor) -> tl.Tensor:
        b, t, _ = x.shape
        h = self.ln1(x)
        # -1 heads: all of them, or this rank's share under tensor parallelism
        q, k, v = (lin(h).view(b, t, -1, self.head_dim).transpose(1, 2)
                   for lin in (self.q, self.k, self.v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, -1))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    """Embeddings, the blocks, a final norm and the vocabulary head."""

    def __init__(self, vocab: int, width: int, heads: int, layers: int, length: int) -> None:
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, width), nn.Embedding(length, width)
        self.layers = nn.ModuleList([Block(width, heads) for _ in range(layers)])
        self.ln, self.head = nn.LayerNorm(width), nn.Linear(width, vocab)

    def forward(self, idx: tl.Tensor) -> tl.Tensor:
        x = self.tok(idx) + self.pos(tl.arange(idx.shape[1]))
        for layer in self.layers:
            x = layer(x)
        return self.head(self.ln(x))


class FirstStage(nn.Module):
    """Pipeline stage 0: embeddings and the first blocks."""

    def __init__(self, model: GPT, split: int) -> None:
        super().__init__()
        self.tok, self.pos = model.tok, model.pos
        self.layers = nn.ModuleList(list(model.layers)[:split])

    def forward(self, idx: tl.Tensor) -> tl.Tensor:
        x = self.tok(idx) + self.pos(tl.arange(idx.shape[1]))
        for layer in self.layers:
            x = layer(x)
        return x


class LastStage(nn.Module):
    """Pipeline stage 1: the remaining blocks, the final norm and the head."""

    def __init__(self, model: GPT, split: int) -> None:
        super().__init__()
        self.layers = nn.ModuleList(list(model.layers)[split:])
        self.ln, self.head = model.ln, model.head

    def forward(self, x: tl.Tensor) -> tl.Tensor:
        for layer in self.layers:
            x = layer(x)
        return self.head(self.ln(x))


def lm_loss(logits: tl.Tensor, targets: tl.Tensor) -> tl.Tensor:
    """Mean next-character cross-entropy."""
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


def batch(ids: np.ndarray, step: int, size: int, length: int, seed: int) -> tuple:
    """``size`` windows of ``length`` characters and their next characters (from the step)."""
    rng = np.random.default_rng(seed * 100_003 + step)
    starts = rng.integers(0, len(ids) - length - 1, size)
    x = np.stack([ids[s:s + length] for s in starts])
    y = np.stack([ids[s + 1:s + length + 1] for s in starts])
    return x, y


def average_grads(params: Any, group: Any) -> None:
    """Average the gradients over a data-parallel group (the local tensor of a DTensor)."""
    for p in params:
        if p.grad is not None:
            grad = p.grad.to_local() if hasattr(p.grad, "to_local") else p.grad
            dist.all_reduce(grad, op=dist.ReduceOp.AVG, group=group)


def main(argv: list[str] | None = None) -> list[float]:
    """Train; return the losses (printed by rank 0)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=MODES, default="single")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--length", type=int, default=64)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--microbatches", type=int, default=2)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    tl.set_default_dtype(getattr(tl, args.dtype))

    text = TEXT.read_text()
    chars = sorted(set(text))
    ids = np.array([chars.index(c) for c in text], dtype=np.int64)
    tl.manual_seed(args.seed)  # the same initial weights on every rank
    model = GPT(len(chars), args.width, args.heads, args.layers, args.length)

    rank, world, dp_rank, dp_size = 0, 1, 0, 1
    report = None  # how a rank's loss becomes the printed whole-batch loss
    if args.mode != "single":
        dist.init_process_group("mpi")
        rank, world = dist.get_rank(), dist.get_world_size()
        if world != 4:
            raise SystemExit(f"--mode {args.mode} runs on 4 ranks (got {world}): "
                             "python -m tinygrad_lite.distributed.run --nproc-per-node 4 ...")

        def report(loss: float, weight: float) -> float:
            """Sum of every rank's ``loss * weight`` (the whole batch's mean loss)."""
            total = tl.tensor([loss * weight], dtype=tl.float64)
            dist.all_reduce(total)
            return float(total.item())

    step_fn = None
    if args.mode in ("single", "fsdp", "hsdp"):
        if args.mode == "fsdp":
            for layer in model.layers:
                fully_shard(layer)
            fully_shard(model)
            dp_rank, dp_size = rank, world
        elif args.mode == "hsdp":
            mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp_replicate", "dp_shard"))
            for layer in model.layers:
                fully_shard(layer, mesh=mesh)
            fully_shard(model, mesh=mesh)
            dp_rank, dp_size = rank, world
        opt = tl.optim.AdamW(model.parameters(), lr=args.lr)

        def step_fn(x: np.ndarray, y: np.ndarray) -> float:
            opt.zero_grad()
            loss = lm_loss(model(tl.tensor(x)), tl.tensor(y))
            loss.backward()
            opt.step()
            return float(loss.item()) / dp_size  # this rank's share of the batch mean

    elif args.mode == "pp":
        # imported here: tl.distributed.pipelining and .tensor.parallel are optional to the
        # other modes
        from tinygrad_lite.distributed.pipelining import PipelineStage, ScheduleGPipe

        mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("pp", "dp"))
        stage_index, num_stages = mesh.get_local_rank("pp"), 2
        dp_rank, dp_size = mesh.get_local_rank("dp"), 2
        split = args.layers // 2
        stage_mod = FirstStage(model, split) if stage_index == 0 else LastStage(model, split)
        stage = PipelineStage(stage_mod, stage_index, num_stages, "cpu",
                              group=mesh.get_group("pp"))
        schedule = ScheduleGPipe(stage, n_microbatches=args.microbatches, loss_fn=lm_loss)
        opt = tl.optim.AdamW(stage_mod.parameters(), lr=args.lr)
        dp_group = mesh.get_group("dp")

        def step_fn(x: np.ndarray, y: np.ndarray) -> float:
            opt.zero_grad()
            if stage_index == 0:
                schedule.step(tl.tensor(x))
                loss = 0.0  # only the last stage sees the loss
            else:
                losses: list = []
                schedule.step(target=tl.tensor(y), losses=losses)
                loss = sum(float(v.item()) for v in losses) / len(losses) / dp_size
            average_grads(stage_mod.parameters(), dp_group)
            opt.step()
            return loss

    else:  # tp
        from tinygrad_lite.distributed.tensor.parallel import (
            ColwiseParallel,
            RowwiseParallel,
            parallelize_module,
        )

        mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
        dp_rank, dp_size = mesh.get_local_rank("dp"), 2
        for layer in model.layers:
            parallelize_module(layer, mesh["tp"], {
                "q": ColwiseParallel(), "k": ColwiseParallel(), "v": ColwiseParallel(),
                "proj": RowwiseParallel(), "fc": ColwiseParallel(), "out": RowwiseParallel(),
            })
        opt = tl.optim.AdamW(model.parameters(), lr=args.lr)
        dp_group = mesh.get_group("dp")
        tp_size = mesh.size("tp")

        def step_fn(x: np.ndarray, y: np.ndarray) -> float:
            opt.zero_grad()
            loss = lm_loss(model(tl.tensor(x)), tl.tensor(y))
            loss.backward()
            average_grads(model.parameters(), dp_group)
            opt.step()
            # both ranks of a tensor-parallel pair hold the same loss: count it once
            return float(loss.item()) / dp_size / tp_size

    share = args.batch // dp_size
    mine = slice(dp_rank * share, (dp_rank + 1) * share)
    losses = []
    for step in range(args.steps):
        x, y = batch(ids, step, args.batch, args.length, args.seed)
        loss = step_fn(x[mine], y[mine])
        if report is not None:
            loss = report(loss, 1.0)
        losses.append(loss)
        if rank == 0:
            print(f"step {step} loss {loss:.12f}", flush=True)
    return losses


if __name__ == "__main__":
    main()
