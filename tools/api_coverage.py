"""Print how much of PyTorch's public API tinygrad_lite provides, per module.

Reads the checked-in lists (no torch needed): ``tests/data/torch_api.json`` (PyTorch's public
names, written by ``tools/list_torch_api.py``) and ``tests/data/api_out_of_scope.json`` (the
names deliberately not provided, each group with its reason). A name is covered when the
mirroring tinygrad_lite object has it (``hasattr``); coverage is covered / in scope, in scope
being every listed name that is not out of scope.

    .venv/bin/python tools/api_coverage.py [--missing] [--module torch.Tensor]
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"


@dataclass
class Coverage:
    """One module's numbers: the names covered, missing and out of scope."""

    module: str
    covered: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    out_of_scope: list[str] = field(default_factory=list)

    @property
    def in_scope(self) -> int:
        """How many names count: covered + missing."""
        return len(self.covered) + len(self.missing)

    @property
    def percent(self) -> float:
        """Covered share of the in-scope names, in percent."""
        return 100.0 * len(self.covered) / self.in_scope if self.in_scope else 100.0


def load_api() -> dict[str, Any]:
    """The checked-in list of PyTorch's names (``torch_version`` and ``modules``)."""
    return json.loads((DATA / "torch_api.json").read_text())


def load_out_of_scope() -> list[dict[str, Any]]:
    """The out-of-scope groups: ``id``, ``reason``, ``names`` and ``prefixes`` per module."""
    return json.loads((DATA / "api_out_of_scope.json").read_text())["groups"]


def mirror(module: str) -> Any:
    """The tinygrad_lite object that mirrors a torch module name (None when there is none)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import tinygrad_lite as tl

    if module == "torch":
        return tl
    if module == "torch.Tensor":
        return tl.Tensor
    try:
        return importlib.import_module("tinygrad_lite" + module[len("torch"):])
    except ImportError:
        return None


def out_of_scope_group(groups: list[dict[str, Any]], module: str, name: str) -> str | None:
    """The id of the group that puts ``module.name`` out of scope, or None."""
    for g in groups:
        if name in g.get("names", {}).get(module, ()):
            return g["id"]
        if any(name.startswith(p) for p in g.get("prefixes", {}).get(module, ())):
            return g["id"]
    return None


def has_name(obj: Any, name: str) -> bool:
    """``hasattr``, quietly: deprecated aliases may warn on access."""
    if obj is None:
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return hasattr(obj, name)


def measure() -> list[Coverage]:
    """Coverage of every module of the list, in the list's order."""
    groups = load_out_of_scope()
    result = []
    for module, names in load_api()["modules"].items():
        cov = Coverage(module)
        target = mirror(module)
        for name in names:
            if has_name(target, name):
                cov.covered.append(name)
            elif out_of_scope_group(groups, module, name):
                cov.out_of_scope.append(name)
            else:
                cov.missing.append(name)
        result.append(cov)
    return result


def table(coverages: list[Coverage], missing: bool = True) -> str:
    """A Markdown table of the coverage, then each module's missing names."""
    lines = ["| module | covered | in scope | % | out of scope |", "|---|---:|---:|---:|---:|"]
    for c in coverages:
        lines.append(f"| {c.module} | {len(c.covered)} | {c.in_scope} | {c.percent:.1f} | "
                     f"{len(c.out_of_scope)} |")
    covered = sum(len(c.covered) for c in coverages)
    in_scope = sum(c.in_scope for c in coverages)
    lines.append(f"| all | {covered} | {in_scope} | {100.0 * covered / in_scope:.1f} | "
                 f"{sum(len(c.out_of_scope) for c in coverages)} |")
    if missing:
        for c in coverages:
            if c.missing:
                lines += ["", f"missing in {c.module} ({len(c.missing)}): " + " ".join(c.missing)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--no-missing", action="store_true", help="only the table")
    p.add_argument("--module", action="append", help="only these modules (repeatable)")
    args = p.parse_args(argv)
    coverages = [c for c in measure() if not args.module or c.module in args.module]
    print(f"PyTorch {load_api()['torch_version']} public API covered by tinygrad_lite\n")
    print(table(coverages, missing=not args.no_missing))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
