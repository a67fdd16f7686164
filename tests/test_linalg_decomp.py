"""tl.linalg's decompositions (eigh, svd, qr) and what is built on them (svdvals, eigvalsh, pinv,
matrix_rank, lstsq, the 2/-2/nuclear matrix norms, tl.svd/qr/pinverse) against PyTorch: values
up to the sign of eigen/singular vectors, first and second order gradients of sign-invariant
functions of them, result types and fields, and PyTorch's errors."""

import gc
import warnings
import weakref

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
TALL = rng.standard_normal((2, 4, 3))
WIDE = rng.standard_normal((2, 3, 4))
SQUARE = rng.standard_normal((2, 3, 3))
SYM = SQUARE + SQUARE.transpose(0, 2, 1)
B = rng.standard_normal((2, 4, 2))
UPSTREAM = np.random.default_rng(1)


def both(fn, *arrays, second_order=False):
    """``fn(lib, *tensors)`` in tl and torch: its values, input gradients, and (second_order)
    the gradient of the weighted gradient, made with create_graph."""
    results = []
    for lib in (tl, torch):
        ts = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = fn(lib, *ts)
        seed = np.random.default_rng(1).standard_normal(tuple(out.shape))
        grads = (tl if lib is tl else torch).autograd.grad(
            out, ts, grad_outputs=lib.tensor(seed), create_graph=second_order)
        second = None
        if second_order:
            total = sum((g * lib.tensor(np.cos(a))).sum() for g, a in zip(grads, arrays))
            second = [g.detach().numpy() for g in
                      (tl if lib is tl else torch).autograd.grad(total, ts)]
        results.append((out.detach().numpy(), [g.detach().numpy() for g in grads], second))
    return results


def assert_same(fn, *arrays, second_order=True, atol=1e-8):
    (v1, g1, s1), (v2, g2, s2) = both(fn, *arrays, second_order=second_order)
    np.testing.assert_allclose(v1, v2, atol=atol)
    for a, b in zip(g1, g2):
        np.testing.assert_allclose(a, b, atol=atol)
    for a, b in zip(s1 or [], s2 or []):
        np.testing.assert_allclose(a, b, atol=atol * 100)


# sign-invariant functions of the vectors, as PyTorch's own gradchecks use
cases = {
    "svd-usv-tall": (lambda lib, a: (lambda r: (r.U * r.S.exp().unsqueeze(-2)) @ r.Vh)(
        lib.linalg.svd(a, full_matrices=False)), TALL),
    "svd-abs-wide-full": (lambda lib, a: (lambda r: r.U.abs() @ r.Vh[..., :3, :].abs())(
        lib.linalg.svd(a)), WIDE),
    "svd-abs-tall-full": (lambda lib, a: (lambda r: r.U[..., :, :3].abs() @ r.Vh.abs())(
        lib.linalg.svd(a)), TALL),
    "svd-S-only": (lambda lib, a: lib.linalg.svd(a).S, WIDE),
    "svdvals": (lambda lib, a: lib.linalg.svdvals(a), TALL),
    "eigh": (lambda lib, a: (lambda r: r.eigenvectors.abs() * r.eigenvalues.unsqueeze(-2))(
        lib.linalg.eigh(a + a.mT)), SQUARE),
    "eigh-upper-vectors": (lambda lib, a: lib.linalg.eigh(a, UPLO="U")[1].abs(), SYM),
    "eigvalsh": (lambda lib, a: lib.linalg.eigvalsh(a + a.mT), SQUARE),
    "qr-tall": (lambda lib, a: (lambda q, r: q @ r.sin())(*lib.linalg.qr(a)), TALL),
    "qr-wide": (lambda lib, a: (lambda q, r: q @ r.sin())(*lib.linalg.qr(a)), WIDE),
    "qr-R-only": (lambda lib, a: lib.linalg.qr(a).R, TALL),
    "qr-complete-wide": (lambda lib, a: (lambda q, r: q.exp() @ r)(
        *lib.linalg.qr(a, mode="complete")), WIDE),
    "pinv-tall": (lambda lib, a: lib.linalg.pinv(a), TALL),
    "pinv-wide": (lambda lib, a: lib.linalg.pinv(a), WIDE),
    "pinv-hermitian": (lambda lib, a: lib.linalg.pinv(a + a.mT, hermitian=True), SQUARE),
    "pinverse": (lambda lib, a: lib.pinverse(a), SQUARE),
    "lstsq": (lambda lib, a, b: lib.linalg.lstsq(a, b).solution, TALL, B),
    "lstsq-vector": (lambda lib, a, b: lib.linalg.lstsq(a, b[..., 0]).solution, TALL, B),
    "norm-2": (lambda lib, a: lib.linalg.matrix_norm(a, 2), TALL),
    "norm--2": (lambda lib, a: lib.linalg.matrix_norm(a, -2), WIDE),
    "norm-nuc": (lambda lib, a: lib.linalg.matrix_norm(a, "nuc"), TALL),
    "norm-nuc-dims-keepdim": (lambda lib, a: lib.linalg.matrix_norm(a, "nuc", dim=(0, 2),
                                                                    keepdim=True), TALL),
    "linalg-norm-2": (lambda lib, a: lib.linalg.norm(a[0], 2), TALL),
    "svd-old": (lambda lib, a: (lambda u, s, v: u.abs() @ (v.abs() * s.unsqueeze(-2)).mT)(
        *lib.svd(a)), TALL),
    "svd-old-some-false": (lambda lib, a: (lambda u, s, v: u.abs()[..., :3] @ v.abs().mT)(
        *lib.svd(a, some=False)), TALL),
    "qr-old-complete": (lambda lib, a: (lambda q, r: q @ r.cos())(*lib.qr(a, False)), WIDE),
}


