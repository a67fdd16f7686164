"""Catalogue rows of functions/numeric.py and functions/scatters.py: renorm, frexp, vander,
matrix_exp, clone, fill_diagonal_, index_put and the diagonal/select/slice scatters."""

import numpy as np

import tinygrad_lite as tl

_ROWS, _COLS = np.array([0, 2, 0, 1]), np.array([1, 3, 1, 0])  # (0, 1) twice: duplicates


def _np_renorm(a, p, dim, maxnorm):
    other = tuple(i for i in range(a.ndim) if i != dim)
    norm = (np.abs(a) ** p).sum(axis=other, keepdims=True) ** (1 / p)
    return a * np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)


def _np_expm(a):
    """exp by a 30-term Taylor series of a / 2^8, squared back 8 times (float64 reference)."""
    x = a / 256.0
    term = result = np.broadcast_to(np.eye(a.shape[-1]), a.shape).copy()
    for k in range(1, 30):
        term = term @ x / k
        result = result + term
    for _ in range(8):
        result = result @ result
    return result


def _np_index_put(a, v, accumulate):
    out = a.copy()
    if accumulate:
        np.add.at(out, (_ROWS, _COLS), v)
    else:
        out[_ROWS[1:], _COLS[1:]] = v[1:]
    return out


def _np_fill_diagonal(a):
    out = a * 1
    np.fill_diagonal(out, 2.0, wrap=True)
    return out


def _np_diagonal_scatter(a, s):
    out = a.copy()
    for i in range(2):
        out[:, i, i + 1] = s[:, i]
    return out


def _np_slice_scatter(a, s):
    out = a.copy()
    out[:, 1:4:2] = s
    return out


def _np_select_scatter(a, s):
    out = a.copy()
    out[:, -1] = s
    return out


def add_rows(row) -> None:
    row("renorm-p2", lambda a: tl.renorm(a, 2, 0, 1.0), [(3, 4)], "real",
        lambda a: _np_renorm(a, 2, 0, 1.0))
    row("renorm-p3-dim1-3d", lambda a: a.renorm(3, 1, 0.8), [(2, 3, 2)], "real",
        lambda a: _np_renorm(a, 3, 1, 0.8))
    row("frexp-mantissa", lambda a: tl.frexp(a * 3).mantissa, [(3, 4)], "nonzero",
        lambda a: np.frexp(a * 3)[0])
    row("vander", lambda a: tl.vander(a, 4), [(3,)], "real", lambda a: np.vander(a, 4))
    row("vander-increasing", lambda a: tl.vander(a, increasing=True), [(4,)], "real",
        lambda a: np.vander(a, increasing=True))
    row("matrix_exp", lambda a: tl.matrix_exp(a * 0.5), [(3, 3)], "real",
        lambda a: _np_expm(a * 0.5))
    row("linalg-matrix_exp-batch-scaled", lambda a: tl.linalg.matrix_exp(a * 3), [(2, 2, 2)],
        "real", lambda a: _np_expm(a * 3))
    row("clone", lambda a: tl.clone(a) * 2, [(2, 3)], "real", lambda a: a * 2)
    row("fill_diagonal_-wrap", lambda a: (a * 1).fill_diagonal_(2.0, wrap=True), [(7, 3)],
        "real", _np_fill_diagonal)
    for accumulate in (False, True):
        row(f"index_put-accumulate-{accumulate}",
            lambda a, v, acc=accumulate: tl.index_put(
                a, (tl.tensor(_ROWS[not acc:]), tl.tensor(_COLS[not acc:])), v[int(not acc):],
                accumulate=acc),
            [(3, 4), (4,)], "real", lambda a, v, acc=accumulate: _np_index_put(a, v, acc))
    row("index_put_-mask", lambda a, v: (a * 1).index_put_((a > 0,), v.sum()), [(3, 4), (2,)],
        "real", lambda a, v: np.where(a > 0, v.sum(), a))
    row("diagonal_scatter", lambda a, s: tl.diagonal_scatter(a, s, 1, 1, 2),
        [(2, 3, 3), (2, 2)], "real", _np_diagonal_scatter)
    row("slice_scatter", lambda a, s: tl.slice_scatter(a, s, 1, 1, 4, 2), [(3, 5), (3, 2)],
        "real", _np_slice_scatter)
    row("select_scatter", lambda a, s: a.select_scatter(s, 1, -1), [(3, 4), (3,)], "real",
        _np_select_scatter)
