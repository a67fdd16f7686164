"""A custom Function worth writing by hand: fused, numerically stable softmax cross-entropy.

    python examples/custom_op.py [--batch 512] [--classes 1000] [--repeat 20]

The composed version (log_softmax, gather, mean) records several nodes and keeps their
intermediate results for backward; the fused Function computes the loss in one NumPy pass and
saves only the softmax probabilities, with the textbook gradient ``(softmax - onehot) / N``.
The example checks the gradient with ``gradcheck`` and compares time and saved memory.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a plain checkout too
import tinygrad_lite as tl  # noqa: E402


class SoftmaxCrossEntropy(tl.autograd.Function):
    """Mean cross-entropy of ``logits`` (N, C) against integer ``target`` (N,), fused: one pass
    builds the probabilities (kept for backward, the only N x C array saved), and the backward
    is ``(probs - onehot) / N`` computed in place on one copy."""

    @staticmethod
    def forward(ctx, logits: tl.Tensor, target: tl.Tensor) -> tl.Tensor:
        z = logits.detach().numpy()
        idx = target.numpy()
        rows = np.arange(len(idx))
        shifted = z - z.max(axis=1, keepdims=True)  # stable: exp never overflows
        probs = np.exp(shifted)
        sums = probs.sum(axis=1, keepdims=True)
        loss = (np.log(sums[:, 0]) - shifted[rows, idx]).mean()
        probs /= sums  # the softmax, in the same buffer
        ctx.save_for_backward(tl.from_numpy(probs))
        ctx.rows, ctx.target = rows, idx
        return tl.tensor(np.asarray(loss, dtype=z.dtype))

    @staticmethod
    @tl.autograd.function.once_differentiable
    def backward(ctx, grad: tl.Tensor) -> tuple:
        (probs,) = ctx.saved_tensors
        dlogits = probs.numpy().copy()
        dlogits[ctx.rows, ctx.target] -= 1  # probs - onehot, without building the one-hot
        dlogits *= grad.item() / len(ctx.target)
        return tl.from_numpy(dlogits), None


def composed(logits: tl.Tensor, target: tl.Tensor) -> tl.Tensor:
    """The same loss from library ops."""
    return -logits.log_softmax(dim=1).gather(1, target.reshape(-1, 1)).mean()


def saved_bytes(t: tl.Tensor) -> int:
    """Bytes that the graph behind ``t`` keeps for backward."""
    seen, stack, total = set(), [t.grad_fn], 0
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        total += sum(
            s.detach().numpy().nbytes for s in (node._saved or ()) if isinstance(s, tl.Tensor)
        )
        total += node._saved_out[0].nbytes if node._saved_out is not None else 0
        stack += [e[0] for e in node.next_edges if e is not None and hasattr(e[0], "next_edges")]
    return total


def timed(fn, logits, target, repeat: int) -> float:
    """Best time of forward + backward, in milliseconds."""
    best = float("inf")
    for _ in range(repeat):
        logits.grad = None
        start = time.perf_counter()
        fn(logits, target).backward()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def main(argv: list[str] | None = None) -> float:
    """Check, compare, and return the speed-up of the fused op (composed time / fused time)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--classes", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    small = tl.tensor(rng.normal(size=(4, 5)), dtype=tl.float64, requires_grad=True)
    target = tl.tensor(rng.integers(0, 5, 4))
    assert tl.autograd.gradcheck(lambda z: SoftmaxCrossEntropy.apply(z, target), (small,))
    big = tl.tensor(rng.normal(size=(4, 5)) * 1e4, dtype=tl.float64)  # exp would overflow
    fused_big = SoftmaxCrossEntropy.apply(big, target).item()
    print(
        f"gradcheck passed; loss of logits ~1e4: {fused_big:.1f} "
        f"(composed: {composed(big, target).item():.1f})"
    )

    logits = tl.randn(args.batch, args.classes, requires_grad=True)
    target = tl.tensor(rng.integers(0, args.classes, args.batch))
    fused_loss, comp_loss = SoftmaxCrossEntropy.apply(logits, target), composed(logits, target)
    np.testing.assert_allclose(fused_loss.item(), comp_loss.item(), rtol=1e-5)
    mem_fused, mem_comp = saved_bytes(fused_loss), saved_bytes(comp_loss)
    t_fused = timed(SoftmaxCrossEntropy.apply, logits, target, args.repeat)
    t_comp = timed(composed, logits, target, args.repeat)
    print(
        f"{args.batch}x{args.classes}: fused {t_fused:.2f} ms, saves {mem_fused / 1024:.0f} KB;"
        f" composed {t_comp:.2f} ms, saves {mem_comp / 1024:.0f} KB"
    )
    return t_comp / t_fused


if __name__ == "__main__":
    main()
