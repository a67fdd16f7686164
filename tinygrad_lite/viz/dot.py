"""Build the drawing of a graph as DOT text: nodes, edges, module clusters, gradient colours.

The graph is walked from the outputs through ``grad_fn.next_edges``; arrows follow the data
(parameters and inputs at the top, outputs at the bottom). Output shapes of intermediate nodes
come from a recording (``record()``), from the tensors given in ``tensors=``, or, while the
graph still holds its saved values, from a dry run of the backward rules on zero gradients:
the gradient a node sends along an edge has the shape of the tensor that edge came from.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._core.grad_mode import no_grad
from .._core.graph import Node, RetainGradHook
from ..autograd.function import BackwardCFunction
from ..tensor import Tensor
from .modules import group_modules, innermost_module_names
from .recording import GradStats, Recording, grad_stats, latest_recording

__all__ = ["build_dot"]

# Gradient-norm scale, light to dark; the two darkest take white text. NaN/Inf is red.
PALETTE = ("#fff5eb", "#fdd0a2", "#fdae6b", "#f16913", "#a63603")
NAN_COLOR = "#e31a1c"
ZERO_COLOR = "white"
NEAR_ZERO = 1e-7  # relative to the largest gradient norm in the drawing
SCALE_QUANTILES = (0.05, 0.95)  # of log10 norms: the colour scale's ends
KIND_COLORS = {"op": "#eeeeee", "param": "#d9ead3", "input": "#fff2cc", "output": "#d9d2e9",
               "module": "#dae8fc"}
KIND_SHAPES = {"op": "box", "param": "box", "input": "invhouse", "output": "box",
               "module": "box3d"}


def quote(text: str) -> str:
    """A DOT string literal; newlines become centred line breaks."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _attrs(attrs: dict) -> str:
    return ", ".join(f"{k}={quote(str(v))}" for k, v in attrs.items())


def _nbytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return ""


def _fmt(x: float, digits: int) -> str:
    return f"{x:.{digits}g}"


def band_labels(lo: float, hi: float, n: int) -> list[str]:
    """HTML labels of ``n`` equal bands of the log10 range ``lo .. hi`` (the outer bands
    open-ended), with just enough significant digits that neighbouring edges differ."""
    if hi <= lo:
        return [_fmt(10 ** lo, 3)]
    edges = [10 ** (lo + (hi - lo) * i / n) for i in range(n + 1)]
    for digits in range(2, 8):
        text = [_fmt(e, digits) for e in edges]
        if len(set(text)) == len(text):
            break
    return ([f"&lt; {text[1]}"] + [f"{text[i]} .. {text[i + 1]}" for i in range(1, n - 1)]
            + [f"&gt;= {text[n - 1]}"])


def _shape(meta: tuple | None) -> str:
    if meta is None:
        return ""
    shape, dtype = meta
    return f"{tuple(shape)} {np.dtype(dtype).name}"


def _grad_line(s: GradStats) -> str:
    if s.nonfinite:
        return "grad has NaN/Inf!"
    return f"grad norm {s.norm:.3g}, max {s.max_abs:.3g}"


def _walk(outputs: list[Tensor]) -> tuple[list[Node], list[Tensor]]:
    """Nodes (each after every node that consumes it) and leaves reachable from ``outputs``."""
    consumers: dict[Node, int] = {}
    leaves: dict[int, Tensor] = {}
    seen: set[Node] = set()
    stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
    found = []
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        found.append(node)
        for edge in node.next_edges:
            if edge is None:
                continue
            if isinstance(edge[0], Node):
                consumers[edge[0]] = consumers.get(edge[0], 0) + 1
                stack.append(edge[0])
            else:
                leaves.setdefault(id(edge[0]), edge[0])
    for t in outputs:
        if t.grad_fn is None and t._requires_grad:
            leaves.setdefault(id(t), t)
    order, ready = [], [n for n in dict.fromkeys(t.grad_fn for t in outputs) if n is not None
                         and consumers.get(n, 0) == 0]
    while ready:  # Kahn's algorithm, as the engine orders a backward
        node = ready.pop()
        order.append(node)
        for edge in node.next_edges:
            if edge is not None and isinstance(edge[0], Node):
                consumers[edge[0]] -= 1
                if consumers[edge[0]] == 0:
                    ready.append(edge[0])
    return order, list(leaves.values())


def _infer_shapes(order: list[Node], meta: dict) -> None:
    """Fill ``meta[(node, nr)]`` by running backward rules on zero gradients (see module doc)."""
    with no_grad(), np.errstate(all="ignore"):
        for node in order:
            out_meta = [meta.get((node, nr)) for nr in range(node.n_outputs)]
            if all(m is None for m in out_meta):
                continue
            ins: Sequence[Any]
            if isinstance(node, BackwardCFunction):  # a custom Function's ctx
                ins = [None if m is None else np.zeros(*m) for m in node._input_meta]
            elif type(node).__name__ == "BackwardHookFunctionBackward":  # identity
                ins = [None if m is None else np.zeros(*m) for m in out_meta]
            elif node._released or not node.takes_arrays:
                continue
            else:
                try:
                    ins = node.backward(*[None if m is None else np.zeros(*m) for m in out_meta])
                except Exception:  # a rule that can't take zeros: leave those shapes unknown
                    continue
            for edge, g in zip(node.next_edges, ins):
                if edge is not None and g is not None and isinstance(edge[0], Node):
                    g = np.asarray(g)
                    meta.setdefault((edge[0], edge[1]), (g.shape, g.dtype))


