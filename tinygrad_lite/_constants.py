"""PyTorch's numeric constants at the top level: ``tl.pi``, ``tl.e``, ``tl.inf``, ``tl.nan`` and
``tl.newaxis``."""

from __future__ import annotations

import math

__all__ = ["pi", "e", "inf", "nan", "newaxis"]


pi, e, inf, nan = math.pi, math.e, math.inf, math.nan
newaxis = None
