"""The LU family (linalg.lu/lu_factor/lu_factor_ex/lu_solve/solve_ex, tl.lu/lu_solve/lu_unpack/
triangular_solve/cholesky), the LDL^T functions, householder_product/geqrf/orgqr/ormqr, cond,
tensorinv, tensorsolve, linalg.vander and eig/eigvals against PyTorch: values, pivots and infos,
result types, first and second order gradients (and float64 gradchecks), singular inputs, and
PyTorch's errors."""

import math

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

# PyTorch's deprecation notes of torch.lu, lu_solve, triangular_solve and cholesky
pytestmark = pytest.mark.filterwarnings("ignore:torch.*is deprecated:UserWarning")

rng = np.random.default_rng(0)
SQUARE = rng.standard_normal((2, 3, 3))
TALL = rng.standard_normal((2, 5, 3))
WIDE = rng.standard_normal((2, 3, 5))
B = rng.standard_normal((2, 3, 2))
B_RIGHT = rng.standard_normal((2, 4, 3))
SYM = SQUARE + SQUARE.transpose(0, 2, 1)
TAU = rng.standard_normal((2, 3))


def _grad(lib):
    return tl.autograd.grad if lib is tl else torch.autograd.grad


def both(fn, *arrays, second_order=True):
    """``fn(lib, *tensors)`` in tl and torch: values, input gradients and (second_order) the
    gradient of the cos-weighted gradients, made with create_graph."""
    results = []
    for lib in (tl, torch):
        ts = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = fn(lib, *ts)
        seed = np.random.default_rng(1).standard_normal(tuple(out.shape))
        grads = _grad(lib)(out, ts, grad_outputs=lib.tensor(seed), create_graph=second_order)
        second = None
        if second_order:
            total = sum((g * lib.tensor(np.cos(a))).sum() for g, a in zip(grads, arrays))
            second = [g.detach().numpy() for g in _grad(lib)(total, ts)]
        results.append((out.detach().numpy(), [g.detach().numpy() for g in grads], second))
    return results


def assert_same(fn, *arrays, second_order=True, atol=1e-8):
    (v1, g1, s1), (v2, g2, s2) = both(fn, *arrays, second_order=second_order)
    np.testing.assert_allclose(v1, v2, atol=atol)
    for a, b in zip(g1, g2):
        np.testing.assert_allclose(a, b, atol=atol * 10)
    for a, b in zip(s1 or [], s2 or []):
        np.testing.assert_allclose(a, b, atol=atol * 100)


def _lu_mix(lib, a):
    p, lower, upper = lib.linalg.lu(a)
    return p @ lower.sin() @ upper.exp()


def _ormqr(left, transpose):
    def fn(lib, a, t, c):
        return lib.ormqr(a, t, c, left, transpose)
    return fn


