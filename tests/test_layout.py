"""The package's layout: every module is named for the one concept it holds (never for when its
code arrived) and says which concept in the first line of its docstring; test files likewise."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Names that say when code was added rather than what it holds: "_more", "_extra", numbered
# files ("_more2", "catalog_3"), "_misc", "_only", "_rest", "_options", and the old tensor chain
CHRONOLOGICAL = re.compile(
    r"(_more\d*|_extra\d*|_misc|_only|_rest|_options|_fixes|_new|_v\d+|_\d+)$|^_tensor_api$"
    r"|^test_last_|^test_leftovers_")


def python_files(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def test_no_module_or_test_is_named_for_when_it_arrived():
    named = [str(p.relative_to(ROOT)) for folder in ("tinygrad_lite", "tests")
             for p in python_files(folder) if CHRONOLOGICAL.search(p.stem)]
    assert not named, "files named for when they arrived, not for what they hold:\n" + \
        "\n".join(named)


def test_the_checker_recognises_chronological_names():
    for stem in ("loss_more", "op_catalog_more2", "activation_extra", "_torch_misc",
                 "torch_only", "api_options", "_tensor_api", "test_last_names_lobpcg",
                 "test_leftovers_containers", "test_api_fixes"):
        assert CHRONOLOGICAL.search(stem), stem
    for stem in ("loss", "ctc_loss", "extra_repr", "more_itertools_free", "multinomial"):
        assert not CHRONOLOGICAL.search(stem), stem


def test_every_module_opens_with_a_docstring_naming_its_concept():
    missing = []
    for path in python_files("tinygrad_lite"):
        doc = ast.get_docstring(ast.parse(path.read_text()))
        first = (doc or "").strip().splitlines()[0] if doc and doc.strip() else ""
        if len(first.split()) < 2:
            missing.append(str(path.relative_to(ROOT)))
    assert not missing, "modules without a first docstring line naming their concept:\n" + \
        "\n".join(missing)
