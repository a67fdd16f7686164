"""A character-level language model: a GRU learns a short text and then writes some of its own.

    python examples/char_rnn.py [--steps 400] [--hidden 128] [--seed 0]

The text (``examples/data/river.txt``, written for this repository) is cut into random windows
of 64 characters; the model embeds each character, runs a 1-layer GRU over the window and
predicts the next character at every position (cross-entropy, Adam, gradient clipping). Every
100 steps it prints the loss; at the end it samples text one character at a time with
``tl.multinomial`` from the softmax at temperature 0.8.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a plain checkout too
import tinygrad_lite as tl  # noqa: E402
from tinygrad_lite import nn  # noqa: E402

TEXT = Path(__file__).resolve().parent / "data" / "river.txt"


class CharModel(nn.Module):
    """Embedding -> GRU -> linear layer over the vocabulary."""

    def __init__(self, vocab: int, hidden: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, 32)
        self.rnn = nn.GRU(32, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens: tl.Tensor, state: tl.Tensor | None = None) -> tuple:
        """Logits for the next character at each position, and the GRU's last state."""
        out, state = self.rnn(self.embed(tokens), state)
        return self.head(out), state


def sample(model: CharModel, chars: list[str], start: str, length: int,
           temperature: float = 0.8) -> str:
    """Continue ``start`` by ``length`` characters drawn from the model."""
    index = {c: i for i, c in enumerate(chars)}
    model.eval()
    out = list(start)
    with tl.no_grad():
        logits, state = model(tl.tensor([[index[c] for c in start]]))
        for _ in range(length):
            probs = (logits[0, -1] / temperature).softmax(-1)
            nxt = int(tl.multinomial(probs, 1).item())
            out.append(chars[nxt])
            logits, state = model(tl.tensor([[nxt]]), state)
    model.train()
    return "".join(out)


def main(argv: list[str] | None = None) -> tuple[float, float]:
    """Train; return the first and last average loss."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sample", type=int, default=200)
    args = parser.parse_args(argv)

    tl.manual_seed(args.seed)
    # 32 x 128 matrices: waking a second BLAS thread costs more than it saves (2x here)
    threads = tl.get_num_threads()
    tl.set_num_threads(1)
    text = TEXT.read_text()
    chars = sorted(set(text))
    data = np.array([chars.index(c) for c in text], np.int64)
    model = CharModel(len(chars), args.hidden)
    optimizer = tl.optim.Adam(model.parameters(), lr=3e-3)
    rng = np.random.default_rng(args.seed)
    window, batch = 64, 32
    losses: list[float] = []
    start = time.perf_counter()
    for step in range(args.steps):
        offsets = rng.integers(0, len(data) - window - 1, batch)
        chunk = np.stack([data[o:o + window + 1] for o in offsets])
        x, y = tl.tensor(chunk[:, :-1]), tl.tensor(chunk[:, 1:])
        logits, _ = model(x)
        loss = nn.functional.cross_entropy(logits.reshape(-1, len(chars)), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
        if (step + 1) % 100 == 0 or step == args.steps - 1:
            print(f"step {step + 1:4d}  loss {np.mean(losses[-100:]):.3f}  "
                  f"({time.perf_counter() - start:.1f} s)")
    print("sample:", sample(model, chars, "The river ", args.sample))
    tl.set_num_threads(threads)
    first, last = float(np.mean(losses[:10])), float(np.mean(losses[-10:]))
    return first, last


if __name__ == "__main__":
    main()
