"""Warnings raised by the package, attributed to the user's line that led to them.

PyTorch's warnings come from C++ and Python points them at the caller's line; ours come from
Python code at varying depths inside the package, so a fixed ``stacklevel`` points at the
package's own line (and prints its source, comments and all) whenever the call goes through one
more or one fewer internal layer. ``warn`` counts the frames instead: it attributes the warning to
the first frame outside the package, so filters by module and ``-W error::...:lineno`` see the
user's code, and the once-per-location registry counts the user's lines.
"""

from __future__ import annotations

import os
import sys
import warnings as _warnings

__all__ = ["warn", "warn_once"]

# tinygrad_lite/ itself, with a separator: a sibling directory named tinygrad_lite_x is outside
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _inside_package(filename: str) -> bool:
    return filename.startswith(_PACKAGE_DIR)


def warn(message: str | Warning, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn(message, category)`` pointing at the innermost frame outside the package
    (the package's outermost frame when every frame is inside it, as at import time)."""
    frame = sys._getframe(1)
    level = 2  # warnings.warn's stacklevel for our caller's frame
    while frame.f_back is not None and _inside_package(frame.f_code.co_filename):
        frame = frame.f_back
        level += 1
    _warnings.warn(message, category, stacklevel=level)


_WARNED_ONCE: set[str] = set()  # the messages ``warn_once`` has given


def warn_once(message: str, category: type[Warning] = UserWarning) -> None:
    """``warn``, the first time in the process only: PyTorch's ``TORCH_WARN_ONCE``."""
    if message not in _WARNED_ONCE:
        _WARNED_ONCE.add(message)
        warn(message, category)  # (this frame is inside the package: warn looks past it)
