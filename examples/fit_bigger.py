"""Fitting a bigger model in the same memory: a small character-level Transformer trained with
mixed precision, activation checkpointing and blocked attention, against the plain run.

    python examples/fit_bigger.py [--steps 10] [--context 1024] [--layers 6] [--width 96]

The text is ``examples/data/river.txt``. Each step the model reads one window of ``context``
characters and predicts every next character. Three switches change how much memory a step
needs, not what it computes:

* ``tl.autocast("cpu", dtype=tl.float16)`` runs the matmuls and convolutions in float16 (the
  float32 weights are the "master" copy) and ``tl.amp.GradScaler`` scales the loss so small
  float16 gradients do not underflow, skipping a step when a gradient overflows;
* ``tl.utils.checkpoint.checkpoint_sequential`` keeps only each segment's input for backward
  and recomputes the rest when backward reaches it;
* ``F.scaled_dot_product_attention`` switches to the blocked FlashAttention kernel for long
  contexts (from 1024 x 1024 scores), so no context x context matrix is kept.

The script trains the same initial model twice (plain float32, then all three switches on), and
prints the losses and each run's peak resident memory growth, measured with tracemalloc.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a plain checkout too
import tinygrad_lite as tl  # noqa: E402
from tinygrad_lite import nn  # noqa: E402
from tinygrad_lite.utils.checkpoint import checkpoint_sequential  # noqa: E402

F = nn.functional
TEXT = Path(__file__).resolve().parent / "data" / "river.txt"


class Block(nn.Module):
    """Pre-norm Transformer block: causal self-attention and a GELU MLP, each residual."""

    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(),
                                 nn.Linear(4 * width, width))

    def forward(self, x: tl.Tensor) -> tl.Tensor:
        """x + attention(x), then + mlp."""
        batch, length, width = x.shape
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        heads = [t.view(batch, length, self.heads, width // self.heads).transpose(1, 2)
                 for t in (q, k, v)]
        y = F.scaled_dot_product_attention(*heads, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(batch, length, width))
        return x + self.mlp(self.norm2(x))


class TinyGPT(nn.Module):
    """Token and position embeddings, a stack of blocks, a vocabulary head."""

    def __init__(self, vocab: int, context: int, width: int, heads: int, layers: int) -> None:
        super().__init__()
        self.tokens, self.positions = nn.Embedding(vocab, width), nn.Embedding(context, width)
        self.blocks = nn.Sequential(*[Block(width, heads) for _ in range(layers)])
        self.norm, self.head = nn.LayerNorm(width), nn.Linear(width, vocab)

    def forward(self, idx: tl.Tensor, segments: int = 0) -> tl.Tensor:
        """Logits; with ``segments`` the blocks run under activation checkpointing."""
        x = self.tokens(idx) + self.positions(tl.arange(idx.shape[1]))
        if segments:
            x = checkpoint_sequential(self.blocks, segments, x, use_reentrant=False)
        else:
            x = self.blocks(x)
        return self.head(self.norm(x))


def train(model: TinyGPT, data: np.ndarray, steps: int, context: int, fit: bool,
          seed: int) -> tuple[list[float], float, float]:
    """Train for ``steps``; returns the losses, the peak traced memory (MiB) and seconds."""
    rng = np.random.default_rng(seed)
    optimizer = tl.optim.AdamW(model.parameters(), lr=3e-3)
    scaler = tl.amp.GradScaler("cpu", enabled=fit)
    losses = []
    tracemalloc.start()
    start = time.perf_counter()
    for _ in range(steps):
        offset = int(rng.integers(0, len(data) - context - 1))
        window = data[offset:offset + context + 1]
        inputs, targets = tl.tensor(window[None, :-1]), tl.tensor(window[None, 1:])
        with tl.autocast("cpu", dtype=tl.float16, enabled=fit):
            logits = model(inputs, segments=2 if fit else 0)
            loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.item())
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return losses, peak, seconds


def main(argv: list[str] | None = None) -> dict:
    """Train plain and fitted from the same start; print and return both runs' figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--context", type=int, default=1024)
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--width", type=int, default=96)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    text = TEXT.read_text()
    chars = sorted(set(text))
    data = np.array([chars.index(c) for c in text], np.int64)
    if len(data) <= args.context + 1:
        data = np.tile(data, math.ceil((args.context + 2) / len(data)))
    tl.manual_seed(args.seed)
    first = TinyGPT(len(chars), args.context, args.width, 4, args.layers)
    state = first.state_dict()
    results = {}
    for name, fit in (("plain float32", False), ("autocast + checkpoint + blocked", True)):
        model = TinyGPT(len(chars), args.context, args.width, 4, args.layers)
        model.load_state_dict(state)
        losses, peak, seconds = train(model, data, args.steps, args.context, fit, args.seed)
        results[name] = {"losses": losses, "peak_mib": peak, "seconds": seconds}
        print(f"{name:32s} loss {losses[0]:.3f} -> {np.mean(losses[-5:]):.3f}   "
              f"peak traced memory {peak:7.1f} MiB   {seconds / args.steps * 1e3:6.0f} ms/step")
    return results


if __name__ == "__main__":
    main()
