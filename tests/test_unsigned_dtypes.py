"""PyTorch's "shell" unsigned dtypes uint16/uint32/uint64: storage, conversion, limits, printing,
checkpoints, and promotion refused with any other dtype except a floating one."""

import numpy as np
import pytest

import tinygrad_lite as tl

UNSIGNED = ["uint16", "uint32", "uint64"]
ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
       "float16", "float32", "float64"]


@pytest.mark.parametrize("name", UNSIGNED)
def test_creation_conversion_limits_and_printing(name):
    dtype = getattr(tl, name)
    x = tl.tensor([1, 2, 3], dtype=dtype)
    assert x.dtype is dtype and x._data.dtype == np.dtype(name)
    assert str(x) == f"tensor([1, 2, 3], dtype=tinygrad_lite.{name})"
    assert x.type() == f"torch.UInt{name[4:]}Tensor"
    assert x.float().dtype == tl.float32 and x.to(tl.int64).tolist() == [1, 2, 3]
    assert tl.from_numpy(np.array([7], dtype=name)).dtype is dtype
    info = tl.iinfo(dtype)
    assert (info.min, info.max, info.bits) == (0, int(np.iinfo(name).max), np.iinfo(name).bits)
    assert tl.tensor([info.max], dtype=dtype).item() == info.max
    assert x.sum().dtype == tl.int64  # integer sums are int64, as in PyTorch
    assert not x.is_floating_point() and not x.is_signed()
    with pytest.raises(RuntimeError, match="only tensors of floating point dtype"):
        x.requires_grad_()


def test_promotion_matches_pytorch():
    torch = pytest.importorskip("torch")
    for a in ALL:
        for b in ALL:
            try:
                theirs = str(torch.promote_types(getattr(torch, a), getattr(torch, b)))
            except RuntimeError as err:
                with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64"):
                    tl.promote_types(getattr(tl, a), getattr(tl, b))
                assert "Promotion for uint16" in str(err)
                continue
            mine = str(tl.promote_types(getattr(tl, a), getattr(tl, b)))
            assert mine.split(".")[-1] == theirs.split(".")[-1], (a, b)


def test_ops_with_scalars_zero_dim_tensors_and_floats_follow_pytorch():
    x = tl.tensor([1, 2, 3], dtype=tl.uint32)
    assert (x * 2).dtype == tl.uint32 and (x * 2).tolist() == [2, 4, 6]
    assert (x * 2.5).dtype == tl.float32
    assert (x * tl.tensor(2)).dtype == tl.uint32  # a 0-dim int64 does not promote
    assert (x * tl.ones(3)).dtype == tl.float32
    assert (x / 2).dtype == tl.float32
    with pytest.raises(RuntimeError, match="attempted to promote int64 and uint32"):
        x + tl.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="Promotion for uint16"):
        x * tl.ones(3, dtype=tl.bool)


def test_checkpoints_keep_unsigned_dtypes(tmp_path):
    state = {name: tl.arange(4).to(getattr(tl, name)) for name in UNSIGNED}
    tl.save(state, tmp_path / "u.safetensors")
    back = tl.load(tmp_path / "u.safetensors")
    for name, t in state.items():
        assert back[name].dtype is t.dtype and back[name].tolist() == [0, 1, 2, 3]
