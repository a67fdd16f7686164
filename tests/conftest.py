"""Shared fixtures: every test starts from the same random state, BLAS keeps its thread count
whatever the machine's load, and the suite leaves nothing behind in the system's temporary
directory.

Temporary files: the suite runs with ``TMPDIR`` pointing at a private directory made here, before
any test module is imported, so that this process, the processes it starts (DataLoader workers,
``tl.multiprocessing``, mpiexec and its ranks) and the standard library's ``tempfile`` and
``multiprocessing`` (its ``pymp-*`` directories) all write there. Each test's new entries in it
are noted, and at the end of the session the directory must be empty: otherwise the run fails
and names the tests that left something (the directory is removed either way). pytest's own
``tmp_path`` stays where pytest keeps it (``pytest-of-<user>``, the last three runs).

Under pytest-xdist the controller makes the directory; each worker works in its own
subdirectory, so that a test's leftovers are told apart from its neighbours'.
"""

from __future__ import annotations

import multiprocessing.process
import multiprocessing.util
import os
import shutil
import tempfile
import time

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite._kernels import cpu_share

# The suite compares bits (a compiled step with the eager one, a kernel with NumPy's code): BLAS
# keeps its thread budget whatever the neighbouring test workers do, since a product split over
# fewer threads can round differently (``_kernels/cpu_share.py``), and a busy spell between the
# two runs of one test made them differ in the last bit. The adaptation itself is tested in
# fresh processes (``test_cpu_share.py``).
cpu_share.pin(True)

_PRIVATE_ENV = "TINYGRAD_LITE_TEST_TMPDIR"


def _private_tmpdir() -> tuple[str, bool]:
    """The suite's private temporary directory, and whether this process made it (the
    controller, or a run without xdist) rather than inheriting it (an xdist worker)."""
    inherited = os.environ.get(_PRIVATE_ENV)
    if inherited:
        return inherited, False
    # pytest's tmp_path keeps using the system's temporary directory (and its retention)
    os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", tempfile.gettempdir())
    made = tempfile.mkdtemp(prefix="tl-tests-")
    os.environ[_PRIVATE_ENV] = made
    return made, True


_ROOT, _OWNER = _private_tmpdir()
_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
_HERE = os.path.join(_ROOT, _WORKER) if _WORKER else _ROOT
os.makedirs(_HERE, exist_ok=True)
os.environ["TMPDIR"] = _HERE
tempfile.tempdir = None  # forget the cached answer: gettempdir() reads TMPDIR again
_LEFT: dict[str, list[str]] = {}  # test id -> the entries new after it
_OWN: set[str | None] = set()  # the pymp-* directories of live processes, relative to _ROOT


def _listing() -> set[str]:
    try:
        return set(os.listdir(_HERE))
    except FileNotFoundError:
        return set()


def _own_multiprocessing_dir() -> str | None:
    """This process's ``pymp-*`` directory, if it made one (a tensor sent through a queue
    starts the standard library's fd sharer): multiprocessing removes it when the process
    exits, so it is not litter, and the private directory is removed after it."""
    path = multiprocessing.process.current_process()._config.get("tempdir")
    return os.path.relpath(path, _ROOT) if path and path.startswith(_ROOT + os.sep) else None


@pytest.fixture(autouse=True, scope="session")
def _torch_inductor_cache(tmp_path_factory):
    """PyTorch's inductor makes its cache (``torchinductor_<user>``) in the temporary directory
    when ``torch._inductor`` is first imported (the tests that read PyTorch's module paths and
    settings do): give it a directory under pytest's ``tmp_path`` instead."""
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR",
                          str(tmp_path_factory.mktemp("torchinductor")))


@pytest.fixture(autouse=True)
def _seed():
    tl.manual_seed(0)
    np.random.seed(0)
    yield


@pytest.fixture(autouse=True)
def _no_temp_litter(request):
    before = _listing()
    yield
    new = sorted(_listing() - before)
    if new:
        _LEFT[request.node.nodeid] = new


def _entries(directory: str) -> list[str]:
    """What is in ``directory``, a worker's subdirectory listed by its entries."""
    out = []
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if _WORKER is None and name.startswith("gw") and os.path.isdir(path):
            out += [os.path.join(name, n) for n in sorted(os.listdir(path))]
        else:
            out.append(name)
    return out


def _empty_dir(path: str) -> bool:
    return os.path.isdir(path) and not os.listdir(path)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """(xdist controller) Gather what a worker's tests left, and the worker's own ``pymp-*``."""
    output = getattr(node, "workeroutput", {})
    _LEFT.update(output.get("tmp_litter", {}))
    if output.get("tmp_own"):
        _OWN.add(output["tmp_own"])


def _remove(path: str) -> None:
    """Remove ``path``, trying again for a few seconds while pytest-xdist's workers, which may
    still be exiting, remove their own ``pymp-*`` directories in it."""
    for _ in range(50):
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.exists(path):
            return
        time.sleep(0.1)


def _remove_at_exit(path: str) -> None:
    """Remove ``path`` when this process exits, after multiprocessing removed its own
    ``pymp-*`` directory in it (finalizers of a lower exit priority run later)."""
    multiprocessing.util.Finalize(None, _remove, args=(path,), exitpriority=-200)


def pytest_sessionfinish(session, exitstatus):
    """Fail the run when anything is left in the private temporary directory; remove it."""
    own = _own_multiprocessing_dir()
    if _WORKER:  # the controller checks and reports; a worker hands over what it saw
        session.config.workeroutput["tmp_litter"] = _LEFT
        session.config.workeroutput["tmp_own"] = own
        return
    _OWN.add(own)
    found = _entries(_ROOT) if os.path.isdir(_ROOT) else []
    left = [p for p in found if p not in _OWN and not _empty_dir(os.path.join(_ROOT, p))]
    if left:
        lines = [f"\nFAILED: the tests left {len(left)} entries in the temporary directory "
                 f"{_ROOT} (TMPDIR):"]
        lines += [f"  {p}" for p in left[:40]]
        lines += ["new entries after:"]
        lines += [f"  {t}: {', '.join(e)}" for t, e in sorted(_LEFT.items())]
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line("\n".join(lines), red=True)
        else:
            print("\n".join(lines))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if _OWNER:  # now, all but this process's own pymp-*; the rest when the process exits
        for entry in os.listdir(_ROOT) if os.path.isdir(_ROOT) else []:
            if entry not in _OWN:
                _remove(os.path.join(_ROOT, entry))
        _remove_at_exit(_ROOT)
