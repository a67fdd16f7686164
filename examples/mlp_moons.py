"""The main demo: train an MLP on the two-moons data set with tinygrad_lite, PyTorch style.

    python examples/mlp_moons.py [--steps 300] [--seed 0] [--out examples/out]

A 2-16-16-1 ReLU network (``tl.nn``) trained full-batch with a hinge loss and ``tl.optim.SGD``
with momentum, with a tqdm progress bar. It writes, under ``--out``: ``moons_boundary.png``
(decision boundary and loss curve, matplotlib) and ``moons_graph.svg`` (the graph of one training
step, coloured by gradient norm, drawn by ``tl.viz``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a plain checkout too
import tinygrad_lite as tl  # noqa: E402
import tinygrad_lite.viz  # noqa: E402, F401  (tl.viz)
from tinygrad_lite import nn  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"


def make_moons(n: int, noise: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaved half circles in 2-D; labels are -1 and +1."""
    t = rng.uniform(0, np.pi, n)
    upper = rng.random(n) < 0.5
    x = np.where(upper, np.cos(t), 1 - np.cos(t))
    y = np.where(upper, np.sin(t), 0.5 - np.sin(t))
    points = np.stack([x, y], axis=1) + rng.normal(0, noise, (n, 2))
    return points.astype(np.float32), np.where(upper, 1.0, -1.0).astype(np.float32)


def make_model() -> nn.Module:
    """The 2-16-16-1 ReLU MLP."""
    return nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                         nn.Linear(16, 1))


def hinge_loss(score: tl.Tensor, y: tl.Tensor) -> tl.Tensor:
    """Mean of max(0, 1 - y * score): the SVM loss, with labels -1 and +1."""
    return (1 - y * score).relu().mean()


def plot(model: nn.Module, points: np.ndarray, labels: np.ndarray, losses: list[float],
         path: Path) -> None:
    """Decision boundary (left) and loss curve (right) as one PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xx, yy = np.meshgrid(np.linspace(-1.6, 2.6, 200), np.linspace(-1.1, 1.6, 200))
    grid = np.stack([xx.ravel(), yy.ravel()], axis=1).astype(np.float32)
    with tl.no_grad():
        zz = model(tl.tensor(grid)).numpy().reshape(xx.shape)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.contourf(xx, yy, zz > 0, levels=1, cmap="RdBu", alpha=0.35)
    ax1.contour(xx, yy, zz, levels=[0], colors="k", linewidths=1)
    for cls, colour, name in ((-1, "#b2182b", "class -1 (score < 0)"),
                              (1, "#2166ac", "class +1 (score > 0)")):
        mine = labels == cls
        ax1.scatter(points[mine, 0], points[mine, 1], color=colour, s=12, edgecolors="k",
                    linewidths=0.3, label=name)
    ax1.plot([], [], color="k", linewidth=1, label="decision boundary (score = 0)")
    ax1.legend(loc="lower left", fontsize=8)
    ax1.set_xlabel("x1")
    ax1.set_ylabel("x2")
    ax1.set_title("decision boundary (shaded: predicted class)")
    ax2.plot(losses)
    ax2.set_yscale("log")
    ax2.set_xlabel("step")
    ax2.set_ylabel("hinge loss (log scale)")
    ax2.set_title("training loss")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> float:
    """Train, write the pictures, and return the final training accuracy."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    from tqdm import tqdm

    tl.manual_seed(args.seed)
    points, labels = make_moons(200, 0.1, np.random.default_rng(args.seed))
    x, y = tl.tensor(points), tl.tensor(labels)
    model = make_model()
    optimizer = tl.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    args.out.mkdir(parents=True, exist_ok=True)

    losses: list[float] = []
    bar = tqdm(range(args.steps), desc="training", file=sys.stdout, mininterval=0.5)
    for step in bar:
        if step == args.steps - 1:  # draw the last step: record module calls and gradients
            with tl.viz.record():
                score = model(x).reshape(-1)
                loss = hinge_loss(score, y)
                optimizer.zero_grad()
                loss.backward()
            graph = tl.viz.draw(loss, params=model, collapse="modules")
        else:
            score = model(x).reshape(-1)
            loss = hinge_loss(score, y)
            optimizer.zero_grad()
            loss.backward()
        optimizer.step()
        losses.append(loss.item())
        accuracy = ((score > 0) == (y > 0)).float().mean().item()
        bar.set_postfix(loss=f"{losses[-1]:.4f}", accuracy=f"{accuracy:.1%}", refresh=False)
    bar.close()
    print(f"final loss {losses[-1]:.4f}  accuracy {accuracy:.1%}")

    plot(model, points, labels, losses, args.out / "moons_boundary.png")
    (args.out / "moons_graph.dot").write_text(graph.source)  # the drawing as text, always
    try:
        graph.render(args.out / "moons_graph", format="svg", cleanup=True)
        print(f"wrote {args.out / 'moons_boundary.png'} and {args.out / 'moons_graph.svg'}")
    except RuntimeError as exc:  # no Graphviz `dot`: only the DOT text
        print(f"wrote {args.out / 'moons_boundary.png'} and {args.out / 'moons_graph.dot'} "
              f"instead of the SVG ({exc})")
    return accuracy


if __name__ == "__main__":
    main()
