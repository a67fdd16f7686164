"""``tinygrad_lite.viz``: draw the autograd graph, with shapes, saved tensors and gradients.

``to_dot(...)`` returns Graphviz DOT text and needs nothing installed; ``draw(...)`` returns a
``graphviz.Digraph`` (the ``graphviz`` Python package: ``pip install 'tinygrad-lite[viz]'``), and
rendering it (``.render("graph", format="svg")``) needs Graphviz's ``dot`` program (Debian:
``apt-get install graphviz``; ``bash tools/setup.sh`` installs both where it can). Run the
forward and backward inside ``with tl.viz.record():`` to get module clusters, output shapes of
every op and the gradient flowing through each op; leaves and ``retain_grad()`` tensors show
their gradients without it.
"""

from __future__ import annotations

import shutil
from typing import Any

from .dot import build_dot, quote
from .recording import GradStats, ModuleCall, Recording, grad_stats, record

__all__ = ["draw", "to_dot", "record", "Recording", "ModuleCall", "GradStats", "grad_stats"]

DOT_MISSING = (
    "rendering a drawing needs Graphviz's `dot` program, which is not on PATH. Install it with "
    "`apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` (macOS) or `bash "
    "tools/setup.sh viz` from the repository; tl.viz.to_dot(...) gives the DOT text without it."
)
PACKAGE_MISSING = (
    "tl.viz.draw needs the graphviz Python package: pip install 'tinygrad-lite[viz]' (in a "
    "checkout: bash tools/setup.sh viz); tl.viz.to_dot(...) gives the DOT text without it."
)


def _check_dot() -> None:
    if shutil.which("dot") is None:
        raise RuntimeError(DOT_MISSING)


def _is_ir(obj: Any) -> bool:
    """Whether ``obj`` is a ``tl.compile`` IR graph (``compiled.graph``), drawn by its own
    ``to_dot``: viz sits below the compiler and cannot import its Graph type."""
    return callable(getattr(obj, "to_dot", None)) and hasattr(obj, "ops")


def _header(graph_attr: dict) -> list[str]:
    return [f"graph [{', '.join(f'{k}={quote(v)}' for k, v in graph_attr.items())}]",
            'node [fontname="Helvetica", fontsize="11", margin="0.12,0.04", height="0.3"]',
            'edge [color="#555555", arrowsize="0.7"]']


def to_dot(outputs: Any, params: Any = None, show_saved: bool = True, show_grads: bool = True,
           collapse: Any = None, rankdir: str = "TB", *, tensors: Any = None,
           recording: Recording | None = None, fold: bool = False) -> str:
    """The drawing of the graph that produced ``outputs`` as DOT text (no graphviz needed).

    ``params``: a Module (names from ``named_parameters``) or a dict ``name -> tensor`` naming
    leaves; ``tensors``: a dict (or list) of intermediate tensors to name and, after
    ``retain_grad()``, show the gradients of; ``collapse``: ``"modules"`` or a list of modules
    to draw as clusters (``fold=True``: one node per innermost module call), which needs the
    forward run inside ``record()``; ``recording``: that recording (default: the latest one,
    if it saw this graph).
    """
    if _is_ir(outputs):
        return str(outputs.to_dot())
    graph_attr, body = build_dot(outputs, params, show_saved, show_grads, collapse, rankdir,
                                 tensors, recording, fold)
    lines = ["digraph G {", *("\t" + s for s in _header(graph_attr)),
             *("\t" + s for s in body), "}"]
    return "\n".join(lines) + "\n"


def draw(outputs: Any, params: Any = None, show_saved: bool = True, show_grads: bool = True,
         collapse: Any = None, rankdir: str = "TB", *, tensors: Any = None,
         recording: Recording | None = None, fold: bool = False) -> Any:
    """The drawing as a ``graphviz.Digraph`` (same arguments as ``to_dot``); call
    ``.render("graph", format="svg")`` on it to write ``graph.svg``."""
    try:
        import graphviz
    except ImportError as exc:
        raise ImportError(PACKAGE_MISSING) from exc

    class Digraph(graphviz.Digraph):
        """A graphviz.Digraph whose rendering says how to install ``dot`` when it is missing."""

        def render(self, *args: Any, **kwargs: Any) -> Any:
            _check_dot()
            return super().render(*args, **kwargs)

        def pipe(self, *args: Any, **kwargs: Any) -> Any:
            _check_dot()
            return super().pipe(*args, **kwargs)

    if _is_ir(outputs):  # a tl.compile graph draws itself
        source = str(outputs.to_dot())
        ir = Digraph("ir")
        ir.body.extend(line + "\n" for line in source.splitlines()[1:-1])
        return ir
    graph_attr, body = build_dot(outputs, params, show_saved, show_grads, collapse, rankdir,
                                 tensors, recording, fold)
    g = Digraph("G")
    g.body.extend("\t" + s + "\n" for s in _header(graph_attr) + body)
    return g