@pytest.mark.parametrize("name", sorted(cases))
def test_values_and_gradients_match_pytorch(name):
    fn, *arrays = cases[name]
    with warnings.catch_warnings():  # torch.qr warns once per process that it is deprecated
        warnings.simplefilter("ignore", UserWarning)
        assert_same(fn, *arrays)


def test_factorizations_reconstruct_and_keep_dtype():
    for dtype in (tl.float32, tl.float64):
        a = tl.tensor(TALL, dtype=dtype)
        u, s, vh = tl.linalg.svd(a, full_matrices=False)
        q, r = tl.linalg.qr(a)
        lam, vec = tl.linalg.eigh(tl.tensor(SYM, dtype=dtype))
        tol = 1e-5 if dtype == tl.float32 else 1e-12
        np.testing.assert_allclose(((u * s.unsqueeze(-2)) @ vh).numpy(), TALL, atol=tol)
        np.testing.assert_allclose((q @ r).numpy(), TALL, atol=tol)
        np.testing.assert_allclose((vec * lam.unsqueeze(-2) @ vec.mT).numpy(), SYM, atol=tol * 10)
        assert {t.dtype for t in (u, s, vh, q, r, lam, vec)} == {dtype}
    full = tl.linalg.svd(tl.tensor(TALL))
    assert full.U.shape == (2, 4, 4) and full.Vh.shape == (2, 3, 3) and full.S.shape == (2, 3)
    assert tl.linalg.qr(tl.tensor(TALL), mode="complete").Q.shape == (2, 4, 4)
    only_r = tl.linalg.qr(tl.tensor(TALL), mode="r")
    assert only_r.Q.shape == (0,) and only_r.R.shape == (2, 3, 3)


