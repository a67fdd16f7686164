"""Python's operators on tensors beyond the arithmetic ones (``_tensor/operators.py``), against
PyTorch: membership (``3 in t``), ``reversed``, the in-place operators (in place: aliases see the
change; dtype and leaf rules), the bit shifts ``<<``/``>>``, and NumPy's ``__array_wrap__`` (with
``Tensor.name``)."""

from __future__ import annotations

import numpy as np
import pytest

import tinygrad_lite as tl


def test_membership_and_reversed_match_pytorch():
    torch = pytest.importorskip("torch")
    data = [[0, 1, 2], [3, 4, 5]]
    ours, theirs = tl.tensor(data), torch.tensor(data)
    for element in (3, 7, 2.0, -1):
        assert (element in ours) == (element in theirs)
    assert (tl.tensor(4) in ours) and tl.tensor([9]) not in ours
    with pytest.raises(RuntimeError, match="only supports Tensor or scalar"):
        "a" in ours  # noqa: B015 - the check itself is the test
    assert [r.tolist() for r in reversed(ours)] == [r.tolist() for r in reversed(theirs)]



@pytest.mark.parametrize("op,dtype,other", [
    ("**", "float32", 2), ("&", "bool", [False, True]), ("|", "bool", [False, True]),
    ("^", "bool", [True, True]), ("%", "int64", 3), ("//", "int64", 2), ("<<", "int64", 1),
    (">>", "int64", 1), ("**", "int64", 2), ("//", "float32", 0.5)])
def test_in_place_operators_write_through_aliases_like_pytorch(op, dtype, other):
    torch = pytest.importorskip("torch")
    base = [True, False] if dtype == "bool" else [5, 7]
    ours = tl.tensor(base, dtype=getattr(tl, dtype))
    theirs = torch.tensor(base, dtype=getattr(torch, dtype))
    ours_alias, theirs_alias = ours, theirs
    rhs = (lambda lib: lib.tensor(other)) if isinstance(other, list) else (lambda lib: other)
    namespace = {"a": ours, "b": rhs(tl)}
    exec(f"a {op}= b", namespace)
    namespace_t = {"a": theirs, "b": rhs(torch)}
    exec(f"a {op}= b", namespace_t)
    assert namespace["a"] is ours_alias and namespace_t["a"] is theirs_alias
    np.testing.assert_array_equal(ours_alias.numpy(), theirs_alias.numpy())
    assert ours_alias.dtype == getattr(tl, dtype)



def test_in_place_operator_refusals():
    i = tl.tensor([5, 6])
    with pytest.raises(RuntimeError, match="can't be cast"):
        i **= 0.5
    leaf = tl.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        leaf **= 2
    leaf = tl.full((2,), 1.5, requires_grad=True)
    x = leaf * 1.0  # a non-leaf: recorded in place, so the gradient is right
    x **= 3
    x.sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), 3 * 1.5 ** 2)



torch = pytest.importorskip("torch")

SHIFT_CASES = [
    lambda m: m.bitwise_left_shift(m.tensor([1, 2, -3]), 3),
    lambda m: m.bitwise_left_shift(3, m.tensor([1, 2])),
    lambda m: m.bitwise_right_shift(m.tensor([-8, 16]), 2),
    lambda m: m.tensor([1, 2], dtype=m.int8).bitwise_left_shift(m.tensor([1, 2])),
    lambda m: m.tensor([1, 2], dtype=m.int32) >> m.tensor([1, 0], dtype=m.int64),
    lambda m: m.bitwise_left_shift(m.tensor([1], dtype=m.uint8), 8),
    lambda m: m.bitwise_left_shift(m.tensor([1]), 64),
    lambda m: m.bitwise_right_shift(m.tensor([-5]), 70),
    lambda m: m.bitwise_left_shift(m.tensor([True, False]), 1),
    lambda m: m.tensor([1, 2], dtype=m.int8).bitwise_left_shift_(m.tensor([1, 2])),
    lambda m: m.tensor([64, 2], dtype=m.int16).bitwise_right_shift_(3),
]



@pytest.mark.parametrize("case", range(len(SHIFT_CASES)))
def test_bit_shifts_match_torch(case):
    ours, theirs = SHIFT_CASES[case](tl), SHIFT_CASES[case](torch)
    assert ours.tolist() == theirs.tolist()
    assert ours.numpy().dtype == theirs.numpy().dtype



def test_bit_shifts_refuse_floats():
    for lib in (tl, torch):
        with pytest.raises(NotImplementedError, match="lshift_cpu"):
            lib.bitwise_left_shift(lib.tensor([1.0]), 1)



def test_array_wrap_and_name() -> None:
    t = tl.ones(2)
    arr = np.arange(3.0)
    w = t.__array_wrap__(arr)
    assert isinstance(w, tl.Tensor) and w.tolist() == [0.0, 1.0, 2.0]
    arr[0] = 7.0  # shares memory, as torch.from_numpy
    assert w[0].item() == 7.0
    assert t.name is None
    with pytest.raises(AttributeError):
        t.name = "x"  # type: ignore[misc]
    torch = pytest.importorskip("torch")
    assert torch.ones(2).name is None
    assert isinstance(torch.ones(2).__array_wrap__(np.arange(3.0)), torch.Tensor)
