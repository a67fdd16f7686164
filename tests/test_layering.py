"""The package's import graph: layers whose imports point down only, no cycles, no imports inside
function bodies (except optional third-party packages), every module-level import at the top,
and no module globals set from another module. Parsed from the source, so a violation fails here
before it can make ``import tinygrad_lite`` depend on the order in which modules happen to load.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

PACKAGE = "tinygrad_lite"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE

# Bottom up. A module belongs to the layer of its longest matching prefix; it may import from
# its own layer (without cycles) and from the layers below, never from a layer above.
LAYERS = [
    ("core", ["tinygrad_lite.dtypes", "tinygrad_lite._core", "tinygrad_lite._kernels",
              "tinygrad_lite.overrides"]),
    ("ops", ["tinygrad_lite.ops"]),
    ("functions", ["tinygrad_lite.functions"]),
    ("tensor", ["tinygrad_lite.tensor", "tinygrad_lite._tensor"]),
    ("autograd", ["tinygrad_lite.autograd"]),
    ("libraries", ["tinygrad_lite.nn", "tinygrad_lite.optim", "tinygrad_lite.utils",
                   "tinygrad_lite.serialization", "tinygrad_lite.distributed",
                   "tinygrad_lite.testing"]),
    ("viz", ["tinygrad_lite.viz"]),
    ("compiler", ["tinygrad_lite.compiler"]),
    ("package", ["tinygrad_lite"]),
]

# The interpreter's documented hook points, which a module may set (tl.distributed makes an
# uncaught exception on one rank abort all ranks instead of leaving them hanging).
INTERPRETER_HOOKS = {"sys.excepthook"}

# Modules allowed to set another module's attributes, and why.
PATCHERS = {
    # while tl.compile records one call, NumPy's creation and global random functions are
    # swapped for recording versions, and put back when the trace stops
    "tinygrad_lite.compiler.trace",
}

# Optional third-party packages: imported where used (inside functions), so that the package
# imports without them.
OPTIONAL = {"graphviz", "safetensors", "matplotlib", "tqdm", "mpi4py", "tensorboard", "torch",
            "threadpoolctl", "scipy", "ml_dtypes", "numba", "llvmlite"}



def module_name(path: Path) -> str:
    """``tinygrad_lite/nn/functional.py`` -> ``tinygrad_lite.nn.functional``."""
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def is_package(name: str) -> bool:
    """Whether ``name`` is a package (has an ``__init__.py``)."""
    return MODULES.get(name, Path()).name == "__init__.py"


def resolve(importer: str, node: ast.ImportFrom | ast.Import) -> list[str]:
    """The package modules an import statement loads (outside modules are left out)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == PACKAGE]
    if node.level:
        base = importer if is_package(importer) else importer.rpartition(".")[0]
        for _ in range(node.level - 1):
            base = base.rpartition(".")[0]
        base = f"{base}.{node.module}" if node.module else base
    else:
        base = node.module or ""
    if base.split(".")[0] != PACKAGE:
        return []
    targets = []
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        targets.append(sub if sub in MODULES else base)
    return targets


def with_parents(target: str, importer: str) -> list[str]:
    """``target`` and the packages Python initialises before it (those the importer is not
    already inside of), since importing ``a.b.c`` runs ``a/b/__init__.py`` first."""
    names = [target]
    parts = target.split(".")
    for i in range(2, len(parts)):
        parent = ".".join(parts[:i])
        if not (importer == parent or importer.startswith(parent + ".")):
            names.append(parent)
    return names


class ModuleFacts:
    """What one module's source says about its imports."""

    def __init__(self, name: str, path: Path) -> None:
        self.name = name
        self.tree = ast.parse(path.read_text(), str(path))
        self.edges: set[str] = set()
        self.function_imports: list[str] = []
        self.late_imports: list[str] = []
        self.foreign_assignments: list[str] = []
        self._collect()

    def _collect(self) -> None:
        imported_modules: set[str] = set()
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in resolve(self.name, node):
                    self.edges.update(with_parents(target, self.name))
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    if isinstance(node, ast.Import) or self._names_module(node, alias.name):
                        imported_modules.add(bound)
        self._scan_bodies(self.tree.body, inside_function=False)
        self._check_order()
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                            and t.value.id in imported_modules
                            and ast.unparse(t) not in INTERPRETER_HOOKS):
                        self.foreign_assignments.append(f"line {t.lineno}: {ast.unparse(t)}")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("setattr", "delattr") and node.args
                    and isinstance(node.args[0], ast.Name) and node.args[0].id in imported_modules):
                self.foreign_assignments.append(f"line {node.lineno}: {ast.unparse(node)}")

    def _names_module(self, node: ast.ImportFrom, name: str) -> bool:
        targets = resolve(self.name, ast.ImportFrom(module=node.module,
                                                    names=[ast.alias(name)], level=node.level))
        return bool(targets) and targets[0].endswith("." + name)

    def _scan_bodies(self, body: list, inside_function: bool) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                self._scan_bodies(node.body, inside_function=True)
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)) and inside_function:
                top = (node.names[0].name if isinstance(node, ast.Import)
                       else ("." if node.level else "") + (node.module or ""))
                if top.split(".")[0] not in OPTIONAL:
                    self.function_imports.append(f"line {node.lineno}: {ast.unparse(node)}")
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, field, None)
                if isinstance(inner, list):
                    self._scan_bodies(inner, inside_function)

    def _check_order(self) -> None:
        """Module-level imports come before any other statement (a docstring, ``__future__``
        and ``if TYPE_CHECKING:`` blocks of imports excepted)."""
        seen_code = False
        for i, node in enumerate(self.tree.body):
            is_docstring = (i == 0 and isinstance(node, ast.Expr)
                            and isinstance(node.value, ast.Constant))
            is_import = isinstance(node, (ast.Import, ast.ImportFrom)) or (
                isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
                and all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in node.body))
            if is_import and seen_code:
                self.late_imports.append(f"line {node.lineno}: {ast.unparse(node)[:80]}")
            elif not is_import and not is_docstring:
                seen_code = True


