"""Catalogue rows of the linear algebra (ops/linalg.py, ops/linalg_decomp.py,
functions/linalg.py): first and second order gradients through inv, slogdet, solve, cholesky,
pinv, eigh, svd, qr, and the composites on them. Eigen- and singular vectors are defined up to
sign, so their rows check a sign-invariant function of them (abs, or U f(S) Vh), as PyTorch's
own gradchecks do; symmetric inputs are made as ``a + a^T``."""

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


def _np_t(a):
    return np.swapaxes(a, -1, -2)


def _svd_mix(a):
    """U exp(S) Vh (the sign of each singular pair cancels) plus |U| |Vh|."""
    u, s, vh = tl.linalg.svd(a, full_matrices=False)
    return (u * s.exp().unsqueeze(-2)) @ vh + u.abs() @ vh.abs()


def _np_svd_mix(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return (u * np.exp(s)[..., None, :]) @ vh + np.abs(u) @ np.abs(vh)


def _eigh_mix(a):
    lam, vec = tl.linalg.eigh(a + a.mT)
    return vec.abs() * lam.unsqueeze(-2)


def _np_eigh_mix(a):
    lam, vec = np.linalg.eigh(a + _np_t(a))
    return np.abs(vec) * lam[..., None, :]


def _qr_mix(a):
    q, r = tl.linalg.qr(a)
    return q @ r.sin()


def _np_qr_mix(a):
    q, r = np.linalg.qr(a)
    return q @ np.sin(r)


def _old_svd(a):
    u, s, v = tl.svd(a, some=True)
    return u.abs() @ (v.abs() * s.unsqueeze(-2)).mT


def _np_old_svd(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.abs(u) @ (np.abs(vh) * s[..., :, None])


def add_rows(row) -> None:
    from op_catalog import NO_FLOAT16

    NO_FLOAT16.update({"linalg-inv", "linalg-det", "linalg-slogdet", "linalg-solve",
                       "linalg-cholesky", "linalg-svd-tall", "linalg-svd-wide-full",
                       "linalg-svdvals", "linalg-eigh", "linalg-eigvalsh-upper", "linalg-qr-tall",
                       "linalg-qr-wide", "linalg-pinv-tall", "linalg-pinv-wide",
                       "linalg-pinv-hermitian", "linalg-lstsq", "linalg-matrix_norm-2",
                       "linalg-matrix_norm--2", "linalg-matrix_norm-nuc", "svd-old", "pinverse"})
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
    # decompositions (distinct singular values/eigenvalues: random normal input has them)
    row("linalg-svd-tall", _svd_mix, [(2, 4, 3)], "real", _np_svd_mix)
    row("linalg-svd-wide-full",
        lambda a: tl.linalg.svd(a).U.abs() @ tl.linalg.svd(a).Vh[..., :3, :].abs(), [(3, 4)],
        "real", lambda a: np.abs(np.linalg.svd(a)[0]) @ np.abs(np.linalg.svd(a)[2][:3]))
    row("linalg-svdvals", tl.linalg.svdvals, [(2, 3, 4)], "real",
        lambda a: np.linalg.svd(a, compute_uv=False))
    row("linalg-eigh", _eigh_mix, [(2, 3, 3)], "real", _np_eigh_mix)
    row("linalg-eigvalsh-upper", lambda a: tl.linalg.eigvalsh(a + a.mT, UPLO="U"), [(3, 3)],
        "real", lambda a: np.linalg.eigvalsh(a + a.T, UPLO="U"))
    row("linalg-qr-tall", _qr_mix, [(2, 4, 3)], "real", _np_qr_mix)
    row("linalg-qr-wide", _qr_mix, [(3, 4)], "real", _np_qr_mix)
    row("linalg-pinv-tall", tl.linalg.pinv, [(2, 4, 3)], "real", np.linalg.pinv)
    row("linalg-pinv-wide", tl.linalg.pinv, [(3, 4)], "real", np.linalg.pinv)
    row("linalg-pinv-hermitian", lambda a: tl.linalg.pinv(_well(a + a.mT), hermitian=True),
        [(3, 3)], "real", lambda a: np.linalg.pinv(_np_well(a + a.T)))
    row("linalg-lstsq", lambda a, b: tl.linalg.lstsq(a, b).solution, [(2, 4, 3), (2, 4, 2)],
        "real", lambda a, b: np.linalg.pinv(a) @ b)
    for _ord, _ref in ((2, lambda s: s.max(-1)), (-2, lambda s: s.min(-1)),
                       ("nuc", lambda s: s.sum(-1))):
        row(f"linalg-matrix_norm-{_ord}", lambda a, _ord=_ord: tl.linalg.matrix_norm(a, _ord),
            [(2, 3, 4)], "real",
            lambda a, _ref=_ref: _ref(np.linalg.svd(a, compute_uv=False)))
    row("svd-old", _old_svd, [(3, 4)], "real", _np_old_svd)
    row("pinverse", tl.pinverse, [(3, 3)], "real", np.linalg.pinv)
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
    row("kron-mixed-ndim", tl.kron, [(2, 1, 3), (3, 2)], "real", np.kron)
    row("linalg-cross", lambda a, b: tl.linalg.cross(a, b), [(4, 3), (4, 3)], "real",
        lambda a, b: np.cross(a, b))
    row("cdist", lambda a, b: tl.cdist(a, b), [(3, 2), (4, 2)], "nonzero",
        lambda a, b: np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)))
    row("trace", tl.trace, [(3, 3)], "real", np.trace)
    row("diag_embed", lambda a: tl.diag_embed(a, 1), [(2, 3)], "real",
        lambda a: np.stack([np.diag(r, 1) for r in a]))
