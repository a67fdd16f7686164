"""Sparse COO tensors against PyTorch: construction (with and without size, hybrid, empty),
``to_sparse`` of 0-d/empty/hybrid tensors, coalescing of duplicate indices, products with
``tl.mm``/``matmul``/``tl.sparse.mm``/``addmm`` and their float64 gradients (dense side and
values, the leaf's sparse ``.grad``), ``tl.sparse.sum``/``softmax``/``log_softmax``,
elementwise ``*``/``abs``/``pow``, reprs, and the errors for bad input."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

IDX = [[0, 1, 1, 0], [2, 0, 2, 2]]  # (0, 2) stored twice: an uncoalesced tensor
VAL = [3.0, 4.0, 5.0, -1.5]
HYB_IDX = [[0, 1, 1]]
HYB_VAL = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's one-off "invariant checks" warning
        return fn()


def _both(fn):
    return fn(tl), _quiet(lambda: fn(torch))


def _dense(x):
    x = x.to_dense() if x.is_sparse else x
    return x.detach().numpy()


def _same(ours, ref, rtol=1e-6):
    assert ours.is_sparse == ref.is_sparse
    assert tuple(ours.shape) == tuple(ref.shape)
    assert str(ours.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    np.testing.assert_allclose(_dense(ours), _dense(ref), rtol=rtol, atol=1e-7)


def _coo(lib, idx=IDX, val=VAL, size=(2, 3), **kw):
    return lib.sparse_coo_tensor(idx, val, size, **kw)


def _raises(fn, exc, text):
    """Both libraries raise ``exc`` with the same message start ``text``."""
    for lib in (tl, torch):
        with pytest.raises(exc) as info:
            _quiet(lambda lib=lib: fn(lib))
        assert str(info.value).startswith(text), (lib.__name__, str(info.value))


# -- construction ---------------------------------------------------------------------------


@pytest.mark.parametrize("build", [
    lambda lib: _coo(lib),
    lambda lib: lib.sparse_coo_tensor(IDX, VAL),
    lambda lib: _coo(lib, dtype=lib.float64),
    lambda lib: _coo(lib, val=[1, 2, 3, 4]),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(IDX), lib.tensor(VAL, dtype=lib.float64), (2, 3)),
    lambda lib: lib.sparse_coo_tensor(HYB_IDX, HYB_VAL, (2, 2)),
    lambda lib: lib.sparse_coo_tensor(HYB_IDX, HYB_VAL),
    lambda lib: lib.sparse_coo_tensor(lib.zeros((2, 0), dtype=lib.int64), lib.zeros(0), (2, 3)),
    lambda lib: lib.sparse_coo_tensor(lib.zeros((2, 0), dtype=lib.int64), lib.zeros(0)),
], ids=["f32", "no-size", "dtype", "int", "f64", "hybrid", "hybrid-no-size", "empty",
        "empty-no-size"])
def test_construction(build):
    ours, ref = _both(build)
    _same(ours, ref)
    assert (ours.sparse_dim(), ours.dense_dim(), ours._nnz()) == \
        (ref.sparse_dim(), ref.dense_dim(), ref._nnz())
    assert ours.is_coalesced() == ref.is_coalesced()
    assert ours._indices().tolist() == ref._indices().tolist()


def test_a_single_entry_is_coalesced():
    for nnz_idx, val in (([[1]], [2.0]), ([[]], [])):
        ours, ref = _both(lambda lib, i=nnz_idx, v=val: lib.sparse_coo_tensor(i, v, (3,)))
        assert ours.is_coalesced() is ref.is_coalesced() is True


@pytest.mark.parametrize("fn, exc, text", [
    (lambda lib: lib.sparse_coo_tensor([[0, 1]], [1.0, 2.0, 3.0], (3,)), RuntimeError,
     "indices and values must have same nnz, but got nnz from indices: 2, nnz from values: 3"),
    (lambda lib: lib.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3, 3)), RuntimeError,
     "'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = 2, sparse_dim = 1, "
     "dense_dim = 0"),
    (lambda lib: lib.sparse_coo_tensor(HYB_IDX, HYB_VAL, (2, 3)), RuntimeError,
     "values has incorrect size, expected [3, 3], got [3, 2]"),
    (lambda lib: lib.sparse_coo_tensor([[0, 5]], [1.0, 2.0], (3,), check_invariants=True),
     RuntimeError, "size is inconsistent with indices: for dim 0, size is 3 but found index 5"),
    (lambda lib: lib.sparse_coo_tensor([[0, -1]], [1.0, 2.0], (3,), check_invariants=True),
     RuntimeError, "found negative index -1 for dim 0"),
    (lambda lib: lib.sparse_coo_tensor([[0, -1]], [1.0, 2.0]), RuntimeError,
     "found negative index -1 for dim 0"),
])
def test_construction_errors(fn, exc, text):
    _raises(fn, exc, text)


# -- conversions ----------------------------------------------------------------------------


@pytest.mark.parametrize("make, sparse_dim", [
    (lambda lib: lib.tensor([[0.0, 1.0], [2.0, 0.0]]), None),
    (lambda lib: lib.tensor([[0.0, 1.0], [2.0, 0.0]]).t(), None),  # non-contiguous
    (lambda lib: lib.tensor([[0.0, 0.0], [1.0, 0.0]]), 1),
    (lambda lib: lib.tensor([[0, 3], [2, 0]]), None),
    (lambda lib: lib.tensor([True, False, True]), None),
    (lambda lib: lib.tensor(3.0), None),
    (lambda lib: lib.tensor(0.0), None),
    (lambda lib: lib.tensor(3.0), 0),
    (lambda lib: lib.zeros(0, 3), None),
    (lambda lib: lib.zeros(0, 3), 1),
    (lambda lib: lib.zeros(2, 0), 1),
], ids=["2d", "non-contiguous", "hybrid", "int", "bool", "0d", "0d-zero", "0d-dim0",
        "empty", "empty-hybrid", "empty-dense"])
def test_to_sparse(make, sparse_dim):
    args = () if sparse_dim is None else (sparse_dim,)
    ours, ref = _both(lambda lib: make(lib).to_sparse(*args))
    _same(ours, ref)
    assert (ours.sparse_dim(), ours.dense_dim(), ours._nnz(), ours.is_coalesced()) == \
        (ref.sparse_dim(), ref.dense_dim(), ref._nnz(), ref.is_coalesced())
    assert tuple(ours._indices().shape) == tuple(ref._indices().shape)
    assert tuple(ours._values().shape) == tuple(ref._values().shape)
    _same(*_both(lambda lib: make(lib).to_sparse_coo()))


@pytest.mark.parametrize("fn, exc, text", [
    (lambda lib: lib.ones(2, 2).to_sparse(3), RuntimeError,
     "dense_to_sparse: sparse_dim argument must be in [0,2] range, but 3 is given"),
    (lambda lib: lib.ones(2, 2).to_sparse(0), RuntimeError,
     "dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0"),
    (lambda lib: _coo(lib).to_sparse(1), RuntimeError,
     "to_sparse: conversion from Sparse to Sparse with sparse_dim argument !=self.sparse_dim()"),
    (lambda lib: _coo(lib).to_dense(lib.float64), RuntimeError,
     "dtype argument is not supported by sparse_to_dense"),
    (lambda lib: _coo(lib).numpy(), TypeError, "can't convert Sparse layout tensor to numpy."),
    (lambda lib: _coo(lib).indices(), RuntimeError, "Cannot get indices on an uncoalesced tensor"),
    (lambda lib: lib.sparse_coo_tensor([[0], [0], [0]], [1.0], (1, 1, 1)).t(), RuntimeError,
     "t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got 3 sparse and 0 "
     "dense dimensions"),
])
def test_conversion_errors(fn, exc, text):
    _raises(fn, exc, text)


def test_coalesce_sums_duplicates():
    for build in (_coo, lambda lib: lib.sparse_coo_tensor([[1, 0, 1]], HYB_VAL, (2, 2))):
        ours, ref = _both(lambda lib, b=build: b(lib).coalesce())
        assert ours.indices().tolist() == ref.indices().tolist()
        np.testing.assert_allclose(ours.values().numpy(), ref.values().numpy())
        assert ours.is_coalesced() and ref.is_coalesced()
    ours, ref = _both(lambda lib: _coo(lib).t())
    _same(ours, ref)
    assert ours.is_coalesced() == ref.is_coalesced()


# -- products and their gradients -----------------------------------------------------------

_D = np.random.default_rng(0).standard_normal((3, 2))


@pytest.mark.parametrize("op", [
    lambda lib, s, d: lib.mm(s, d),
    lambda lib, s, d: lib.matmul(s, d),
    lambda lib, s, d: lib.sparse.mm(s, d),
    lambda lib, s, d: s @ d,
    lambda lib, s, d: lib.spmm(s, d),
    lambda lib, s, d: lib.sparse.addmm(lib.ones(2, 2, dtype=lib.float64), s, d, beta=2.0,
                                       alpha=0.5),
    lambda lib, s, d: lib.matmul(s, d[:, 0]),
    lambda lib, s, d: lib.mm(d.t(), s.t()),
], ids=["mm", "matmul", "sparse.mm", "@", "spmm", "addmm", "matvec", "dense@sparse"])
def test_products_and_gradients(op):
    grads = []
    for lib in (tl, torch):
        vals = lib.tensor(VAL, dtype=lib.float64, requires_grad=True)
        d = lib.tensor(_D, requires_grad=True)
        s = _quiet(lambda lib=lib, vals=vals: lib.sparse_coo_tensor(IDX, vals, (2, 3)))
        out = op(lib, s, d)
        (out * lib.arange(out.numel(), dtype=lib.float64).reshape(out.shape)).sum().backward()
        grads.append((out, vals.grad, d.grad))
    for ours, ref in zip(*grads):
        _same(ours, ref, rtol=1e-12)


def test_second_order_gradient_through_the_dense_side():
    results = []
    for lib in (tl, torch):
        d = lib.tensor(_D, requires_grad=True)
        s = _quiet(lambda lib=lib: lib.sparse_coo_tensor(IDX, VAL, (2, 3), dtype=lib.float64))
        (g,) = lib.autograd.grad((lib.sparse.mm(s, d) ** 3).sum(), d, create_graph=True)
        (g2,) = lib.autograd.grad(g.sum(), d)
        results.append(g2)
    _same(*results, rtol=1e-12)


def test_leaf_grad_has_one_entry_per_index():
    grads = []
    for lib in (tl, torch):
        s = _quiet(lambda lib=lib: lib.sparse_coo_tensor(IDX, VAL, (2, 3), dtype=lib.float64,
                                                         requires_grad=True))
        lib.sparse.mm(s, lib.tensor(_D)).sum().backward()
        grads.append(s.grad)
    ours, ref = grads
    assert ours.is_sparse and ours._nnz() == ref._nnz() == 3
    _same(ours, ref, rtol=1e-12)  # dense view: the duplicate is not counted twice
    assert ours._indices().tolist() == ref._indices().tolist()


@pytest.mark.parametrize("fn, exc, text", [
    (lambda lib: lib.mm(_coo(lib), lib.ones(2, 2)), RuntimeError,
     "addmm: Argument #3 (dense): Expected dim 0 size 3, got 2"),
    (lambda lib: lib.sparse.mm(_coo(lib), lib.ones(3, 2, dtype=lib.float64)), RuntimeError,
     "expected scalar type Float but found Double"),
    (lambda lib: lib.mm(lib.sparse_coo_tensor(HYB_IDX, HYB_VAL, (2, 2)), lib.ones(2, 2)),
     RuntimeError, "addmm: matrices expected, got 1D tensor"),
])
def test_product_errors(fn, exc, text):
    _raises(fn, exc, text)


def test_sparse_mm_and_addmm_take_dense_matrices():
    _same(*_both(lambda lib: lib.sparse.mm(lib.ones(2, 3), lib.ones(3, 2))))
    _same(*_both(lambda lib: lib.sparse.addmm(lib.ones(2, 2), lib.ones(2, 3), lib.ones(3, 2),
                                              beta=0.5)))


# -- reductions -----------------------------------------------------------------------------


@pytest.mark.parametrize("args", [(), (0,), (1,), (-1,), ((0, 1),), ((-1,),), (None, "f64")])
def test_sum(args):
    def run(lib):
        dim = args[0] if args else None
        kw = {"dtype": lib.float64} if len(args) > 1 else {}
        return lib.sparse.sum(_coo(lib), dim, **kw) if args else lib.sparse.sum(_coo(lib))
    _same(*_both(run))


@pytest.mark.parametrize("dim", [0, 1])
def test_sum_hybrid(dim):
    _same(*_both(lambda lib: lib.sparse.sum(lib.sparse_coo_tensor(HYB_IDX, HYB_VAL, (2, 2)), dim)))


@pytest.mark.parametrize("fn, exc, text", [
    (lambda lib: lib.sparse.sum(_coo(lib), 2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda lib: lib.sparse.sum(_coo(lib), (0, 0)), RuntimeError,
     "dim 0 appears multiple times in the list of dims"),
    (lambda lib: lib.sparse.sum(lib.ones(2, 2)), RuntimeError,
     "coalesce expected sparse coordinate tensor layout but got Strided"),
    (lambda lib: lib.sparse.softmax(_coo(lib), -3), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    (lambda lib: lib.sparse.log_softmax(_coo(lib, val=[1, 2, 3, 4]), 0), NotImplementedError,
     "\"log_softmax\" not implemented for 'Long'"),
])
def test_reduction_errors(fn, exc, text):
    _raises(fn, exc, text)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("build, dim", [
    (lambda lib: _coo(lib, dtype=lib.float64), 0),
    (lambda lib: _coo(lib, dtype=lib.float64), 1),
    (lambda lib: lib.sparse_coo_tensor(HYB_IDX, HYB_VAL, (2, 2), dtype=lib.float64), 0),
    # along the dense dimension of a hybrid tensor
    (lambda lib: lib.sparse_coo_tensor(HYB_IDX, HYB_VAL, (2, 2), dtype=lib.float64), 1),
])
def test_softmax_values_and_gradients(name, build, dim):
    results = []
    for lib in (tl, torch):
        s = _quiet(lambda lib=lib: build(lib))
        vals = s._values().detach().requires_grad_(True)
        s = lib.sparse_coo_tensor(s._indices(), vals, s.shape)
        out = getattr(lib.sparse, name)(s, dim)
        weights = lib.arange(out.numel(), dtype=lib.float64).reshape(out.shape)
        (out.to_dense() * weights).sum().backward()
        results.append((out, vals.grad))
    for ours, ref in zip(*results):
        _same(ours, ref, rtol=1e-12)


def test_softmax_dtype_argument_and_negative_dim():
    _same(*_both(lambda lib: lib.sparse.softmax(_coo(lib), 1, dtype=lib.float64)), rtol=1e-12)
    # values only: PyTorch 2.13's backward for dim=-1 differs from its own for dim=1 (a bug)
    _same(*_both(lambda lib: lib.sparse.log_softmax(_coo(lib, dtype=lib.float64), -1)), rtol=1e-12)


# -- elementwise ----------------------------------------------------------------------------


@pytest.mark.parametrize("op", [
    lambda lib, s: s * 2,
    lambda lib, s: s.mul(2),
    lambda lib, s: s * lib.tensor(2.0, dtype=lib.float64),
    lambda lib, s: s * lib.arange(6.0, dtype=lib.float64).reshape(2, 3),
    lambda lib, s: s * lib.arange(3.0, dtype=lib.float64),
    lambda lib, s: s * s,
    lambda lib, s: s * lib.sparse_coo_tensor([[0, 1], [2, 2]], [2.0, 3.0], (2, 3)),
    lambda lib, s: abs(s),
    lambda lib, s: s.pow(2),
    lambda lib, s: s ** -1,
    lambda lib, s: -s,
    lambda lib, s: s / 2,
    lambda lib, s: s + s,
    lambda lib, s: s + s.double(),
    lambda lib, s: s - s.double(),
], ids=["scalar", "mul", "0d", "dense", "broadcast", "sparse", "sparse-partial", "abs", "pow",
        "pow-neg", "neg", "div", "add", "add-promote", "sub"])
def test_elementwise(op):
    ours, ref = _both(lambda lib: op(lib, _coo(lib)))
    _same(ours, ref)


def test_elementwise_errors():
    _raises(lambda lib: _coo(lib) * lib.ones(4), RuntimeError,
            "The size of tensor a (4) must match the size of tensor b (3) at non-singleton "
            "dimension 1")
    _raises(lambda lib: _coo(lib).pow(0), RuntimeError,
            "pow: cannot raise to zeroth power on sparse tensor")
    _raises(lambda lib: _coo(lib) + lib.sparse_coo_tensor([[0]], [1.0], (3,)), RuntimeError,
            "add: expected sizes of 'self' and 'other' to match, but [2, 3] != [3]")
    _raises(lambda lib: _coo(lib) * lib.sparse_coo_tensor([[0]], [1.0], (3,)), RuntimeError,
            "sparse_binary_op_intersection_cpu(): expects sparse inputs with equal "
            "dimensionality")


def test_elementwise_gradient_reaches_values_and_dense():
    results = []
    for lib in (tl, torch):
        vals = lib.tensor(VAL, dtype=lib.float64, requires_grad=True)
        d = lib.tensor(_D.T.copy(), requires_grad=True)
        s = _quiet(lambda lib=lib, vals=vals: lib.sparse_coo_tensor(IDX, vals, (2, 3)))
        (s * d).to_dense().sum().backward()
        results.append((vals.grad, d.grad))
    # PyTorch's gradient of the dense factor is sparse; compare the dense views
    for ours, ref in zip(*results):
        np.testing.assert_allclose(_dense(ours), _dense(ref), rtol=1e-12)


# -- repr -----------------------------------------------------------------------------------


@pytest.mark.parametrize("build", [
    lambda lib: _coo(lib),
    lambda lib: _coo(lib).coalesce(),
    lambda lib: lib.sparse_coo_tensor(HYB_IDX, HYB_VAL, (2, 2), requires_grad=True),
    lambda lib: lib.sparse_coo_tensor(HYB_IDX, HYB_VAL, (2, 2), requires_grad=True) * 2,
    lambda lib: lib.sparse_coo_tensor(lib.zeros((1, 0), dtype=lib.int64), lib.zeros(0), (3,)),
    lambda lib: lib.tensor(3.0).to_sparse(),
    lambda lib: _coo(lib, val=[1, 2, 3, 4]),
    lambda lib: lib.eye(2, dtype=lib.float64).to_sparse(),
], ids=["plain", "coalesced", "requires-grad", "grad-fn", "empty", "0d", "int", "f64"])
def test_repr(build):
    ours, ref = _both(build)
    assert repr(ours).replace("tinygrad_lite.", "torch.") == repr(ref)
