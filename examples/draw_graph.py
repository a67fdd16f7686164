"""The drawing options of ``tl.viz`` on a small CNN, one file per view.

    python examples/draw_graph.py [--format svg] [--out examples/out]

1. ``cnn_forward``: the graph right after the forward pass (recorded, so every op names the
   layer that made it): ops with output shapes and dtypes, parameters by name, saved tensors
   with their sizes;
2. ``cnn_grads``: after backward inside ``tl.viz.record()``: gradient norm and largest magnitude
   of every tensor, colours on a legend'd scale, layers as labelled clusters;
3. ``cnn_folded``: one node per layer (``collapse="modules", fold=True``);
4. ``nan_grads``: a NaN gradient flagged in red, and a tensor hook marked (dashed border).
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


class SmallCNN(nn.Module):
    """conv-relu-pool, conv-relu-pool, linear: 1x8x8 images to 10 classes."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(4, 8, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 2 * 2, 10)

    def forward(self, x: tl.Tensor) -> tl.Tensor:
        x = self.pool(self.conv1(x).relu())
        x = self.pool(self.conv2(x).relu())
        return self.fc(x.flatten(1))


def render(graph, path: Path, fmt: str) -> str:
    """Write the DOT text beside the rendering; only the DOT text when Graphviz's ``dot`` is
    missing. Returns the path of the picture (or of the DOT file)."""
    path.with_suffix(".dot").write_text(graph.source)
    try:
        return graph.render(path, format=fmt, cleanup=True)
    except RuntimeError as exc:
        print(f"{exc}\nwrote {path.with_suffix('.dot')} instead")
        return str(path.with_suffix(".dot"))


def main(argv: list[str] | None = None) -> list[str]:
    """Write the four drawings; return their paths."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", default="svg")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    tl.manual_seed(0)
    model = SmallCNN()
    x, y = tl.randn(2, 1, 8, 8), tl.tensor([3, 7])
    paths = []

    with tl.viz.record() as rec:  # forward only: each op is labelled with its layer
        loss = nn.functional.cross_entropy(model(x), y)
    paths.append(render(tl.viz.draw(loss, params=model, recording=rec), args.out / "cnn_forward",
                        args.format))

    with tl.viz.record() as rec:
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
    paths.append(render(tl.viz.draw(loss, params=model, collapse="modules", recording=rec),
                        args.out / "cnn_grads", args.format))
    paths.append(render(tl.viz.draw(loss, params=model, collapse="modules", fold=True,
                                    recording=rec, rankdir="LR"),
                        args.out / "cnn_folded", args.format))

    w = tl.tensor([1.0, 4.0], requires_grad=True)
    b = tl.tensor([-1.0, 1.0], requires_grad=True)
    h = w.log()
    h.register_hook(lambda g: g)
    with tl.viz.record() as rec, np.errstate(invalid="ignore"):
        out = (h * b.sqrt()).sum()  # sqrt(-1) is NaN: so are the gradients behind it
        out.backward()
    paths.append(render(tl.viz.draw(out, params={"w": w, "b": b}, tensors={"h": h},
                                    recording=rec), args.out / "nan_grads", args.format))
    for p in paths:
        print(f"wrote {p}")
    return paths


if __name__ == "__main__":
    main()