CASES = {
    "lu-square": (_lu_mix, SQUARE),
    "lu-tall": (_lu_mix, TALL),
    "lu-wide": (_lu_mix, WIDE),
    "lu-L-only": (lambda lib, a: lib.linalg.lu(a).L, TALL),
    "lu-U-only": (lambda lib, a: lib.linalg.lu(a).U, WIDE),
    "lu_factor": (lambda lib, a: lib.linalg.lu_factor(a).LU, SQUARE),
    "lu_factor-tall": (lambda lib, a: lib.linalg.lu_factor(a).LU, TALL),
    "lu_factor_ex-wide": (lambda lib, a: lib.linalg.lu_factor_ex(a).LU, WIDE),
    "lu-old": (lambda lib, a: lib.lu(a)[0], SQUARE),
    "lu_unpack": (lambda lib, a: (lambda r: r.L.exp() @ r.U)(
        lib.lu_unpack(*lib.linalg.lu_factor(a))), WIDE),
    "lu_solve": (lambda lib, a, b: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b), SQUARE, B),
    "lu_solve-adjoint": (lambda lib, a, b: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b,
                                                               adjoint=True), SQUARE, B),
    "lu_solve-right": (lambda lib, a, b: lib.linalg.lu_solve(*lib.linalg.lu_factor(a[0]), b,
                                                             left=False), SQUARE, B_RIGHT),
    "lu_solve-right-adjoint": (lambda lib, a, b: lib.linalg.lu_solve(
        *lib.linalg.lu_factor(a[0]), b, left=False, adjoint=True), SQUARE, B_RIGHT),
    "lu_solve-old": (lambda lib, a, b: lib.lu_solve(b, *lib.lu(a)), SQUARE, B),
    "lu_solve-method": (lambda lib, a, b: b.lu_solve(*a.lu()), SQUARE, B),
    "solve_ex": (lambda lib, a, b: lib.linalg.solve_ex(a, b).result, SQUARE, B),
    "solve_ex-vector": (lambda lib, a, b: lib.linalg.solve_ex(a, b[..., 0]).result, SQUARE, B),
    "solve_ex-right": (lambda lib, a, b: lib.linalg.solve_ex(a[0], b, left=False).result,
                       SQUARE, B_RIGHT),
    "solve-right": (lambda lib, a, b: lib.linalg.solve(a[0], b, left=False), SQUARE, B_RIGHT),
    "triangular_solve": (lambda lib, b, a: (lambda r: r.solution * r.cloned_coefficient.sum())(
        lib.triangular_solve(b, a + 3 * lib.eye(3, dtype=a.dtype))), B, SQUARE),
    "triangular_solve-lower-t-unit": (lambda lib, b, a: b.triangular_solve(
        a, upper=False, transpose=True, unitriangular=True).solution, B, SQUARE),
    "cholesky-old": (lambda lib, a: lib.cholesky(a @ a.mT + lib.eye(3, dtype=a.dtype)), SQUARE),
    "cholesky-method-upper": (lambda lib, a: (a @ a.mT + lib.eye(3, dtype=a.dtype)).cholesky(
        upper=True), SQUARE),
    "householder_product": (lambda lib, a, t: lib.linalg.householder_product(a, t), TALL, TAU),
    "householder_product-short-tau": (lambda lib, a, t: lib.linalg.householder_product(
        a, t[..., :2]), TALL, TAU),
    "orgqr": (lambda lib, a, t: a.orgqr(t), TALL, TAU),
    "ormqr": (_ormqr(True, False), TALL, TAU, rng.standard_normal((2, 5, 2))),
    "ormqr-transpose": (_ormqr(True, True), TALL, TAU, rng.standard_normal((2, 5, 2))),
    "ormqr-right": (_ormqr(False, False), TALL, TAU, rng.standard_normal((2, 2, 5))),
    "ormqr-right-transpose": (_ormqr(False, True), WIDE, TAU, rng.standard_normal((2, 4, 3))),
    "cond": (lambda lib, a: lib.linalg.cond(a), TALL),
    "cond--2": (lambda lib, a: lib.linalg.cond(a, -2), WIDE),
    "cond-nuc": (lambda lib, a: lib.linalg.cond(a, "nuc"), SQUARE),
    "tensorinv": (lambda lib, a: lib.linalg.tensorinv(a.reshape(2, 3, 6)), rng.standard_normal(36)),
    "tensorinv-ind1": (lambda lib, a: lib.linalg.tensorinv(a.reshape(6, 2, 3), ind=1),
                       rng.standard_normal(36)),
    "tensorsolve": (lambda lib, a, b: lib.linalg.tensorsolve(a, b), rng.standard_normal((2, 3, 6)),
                    rng.standard_normal((2, 3))),
    "tensorsolve-dims": (lambda lib, a, b: lib.linalg.tensorsolve(a, b, dims=(0, 2)),
                         rng.standard_normal((6, 4, 2, 3)), rng.standard_normal((4, 3))),
    "vander": (lambda lib, x: lib.linalg.vander(x), rng.standard_normal((2, 4))),
    "vander-N": (lambda lib, x: lib.linalg.vander(x, N=5), rng.standard_normal(3)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_values_and_gradients_match_pytorch(name):
    fn, *arrays = CASES[name]
    assert_same(fn, *arrays)


# PyTorch's masked_fill_ on the inverse breaks its own backward of these: gradcheck instead
@pytest.mark.parametrize("p", ["fro", 1, -1, math.inf, -math.inf])
def test_cond_with_inverse_norms(p):
    a = SQUARE + 3 * np.eye(3)
    np.testing.assert_allclose(tl.linalg.cond(tl.tensor(a), p).numpy(),
                               torch.linalg.cond(torch.tensor(a), p).numpy(), rtol=1e-12)
    x = tl.tensor(a, requires_grad=True)
    assert tl.autograd.gradcheck(lambda t: tl.linalg.cond(t, p), (x,))
    assert tl.autograd.gradgradcheck(lambda t: tl.linalg.cond(t, p), (x,))


GRADCHECKS = {
    "lu": (lambda a: _lu_mix(tl, a), [SQUARE]),
    "lu-tall": (lambda a: _lu_mix(tl, a), [TALL]),
    "lu-wide": (lambda a: _lu_mix(tl, a), [WIDE]),
    "lu_solve": (lambda a, b: tl.linalg.lu_solve(*tl.linalg.lu_factor(a), b, adjoint=True),
                 [SQUARE, B]),
    "solve_ex": (lambda a, b: tl.linalg.solve_ex(a, b).result, [SQUARE, B]),
    "householder_product": (tl.linalg.householder_product, [TALL, TAU]),
    "ormqr": (lambda a, t, c: tl.ormqr(a, t, c, transpose=True), [TALL, TAU, TALL[..., :2]]),
    "cond": (tl.linalg.cond, [WIDE]),
    "tensorsolve": (tl.linalg.tensorsolve, [rng.standard_normal((2, 3, 6)),
                                            rng.standard_normal((2, 3))]),
    "vander": (lambda x: tl.linalg.vander(x, N=4), [rng.standard_normal((2, 3))]),
}


@pytest.mark.parametrize("name", list(GRADCHECKS))
def test_float64_gradcheck_and_gradgradcheck(name):
    fn, arrays = GRADCHECKS[name]
    inputs = tuple(tl.tensor(a, requires_grad=True) for a in arrays)
    assert tl.autograd.gradcheck(fn, inputs)
    assert tl.autograd.gradgradcheck(fn, inputs)


# -- forward values, pivots, infos and result types ----------------------------------------------


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (5, 3), (3, 5), (2, 3, 6, 2), (1, 1),
                                   (0, 3), (2, 0, 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lu_factor_ex_matches_lapack_getrf(shape, dtype):
    a = rng.standard_normal(shape).astype(dtype)
    ours, ref = tl.linalg.lu_factor_ex(tl.tensor(a)), torch.linalg.lu_factor_ex(torch.tensor(a))
    np.testing.assert_allclose(ours.LU.numpy(), ref.LU.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(ours.pivots.numpy(), ref.pivots.numpy())
    np.testing.assert_array_equal(ours.info.numpy(), ref.info.numpy())
    assert ours.pivots.dtype == tl.int32 and ours.info.dtype == tl.int32
    assert ours.LU.dtype == (tl.float32 if dtype == np.float32 else tl.float64)
    p, lower, upper = tl.linalg.lu(tl.tensor(a))
    rp, rl, ru = torch.linalg.lu(torch.tensor(a))
    for x, y in ((p, rp), (lower, rl), (upper, ru)):
        assert tuple(x.shape) == tuple(y.shape)
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("matrix", [[[0.0, 0.0], [0.0, 0.0]], [[1.0, 2.0], [2.0, 4.0]],
                                    [[0.0, 1.0], [0.0, 1.0]],
                                    [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]]])
def test_singular_lu_gives_lapack_info_and_lu_factor_raises(matrix):
    a = np.array(matrix)
    ours, ref = tl.linalg.lu_factor_ex(tl.tensor(a)), torch.linalg.lu_factor_ex(torch.tensor(a))
    np.testing.assert_array_equal(ours.LU.numpy(), ref.LU.numpy())
    np.testing.assert_array_equal(ours.pivots.numpy(), ref.pivots.numpy())
    assert int(ours.info) == int(ref.info) > 0
    with pytest.raises(RuntimeError) as err:
        torch.linalg.lu_factor(torch.tensor(a))
    with pytest.raises(RuntimeError, match="is zero and using it on lu_solve") as ours_err:
        tl.linalg.lu_factor(tl.tensor(a))
    assert str(ours_err.value) == str(err.value)
    assert tl.lu(tl.tensor(a))[1].tolist() == torch.lu(torch.tensor(a))[1].tolist()


def test_batched_singular_error_names_the_batch_element():
    a = np.stack([np.eye(2), np.zeros((2, 2))])
    with pytest.raises(RuntimeError, match=r"\(Batch element 1\): U\[1,1\] is zero"):
        tl.linalg.lu_factor(tl.tensor(a))
    with pytest.raises(RuntimeError, match="lu_factor_ex"):
        tl.linalg.lu_factor_ex(tl.tensor(a), check_errors=True)
    assert tl.linalg.lu_factor_ex(tl.tensor(a)).info.tolist() == [0, 1]


def test_solve_ex_reports_singular_matrices_as_pytorch():
    a = np.stack([np.eye(2), np.zeros((2, 2))])
    b = np.ones((2, 2, 1))
    ours, ref = tl.linalg.solve_ex(tl.tensor(a), tl.tensor(b)), \
        torch.linalg.solve_ex(torch.tensor(a), torch.tensor(b))
    np.testing.assert_array_equal(ours.result.numpy(), ref.result.numpy())  # inf/NaN alike
    np.testing.assert_array_equal(ours.info.numpy(), ref.info.numpy())
    with pytest.raises(tl.linalg.LinAlgError) as err:
        tl.linalg.solve_ex(tl.tensor(a), tl.tensor(b), check_errors=True)
    with pytest.raises(torch.linalg.LinAlgError) as ref_err:
        torch.linalg.solve_ex(torch.tensor(a), torch.tensor(b), check_errors=True)
    assert str(err.value) == str(ref_err.value)
    ok = tl.linalg.solve_ex(tl.tensor(np.eye(2)), tl.tensor(np.ones(2)))
    assert ok.info.dtype == tl.int32 and int(ok.info) == 0 and ok.result.tolist() == [1.0, 1.0]


def test_singular_triangular_and_lu_solves_give_inf_and_nan_as_lapack():
    b, zero = np.ones((3, 2)), np.zeros((3, 3))
    ours = tl.triangular_solve(tl.tensor(b), tl.tensor(zero))
    ref = torch.triangular_solve(torch.tensor(b), torch.tensor(zero))
    np.testing.assert_array_equal(ours.solution.numpy(), ref.solution.numpy())
    for a in (zero, np.array([[0.0, 1, 2], [0, 3, 4], [0, 5, 7]])):
        lu_, piv = tl.lu(tl.tensor(a))
        ref_lu, ref_piv = torch.lu(torch.tensor(a))
        for adjoint in (False, True):
            for left in (True, False):
                rhs = b if left else b.T
                ours = tl.linalg.lu_solve(lu_, piv, tl.tensor(rhs), left=left, adjoint=adjoint)
                ref = torch.linalg.lu_solve(ref_lu, ref_piv, torch.tensor(rhs), left=left,
                                            adjoint=adjoint)
                np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-12)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # 0 * inf inside (silent outside pytest)
def test_cond_of_singular_and_empty_matrices_matches_pytorch():
    batch = np.stack([np.eye(2), np.zeros((2, 2))])
    for p in (None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf):
        np.testing.assert_array_equal(tl.linalg.cond(tl.tensor(batch), p).numpy(),
                                      torch.linalg.cond(torch.tensor(batch), p).numpy())
    empty = tl.linalg.cond(tl.zeros(2, 0, 0))
    assert tuple(empty.shape) == (2,) and empty.tolist() == [0.0, 0.0]


def test_result_types_and_fields_are_pytorchs():
    a = tl.tensor(SQUARE)
    t = torch.tensor(SQUARE)
    pairs = [(tl.linalg.lu(a), torch.linalg.lu(t)),
             (tl.linalg.lu_factor(a), torch.linalg.lu_factor(t)),
             (tl.linalg.lu_factor_ex(a), torch.linalg.lu_factor_ex(t)),
             (tl.lu(a, get_infos=True), torch.lu(t, get_infos=True)),
             (tl.lu_unpack(*tl.lu(a)), torch.lu_unpack(*torch.lu(t))),
             (tl.linalg.solve_ex(a, a), torch.linalg.solve_ex(t, t)),
             (tl.triangular_solve(a, a), torch.triangular_solve(t, t)),
             (tl.geqrf(a), torch.geqrf(t)),
             (tl.linalg.ldl_factor(tl.tensor(SYM)), torch.linalg.ldl_factor(torch.tensor(SYM))),
             (tl.linalg.ldl_factor_ex(tl.tensor(SYM)),
              torch.linalg.ldl_factor_ex(torch.tensor(SYM)))]
    for ours, ref in pairs:
        assert type(ours).__name__ == type(ref).__name__
        assert len(ours) == len(ref)
        for i, field in enumerate(ours._fields):  # the same fields, in the same order
            assert getattr(ours, field) is ours[i]
            assert getattr(ref, field) is ref[i]
    assert type(tl.lu(a)) is tuple and len(tl.lu(a)) == 2


def test_lu_permutation_is_a_constant_and_lu_unpack_parts():
    a = tl.tensor(SQUARE, requires_grad=True)
    p, lower, upper = tl.linalg.lu(a)
    assert not p.requires_grad and lower.requires_grad and upper.requires_grad
    np.testing.assert_allclose((p @ lower @ upper).detach().numpy(), SQUARE, atol=1e-12)
    lu_, piv = tl.linalg.lu_factor(tl.tensor(TALL))
    ref = torch.lu_unpack(*torch.linalg.lu_factor(torch.tensor(TALL)))
    for flags in ((True, False), (False, True)):
        ours = tl.lu_unpack(lu_, piv, *flags)
        theirs = torch.lu_unpack(*torch.linalg.lu_factor(torch.tensor(TALL)), *flags)
        for x, y in zip(ours, theirs):
            assert tuple(x.shape) == tuple(y.shape)
    np.testing.assert_allclose(tl.lu_unpack(lu_, piv).P.numpy(), ref.P.numpy())


def test_lu_solve_broadcasts_b_over_the_batch_and_back():
    lu_, piv = tl.linalg.lu_factor(tl.tensor(SQUARE[0] + 3 * np.eye(3)))
    b = rng.standard_normal((4, 3, 2))
    x = tl.linalg.lu_solve(lu_, piv, tl.tensor(b))
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(SQUARE[0] + 3 * np.eye(3), b),
                               atol=1e-12)


