"""Mathematical constants the densities and entropies use: ``log(2 pi)`` and the
Euler-Mascheroni constant."""

from __future__ import annotations

import math

__all__ = ["LOG_2PI", "EULER"]


LOG_2PI = math.log(2 * math.pi)


EULER = 0.57721566490153286061
