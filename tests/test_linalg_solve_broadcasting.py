"""Batch broadcasting of the triangular and Cholesky solvers (linalg.solve_triangular,
cholesky_solve) and of the other solvers that share the code (linalg.solve, linalg.lu_solve,
lu_solve, triangular_solve): the batch dims of A and B broadcast as PyTorch's, forward and
backward (each gradient summed back to its input's shape, float64 gradchecks), and PyTorch's
values, gradients, dtypes and errors."""

import numpy as np
import pytest

import tinygrad_lite as tl

# PyTorch's deprecation notes of torch.lu_solve and torch.triangular_solve
pytestmark = pytest.mark.filterwarnings("ignore:torch.*is deprecated:UserWarning")

# (A's shape, B's shape) pairs whose batch dims broadcast in every way: a missing dim, a 1 on
# either side, no batch on one side
SHAPES = [((2, 1, 3, 3), (4, 3, 2)), ((3, 3), (4, 3, 2)), ((4, 3, 3), (3, 2)),
          ((2, 1, 3, 3), (1, 5, 3, 2)), ((1, 3, 3), (2, 3, 1)), ((3, 3), (3, 2))]


def _triangular(shape, seed=0):
    """Well-conditioned square matrices (a dominant diagonal), full of nonzeros."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) * 0.3 + 2.0 * np.eye(shape[-1])


def _factor(shape, upper=False, seed=0):
    """Cholesky factors of symmetric positive-definite matrices."""
    rng = np.random.default_rng(seed)
    m = rng.standard_normal(shape)
    lower = np.linalg.cholesky(m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1]))
    return np.swapaxes(lower, -1, -2) if upper else lower


def _rhs(shape, seed=1):
    return np.random.default_rng(seed).standard_normal(shape)


def _t(a, grad=False):
    return tl.tensor(np.ascontiguousarray(a, dtype=np.float64), requires_grad=grad)


def _right(shape):
    """B's shape for ``X A = B``: the last two dims swapped."""
    return (*shape[:-2], shape[-1], shape[-2])


@pytest.mark.parametrize("a_shape, b_shape", SHAPES)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular_broadcasts_and_gradchecks(a_shape, b_shape, upper, left, unit):
    b_shape = b_shape if left else _right(b_shape)
    a, b = _t(_triangular(a_shape), True), _t(_rhs(b_shape), True)
    x = tl.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit)
    batch = np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    assert tuple(x.shape) == (*batch, *b_shape[-2:])
    x.sum().backward()
    assert a.grad.shape == a_shape and b.grad.shape == b_shape
    assert tl.autograd.gradcheck(
        lambda a_, b_: tl.linalg.solve_triangular(a_, b_, upper=upper, left=left,
                                                  unitriangular=unit), (a, b))


