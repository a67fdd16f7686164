"""User mistakes in nn/optim/utils that PyTorch refuses with a clear error."""

import re
import warnings

import numpy as np
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


# (case, our call, PyTorch's same call, expected exception type, words our message must contain)
MISTAKES = [
    ("float64 batch into float32 Linear",
     lambda m: m.nn.Linear(3, 2)(m.randn(4, 3, dtype=m.float64)), RuntimeError, "same dtype"),
    ("int64 batch into float32 Linear",
     lambda m: m.nn.Linear(3, 2)(m.ones(4, 3, dtype=m.int64)), RuntimeError, "same dtype"),
    ("float64 image into float32 Conv2d",
     lambda m: m.nn.Conv2d(1, 2, 3)(m.randn(1, 1, 5, 5, dtype=m.float64)), RuntimeError,
     "conv2d"),
    ("float64 @ float32", lambda m: m.randn(2, 3, dtype=m.float64) @ m.randn(3, 2),
     RuntimeError, "same dtype"),
    ("grey image into an RGB Conv2d", lambda m: m.nn.Conv2d(3, 4, 3)(m.randn(1, 1, 8, 8)),
     RuntimeError, "to have 3 channels, but got 1 channels"),
    ("BatchNorm1d(3) on 5 features", lambda m: m.nn.BatchNorm1d(3)(m.randn(4, 5)),
     RuntimeError, "should contain 5 elements not 3"),
    ("conv stride 0", lambda m: m.nn.Conv2d(1, 1, 3, stride=0)(m.randn(1, 1, 8, 8)),
     RuntimeError, "non-positive stride"),
    ("conv negative padding", lambda m: m.nn.functional.conv2d(
        m.randn(1, 1, 8, 8), m.randn(1, 1, 3, 3), padding=-1), RuntimeError, "negative padding"),
    ("kernel larger than the input", lambda m: m.nn.Conv2d(1, 1, 5)(m.randn(1, 1, 3, 3)),
     RuntimeError, "Kernel size can't be greater than actual input size"),
    ("cross_entropy with float class indices",
     lambda m: m.nn.functional.cross_entropy(m.randn(4, 3), m.tensor([0.0, 1.0, 2.0, 1.0])),
     RuntimeError, "class indices must be integers"),
    ("cross_entropy weight of the wrong length",
     lambda m: m.nn.functional.cross_entropy(m.randn(4, 3), m.tensor([0, 1, 2, 1]),
                                             weight=m.ones(5)),
     RuntimeError, "for all 3 classes"),
    ("nll_loss weight of the wrong length",
     lambda m: m.nn.functional.nll_loss(m.randn(4, 3), m.tensor([0, 1, 2, 1]), weight=m.ones(2)),
     RuntimeError, "for all 3 classes"),
    ("cross_entropy with int32 class indices",
     lambda m: m.nn.functional.cross_entropy(m.randn(3, 4), m.tensor([0, 1, 2], dtype=m.int32)),
     RuntimeError, "Long or Byte"),
    ("nll_loss with int16 class indices",
     lambda m: m.nn.functional.nll_loss(m.randn(3, 4), m.tensor([0, 1, 2], dtype=m.int16)),
     RuntimeError, "Long or Byte"),
    ("a NumPy batch into a layer", lambda m: m.nn.Linear(3, 2)(np.ones((4, 3), np.float32)),
     TypeError, "must be Tensor, not ndarray"),
    ("a NumPy image into a conv layer",
     lambda m: m.nn.Conv2d(1, 1, 3)(np.ones((1, 1, 5, 5), np.float32)), TypeError,
     "must be Tensor, not ndarray"),
    ("a dtype name as a device", lambda m: m.zeros(2).to("float64"), RuntimeError,
     "Invalid device string"),
    ("a dtype name in zeros()", lambda m: m.zeros(2, dtype="float64"), TypeError,
     "must be a dtype"),
    ("view of a transpose", lambda m: m.randn(2, 3).t().view(6), RuntimeError,
     "Use .reshape"),
    ("view of a column slice", lambda m: m.randn(2, 3)[:, :2].view(4), RuntimeError,
     "Use .reshape"),
]


@pytest.mark.parametrize("case,call,error,words", MISTAKES, ids=[m[0] for m in MISTAKES])
def test_mistake_raises_like_pytorch(case, call, error, words):
    with pytest.raises(error, match=re.escape(words)):
        call(tl)
    torch = pytest.importorskip("torch")
    with pytest.raises(error):
        call(torch)


def test_views_pytorch_allows_still_work_after_convolutions_and_slices():
    """The view check must not refuse what PyTorch allows: a conv output flattened with
    view (the classic CNN head), a contiguous copy of a transpose, and a row slice."""
    conv_out = tl.nn.Conv2d(3, 4, 3)(tl.randn(2, 3, 8, 8))
    assert conv_out.view(2, -1).shape == (2, 4 * 6 * 6)
    assert tl.randn(2, 3).t().contiguous().view(6).shape == (6,)
    assert tl.randn(4, 3)[1:3].view(6).shape == (6,)
    assert tl.randn(2, 3).flip(0).view(6).shape == (6,)  # flip copies, as in PyTorch


def test_mse_loss_warns_when_the_target_broadcasts():
    with pytest.warns(UserWarning, match=r"target size \(\(8,\)\) that is different to the input "
                                         r"size \(\(8, 1\)\)"):
        tl.nn.functional.mse_loss(tl.randn(8, 1), tl.randn(8))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tl.nn.functional.mse_loss(tl.randn(8, 1), tl.randn(8, 1))  # same shape: silent


def test_flip_returns_a_copy_not_a_view():
    x = tl.arange(6.0).reshape(2, 3)
    x.flip(0).add_(1)
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
