"""The orthogonal polynomials of ``torch.special`` on NumPy float arrays: Chebyshev (T, U, V,
W, and shifted to [0, 1]), Hermite (physicists' H and probabilists' He), Laguerre and Legendre,
each by its three-term recurrence with PyTorch's (ATen ``Math.h``) special cases: 0 for n < 0,
closed forms at the interval ends, and ``cos(n acos x)``-style closed forms inside the interval
for large n. ``n`` is an int64 array (a float n is truncated towards zero; a NaN or infinite n
counts as negative). The arithmetic is done in x's dtype (float32 overflows to inf, then NaN,
where PyTorch's does). The recurrence runs once over the whole array, each element stopping at
its own degree; it also stops when every running value is NaN, as PyTorch's loop does.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["POLYNOMIALS", "hermite_limit"]

Recurrence = Callable[[np.ndarray, np.ndarray, np.ndarray, int], np.ndarray]


def _run(x: np.ndarray, n: np.ndarray, first: np.ndarray, step: Recurrence, start: int,
         active: np.ndarray) -> np.ndarray:
    """``q`` after the recurrence ``p, q <- q, step(p, q, x, k)`` for k = start .. n (from
    p = 1, q = first), on the elements marked ``active`` (the others keep ``first``)."""
    p, q = np.ones_like(x), first.copy()
    top = int(n[active].max(initial=start - 1))
    with np.errstate(all="ignore"):
        for k in range(start, top + 1):
            live = active & (k <= n)
            if not live.any() or np.isnan(q[live]).all():
                break
            r = step(p, q, x, k)
            p = np.where(live, q, p)
            q = np.where(live, r, q)
    return q


def _chebyshev(kind: str, shifted: bool) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """T, U, V or W (``kind``) at x, or at 2x - 1 when ``shifted``."""
    first = {"t": lambda t: t, "u": lambda t: t + t, "v": lambda t: t + t - 1.0,
             "w": lambda t: t + t + 1.0}[kind]
    # the degree above which PyTorch switches to the trigonometric closed form
    trig_above = {"t": 6, "u": 8, "v": 8, "w": 8}[kind] if not shifted else \
        {"t": 6, "u": 6, "v": 6, "w": 4}[kind]

    def evaluate(x: np.ndarray, n: np.ndarray) -> np.ndarray:
        t = x + x - 1.0 if shifted else x
        nf = n.astype(x.dtype)
        odd = n % 2 == 1
        sign = np.where(odd, -1.0, 1.0)
        # the values at the ends: t = 1 (x = 1) and t = -1 (x = -1, or x = 0 when shifted)
        hi_end = {"t": 1.0, "u": nf + 1, "v": np.ones_like(nf), "w": 2 * nf + 1}[kind]
        lo_end = {"t": sign, "u": sign * (nf + 1), "v": sign * (2 * nf + 1),
                  "w": sign}[kind]
        at_hi, at_lo = (x == 1.0, x == 0.0) if shifted else (x == 1.0, x == -1.0)
        with np.errstate(all="ignore"):
            theta = np.arccos(np.clip(t, -1.0, 1.0))
            if kind == "t":
                trig = np.cos(nf * theta)
            elif kind == "u":
                s = np.sin(theta)
                trig = np.where(s != 0, np.sin((nf + 1) * theta) / s,
                                (nf + 1) * np.cos((nf + 1) * theta) / t)
            elif kind == "v":
                trig = np.where(np.sin(theta / 2) != 1.0,
                                np.cos((nf + 0.5) * theta) / np.cos(theta / 2), lo_end)
            else:
                trig = np.where(np.cos(theta / 2) != 1.0,
                                np.sin((nf + 0.5) * theta) / np.sin(theta / 2),
                                sign if shifted else np.where(t > 0, 2 * nf + 1, sign))
        use_trig = (n > trig_above) & (np.abs(t) < 1.0)
        special = (n < 0) | at_hi | at_lo | use_trig | (n <= 1)
        q = _run(t, n, first(t), lambda p, q, t_, k: (t_ + t_) * q - p, 2, ~special)
        return np.select([n < 0, at_hi, at_lo, use_trig, n == 0, n == 1],
                         [np.zeros_like(x), hi_end * np.ones_like(x), lo_end * np.ones_like(x),
                          trig, np.ones_like(x), first(t)], q)

    return evaluate


def hermite_limit(dtype: np.dtype) -> int:
    """PyTorch's largest Hermite degree (NaN above it): 128 for float32, 512 for float64."""
    return 128 if np.dtype(dtype).itemsize <= 4 else 512


def _hermite(probabilists: bool) -> Callable[[np.ndarray, np.ndarray, int], np.ndarray]:
    def evaluate(x: np.ndarray, n: np.ndarray, limit: int) -> np.ndarray:
        first = x.copy() if probabilists else x + x
        if probabilists:
            def step(p: np.ndarray, q: np.ndarray, x_: np.ndarray, k: int) -> np.ndarray:
                return x_ * q - (k - 1) * p
        else:
            def step(p: np.ndarray, q: np.ndarray, x_: np.ndarray, k: int) -> np.ndarray:
                return (x_ + x_) * q - 2 * (k - 1) * p
        big = n > limit
        q = _run(x, n, first, step, 2, (n > 1) & ~big)
        return np.select([n < 0, n == 0, n == 1, big],
                         [np.zeros_like(x), np.ones_like(x), first, np.full_like(x, np.nan)], q)

    return evaluate


def laguerre_polynomial_l(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """L_n(x); 1 at x = 0."""
    def step(p: np.ndarray, q: np.ndarray, x_: np.ndarray, k: int) -> np.ndarray:
        j = k - 1
        return ((2 * j + (1.0 - x_)) * q - j * p) / (j + 1)
    special = (n <= 1) | (x == 0)
    q = _run(x, n, 1.0 - x, step, 2, ~special)
    return np.select([n < 0, x == 0, n == 0, n == 1],
                     [np.zeros_like(x), np.ones_like(x), np.ones_like(x), 1.0 - x], q)


def legendre_polynomial_p(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """P_n(x); +-1 at x = +-1."""
    def step(p: np.ndarray, q: np.ndarray, x_: np.ndarray, k: int) -> np.ndarray:
        j = k - 1
        return ((2 * j + 1) * x_ * q - j * p) / (j + 1)
    at_end = np.abs(x) == 1.0
    special = (n <= 1) | at_end
    q = _run(x, n, x.copy(), step, 2, ~special)
    end = np.where((x > 0) | (n % 2 == 0), 1.0, -1.0)
    return np.select([n < 0, at_end, n == 0, n == 1],
                     [np.zeros_like(x), end, np.ones_like(x), x], q)


POLYNOMIALS: dict[str, Callable] = {
    **{f"chebyshev_polynomial_{k}": _chebyshev(k, False) for k in "tuvw"},
    **{f"shifted_chebyshev_polynomial_{k}": _chebyshev(k, True) for k in "tuvw"},
    "hermite_polynomial_h": _hermite(False),
    "hermite_polynomial_he": _hermite(True),
    "laguerre_polynomial_l": laguerre_polynomial_l,
    "legendre_polynomial_p": legendre_polynomial_p,
}
