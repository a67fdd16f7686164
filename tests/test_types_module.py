"""tl.types: PyTorch's annotation aliases (``torch.types``), usable in annotations and checks."""

import typing

import pytest

import tinygrad_lite as tl
import tinygrad_lite.types as tl_types


def test_public_names_and_aliases():
    assert tl.types is tl_types and "types" in tl.__all__
    assert tl_types.__all__ == ["Number", "Device", "FileLike", "Storage"]
    assert set(typing.get_args(tl_types.Number)) == {int, float, bool}
    assert isinstance(2.5, tl_types._Number) and not isinstance("2", tl_types._Number)
    assert tl.device in typing.get_args(tl_types.Device)
    assert type(None) in typing.get_args(tl_types.Device)
    assert tl.Tensor in typing.get_args(tl_types._TensorOrTensors)
    assert tl.Size in typing.get_args(tl_types._size)
    assert tl_types._int is int and tl_types._dtype is tl.dtype and tl_types._layout is tl.layout
    with pytest.raises(NotImplementedError):
        tl_types.Storage().nbytes()


def test_annotations_resolve():
    def f(x: tl_types._TensorOrTensors, size: tl_types._size,
          device: tl_types.Device = None) -> tl_types.Number:
        return 1

    hints = typing.get_type_hints(f)
    assert hints["device"] == tl_types.Device and hints["return"] == tl_types.Number


def test_same_public_names_as_torch():
    torch = pytest.importorskip("torch")

    assert tl_types.__all__ == torch.types.__all__
    assert set(typing.get_args(tl_types.Number)) == set(typing.get_args(torch.types.Number))
    private = {n for n in dir(torch.types) if n.startswith("_") and not n.startswith("__")}
    assert {"_size", "_TensorOrTensors", "_int", "_float", "_bool", "_dtype",
            "_device"} <= private & set(dir(tl_types))
