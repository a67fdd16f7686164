"""Sparse COO tensors: construction and its errors, coalesce, conversions, sparse @ dense with
gradients for both operands (NumPy and SciPy kernels), sum, softmax, and a GCN trained a few
steps, all against PyTorch where it is installed."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.ops import sparse_mm

IDX = [[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]]
VAL = [3.0, 4.0, 5.0, 1.0, -2.0]
pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")


def _sparse(requires_grad=False, dtype=tl.float64):
    v = tl.tensor(VAL, dtype=dtype, requires_grad=requires_grad)
    return tl.sparse_coo_tensor(tl.tensor(IDX), v, (3, 3)), v


def test_construction_and_attributes():
    s, v = _sparse()
    assert s.is_sparse and s.layout == "torch.sparse_coo" and not tl.ones(2).is_sparse
    assert s.shape == (3, 3) and s.size(1) == 3 and s.dim() == 2 and s.dtype == tl.float64
    assert s.sparse_dim() == 2 and s.dense_dim() == 0 and s._nnz() == 5
    assert not s.is_coalesced() and s._values() is v
    assert s._indices().tolist() == IDX
    assert tl.sparse_coo_tensor(IDX, VAL).shape == (3, 3)  # size inferred from the indices
    hybrid = tl.sparse_coo_tensor([[0, 2]], tl.ones(2, 4), (3, 4))
    assert hybrid.sparse_dim() == 1 and hybrid.dense_dim() == 1
    assert hybrid.to_dense().tolist() == [[1.0] * 4, [0.0] * 4, [1.0] * 4]


def test_construction_errors():
    with pytest.raises(RuntimeError, match="sparse_dim x nnz"):
        tl.sparse_coo_tensor([0, 1], [1.0, 2.0], (2,))
    with pytest.raises(RuntimeError, match="same nnz"):
        tl.sparse_coo_tensor(IDX, VAL[:2], (3, 3))
    with pytest.raises(RuntimeError, match="len\\(size\\)"):
        tl.sparse_coo_tensor(IDX, VAL, (3, 3, 3))
    with pytest.raises(RuntimeError, match="inconsistent"):
        tl.sparse_coo_tensor(IDX, VAL, (2, 3))
    with pytest.raises(RuntimeError, match="negative"):
        tl.sparse_coo_tensor([[0, -1]], [1.0, 2.0], (3,))
    s, _ = _sparse()
    with pytest.raises(RuntimeError, match="coalesce"):
        s.indices()
    with pytest.raises(RuntimeError, match="coalesce"):
        s.values()
    with pytest.raises(RuntimeError, match="Expected dim 0 size"):
        s @ tl.ones(4, 2, dtype=tl.float64)
    with pytest.raises(TypeError):
        tl.sparse.mm(s, [[1.0]])


def test_coalesce_and_conversions_match_torch():
    torch = pytest.importorskip("torch")
    s, v = _sparse(requires_grad=True)
    ts = torch.sparse_coo_tensor(torch.tensor(IDX), torch.tensor(VAL, dtype=torch.float64),
                                 (3, 3)).coalesce()
    c = s.coalesce()
    assert c.is_coalesced() and c.coalesce() is c
    assert c.indices().tolist() == ts.indices().tolist()
    np.testing.assert_allclose(c.values().detach().numpy(), ts.values().numpy())
    np.testing.assert_allclose(s.to_dense().detach().numpy(), ts.to_dense().numpy())
    (c.values() * tl.arange(4.0, dtype=tl.float64)).sum().backward()
    assert v.grad.tolist() == [0.0, 1.0, 2.0, 0.0, 3.0]  # duplicates share their sum's grad
    dense = tl.tensor([[0.0, 1.5], [0.0, 0.0], [-2.0, 0.0]], requires_grad=True)
    sp = dense.to_sparse()
    tsp = torch.tensor(dense.tolist()).to_sparse()
    assert sp.is_coalesced() and sp.indices().tolist() == tsp.indices().tolist()
    assert sp.values().tolist() == tsp.values().tolist()
    (sp.to_dense() * 3).sum().backward()  # gradient only where entries are stored
    assert dense.grad.tolist() == [[0.0, 3.0], [0.0, 0.0], [3.0, 0.0]]
    rows = tl.tensor([[0.0, 0.0], [1.0, 2.0]]).to_sparse(1)
    assert rows.sparse_dim() == 1 and rows.indices().tolist() == [[1]]
    assert tl.ones(2).to_dense().tolist() == [1.0, 1.0]


@pytest.mark.parametrize("use_scipy", [True, False])
def test_sparse_dense_product_and_gradients_match_torch(use_scipy, monkeypatch):
    torch = pytest.importorskip("torch")
    if use_scipy:
        pytest.importorskip("scipy")
    else:
        monkeypatch.setitem(__import__("sys").modules, "scipy.sparse", None)
    s, v = _sparse(requires_grad=True)
    d = tl.randn(3, 4, dtype=tl.float64, requires_grad=True)
    tv = torch.tensor(VAL, dtype=torch.float64, requires_grad=True)
    td = torch.tensor(d.tolist(), dtype=torch.float64, requires_grad=True)
    ts = torch.sparse_coo_tensor(torch.tensor(IDX), tv, (3, 3))
    w = np.random.default_rng(0).normal(size=(3, 4))
    out = s @ d
    tout = torch.sparse.mm(ts, td)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    (out * tl.tensor(w)).sum().backward()
    (tout * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), tv.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(d.grad.numpy(), td.grad.numpy(), rtol=1e-12)
    vec = tl.sparse.spmm(s, d).detach()
    np.testing.assert_allclose(vec.numpy(), tout.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(tl.spmm(s, d[:, 0]).detach().numpy(),
                               tout.detach().numpy()[:, 0], rtol=1e-12)
    added = tl.sparse.addmm(tl.ones(3, 4, dtype=tl.float64), s, d, beta=0.5, alpha=2.0)
    np.testing.assert_allclose(added.detach().numpy(), 0.5 + 2 * tout.detach().numpy())


def test_second_order_through_the_product():
    s, v = _sparse(requires_grad=True)
    d = tl.randn(3, 2, dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradcheck(lambda vals, dense: tl.sparse_coo_tensor(IDX, vals, (3, 3))
                                 @ dense, (v, d))
    assert tl.autograd.gradgradcheck(lambda vals, dense: tl.sparse_coo_tensor(IDX, vals, (3, 3))
                                     @ dense, (v, d))


def test_sum_softmax_log_softmax_match_torch():
    torch = pytest.importorskip("torch")
    s, v = _sparse(requires_grad=True)
    tv = torch.tensor(VAL, dtype=torch.float64, requires_grad=True)
    ts = torch.sparse_coo_tensor(torch.tensor(IDX), tv, (3, 3))
    assert tl.sparse.sum(s).item() == pytest.approx(torch.sparse.sum(ts).item())
    part, tpart = tl.sparse.sum(s, 0), torch.sparse.sum(ts, 0)
    assert part.indices().tolist() == tpart.indices().tolist()
    np.testing.assert_allclose(part.values().detach().numpy(), tpart.values().detach().numpy())
    for dim in (0, 1, -1):
        for ours, theirs in ((tl.sparse.softmax, torch.sparse.softmax),
                             (tl.sparse.log_softmax, torch.sparse.log_softmax)):
            a, b = ours(s, dim), theirs(ts, dim).coalesce()
            assert a.indices().tolist() == b.indices().tolist()
            np.testing.assert_allclose(a.values().detach().numpy(),
                                       b.values().detach().numpy(), rtol=1e-12)
    w = tl.tensor([1.0, -2.0, 0.5, 3.0], dtype=tl.float64)
    (tl.sparse.softmax(s, 1).values() * w).sum().backward()
    (torch.sparse.softmax(ts, 1).coalesce().values() * torch.tensor(w.tolist())).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), tv.grad.numpy(), rtol=1e-10)


def test_leaf_sparse_tensor_gets_a_sparse_grad_and_arithmetic():
    s = tl.sparse_coo_tensor(IDX, VAL, (3, 3), dtype=tl.float64, requires_grad=True)
    assert s.requires_grad and s.is_leaf and s.grad is None
    (s @ tl.ones(3, 1, dtype=tl.float64)).sum().backward()
    # one entry per distinct index (IDX repeats one), as PyTorch's sparse gradient
    assert s.grad.is_sparse and s.grad._values().tolist() == [1.0] * 4
    both = (s + s.detach() * 2).coalesce()
    np.testing.assert_allclose(both.to_dense().detach().numpy(),
                               3 * s.to_dense().detach().numpy())
    assert (s.t().to_dense() == s.to_dense().T).all()
    assert "layout=torch.sparse_coo" in repr(s)


def test_gcn_training_steps_match_torch():
    """A 2-layer GCN: relu(A @ X @ W1), then A @ H @ W2, cross-entropy; gradients and the
    weights after 3 SGD steps agree with PyTorch."""
    torch = pytest.importorskip("torch")
    g = np.random.default_rng(1)
    n, f, h, c = 30, 8, 16, 3
    edges = g.integers(0, n, size=(2, 90))
    edges = np.concatenate([edges, edges[::-1], np.stack([np.arange(n)] * 2)], 1)
    deg = np.bincount(edges[0], minlength=n).astype(np.float64)
    norm = 1.0 / np.sqrt(deg[edges[0]] * deg[edges[1]])
    x = g.normal(size=(n, f))
    y = g.integers(0, c, size=n)
    w1, w2 = g.normal(size=(f, h)) * 0.3, g.normal(size=(h, c)) * 0.3

    adj = tl.sparse_coo_tensor(edges, tl.tensor(norm), (n, n)).coalesce()
    tadj = torch.sparse_coo_tensor(torch.tensor(edges), torch.tensor(norm), (n, n)).coalesce()
    p1, p2 = tl.tensor(w1, requires_grad=True), tl.tensor(w2, requires_grad=True)
    q1, q2 = torch.tensor(w1, requires_grad=True), torch.tensor(w2, requires_grad=True)
    opt = tl.optim.SGD([p1, p2], lr=0.5)
    topt = torch.optim.SGD([q1, q2], lr=0.5)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        topt.zero_grad()
        hid = tl.relu(adj @ (tl.tensor(x) @ p1))
        loss = tl.nn.functional.cross_entropy(adj @ (hid @ p2), tl.tensor(y))
        thid = torch.relu(torch.sparse.mm(tadj, torch.tensor(x) @ q1))
        tloss = torch.nn.functional.cross_entropy(torch.sparse.mm(tadj, thid @ q2),
                                                  torch.tensor(y))
        loss.backward()
        tloss.backward()
        assert loss.item() == pytest.approx(tloss.item(), rel=1e-10)
        np.testing.assert_allclose(p1.grad.numpy(), q1.grad.numpy(), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(p2.grad.numpy(), q2.grad.numpy(), rtol=1e-9, atol=1e-12)
        opt.step()
        topt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]


def test_no_numpy_warnings_and_empty_tensor():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        empty = tl.sparse_coo_tensor(np.zeros((2, 0), np.int64), tl.zeros(0), (4, 5))
        assert empty._nnz() == 0 and empty.to_dense().shape == (4, 5)
        assert (empty @ tl.ones(5, 2)).tolist() == [[0.0, 0.0]] * 4
        assert tl.sparse.softmax(empty, 1)._nnz() == 0


def test_numpy_kernel_is_loop_free_and_correct_at_scale():
    g = np.random.default_rng(0)
    rows, cols = g.integers(0, 500, 5000), g.integers(0, 400, 5000)
    vals, dense = g.normal(size=5000), g.normal(size=(400, 7))
    a = np.zeros((500, 400))
    np.add.at(a, (rows, cols), vals)
    np.testing.assert_allclose(sparse_mm.matmul_arrays(rows, cols, (500, 400), vals, dense),
                               a @ dense, rtol=1e-10, atol=1e-12)
