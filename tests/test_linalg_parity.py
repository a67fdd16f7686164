"""Differential tests of tl.linalg and the matrix products against PyTorch at their edges:
singular and non-positive-definite inputs (the ``_ex`` infos, LAPACK's inf/NaN results, the
errors that name the pivot, the leading minor and the batch element), PyTorch's gradients at
singular matrices and zero vectors, empty reductions of the norms, and the argument checks of
tensordot, inner, vdot, ger, multi_dot, chain_matmul, vecdot, cross and the norms."""

import math

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
NOT_PD = np.array([[4.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])  # minor of order 2 is 0


def _both(call, *arrays):
    """``call(lib, *tensors)`` for tinygrad_lite and for PyTorch."""
    return (call(tl, *[tl.tensor(a) for a in arrays]),
            call(torch, *[torch.tensor(a) for a in arrays]))


def _same_error(call, *arrays):
    """Both libraries raise the same message, ours of (a subclass of) PyTorch's type."""
    with pytest.raises(Exception) as ref:
        call(torch, *[torch.tensor(a) for a in arrays])
    expected = tl.linalg.LinAlgError if isinstance(ref.value, torch.linalg.LinAlgError) \
        else type(ref.value)
    with pytest.raises(expected) as ours:
        call(tl, *[tl.tensor(a) for a in arrays])
    assert str(ours.value) == str(ref.value)


def _grads(call, *arrays):
    """The gradients of ``call(lib, *tensors).sum()`` in both libraries, as arrays."""
    out = []
    for lib in (tl, torch):
        ts = [lib.tensor(a, requires_grad=True) for a in arrays]
        call(lib, *ts).sum().backward()
        out.append([t.grad.numpy() for t in ts])
    return out


def test_linalg_error_is_a_runtime_error():
    assert issubclass(tl.linalg.LinAlgError, RuntimeError)


def test_inv_ex_reports_singular_matrices_with_lapacks_result():
    batch = np.stack([np.eye(3), SINGULAR])
    for a in (SINGULAR, batch):
        ours, ref = _both(lambda lib, x: lib.linalg.inv_ex(x), a)
        np.testing.assert_array_equal(ours.inverse.numpy(), ref.inverse.numpy())  # inf/NaN
        assert ours.info.dtype == tl.int32
        np.testing.assert_array_equal(ours.info.numpy(), ref.info.numpy())


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.linalg.inv(x), lambda lib, x: lib.inverse(x),
    lambda lib, x: lib.linalg.inv_ex(x, check_errors=True),
    lambda lib, x: lib.linalg.matrix_power(x, -2)])
@pytest.mark.parametrize("a", [SINGULAR, np.zeros((2, 2)), np.stack([np.eye(3), SINGULAR])])
def test_singular_inverse_errors_name_the_pivot_and_batch_element(call, a):
    _same_error(call, a)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.linalg.det(x), lambda lib, x: lib.linalg.inv(x),
    lambda lib, x: lib.logdet(x),
    lambda lib, x: lib.linalg.slogdet(x), lambda lib, x: lib.linalg.inv_ex(x),
    lambda lib, x: lib.linalg.cholesky_ex(x), lambda lib, x: lib.linalg.matrix_exp(x)])
@pytest.mark.parametrize("a", [np.ones(3), np.ones((2, 3)), np.eye(3, dtype=np.int64)])
def test_square_matrix_checks_match_pytorch(call, a):
    _same_error(call, a)


@pytest.mark.parametrize("n", [0, 2, -1])
@pytest.mark.parametrize("a", [np.ones(3), np.ones((2, 3))])
def test_matrix_power_checks_match_pytorch(n, a):
    _same_error(lambda lib, x: lib.linalg.matrix_power(x, n), a)


def test_det_gradient_at_singular_matrices_is_the_cofactor_matrix_not_pytorchs_zero():
    """A documented difference: PyTorch's first-order rule gives 0 at an exactly singular
    matrix (its LU formula; pytorch#104675); the gradient is the cofactor matrix, nonzero
    below rank n - 1 only when the rank is n - 1."""
    rank_one = np.array([[1.0, 2.0], [2.0, 4.0]])
    (ours,), (ref,) = _grads(lambda lib, x: lib.linalg.det(x), rank_one)
    assert not ref.any()
    np.testing.assert_allclose(ours, [[4.0, -2.0], [-2.0, 1.0]], atol=1e-12)
    (ours,), _ = _grads(lambda lib, x: lib.linalg.det(x), np.zeros((3, 3)))
    assert not ours.any()  # rank n - 2: every cofactor is 0
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    (ours,), (ref,) = _grads(lambda lib, x: lib.linalg.det(x), a)
    np.testing.assert_allclose(ours, ref, rtol=1e-12)


