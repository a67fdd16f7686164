"""PyTorch's older sparse products (tl.smm, sspaddmm/saddmm, hspmm/hsmm, dsmm), sparse_mask,
and the sparse accessors of dense tensors: values, indices, coalesced flags and errors against
PyTorch, and float64 gradchecks (PyTorch has gradients for dsmm and sparse_mask; smm, hspmm and
sspaddmm here differentiate as the dense product restricted to the stored entries)."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.autograd import gradcheck
from tinygrad_lite.sparse import SparseTensor

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")

IDX = [[0, 1, 1, 2, 1], [2, 0, 2, 1, 0]]  # (1, 0) twice: uncoalesced
VAL = [1.0, 2.0, 3.0, 4.0, -0.5]
DENSE = np.arange(8.0).reshape(4, 2) - 3.0


def _sparse(dtype=tl.float64, requires_grad=False, size=(4, 4)):
    v = tl.tensor(VAL, dtype=dtype, requires_grad=requires_grad)
    return tl.sparse_coo_tensor(IDX, v, size), v


def _dense_product():
    a = np.zeros((4, 4))
    np.add.at(a, tuple(np.array(IDX)), VAL)
    return a @ DENSE


def test_smm_stores_every_column_of_the_stored_rows():
    s, _ = _sparse()
    out = tl.smm(s, tl.tensor(DENSE))
    assert isinstance(out, SparseTensor) and out.shape == (4, 2) and not out.is_coalesced()
    assert out._indices().tolist() == [[0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 0, 1]]  # row 3: none
    np.testing.assert_allclose(out.to_dense().numpy(), _dense_product())
    assert s.smm(tl.tensor(DENSE))._nnz() == 6  # the method
    zero_row = tl.sparse_coo_tensor([[3], [0]], tl.tensor([0.0], dtype=tl.float64), (4, 4))
    assert tl.smm(zero_row, tl.tensor(DENSE))._indices().tolist() == [[3, 3], [0, 1]]


def test_hspmm_and_hsmm_give_a_hybrid_matrix():
    s, _ = _sparse()
    for fn in (tl.hspmm, tl.hsmm):
        out = fn(s, tl.tensor(DENSE))
        assert out.sparse_dim() == 1 and out.dense_dim() == 1 and out.shape == (4, 2)
        assert out._indices().tolist() == [[0, 1, 2]] and not out.is_coalesced()
        np.testing.assert_allclose(out._values().numpy(), _dense_product()[:3])
        np.testing.assert_allclose(out.to_dense().numpy(), _dense_product())


def test_dsmm_is_the_dense_product():
    s, _ = _sparse()
    out = tl.dsmm(s, tl.tensor(DENSE))
    assert isinstance(out, tl.Tensor)
    np.testing.assert_allclose(out.numpy(), _dense_product())
    d = tl.tensor(DENSE)
    np.testing.assert_allclose(tl.dsmm(d.mT, d).numpy(), DENSE.T @ DENSE)  # dense: mm


def test_sspaddmm_keeps_the_input_entries_then_the_product():
    s, _ = _sparse()
    inp = tl.sparse_coo_tensor([[2, 0, 2], [1, 1, 1]], tl.tensor([5.0, 6.0, 7.0],
                                                                 dtype=tl.float64), (4, 2))
    for fn in (tl.sspaddmm, tl.saddmm, lambda i, a, b, **k: i.sspaddmm(a, b, **k)):
        out = fn(inp, s, tl.tensor(DENSE), beta=2, alpha=-3)
        assert out._nnz() == 9 and not out.is_coalesced()
        assert out._indices().tolist() == [[2, 0, 2, 0, 0, 1, 1, 2, 2],
                                           [1, 1, 1, 0, 1, 0, 1, 0, 1]]
        expected = 2 * inp.to_dense().numpy() - 3 * _dense_product()
        np.testing.assert_allclose(out.to_dense().numpy(), expected)
    assert tl.sspaddmm(inp, s, tl.tensor(DENSE), beta=0)._values().tolist()[:3] == [0.0] * 3


def test_products_match_torch():
    torch = pytest.importorskip("torch")
    ts = torch.sparse_coo_tensor(torch.tensor(IDX), torch.tensor(VAL), (4, 4))
    td = torch.tensor(DENSE, dtype=torch.float32)
    tin = torch.sparse_coo_tensor(torch.tensor([[2, 0], [1, 1]]), torch.tensor([5.0, 6.0]),
                                  (4, 2))
    s, _ = _sparse(dtype=tl.float32)
    d = tl.tensor(DENSE, dtype=tl.float32)
    inp = tl.sparse_coo_tensor([[2, 0], [1, 1]], tl.tensor([5.0, 6.0]), (4, 2))
    pairs = [(tl.smm(s, d), torch.smm(ts, td)), (tl.hspmm(s, d), torch.hspmm(ts, td)),
             (tl.hsmm(s, d), torch.hsmm(ts, td)),
             (tl.sspaddmm(inp, s, d, beta=0.5, alpha=2), torch.sspaddmm(tin, ts, td, beta=0.5,
                                                                         alpha=2)),
             (tl.saddmm(inp, s, d), torch.saddmm(tin, ts, td))]
    for ours, theirs in pairs:
        assert ours._indices().tolist() == theirs._indices().tolist()
        np.testing.assert_allclose(ours._values().numpy(), theirs._values().numpy(), rtol=1e-6)
        assert ours.is_coalesced() == theirs.is_coalesced()
        assert (ours.sparse_dim(), ours.dense_dim()) == (theirs.sparse_dim(), theirs.dense_dim())
    np.testing.assert_allclose(tl.dsmm(s, d).numpy(), torch.dsmm(ts, td).numpy(), rtol=1e-6)


def test_dsmm_gradients_match_torch():
    torch = pytest.importorskip("torch")
    s, v = _sparse(requires_grad=True)
    d = tl.tensor(DENSE, dtype=tl.float64, requires_grad=True)
    w = np.random.default_rng(0).standard_normal((4, 2))
    (tl.dsmm(s, d) * tl.tensor(w, dtype=tl.float64)).sum().backward()
    tv = torch.tensor(VAL, dtype=torch.float64, requires_grad=True)
    td = torch.tensor(DENSE, requires_grad=True)
    (torch.dsmm(torch.sparse_coo_tensor(torch.tensor(IDX), tv, (4, 4)), td)
     * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), tv.grad.numpy())
    np.testing.assert_allclose(d.grad.numpy(), td.grad.numpy())


@pytest.mark.parametrize("which", ["smm", "hspmm", "sspaddmm", "dsmm"])
def test_product_gradchecks(which):
    v = tl.tensor(VAL, dtype=tl.float64, requires_grad=True)
    d = tl.tensor(DENSE, dtype=tl.float64, requires_grad=True)
    iv = tl.tensor([1.5, -2.0], dtype=tl.float64, requires_grad=True)

    def fn(values, dense, inp_values):
        s = tl.sparse_coo_tensor(IDX, values, (4, 4))
        if which == "smm":
            return tl.smm(s, dense)._values()
        if which == "hspmm":
            return tl.hspmm(s, dense).to_dense()
        if which == "dsmm":
            return tl.dsmm(s, dense) + 0 * inp_values.sum()
        inp = tl.sparse_coo_tensor([[1, 3], [0, 1]], inp_values, (4, 2))
        return tl.sspaddmm(inp, s, dense, beta=0.5, alpha=2.0).to_dense()

    assert gradcheck(fn, (v, d, iv))


def test_product_errors_match_torch():
    s, _ = _sparse()
    d = tl.tensor(DENSE)
    with pytest.raises(RuntimeError, match="Expected dim 0 size 4, got 3"):
        tl.smm(s, tl.ones(3, 2, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="matrices expected, got 1D"):
        tl.hspmm(s, tl.ones(4, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
        tl.smm(s, tl.ones(4, 2))
    with pytest.raises(RuntimeError, match="can only be called on sparse tensors"):
        tl.smm(d, d.mT)
    with pytest.raises(RuntimeError, match="can only be called on sparse tensors"):
        d.smm(d.mT)
    with pytest.raises(RuntimeError, match="sparse"):
        tl.hspmm(d, d.mT)
    with pytest.raises(RuntimeError, match="sparse"):
        tl.sspaddmm(tl.zeros(4, 2, dtype=tl.float64), s, d)
    hybrid = tl.sparse_coo_tensor([[0, 2]], tl.ones(2, 4, dtype=tl.float64), (4, 4))
    with pytest.raises(RuntimeError, match="matrices expected, got 1D"):
        tl.smm(hybrid, d)
    inp = tl.sparse_coo_tensor([[0], [0]], tl.tensor([1.0], dtype=tl.float64), (4, 4))
    with pytest.raises(RuntimeError, match="Argument #1: Expected dim 1 size 2, got 4"):
        tl.sspaddmm(inp, s, d)
    with pytest.raises(RuntimeError, match="must match dtype"):
        tl.sspaddmm(tl.sparse_coo_tensor([[0], [0]], tl.tensor([1.0]), (4, 2)), s, d)
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.dsmm(s, tl.ones(4, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="Expected dim 0 size 4, got 2"):
        tl.dsmm(s, tl.ones(2, 2, dtype=tl.float64))


def test_sparse_mask_of_a_dense_tensor():
    x = tl.tensor(np.arange(16.0).reshape(4, 4), dtype=tl.float64, requires_grad=True)
    s, _ = _sparse()
    out = x.sparse_mask(s)  # uncoalesced mask: its indices as stored, duplicates included
    assert out._indices().tolist() == IDX and not out.is_coalesced()
    assert out._values().tolist() == [2.0, 4.0, 6.0, 9.0, 4.0]
    out.to_dense().sum().backward()  # (1, 0) picked twice
    assert x.grad.numpy()[1, 0] == 2.0 and x.grad.numpy().sum() == 5.0
    c = x.sparse_mask(s.coalesce())
    assert c.is_coalesced() and c.indices().tolist() == [[0, 1, 1, 2], [2, 0, 2, 1]]
    rows = tl.sparse_coo_tensor([[0, 2]], tl.ones(2, 4), (4, 4))  # hybrid mask: whole rows
    picked = x.sparse_mask(rows)
    assert picked.dense_dim() == 1 and picked._values().tolist() == [[0.0, 1, 2, 3],
                                                                      [8.0, 9, 10, 11]]
    assert gradcheck(lambda t: t.sparse_mask(s)._values(), (x,))


def test_sparse_mask_of_a_sparse_tensor():
    s, v = _sparse(requires_grad=True)
    mask = tl.sparse_coo_tensor([[1, 0, 3], [0, 0, 3]], tl.ones(3), (4, 4))
    out = s.sparse_mask(mask)  # (1, 0) holds 2 - 0.5; the others are not stored in s
    assert out._indices().tolist() == [[1, 0, 3], [0, 0, 3]]
    assert out._values().tolist() == [1.5, 0.0, 0.0]
    out._values().sum().backward()
    assert v.grad.tolist() == [0.0, 1.0, 0.0, 0.0, 1.0]
    empty = tl.sparse_coo_tensor(np.zeros((2, 0), np.int64), tl.zeros(0), (4, 4))
    assert empty.sparse_mask(mask)._values().tolist() == [0.0] * 3
    rows = tl.sparse_coo_tensor([[1]], tl.ones(1, 4), (4, 4))  # other sparse_dim: via dense
    assert s.sparse_mask(rows)._values().tolist() == [[1.5, 0.0, 3.0, 0.0]]


def test_sparse_mask_matches_torch_and_errors():
    torch = pytest.importorskip("torch")
    data = np.arange(16.0).reshape(4, 4)
    ts = torch.sparse_coo_tensor(torch.tensor(IDX), torch.tensor(VAL), (4, 4))
    s, _ = _sparse(dtype=tl.float32)
    for mask, tmask in ((s, ts), (s.coalesce(), ts.coalesce())):
        ours = tl.tensor(data).sparse_mask(mask)
        theirs = torch.tensor(data).sparse_mask(tmask)
        assert ours._indices().tolist() == theirs._indices().tolist()
        assert ours._values().tolist() == theirs._values().tolist()
        assert ours.is_coalesced() == theirs.is_coalesced() and ours.dtype == tl.float64
    sub = tl.sparse_coo_tensor([[1, 0], [0, 0]], tl.ones(2), (4, 4))
    tsub = torch.sparse_coo_tensor(torch.tensor([[1, 0], [0, 0]]), torch.ones(2), (4, 4))
    assert s.sparse_mask(sub)._values().tolist() == ts.sparse_mask(tsub)._values().tolist()
    with pytest.raises(RuntimeError, match=r"self has size \[4, 2\] but mask has size \[4, 4\]"):
        tl.tensor(DENSE).sparse_mask(s)
    with pytest.raises(NotImplementedError):
        tl.ones(4, 4).sparse_mask(tl.ones(4, 4))


def test_dense_tensors_answer_the_sparse_accessors_as_torch():
    torch = pytest.importorskip("torch")
    x, tx = tl.ones(2, 3), torch.ones(2, 3)
    assert (x.sparse_dim(), x.dense_dim()) == (tx.sparse_dim(), tx.dense_dim()) == (0, 2)
    for name in ("coalesce", "is_coalesced", "indices", "values"):
        with pytest.raises(RuntimeError) as theirs:
            getattr(tx, name)()
        with pytest.raises(RuntimeError, match="layout but got Strided") as ours:
            getattr(x, name)()
        assert str(ours.value) == str(theirs.value)
    s, _ = _sparse()
    assert s.coalesce().is_coalesced() and (s.sparse_dim(), s.dense_dim()) == (2, 0)