@pytest.mark.parametrize("a_shape, b_shape", SHAPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_broadcasts_and_gradchecks(a_shape, b_shape, upper):
    factor, b = _t(_factor(a_shape, upper), True), _t(_rhs(b_shape), True)
    x = tl.cholesky_solve(b, factor, upper=upper)
    assert tuple(x.shape) == (*np.broadcast_shapes(a_shape[:-2], b_shape[:-2]), *b_shape[-2:])
    x.sum().backward()
    assert factor.grad.shape == a_shape and b.grad.shape == b_shape
    # only the factor's triangle is read, so perturb that (PyTorch's gradcheck does the same)
    tri = np.triu if upper else np.tril
    mask = tl.tensor(tri(np.ones(a_shape[-2:])))
    assert tl.autograd.gradcheck(lambda f, b_: tl.cholesky_solve(b_, f * mask, upper=upper),
                                 (factor, b))
    assert tl.autograd.gradgradcheck(lambda f, b_: tl.cholesky_solve(b_, f * mask, upper=upper),
                                     (factor, b))


def test_solve_triangular_second_order_with_broadcasting():
    a, b = _t(_triangular((2, 1, 3, 3)), True), _t(_rhs((4, 3, 2)), True)
    assert tl.autograd.gradgradcheck(
        lambda a_, b_: tl.linalg.solve_triangular(a_, b_, upper=True), (a, b))


@pytest.mark.parametrize("a_shape, b_shape", SHAPES)
def test_other_solvers_broadcast_and_gradcheck(a_shape, b_shape):
    a, b = _t(_triangular(a_shape), True), _t(_rhs(b_shape), True)
    expected = (*np.broadcast_shapes(a_shape[:-2], b_shape[:-2]), *b_shape[-2:])
    solvers = [lambda a_, b_: tl.linalg.solve(a_, b_),
               lambda a_, b_: tl.triangular_solve(b_, a_, upper=False).solution,
               lambda a_, b_: tl.linalg.lu_solve(*tl.linalg.lu_factor(a_), b_),
               lambda a_, b_: tl.lu_solve(b_, *tl.linalg.lu_factor(a_))]
    for solver in solvers:
        assert tuple(solver(a, b).shape) == expected
        assert tl.autograd.gradcheck(solver, (a, b))


def test_the_solve_primitive_sums_broadcast_gradients():
    # tl.ops' solve broadcasts the batch dims itself: its gradients come back summed
    a, b = _t(_triangular((3, 3)), True), _t(_rhs((4, 3, 2)), True)
    assert tl.autograd.gradcheck(tl.ops.linalg.inverse.solve, (a, b))
    a, b = _t(_triangular((4, 3, 3)), True), _t(_rhs((3,)), True)  # a 1-D b: one vector
    assert tuple(tl.ops.linalg.inverse.solve(a, b).shape) == (4, 3)
    assert tl.autograd.gradcheck(tl.ops.linalg.inverse.solve, (a, b))


@pytest.mark.parametrize("a_shape, b_shape", SHAPES)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular_matches_pytorch(a_shape, b_shape, upper, left, unit):
    torch = pytest.importorskip("torch")
    b_shape = b_shape if left else _right(b_shape)
    # junk in the other triangle: neither library reads it
    a_np, b_np = _triangular(a_shape), _rhs(b_shape)
    ours_a, ours_b = _t(a_np, True), _t(b_np, True)
    ref_a = torch.tensor(a_np, requires_grad=True)
    ref_b = torch.tensor(b_np, requires_grad=True)
    kw = dict(upper=upper, left=left, unitriangular=unit)
    ours = tl.linalg.solve_triangular(ours_a, ours_b, **kw)
    ref = torch.linalg.solve_triangular(ref_a, ref_b, **kw)
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    upstream = _rhs(tuple(ref.shape), seed=5)
    ours.backward(tl.tensor(upstream))
    ref.backward(torch.tensor(upstream))
    np.testing.assert_allclose(ours_a.grad.numpy(), ref_a.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours_b.grad.numpy(), ref_b.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("a_shape, b_shape", SHAPES)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("junk", [False, True])
def test_cholesky_solve_matches_pytorch(a_shape, b_shape, upper, junk):
    torch = pytest.importorskip("torch")
    f_np, b_np = _factor(a_shape, upper), _rhs(b_shape)
    if junk:  # values in the other triangle: LAPACK's potrs does not read them
        other = np.tril if upper else np.triu
        f_np = f_np + other(np.full(a_shape[-2:], 0.7), 1)
    ours_f, ours_b = _t(f_np, True), _t(b_np, True)
    ref_f = torch.tensor(f_np, requires_grad=True)
    ref_b = torch.tensor(b_np, requires_grad=True)
    ours = tl.cholesky_solve(ours_b, ours_f, upper=upper)
    ref = torch.cholesky_solve(ref_b, ref_f, upper=upper)
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    upstream = _rhs(tuple(ref.shape), seed=6)
    ours.backward(tl.tensor(upstream))
    ref.backward(torch.tensor(upstream))
    np.testing.assert_allclose(ours_b.grad.numpy(), ref_b.grad.numpy(), rtol=1e-9, atol=1e-12)
    if not junk:  # PyTorch's gradient of a factor: that of the whole matrix L L^T is built of
        np.testing.assert_allclose(ours_f.grad.numpy(), ref_f.grad.numpy(), rtol=1e-9,
                                   atol=1e-12)


@pytest.mark.parametrize("a_shape, b_shape", SHAPES)
def test_other_solvers_match_pytorch(a_shape, b_shape):
    torch = pytest.importorskip("torch")
    a_np, b_np = _triangular(a_shape), _rhs(b_shape)
    pairs = [(lambda lib, a, b: lib.linalg.solve(a, b)),
             (lambda lib, a, b: lib.triangular_solve(b, a, upper=False).solution),
             (lambda lib, a, b: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b)),
             (lambda lib, a, b: lib.lu_solve(b, *lib.linalg.lu_factor(a)))]
    for fn in pairs:
        ours = fn(tl, tl.tensor(a_np), tl.tensor(b_np))
        ref = fn(torch, torch.tensor(a_np), torch.tensor(b_np))
        np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-10, atol=1e-12)