@pytest.mark.parametrize("call", [lambda lib, x: lib.linalg.slogdet(x)[1],
                                  lambda lib, x: lib.logdet(x)])
def test_logdet_gradient_at_singular_matrices_is_lapacks_inf_nan(call):
    (ours,), (ref,) = _grads(call, SINGULAR)
    np.testing.assert_allclose(ours, ref, rtol=1e-12)  # (inf entries compare as equal)
    assert np.isinf(ours).any()


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex_gives_the_failing_minor_and_lapacks_partial_factor(upper):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 5))
    spd = x @ x.T + np.eye(5)
    bad = spd.copy()
    bad[3, 3] = -50.0
    for a in (NOT_PD, np.stack([spd, bad, -np.eye(5)])):
        ours, ref = _both(lambda lib, m: lib.linalg.cholesky_ex(m, upper=upper), a)
        np.testing.assert_array_equal(ours.info.numpy(), ref.info.numpy())
        np.testing.assert_allclose(ours.L.numpy(), ref.L.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.linalg.cholesky(x), lambda lib, x: lib.linalg.cholesky(x, upper=True),
    lambda lib, x: lib.linalg.cholesky_ex(x, check_errors=True), lambda lib, x: lib.cholesky(x)])
@pytest.mark.parametrize("a", [NOT_PD, np.stack([np.eye(3), -np.eye(3)])])
def test_cholesky_errors_name_the_minor_and_batch_element(call, a):
    _same_error(call, a)


def test_cholesky_upper_reads_the_upper_triangle():
    a = np.array([[4.0, 2.0], [100.0, 3.0]])  # the lower triangle alone is not PD
    ours, ref = _both(lambda lib, x: lib.linalg.cholesky(x, upper=True), a)
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-12)
    _same_error(lambda lib, x: lib.linalg.cholesky(x), a)


def test_solve_ex_info_follows_the_batch_of_a():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((3, 3)), rng.standard_normal((5, 3, 2))
    ours, ref = _both(lambda lib, x, y: lib.linalg.solve_ex(x, y), a, b)
    assert tuple(ours.info.shape) == tuple(ref.info.shape) == ()
    a, b = np.stack([np.eye(2), np.zeros((2, 2))]), np.ones((3, 1, 2, 2))
    ours, ref = _both(lambda lib, x, y: lib.linalg.solve_ex(x, y, left=False), a, b)
    np.testing.assert_array_equal(ours.info.numpy(), ref.info.numpy())
    np.testing.assert_array_equal(ours.result.numpy()[:, 0], ref.result.numpy()[:, 0])


@pytest.mark.parametrize("a, b", [
    (np.stack([np.eye(2), np.zeros((2, 2))]), np.ones((3, 2, 2, 2))),
    (SINGULAR, np.ones((3, 1)))])
def test_singular_solve_error_is_pytorchs(a, b):
    _same_error(lambda lib, x, y: lib.linalg.solve(x, y), a, b)


def test_solve_with_a_vector_and_left_false_is_an_incompatible_shape():
    _same_error(lambda lib, x, y: lib.linalg.solve(x, y, left=False), np.eye(3), np.ones(3))
    _same_error(lambda lib, x, y: lib.linalg.solve(x, y, left=False), np.ones((4, 3, 3)),
                np.ones((4, 3)))


def test_matrix_power_zero_has_a_zero_gradient():
    a = np.arange(9.0).reshape(3, 3)
    (ours,), (ref,) = _grads(lambda lib, x: lib.linalg.matrix_power(x, 0), a)
    np.testing.assert_array_equal(ours, ref)
    ours, ref = _both(lambda lib, x: lib.linalg.matrix_power(x, 0), np.eye(2, dtype=np.int64) * 3)
    assert ours.dtype == tl.int64 and ours.tolist() == ref.tolist()


# -- norms ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kw, shape", [({"dim": ()}, (2, 3)), ({"keepdim": True}, (2, 3)),
                                       ({"dim": (), "keepdim": True}, (2, 3, 4))])
def test_vector_norm_over_all_dims(kw, shape):
    a = np.random.default_rng(2).standard_normal(shape)
    ours, ref = _both(lambda lib, x: lib.linalg.vector_norm(x, **kw), a)
    assert tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-12)


