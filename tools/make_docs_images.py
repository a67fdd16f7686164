"""Regenerate every picture in ``docs/`` from the examples, with the DOT text beside each drawing.

    .venv/bin/python tools/make_docs_images.py

The suite (tests/test_docs_images.py) redraws the graphs and fails when a committed ``.dot``
differs in structure from what the code draws now, so run this after changing an op's graph or
the drawing code, look at the pictures, and commit them.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

# docs/ name -> (example, the file that example writes); each drawing also has its .dot beside it.
PICTURES = {
    "moons_boundary.png": ("mlp_moons", "moons_boundary.png"),
    "moons_graph.svg": ("mlp_moons", "moons_graph.svg"),
    "cnn_forward.svg": ("draw_graph", "cnn_forward.svg"),
    "cnn_graph.svg": ("draw_graph", "cnn_grads.svg"),
    "cnn_folded.svg": ("draw_graph", "cnn_folded.svg"),
    "nan_grads.svg": ("draw_graph", "nan_grads.svg"),
    "guided_backprop.png": ("hooks", "guided_backprop.png"),
}


def load_example(name: str):
    """Import ``examples/<name>.py`` as a module."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    """Run the examples into a scratch folder and copy their pictures into docs/."""
    if shutil.which("dot") is None:
        sys.exit("Graphviz's `dot` is needed to render the drawings: bash tools/setup.sh viz")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for example in dict.fromkeys(e for e, _ in PICTURES.values()):
            load_example(example).main(["--out", str(out)])
        DOCS.mkdir(exist_ok=True)
        for target, (_, produced) in PICTURES.items():
            shutil.copyfile(out / produced, DOCS / target)
            dot = (out / produced).with_suffix(".dot")
            if dot.exists():
                shutil.copyfile(dot, (DOCS / target).with_suffix(".dot"))
            print(f"wrote docs/{target}")


if __name__ == "__main__":
    main()
