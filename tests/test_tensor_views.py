"""How a tensor lies in memory and the views over it (``_tensor/layout.py``, ``_tensor/shape.py``),
against PyTorch: ``detach_``, strides and offsets, byte sizes, the legacy ``new``, ``.H``/``.real``/
``output_nr``/``dim_order``, the resize family, ``as_strided`` and its scatter, the unsafe splits
and ``nonzero_static``."""

import importlib.util

import numpy as np
import pytest

import tinygrad_lite as tl
from tests.helpers import check_grads, check_second_order
from tests.oracle import both


def test_detach_strides_sizes_and_legacy_new_match_pytorch():
    torch = pytest.importorskip("torch")
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    ours, theirs = tl.tensor(a), torch.tensor(a)
    for view in (lambda t: t, lambda t: t.transpose(0, 2), lambda t: t[:, 1:, ::2]):
        assert view(ours).stride() == view(theirs).stride()
        assert view(ours).stride(-1) == view(theirs).stride(-1)
        assert view(ours).storage_offset() == view(theirs).storage_offset()
    assert ours.nbytes == theirs.nbytes and ours.itemsize == theirs.itemsize
    assert ours.new([1.7]).dtype == tl.float32 and tuple(ours.new(2, 5).shape) == (2, 5)
    assert tl.tensor([1, 2]).new([1.7]).tolist() == torch.tensor([1, 2]).new([1.7]).tolist()
    np.testing.assert_array_equal(ours[0].mH.numpy(), theirs[0].mH.numpy())
    y = tl.ones(2, requires_grad=True) * 2
    assert y.detach_() is y and not y.requires_grad and y.grad_fn is None
    assert ours.pin_memory() is ours and not ours.is_pinned()
    assert ours.data_ptr() == ours.numpy().__array_interface__["data"][0]


torch = pytest.importorskip("torch")

rng = np.random.default_rng(5)

POS = rng.uniform(0.2, 0.9, (3, 4))

REAL = rng.standard_normal((3, 4))


def test_conjugate_transpose_real_output_nr_dim_order():
    assert tuple(tl.ones(2, 3).H.shape) == tuple(torch.ones(2, 3).H.shape) == (3, 2)
    with pytest.warns(UserWarning, match="deprecated on 0-D tensors"):  # as PyTorch (once)
        assert tl.tensor(3.0).H.item() == 3.0
    for shape, match in (((2, 3, 4), "mH"), ((3,), "matrices")):
        for lib in (tl, torch):
            with pytest.raises(RuntimeError, match=match):
                _ = lib.ones(*shape).H
    x = tl.ones(3)
    assert x.real is x
    assert tl.ones(3).output_nr == 0 and (tl.ones(3, requires_grad=True) * 2).output_nr == 0
    for make in (lambda m: m.ones(2, 3), lambda m: m.ones(2, 3, 4).permute(2, 0, 1),
                 lambda m: m.ones(2, 2).t(), lambda m: m.ones(2, 1, 4).permute(2, 0, 1)):
        assert make(tl).dim_order() == make(torch).dim_order()
    assert not tl.ones(2).is_inference() and not tl.ones(2).is_distributed()
    if importlib.util.find_spec("ml_dtypes") is None:  # bfloat16 needs it (tests/test_bfloat16.py)
        with pytest.raises(TypeError, match="bfloat16 needs the ml_dtypes package"):
            tl.ones(2).bfloat16()
    else:
        assert tl.ones(2).bfloat16().dtype == tl.bfloat16