@pytest.mark.parametrize("ord_", [-1, -2, -0.5])
@pytest.mark.parametrize("a", [np.zeros(4), np.array([0.0, 1.0, 2.0])])
def test_negative_order_norms_have_zero_gradients_where_the_norm_is_zero(ord_, a):
    (ours,), (ref,) = _grads(lambda lib, x: lib.linalg.vector_norm(x, ord_), a)
    np.testing.assert_array_equal(ours, ref)
    b = np.array([0.5, 1.0, 2.0])
    (ours,), (ref,) = _grads(lambda lib, x: lib.linalg.vector_norm(x, ord_), b)
    np.testing.assert_allclose(ours, ref, rtol=1e-12)


@pytest.mark.parametrize("call, a", [
    (lambda lib, x: lib.linalg.vector_norm(x, -1), np.zeros(0)),
    (lambda lib, x: lib.linalg.vector_norm(x, math.inf), np.zeros(0)),
    (lambda lib, x: lib.linalg.vector_norm(x, -1.5, dim=(0, 1)), np.zeros((2, 0, 3))),
    (lambda lib, x: lib.linalg.vector_norm(x, -math.inf, dim=1), np.zeros((2, 0))),
    (lambda lib, x: lib.linalg.vector_norm(x), np.arange(3)),
    (lambda lib, x: lib.linalg.vector_norm(x, dtype=lib.int64), np.ones(3)),
    (lambda lib, x: lib.linalg.vector_norm(x, dtype=lib.float32), np.ones(3)),
    (lambda lib, x: lib.linalg.vector_norm(x, dim=(0, 0)), np.ones((2, 3))),
    (lambda lib, x: lib.linalg.vector_norm(x, None), np.ones(3)),
    (lambda lib, x: lib.linalg.matrix_norm(x), np.ones((2, 2), np.int64)),
    (lambda lib, x: lib.linalg.matrix_norm(x, dim=(1, 1)), np.ones((2, 2))),
    (lambda lib, x: lib.linalg.norm(x, "fro"), np.ones(3)),
    (lambda lib, x: lib.linalg.norm(x, 2), np.ones((2, 2, 2))),
    (lambda lib, x: lib.linalg.norm(x, "nuc", dim=1), np.ones((2, 2, 2))),
])
def test_norm_argument_errors_match_pytorch(call, a):
    _same_error(call, a)


def test_vector_norm_of_an_empty_dim_that_is_not_reduced():
    ours, ref = _both(lambda lib, x: lib.linalg.vector_norm(x, -1, dim=(0, 2)), np.zeros((2, 0, 3)))
    assert tuple(ours.shape) == tuple(ref.shape) == (0,)


def test_frobenius_norm_of_a_zero_matrix_has_a_zero_gradient():
    (ours,), (ref,) = _grads(lambda lib, x: lib.linalg.matrix_norm(x), np.zeros((3, 3)))
    np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize("ord_", ["fro", "nuc", 2, 1, math.inf])
@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (2, 0, 3)])
def test_matrix_norms_of_empty_matrices_are_zero(ord_, shape):
    ours, ref = _both(lambda lib, x: lib.linalg.matrix_norm(x, ord_), np.zeros(shape))
    assert tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_array_equal(ours.numpy(), ref.numpy())


# -- products -------------------------------------------------------------------------------


@pytest.mark.parametrize("call, a, b", [
    (lambda lib, x, y: lib.tensordot(x, y, dims=-1), (2, 3), (3, 2)),
    (lambda lib, x, y: lib.tensordot(x, y, dims=3), (2, 3), (3, 4)),
    (lambda lib, x, y: lib.tensordot(x, y, dims=1), (2, 3), (4, 5)),
    (lambda lib, x, y: lib.tensordot(x, y, dims=([1, 2], [1, 0])), (2, 3, 4), (5, 3)),
    (lambda lib, x, y: lib.tensordot(x, y, dims=([1, 2], [1])), (2, 3, 4), (4, 3, 2)),
    (lambda lib, x, y: lib.inner(x, y), (2, 3), (4, 2)),
    (lambda lib, x, y: lib.ger(x, y), (2, 3), (3,)),
    (lambda lib, x, y: lib.ger(x, y), (3,), ()),
    (lambda lib, x, y: lib.vdot(x, y), (3,), (4,)),
    (lambda lib, *xs: lib.linalg.multi_dot(list(xs)), (2, 2, 3), (3, 4)),
    (lambda lib, *xs: lib.linalg.multi_dot(list(xs)), (2, 3), (4, 5)),
    (lambda lib, *xs: lib.linalg.multi_dot([xs[0], xs[1], xs[1].unsqueeze(0)]), (3, 3), (3, 3)),
    (lambda lib, x, y: lib.chain_matmul(x, y), (3,), (3, 4)),
    (lambda lib, x, y: lib.linalg.cross(x, y), (2, 1, 3), (4, 3)),
    (lambda lib, x, y: lib.cross(x, y, dim=-1), (3,), (2, 3)),
])
def test_product_shape_errors_match_pytorch(call, a, b):
    rng = np.random.default_rng(3)
    _same_error(call, rng.standard_normal(a), rng.standard_normal(b))


