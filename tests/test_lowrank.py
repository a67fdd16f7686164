"""tl.svd_lowrank and tl.pca_lowrank (randomized range finder, torch._lowrank): exact recovery
of low-rank matrices, near-optimal error on full-rank ones, shapes (tall, wide, batched, M,
sparse) against PyTorch, seeding, argument errors, and float64 gradchecks of well-defined
quantities."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.autograd import gradcheck

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")


def _low_rank(m, n, rank, seed=0, batch=()):
    """An exactly rank-``rank`` float64 matrix (or batch of them) with distinct singular
    values."""
    rng = np.random.default_rng(seed)
    left = rng.standard_normal(batch + (m, rank))
    right = rng.standard_normal(batch + (rank, n))
    return left @ right


def _rebuild(u, s, v):
    return (u * s.unsqueeze(-2)) @ v.mT


def test_exact_low_rank_matrix_is_recovered():
    a = tl.tensor(_low_rank(9, 7, 3), dtype=tl.float64)
    tl.manual_seed(0)
    u, s, v = tl.svd_lowrank(a, q=3)
    assert u.shape == (9, 3) and s.shape == (3,) and v.shape == (7, 3)
    assert u.dtype == s.dtype == v.dtype == tl.float64
    np.testing.assert_allclose(_rebuild(u, s, v).numpy(), a.numpy(), atol=1e-10)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(a.numpy(), compute_uv=False)[:3],
                               rtol=1e-10)
    np.testing.assert_allclose((u.mT @ u).numpy(), np.eye(3), atol=1e-12)  # orthonormal
    np.testing.assert_allclose((v.mT @ v).numpy(), np.eye(3), atol=1e-12)
    assert np.all(np.diff(s.numpy()) <= 0)  # descending


def test_wide_matrix_and_q_larger_than_the_rank():
    a = tl.tensor(_low_rank(4, 10, 2, seed=1), dtype=tl.float64)
    u, s, v = tl.svd_lowrank(a, q=4)  # wide: the transpose is sketched, U and V swap back
    assert u.shape == (4, 4) and s.shape == (4,) and v.shape == (10, 4)
    np.testing.assert_allclose(_rebuild(u, s, v).numpy(), a.numpy(), atol=1e-10)
    np.testing.assert_allclose(s.numpy()[2:], 0.0, atol=1e-10)  # rank 2: the rest vanish


def test_full_rank_error_is_close_to_the_optimal_truncation():
    rng = np.random.default_rng(3)
    q0, _ = np.linalg.qr(rng.standard_normal((40, 40)))
    q1, _ = np.linalg.qr(rng.standard_normal((30, 30)))
    sigma = 0.6 ** np.arange(30)  # decaying spectrum
    a = tl.tensor(q0[:, :30] * sigma @ q1.T, dtype=tl.float64)
    tl.manual_seed(1)
    u, s, v = tl.svd_lowrank(a, q=10, niter=2)  # oversampled: rank 10 for the top 6
    err = np.linalg.norm((_rebuild(u, s, v) - a).numpy(), 2)
    assert err < 1.5 * sigma[10]  # the best rank-10 error is sigma[10]
    np.testing.assert_allclose(s.numpy()[:6], sigma[:6], rtol=1e-4)
    tl.manual_seed(1)
    u0, s0, v0 = tl.svd_lowrank(a, q=10, niter=0)  # no power iterations: a worse basis
    assert np.linalg.norm((_rebuild(u0, s0, v0) - a).numpy(), 2) >= err


def test_batched_input_and_float32():
    a = tl.tensor(_low_rank(7, 5, 2, batch=(2, 3)), dtype=tl.float32)
    u, s, v = tl.svd_lowrank(a, q=2)
    assert u.shape == (2, 3, 7, 2) and s.shape == (2, 3, 2) and v.shape == (2, 3, 5, 2)
    assert u.dtype == tl.float32
    np.testing.assert_allclose(_rebuild(u, s, v).numpy(), a.numpy(), atol=1e-4)


def test_m_is_subtracted_and_broadcast():
    low = _low_rank(8, 6, 2, seed=4)
    shift = np.random.default_rng(5).standard_normal((1, 6))
    a = tl.tensor(low + shift, dtype=tl.float64)
    u, s, v = tl.svd_lowrank(a, q=2, M=tl.tensor(shift, dtype=tl.float64))
    np.testing.assert_allclose(_rebuild(u, s, v).numpy(), low, atol=1e-10)


def test_manual_seed_makes_results_repeatable():
    a = tl.tensor(np.random.default_rng(6).standard_normal((12, 10)), dtype=tl.float64)
    tl.manual_seed(7)
    first = tl.svd_lowrank(a, q=3, niter=0)
    tl.manual_seed(7)
    again = tl.svd_lowrank(a, q=3, niter=0)
    other = tl.svd_lowrank(a, q=3, niter=0)  # the generator moved on: another sketch
    for x, y in zip(first, again):
        assert np.array_equal(x.numpy(), y.numpy())
    assert not np.allclose(first[1].numpy(), other[1].numpy())


def test_pca_lowrank_is_the_svd_of_the_centred_data():
    rng = np.random.default_rng(8)
    data = _low_rank(20, 5, 3, seed=8) + rng.standard_normal(5) * 10  # offset columns
    a = tl.tensor(data, dtype=tl.float64)
    u, s, v = tl.pca_lowrank(a, q=3)
    centred = data - data.mean(0)
    assert u.shape == (20, 3) and s.shape == (3,) and v.shape == (5, 3)
    np.testing.assert_allclose(_rebuild(u, s, v).numpy(), centred, atol=1e-9)
    variances = np.sort(np.linalg.eigvalsh(np.cov(centred.T)))[::-1][:3]
    np.testing.assert_allclose((s ** 2 / 19).numpy(), variances, rtol=1e-9)
    assert [t.shape for t in tl.pca_lowrank(a)] == [(20, 5), (5,), (5, 5)]  # q = min(6, m, n)
    u, s, v = tl.pca_lowrank(a, q=3, center=False)  # plain svd_lowrank of the data
    assert s[0].item() > 10 * np.linalg.svd(centred, compute_uv=False)[0]


def test_argument_errors_match_torch():
    a = tl.ones(5, 4, dtype=tl.float64)
    with pytest.raises(ValueError, match=r"q\(=5\) must be non-negative"):
        tl.pca_lowrank(a, q=5)
    with pytest.raises(ValueError, match=r"q\(=-1\)"):
        tl.pca_lowrank(a, q=-1)
    with pytest.raises(ValueError, match=r"niter\(=-1\)"):
        tl.pca_lowrank(a, niter=-1)
    with pytest.raises(ValueError, match="matrix"):
        tl.svd_lowrank(tl.ones(5))
    with pytest.raises(RuntimeError, match="floating point"):
        tl.svd_lowrank(tl.ones(5, 4, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="floating point"):
        tl.pca_lowrank(tl.ones(5, 4, dtype=tl.int64))
    assert not hasattr(a, "svd_lowrank")  # functions only, as in PyTorch


def test_sparse_input_matches_the_dense_computation():
    dense = np.random.default_rng(9).standard_normal((8, 6))
    dense[np.abs(dense) < 0.8] = 0.0
    a = tl.tensor(dense, dtype=tl.float64)
    sp = a.to_sparse()
    for fn in (tl.svd_lowrank, tl.pca_lowrank):
        for x, xs in ((a, sp), (a.mT, sp.t())):  # tall and wide
            tl.manual_seed(2)
            expected = fn(x, q=3)
            tl.manual_seed(2)  # the same sketch: the same answer, without densifying
            got = fn(xs, q=3)
            for e, g in zip(expected, got):
                np.testing.assert_allclose(g.numpy(), e.numpy(), atol=1e-10)


def test_gradients_of_singular_values_of_an_exact_low_rank_matrix():
    a = tl.tensor(_low_rank(6, 5, 2, seed=10), dtype=tl.float64, requires_grad=True)

    def singular_values(x):
        tl.manual_seed(0)  # one sketch for every evaluation: a function of x alone
        return tl.svd_lowrank(x, q=2)[1]

    assert gradcheck(singular_values, (a,))
    # d sigma_i / dA = u_i v_i^T: the exact SVD's gradient
    singular_values(a).sum().backward()
    u, _, vh = np.linalg.svd(a.detach().numpy())
    np.testing.assert_allclose(a.grad.numpy(), u[:, :2] @ vh[:2], atol=1e-10)


def test_gradients_of_the_projection_and_of_pca():
    a = tl.tensor(_low_rank(5, 7, 2, seed=11), dtype=tl.float64, requires_grad=True)
    m = tl.tensor(np.random.default_rng(12).standard_normal((1, 7)), dtype=tl.float64,
                  requires_grad=True)

    def rebuilt(x, mean):
        tl.manual_seed(3)
        return _rebuild(*tl.svd_lowrank(x + mean, q=2, M=mean))

    assert gradcheck(rebuilt, (a, m))

    def pca_values(x):
        tl.manual_seed(4)
        return tl.pca_lowrank(x, q=2)[1]

    b = tl.tensor(_low_rank(6, 4, 2, seed=13), dtype=tl.float64, requires_grad=True)
    assert gradcheck(pca_values, (b - b.mean(0, keepdim=True),))


@pytest.mark.parametrize("shape,q,niter,use_m", [((9, 7), 3, 2, False), ((4, 10), 6, 2, False),
                                                  ((5, 4), None, 0, False), ((2, 6, 5), 2, 1,
                                                                             True)])
def test_shapes_dtypes_and_exact_values_match_torch(shape, q, niter, use_m):
    torch = pytest.importorskip("torch")
    mean = np.full((1, shape[-1]), 0.5)
    data = _low_rank(shape[-2], shape[-1], 2, seed=14, batch=shape[:-2]) + (mean if use_m else 0)
    tm = torch.tensor(mean) if use_m else None
    theirs = torch.svd_lowrank(torch.tensor(data), q=q, niter=niter, M=tm)
    ours = tl.svd_lowrank(tl.tensor(data, dtype=tl.float64), q=q, niter=niter,
                          M=tl.tensor(mean, dtype=tl.float64) if use_m else None)
    assert type(ours) is type(theirs) is tuple
    assert [tuple(t.shape) for t in ours] == [tuple(t.shape) for t in theirs]
    # the sketch differs, but rank-2 input (minus M) has the same projection and top values
    np.testing.assert_allclose(_rebuild(*ours).numpy(),
                               (theirs[0] * theirs[1].unsqueeze(-2) @ theirs[2].mT).numpy(),
                               atol=1e-9)
    np.testing.assert_allclose(ours[1].numpy()[..., :2], theirs[1].numpy()[..., :2],
                               rtol=1e-9)
    tp = torch.pca_lowrank(torch.tensor(data), q=2, niter=niter)
    op = tl.pca_lowrank(tl.tensor(data, dtype=tl.float64), q=2, niter=niter)
    assert [tuple(t.shape) for t in op] == [tuple(t.shape) for t in tp]
    np.testing.assert_allclose(op[1].numpy(), tp[1].numpy(), rtol=1e-9)
