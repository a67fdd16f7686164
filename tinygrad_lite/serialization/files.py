"""Where checkpoint bytes meet the file system: what may be read, and how a save lands.

Reading refuses anything that is not a regular file before opening it (a FIFO would hang, a
symlink to ``/dev/zero`` would be read until memory runs out). Saving writes a temporary file
beside the target, fsyncs it and renames it over the target, so a reader sees the old file or the
new one, never half of one. Temporaries are named after the target and the writing process, so a
save killed half-way leaves a file the next save or load of that path removes; a symlinked target
is written through (the link stays, as with ``torch.save``); the file gets the mode an ordinary
``open(path, "w")`` would give (the existing file's, else 0o666 less the umask).
"""

from __future__ import annotations

import io
import os
import stat
import tempfile
from pathlib import Path
from typing import IO, Any

__all__ = ["read_checkpoint", "read_from", "write_atomically", "write_to",
           "remove_stale_temporaries", "describe"]

TMP_SUFFIX = ".tinygrad-tmp"


def describe(f: Any) -> str:
    """How error messages name ``f``: its path, or the file object's name."""
    if isinstance(f, (str, os.PathLike)):
        return os.fspath(f)
    return str(getattr(f, "name", None) or f"<{type(f).__name__}>")


def read_checkpoint(path: str) -> bytearray:
    """The bytes of the regular file ``path`` (writable, so tensors can be views into them)."""
    try:
        info = os.stat(path)  # follows symlinks: their target is what would be read
    except FileNotFoundError:
        raise FileNotFoundError(f"load: no such file: '{path}'") from None
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(f"load: '{path}' is a directory, not a checkpoint file")
    if not stat.S_ISREG(info.st_mode):
        kind = ("a FIFO" if stat.S_ISFIFO(info.st_mode) else "a device"
                if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else "a socket"
                if stat.S_ISSOCK(info.st_mode) else "not a regular file")
        raise RuntimeError(f"load: '{path}' is {kind}; only regular files are read")
    remove_stale_temporaries(path)
    with open(path, "rb") as fh:
        raw = bytearray(info.st_size)
        got = fh.readinto(raw)
    if got != info.st_size:
        raise RuntimeError(f"load: '{path}' changed while it was read ({got} of "
                           f"{info.st_size} bytes)")
    return raw


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def remove_stale_temporaries(path: str) -> None:
    """Delete temporaries of ``path`` left by saves whose process is gone (killed mid-save)."""
    target = Path(path)
    try:
        candidates = list(target.parent.glob(f".{target.name}.*{TMP_SUFFIX}"))
    except OSError:
        return
    for tmp in candidates:
        pid_text = tmp.name[len(target.name) + 2:-len(TMP_SUFFIX)].split(".")[0]
        if pid_text.isdigit() and int(pid_text) != os.getpid() and not _pid_alive(int(pid_text)):
            try:
                tmp.unlink()
            except OSError:
                pass


def _umask() -> int:
    """The process umask (read from /proc where possible: setting it to read it is racy)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomically(path: str, payload: bytes) -> None:
    """Replace ``path`` (through a symlink, if it is one) with ``payload``, atomically."""
    real = os.path.realpath(path)
    directory = os.path.dirname(real)
    if not os.path.isdir(directory):
        shown = os.path.dirname(path) or directory
        raise RuntimeError(f"save: parent directory {shown} of {path!r} does not exist")
    remove_stale_temporaries(real)
    try:
        mode = stat.S_IMODE(os.stat(real).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(real)}.{os.getpid()}.",
                               suffix=TMP_SUFFIX, dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:  # make the rename itself durable (best effort: not every platform allows it)
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass


def write_to(f: Any, payload: bytes) -> None:
    """Write ``payload`` to a path (atomically) or to a writable binary file object."""
    if isinstance(f, (str, os.PathLike)):
        write_atomically(os.fspath(f), payload)
        return
    if not hasattr(f, "write"):
        raise TypeError(f"save: f must be a path or a writable binary file object, got "
                        f"{type(f).__name__}")
    fh: IO[bytes] = f
    fh.write(payload)
    if hasattr(fh, "flush"):
        fh.flush()


def read_from(f: Any) -> bytearray:
    """The bytes of a checkpoint given as a path or a readable binary file object."""
    if isinstance(f, (str, os.PathLike)):
        return read_checkpoint(os.fspath(f))
    if not hasattr(f, "read"):
        raise TypeError(f"load: f must be a path or a readable binary file object, got "
                        f"{type(f).__name__}")
    data = b"" if isinstance(f, io.TextIOBase) else f.read()
    if isinstance(f, io.TextIOBase) or not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"load: {describe(f)} was opened in text mode; open it with 'rb'")
    return bytearray(data)
