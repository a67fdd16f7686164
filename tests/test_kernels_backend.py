"""The compiled-kernel backend switch and the on-disk kernel cache (``tinygrad_lite/_kernels``).

The cache is exercised with a small kernel source in a temporary cache directory: written under
its content hash, imported from there with numba's own cache beside it, reused by a second
process without compiling, and rewritten when the file in the entry is damaged.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tinygrad_lite import _kernels
from tinygrad_lite._kernels import cache

numba = pytest.importorskip("numba")

SOURCE = textwrap.dedent("""
    import numba

    @numba.njit(cache=True)
    def scaled_sum(x, scale):
        total = 0.0
        for i in range(x.size):
            total += x[i] * scale
        return total
""")


def test_backend_follows_the_environment_and_set_backend(monkeypatch):
    # (the environment is read once; set_backend(None) reads it again)
    monkeypatch.setenv("TINYGRAD_LITE_KERNELS", "numpy")
    _kernels.set_backend(None)
    assert _kernels.backend() == "numpy"
    assert _kernels.family("anything") is None  # the reference path runs
    monkeypatch.setenv("TINYGRAD_LITE_KERNELS", "numba")
    assert _kernels.backend() == "numpy"  # not read again on its own
    _kernels.set_backend(None)
    assert _kernels.backend() == "numba"
    with _kernels.use_backend("numpy"):
        assert _kernels.backend() == "numpy"
    assert _kernels.backend() == "numba"
    monkeypatch.setenv("TINYGRAD_LITE_KERNELS", "cuda")
    _kernels.set_backend(None)
    with pytest.raises(ValueError, match="TINYGRAD_LITE_KERNELS='cuda'"):
        _kernels.backend()
    monkeypatch.delenv("TINYGRAD_LITE_KERNELS")
    _kernels.set_backend(None)
    with pytest.raises(ValueError, match="expected one of numba, numpy"):
        _kernels.set_backend("llvm")
    monkeypatch.undo()  # the suite's own environment (CI runs some files with =numpy) back
    _kernels.set_backend(None)


def test_cache_dir_follows_xdg_and_the_override(monkeypatch, tmp_path):
    monkeypatch.delenv("TINYGRAD_LITE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "tinygrad_lite" / "kernels"
    monkeypatch.setenv("TINYGRAD_LITE_CACHE_DIR", str(tmp_path / "mine"))
    assert cache.cache_dir() == tmp_path / "mine" / "kernels"


def _load_in_subprocess(cache_root: Path) -> str:
    """Load SOURCE in a fresh process; print its result and numba's cache hits and misses."""
    script = textwrap.dedent(f"""
        import numpy as np
        from tinygrad_lite._kernels import cache
        module = cache.load_source("scaled", {SOURCE!r})
        value = module.scaled_sum(np.arange(4.0), 0.5)
        stats = module.scaled_sum.stats
        print(value, sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
    """)
    env = {**os.environ, "TINYGRAD_LITE_CACHE_DIR": str(cache_root)}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_a_kernel_is_compiled_once_and_reused_from_disk(tmp_path):
    value, hits, misses = _load_in_subprocess(tmp_path)
    assert float(value) == 3.0 and (hits, misses) == ("0", "1")
    entries = list((tmp_path / "kernels").iterdir())
    assert len(entries) == 1 and entries[0].name.startswith("scaled-")
    # numba's index and compiled code sit beside the source, in the entry
    assert list(entries[0].rglob("*.nbi")) and list(entries[0].rglob("*.nbc"))
    value, hits, misses = _load_in_subprocess(tmp_path)
    assert float(value) == 3.0 and (hits, misses) == ("1", "0")


def test_a_damaged_entry_is_rebuilt_not_trusted(tmp_path):
    _load_in_subprocess(tmp_path)
    entry = next((tmp_path / "kernels").iterdir())
    for compiled in entry.rglob("*.nbc"):  # a truncated or overwritten compiled file
        compiled.write_bytes(b"\x00garbage")
    value, hits, misses = _load_in_subprocess(tmp_path)
    assert float(value) == 3.0 and misses == "1"
    value, hits, misses = _load_in_subprocess(tmp_path)  # the rebuilt file is good again
    assert float(value) == 3.0 and (hits, misses) == ("1", "0")
    source_file = next(entry.glob("*.py"))
    source_file.write_text("this is not python\n")  # a damaged or half-written source
    value, _, _ = _load_in_subprocess(tmp_path)
    assert float(value) == 3.0
    assert source_file.read_text() == SOURCE


def test_the_entry_name_changes_with_the_source_and_the_toolchain():
    assert cache.entry_key(SOURCE) == cache.entry_key(SOURCE)
    assert cache.entry_key(SOURCE) != cache.entry_key(SOURCE + "\n# another kernel\n")
    assert numba.__version__ in cache._toolchain()


def test_a_family_that_cannot_load_falls_back_with_one_warning(monkeypatch, tmp_path):
    monkeypatch.setenv("TINYGRAD_LITE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_kernels, "SOURCE_DIR", tmp_path)
    (tmp_path / "broken.py").write_text("import numba\nraise ImportError('no LLVM here')\n")
    monkeypatch.setitem(_kernels._state, "families", {})
    with _kernels.use_backend("numba"), pytest.warns(RuntimeWarning, match="'broken'.*NumPy"):
        assert _kernels.family("broken") is None
    with _kernels.use_backend("numba"):
        assert _kernels.family("broken") is None  # remembered: no second warning
