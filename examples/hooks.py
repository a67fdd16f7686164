"""Tensor and module hooks at work on a small digits classifier.

    python examples/hooks.py [--epochs 5] [--out examples/out]

* forward hooks collect activation statistics per layer, full backward hooks gradient
  statistics;
* a tensor hook on every parameter clips its gradient elementwise before it is accumulated;
* Guided Backpropagation: backward hooks on the ReLU modules pass only positive gradients, giving
  a saliency map of the input pixels, saved as ``guided_backprop.png``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a plain checkout too
import tinygrad_lite as tl  # noqa: E402
from tinygrad_lite import nn  # noqa: E402

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("mlp_digits", HERE / "mlp_digits.py")
digits = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(digits)


def main(argv: list[str] | None = None) -> float:
    """Train with hooks, draw the saliency maps; return the fraction of clipped gradients."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--clip", type=float, default=0.05)
    parser.add_argument("--out", type=Path, default=HERE / "out")
    args = parser.parse_args(argv)

    tl.manual_seed(0)
    x_train, y_train, x_test, y_test = digits.load_digits(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 10))
    stats: dict[str, list] = {}
    handles = []
    for name, layer in model.named_children():
        def fwd(module, inputs, output, name=name):
            stats.setdefault(f"{name} act", []).append(
                (float(output.detach().mean()), float(output.detach().std())))

        def bwd(module, grad_input, grad_output, name=name):
            stats.setdefault(f"{name} grad", []).append(
                float(np.linalg.norm(grad_output[0].numpy()))
            )

        handles += [layer.register_forward_hook(fwd), layer.register_full_backward_hook(bwd)]
    clipped = [0, 0]

    def clip(grad: tl.Tensor) -> tl.Tensor:  # elementwise gradient clipping, by hook
        clipped[0] += int((grad.abs() > args.clip).sum().item())
        clipped[1] += grad.numel()
        return grad.clamp(-args.clip, args.clip)

    handles += [p.register_hook(clip) for p in model.parameters()]
    optimizer = tl.optim.Adam(model.parameters(), lr=3e-3)
    x, y = tl.tensor(x_train), tl.tensor(y_train)
    for epoch in range(args.epochs):
        for i in range(0, len(x_train), 64):
            loss = nn.functional.cross_entropy(model(x[i : i + 64]), y[i : i + 64])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.3f}")
    for h in handles:
        h.remove()
    for key, values in stats.items():
        last = values[-1]
        desc = (
            f"mean {last[0]:+.3f}, std {last[1]:.3f}"
            if isinstance(last, tuple)
            else f"grad_output norm {last:.4f}"
        )
        print(f"layer {key:8s} {desc}")
    print(f"gradient hook clipped {clipped[0] / clipped[1]:.1%} of gradient entries")

    # Guided Backpropagation: ReLUs let only positive gradients through in backward.
    guided = [
        m.register_full_backward_hook(lambda mod, gin, gout: (gin[0].clamp(min=0),))
        for m in model.modules()
        if isinstance(m, nn.ReLU)
    ]
    images = tl.tensor(x_test[:8], requires_grad=True)
    scores = model(images)
    scores.gather(1, scores.argmax(dim=1, keepdim=True)).sum().backward()
    for h in guided:
        h.remove()
    saliency = images.grad.numpy().reshape(-1, 8, 8)
    save_saliency(x_test[:8].reshape(-1, 8, 8), saliency, args.out / "guided_backprop.png")
    return clipped[0] / clipped[1]


def save_saliency(images: np.ndarray, saliency: np.ndarray, path: Path) -> None:
    """Digits on the top row, their guided-backprop saliency below."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(2, len(images), figsize=(1.4 * len(images) + 1.2, 3.4))
    positive = np.maximum(saliency, 0)
    top = float(positive.max()) or 1.0  # one colour scale for every digit, so they compare
    for i, (img, sal) in enumerate(zip(images, positive)):
        axes[0, i].imshow(img, cmap="gray_r")
        shown = axes[1, i].imshow(sal, cmap="hot", vmin=0, vmax=top)
        for ax in axes[:, i]:
            ax.set_xticks([])
            ax.set_yticks([])
    axes[0, 0].set_ylabel("input digit")
    axes[1, 0].set_ylabel("saliency")
    fig.colorbar(shown, ax=axes.ravel().tolist(), shrink=0.8,
                 label="positive input gradient\n(guided backprop)")
    fig.suptitle("Guided Backpropagation: which pixels raise the predicted class's score")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
