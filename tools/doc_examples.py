"""Run the examples in PyTorch's own docstrings against tinygrad_lite and compare the results.

PyTorch's docstrings (``torch.*``, ``Tensor``, ``nn``, ``nn.functional``, ``linalg``,
``special``, ``distributions``) carry ``>>>`` examples. Each docstring's examples run twice,
each time in a fresh process that sees only one library as ``torch``: once with PyTorch, once
with ``tinygrad_lite`` behind the name ``torch`` (an import alias, so ``import torch.nn as nn``
in an example works too). Both runs seed the default generator with 0 before each docstring,
as a reader who runs the example would after ``torch.manual_seed(0)``. A *block* is one run of
consecutive examples in a docstring; it **agrees** when tinygrad_lite runs it without an error
and every value it shows (an expression whose output the docstring prints) equals PyTorch's:
tensors in dtype, shape and values (to float32's precision), numbers, tuples and sizes.

Blocks PyTorch itself cannot run on a CPU (CUDA, missing files, network) or that show complex
values do not count. The blocks that run but differ are listed, with a reason each, under
``documented_examples`` in ``tests/data/api_out_of_scope.json``; this tool says which
differences are not listed there (and exits 1 with ``--check``), and which listed ones now
agree.

    .venv/bin/python tools/doc_examples.py [--namespaces torch,torch.nn] [--show] [--check]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import importlib.abc
import importlib.util
import io
import json
import math
import os
import pickle
import re
import signal
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT_OF_SCOPE = ROOT / "tests" / "data" / "api_out_of_scope.json"
NAMESPACES = ("torch", "torch.Tensor", "torch.nn", "torch.nn.functional", "torch.linalg",
              "torch.special", "torch.distributions")
SECONDS_PER_DOCSTRING = 120


# -- collecting the examples (in the parent, which has PyTorch) -------------------------------

def collect(namespaces: tuple[str, ...]) -> list[dict]:
    """Every docstring with examples: ``{"id", "blocks": [[source, ...], ...],
    "shows": [[what, ...], ...]}`` (``what``: "value" where the docstring prints the
    example's value, which is then compared; "raises" where it prints a traceback; "")."""
    import torch  # noqa: F401 - the namespaces below are its attributes
    docstrings = []
    seen: set[str] = set()  # (the text: a builtin makes a new string per __doc__ read)
    for space in namespaces:
        owner = (sys.modules["torch"].Tensor if space == "torch.Tensor"
                 else importlib.import_module(space))
        for name in sorted(dir(owner)):
            if name.startswith("_"):
                continue
            try:
                obj = getattr(owner, name)
            except Exception:  # noqa: BLE001 - a lazy attribute that fails to load
                continue
            doc = getattr(obj, "__doc__", None)
            if not isinstance(doc, str) or ">>>" not in doc or doc in seen:
                continue
            seen.add(doc)
            blocks = parse_blocks(doc)
            if blocks:
                docstrings.append({
                    "id": f"{space}.{name}",
                    "blocks": [[source for source, _ in block] for block in blocks],
                    "shows": [[shows for _, shows in block] for block in blocks]})
    return docstrings


def parse_blocks(doc: str) -> list[list[tuple[str, str]]]:
    """The ``>>>`` examples of a docstring as blocks of ``(source, shows)``. A block ends where
    prose stands between two examples (what an example prints is not prose). Indentation may
    vary from line to line, as it does in PyTorch's docstrings; ``xdoctest`` directives and
    examples marked to be skipped are left out."""
    blocks: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    source: list[str] | None = None
    output: list[str] = []
    prose = False

    def finish() -> None:
        nonlocal source, output
        if source is not None:
            text = "\n".join(source) + "\n"
            want = [line for line in output if line]
            shows = ("raises" if want and want[0].startswith("Traceback") else
                     "value" if want else "")
            if "doctest: +SKIP" not in text and not text.lstrip().startswith("# xdoctest"):
                current.append((text, shows))
        source, output = None, []

    for raw in doc.splitlines():
        line = raw.strip()
        text = line[4:] if line.startswith(">>> ") else line[3:]
        if (line.startswith(">>>") and source is not None and not output
                and (text[:1] in (" ", "\t") or source[-1].rstrip().endswith(":"))):
            source.append(text)  # a body written with ">>>" prompts, as some docstrings do
        elif line.startswith(">>>"):
            finish()
            if prose and current:
                blocks.append(current)
                current = []
            prose = False
            source = [line[4:] if line.startswith(">>> ") else line[3:]]
        elif line.startswith("...") and source is not None and not output:
            source.append(line[4:] if line.startswith("... ") else line[3:])
        elif source is not None and line:
            output.append(line)
        elif source is not None:  # a blank line ends an example's output
            finish()
        elif line:
            prose = True
    finish()
    if current:
        blocks.append(current)
    return blocks


# -- running them (in a worker that sees one library as ``torch``) ----------------------------

class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import torch`` and ``import torch.x.y`` give ``tinygrad_lite`` and
    ``tinygrad_lite.x.y``."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname == "torch" or fullname.startswith("torch."):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec: Any) -> Any:
        return importlib.import_module("tinygrad_lite" + spec.name[len("torch"):])

    def exec_module(self, module: Any) -> None:
        pass


class _TimeoutError(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _TimeoutError(f"longer than {SECONDS_PER_DOCSTRING} s")


def _plain(value: Any, lib: Any, depth: int = 0) -> Any:
    """A library-neutral form of a shown value, for comparison across processes."""
    if depth > 4:
        return ("other", type(value).__name__)
    if getattr(value, "is_sparse", False) is True and hasattr(value, "to_dense"):
        value = value.to_dense()  # (a sparse tensor here is a class of its own)
    if isinstance(value, lib.Tensor):
        dtype = str(value.dtype).split(".")[-1]
        data = value.detach()
        if dtype == "bfloat16":
            data = data.float()
        try:
            array = data.numpy()
        except Exception:  # noqa: BLE001 - e.g. a meta tensor
            return ("tensor", dtype, tuple(value.shape), None)
        return ("tensor", dtype, tuple(value.shape), array.copy())
    if isinstance(value, (bool, int, float, complex, str)) or value is None:
        return ("scalar", value)
    if isinstance(value, (tuple, list)):
        return ("sequence", [_plain(v, lib, depth + 1) for v in value])
    if isinstance(value, dict):
        return ("mapping", {str(k): _plain(v, lib, depth + 1) for k, v in value.items()})
    if isinstance(value, (lib.dtype, lib.device)):
        return ("text", str(value).replace("tinygrad_lite", "torch"))
    return ("other", type(value).__name__)


_UNINITIALISED = re.compile(r"\bempty(?:_strided|_like)?\(|\bnew_empty(?:_strided)?\(")


def _run_example(source: str, namespace: dict, show: str, lib: Any) -> Any:
    """Run one example; the plain form of its value when it is an expression the docstring
    shows (or whether it raised, where the docstring shows a traceback), else None."""
    if show == "raises":
        try:
            exec(compile(source, "<example>", "single"), namespace)
        except Exception as error:  # noqa: BLE001 - the expected outcome
            return ("raised", type(error).__name__)
        return ("raised", None)
    tree = ast.parse(source)
    last = tree.body[-1] if tree.body else None
    if show == "value" and isinstance(last, ast.Expr):
        head = ast.Module(body=tree.body[:-1], type_ignores=[])
        exec(compile(head, "<example>", "exec"), namespace)
        value = eval(compile(ast.Expression(last.value), "<example>", "eval"), namespace)
        plain = _plain(value, lib)
        if _UNINITIALISED.search(namespace.get("__block_source__", "")) and plain[0] == "tensor":
            # empty() and friends show whatever was in memory: compare the dtype and shape
            plain = plain[:3] + (None,)
        return plain
    exec(compile(tree, "<example>", "exec"), namespace)
    return None


def _reset(lib: Any) -> None:
    """Undo what an earlier docstring's example may have set for the whole process."""
    lib.set_default_dtype(lib.float32)
    if hasattr(lib, "set_default_device"):
        lib.set_default_device(None)
    lib.set_grad_enabled(True)
    lib.set_printoptions(profile="default")


def work(library: str, docstrings_file: str, results_file: str) -> None:
    """The worker: run every docstring's blocks with ``library`` as ``torch``."""
    if library == "tinygrad_lite":
        sys.meta_path.insert(0, _AliasFinder())
    import numpy as np
    lib = importlib.import_module("torch")
    docstrings = json.loads(Path(docstrings_file).read_text())
    warnings.simplefilter("ignore")
    signal.signal(signal.SIGALRM, _alarm)
    results: dict[str, list] = {}
    distributions = importlib.import_module("torch.distributions")
    for doc in docstrings:
        _reset(lib)  # an example may change process-wide defaults (device, dtype, grad mode)
        lib.manual_seed(0)
        np.random.seed(0)
        namespace: dict = {"torch": lib, "nn": lib.nn, "F": lib.nn.functional, "np": np,
                           "numpy": np, "math": math}
        if doc["id"].startswith("torch.distributions."):  # their examples name the classes
            namespace.update({name: getattr(distributions, name)
                              for name in dir(distributions) if name[:1].isupper()})
        outcome = []
        broken = None
        signal.alarm(SECONDS_PER_DOCSTRING)
        try:
            for sources, shows in zip(doc["blocks"], doc["shows"]):
                if broken is not None:  # a later block would see a half-run namespace
                    outcome.append(("skipped", broken))
                    continue
                values = []
                namespace["__block_source__"] = "".join(sources)
                try:
                    with contextlib.redirect_stdout(io.StringIO()):
                        for source, show in zip(sources, shows):
                            values.append(_run_example(source, namespace, show, lib))
                    outcome.append(("ran", values))
                except _TimeoutError:
                    raise
                except BaseException as error:  # noqa: BLE001 - reported, not raised
                    message = f"{type(error).__name__}: {str(error)[:300]}"
                    outcome.append(("error", message, len(values)))
                    broken = message
        except _TimeoutError as error:
            outcome.append(("error", f"timeout: {error}", 0))
        finally:
            signal.alarm(0)
        results[doc["id"]] = outcome
    with open(results_file, "wb") as handle:
        pickle.dump(results, handle)


# -- comparing -----------------------------------------------------------------------------

def _has_complex(value: Any) -> bool:
    kind = value[0] if isinstance(value, tuple) and value else None
    if kind == "tensor":
        return value[1].startswith("complex") or value[1].startswith("c")
    if kind == "scalar":
        return isinstance(value[1], complex)
    if kind == "sequence":
        return any(_has_complex(v) for v in value[1])
    if kind == "mapping":
        return any(_has_complex(v) for v in value[1].values())
    return False


def _differs(ours: Any, theirs: Any) -> str | None:
    """Why two shown values differ, or None when they agree."""
    import numpy as np
    if theirs is None or theirs[0] == "other":
        return None  # not compared (a module, a distribution, ...)
    if ours is None or ours[0] != theirs[0]:
        return f"shows {ours[0] if ours else None} where PyTorch shows {theirs[0]}"
    kind = theirs[0]
    if kind == "raised":  # the exception's class may be PyTorch's own; that one is raised counts
        if (ours[1] is None) != (theirs[1] is None):
            return "raises nothing where PyTorch raises" if ours[1] is None else \
                f"raises {ours[1]} where PyTorch raises nothing"
        return None
    if kind == "tensor":
        _, dtype, shape, array = theirs
        if ours[1] != dtype:
            return f"dtype {ours[1]} where PyTorch has {dtype}"
        if tuple(ours[2]) != tuple(shape):
            return f"shape {tuple(ours[2])} where PyTorch has {tuple(shape)}"
        if array is None or ours[3] is None:
            return None
        a, b = np.asarray(ours[3]), np.asarray(array)
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            ok = np.allclose(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64),
                             b.astype(np.complex128 if b.dtype.kind == "c" else np.float64),
                             rtol=2e-5, atol=1e-6, equal_nan=True)
        else:
            ok = np.array_equal(a, b)
        if not ok:
            return "values differ"
        return None
    if kind == "scalar":
        a, b = ours[1], theirs[1]
        if isinstance(b, float) and isinstance(a, (int, float)) and not isinstance(a, bool):
            return None if math.isclose(a, b, rel_tol=2e-5, abs_tol=1e-6) or (
                math.isnan(a) and math.isnan(b)) else f"{a!r} where PyTorch has {b!r}"
        if type(a) is not type(b) and not (isinstance(a, int) and isinstance(b, int)):
            return f"{type(a).__name__} where PyTorch has {type(b).__name__}"
        return None if a == b else f"{a!r} where PyTorch has {b!r}"
    if kind == "sequence":
        if len(ours[1]) != len(theirs[1]):
            return f"{len(ours[1])} items where PyTorch has {len(theirs[1])}"
        for i, (a, b) in enumerate(zip(ours[1], theirs[1])):
            why = _differs(a, b)
            if why:
                return f"item {i}: {why}"
        return None
    if kind == "mapping":
        if set(ours[1]) != set(theirs[1]):
            return "other keys"
        for key in theirs[1]:
            why = _differs(ours[1][key], theirs[1][key])
            if why:
                return f"key {key}: {why}"
        return None
    return None if ours[1] == theirs[1] else f"{ours[1]!r} where PyTorch has {theirs[1]!r}"


# a block that builds complex values shows them sooner or later (or feeds them to an op)
_COMPLEX = re.compile(r"\bc(?:float|double|half)\b|complex(?:32|64|128)?\b|\b\d+(?:\.\d*)?j\b|"
                      r"view_as_complex|\bpolar\(")


def compare(docstrings: list[dict], ours: dict, theirs: dict) -> dict[str, dict]:
    """Each block's verdict: ``{"status": "agrees" | "differs" | "not runnable" | "complex",
    "why": ...}``, keyed ``<docstring id>#<block>``."""
    verdicts = {}
    for doc in docstrings:
        for k, (mine, ref) in enumerate(zip(ours.get(doc["id"], []), theirs.get(doc["id"], []))):
            key = f"{doc['id']}#{k}"
            if ref[0] != "ran":
                verdicts[key] = {"status": "not runnable", "why": f"PyTorch: {ref[1]}"}
                continue
            if any(_has_complex(v) for v in ref[1]) or _COMPLEX.search("".join(doc["blocks"][k])):
                verdicts[key] = {"status": "complex", "why": "shows complex values"}
                continue
            if mine[0] != "ran":
                verdicts[key] = {"status": "differs", "why": f"raises {mine[1]}"}
                continue
            why = next((f"example {i + 1}: {w}" for i, (a, b) in enumerate(zip(mine[1], ref[1]))
                        if (w := _differs(a, b))), None)
            verdicts[key] = {"status": "differs", "why": why} if why else {"status": "agrees"}
    return verdicts


def _run_worker(library: str, docstrings_file: str) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".pkl", delete=False) as handle:
        results_file = handle.name
    try:
        env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
        # examples write files (torch.save, tofile): in a directory of their own
        with tempfile.TemporaryDirectory(prefix="doc-examples-") as scratch:
            subprocess.run([sys.executable, __file__, "--worker", library, docstrings_file,
                            results_file], check=True, env=env, cwd=scratch)
        with open(results_file, "rb") as handle:
            return pickle.load(handle)
    finally:
        Path(results_file).unlink(missing_ok=True)