def test_result_types_match_pytorch():
    a, ta = tl.tensor(TALL), torch.tensor(TALL)
    pairs = [(tl.linalg.svd(a), torch.linalg.svd(ta)), (tl.linalg.qr(a), torch.linalg.qr(ta)),
             (tl.linalg.eigh(tl.tensor(SYM)), torch.linalg.eigh(torch.tensor(SYM))),
             (tl.linalg.lstsq(a, tl.tensor(B)), torch.linalg.lstsq(ta, torch.tensor(B))),
             (tl.svd(a), torch.svd(ta))]
    for ours, theirs in pairs:
        assert type(ours).__name__ == type(theirs).__name__
        assert len(ours) == len(theirs)
        for field, value in zip(ours._fields, theirs):  # same names, same order
            assert getattr(theirs, field) is value
    u, s, v = tl.svd(a, compute_uv=False)
    tu, ts, tv = torch.svd(ta, compute_uv=False)
    assert u.shape == tuple(tu.shape) and v.shape == tuple(tv.shape) and not u.numpy().any()
    np.testing.assert_allclose(s.numpy(), ts.numpy(), atol=1e-12)


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("rank_deficient", [False, True])
def test_lstsq_fields_follow_pytorch_per_driver(driver, rank_deficient):
    a = TALL.copy()
    if rank_deficient:
        a[..., 2] = a[..., 1]
    ours = tl.linalg.lstsq(tl.tensor(a), tl.tensor(B), driver=driver)
    theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(B), driver=driver)
    meaningful = not (rank_deficient and driver == "gels")  # gels assumes full rank
    for field in ("solution", "residuals", "rank", "singular_values"):
        mine, ref = getattr(ours, field), getattr(theirs, field)
        assert mine.shape == tuple(ref.shape), field
        assert str(mine.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1], field
        if meaningful:
            np.testing.assert_allclose(mine.numpy(), ref.numpy(), atol=1e-10)


def test_matrix_rank_and_pinv_tolerances_match_pytorch():
    a = TALL.copy()
    a[0, :, 2] = a[0, :, 1] * 2
    low = a.copy()
    low[1] *= 1e-3
    for kwargs in ({}, {"atol": 0.01}, {"rtol": 0.5}, {"atol": 0.01, "rtol": 0.0},
                   {"atol": 1e-4, "rtol": 1e-20}):
        for hermitian, x in ((False, low), (True, SYM)):
            mine = tl.linalg.matrix_rank(tl.tensor(x), hermitian=hermitian, **kwargs)
            ref = torch.linalg.matrix_rank(torch.tensor(x), hermitian=hermitian, **kwargs)
            assert mine.dtype == tl.int64 and mine.tolist() == ref.tolist(), kwargs
            np.testing.assert_allclose(
                tl.linalg.pinv(tl.tensor(x), hermitian=hermitian, **kwargs).numpy(),
                torch.linalg.pinv(torch.tensor(x), hermitian=hermitian, **kwargs).numpy(),
                atol=1e-8)
    per_matrix = np.array([0.5, 1e-6])
    assert (tl.linalg.matrix_rank(tl.tensor(low), atol=tl.tensor(per_matrix)).tolist()
            == torch.linalg.matrix_rank(torch.tensor(low), atol=torch.tensor(per_matrix)).tolist())
    np.testing.assert_allclose(tl.pinverse(tl.tensor(a), rcond=1e-3).numpy(),
                               torch.pinverse(torch.tensor(a), rcond=1e-3).numpy(), atol=1e-8)


def test_spectral_norms_through_linalg_norm():
    for ord_ in (2, -2, "nuc"):
        np.testing.assert_allclose(tl.linalg.norm(tl.tensor(TALL[0]), ord_).numpy(),
                                   torch.linalg.norm(torch.tensor(TALL[0]), ord_).numpy())
        mine = tl.linalg.matrix_norm(tl.tensor(TALL), ord_, dim=(-1, 0), keepdim=True)
        ref = torch.linalg.matrix_norm(torch.tensor(TALL), ord_, dim=(-1, 0), keepdim=True)
        np.testing.assert_allclose(mine.numpy(), ref.numpy(), atol=1e-12)


def test_no_reference_cycle_and_in_place_changes_are_caught():
    gc.disable()
    try:
        x = tl.tensor(TALL, requires_grad=True)
        u, s, vh = tl.linalg.svd(x)
        node = weakref.ref(s.grad_fn)
        del u, s, vh
        assert node() is None  # freed by reference counting alone
    finally:
        gc.enable()
    x = tl.tensor(SYM, requires_grad=True)
    lam, vec = tl.linalg.eigh(x)
    loss = lam.sum() + vec.abs().sum()
    with tl.no_grad():
        vec.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        loss.backward()


def _raises_like(ours, theirs):
    with pytest.raises(Exception) as ref:
        theirs()
    with pytest.raises(type(ref.value)) as mine:
        ours()
    assert str(ref.value).splitlines()[0] in str(mine.value), (str(mine.value), str(ref.value))


