"""PyTorch's indexing and writing rules where NumPy's differ: integers are applied before
tensor indices, circular padding crops before it wraps, and index writes refuse a source of
another dtype. Expected values are spelled out; PyTorch, when installed, is checked too."""

import numpy as np
import pytest

import tinygrad_lite as tl

X = np.random.default_rng(3).standard_normal((2, 3, 12, 4, 3))

# (index builder, PyTorch's result shape for X)
MIXED = [
    (lambda lib: (1, slice(None), slice(3, 11, 2), lib.tensor([0, 2]), slice(0, 2)), (3, 4, 2, 2)),
    (lambda lib: (lib.tensor([1, 0]), 2, slice(None), lib.tensor([3, 1])), (2, 12, 3)),
    (lambda lib: (0, lib.tensor([[0, 2, 1]]), Ellipsis, 1), (1, 3, 12, 4)),
    (lambda lib: (Ellipsis, 1, lib.tensor([0, 3]), None, 2), (2, 3, 2, 1)),
    (lambda lib: (1, None, lib.tensor([True, False, True])), (1, 2, 12, 4, 3)),
    (lambda lib: (-1, slice(None), lib.tensor([5, -1, 0])), (3, 3, 4, 3)),
    (lambda lib: (1, 2, lib.tensor([1, 3]), lib.tensor([0, 1]), 0), (2,)),
]


@pytest.mark.parametrize("case", range(len(MIXED)))
def test_integers_are_applied_before_tensor_indices(case: int) -> None:
    """x[1, :, t] is x[1][:, t] (t's dims stay in place): reads, gradients and writes agree
    with each other, and with PyTorch when it is installed."""
    build, shape = MIXED[case]
    index = build(tl)
    x = tl.tensor(X, requires_grad=True)
    y = x[index]
    assert tuple(y.shape) == shape
    g = np.random.default_rng(case).standard_normal(shape)
    y.backward(tl.tensor(g))
    # writing distinct numbers through the same index and reading them back gives them back,
    # and the gradient is g at exactly those places (no index repeats in these cases)
    marks = np.arange(1, np.prod(shape) + 1, dtype=np.float64).reshape(shape)
    written = tl.tensor(np.zeros_like(X))
    written[index] = tl.tensor(marks)
    np.testing.assert_array_equal(written[index].numpy(), marks)
    placed = written.numpy()
    np.testing.assert_array_equal(x.grad.numpy()[placed > 0],
                                  g.ravel()[placed[placed > 0].astype(int) - 1])
    assert np.count_nonzero(x.grad.numpy()) == np.prod(shape)
    torch = pytest.importorskip("torch")
    tx = torch.tensor(X, requires_grad=True)
    ty = tx[build(torch)]
    ty.backward(torch.tensor(g))
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    theirs = torch.tensor(np.zeros_like(X))
    theirs[build(torch)] = torch.tensor(marks)
    np.testing.assert_array_equal(placed, theirs.numpy())


def test_mixed_index_by_hand() -> None:
    """One case checked against NumPy's two steps, without PyTorch."""
    x = tl.tensor(X, requires_grad=True)
    picks = np.array([0, 2])
    y = x[1, :, 3:11:2, tl.tensor(picks), 0:2]
    np.testing.assert_array_equal(y.detach().numpy(), X[1][:, 3:11:2][:, :, picks, 0:2])
    y.sum().backward()
    want = np.zeros_like(X)
    want[1][:, 3:11:2][:, :, picks, 0:2] = 1
    np.testing.assert_array_equal(x.grad.numpy(), want)
    z = x.detach().clone()
    z[1, :, 3:11:2, tl.tensor(picks), 0:2] = 0.0
    kept = X.copy()
    kept[1][:, 3:11:2][:, :, picks, 0:2] = 0
    np.testing.assert_array_equal(z.numpy(), kept)


@pytest.mark.parametrize("pad,want", [((-1, 2), [1, 2, 3, 4, 5, 1, 2]),
                                      ((2, -1), [3, 4, 0, 1, 2, 3, 4]),
                                      ((1, -3), [2, 0, 1, 2]), ((-2, -2), [2, 3])])
def test_circular_padding_crops_then_wraps(pad: tuple, want: list) -> None:
    """Negative circular padding crops first and wraps what is left, as PyTorch does."""
    x = tl.arange(6.0).reshape(1, 1, 6)
    assert tl.nn.functional.pad(x, pad, mode="circular")[0, 0].tolist() == want


def test_non_constant_padding_needs_a_batched_input_of_the_padded_rank() -> None:
    """Reflect/replicate/circular pad 1-3 trailing dims of a (C, *S) or (N, C, *S) input."""
    with pytest.raises(NotImplementedError, match="padding size 2 is not supported for 4D"):
        tl.nn.functional.pad(tl.zeros(1, 2, 2, 6), (1, 1), mode="reflect")
    assert tl.nn.functional.pad(tl.zeros(2, 6), (1, 1), mode="reflect").shape == (2, 8)


WRITES = {
    "scatter": lambda x, i, s: x.scatter(0, i, s),
    "scatter_add": lambda x, i, s: x.scatter_add(0, i, s),
    "scatter_reduce": lambda x, i, s: x.scatter_reduce(0, i, s, "sum"),
    "index_add": lambda x, i, s: x.index_add(0, i, s),
    "index_copy": lambda x, i, s: x.index_copy(0, i, s),
    "index_put": lambda x, i, s: x.index_put((i,), s),
    "setitem": lambda x, i, s: x.__setitem__(i, s),
}


@pytest.mark.parametrize("op", sorted(WRITES))
def test_index_writes_refuse_a_source_of_another_dtype(op: str) -> None:
    """A float16 source into a float32 tensor is a RuntimeError (PyTorch does not cast)."""
    x = tl.zeros(3)
    with pytest.raises(RuntimeError, match="dtype|scalar type"):
        WRITES[op](x, tl.tensor([0, 1]), tl.ones(2, dtype=tl.float16))
    WRITES[op](x, tl.tensor([0, 1]), tl.ones(2))  # the same dtype is fine


def test_writes_that_do_cast() -> None:
    """Basic-index assignment, a 0-dim value under a bool mask and Python numbers cast."""
    x = tl.zeros(3)
    x[0:2] = tl.ones(2, dtype=tl.float16)
    x[tl.tensor([True, False, True])] = tl.tensor(2.0, dtype=tl.float64)
    assert x.tolist() == [2.0, 1.0, 2.0] and x.dtype == tl.float32
    assert x.scatter(0, tl.tensor([1]), 5).tolist() == [2.0, 5.0, 2.0]
    with pytest.raises(RuntimeError, match="Index put requires"):
        x[tl.tensor([0, 1])] = tl.tensor(2.0, dtype=tl.float64)


def test_cross_entropy_probability_target_of_another_shape_is_a_runtime_error() -> None:
    """PyTorch raises RuntimeError here (binary_cross_entropy's size mismatch is ValueError)."""
    with pytest.raises(RuntimeError, match="class-probability target"):
        tl.nn.functional.cross_entropy(tl.zeros(3, 4), tl.ones(3, 5))
