"""Catalogue rows of the linear algebra (ops/linalg.py, functions/linalg.py): first and second
order gradients through inv, slogdet, solve and cholesky, and the composites on them."""

import numpy as np

import tinygrad_lite as tl


def _well(a):
    """A well-conditioned matrix from a random one."""
    return a + 3 * tl.eye(a.shape[-1], dtype=a.dtype)


def _np_well(a):
    return a + 3 * np.eye(a.shape[-1])


def _spd(a):
    return a @ a.mT + 2 * tl.eye(a.shape[-1], dtype=a.dtype)


def _np_spd(a):
    return a @ np.swapaxes(a, -1, -2) + 2 * np.eye(a.shape[-1])


def add_rows(row) -> None:
    from op_catalog import NO_FLOAT16

    NO_FLOAT16.update({"linalg-inv", "linalg-det", "linalg-slogdet", "linalg-solve",
                       "linalg-cholesky"})
    row("linalg-inv", lambda a: tl.linalg.inv(_well(a)), [(2, 3, 3)], "real",
        lambda a: np.linalg.inv(_np_well(a)))
    row("linalg-det", lambda a: tl.linalg.det(_well(a)), [(2, 3, 3)], "real",
        lambda a: np.linalg.det(_np_well(a)))
    row("linalg-slogdet", lambda a: tl.linalg.slogdet(_well(a))[1], [(3, 3)], "real",
        lambda a: np.linalg.slogdet(_np_well(a))[1])
    row("linalg-solve", lambda a, b: tl.linalg.solve(_well(a), b), [(2, 3, 3), (2, 3, 2)],
        "real", lambda a, b: np.linalg.solve(_np_well(a), b))
    row("linalg-cholesky", lambda a: tl.linalg.cholesky(_spd(a)), [(3, 3)], "real",
        lambda a: np.linalg.cholesky(_np_spd(a)))
    row("linalg-matrix_power", lambda a: tl.linalg.matrix_power(a, 3), [(3, 3)], "real",
        lambda a: np.linalg.matrix_power(a, 3))
    row("linalg-vector_norm-3", lambda a: tl.linalg.vector_norm(a, 3, dim=1), [(3, 4)],
        "nonzero", lambda a: (np.abs(a) ** 3).sum(1) ** (1 / 3))
    row("addmm", lambda a, b, c: tl.addmm(a, b, c, beta=0.5, alpha=2.0),
        [(3, 2), (3, 4), (4, 2)], "real", lambda a, b, c: 0.5 * a + 2 * b @ c)
    row("baddbmm", lambda a, b, c: tl.baddbmm(a, b, c, alpha=0.3), [(2, 3, 2), (2, 3, 4),
                                                                   (2, 4, 2)], "real",
        lambda a, b, c: a + 0.3 * b @ c)
    row("tensordot", lambda a, b: tl.tensordot(a, b, dims=([0, 1], [1, 0])),
        [(2, 3, 4), (3, 2, 2)], "real", lambda a, b: np.tensordot(a, b, ([0, 1], [1, 0])))
    row("kron", tl.kron, [(2, 3), (2, 2)], "real", np.kron)
    row("linalg-cross", lambda a, b: tl.linalg.cross(a, b), [(4, 3), (4, 3)], "real",
        lambda a, b: np.cross(a, b))
    row("cdist", lambda a, b: tl.cdist(a, b), [(3, 2), (4, 2)], "nonzero",
        lambda a, b: np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)))
    row("trace", tl.trace, [(3, 3)], "real", np.trace)
    row("diag_embed", lambda a: tl.diag_embed(a, 1), [(2, 3)], "real",
        lambda a: np.stack([np.diag(r, 1) for r in a]))
