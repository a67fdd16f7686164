"""Tensor creation, dtypes and promotion, attributes, conversion and repr."""

import numpy as np
import pytest

import tinygrad_lite as tl


def test_dtype_inference_follows_pytorch():
    assert tl.tensor([1.0, 2.0]).dtype == tl.float32
    assert tl.tensor(3.5).dtype == tl.float32 and tl.tensor(3.5).shape == ()
    assert tl.tensor([1, 2]).dtype == tl.int64
    assert tl.tensor([True, False]).dtype == tl.bool
    assert tl.tensor(np.array([1.0])).dtype == tl.float64  # NumPy arrays keep their dtype
    assert tl.tensor(np.array([1], dtype=np.int32)).dtype == tl.int32
    assert tl.tensor([1, 2], dtype=tl.float16).dtype == tl.float16
    assert tl.Tensor([1, 2]).dtype == tl.float32  # like torch.Tensor
    assert tl.tensor([[1, 2], [3, 4]]).shape == (2, 2)


def test_tensor_copies_its_data():
    a = np.ones(3, dtype=np.float32)
    t = tl.tensor(a)
    a[0] = 5
    assert t.tolist() == [1.0, 1.0, 1.0]
    shared = tl.from_numpy(a)
    a[1] = 7
    assert shared.tolist() == [5.0, 7.0, 1.0]


@pytest.mark.parametrize("fn,shape,dtype", [
    (lambda: tl.zeros(2, 3), (2, 3), tl.float32),
    (lambda: tl.ones((2, 3)), (2, 3), tl.float32),
    (lambda: tl.ones([4], dtype=tl.int32), (4,), tl.int32),
    (lambda: tl.empty(2), (2,), tl.float32),
    (lambda: tl.full((2, 2), 7), (2, 2), tl.int64),
    (lambda: tl.full((2,), 1.5), (2,), tl.float32),
    (lambda: tl.full((2,), True), (2,), tl.bool),
    (lambda: tl.arange(5), (5,), tl.int64),
    (lambda: tl.arange(0, 1, 0.25), (4,), tl.float32),
    (lambda: tl.linspace(0, 1, 5), (5,), tl.float32),
    (lambda: tl.eye(3), (3, 3), tl.float32),
    (lambda: tl.eye(2, 4), (2, 4), tl.float32),
    (lambda: tl.rand(2, 3), (2, 3), tl.float32),
    (lambda: tl.randn(4, dtype=tl.float64), (4,), tl.float64),
    (lambda: tl.randint(0, 10, (3, 2)), (3, 2), tl.int64),
    (lambda: tl.randint(5, (4,)), (4,), tl.int64),
    (lambda: tl.zeros_like(tl.ones(2, 2, dtype=tl.float64)), (2, 2), tl.float64),
    (lambda: tl.ones_like(tl.ones(3)), (3,), tl.float32),
    (lambda: tl.full_like(tl.ones(3), 2.0), (3,), tl.float32),
    (lambda: tl.rand_like(tl.ones(3)), (3,), tl.float32),
    (lambda: tl.randn_like(tl.ones(2, 1)), (2, 1), tl.float32),
])
def test_factories(fn, shape, dtype):
    t = fn()
    assert t.shape == shape and t.dtype == dtype and t.is_leaf and not t.requires_grad


def test_factory_values():
    assert tl.arange(1, 7, 2).tolist() == [1, 3, 5]
    assert tl.linspace(0, 1, 3).tolist() == [0.0, 0.5, 1.0]
    assert tl.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert tl.full((2,), 3.0).tolist() == [3.0, 3.0]
    r = tl.rand(1000)
    assert 0 <= r.numpy().min() and r.numpy().max() < 1
    i = tl.randint(2, 5, (1000,))
    assert set(i.tolist()) == {2, 3, 4}
    assert tl.ones(2, requires_grad=True).requires_grad


def test_manual_seed_makes_every_random_function_reproducible():
    def draw():
        return [tl.rand(3).tolist(), tl.randn(3).tolist(), tl.randint(0, 100, (3,)).tolist(),
                tl.rand_like(tl.ones(2)).tolist(), tl.randn_like(tl.ones(2)).tolist()]

    tl.manual_seed(123)
    first = draw()
    tl.manual_seed(123)
    assert draw() == first
    tl.manual_seed(124)
    assert draw() != first