def test_geqrf_orgqr_give_pytorchs_qr():
    for a in (TALL, WIDE, rng.standard_normal((3, 4, 4)).astype(np.float32)):
        ours, ref = tl.geqrf(tl.tensor(a)), torch.geqrf(torch.tensor(a))
        np.testing.assert_allclose(ours.a.numpy(), ref.a.numpy(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(ours.tau.numpy(), ref.tau.numpy(), rtol=1e-5, atol=1e-5)
        assert ours.a.dtype == ours.tau.dtype == tl.tensor(a).dtype
    a, tau = tl.geqrf(tl.tensor(TALL))
    np.testing.assert_allclose(tl.orgqr(a, tau).numpy(), np.linalg.qr(TALL)[0], atol=1e-12)


def test_geqrf_and_ldl_have_no_derivative_as_in_pytorch():
    a = tl.tensor(SYM, requires_grad=True)
    outs = [tl.geqrf(a).a, tl.linalg.ldl_factor(a).LD,
            tl.linalg.ldl_solve(*tl.linalg.ldl_factor(a.detach()), a)]
    assert tl.geqrf(a).a.grad_fn.name() == "GeqrfBackward0"
    for out in outs:
        assert out.requires_grad
        with pytest.raises(NotImplementedError, match="the derivative for .* is not implemented"):
            out.sum().backward()


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_ldl_factor_and_solve_match_lapack_sytrf(n):
    for trial in range(6):
        s = rng.standard_normal((2, n, n))
        s = s + s.transpose(0, 2, 1)
        if trial % 2:  # small diagonals force 2 x 2 pivots
            s[:, np.arange(n), np.arange(n)] *= 0.01
        ours = tl.linalg.ldl_factor_ex(tl.tensor(s))
        ref = torch.linalg.ldl_factor_ex(torch.tensor(s))
        np.testing.assert_array_equal(ours.pivots.numpy(), ref.pivots.numpy())
        np.testing.assert_allclose(ours.LD.numpy(), ref.LD.numpy(), atol=1e-10)
        assert ours.info.tolist() == ref.info.tolist() == [0, 0]
        b = rng.standard_normal((n, 3))
        x = tl.linalg.ldl_solve(ours.LD, ours.pivots, tl.tensor(b))  # b broadcast
        np.testing.assert_allclose(x.numpy(), np.linalg.solve(s, b), atol=1e-8)


def test_ldl_singular_info_and_error():
    zero = np.zeros((3, 3))
    ours = tl.linalg.ldl_factor_ex(tl.tensor(zero))
    ref = torch.linalg.ldl_factor_ex(torch.tensor(zero))
    assert int(ours.info) == int(ref.info) == 1
    assert ours.pivots.tolist() == ref.pivots.tolist()
    with pytest.raises(tl.linalg.LinAlgError, match=r"ldl_factor: .*D\[1,1\] is zero"):
        tl.linalg.ldl_factor(tl.tensor(zero))


def test_vander_dtypes_and_shapes_match_pytorch():
    for x in ([1.0, 2.0, 3.0], [[1, 2, 3]], np.array([1, 2], np.int32), 2.5):
        ours, ref = tl.linalg.vander(tl.tensor(x)) if np.ndim(x) else None, None
        if np.ndim(x) == 0:
            with pytest.raises(RuntimeError, match="N must be greater than 1."):
                tl.linalg.vander(tl.tensor(x))
            continue
        ref = torch.linalg.vander(torch.tensor(x))
        assert str(ours.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
        np.testing.assert_array_equal(ours.numpy(), ref.numpy())


def test_tensor_methods_exist_as_in_pytorch():
    for name in ("lu", "lu_solve", "triangular_solve", "cholesky", "geqrf", "orgqr", "ormqr"):
        assert hasattr(tl.Tensor, name) and hasattr(torch.Tensor, name)
    assert not hasattr(tl.Tensor, "lu_unpack") and not hasattr(torch.Tensor, "lu_unpack")


def test_eig_and_eigvals_refuse_for_want_of_complex_dtypes():
    for fn in (tl.linalg.eig, tl.linalg.eigvals):
        with pytest.raises(RuntimeError, match="complex tensors are not supported"):
            fn(tl.tensor(SQUARE))
        with pytest.raises(NotImplementedError, match="eigh"):
            fn(tl.tensor(SQUARE[0]))
        with pytest.raises(RuntimeError, match="must be batches of square matrices"):
            fn(tl.tensor(TALL))
        with pytest.raises(RuntimeError, match="at least 2 dimensions"):
            fn(tl.tensor([1.0, 2.0]))


# -- errors ---------------------------------------------------------------------------------------

F64 = np.float64
LU_, PIV = (t.numpy() for t in torch.linalg.lu_factor(torch.tensor(SQUARE[0])))

# (call with lib and a dict of its tensors): PyTorch's own message, compared exactly
SAME_MESSAGE = {
    "lu_factor-1d": lambda lib: lib.linalg.lu_factor(lib.tensor([1.0, 2.0])),
    "lu-1d": lambda lib: lib.linalg.lu(lib.tensor([1.0, 2.0])),
    "lu-no-pivot": lambda lib: lib.linalg.lu(lib.tensor(SQUARE), pivot=False),
    "lu_solve-B-1d": lambda lib: lib.linalg.lu_solve(lib.tensor(LU_), lib.tensor(PIV),
                                                     lib.tensor(np.ones(3))),
    "lu_solve-shapes": lambda lib: lib.linalg.lu_solve(lib.tensor(LU_), lib.tensor(PIV),
                                                       lib.tensor(np.ones((2, 2)))),
    "lu_solve-shapes-right": lambda lib: lib.linalg.lu_solve(
        lib.tensor(LU_), lib.tensor(PIV), lib.tensor(np.ones((3, 2))), left=False),
    "lu_solve-square": lambda lib: lib.linalg.lu_solve(
        lib.tensor(np.ones((3, 2))), lib.tensor(PIV), lib.tensor(np.ones((3, 2)))),
    "lu_solve-pivots-dtype": lambda lib: lib.linalg.lu_solve(
        lib.tensor(LU_), lib.tensor(PIV.astype(np.int64)), lib.tensor(np.ones((3, 2)))),
    "lu_solve-pivots-size": lambda lib: lib.linalg.lu_solve(
        lib.tensor(LU_), lib.tensor(PIV[:2]), lib.tensor(np.ones((3, 2)))),
    "lu_solve-pivots-batch": lambda lib: lib.linalg.lu_solve(
        lib.tensor(np.stack([LU_, LU_])), lib.tensor(np.stack([PIV] * 3)),
        lib.tensor(np.ones((3, 2)))),
    "lu_solve-dtype": lambda lib: lib.linalg.lu_solve(lib.tensor(LU_), lib.tensor(PIV),
                                                      lib.tensor(np.ones((3, 2), np.float32))),
    "lu_unpack-1d": lambda lib: lib.lu_unpack(lib.tensor([1.0]), lib.tensor(PIV)),
    "lu_unpack-pivots-dtype": lambda lib: lib.lu_unpack(lib.tensor(LU_),
                                                        lib.tensor(PIV.astype(np.int64))),
    "lu_unpack-pivots-range": lambda lib: lib.lu_unpack(lib.tensor(LU_),
                                                        lib.tensor(np.array([4, 3, 3], np.int32))),
    "solve_ex-shapes": lambda lib: lib.linalg.solve_ex(lib.tensor(SQUARE[0]),
                                                       lib.tensor(np.ones((2, 2)))),
    "triangular_solve-b-1d": lambda lib: lib.triangular_solve(lib.tensor(np.ones(3)),
                                                              lib.tensor(SQUARE[0])),
    "triangular_solve-A-1d": lambda lib: lib.triangular_solve(lib.tensor(np.ones((3, 2))),
                                                              lib.tensor(np.ones(3))),
    "triangular_solve-sizes": lambda lib: lib.triangular_solve(lib.tensor(np.ones((2, 2))),
                                                               lib.tensor(SQUARE[0])),
    "triangular_solve-square": lambda lib: lib.triangular_solve(lib.tensor(np.ones((3, 2))),
                                                                lib.tensor(np.ones((3, 4)))),
    "triangular_solve-dtype": lambda lib: lib.triangular_solve(
        lib.tensor(np.ones((3, 2), np.float32)), lib.tensor(SQUARE[0])),
    "cholesky-1d": lambda lib: lib.cholesky(lib.tensor(np.ones(3))),
    "cholesky-square": lambda lib: lib.cholesky(lib.tensor(np.ones((3, 2)))),
    "householder-1d": lambda lib: lib.linalg.householder_product(lib.tensor(np.ones(4)),
                                                                 lib.tensor(np.ones(2))),
    "householder-wide": lambda lib: lib.linalg.householder_product(lib.tensor(WIDE),
                                                                   lib.tensor(TAU)),
    "householder-long-tau": lambda lib: lib.linalg.householder_product(
        lib.tensor(TALL[0]), lib.tensor(np.ones(4))),
    "householder-tau-ndim": lambda lib: lib.linalg.householder_product(
        lib.tensor(TALL[0]), lib.tensor(np.ones((1, 3)))),
    "householder-tau-batch": lambda lib: lib.linalg.householder_product(
        lib.tensor(TALL), lib.tensor(np.ones((3, 2)))),
    "householder-dtype": lambda lib: lib.linalg.householder_product(
        lib.tensor(TALL.astype(np.float32)), lib.tensor(TAU)),
    "ormqr-other-1d": lambda lib: lib.ormqr(lib.tensor(TALL[0]), lib.tensor(TAU[0]),
                                            lib.tensor(np.ones(5))),
    "ormqr-other-rows": lambda lib: lib.ormqr(lib.tensor(TALL[0]), lib.tensor(TAU[0]),
                                              lib.tensor(np.ones((3, 2)))),
    "ormqr-other-cols": lambda lib: lib.ormqr(lib.tensor(TALL[0]), lib.tensor(TAU[0]),
                                              lib.tensor(np.ones((5, 2))), left=False),
    "ormqr-tau": lambda lib: lib.ormqr(lib.tensor(TALL[0]), lib.tensor(TAU[0, :2]),
                                       lib.tensor(np.ones((5, 2)))),
    "ormqr-tau-batch": lambda lib: lib.ormqr(lib.tensor(TALL), lib.tensor(TAU[0]),
                                             lib.tensor(np.ones((2, 5, 2)))),
    "ormqr-other-batch": lambda lib: lib.ormqr(lib.tensor(TALL), lib.tensor(TAU),
                                               lib.tensor(np.ones((5, 2)))),
    "ormqr-dtype": lambda lib: lib.ormqr(lib.tensor(TALL[0]), lib.tensor(TAU[0]),
                                         lib.tensor(np.ones((5, 2), np.float32))),
    "geqrf-1d": lambda lib: lib.geqrf(lib.tensor(np.ones(3))),
    "cond-1d": lambda lib: lib.linalg.cond(lib.tensor(np.ones(3))),
    "cond-fro-rect": lambda lib: lib.linalg.cond(lib.tensor(TALL), "fro"),
    "cond-1-rect": lambda lib: lib.linalg.cond(lib.tensor(TALL), 1),
    "cond-inf-rect": lambda lib: lib.linalg.cond(lib.tensor(TALL), math.inf),
    "cond-bad-ord": lambda lib: lib.linalg.cond(lib.tensor(SQUARE), 3),
    "cond-bad-str": lambda lib: lib.linalg.cond(lib.tensor(SQUARE), "abc"),
    "cond-int": lambda lib: lib.linalg.cond(lib.tensor(np.ones((3, 3), np.int64))),
    "tensorinv-ind": lambda lib: lib.linalg.tensorinv(lib.tensor(np.ones((4, 4))), ind=0),
    "tensorinv-shape": lambda lib: lib.linalg.tensorinv(lib.tensor(np.ones((4, 6, 8, 3))), ind=1),
    "tensorsolve-shape": lambda lib: lib.linalg.tensorsolve(lib.tensor(np.ones((2, 3, 5))),
                                                            lib.tensor(np.ones((2, 3)))),
    "vander-N": lambda lib: lib.linalg.vander(lib.tensor([1.0, 2.0]), N=1),
    "vander-bool": lambda lib: lib.linalg.vander(lib.tensor([True, False])),
    "vander-half": lambda lib: lib.linalg.vander(lib.tensor(np.ones(2, np.float16))),
    "ldl-1d": lambda lib: lib.linalg.ldl_factor(lib.tensor(np.ones(3))),
    "ldl-square": lambda lib: lib.linalg.ldl_factor(lib.tensor(np.ones((3, 2)))),
    "ldl-int": lambda lib: lib.linalg.ldl_factor(lib.tensor(np.ones((3, 3), np.int64))),
    "ldl_solve-sizes": lambda lib: lib.linalg.ldl_solve(lib.tensor(np.eye(4)),
                                                        lib.tensor(np.arange(1, 5, dtype=np.int32)),
                                                        lib.tensor(np.ones((3, 2)))),
    "ldl_solve-dtype": lambda lib: lib.linalg.ldl_solve(lib.tensor(np.eye(4)),
                                                        lib.tensor(np.arange(1, 5, dtype=np.int32)),
                                                        lib.tensor(np.ones((4, 2), np.float32))),
    "eig-square": lambda lib: lib.linalg.eig(lib.tensor(TALL)),
    "eigvals-1d": lambda lib: lib.linalg.eigvals(lib.tensor([1.0])),
}


@pytest.mark.parametrize("name", list(SAME_MESSAGE))
def test_errors_carry_pytorchs_messages(name):
    call = SAME_MESSAGE[name]
    with pytest.raises(Exception) as ref:
        call(torch)
    with pytest.raises(RuntimeError) as ours:
        call(tl)
    assert str(ours.value) == str(ref.value)


@pytest.mark.parametrize("call", [
    lambda: tl.linalg.lu(tl.tensor(np.ones((3, 3), np.float16))),
    lambda: tl.linalg.lu_factor(tl.tensor(np.ones((3, 3), np.float16))),
    lambda: tl.linalg.solve_ex(tl.tensor(np.eye(3, dtype=np.float16)),
                               tl.tensor(np.ones(3, np.float16))),
    lambda: tl.triangular_solve(tl.tensor(np.ones((3, 1), np.float16)),
                                tl.tensor(np.eye(3, dtype=np.float16))),
    lambda: tl.linalg.householder_product(tl.tensor(np.ones((3, 2), np.float16)),
                                          tl.tensor(np.ones(2, np.float16))),
    lambda: tl.geqrf(tl.tensor(np.ones((3, 2), np.float16))),
    lambda: tl.linalg.ldl_factor(tl.tensor(np.eye(3, dtype=np.float16))),
    lambda: tl.linalg.cond(tl.tensor(np.eye(3, dtype=np.float16)), "fro"),
])
def test_float16_is_refused_as_other_linear_algebra(call):
    with pytest.raises(RuntimeError, match="Low precision dtypes not supported"):
        call()


def test_integer_inputs_are_refused():
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor"):
        tl.linalg.lu(tl.tensor([[1, 2], [3, 4]]))
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor"):
        tl.geqrf(tl.tensor([[1, 2], [3, 4]]))
