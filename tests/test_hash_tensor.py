"""tl.hash_tensor / Tensor.hash_tensor: the xor of the elements' 64-bit patterns, per dtype and
over dims, bit for bit against PyTorch, with its errors."""

import numpy as np
import pytest

import tinygrad_lite as tl


def _bits(values, dtype):
    """The uint64 words PyTorch xors: floats as float64 bits, signed ints as int64 bits."""
    a = np.asarray(values, dtype=dtype)
    if a.dtype.kind == "f":
        return a.astype(np.float64).view(np.uint64)
    if a.dtype.kind == "i":
        return a.astype(np.int64).view(np.uint64)
    return a.astype(np.uint64)


def test_hash_of_all_elements_is_the_xor_of_their_bits():
    x = tl.tensor([[1.5, -2.0, 0.1], [3.0, 0.0, 7.25]])
    out = tl.hash_tensor(x)
    assert out.dtype == tl.uint64 and out.shape == () and not out.requires_grad
    expected = np.bitwise_xor.reduce(_bits(x.numpy(), np.float32).ravel())
    assert int(out.item()) == int(expected)
    assert x.hash_tensor().item() == out.item()  # the method
    assert tl.hash_tensor(tl.tensor([-0.0])).item() == 1 << 63  # bits, not values
    assert tl.hash_tensor(tl.tensor([-1], dtype=tl.int8)).item() == 2 ** 64 - 1
    assert tl.hash_tensor(tl.tensor([True, False, True])).item() == 0
    assert tl.hash_tensor(tl.tensor(3.0, dtype=tl.float64)).item() == int(_bits(3.0, np.float64))
    w = tl.tensor([1.0, 2.0], requires_grad=True)
    assert not tl.hash_tensor(w).requires_grad  # outside the graph


def test_hash_over_dims_and_keepdim():
    x = tl.arange(24).reshape(2, 3, 4)
    data = x.numpy().astype(np.uint64)
    assert tl.hash_tensor(x, 1).tolist() == np.bitwise_xor.reduce(data, axis=1).tolist()
    assert tl.hash_tensor(x, dim=(0, 2)).tolist() == np.bitwise_xor.reduce(
        data, axis=(0, 2)).tolist()
    assert x.hash_tensor(-1, keepdim=True).shape == (2, 3, 1)
    assert tl.hash_tensor(x, keepdim=True).shape == (1, 1, 1)
    assert tl.hash_tensor(x, None).item() == tl.hash_tensor(x).item()
    assert tl.hash_tensor(tl.zeros(3, 0), 0).shape == (0,)  # only the reduced dims are checked


def test_hash_errors():
    with pytest.raises(RuntimeError, match="Unknown hash_tensor mode: 1"):
        tl.hash_tensor(tl.ones(2), mode=1)
    with pytest.raises(RuntimeError, match="numel\\(\\) == 0"):
        tl.hash_tensor(tl.zeros(0))
    with pytest.raises(IndexError, match="reduction dim 0 to have non-zero size"):
        tl.hash_tensor(tl.zeros(0, 3), 0)
    with pytest.raises(IndexError):
        tl.hash_tensor(tl.ones(2, 3), 2)
    with pytest.raises(RuntimeError):
        tl.hash_tensor(tl.ones(2, 3), (1, 1))
    with pytest.raises(NotImplementedError, match="UInt32"):
        tl.hash_tensor(tl.tensor([1], dtype=tl.uint32))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64",
                                   "int32", "int16", "int8", "uint8", "bool"])
def test_hash_matches_torch_bit_for_bit(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    data = rng.standard_normal((3, 5)) * 50
    t = torch.tensor(data).to(getattr(torch, dtype))
    x = tl.tensor(data).to(getattr(tl, dtype))
    for dim, keepdim in (((), False), (0, False), (1, True), ((0, 1), True)):
        ours = tl.hash_tensor(x, dim, keepdim=keepdim)
        theirs = torch.hash_tensor(t, dim, keepdim=keepdim)
        assert ours.shape == tuple(theirs.shape)
        assert np.array_equal(ours.numpy(), theirs.numpy())
