"""``tl.return_types``: the named-tuple result types, as PyTorch's ``torch.return_types``
(``tl.return_types.max``, ``tl.return_types.linalg_eigh``, ...). They are defined in
``ops/return_types.py``, the lowest layer that returns them; this is the module they name as
theirs, so they print as ``tinygrad_lite.return_types.max(...)`` and pickle by this path."""

from .ops.return_types import *  # noqa: F403
from .ops.return_types import __all__ as __all__
from .ops.return_types import _lu_with_info as _lu_with_info