def listed_differences() -> dict[str, str]:
    """The documented differences: block id -> reason."""
    data = json.loads(OUT_OF_SCOPE.read_text())
    return {entry["block"]: entry["reason"] for entry in data.get("documented_examples", [])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--namespaces", default=",".join(NAMESPACES))
    parser.add_argument("--show", action="store_true", help="print every differing block")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when a block differs without being listed")
    parser.add_argument("--json", help="write every verdict to this file")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        work(*args.worker)
        return 0
    docstrings = collect(tuple(args.namespaces.split(",")))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(docstrings, handle)
        docstrings_file = handle.name
    try:
        theirs = _run_worker("torch", docstrings_file)
        ours = _run_worker("tinygrad_lite", docstrings_file)
    finally:
        Path(docstrings_file).unlink(missing_ok=True)
    verdicts = compare(docstrings, ours, theirs)
    counts: dict[str, int] = {}
    for verdict in verdicts.values():
        counts[verdict["status"]] = counts.get(verdict["status"], 0) + 1
    runnable = counts.get("agrees", 0) + counts.get("differs", 0)
    listed = listed_differences()
    differing = {k: v for k, v in verdicts.items() if v["status"] == "differs"}
    unlisted = sorted(k for k in differing if k not in listed)
    stale = sorted(k for k in listed if verdicts.get(k, {}).get("status") == "agrees")
    print(f"{len(docstrings)} docstrings, {len(verdicts)} example blocks: {runnable} runnable "
          f"on a CPU without complex values ({counts.get('not runnable', 0)} not runnable by "
          f"PyTorch here, {counts.get('complex', 0)} complex)")
    print(f"agree: {counts.get('agrees', 0)} of {runnable} "
          f"({100 * counts.get('agrees', 0) / max(runnable, 1):.1f} %); differ: "
          f"{len(differing)} ({len(differing) - len(unlisted)} listed with a reason, "
          f"{len(unlisted)} not listed)")
    if stale:
        print(f"listed but agreeing now (remove from the list): {', '.join(stale)}")
    for key in sorted(differing) if args.show else unlisted:
        print(f"  {key}: {differing[key]['why']}"
              + (f"   [listed: {listed[key]}]" if key in listed else ""))
    if args.json:
        Path(args.json).write_text(json.dumps(verdicts, indent=1, sort_keys=True))
    return 1 if args.check and unlisted else 0


if __name__ == "__main__":
    sys.exit(main())
