"""User mistakes in nn/optim/utils that PyTorch refuses with a clear error."""

import pytest

import tinygrad_lite as tl
from tinygrad_lite.utils.data import DataLoader


def test_sgd_given_a_single_tensor_raises_type_error():
    with pytest.raises(TypeError, match="iterable of Tensors or dicts, but got Tensor"):
        tl.optim.SGD(tl.Tensor([1.0, 2.0]), lr=0.1)
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError):
        torch.optim.SGD(torch.tensor([1.0, 2.0]), lr=0.1)


def test_dataloader_float_batch_size_raises_value_error():
    with pytest.raises(ValueError, match=r"batch_size should be a positive integer.*2\.5"):
        DataLoader(list(range(5)), batch_size=2.5)  # type: ignore[arg-type]
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError):
        torch.utils.data.DataLoader(list(range(5)), batch_size=2.5)


def test_linear_negative_features_raises_runtime_error():
    with pytest.raises(RuntimeError, match=r"negative dimension -1: \[3, -1\]"):
        tl.nn.Linear(-1, 3)
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.nn.Linear(-1, 3)