FACTS = {name: ModuleFacts(name, path) for name, path in MODULES.items()}


def layer_of(module: str) -> int:
    """The index in LAYERS of the layer ``module`` belongs to (longest prefix wins)."""
    best, best_len = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    return best


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a list of modules, or None (iterative DFS)."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    for start in graph:
        if start in state:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = 2
            elif state.get(child) == 1:
                return path[path.index(child):] + [child]
            elif child not in state and child in graph:
                state[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(graph[child]))))
    return None


def test_every_module_has_a_layer():
    assert all(layer_of(m) >= 0 for m in MODULES)
    assert layer_of("tinygrad_lite.ops.elementwise") == 1
    assert layer_of("tinygrad_lite.tensor") == 3


def test_imports_point_down_the_layers():
    upward = []
    for name, facts in FACTS.items():
        for target in facts.edges:
            if target in MODULES and layer_of(target) > layer_of(name):
                upward.append(f"{name} ({LAYERS[layer_of(name)][0]}) imports {target} "
                              f"({LAYERS[layer_of(target)][0]})")
    assert not upward, "imports pointing up the layers:\n" + "\n".join(sorted(upward))


def test_import_graph_has_no_cycle():
    graph = {name: {t for t in facts.edges if t in MODULES and t != name}
             for name, facts in FACTS.items()}
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_imports_inside_functions():
    found = [f"{name}: {line}" for name, f in FACTS.items() for line in f.function_imports]
    assert not found, "imports inside function bodies:\n" + "\n".join(found)


def test_module_level_imports_come_first():
    found = [f"{name}: {line}" for name, f in FACTS.items() for line in f.late_imports]
    assert not found, "module-level imports after code:\n" + "\n".join(found)


def test_no_module_global_is_set_from_another_module():
    found = [f"{name}: {line}" for name, f in FACTS.items() for line in f.foreign_assignments
             if name not in PATCHERS]
    assert not found, "assignments to another module's globals:\n" + "\n".join(found)


def test_the_checker_sees_violations(tmp_path):
    """The rules above fire on a module that breaks them (guards against a checker that
    silently finds nothing)."""
    source = ("import numpy as np\nx = 1\nfrom .. import tensor\n"
              "def f():\n    from . import common\n    import safetensors\n"
              "common.flag = True\nsetattr(common, 'other', 1)\n")
    path = tmp_path / "probe.py"
    path.write_text(source)
    facts = ModuleFacts("tinygrad_lite.ops._layering_probe", path)
    assert "tinygrad_lite.tensor" in facts.edges
    assert len(facts.late_imports) == 1 and "tensor" in facts.late_imports[0]
    assert len(facts.function_imports) == 1 and "common" in facts.function_imports[0]
    assert facts.foreign_assignments == ["line 7: common.flag",
                                         "line 8: setattr(common, 'other', 1)"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_any_module_can_be_imported_first(tmp_path):
    """Each module, imported first into a fresh package state, loads (no load-order luck).
    Importing ``tinygrad_lite.x`` runs the package's ``__init__`` first, so every module that
    ``import tinygrad_lite`` itself loads, imported first, does exactly what that import does:
    one fresh import of the package checks them all. Every other module is imported in a child
    forked right after that import, which is the state ``import tinygrad_lite.x`` reaches in a
    fresh interpreter just before it runs ``x`` (where there is no fork, each is imported from
    an emptied package state instead: the same check, about 5x slower)."""
    script = (
        "import importlib, os, sys, traceback\n"
        "def check(name):\n"
        "    importlib.import_module(name)\n"
        "    import tinygrad_lite\n"
        "    assert tinygrad_lite.tensor([1.0]).exp().sum().item() > 2.7, name\n"
        "def fresh():\n"
        "    for loaded in [m for m in sys.modules if m.split('.')[0] == 'tinygrad_lite']:\n"
        "        del sys.modules[loaded]\n"
        "import tinygrad_lite\n"
        "covered = {m for m in sys.modules if m.split('.')[0] == 'tinygrad_lite'}\n"
        "failed = []\n"
        "for name in sys.argv[1:]:\n"
        "    if name in covered:\n"
        "        continue\n"
        "    if not hasattr(os, 'fork'):\n"
        "        fresh()\n"
        "        check(name)\n"
        "        continue\n"
        "    sys.stdout.flush(); sys.stderr.flush()\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        try:\n"
        "            check(name)\n"
        "        except BaseException:\n"
        "            traceback.print_exc()\n"
        "            sys.stderr.flush()\n"
        "            os._exit(1)\n"
        "        os._exit(0)\n"
        "    if os.waitpid(pid, 0)[1] != 0:\n"
        "        failed.append(name)\n"
        "assert tinygrad_lite.tensor([1.0]).exp().sum().item() > 2.7\n"
        "assert not failed, failed\n"
    )
    # run() kills the interpreter if it times out, instead of leaving it running
    # (kernel sources are numba code that only the kernel cache loads, from a copy: see
    # tinygrad_lite/_kernels/cache.py; importing one needs the optional numba)
    importable = sorted(m for m in MODULES if not m.startswith("tinygrad_lite._kernels.source."))
    # the children share compiled bytecode through a private cache (with none, each compiles
    # every module it imports again: 2x slower), never written next to the sources
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path / "pycache")
    result = subprocess.run([sys.executable, "-c", script, *importable], cwd=ROOT.parent,
                            capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
