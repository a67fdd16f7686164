"""Python callables applied element by element in place (``_tensor/callables.py``): ``apply_``,
``map_`` and ``map2_``, with PyTorch's meaning (compared with torch where installed)."""

from __future__ import annotations

import numpy as np
import pytest

import tinygrad_lite as tl


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



def test_map2_matches_torch() -> None:
    t = tl.arange(3.0)
    out = t.map2_(tl.ones(3), tl.tensor(2.0), lambda a, b, c: a * 10 + b + c)
    assert out is t
    np.testing.assert_array_equal(t.numpy(), [3.0, 13.0, 23.0])
    torch = pytest.importorskip("torch")
    r = torch.arange(3.0).map2_(torch.ones(3), torch.tensor(2.0), lambda a, b, c: a * 10 + b + c)
    np.testing.assert_array_equal(t.numpy(), r.numpy())
    with pytest.raises(RuntimeError, match="requires grad"):
        tl.ones(2, requires_grad=True).map2_(tl.ones(2), tl.ones(2), lambda a, b, c: a)
    with pytest.raises(TypeError):
        tl.ones(2).map2_(tl.ones(2, dtype=tl.float64), tl.ones(2), lambda a, b, c: a)
    with pytest.raises(RuntimeError, match="expanded size"):
        tl.ones(2).map2_(tl.ones(3), tl.ones(2), lambda a, b, c: a)
