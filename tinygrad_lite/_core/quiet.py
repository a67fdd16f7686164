"""Silence NumPy's floating-point warnings raised inside the package, as PyTorch is silent.

PyTorch returns the IEEE result of an overflow, 0/0 or NaN arithmetic without a word; NumPy
warns, attributing the RuntimeWarning to the Python frame that called the ufunc, which for a
kernel is one of this package's modules. A warnings filter on those modules matches PyTorch at no
cost per op (``np.errstate`` around every op would cost ~1.6 us each) and leaves warnings from
the user's own NumPy code alone.
"""

from __future__ import annotations

import warnings

__all__ = ["silence_numpy_warnings"]

_PACKAGE_MODULES = r"tinygrad_lite(\.|$)"


def silence_numpy_warnings() -> None:
    """Install the filter, or install it again if a ``warnings.catch_warnings`` block has since
    dropped it (pytest restores the filters after collecting the modules that imported us)."""
    for action, _message, category, module, _lineno in warnings.filters:
        if (action == "ignore" and category is RuntimeWarning and module is not None
                and module.pattern == _PACKAGE_MODULES):
            return
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=_PACKAGE_MODULES)
