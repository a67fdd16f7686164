"""Keep glibc from returning freed activation memory to the kernel between ops.

Every op allocates its result with NumPy, and a training step frees and allocates again the
same few large arrays. By default glibc serves blocks above a (dynamic) threshold with fresh
``mmap`` calls and trims the top of the heap as soon as it frees more than twice that, so the
next step's arrays come back as untouched pages and every 4 KiB page faults on first write.
On the GPT training step of ``benchmarks/bench_models.py`` that was 40 % of the time (100 ms
-> 65 ms, peak RSS unchanged). The settings below serve blocks up to 32 MiB from the heap and
trim it only when 256 MiB are free at its top, which is how a caching allocator behaves; the
memory stays reserved for the next step instead of being unmapped and faulted in again.

Applied once, at import, on glibc only. Not applied when the process already sets any of
glibc's ``MALLOC_*`` tunables in the environment (the user's choice wins) or when
``TINYGRAD_LITE_KEEP_MALLOC=1``.
"""

from __future__ import annotations

import ctypes
import os
import sys

__all__ = ["tune_allocator", "allocator_tuned"]

_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3
_MMAP_THRESHOLD = 32 * 2**20  # glibc's largest allowed value on 64-bit systems
_TRIM_THRESHOLD = 256 * 2**20
_TOP_PAD = 64 * 2**20
_state = {"tuned": False}


def tune_allocator() -> bool:
    """Apply the settings described in the module docstring; True when they were applied."""
    if _state["tuned"] or not sys.platform.startswith("linux"):
        return _state["tuned"]
    if os.environ.get("TINYGRAD_LITE_KEEP_MALLOC") == "1" or any(
            name.startswith("MALLOC_") or name == "GLIBC_TUNABLES" for name in os.environ):
        return False
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
        libc.gnu_get_libc_version  # noqa: B018 - present on glibc only (not musl)
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    _state["tuned"] = bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
                           and mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)
                           and mallopt(_M_TOP_PAD, _TOP_PAD))
    return _state["tuned"]


def allocator_tuned() -> bool:
    """Whether ``tune_allocator`` changed glibc's settings in this process."""
    return _state["tuned"]
