"""The on-disk kernel cache: kernel source is written under its content hash and imported from
there, so that numba's own cache (``cache=True``, which needs a real file) sits beside it.

The directory is ``$TINYGRAD_LITE_CACHE_DIR/kernels`` when that is set, else
``$XDG_CACHE_HOME/tinygrad_lite/kernels`` (``~/.cache/tinygrad_lite/kernels``). An entry's name
holds the hash of its source together with the numba, NumPy and Python versions and the CPU, so
an upgrade or another machine's cache is never used. A source file whose text is not what its
name promises (damaged, half-written) is rewritten; numba checks its compiled files against the
source and recompiles what does not match.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import numpy as np

__all__ = ["cache_dir", "entry_key", "load_source"]


def cache_dir() -> Path:
    """Where compiled kernels are kept (created on first use)."""
    override = os.environ.get("TINYGRAD_LITE_CACHE_DIR")
    if override:
        return Path(override).expanduser() / "kernels"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg).expanduser() / "tinygrad_lite" / "kernels"


def _toolchain() -> str:
    import llvmlite.binding as llvm
    import numba
    return (f"numba {numba.__version__} numpy {np.__version__} "
            f"python {sys.version_info[0]}.{sys.version_info[1]} cpu {llvm.get_host_cpu_name()}")


def entry_key(source: str) -> str:
    """The content hash naming ``source``'s cache entry on this toolchain and CPU."""
    return hashlib.sha256(f"{_toolchain()}\n{source}".encode()).hexdigest()[:24]


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".py")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_source(name: str, source: str) -> ModuleType:
    """Import ``source`` as a module from its cache entry (written first when missing or when
    the file there is not exactly ``source``)."""
    key = entry_key(source)
    path = cache_dir() / f"{name}-{key}" / f"{name}_{key}.py"
    try:
        trusted = path.read_text() == source
    except (OSError, UnicodeDecodeError):
        trusted = False
    if not trusted:
        _write_atomically(path, source)
    module_name = f"_tinygrad_lite_kernels.{name}_{key}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    for value in vars(module).values():
        _recompile_when_damaged(value)
    return module


def _recompile_when_damaged(dispatcher: object) -> None:
    """Make a numba dispatcher treat an unreadable compiled file in its cache as a miss.

    numba trusts a cached file whose index matches and raises when it cannot be unpickled (a
    truncated write, a full disk, a stray edit). A miss instead compiles the kernel again, and
    the fresh result overwrites the damaged file."""
    function_cache = getattr(dispatcher, "_cache", None)
    load = getattr(function_cache, "load_overload", None)
    if load is None:
        return

    def load_or_miss(signature: object, target_context: object) -> object:
        try:
            return load(signature, target_context)
        except Exception:
            return None

    function_cache.load_overload = load_or_miss  # type: ignore[union-attr]
