"""Shape and indexing extras and the generated in-place methods against PyTorch."""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")
X = np.arange(24.0).reshape(2, 3, 4)


def _same(ours, theirs):
    ours = ours if isinstance(ours, (tuple, list)) else [ours]
    theirs = theirs if isinstance(theirs, (tuple, list)) else [theirs]
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy())


CASES = {
    "meshgrid-xy": lambda lib, x: lib.meshgrid(lib.arange(3), lib.arange(2), indexing="xy"),
    "meshgrid-ij": lambda lib, x: lib.meshgrid(lib.arange(3), lib.arange(2), indexing="ij"),
    "hstack": lambda lib, x: lib.hstack([x, x]),
    "vstack": lambda lib, x: lib.vstack([lib.arange(3.0), lib.arange(3.0)]),
    "dstack": lambda lib, x: lib.dstack([x[0], x[0]]),
    "column_stack": lambda lib, x: lib.column_stack([lib.arange(3.0), lib.arange(3.0)]),
    "repeat_interleave": lambda lib, x: lib.repeat_interleave(x, 2, dim=1),
    "repeat_interleave-tensor": lambda lib, x: lib.repeat_interleave(x, lib.tensor([1, 0, 2]),
                                                                     dim=1),
    "repeat_interleave-counts": lambda lib, x: lib.repeat_interleave(lib.tensor([2, 0, 3])),
    "rot90": lambda lib, x: [lib.rot90(x, k, (1, 2)) for k in range(-1, 5)],
    "take": lambda lib, x: lib.take(x, lib.tensor([[0, 5], [23, 1]])),
    "index_add": lambda lib, x: lib.index_add(x, 1, lib.tensor([0, 2, 0]), x * 0 + 1, alpha=2),
    "index_fill": lambda lib, x: lib.index_fill(x, 1, lib.tensor([1]), -1.0),
    "masked_scatter": lambda lib, x: lib.masked_scatter(x[0], x[0] > 5, lib.arange(100.0,
                                                                            dtype=x.dtype)),
    "block_diag": lambda lib, x: lib.block_diag(x[0, :2, :2], x[1, :1]),
    "cartesian_prod": lambda lib, x: lib.cartesian_prod(lib.arange(3), lib.arange(2)),
    "combinations": lambda lib, x: [lib.combinations(lib.arange(4), 3),
                                  lib.combinations(lib.arange(3), 2, with_replacement=True)],
    "tril_indices": lambda lib, x: [lib.tril_indices(3, 4, 1), lib.triu_indices(4, 3, -1)],
    "tensor_split": lambda lib, x: list(lib.tensor_split(x, 3, dim=2))
    + list(lib.tensor_split(x, [1, 3], dim=2)),
    "atleast": lambda lib, x: [lib.atleast_1d(lib.tensor(1.0)), lib.atleast_2d(lib.arange(3.0)),
                             lib.atleast_3d(lib.arange(3.0))],
    "swap-flip": lambda lib, x: [lib.swapaxes(x, 0, 2), lib.fliplr(x[0]), lib.flipud(x[0])],
    "unfold": lambda lib, x: [x.unfold(2, 2, 1), x.unfold(1, 2, 1), x.unfold(2, 4, 3)],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name):
    _same(CASES[name](tl, tl.tensor(X)), CASES[name](torch, torch.tensor(X)))


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin", "prod"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_matches_pytorch(reduce, include_self):
    src = np.arange(12.0).reshape(2, 6)
    index = np.array([[0, 1, 0, 1, 2, 1], [0, 0, 2, 2, 1, 1]])
    ours = tl.scatter_reduce(tl.ones(2, 3, dtype=tl.float64), 1, tl.tensor(index),
                             tl.tensor(src), reduce, include_self=include_self)
    theirs = torch.scatter_reduce(torch.ones(2, 3, dtype=torch.float64), 1,
                                  torch.tensor(index), torch.tensor(src), reduce,
                                  include_self=include_self)
    _same(ours, theirs)


def test_inplace_methods_write_through_and_bump_the_version():
    x = tl.tensor([4.0, 9.0])
    assert x.sqrt_() is x and x.tolist() == [2.0, 3.0] and x._version == 1
    y = tl.zeros(3, 2)
    y.index_add_(0, tl.tensor([0, 2]), tl.ones(2, 2))
    assert y.tolist() == [[1, 1], [0, 0], [1, 1]]
    z = tl.zeros(2, 3)
    z.scatter_(1, tl.tensor([[2], [0]]), tl.full((2, 1), 5.0))
    assert z.tolist() == [[0, 0, 5], [5, 0, 0]]
    w = tl.ones(2, 3)
    w.t_()
    assert w.shape == (3, 2)
    a = tl.ones(3, requires_grad=True)
    b = a * 2
    b.sigmoid_()  # recorded: the gradient goes through sigmoid
    b.sum().backward()
    s = 1 / (1 + np.exp(-2.0))
    np.testing.assert_allclose(a.grad.numpy(), np.full(3, 2 * s * (1 - s)), rtol=1e-6)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        tl.ones(2, requires_grad=True).sqrt_()
    # amax's gradient is shared by the tied elements (input 1 and source 1 at place 0)
    x = tl.ones(2, requires_grad=True)
    tl.scatter_reduce(x, 0, tl.tensor([0]), tl.ones(1), "amax").sum().backward()
    assert x.grad.tolist() == [0.5, 1.0]