@pytest.mark.parametrize("a,b,expected", [
    (tl.ones(2), 2.5, tl.float32),
    (tl.ones(2, dtype=tl.float16), 2.5, tl.float16),
    (tl.ones(2, dtype=tl.int64), 2.5, tl.float32),
    (tl.ones(2, dtype=tl.int64), 2, tl.int64),
    (tl.ones(2, dtype=tl.int32), 2, tl.int32),
    (tl.ones(2, dtype=tl.bool), 1, tl.int64),
    (tl.ones(2, dtype=tl.bool), True, tl.bool),
    (tl.ones(2, dtype=tl.int32), tl.ones(2, dtype=tl.int64), tl.int64),
    (tl.ones(2), tl.ones(2, dtype=tl.float64), tl.float64),
    (tl.ones(2, dtype=tl.int64), tl.ones(2), tl.float32),
    (tl.ones(2, dtype=tl.int32), tl.ones(2, dtype=tl.float16), tl.float16),
    (tl.ones(2, dtype=tl.uint8), tl.ones(2, dtype=tl.int8), tl.int16),
    (tl.ones(2, dtype=tl.int32), tl.tensor(1, dtype=tl.int64), tl.int32),  # 0-dim, same category
    (tl.ones(2, dtype=tl.int32), tl.tensor(1.5, dtype=tl.float64), tl.float64),  # higher category
    (tl.ones(2), tl.tensor(1.5, dtype=tl.float64), tl.float32),
    (tl.tensor(1.0), tl.tensor(1.0, dtype=tl.float64), tl.float64),  # both 0-dim
])
def test_type_promotion(a, b, expected):
    assert (a + b).dtype == expected
    assert (b + a).dtype == expected
    assert (a * b).dtype == expected


def test_division_and_power_promotion():
    i = tl.tensor([1, 2])
    assert (i / i).dtype == tl.float32 and (i / 2).dtype == tl.float32
    assert (i ** 2).dtype == tl.int64 and (i ** 2.0).dtype == tl.float32
    assert (2 ** tl.tensor([1.0])).dtype == tl.float32


def test_type_promotion_matches_torch():
    torch = pytest.importorskip("torch")
    cases = [("float32", 2.5), ("int64", 2.5), ("int32", 7), ("bool", 1), ("float16", 3)]
    for name, scalar in cases:
        ours = tl.ones(2, dtype=getattr(tl, name)) * scalar
        theirs = torch.ones(2, dtype=getattr(torch, name)) * scalar
        assert ours.dtype.name == str(theirs.dtype).replace("torch.", "")
    names = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
    for x in names:
        for y in names:
            ours = (tl.ones(2, dtype=getattr(tl, x)) + tl.ones(2, dtype=getattr(tl, y))).dtype
            tx, ty = getattr(torch, x), getattr(torch, y)
            theirs = (torch.ones(2, dtype=tx) + torch.ones(2, dtype=ty)).dtype
            assert ours.name == str(theirs).replace("torch.", ""), (x, y)


def test_attributes():
    t = tl.zeros(2, 3, 4)
    assert t.shape == (2, 3, 4) and t.ndim == 3 and t.dim() == 3
    assert t.size() == (2, 3, 4) and t.size(1) == 3 and t.size(-1) == 4
    assert t.numel() == 24 and len(t) == 2 and t.device == "cpu"
    assert tl.tensor(2.5).item() == 2.5 and isinstance(tl.tensor(3).item(), int)
    assert tl.tensor([[1, 2]]).tolist() == [[1, 2]]
    assert np.asarray(tl.ones(2)).dtype == np.float32
    assert float(tl.tensor([2.0])) == 2.0 and int(tl.tensor(3)) == 3
    assert [row.tolist() for row in tl.tensor([[1, 2], [3, 4]])] == [[1, 2], [3, 4]]
    with pytest.raises(TypeError, match="0-d"):
        len(tl.tensor(1.0))


def test_numpy_refuses_tensors_that_require_grad():
    t = tl.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"detach\(\)\.numpy\(\)"):
        t.numpy()
    assert t.detach().numpy().tolist() == [1.0, 1.0]


def test_conversions():
    t = tl.tensor([1.5, -2.5])
    assert t.double().dtype == tl.float64 and t.half().dtype == tl.float16
    assert t.long().tolist() == [1, -2] and t.int().dtype == tl.int32
    assert t.float() is t and t.to(tl.float32) is t
    assert t.to(tl.float64).dtype == tl.float64 and t.to("cpu") is t
    assert t.to(tl.ones(1, dtype=tl.float16)).dtype == tl.float16
    assert t.bool().tolist() == [True, True]
    assert t.to(dtype="float64").dtype == tl.float64
    c = t.clone()
    assert c.tolist() == t.tolist() and not np.shares_memory(c.detach().numpy(), t.detach().numpy())


