"""Silence NumPy's floating-point warnings raised inside the package, as PyTorch is silent.

PyTorch returns the IEEE result of an overflow, 0/0 or NaN arithmetic without a word; NumPy
warns, attributing the RuntimeWarning to the Python frame that called the ufunc, which for a
kernel is one of this package's modules. A warnings filter on those modules matches PyTorch at no
cost per op (``np.errstate`` around every op would cost ~1.6 us each) and leaves warnings from
the user's own NumPy code alone.

The filter must stay first in ``warnings.filters``: ``warnings.catch_warnings`` blocks restore
the list they found (pytest collects test modules, which import us, inside one, and gives each
test a fresh list with its own filters, ``-W error`` among them, in front). So every tensor the
package makes (``tensor_base.wrap``) checks that the filter is still the first one (one list
lookup and an identity test, ~50 ns) and puts it back in front when it is not.
"""

from __future__ import annotations

import warnings

__all__ = ["silence_numpy_warnings"]

_PACKAGE_MODULES = r"tinygrad_lite(\.|$)"
_front: list = [None]  # the filter tuple this module last put at the front of warnings.filters


def silence_numpy_warnings() -> None:
    """Put the filter first in ``warnings.filters`` (moving it there if it is further back)."""
    filters = warnings.filters
    if filters and filters[0] is _front[0]:
        return
    # filterwarnings removes an equal filter further back before inserting it in front
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=_PACKAGE_MODULES)
    _front[0] = warnings.filters[0]

