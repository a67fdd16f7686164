"""Differential tests of the SVD, eigh, eig, pinv and matrix_rank against PyTorch at their
edges: the convergence errors for non-finite input (message, batch element, syevd's error
code), the ``driver=`` keyword of svd/svdvals on CPU, UPLO in either case, the dtype errors of
eigh and eig in PyTorch's check order, the positional and mixed older tolerances (rcond, tol)
of pinv and matrix_rank, and hermitian pinv/matrix_rank on empty and non-square matrices."""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)


def _nan_batch(n):
    a = RNG.standard_normal((2, n, n))
    a = a + np.swapaxes(a, -1, -2)
    a[1, 0, 0] = np.nan
    return a


def _same_error(call, a):
    """Both libraries raise the same message, ours of (a subclass of) PyTorch's type."""
    with pytest.raises(Exception) as ref:
        call(torch, torch.tensor(a))
    expected = tl.linalg.LinAlgError if isinstance(ref.value, torch.linalg.LinAlgError) \
        else type(ref.value)
    with pytest.raises(expected) as ours:
        call(tl, tl.tensor(a))
    assert str(ours.value) == str(ref.value)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.linalg.svd(x),
    lambda lib, x: lib.linalg.svdvals(x),
    lambda lib, x: lib.svd(x),
    lambda lib, x: lib.linalg.svd(x[1]),
    lambda lib, x: lib.linalg.pinv(x),
    lambda lib, x: lib.linalg.matrix_rank(x),
])
def test_svd_of_non_finite_input_names_it_and_the_batch_element(call):
    _same_error(call, _nan_batch(3))


@pytest.mark.parametrize("n", [3, 4, 6])
@pytest.mark.parametrize("call", [
    lambda lib, x: lib.linalg.eigh(x),
    lambda lib, x: lib.linalg.eigh(x, UPLO="U"),
    lambda lib, x: lib.linalg.eigvalsh(x),
    lambda lib, x: lib.linalg.eigh(x[1]),
    lambda lib, x: lib.linalg.pinv(x, hermitian=True),
    lambda lib, x: lib.linalg.matrix_rank(x, hermitian=True),
])
def test_eigh_of_nan_input_gives_pytorchs_error_and_code(call, n):
    _same_error(call, _nan_batch(n))


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.linalg.svd(x, driver="gesvd"),
    lambda lib, x: lib.linalg.svdvals(x, driver="gesvdj"),
    lambda lib, x: lib.linalg.svd(x[0], driver="gesvd"),  # the dimension check comes first
])
def test_svd_driver_is_refused_on_cpu(call):
    _same_error(call, RNG.standard_normal((3, 3)))


def test_svd_driver_none_is_accepted():
    a = RNG.standard_normal((4, 3))
    ours = tl.linalg.svd(tl.tensor(a), full_matrices=False, driver=None)
    ref = torch.linalg.svdvals(torch.tensor(a), driver=None)
    np.testing.assert_allclose(ours.S.numpy(), ref.numpy(), rtol=1e-12)
    np.testing.assert_allclose(tl.linalg.svdvals(tl.tensor(a), driver=None).numpy(),
                               ref.numpy(), rtol=1e-12)


@pytest.mark.parametrize("uplo", ["l", "u", "L", "U"])
def test_uplo_is_read_in_either_case(uplo):
    a = RNG.standard_normal((2, 4, 4))  # not symmetric: the triangle read matters
    ref = torch.linalg.eigh(torch.tensor(a), UPLO=uplo)
    ours = tl.linalg.eigh(tl.tensor(a), UPLO=uplo)
    np.testing.assert_allclose(ours.eigenvalues.numpy(), ref.eigenvalues.numpy(), atol=1e-10)
    np.testing.assert_allclose(np.abs(ours.eigenvectors.numpy()),
                               np.abs(ref.eigenvectors.numpy()), atol=1e-8)
    np.testing.assert_allclose(tl.linalg.eigvalsh(tl.tensor(a), UPLO=uplo).numpy(),
                               torch.linalg.eigvalsh(torch.tensor(a), UPLO=uplo).numpy(),
                               atol=1e-10)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.linalg.eigh(x, UPLO="x"),
    lambda lib, x: lib.linalg.eigvalsh(x, UPLO="LU"),
])
def test_bad_uplo_is_refused(call):
    _same_error(call, np.eye(3))


