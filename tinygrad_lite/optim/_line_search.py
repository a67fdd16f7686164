"""The strong-Wolfe line search LBFGS uses (``line_search_fn="strong_wolfe"``), on flat NumPy
vectors: bracket a step satisfying the sufficient-decrease and curvature conditions, then zoom in
on it by safeguarded cubic interpolation. The steps it tries follow PyTorch's (minFunc's)
choices, so trajectories match PyTorch's to rounding."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

__all__ = ["cubic_interpolate", "strong_wolfe"]

# obj(t) -> (loss, flat gradient) at x + t * d, leaving the parameters at x
Objective = Callable[[float], tuple[float, np.ndarray]]


def cubic_interpolate(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                      bounds: tuple[float, float] | None = None) -> float:
    """Minimiser of the cubic through ``(x1, f1)``, ``(x2, f2)`` with slopes ``g1``, ``g2``,
    clamped to ``bounds`` (default: the interval between the points); its midpoint when the cubic
    has no real minimiser."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 * d1 - g1 * g2
    if d2_square < 0:
        return (lo + hi) / 2.0
    d2 = math.sqrt(d2_square)
    # written from the farther point so the formula stays the same for either order
    if x1 <= x2:
        t = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        t = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(t, lo), hi)


def strong_wolfe(obj: Objective, t: float, d: np.ndarray, f: float, g: np.ndarray, gtd: float,
                 c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                 max_ls: int = 25) -> tuple[float, np.ndarray, float, int]:
    """Search along ``d`` from the current point (loss ``f``, gradient ``g``, slope ``gtd``)
    starting at step ``t``; returns ``(loss, gradient, step, evaluations)`` of the step found."""
    d_norm = float(np.abs(d).max())
    f_new, g_new = obj(t)
    evals = 1
    gtd_new = float(g_new @ d)
    # bracketing phase: grow the step until an interval is known to contain a Wolfe point
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    ls_iter = 0
    bracket: list[float] = [0.0, t]
    bracket_f: list[float] = [f, f_new]
    bracket_g: list[np.ndarray] = [g, g_new]
    bracket_gtd: list[float] = [gtd, gtd_new]
    while ls_iter < max_ls:
        # the order of the tests matters: a point meeting the curvature condition is taken
        # even with a non-negative slope, unless it fails sufficient decrease
        armijo_fails = f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev)
        if not armijo_fails and abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g, bracket_gtd = [t], [f_new], [g_new], [gtd_new]
            done = True
            break
        if armijo_fails or gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        # extrapolate: the cubic's minimiser between 1.01 and 10 times the current step
        lo, hi = t + 0.01 * (t - t_prev), t * 10
        t_prev, t = t, cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, (lo, hi))
        f_prev, g_prev, gtd_prev = f_new, g_new, gtd_new
        f_new, g_new = obj(t)
        evals += 1
        gtd_new = float(g_new @ d)
        ls_iter += 1
    if ls_iter >= max_ls:  # out of evaluations while still bracketing
        bracket, bracket_f, bracket_g = [0.0, t], [f, f_new], [g, g_new]
        bracket_gtd = [gtd, gtd_new]
    # zoom phase: shrink the bracket around the Wolfe point
    insufficient = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                              bracket[1], bracket_f[1], bracket_gtd[1])
        # a trial too near an end of the bracket makes little progress: after two such trials
        # in a row (or one outside the bracket) move it to 10 % of the bracket from that end
        top, bottom = max(bracket), min(bracket)
        eps = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < eps:
            if insufficient or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        f_new, g_new = obj(t)
        evals += 1
        gtd_new = float(g_new @ d)
        ls_iter += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low]:
            # not a sufficient decrease, or not below the low end: it becomes the high end
            bracket[high], bracket_f[high] = t, f_new
            bracket_g[high], bracket_gtd[high] = g_new, gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                # the minimum lies between the new point and the old low end
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low] = t, f_new
            bracket_g[low], bracket_gtd[low] = g_new, gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evals
