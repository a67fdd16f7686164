"""Tensor surface from tinygrad_lite/_tensor/, against PyTorch where installed:
membership, reversed, the in-place operators (in place: aliases see the change; dtype and leaf
rules), detach_, strides and offsets, byte sizes, the legacy new, apply_/map_, mH."""

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


def test_apply_and_map_with_python_callables():
    torch = pytest.importorskip("torch")
    ours, theirs = tl.arange(4.0), torch.arange(4.0)
    assert ours.apply_(lambda v: v * v + 1) is ours
    theirs.apply_(lambda v: v * v + 1)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    ours.map_(tl.tensor([1.0, 2.0, 3.0, 4.0]), lambda p, q: p - q)
    theirs.map_(torch.tensor([1.0, 2.0, 3.0, 4.0]), lambda p, q: p - q)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    with pytest.raises(RuntimeError, match="don't require grad"):
        tl.ones(2, requires_grad=True).apply_(abs)
