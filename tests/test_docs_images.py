"""The pictures in docs/ match what the code draws now (tools/make_docs_images.py makes them).

Drawings are compared as DOT text, with what legitimately varies between machines and training
lengths blanked out (gradient figures, the colours they pick, the legend's band edges), so a
change in the graph's structure (ops, shapes, saved tensors, edges, labels) fails here until the
pictures are regenerated.
"""

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
make_docs_images = importlib.import_module("make_docs_images")


def structure(dot: str) -> list[str]:
    """The DOT statements with gradient-dependent numbers and colours blanked."""
    dot = re.sub(r"grad norm [^\\\"]*", "grad norm #", dot)
    dot = re.sub(r", (fontcolor|color|penwidth)=\"[^\"]*\"", "", dot)
    dot = re.sub(r"fillcolor=\"[^\"]*\"", "fillcolor=#", dot)
    dot = re.sub(r"legend \[.*\]", "legend", dot)
    return [line.strip() for line in dot.splitlines()]


DRAWINGS = {target: produced for target, (example, produced) in
            make_docs_images.PICTURES.items() if target.endswith(".svg")}


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    """Run the drawing examples (the demo for a few steps: its graph does not depend on it)."""
    out = tmp_path_factory.mktemp("docs")
    make_docs_images.load_example("draw_graph").main(["--out", str(out)])
    if importlib.util.find_spec("tqdm") and importlib.util.find_spec("matplotlib"):
        make_docs_images.load_example("mlp_moons").main(["--steps", "3", "--out", str(out)])
    return out


@pytest.mark.parametrize("target", sorted(DRAWINGS))
def test_committed_drawing_matches_the_code(target, drawn):
    pytest.importorskip("graphviz")
    produced = (drawn / DRAWINGS[target]).with_suffix(".dot")
    if not produced.exists():
        pytest.skip(f"{produced.name} needs the demo's tqdm and matplotlib")
    committed = (make_docs_images.DOCS / target).with_suffix(".dot")
    assert committed.exists(), f"run tools/make_docs_images.py: docs/{committed.name} is missing"
    assert structure(committed.read_text()) == structure(produced.read_text()), (
        f"docs/{target} is stale: the code now draws a different graph. Run "
        "`.venv/bin/python tools/make_docs_images.py`, look at the pictures, commit them.")


def test_every_picture_the_readme_shows_is_generated():
    readme = (ROOT / "README.md").read_text()
    shown = set(re.findall(r"docs/([\w.]+\.(?:svg|png))", readme))
    assert shown <= set(make_docs_images.PICTURES), shown - set(make_docs_images.PICTURES)
    for name in make_docs_images.PICTURES:
        assert (make_docs_images.DOCS / name).exists(), f"docs/{name} missing"
