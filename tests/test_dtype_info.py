"""tl.finfo / tl.iinfo, promote_types, can_cast, result_type, the constants and dtype aliases,
against PyTorch."""

import math

import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")
FLOATS = ["float16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64", "bool"]


@pytest.mark.parametrize("name", FLOATS)
def test_finfo_matches_pytorch(name):
    ours, theirs = tl.finfo(getattr(tl, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", INTS)
def test_iinfo_matches_pytorch(name):
    if name == "bool":
        with pytest.raises(TypeError) as theirs:
            torch.iinfo(torch.bool)
        with pytest.raises(TypeError) as ours:  # PyTorch refuses bool, and so do we
            tl.iinfo(tl.bool)
        assert str(ours.value) == str(theirs.value)
        return
    ours, theirs = tl.iinfo(getattr(tl, name)), torch.iinfo(getattr(torch, name))
    for attr in ("bits", "max", "min", "dtype"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr


def test_wrong_kinds_and_defaults():
    with pytest.raises(TypeError, match="floating point"):
        tl.finfo(tl.int32)
    with pytest.raises(TypeError, match="integer"):
        tl.iinfo(tl.float32)
    assert tl.finfo().dtype == "float32"


@pytest.mark.parametrize("a", FLOATS + INTS)
@pytest.mark.parametrize("b", FLOATS + INTS)
def test_promotion_and_casting_match_pytorch(a, b):
    assert tl.promote_types(getattr(tl, a), getattr(tl, b)).name == \
        str(torch.promote_types(getattr(torch, a), getattr(torch, b))).removeprefix("torch.")
    assert tl.can_cast(getattr(tl, a), getattr(tl, b)) == \
        torch.can_cast(getattr(torch, a), getattr(torch, b))


def test_result_type_constants_and_aliases():
    for x, y in ((tl.tensor([1]), 1.0), (tl.tensor([1], dtype=tl.int32), 5),
                 (tl.tensor(1.0, dtype=tl.float64), tl.tensor([1], dtype=tl.int8))):
        tx = torch.tensor(x.numpy())
        ty = torch.tensor(y.numpy()) if isinstance(y, tl.Tensor) else y
        assert tl.result_type(x, y).name == str(torch.result_type(tx, ty)).removeprefix("torch.")
    assert (tl.pi, tl.e, tl.inf) == (torch.pi, torch.e, torch.inf) and math.isnan(tl.nan)
    assert tl.newaxis is None and tl.int == tl.int32 and tl.short == tl.int16
    assert isinstance(tl.ones(1).dtype, tl.dtype)