@pytest.mark.parametrize("call, a, b", [
    (lambda lib, x, y: lib.tensordot(x, y, dims=1), np.ones((2, 3)), np.ones((3, 2), np.float32)),
    (lambda lib, x, y: lib.inner(x, y), np.ones(3), np.ones(3, np.float32)),
    (lambda lib, x, y: lib.vdot(x, y), np.ones(3), np.ones(3, np.float32)),
    (lambda lib, x, y: lib.vdot(x, y), np.ones(3, bool), np.ones(3, bool)),
    (lambda lib, x, y: lib.linalg.vecdot(x, y), np.ones(3), np.ones(3, np.float32)),
    (lambda lib, x, y: lib.dot(x, y), np.ones(3, np.int64), np.ones(3, np.float32)),
    (lambda lib, x, y: lib.dot(x, y), np.ones(3, np.float32), np.ones(3)),
    (lambda lib, x, y: lib.linalg.vecdot(x, y), np.ones(3, np.int64), np.ones(3, np.int64)),
    (lambda lib, x, y: lib.cross(x, y), np.ones(4), np.ones(4)),
])
def test_product_dtype_errors_match_pytorch(call, a, b):
    _same_error(call, a, b)


def test_cross_names_the_shapes_that_do_not_broadcast():
    with pytest.raises(RuntimeError) as ref:
        torch.linalg.cross(torch.ones(2, 3), torch.ones(3, 3))
    with pytest.raises(RuntimeError, match=r"^linalg\.cross: shapes \(2, 3\) and \(3, 3\)") as ours:
        tl.linalg.cross(tl.ones(2, 3), tl.ones(3, 3))
    assert str(ref.value)[1:] in str(ours.value)  # PyTorch's text, after the shapes


def test_chain_matmul_edge_cases():
    _same_error(lambda lib: lib.chain_matmul())
    a = np.arange(6.0).reshape(2, 3)
    ours, ref = _both(lambda lib, x: lib.chain_matmul(x), a)
    assert ours.tolist() == ref.tolist()


@pytest.mark.parametrize("call, a, b", [
    (lambda lib, x, y: lib.inner(x, y), (0,), (0,)),
    (lambda lib, x, y: lib.inner(x, y), (2, 0), (3, 0)),
    (lambda lib, x, y: lib.tensordot(x, y, dims=1), (2, 0), (0, 3)),
    (lambda lib, x, y: lib.tensordot(x, y, dims=lib.tensor(1)), (2, 3), (3, 4)),
])
def test_zero_size_contractions_and_tensor_dims(call, a, b):
    rng = np.random.default_rng(4)
    ours, ref = _both(call, rng.standard_normal(a), rng.standard_normal(b))
    assert tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-12)


def test_zero_norm_stays_in_the_graph_and_sends_no_gradient():
    """The 0-"norm" counts nonzero entries (NaN included); PyTorch keeps it in the graph with
    an undefined gradient, so backward works and x.grad stays None (it raised here: the count
    had no grad_fn)."""
    a = np.array([[1.0, 0.0, np.nan], [0.0, 0.0, -2.0]])
    results = []
    for lib in (tl, torch):
        x = lib.tensor(a, requires_grad=True)
        outs = [lib.linalg.vector_norm(x, 0), lib.linalg.vector_norm(x, 0, dim=1),
                lib.linalg.vector_norm(x, 0, dim=(0,), keepdim=True)]
        assert all(o.requires_grad for o in outs)
        sum(o.sum() for o in outs).backward()
        assert x.grad is None
        (lib.linalg.vector_norm(x, 0, dim=1).sum() + x.sum()).backward()
        results.append(([o.tolist() for o in outs], x.grad.tolist()))
    assert results[0] == results[1]
