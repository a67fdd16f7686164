"""tl.compile runs the model eagerly: the same object back, as function and as decorator, with
PyTorch's options accepted."""

import numpy as np
import pytest

import tinygrad_lite as tl


def test_compile_returns_the_model_and_training_is_unchanged():
    model = tl.nn.Linear(3, 2)
    assert tl.compile(model) is model
    assert tl.compile(model, mode="max-autotune", fullgraph=True, dynamic=False) is model
    x = tl.randn(4, 3)
    np.testing.assert_array_equal(tl.compile(model)(x).detach().numpy(),
                                  model(x).detach().numpy())

    @tl.compile
    def step(a):
        return (a * 2).sum()

    @tl.compile(backend="inductor")
    def other(a):
        return a + 1

    assert step(tl.ones(3)).item() == 6.0 and other(tl.zeros(1)).item() == 1.0


def test_compile_refusals_as_pytorch():
    with pytest.raises(RuntimeError, match="both"):
        tl.compile(tl.nn.Linear(1, 1), mode="default", options={"a": 1})
    with pytest.raises(RuntimeError, match="callable"):
        tl.compile(3)
