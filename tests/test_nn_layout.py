"""``tinygrad_lite.nn`` at PyTorch's module paths (``nn.modules.*``, ``nn.utils.*``), the
functional API's in-place variants, and ``nn.utils.rnn.pad_sequence``."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.nn.functional as F  # noqa: N812 - PyTorch's conventional alias
from tinygrad_lite import nn

# (module path, name): each must be importable from there and be the object nn exports
PATHS = [
    ("tinygrad_lite.nn.modules.linear", "Linear"),
    ("tinygrad_lite.nn.modules.linear", "Identity"),
    ("tinygrad_lite.nn.modules.linear", "Bilinear"),
    ("tinygrad_lite.nn.modules.conv", "Conv2d"),
    ("tinygrad_lite.nn.modules.conv", "ConvTranspose1d"),
    ("tinygrad_lite.nn.modules.activation", "ReLU"),
    ("tinygrad_lite.nn.modules.activation", "MultiheadAttention"),
    ("tinygrad_lite.nn.modules.loss", "CrossEntropyLoss"),
    ("tinygrad_lite.nn.modules.loss", "MSELoss"),
    ("tinygrad_lite.nn.modules.container", "Sequential"),
    ("tinygrad_lite.nn.modules.container", "ModuleDict"),
    ("tinygrad_lite.nn.modules.normalization", "LayerNorm"),
    ("tinygrad_lite.nn.modules.normalization", "RMSNorm"),
    ("tinygrad_lite.nn.modules.batchnorm", "BatchNorm1d"),
    ("tinygrad_lite.nn.modules.pooling", "MaxPool2d"),
    ("tinygrad_lite.nn.modules.pooling", "AdaptiveAvgPool2d"),
    ("tinygrad_lite.nn.modules.dropout", "Dropout"),
    ("tinygrad_lite.nn.modules.sparse", "Embedding"),
    ("tinygrad_lite.nn.modules.flatten", "Flatten"),
    ("tinygrad_lite.nn.modules.flatten", "Unflatten"),
    ("tinygrad_lite.nn.modules.module", "Module"),
    ("tinygrad_lite.nn.modules", "Linear"),
    ("tinygrad_lite.nn.parameter", "Parameter"),
]


@pytest.mark.parametrize(("path", "name"), PATHS)
def test_pytorch_module_paths(path, name):
    assert getattr(importlib.import_module(path), name) is getattr(nn, name)


def test_module_hooks_and_utils_paths():
    from tinygrad_lite.nn.modules.module import (
        Module,
        register_module_forward_hook,
        register_module_forward_pre_hook,
        register_module_full_backward_hook,
        register_module_full_backward_pre_hook,
    )
    from tinygrad_lite.nn.utils.clip_grad import clip_grad_norm_, clip_grad_value_
    from tinygrad_lite.nn.utils.convert_parameters import parameters_to_vector
    from tinygrad_lite.nn.utils.rnn import pad_sequence

    assert Module is nn.Module
    assert nn.modules.module.register_module_forward_hook is register_module_forward_hook
    assert callable(register_module_forward_pre_hook)
    assert callable(register_module_full_backward_hook)
    assert callable(register_module_full_backward_pre_hook)
    assert clip_grad_norm_ is nn.utils.clip_grad_norm_
    assert clip_grad_value_ is nn.utils.clip_grad_value_
    assert parameters_to_vector is nn.utils.parameters_to_vector
    assert pad_sequence is nn.utils.rnn.pad_sequence


def test_functional_public_names():
    from tinygrad_lite.functions.shape import pad as shape_pad
    from tinygrad_lite.nn.functional import conv2d, cross_entropy, pad

    assert conv2d is F.conv2d and cross_entropy is F.cross_entropy and pad is shape_pad
    assert all(hasattr(F, name) for name in F.__all__)
    assert not hasattr(F, "abs_")  # it was never in place; use tl.abs


def test_global_forward_hook_sees_every_module_call():
    seen = []
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    with nn.modules.module.register_module_forward_hook(
            lambda m, args, out: seen.append(type(m).__name__)):
        model(tl.randn(4, 2))
    model(tl.randn(4, 2))  # removed on leaving the with block
    assert seen == ["Linear", "ReLU", "Sequential"]


# -- in-place variants of nn.functional --------------------------------------------------------

INPLACE = [
    ("relu", lambda x: F.relu(x, inplace=True), F.relu),
    ("relu_", F.relu_, F.relu),
    ("leaky_relu", lambda x: F.leaky_relu(x, 0.2, inplace=True), lambda x: F.leaky_relu(x, 0.2)),
    ("leaky_relu_", lambda x: F.leaky_relu_(x, 0.2), lambda x: F.leaky_relu(x, 0.2)),
    ("elu", lambda x: F.elu(x, 1.5, inplace=True), lambda x: F.elu(x, 1.5)),
    ("elu_", lambda x: F.elu_(x, 1.5), lambda x: F.elu(x, 1.5)),
    ("silu", lambda x: F.silu(x, inplace=True), F.silu),
]


@pytest.mark.parametrize(("name", "inplace", "reference"), INPLACE, ids=[r[0] for r in INPLACE])
def test_inplace_variants_write_into_their_input(name, inplace, reference):
    a = np.random.default_rng(0).standard_normal(7)
    w = tl.tensor(a, requires_grad=True)
    x = w * 1.0
    version = x._version_counter[0]
    out = inplace(x)
    assert out is x and x._version_counter[0] > version
    expected = reference(tl.tensor(a))
    np.testing.assert_allclose(x.detach().numpy(), expected.numpy())
    (out * tl.tensor(a)).sum().backward()
    w_ref = tl.tensor(a, requires_grad=True)
    (reference(w_ref * 1.0) * tl.tensor(a)).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), w_ref.grad.numpy())
    plain = tl.tensor(a)  # outside the graph: the same memory is overwritten
    assert inplace(plain) is plain
    np.testing.assert_allclose(plain.numpy(), expected.numpy())
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        inplace(tl.tensor(a, requires_grad=True))


def test_inplace_dropout_and_layers():
    tl.manual_seed(0)
    w = tl.ones(1000, requires_grad=True)
    x = w * 1.0
    out = F.dropout(x, 0.25, training=True, inplace=True)
    assert out is x
    kept = x.detach().numpy() != 0
    np.testing.assert_allclose(x.detach().numpy()[kept], 1 / 0.75, rtol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.where(kept, 1 / 0.75, 0.0), rtol=1e-6)
    model = nn.Sequential(nn.Linear(3, 4), nn.LeakyReLU(0.1, inplace=True),
                          nn.ELU(inplace=True), nn.SiLU(inplace=True))
    model(tl.randn(2, 3)).sum().backward()
    assert model[0].weight.grad is not None
    assert repr(model[3]) == "SiLU(inplace=True)"


# -- nn.utils ----------------------------------------------------------------------------------


def test_clip_grad_norm_accepts_a_generator():
    model = nn.Linear(3, 3)
    (model(tl.randn(4, 3)).sum() * 100).backward()
    total = nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    assert total.item() > 0.5
    norm = np.sqrt(sum((p.grad.numpy() ** 2).sum() for p in model.parameters()))
    np.testing.assert_allclose(norm, 0.5, rtol=1e-4)
    nn.utils.clip_grad_value_(model.parameters(), 0.01)
    assert max(np.abs(p.grad.numpy()).max() for p in model.parameters()) <= 0.01


def _seqs(dtype=np.float64, trailing=(2,)):
    rng = np.random.default_rng(1)
    return [rng.standard_normal((n, *trailing)).astype(dtype) for n in (3, 1, 4)]


def _reference(arrays, batch_first, value, side):
    length = max(len(a) for a in arrays)
    out = np.full((len(arrays), length) + arrays[0].shape[1:], value, arrays[0].dtype)
    for i, a in enumerate(arrays):
        if side == "left":
            out[i, length - len(a):] = a
        else:
            out[i, :len(a)] = a
    return out if batch_first else out.swapaxes(0, 1)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("value", [0.0, -1.5])
def test_pad_sequence_values(batch_first, side, value):
    arrays = _seqs()
    out = nn.utils.rnn.pad_sequence([tl.tensor(a) for a in arrays], batch_first=batch_first,
                                    padding_value=value, padding_side=side)
    assert out.dtype == tl.float64
    np.testing.assert_array_equal(out.numpy(), _reference(arrays, batch_first, value, side))


def test_pad_sequence_shapes_and_errors():
    one_d = nn.utils.rnn.pad_sequence([tl.ones(2), tl.ones(5)])
    assert one_d.shape == (5, 2)
    ints = nn.utils.rnn.pad_sequence([tl.tensor([1, 2]), tl.tensor([3])], True, 7)
    assert ints.dtype == tl.int64 and ints.tolist() == [[1, 2], [3, 7]]
    assert nn.utils.rnn.pad_sequence(tl.ones(3, 2)).shape == (2, 3)  # a tensor: its rows
    with pytest.raises(RuntimeError, match="empty list"):
        nn.utils.rnn.pad_sequence([])
    with pytest.raises(RuntimeError, match="padding_side"):
        nn.utils.rnn.pad_sequence([tl.ones(2)], padding_side="middle")
    with pytest.raises(RuntimeError, match="trailing dims"):
        nn.utils.rnn.pad_sequence([tl.ones(2, 3), tl.ones(1, 4)])
    with pytest.raises(RuntimeError, match="0-d"):
        nn.utils.rnn.pad_sequence([tl.tensor(1.0)])


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_gradient(batch_first, side):
    inputs = [tl.tensor(a, requires_grad=True) for a in _seqs()]

    def fn(*seqs):
        return nn.utils.rnn.pad_sequence(list(seqs), batch_first, 0.5, side)

    assert tl.autograd.gradcheck(fn, inputs)
    # the gradient of each sequence is the upstream gradient at its (unpadded) positions
    upstream = np.random.default_rng(2).standard_normal(fn(*inputs).shape)
    fn(*inputs).backward(tl.tensor(upstream))
    batch_major = upstream if batch_first else upstream.swapaxes(0, 1)
    length = batch_major.shape[1]
    for i, t in enumerate(inputs):
        n = t.shape[0]
        rows = slice(length - n, None) if side == "left" else slice(0, n)
        np.testing.assert_array_equal(t.grad.numpy(), batch_major[i, rows])


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_matches_torch(batch_first, side):
    torch = pytest.importorskip("torch")
    from torch.nn.utils.rnn import pad_sequence as torch_pad_sequence

    arrays = _seqs(np.float32, trailing=(2, 3))
    ours = [tl.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = nn.utils.rnn.pad_sequence(ours, batch_first, -2.0, side)
    ref = torch_pad_sequence(theirs, batch_first, -2.0, side)
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    upstream = np.random.default_rng(3).standard_normal(tuple(ref.shape)).astype(np.float32)
    out.backward(tl.tensor(upstream))
    ref.backward(torch.tensor(upstream))
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())