def test_zero_on_the_diagonal_gives_lapacks_inf_nan():
    torch = pytest.importorskip("torch")
    a = np.triu(_triangular((3, 3)))
    a[1, 1] = 0.0
    b = _rhs((2, 3, 2))
    ours = tl.linalg.solve_triangular(tl.tensor(a), tl.tensor(b), upper=True).numpy()
    ref = torch.linalg.solve_triangular(torch.tensor(a), torch.tensor(b), upper=True).numpy()
    np.testing.assert_array_equal(np.isfinite(ours), np.isfinite(ref))
    ours = tl.cholesky_solve(tl.tensor(b), tl.tensor(a.T)).numpy()
    ref = torch.cholesky_solve(torch.tensor(b), torch.tensor(a.T)).numpy()
    assert not np.isfinite(ours).all() and not np.isfinite(ref).all()


def test_result_dtypes_follow_pytorch():
    torch = pytest.importorskip("torch")
    a = _triangular((3, 3))
    b = _rhs((3, 2))
    for a_dt, b_dt in [("float64", "float32"), ("float32", "float64"), ("float64", "int64")]:
        ours = tl.linalg.solve_triangular(tl.tensor(a.astype(a_dt)), tl.tensor(b.astype(b_dt)),
                                          upper=True)
        ref = torch.linalg.solve_triangular(torch.tensor(a.astype(a_dt)),
                                            torch.tensor(b.astype(b_dt)), upper=True)
        assert str(ours.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]


def _same_error(ours, theirs):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as ref:
        theirs(torch)
    with pytest.raises(type(ref.value)) as got:
        ours(tl)
    assert str(got.value) == str(ref.value).splitlines()[0]


def _mats(lib, *shapes, dtype="float64"):
    return [lib.tensor(np.ones(s, dtype=dtype)) for s in shapes]


@pytest.mark.parametrize("call", [
    lambda lib: lib.linalg.solve_triangular(*_mats(lib, (2, 3, 3), (3, 3, 2)), upper=True),
    lambda lib: lib.linalg.solve_triangular(*_mats(lib, (5, 2, 3, 3), (3, 3, 2)), upper=True),
    lambda lib: lib.linalg.solve_triangular(*_mats(lib, (3, 3), (3,)), upper=True),
    lambda lib: lib.linalg.solve_triangular(*_mats(lib, (3,), (3, 2)), upper=True),
    lambda lib: lib.linalg.solve_triangular(*_mats(lib, (3, 2), (3, 2)), upper=True),
    lambda lib: lib.linalg.solve_triangular(*_mats(lib, (3, 3), (2, 2)), upper=True),
    lambda lib: lib.linalg.solve_triangular(*_mats(lib, (3, 3), (2, 2)), upper=True,
                                            left=False),
    lambda lib: lib.linalg.solve_triangular(*_mats(lib, (3, 3), (3, 2), dtype="int64"),
                                            upper=True),
    lambda lib: lib.linalg.solve_triangular(*_mats(lib, (3, 3), (3, 2), dtype="float16"),
                                            upper=True),
    lambda lib: lib.cholesky_solve(*_mats(lib, (3, 3, 2), (2, 3, 3))),
    lambda lib: lib.cholesky_solve(*_mats(lib, (3,), (3, 3))),
    lambda lib: lib.cholesky_solve(*_mats(lib, (3, 2), (3,))),
    lambda lib: lib.cholesky_solve(*_mats(lib, (3, 2), (3, 2))),
    lambda lib: lib.cholesky_solve(*_mats(lib, (2, 2), (3, 3))),
    lambda lib: lib.cholesky_solve(lib.ones(3, 2), lib.ones(3, 3, dtype=lib.float64)),
    lambda lib: lib.cholesky_solve(*_mats(lib, (3, 2), (3, 3), dtype="int32")),
    lambda lib: lib.linalg.solve(*_mats(lib, (2, 3, 3), (7, 3, 3, 2))),
    lambda lib: lib.triangular_solve(*_mats(lib, (7, 3, 3, 2), (2, 3, 3))),
    lambda lib: lib.linalg.lu_solve(*lib.linalg.lu_factor(lib.eye(3, dtype=lib.float64)
                                                          .expand(2, 3, 3)),
                                    *_mats(lib, (7, 3, 3, 2))),
])
def test_errors_are_pytorchs(call):
    _same_error(call, call)
