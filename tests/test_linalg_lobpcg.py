"""tl.lobpcg: the k extreme eigenpairs of A x = λ B x, computed exactly, checked against NumPy
(and torch.lobpcg where installed), with PyTorch's argument checks and eigenvalue gradients."""

from __future__ import annotations

import numpy as np
import pytest

import tinygrad_lite as tl


def _spd(m: int, seed: int, shift: float = 0.0) -> np.ndarray:
    a = np.random.default_rng(seed).standard_normal((m, m))
    return a @ a.T + shift * np.eye(m)


@pytest.mark.parametrize("largest", [None, True, False])
def test_standard_problem_matches_numpy(largest: bool | None) -> None:
    A = _spd(12, 0)  # noqa: N806
    E, X = tl.lobpcg(tl.tensor(A), k=3, largest=largest)  # noqa: N806
    w = np.linalg.eigvalsh(A)
    expected = w[:3] if largest is False else w[::-1][:3]
    np.testing.assert_allclose(E.numpy(), expected, rtol=1e-10)
    x = X.numpy()
    assert x.shape == (12, 3)
    np.testing.assert_allclose(A @ x, x * E.numpy(), atol=1e-10)  # eigenpairs
    np.testing.assert_allclose(x.T @ x, np.eye(3), atol=1e-12)


def test_generalized_problem() -> None:
    A, B = _spd(10, 1), _spd(10, 2, shift=10.0)  # noqa: N806
    for largest in (True, False):
        E, X = tl.lobpcg(tl.tensor(A), k=2, B=tl.tensor(B), largest=largest)  # noqa: N806
        w = np.linalg.eigvals(np.linalg.solve(B, A)).real
        w.sort()
        np.testing.assert_allclose(E.numpy(), w[:2] if not largest else w[::-1][:2], rtol=1e-9)
        x = X.numpy()
        np.testing.assert_allclose(A @ x, B @ x * E.numpy(), atol=1e-9)
        np.testing.assert_allclose(x.T @ B @ x, np.eye(2), atol=1e-10)  # B-orthonormal


def test_defaults_batches_and_counts() -> None:
    A = _spd(9, 3)  # noqa: N806
    E, X = tl.lobpcg(tl.tensor(A))  # noqa: N806 - k defaults to 1, largest to True
    np.testing.assert_allclose(E.numpy(), np.linalg.eigvalsh(A)[-1:], rtol=1e-10)
    E, X = tl.lobpcg(tl.tensor(A), X=tl.randn(9, 2, dtype=tl.float64))  # noqa: N806 - k = X's n
    assert tuple(E.shape) == (2,) and tuple(X.shape) == (9, 2)
    E, _ = tl.lobpcg(tl.tensor(A), k=3, n=2)  # noqa: N806 - as PyTorch: only n pairs exist
    assert tuple(E.shape) == (2,)
    batch = np.stack([A, _spd(9, 4)])
    E, X = tl.lobpcg(tl.tensor(batch), k=2)  # noqa: N806
    assert tuple(E.shape) == (2, 2) and tuple(X.shape) == (2, 9, 2)
    for i in range(2):
        np.testing.assert_allclose(E.numpy()[i], np.linalg.eigvalsh(batch[i])[::-1][:2],
                                   rtol=1e-10)


def test_argument_errors() -> None:
    A = tl.tensor(_spd(8, 5))  # noqa: N806
    with pytest.raises(ValueError, match="3 x the number"):
        tl.lobpcg(A, k=3)  # 8 < 3 * 3
    with pytest.raises(AssertionError, match="square"):
        tl.lobpcg(tl.zeros(9, 8))
    with pytest.raises(AssertionError, match="same shape"):
        tl.lobpcg(A, B=tl.eye(7))
    with pytest.raises(AssertionError, match="X shape"):
        tl.lobpcg(A, X=tl.zeros(7, 1))


def test_eigenvalue_gradcheck() -> None:
    A0, B0 = _spd(9, 6), _spd(9, 7, shift=9.0)  # noqa: N806

    def eigvals(a: tl.Tensor, b: tl.Tensor) -> tl.Tensor:
        return tl.lobpcg(a, k=2, B=b)[0]

    A = tl.tensor(A0, requires_grad=True)  # noqa: N806
    B = tl.tensor(B0, requires_grad=True)  # noqa: N806
    assert tl.autograd.gradcheck(eigvals, (A, B))
    assert tl.autograd.gradcheck(lambda a: tl.lobpcg(a, k=2, largest=False)[0], (A,))
    # d λ / d A = x x^T for a unit eigenvector (symmetrised)
    E, X = tl.lobpcg(A, k=1)  # noqa: N806
    E.sum().backward()
    x = X.detach().numpy()[:, 0]
    np.testing.assert_allclose(A.grad.numpy(), np.outer(x, x), atol=1e-10)


def test_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    A, B = _spd(15, 8), _spd(15, 9, shift=15.0)  # noqa: N806
    for largest in (True, False):
        ref = torch.lobpcg(torch.tensor(A), k=2, B=torch.tensor(B), largest=largest,
                           niter=-1, tol=1e-12)[0].numpy()
        out = tl.lobpcg(tl.tensor(A), k=2, B=tl.tensor(B), largest=largest)[0].numpy()
        np.testing.assert_allclose(out, ref, rtol=1e-6)