def _saved_lines(node: Node, recording: Recording | None) -> list[str]:
    """``saved (200, 16) 12.5 KB`` per saved tensor (summarised past three); after backward
    freed them, what the recording noted."""
    if node._released:
        if recording is None or node not in recording.saved:
            return ["saved: freed by backward"]
        arrays = recording.saved[node]
    else:
        arrays = [(t._data.shape, t._data.nbytes) for t in (node._saved or ())
                  if isinstance(t, Tensor)]
        if node._saved_out is not None:
            arrays.append((node._saved_out[0].shape, node._saved_out[0].nbytes))
    if len(arrays) > 3:
        return [f"saved {len(arrays)} tensors, {_nbytes(sum(n for _, n in arrays))}"]
    return [f"saved {tuple(s)} {_nbytes(n)}" for s, n in arrays]


class _Builder:
    """Collects node labels, styles and edges, then writes them out as DOT statements."""

    def __init__(self, show_grads: bool) -> None:
        self.show_grads = show_grads
        self.items: dict[str, dict] = {}  # key -> {"lines", "kind", "stats", "hooks"}
        self.norms: list[float] = []

    def add(self, key: str, kind: str, lines: list[str], stats: GradStats | None,
            hooks: str = "") -> None:
        if stats is not None and self.show_grads:
            lines = [*lines, _grad_line(stats)]
            if not stats.nonfinite and stats.norm > 0:
                self.norms.append(stats.norm)
        else:
            stats = None
        if hooks:
            lines = [*lines, hooks]
        self.items[key] = {"lines": lines, "kind": kind, "stats": stats, "hooks": bool(hooks)}

    def near_zero(self) -> float:
        """Norms at or below this are cancellation noise next to the largest one: drawn apart
        as "about 0" instead of stretching the scale (a bias whose gradient cancels to 1e-11
        would otherwise give every other node the darkest colour)."""
        return NEAR_ZERO * max(self.norms) if self.norms else 0.0

    def _scale(self) -> tuple[float, float]:
        """log10 range of the colour scale: robust quantiles of the non-negligible norms, so
        one outlier does not squeeze every other node into one band."""
        cut = self.near_zero()
        logs = np.log10([n for n in self.norms if n > cut])
        if not logs.size:
            return (0.0, 0.0)
        lo, hi = np.quantile(logs, SCALE_QUANTILES)
        return float(lo), float(hi)

    def _colour(self, stats: GradStats | None, kind: str, lo: float, hi: float) -> dict:
        if stats is None:
            return {"fillcolor": KIND_COLORS[kind]}
        if stats.nonfinite:
            return {"fillcolor": NAN_COLOR, "fontcolor": "white", "color": "#7f0000",
                    "penwidth": "2"}
        if stats.norm <= self.near_zero():
            return {"fillcolor": ZERO_COLOR}
        frac = 0.0 if hi <= lo else (math.log10(stats.norm) - lo) / (hi - lo)
        i = min(len(PALETTE) - 1, max(0, int(frac * len(PALETTE))))  # outside the quantiles: ends
        return {"fillcolor": PALETTE[i], **({"fontcolor": "white"} if i >= 3 else {})}

    def node_statements(self, keys: list[str], lo: float, hi: float) -> list[str]:
        out = []
        for key in keys:
            item = self.items[key]
            kind = item["kind"]
            style = "filled" if kind in ("param", "input") else "rounded,filled"
            attrs = {"label": "\n".join(item["lines"]), "shape": KIND_SHAPES[kind],
                     "style": style + (",dashed" if item["hooks"] else ""),
                     **self._colour(item["stats"], kind, lo, hi)}
            if kind == "output":
                attrs["peripheries"] = "2"
            out.append(f"{key} [{_attrs(attrs)}]")
        return out

    def legend(self, lo: float, hi: float) -> list[str]:
        """One table node explaining the colours: a row per band of the gradient norm."""
        if not self.show_grads or not any(i["stats"] for i in self.items.values()):
            return []
        rows = ['<tr><td><b>gradient norm</b></td></tr>']
        for i, (colour, text) in enumerate(zip(PALETTE, band_labels(lo, hi, len(PALETTE)))):
            font = ' color="white"' if i >= 3 else ""
            rows.append(f'<tr><td bgcolor="{colour}"><font{font}>{text}</font></td></tr>')
        if self.norms:
            rows.append(f'<tr><td bgcolor="{ZERO_COLOR}">about 0 (&lt;= '
                        f'{_fmt(self.near_zero(), 2)})</td></tr>')
        rows.append(f'<tr><td bgcolor="{NAN_COLOR}"><font color="white">NaN/Inf</font></td></tr>')
        table = ('<table border="0" cellborder="1" cellspacing="0" cellpadding="3">'
                 + "".join(rows) + "</table>")
        return [f'legend [shape=plaintext, fontsize="10", label=<{table}>]']


