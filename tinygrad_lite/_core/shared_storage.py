"""Arrays in shared memory, for ``Tensor.share_memory_()`` and ``tl.multiprocessing``.

The memory is an anonymous file (``os.memfd_create``; elsewhere a temporary file unlinked as
soon as it is created) mapped with ``MAP_SHARED``. It has no name in ``/dev/shm``, so nothing
can be left behind there, even when a process crashes: the kernel frees the memory once the
last process holding the file descriptor or a mapping exits. A forked child inherits the
mapping; other processes receive the descriptor (``tl.multiprocessing`` sends it with the
pickled tensor, as PyTorch's ``file_descriptor`` sharing strategy does) and map it again.
"""

from __future__ import annotations

import mmap
import os
import tempfile
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["SharedMap", "share_array", "is_shared_array", "shared_location", "map_fd",
           "on_first_map"]


class SharedMap(mmap.mmap):
    """A shared mapping that remembers its file descriptor (kept open so the memory can be sent
    to another process) and its start address (to find where an array lies inside it)."""

    fd: int
    address: int
    nbytes: int


# One mapping per underlying file in this process: a storage received twice maps once, so
# tensors that share memory in the sender share it here too.
_MAPS: weakref.WeakValueDictionary[tuple[int, int], SharedMap] = weakref.WeakValueDictionary()


# Run once, before this process maps its first shared memory: the package loads
# ``tl.multiprocessing`` there (it loads lazily), whose pickling reducers send shared tensors as
# handles, so that ``share_memory_()`` then the standard library's ``multiprocessing`` still
# shares instead of copying, as when every module loaded with the package.
_FIRST_MAP_HOOKS: list[Callable[[], object]] = []


def on_first_map(hook: Callable[[], object]) -> None:
    """Call ``hook()`` just before the first shared mapping of this process is made."""
    _FIRST_MAP_HOOKS.append(hook)


def _anonymous_file(nbytes: int) -> int:
    """A file descriptor for ``nbytes`` of memory that no path names."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("tinygrad_lite_shared")
    else:  # no memfd (macOS): a temporary file, unlinked at once so that it cannot leak
        shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
        fd, path = tempfile.mkstemp(prefix="tinygrad_lite_", dir=shm)
        os.unlink(path)
    os.ftruncate(fd, nbytes)
    return fd


def map_fd(fd: int, nbytes: int) -> SharedMap:
    """Map ``nbytes`` of the shared file ``fd`` (which the mapping takes ownership of, closing
    it when the mapping is freed), reusing this process's mapping of the same file."""
    while _FIRST_MAP_HOOKS:
        _FIRST_MAP_HOOKS.pop(0)()
    info = os.fstat(fd)
    key = (info.st_dev, info.st_ino)
    existing = _MAPS.get(key)
    if existing is not None and existing.nbytes >= nbytes:
        os.close(fd)
        return existing
    m = SharedMap(fd, max(nbytes, 1), flags=mmap.MAP_SHARED,
                  prot=mmap.PROT_READ | mmap.PROT_WRITE)
    m.fd, m.nbytes = fd, max(nbytes, 1)
    m.address = np.frombuffer(m, np.uint8).ctypes.data
    weakref.finalize(m, os.close, fd)
    _MAPS[key] = m
    return m


def share_array(data: np.ndarray) -> np.ndarray:
    """A copy of ``data`` (same shape and dtype, C order) in a new shared mapping."""
    m = map_fd(_anonymous_file(max(data.nbytes, 1)), data.nbytes)
    out: np.ndarray = np.ndarray(data.shape, data.dtype, buffer=m)
    np.copyto(out, data)
    return out


def _root(data: np.ndarray) -> Any:
    """The object at the bottom of ``data``'s chain of bases (the owner of its memory)."""
    base: Any = data
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    return base


def is_shared_array(data: np.ndarray) -> bool:
    """Whether ``data`` lies in a shared mapping made by ``share_array`` or ``map_fd``."""
    return isinstance(_root(data), SharedMap)


def shared_location(data: np.ndarray) -> tuple[SharedMap, int]:
    """The mapping ``data`` lies in and the byte offset of its first element there."""
    root = _root(data)
    if not isinstance(root, SharedMap):
        raise RuntimeError("shared_location: the array is not in shared memory")
    return root, data.__array_interface__["data"][0] - root.address
