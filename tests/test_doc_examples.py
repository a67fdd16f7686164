"""The doc-example harness (``tools/doc_examples.py``) on a part of PyTorch's docstrings: the
examples of ``torch.special`` and ``torch.linalg`` run with both libraries, and every block
that differs is one listed, with its reason, in ``tests/data/api_out_of_scope.json``. (The
whole run, 728 blocks, takes minutes: see the tool; its figure is in benchmarks/README.md.)"""

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
ROOT = Path(__file__).resolve().parent.parent


def test_special_and_linalg_examples_agree_or_are_listed():
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "doc_examples.py"), "--namespaces",
         "torch.special,torch.linalg", "--check"],
        capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    counts, verdict = result.stdout.splitlines()[:2]
    runnable = int(counts.split(": ")[1].split()[0])
    agree = int(verdict.split()[1])
    assert runnable >= 50 and agree >= runnable - 5, result.stdout  # the tool really ran them
    assert verdict.endswith("0 not listed)"), result.stdout