def test_repr_like_pytorch():
    assert repr(tl.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(tl.tensor([1.5, 2.0])) == "tensor([1.5000, 2.0000])"
    assert repr(tl.tensor(3.0)) == "tensor(3.)"
    assert repr(tl.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(tl.tensor([True, False])) == "tensor([ True, False])"  # padded, as PyTorch
    assert repr(tl.tensor([1, 2], dtype=tl.int32)) == "tensor([1, 2], dtype=tinygrad_lite.int32)"
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x) == "tensor([1., 2.], requires_grad=True)"
    assert repr(x * 2) == "tensor([2., 4.], grad_fn=<MulBackward0>)"
    assert repr(tl.tensor([[1.0, -2.5]])) == "tensor([[ 1.0000, -2.5000]])"
    assert repr(tl.tensor([1e-8, 1.0])) == "tensor([1.0000e-08, 1.0000e+00])"
    assert repr(tl.zeros(0)) == "tensor([])"
    assert "nan" in repr(tl.tensor([float("nan"), 1.5]))


def test_unsupported_dtype_is_named():
    with pytest.raises(TypeError, match="unsupported dtype"):
        tl.zeros(2, dtype=np.complex64)
    with pytest.raises(TypeError, match="must be a dtype"):  # a name is refused, as PyTorch
        tl.zeros(2, dtype="float32")


def test_numpy_force_detaches_in_one_call():
    w = tl.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        w.numpy()
    out = w.numpy(force=True)
    assert np.shares_memory(out, w._data) and out.tolist() == [1.0, 1.0, 1.0]
    with tl.no_grad():
        assert w.numpy() is out


def test_zero_dim_results_convert_to_numpy_arrays():
    """0-d results of arithmetic (NumPy scalars inside) give 0-d arrays to ``numpy()`` and
    ``np.asarray``, which then share memory with the tensor, as PyTorch's; a list of losses
    converts to an array (what plotting libraries do with it)."""
    x = tl.tensor(2.0)
    y = x / x
    arr = y.numpy()
    assert type(arr) is np.ndarray and arr.shape == () and arr.dtype == np.float32
    arr[()] = 5.0
    assert y.item() == 5.0
    assert np.asarray(x.exp(), dtype=np.float64).dtype == np.float64
    losses = [x * i for i in range(3)]
    np.testing.assert_array_equal(np.asarray(losses), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(np.stack([y, y]), [5.0, 5.0])
    assert np.asarray(tl.linalg.cond(tl.eye(2, dtype=tl.float64) * 2)) == 1.0


def test_views_of_zero_dim_results_share_their_memory():
    """Writes through views of a computed 0-d tensor reach it (they were lost: the result held a
    NumPy scalar, and each view a copy)."""
    x = tl.tensor(2.0)
    y = x / x
    y.view(1)[0] = 7.0
    z = x * 1
    z.unsqueeze(0).add_(3.0)
    w = x - 0
    w.reshape(1, 1).mul_(5.0)
    v = x * 2
    v[None].zero_()
    assert (y.item(), z.item(), w.item(), v.item()) == (7.0, 5.0, 10.0, 0.0)
    assert y._version > 0


def test_numpy_ufuncs_on_tensors_give_tensors():
    """np.exp(t), np.maximum(t, 0), np.add.reduce(t) run on the arrays and give tensors, as
    PyTorch's; a tensor that requires grad is refused as by numpy(); the operators' ufuncs with
    an array or NumPy scalar on the left run as the tensor's reflected operator (promoting and
    recording as tensor arithmetic does); a ufunc writing into an ndarray (``a += t``) keeps it
    an ndarray."""
    torch = pytest.importorskip("torch")
    values = np.array([0.5, 2.0], np.float32)
    for fn in (np.exp, np.sqrt, lambda t: np.maximum(t, 1.0), np.add.reduce,
               lambda t: np.float32(2) < t):
        ours, theirs = fn(tl.tensor(values)), fn(torch.tensor(values))
        assert isinstance(ours, tl.Tensor)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    with pytest.raises(RuntimeError, match="requires grad"):
        np.exp(tl.ones(2, requires_grad=True))
    x = tl.ones(2, requires_grad=True)
    y = np.float64(3) * x
    assert y.dtype == tl.float32
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    a = np.zeros(2)
    a += tl.tensor([1.0, 2.0])
    assert type(a) is np.ndarray and a.tolist() == [1.0, 2.0]
    out = tl.zeros(2)
    np.add(tl.tensor([1.0, 2.0]), 1.0, out=out)
    assert out.tolist() == [2.0, 3.0] and out._version == 1


def test_size_of_a_dimension_of_a_zero_dim_tensor_is_an_index_error():
    for dim in (0, -1):
        with pytest.raises(IndexError, match=f"Dimension specified as {dim} but tensor has no"):
            tl.tensor(1.0).size(dim)