@pytest.mark.parametrize("a", [np.ones((3, 3), np.int64), np.ones((2, 2), np.int32),
                               np.ones((3, 3), bool), np.ones((3, 4), np.int64),
                               np.ones(3, np.int64)])
@pytest.mark.parametrize("call", [lambda lib, x: lib.linalg.eigh(x),
                                  lambda lib, x: lib.linalg.eigvalsh(x),
                                  lambda lib, x: lib.linalg.eigh(x, UPLO="x")])
def test_eigh_of_integers_is_pytorchs_not_implemented_error(call, a):
    _same_error(call, a)


@pytest.mark.parametrize("a", [np.ones((3, 3), np.int64), np.ones((3, 4), np.int32),
                               np.ones(3, np.int64), np.ones((3, 3), np.float16),
                               np.ones((3, 4), np.float16), np.ones(3, np.float16),
                               np.ones((3, 3))])
@pytest.mark.parametrize("name", ["eig", "eigvals"])
def test_eig_checks_come_in_pytorchs_order(name, a):
    with pytest.raises(Exception) as ref:
        getattr(torch.linalg, name)(torch.tensor(a))
        raise NotImplementedError  # complex result: ours refuses float input as unsupported
    with pytest.raises(RuntimeError) as ours:
        getattr(tl.linalg, name)(tl.tensor(a))
    if a.ndim == 2 and a.shape[0] == a.shape[1] and a.dtype == np.float64:
        assert isinstance(ours.value, NotImplementedError)
        assert "complex" in str(ours.value)
    else:
        assert type(ours.value) is type(ref.value)
        assert str(ours.value) == str(ref.value)


def test_older_tolerances_are_positional():
    a = RNG.standard_normal((3, 3))
    a = a + a.T
    for args in [(0.5,), (0.5, True), (0.0, False)]:
        assert tl.linalg.matrix_rank(tl.tensor(a), *args).item() == \
            torch.linalg.matrix_rank(torch.tensor(a), *args).item()
        np.testing.assert_allclose(tl.linalg.pinv(tl.tensor(a), *args).numpy(),
                                   torch.linalg.pinv(torch.tensor(a), *args).numpy(),
                                   atol=1e-10)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.linalg.pinv(x, rcond=0.1, atol=0.2),
    lambda lib, x: lib.linalg.pinv(x, 0.1, rtol=0.2),
    lambda lib, x: lib.linalg.matrix_rank(x, tol=0.1, rtol=0.2),
    lambda lib, x: lib.linalg.matrix_rank(x, 0.1, atol=0.2),
])
def test_older_and_newer_tolerances_do_not_mix(call):
    with pytest.raises(TypeError, match="received an invalid combination of arguments"):
        call(torch, torch.tensor(np.eye(3)))
    with pytest.raises(TypeError, match="received an invalid combination of arguments"):
        call(tl, tl.tensor(np.eye(3)))


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (2, 0, 0), (0, 2, 2)])
def test_hermitian_pinv_and_rank_of_empty_matrices(shape):
    a = np.zeros(shape)
    ref_p = torch.linalg.pinv(torch.tensor(a), hermitian=True)
    ours_p = tl.linalg.pinv(tl.tensor(a), hermitian=True)
    assert tuple(ours_p.shape) == tuple(ref_p.shape)
    ref_r = torch.linalg.matrix_rank(torch.tensor(a), hermitian=True)
    ours_r = tl.linalg.matrix_rank(tl.tensor(a), hermitian=True)
    assert ours_r.dtype == tl.int64
    np.testing.assert_array_equal(ours_r.numpy(), ref_r.numpy())


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.linalg.pinv(x, hermitian=True),
    lambda lib, x: lib.linalg.matrix_rank(x, hermitian=True),
])
@pytest.mark.parametrize("shape", [(2, 3), (4, 2), (2, 2, 3)])
def test_hermitian_pinv_and_rank_of_non_square_matrices(call, shape):
    _same_error(call, RNG.standard_normal(shape))
