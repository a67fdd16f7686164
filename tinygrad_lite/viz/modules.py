"""Module clusters and folding for drawings: which drawn nodes each recorded module call made.

``collapse="modules"`` selects every recorded module call, a list of modules selects their
calls. Selected calls are drawn as nested, labelled clusters; with ``fold=True`` the innermost
selected calls (those holding no other selected call: the layers) each become one node, so a
graph of thousands of ops reads as a diagram of layers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .recording import ModuleCall, Recording

__all__ = ["group_modules", "Groups", "innermost_module_names"]


class Groups:
    """Where each drawn item goes: ``fold_map`` (item -> folded node), ``cluster_of`` (item ->
    cluster index), ``clusters`` (index -> (label, parent index or None))."""

    def __init__(self, items: dict) -> None:
        self.items = items
        self.fold_map: dict[str, str] = {}
        self.cluster_of: dict[str, int] = {}
        self.clusters: list[tuple[str, int | None]] = []

    def apply(self, edges: dict) -> list[tuple[str, str]]:
        """The edges after folding: renamed, without self-loops and duplicates."""
        out: dict[tuple[str, str], None] = {}
        for a, b in edges:
            a, b = self.fold_map.get(a, a), self.fold_map.get(b, b)
            if a != b:
                out[(a, b)] = None
        return list(out)

    def statements(self, node_statements: Callable[[list[str]], list[str]]) -> list[str]:
        """Node statements, nested in ``subgraph cluster_N { ... }`` blocks."""
        keys = [k for k in self.items if k not in self.fold_map]
        by_cluster: dict[int | None, list[str]] = {}
        for k in keys:
            by_cluster.setdefault(self.cluster_of.get(k), []).append(k)
        children: dict[int | None, list[int]] = {}
        for i, (_, parent) in enumerate(self.clusters):
            children.setdefault(parent, []).append(i)

        def block(cid: int | None, depth: int) -> list[str]:
            lines = node_statements(by_cluster.get(cid, []))
            for child in children.get(cid, []):
                label = self.clusters[child][0].replace('"', "'")
                colour = ("#4a6fa5", "#6a9f58", "#a5694a", "#7a5aa5")[depth % 4]
                lines += [f"subgraph cluster_m{child} {{",
                          f'label="{label}"; style="rounded,dashed"; color="{colour}"; '
                          f'fontcolor="{colour}"; fontsize=12;',
                          *block(child, depth + 1), "}"]
            return lines

        return block(None, 0)


def innermost_module_names(recording: Recording, names: dict[int, str]) -> dict:
    """``node -> qualified name`` of the innermost named module call that created it, so that a
    drawing without clusters can still tell ``conv1`` from ``conv2``."""
    owner: dict = {}
    for call in sorted(recording.calls, key=lambda c: c.depth):  # deeper calls overwrite
        name = names.get(id(call.module))
        if name:
            for node in call.nodes:
                owner[node] = name
    return owner


def _call_label(call: ModuleCall, names: dict[int, str], counts: dict[int, int]) -> str:
    kind = type(call.module).__name__
    name = names.get(id(call.module))
    label = f"{name}: {kind}" if name else kind
    counts[id(call.module)] = n = counts.get(id(call.module), 0) + 1
    return label if n == 1 else f"{label} (call {n})"


def group_modules(collapse: Any, fold: bool, recording: Recording | None, key_of: dict,
                  leaves: list, params: Any, names: dict[int, str], builder: Any, meta: dict,
                  grads: dict, order: list) -> Groups:
    """Work out clusters and folded nodes for ``collapse`` (see the module docstring)."""
    groups = Groups(builder.items)
    if collapse is None:
        if not fold:
            return groups
        collapse = "modules"  # folding means one node per layer: it needs the module calls
    if recording is None or not recording.calls:
        raise ValueError(
            f"collapse={collapse!r} needs the module calls recorded: run the forward pass inside "
            "`with tl.viz.record() as rec:` (and pass recording=rec, or draw right after it)"
        )
    if isinstance(collapse, str):
        if collapse != "modules":
            raise ValueError(f"collapse must be None, 'modules' or a list of modules, got "
                             f"{collapse!r}")
        wanted = None
    else:
        wanted = {id(m) for m in collapse}
    leaf_ids = {id(t) for t in leaves}
    counts: dict[int, int] = {}
    calls = []  # (call, label, set of drawn keys)
    for call in sorted(recording.calls, key=lambda c: c.depth):
        if wanted is not None and id(call.module) not in wanted:
            continue
        keys = {key_of[n] for n in call.nodes if n in key_of}
        if not keys:
            continue
        label = _call_label(call, names, counts)
        calls.append((call, label, keys, frozenset(keys)))
    # Leaves go to the calls of the modules that own them (only directly, for clusters).
    taken: set[int] = set()
    for call, _, keys, _ops in sorted(calls, key=lambda c: -c[0].depth):
        for p in call.module.parameters(recurse=fold):
            if id(p) in leaf_ids and id(p) not in taken:
                taken.add(id(p))
                keys.add(key_of[id(p)])

    def inside(inner: tuple, outer: tuple) -> bool:
        # by the ops alone: a container owns no parameters of its layers directly
        return inner is not outer and inner[0].depth > outer[0].depth and inner[3] <= outer[3]

    folded = [c for c in calls if fold and not any(inside(o, c) for o in calls)]
    clustered = [c for c in calls if not any(c is f for f in folded)]
    for j, (call, label, keys, ops) in enumerate(folded):
        new = f"mod{j}"
        for k in keys:
            groups.fold_map[k] = new
        lines = [label]
        lines += [f"{tuple(s)} {d}" for s, d in call.outputs.values()]
        n_params = sum(int(p._data.size) for p in call.module.parameters())
        if n_params:
            lines.append(f"{n_params:,} parameters")
        lines.append(f"{len(ops)} op" + ("s" if len(ops) > 1 else ""))
        stats = next((grads[k] for k in call.outputs if k in grads), None)
        builder.add(new, "module", lines, stats)
    for i, c in enumerate(clustered):
        parents = [p for p in clustered[:i] if inside(c, p)]
        parent = clustered.index(max(parents, key=lambda p: p[0].depth)) if parents else None
        groups.clusters.append((c[1], parent))
    for i, (_call, _label, keys, _ops) in enumerate(clustered):  # deeper calls come later and win
        for k in keys:
            groups.cluster_of[groups.fold_map.get(k, k)] = i
    return groups
