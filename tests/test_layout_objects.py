"""The layout objects (``_layout.py``): memory formats and layouts as PyTorch prints, compares and
pickles them, and the ``memory_format=`` keywords that take them."""

import pickle

import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")



def test_memory_formats_and_layouts():
    for name in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format"):
        fmt = getattr(tl, name)
        assert isinstance(fmt, tl.memory_format) and repr(fmt) == repr(getattr(torch, name))
        assert pickle.loads(pickle.dumps(fmt)) is fmt
    assert repr(tl.strided) == "torch.strided" and isinstance(tl.sparse_coo, tl.layout)
    assert tl.ones(2).layout == tl.strided and tl.strided != tl.sparse_coo
    x = tl.ones(2, 3, 4, 5)
    assert x.contiguous(memory_format=tl.channels_last).shape == (2, 3, 4, 5)
    assert x.to(memory_format=tl.channels_last).shape == (2, 3, 4, 5)
    assert tl.empty_like(x, memory_format=tl.preserve_format).shape == (2, 3, 4, 5)
    assert x.is_contiguous(memory_format=tl.contiguous_format)



def test_cpu_module_and_memory_format_keywords():
    for name in ("is_available", "is_initialized", "current_device", "device_count"):
        assert getattr(tl.cpu, name)() == getattr(torch.cpu, name)()
    stream = tl.cpu.current_stream()
    assert stream.query() and stream.record_event().query()
    with tl.cpu.stream(tl.cpu.Stream()):
        tl.cpu.synchronize()
    assert tl.legacy_contiguous_format is tl.contiguous_format
    x = tl.ones(2, 3, requires_grad=True)
    copy = x.clone(memory_format=tl.preserve_format)
    copy.sum().backward()
    assert x.grad.tolist() == [[1.0] * 3] * 2
    assert tl.empty(2, 3, memory_format=tl.contiguous_format, pin_memory=False).shape == (2, 3)
