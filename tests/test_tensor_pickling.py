"""Pickling tensors (``_tensor/pickling.py``): PyTorch's legacy ``Tensor.__setstate__``, with
PyTorch's meaning (compared with torch where installed)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import tinygrad_lite as tl


def test_setstate() -> None:
    x = tl.ones(2)
    x.__setstate__((True, None, None))
    assert x.requires_grad and x.is_leaf
    y = tl.zeros(3)
    y.__setstate__((tl.tensor([1.0, 2.0]), None, None, False, None))  # legacy Variable state
    np.testing.assert_array_equal(y.numpy(), [1.0, 2.0])
    assert not y.requires_grad
    with pytest.raises(RuntimeError, match="leaf"):
        (x * 2).__setstate__((False, None, None))
    z = pickle.loads(pickle.dumps(tl.tensor([1.0, 2.0], requires_grad=True)))
    assert z.requires_grad and z.tolist() == [1.0, 2.0]  # pickling is unaffected