def test_resize_family():
    for lib in (tl, torch):
        x = lib.arange(6.0)
        assert x.resize_(2, 3) is x and x.shape == (2, 3)
        y = lib.arange(6.0)
        y.resize_(2, 4)
        assert y[0].tolist() == [0.0, 1.0, 2.0, 3.0] and y.shape == (2, 4)
        z = lib.arange(6.0)
        assert z.resize_((4,)).tolist() == [0.0, 1.0, 2.0, 3.0]
        assert lib.resize_as_(lib.arange(6.0), lib.ones(3, 2)).shape == (3, 2)
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            lib.ones(2, requires_grad=True).resize_(4)
        w = lib.ones(2, 3, requires_grad=True)
        with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
            r = w.resize(3, 2)
        r.sum().backward()
        assert r.shape == (3, 2) and w.grad.shape == (2, 3)
        with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
            assert w.resize_as(lib.ones(6)).shape == (6,)
        with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="resize can only"):
            w.resize(7)


@pytest.mark.parametrize("size,stride,offset", [((2, 2), (1, 2), 1), ((3, 3), (1, 1), 0),
                                                ((2, 3), (3, 1), None), ((4, 2), (0, 1), 2)])
def test_as_strided_matches_torch_with_gradient(size, stride, offset):
    data = rng.standard_normal(12)
    both(lambda m, t: t.as_strided(size, stride, offset), data, grad=(0,))
    both(lambda m, t: m.as_strided(t.reshape(3, 4), size, stride, offset), data, grad=(0,))


@pytest.mark.parametrize("size,stride,offset", [((2, 2), (1, 2), 1), ((2, 3), (3, 1), None),
                                                ((2, 2), (6, 2), 3)])
def test_as_strided_scatter_matches_torch(size, stride, offset):
    data, src = rng.standard_normal(12), rng.standard_normal(size)
    # PyTorch 2.13 sends self's gradient to the written positions instead of the kept ones
    # (a bug): the gradient in self is checked numerically, the one in src against PyTorch
    both(lambda m, t, s: m.as_strided_scatter(t, s, size, stride, offset), data, src,
          grad=(1,))
    check_grads(lambda t, s: tl.as_strided_scatter(t, s, size, stride, offset), data, src)
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="more than one element"):
            lib.as_strided_scatter(lib.zeros(6), lib.ones(2, 2), (2, 2), (0, 1))


def test_as_strided_errors_and_inplace():
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="out of bounds for storage"):
            lib.arange(6.0).as_strided((2, 2), (1, 2), 5)
        with pytest.raises(RuntimeError, match="expected src to have a size equal"):
            lib.as_strided_scatter(lib.zeros(6), lib.ones(3), (2, 2), (1, 2))
    x = tl.arange(6.0)
    assert x.as_strided_((2, 2), (1, 2), 1) is x and x.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    with pytest.raises(RuntimeError, match="requires grad"):
        tl.ones(4, requires_grad=True).as_strided_((2,), (1,))
    check_grads(lambda t: t.as_strided((3, 3), (1, 1)), np.arange(6.0))
    check_second_order(lambda t: (t.as_strided((2, 3), (2, 1), 1) ** 2), np.arange(8.0) * 0.3)


def test_unsafe_splits_and_nonzero_static():
    a = np.arange(10.0).reshape(5, 2)
    for call in (lambda m, t: m.unsafe_split(t, 2), lambda m, t: t.unsafe_chunk(3, 1),
                 lambda m, t: m.unsafe_split_with_sizes(t, [2, 3]),
                 lambda m, t: t.unsafe_split(1, dim=1)):
        ours, theirs = call(tl, tl.tensor(a)), call(torch, torch.tensor(a))
        assert [p.tolist() for p in ours] == [p.tolist() for p in theirs]
    for call in (lambda m: m.nonzero_static(m.tensor([0, 1, 0, 2]), size=4),
                 lambda m: m.tensor([[0, 1], [1, 1]]).nonzero_static(size=1, fill_value=7),
                 lambda m: m.nonzero_static(m.tensor([[0, 1], [1, 1]]), size=5, fill_value=9),
                 lambda m: m.nonzero_static(m.zeros(3), size=0)):
        ours, theirs = call(tl), call(torch)
        assert ours.tolist() == theirs.tolist() and ours.dtype == tl.int64
        assert ours.shape == tuple(theirs.shape)