def _module_names(params: Any) -> dict[int, str]:
    if params is not None and hasattr(params, "named_modules"):
        return {id(m): name for name, m in params.named_modules()}
    return {}


def _param_names(params: Any) -> dict[int, str]:
    if params is None:
        return {}
    items = params.named_parameters() if hasattr(params, "named_parameters") else params.items()
    return {id(p): name for name, p in items}


def build_dot(outputs: Any, params: Any = None, show_saved: bool = True, show_grads: bool = True,
              collapse: Any = None, rankdir: str = "TB", tensors: Any = None,
              recording: Recording | None = None, fold: bool = False) -> tuple[dict, list[str]]:
    """Graph attributes and the DOT body statements of a drawing (see ``viz.to_dot``)."""
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    order, leaves = _walk(outputs)
    last = latest_recording() if recording is None else None
    if last is not None:
        nodes = set(order)
        if any(n in nodes for n, _ in last.meta) or any(n in nodes for c in last.calls
                                                        for n in c.nodes):
            recording = last
    meta: dict[tuple, tuple] = dict(recording.meta) if recording else {}
    grads: dict[tuple, GradStats] = dict(recording.grads) if recording else {}
    names: dict[tuple, str] = {}
    if isinstance(tensors, dict):
        named = list(tensors.items())
    else:
        named = [(f"t{i}", t) for i, t in enumerate(tensors or ())]
    for name, t in named + [("", t) for t in outputs]:
        if t.grad_fn is not None:
            key = (t.grad_fn, t._output_nr)
            meta[key] = (t._data.shape, t._data.dtype)
            if name:
                names.setdefault(key, name)
            if t._grad is not None:
                grads[key] = grad_stats(t._grad)
    for node in order:
        for nr, m in enumerate(getattr(node, "_output_meta", None) or ()):
            if m is not None:
                meta.setdefault((node, nr), m)
    _infer_shapes(order, meta)

    b = _Builder(show_grads)
    key_of: dict[Any, str] = {}
    param_names = _param_names(params)
    for i, leaf in enumerate(leaves):
        key_of[id(leaf)] = k = f"leaf{i}"
        name = param_names.get(id(leaf))
        n_leaf_hooks = len(leaf._backward_hooks or ()) + len(leaf._post_accumulate_hooks or ())
        b.add(k, "param" if name else "input",
              [name or "input", _shape((leaf.shape, leaf._data.dtype))],
              grad_stats(leaf._grad) if leaf._grad is not None else None,
              f"hooks: {n_leaf_hooks}" if n_leaf_hooks else "")
    raw_edges: list[tuple[Any, str]] = []
    owner = (innermost_module_names(recording, _module_names(params))
             if recording is not None and collapse is None and not fold else {})
    for i, node in enumerate(order):
        key_of[node] = k = f"op{i}"
        lines = [node.name()] + ([f"in {owner[node]}"] if node in owner else [])
        for nr in range(node.n_outputs):
            if (node, nr) in names:
                lines.append(f"= {names[(node, nr)]}")
            if (node, nr) in meta:
                lines.append(("" if node.n_outputs == 1 else f"[{nr}] ") + _shape(meta[(node, nr)]))
        if show_saved:
            lines += _saved_lines(node, recording)
        hook_list = [h for d in (node._tensor_hooks or {}).values() for h in d.values()]
        n_hooks = sum(not isinstance(h, RetainGradHook) for h in hook_list)
        hooks = ", ".join(s for s in (f"hooks: {n_hooks}" if n_hooks else "",
                                      "retain_grad" if len(hook_list) > n_hooks else "") if s)
        b.add(k, "op", lines, grads.get((node, 0)), hooks)
        raw_edges += [(e[0], k) for e in node.next_edges if e is not None]
    edges: dict[tuple[str, str], None] = {}
    for child, k in raw_edges:  # children come after their consumers in ``order``
        edges[(key_of[child if isinstance(child, Node) else id(child)], k)] = None
    for i, t in enumerate(outputs):
        k = f"out{i}"
        src = key_of.get(t.grad_fn if t.grad_fn is not None else id(t))
        b.add(k, "output", [names.get((t.grad_fn, t._output_nr), "output") if t.grad_fn else
                            "output", _shape((t.shape, t._data.dtype))],
              grad_stats(t._grad) if t._grad is not None and t.grad_fn is not None else None)
        if src is not None:
            edges[(src, k)] = None

    groups = group_modules(collapse, fold, recording, key_of, leaves, params,
                           _module_names(params), b, meta, grads, order)
    body = groups.apply(edges)
    lo, hi = b._scale()
    statements = groups.statements(lambda keys: b.node_statements(keys, lo, hi))
    statements += [f"{a} -> {c}" for a, c in body]
    statements += b.legend(lo, hi)
    graph_attr = {"rankdir": rankdir, "nodesep": "0.25", "ranksep": "0.35"}
    return graph_attr, statements
