"""tl.linalg and the matrix products against PyTorch: values and gradients (float64), and
PyTorch's errors for singular and low-precision input (the decompositions in more depth:
test_linalg_decomp.py)."""

import math

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
A = rng.standard_normal((2, 3, 3))
S = A @ A.transpose(0, 2, 1) + 3 * np.eye(3)
B = rng.standard_normal((2, 3, 2))
v = rng.standard_normal((2, 3))


def run(lib, fn, *arrs):
    """Outputs and input gradients of ``fn`` in ``lib``."""
    ts = [lib.tensor(a, requires_grad=True) for a in arrs]
    out = fn(lib, *ts)
    out = out if isinstance(out, (tuple, list)) else [out]
    sum(o.square().sum() if o.dtype == lib.float64 else 0 for o in out).backward()
    grads = [t.grad.numpy() if t.grad is not None else None for t in ts]
    return [o.detach().numpy() for o in out], grads


cases = {  # name: (function of the library and tensors, input arrays)
    "inv": (lambda lib, a: lib.linalg.inv(a), A),
    "det": (lambda lib, a: lib.linalg.det(a), A),
    "slogdet": (lambda lib, a: lib.linalg.slogdet(a), A),
    "solve": (lambda lib, a, b: lib.linalg.solve(a, b), A, B),
    "solve-vec": (lambda lib, a, b: lib.linalg.solve(a, b), A, v),
    "cholesky": (lambda lib, a: lib.linalg.cholesky(a), S),
    "cholesky-up": (lambda lib, a: lib.linalg.cholesky(a, upper=True), S),
    "matrix_power": (lambda lib, a: lib.linalg.matrix_power(a, 3), A),
    "matrix_power-neg": (lambda lib, a: lib.linalg.matrix_power(a, -2), A),
    "vector_norm": (lambda lib, a: lib.linalg.vector_norm(a, 3, dim=-1), A),
    "matrix_norm": (lambda lib, a: lib.linalg.matrix_norm(a), A),
    "matrix_norm-1": (lambda lib, a: lib.linalg.matrix_norm(a, 1), A),
    "matrix_norm-nuc": (lambda lib, a: lib.linalg.matrix_norm(a, "nuc"), A),
    "norm-2": (lambda lib, a: lib.linalg.norm(a[1], 2), A),
    "pinv": (lambda lib, b: lib.linalg.pinv(b), B),
    "svdvals": (lambda lib, b: lib.linalg.svdvals(b), B),
    "norm": (lambda lib, a: lib.linalg.norm(a[0]), A),
    "addmm": (lambda lib, a, b: lib.addmm(a[0, :, :2], a[1], b[0], beta=0.5, alpha=2), A, B),
    "baddbmm": (lambda lib, a, b: lib.baddbmm(b, a, b, alpha=0.3), A, B),
    "addbmm": (lambda lib, a, b: lib.addbmm(b[0], a, b), A, B),
    "addr": (lambda lib, a, v: lib.addr(a[0], v[0], v[1]), A, v),
    "addmv": (lambda lib, a, v: lib.addmv(v[0], a[0], v[1]), A, v),
    "tensordot": (lambda lib, a, b: lib.tensordot(a, b, dims=([0, 1], [0, 1])), A, B),
    "kron": (lambda lib, a, b: lib.kron(a[0], b[0]), A, B),
    "cross": (lambda lib, a, v: lib.linalg.cross(a[0], a[1]), A, v),
    "cdist": (lambda lib, a, b: lib.cdist(a, a * 2), A, B),
    "trace": (lambda lib, a: lib.trace(a[0]), A),
    "diag": (lambda lib, v: lib.diag(v[0], 1), v),
    "diag_embed": (lambda lib, v: lib.diag_embed(v, -1), v),
    "diagflat": (lambda lib, v: lib.diagflat(v), v),
    "inner": (lambda lib, a, v: lib.inner(a, v), A, v),
    "logdet": (lambda lib, a: lib.logdet(a), S),
    "cholesky_solve": (lambda lib, s, b: lib.cholesky_solve(b, lib.linalg.cholesky(s)), S, B),
    "multi_dot": (lambda lib, a, b: lib.linalg.multi_dot([a[0], a[1], b[0]]), A, B),
}


@pytest.mark.parametrize("name", sorted(cases))
def test_matches_pytorch(name):
    fn, *arrays = cases[name]
    (ours, our_grads), (theirs, their_grads) = run(tl, fn, *arrays), run(torch, fn, *arrays)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, atol=1e-9)
    for a, b in zip(our_grads, their_grads):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, atol=1e-8)


def test_errors_match_pytorch():
    singular = tl.tensor([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(tl.linalg.LinAlgError, match="singular"):
        tl.linalg.inv(singular)
    assert issubclass(tl.linalg.LinAlgError, RuntimeError)
    with pytest.raises(RuntimeError, match="not positive-definite"):
        tl.linalg.cholesky(-tl.eye(2))
    with pytest.raises(RuntimeError, match="Low precision"):
        tl.linalg.det(tl.eye(2, dtype=tl.float16))
    with pytest.raises(RuntimeError, match="square matrices"):
        tl.linalg.inv(tl.ones(2, 3))
    assert tl.linalg.det(singular).item() == 0.0


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.0, float("inf")])
@pytest.mark.parametrize("rows", [(3, 4), (30, 27)])
def test_cdist_matches_pytorch_at_ties_and_zero_distances(p, rows):
    """Small integer coordinates make zero distances and tied coordinates, where PyTorch's
    gradient rules (0 at zero distance, the full gradient to each tied maximum) apply; above 25
    rows p = 2 takes the matrix-product path, as in PyTorch."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(rows[0] + (7 if math.isinf(p) else int(p * 10)))
    a = rng.integers(-1, 2, (2, rows[0], 3)).astype(np.float64)
    b = rng.integers(-1, 2, (1, rows[1], 3)).astype(np.float64)  # batch broadcast
    ours = [tl.tensor(v, requires_grad=True) for v in (a, b)]
    theirs = [torch.tensor(v, requires_grad=True) for v in (a, b)]
    out, ref = tl.cdist(*ours, p=p), torch.cdist(*theirs, p=p)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), atol=1e-7)
    g = rng.standard_normal(ref.shape)
    out.backward(tl.tensor(g))
    ref.backward(torch.tensor(g))
    for x, y in zip(ours, theirs):
        # the product path's gradient at zero distance is 0 in both; elsewhere it agrees
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), atol=1e-6)