error_cases = {
    "svd-1d": lambda lib: lib.linalg.svd(lib.ones(3)),
    "svd-int": lambda lib: lib.linalg.svd(lib.ones(2, 2, dtype=lib.int64)),
    "svdvals-1d": lambda lib: lib.linalg.svdvals(lib.ones(3)),
    "eigh-not-square": lambda lib: lib.linalg.eigh(lib.ones(2, 3)),
    "eigh-1d": lambda lib: lib.linalg.eigh(lib.ones(3)),
    "eigh-uplo": lambda lib: lib.linalg.eigh(lib.eye(2), UPLO="X"),
    "eigvalsh-not-square": lambda lib: lib.linalg.eigvalsh(lib.ones(2, 3)),
    "qr-mode": lambda lib: lib.linalg.qr(lib.eye(2), mode="x"),
    "qr-1d": lambda lib: lib.linalg.qr(lib.ones(2)),
    "qr-int": lambda lib: lib.linalg.qr(lib.ones(2, 2, dtype=lib.int64)),
    "pinv-1d": lambda lib: lib.linalg.pinv(lib.ones(2)),
    "pinv-int": lambda lib: lib.linalg.pinv(lib.ones(2, 2, dtype=lib.int64)),
    "matrix_rank-1d": lambda lib: lib.linalg.matrix_rank(lib.ones(2)),
    "matrix_rank-int": lambda lib: lib.linalg.matrix_rank(lib.ones(2, 2, dtype=lib.int64)),
    "lstsq-rows": lambda lib: lib.linalg.lstsq(lib.ones(3, 2), lib.ones(4, 1)),
    "lstsq-driver": lambda lib: lib.linalg.lstsq(lib.ones(3, 2), lib.ones(3, 1), driver="x"),
    "lstsq-1d": lambda lib: lib.linalg.lstsq(lib.ones(3), lib.ones(3)),
    "lstsq-ndim": lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(2, 2, 4, 1)),
    "lstsq-dtype": lambda lib: lib.linalg.lstsq(lib.ones(3, 2), lib.ones(3, 1,
                                                                         dtype=lib.float64)),
    "lstsq-int": lambda lib: lib.linalg.lstsq(lib.ones(3, 2, dtype=lib.int64),
                                              lib.ones(3, 1, dtype=lib.int64)),
    "matrix_norm-order": lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2), ord=3),
    "matrix_norm-1d": lambda lib: lib.linalg.matrix_norm(lib.ones(2), ord=2),
    "matrix_norm-half": lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2, dtype=lib.float16),
                                                           ord="nuc"),
    "svd-old-1d": lambda lib: lib.svd(lib.ones(2)),
}


@pytest.mark.parametrize("name", sorted(error_cases))
def test_errors_match_pytorch(name):
    fn = error_cases[name]
    _raises_like(lambda: fn(tl), lambda: fn(torch))


def test_backward_refusals_match_pytorch():
    for mode, message in (("r", "depends on Q, which is not computed"),
                          ("complete", "not differentiable when mode='complete'")):
        for lib in (tl, torch):
            x = lib.tensor(TALL, requires_grad=True)
            with pytest.raises(RuntimeError, match=message):
                lib.linalg.qr(x, mode=mode).R.sum().backward()
    half = tl.ones(2, 2, dtype=tl.float16)
    for fn in (tl.linalg.svd, tl.linalg.eigh, tl.linalg.qr, tl.linalg.pinv, tl.linalg.svdvals):
        with pytest.raises(RuntimeError, match="Low precision dtypes not supported"):
            fn(half)


def test_repeated_values_give_pytorch_non_finite_vector_gradients():
    x = tl.tensor(np.eye(3), requires_grad=True)
    tl.linalg.eigvalsh(x).sum().backward()  # eigenvalues alone: fine
    np.testing.assert_allclose(x.grad.numpy(), np.eye(3))
    y = tl.tensor(np.eye(3), requires_grad=True)
    tl.linalg.svdvals(y).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), np.eye(3))
    z = tl.tensor(np.eye(3), requires_grad=True)
    tl.linalg.eigh(z).eigenvectors.sum().backward()
    assert not np.isfinite(z.grad.numpy()).all()
