"""DLPack: tensors export through ``__dlpack__``/``__dlpack_device__`` and import with
``tl.from_dlpack``, sharing memory both ways (NumPy always; torch where installed)."""

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.utils.dlpack as tl_dlpack


def test_numpy_reads_a_tensor_without_copying():
    t = tl.arange(4.0)
    a = np.from_dlpack(t)
    assert a.dtype == np.float32 and np.shares_memory(a, t._data)
    a[0] = 9.0
    assert t.tolist() == [9.0, 1.0, 2.0, 3.0]


def test_device_and_module():
    assert tl.tensor([1]).__dlpack_device__() == (tl_dlpack.DLDeviceType.kDLCPU, 0)
    assert tl_dlpack.DLDeviceType.kDLCPU == 1 and tl_dlpack.DLDeviceType.kDLCUDA == 2
    assert tl.utils.dlpack.from_dlpack is tl.from_dlpack
    assert tl_dlpack.to_dlpack is tl.to_dlpack
    assert {"from_dlpack", "to_dlpack"} <= set(tl.__all__)


def test_from_dlpack_shares_numpy_memory():
    n = np.arange(6).reshape(2, 3)
    t = tl.from_dlpack(n)
    assert t.dtype is tl.int64 and tuple(t.shape) == (2, 3)
    t[1, 2] = -1
    assert n[1, 2] == -1
    copied = tl.from_dlpack(n, copy=True)
    copied[0, 0] = 100
    assert n[0, 0] == 0


def test_roundtrip_keeps_strides_and_dtypes():
    t = tl.arange(12.0).reshape(3, 4).t()
    back = tl.from_dlpack(t)
    assert back.stride() == t.stride() and np.shares_memory(back._data, t._data)
    for dtype in (tl.bool, tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64, tl.float16,
                  tl.float64):
        assert tl.from_dlpack(tl.zeros(2, dtype=dtype)).dtype is dtype


def test_legacy_capsules_are_consumed_once_and_writable():
    t = tl.arange(3.0)
    capsule = tl.to_dlpack(t)
    assert "dltensor" in repr(capsule)
    u = tl.from_dlpack(capsule)
    u[0] = 5.0  # writable, shares memory (as PyTorch documents for capsules)
    assert t[0].item() == 5.0
    with pytest.raises(RuntimeError, match="consumed only once"):
        tl.from_dlpack(capsule)
    with pytest.raises(AssertionError, match="not supported when ext_tensor is already"):
        tl.from_dlpack(tl.to_dlpack(t), copy=True)


def test_requires_grad_and_stream_rules():
    x = tl.ones(2, requires_grad=True)
    with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
        np.from_dlpack(x)
    assert np.from_dlpack(x.detach()).tolist() == [1.0, 1.0]
    assert tl.to_dlpack(x) is not None  # the legacy function exports it, as PyTorch's does
    with pytest.raises(TypeError, match="stream must be"):
        tl.ones(1).__dlpack__(stream="s")
    with pytest.raises(AssertionError, match="stream should be None on cpu"):
        tl.ones(1).__dlpack__(stream=3)
    assert tl.ones(1).__dlpack__(stream=None) is not None


def test_unsupported_inputs():
    with pytest.raises(TypeError, match="unsupported dtype"):
        tl.from_dlpack(np.zeros(2, np.complex64))
    with pytest.raises(RuntimeError, match="invalid capsule"):
        tl.from_dlpack([1, 2])
    with pytest.raises(RuntimeError):
        tl.from_dlpack(np.zeros(2), device="cuda")


def test_torch_interop_shares_memory():
    torch = pytest.importorskip("torch")
    t = tl.arange(4.0)
    tt = torch.from_dlpack(t)
    tt[1] = 8.0
    assert t.tolist() == [0.0, 8.0, 2.0, 3.0] and tt.dtype == torch.float32
    x = torch.arange(3.0)
    y = tl.from_dlpack(x)
    y[0] = 5.0
    assert x.tolist() == [5.0, 1.0, 2.0]
    w = tl.from_dlpack(torch.utils.dlpack.to_dlpack(x))  # a torch capsule
    w[2] = -2.0
    assert x[2].item() == -2.0
    z = torch.from_dlpack(tl.to_dlpack(t))  # a tinygrad_lite capsule
    z[3] = 7.0
    assert t[3].item() == 7.0
    with pytest.raises(BufferError):
        torch.from_dlpack(tl.ones(2, requires_grad=True))
    nc = tl.arange(12.0).reshape(3, 4).t()
    assert torch.from_dlpack(nc).stride() == nc.stride()
    assert t.__dlpack_device__() == torch.zeros(1).__dlpack_device__()
