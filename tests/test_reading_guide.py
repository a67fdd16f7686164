"""docs/reading-guide.md stays true: the files of its reading path exist, each is about as long
as the guide says, and the whole path stays under the limit the guide states.

Tolerance: a file's real line count may differ from the stated one by at most 10 lines or 5%,
whichever is larger. A change beyond that means the guide's table (and its total) needs
updating, or the file has grown beyond what the guide promises a reader.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from tinygrad_lite._core.engine import run_backward

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "reading-guide.md"

TOLERANCE_LINES = 10
TOLERANCE_FRACTION = 0.05

# | 1 | `tinygrad_lite/_core/tensor_base.py` | 165 | what to look for |
ROW = re.compile(r"^\|\s*\d+\s*\|\s*`([^`]+)`\s*\|\s*([\d,]+)\s*\|")
TOTAL = re.compile(r"Path total: \*\*([\d,]+) lines\*\*")
LIMIT = re.compile(r"limit: \*\*([\d,]+) lines\*\*")


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _table() -> list[tuple[str, int]]:
    rows = []
    for line in GUIDE.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            rows.append((match.group(1), _number(match.group(2))))
    return rows


def _stated(pattern: re.Pattern) -> int:
    match = pattern.search(GUIDE.read_text(encoding="utf-8"))
    assert match, f"{GUIDE.name} states no {pattern.pattern!r}"
    return _number(match.group(1))


def _lines(path: str) -> int:
    return len((ROOT / path).read_text(encoding="utf-8").splitlines())


def test_the_table_lists_the_core_path():
    paths = [path for path, _ in _table()]
    for core in ("tinygrad_lite/_core/tensor_base.py", "tinygrad_lite/_core/graph.py",
                 "tinygrad_lite/_core/engine.py", "tinygrad_lite/autograd/function.py"):
        assert core in paths, f"{core} is missing from the reading path"
    assert any(path.startswith("tinygrad_lite/ops/") for path in paths), "no op on the path"


def test_each_file_exists_and_is_as_long_as_stated():
    for path, stated in _table():
        assert (ROOT / path).is_file(), f"{path}: listed in the guide but not found"
        real = _lines(path)
        tolerance = max(TOLERANCE_LINES, round(stated * TOLERANCE_FRACTION))
        assert abs(real - stated) <= tolerance, (
            f"{path}: the guide says {stated} lines, the file has {real} (tolerance "
            f"{tolerance}); update the table and the total in {GUIDE.name}"
        )


def test_the_stated_total_adds_up():
    assert _stated(TOTAL) == sum(stated for _, stated in _table())


def test_the_path_stays_under_the_limit():
    limit = _stated(LIMIT)
    real = sum(_lines(path) for path, _ in _table())
    assert real <= limit, f"the reading path is {real} lines, over the guide's limit of {limit}"
    assert _stated(TOTAL) <= limit


def test_run_backward_reads_as_its_algorithm():
    # The guide promises the engine's loop in about 45 lines, its special paths in named
    # helpers; a special case inlined into run_backward should go beside it instead.
    assert len(inspect.getsource(run_backward).splitlines()) <= 50
