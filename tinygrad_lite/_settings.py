"""Process-wide settings PyTorch programs set: BLAS threads (``set_num_threads``, through
threadpoolctl when installed), determinism requests (accepted: every kernel here is
deterministic), the anomaly, float32-matmul-precision, denormal and warn-always switches."""

from __future__ import annotations

import os
from typing import Any

from ._core.warnings import warn
from ._kernels import cpu_share
from ._kernels import threads as kernel_threads
from .autograd.anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly

__all__ = ["set_num_threads", "get_num_threads", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "set_num_interop_threads",
           "get_num_interop_threads", "is_deterministic_algorithms_warn_only_enabled",
           "set_deterministic_debug_mode", "get_deterministic_debug_mode", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_anomaly_enabled", "set_float32_matmul_precision",
           "get_float32_matmul_precision", "set_flush_denormal", "set_warn_always",
           "is_warn_always_enabled"]

_state: dict[str, Any] = {"deterministic": False, "warn_only": False, "interop": 1,
                          "threads": None}


def set_num_threads(num: int) -> None:
    """Use ``num`` threads in the BLAS behind matrix products (threadpoolctl when installed;
    otherwise remembered, and set in the environment for processes started later) and in the
    compiled kernels."""
    if int(num) < 1:
        raise RuntimeError(f"set_num_threads expects a positive integer, got {num}")
    _state["threads"] = int(num)
    os.environ["OMP_NUM_THREADS"] = str(int(num))
    kernel_threads.set_budget(int(num))  # one budget: the compiled kernels follow BLAS
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(int(num))


def get_num_threads() -> int:
    """The number of BLAS threads (what threadpoolctl reports, else the last setting or the
    number of CPUs)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return _state["threads"] or os.cpu_count() or 1
    counts = [lib["num_threads"] for lib in threadpool_info() if lib.get("user_api") == "blas"]
    return max(counts) if counts else (_state["threads"] or os.cpu_count() or 1)


def set_num_interop_threads(num: int) -> None:
    """Accepted (there is no inter-op thread pool)."""
    _state["interop"] = int(num)


def get_num_interop_threads() -> int:
    """What ``set_num_interop_threads`` was given (1 by default)."""
    return int(_state["interop"])


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Same inputs, same bits, run to run: every op here is deterministic at a given thread
    count, and ``mode=True`` also keeps BLAS at its thread budget on a busy machine (otherwise
    it gives up cores other processes use, and a few products round differently with fewer
    threads; see ``_kernels/cpu_share.py``)."""
    _state["deterministic"], _state["warn_only"] = bool(mode), bool(warn_only)
    cpu_share.pin(bool(mode))


def are_deterministic_algorithms_enabled() -> bool:
    """What ``use_deterministic_algorithms`` was last given."""
    return bool(_state["deterministic"])


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """The ``warn_only`` that ``use_deterministic_algorithms`` was last given."""
    return bool(_state["warn_only"])


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode: str | int) -> None:
    """PyTorch's other spelling of ``use_deterministic_algorithms``: "default"/0 (off),
    "warn"/1 (on, warn only) or "error"/2 (on)."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """0 (off), 1 (deterministic, warn only) or 2 (deterministic), as last set."""
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly mode on or off (``tl.autograd.set_detect_anomaly``, not as a context)."""
    set_detect_anomaly(enabled, check_nan)


_switches: dict[str, Any] = {"matmul_precision": "highest", "warn_always": False}


def set_float32_matmul_precision(precision: str) -> None:
    """Remember "highest", "high" or "medium" (reported back; float32 matmuls here always use
    full float32 precision, which is "highest"). Other values warn and change nothing."""
    if precision not in ("highest", "high", "medium"):
        warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
             "setFloat32MatmulPrecision call has no effect.")
        return
    _switches["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    """The precision last set by ``set_float32_matmul_precision`` ("highest" by default)."""
    return str(_switches["matmul_precision"])


def set_flush_denormal(mode: bool) -> bool:
    """False: NumPy gives no control over flushing denormal floats to zero, so the mode is
    not supported (PyTorch's answer on such a CPU); nothing changes."""
    return False


def set_warn_always(b: bool) -> None:
    """Remember whether warnings PyTorch gives once should be given every time."""
    _switches["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    """What ``set_warn_always`` was last given (False by default)."""
    return bool(_switches["warn_always"])
