"""The lazy layers (LazyLinear, LazyBatchNorm*, LazyInstanceNorm*) and the uninitialized
parameter and buffer against PyTorch: shapes after the first forward, options, state dicts,
reprs and errors."""

import copy
import pickle

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _np(t):
    return t.detach().numpy()


def test_lazy_linear_before_and_after_the_first_forward():
    m = tl.nn.LazyLinear(3)
    assert repr(m) == repr(torch.nn.LazyLinear(3)) == \
        "LazyLinear(in_features=0, out_features=3, bias=True)"
    assert m.has_uninitialized_params()
    assert all(isinstance(p, tl.nn.UninitializedParameter) for p in m.parameters())
    state = m.state_dict()
    assert list(state) == ["weight", "bias"] and repr(state["weight"]) == "<UninitializedParameter>"
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        _ = m.weight.shape
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in sum"):
        m.weight.sum()
    clone = copy.deepcopy(m)
    assert isinstance(clone.weight, tl.nn.UninitializedParameter)
    restored = pickle.loads(pickle.dumps(m))  # hooks and all: it still initialises lazily
    restored(tl.ones(1, 7))
    assert type(restored) is tl.nn.Linear and restored.in_features == 7
    assert not restored._forward_pre_hooks and not restored._load_state_dict_pre_hooks
    x = np.random.default_rng(0).standard_normal((2, 4, 5)).astype(np.float32)
    y = m(tl.tensor(x))
    assert type(m) is tl.nn.Linear and m.in_features == 5 and tuple(y.shape) == (2, 4, 3)
    assert type(m.weight) is tl.nn.Parameter and tuple(m.weight.shape) == (3, 5)
    assert np.abs(_np(m.weight)).max() <= 1 / np.sqrt(5)
    assert not hasattr(m, "_initialize_hook") and not m._forward_pre_hooks
    ref = torch.nn.Linear(5, 3)
    ref.load_state_dict({k: torch.tensor(_np(v)) for k, v in m.state_dict().items()})
    np.testing.assert_allclose(_np(y), _np(ref(torch.tensor(x))), rtol=1e-6, atol=1e-6)
    y.sum().backward()
    assert m.weight.grad is not None and tuple(m.weight.grad.shape) == (3, 5)


def test_lazy_linear_options_and_state_dict_loading():
    m = tl.nn.LazyLinear(2, bias=False, dtype=tl.float64)
    assert m.bias is None and m.weight.dtype == tl.float64
    m(tl.ones(1, 6, dtype=tl.float64))
    assert tuple(m.weight.shape) == (2, 6) and m.weight.dtype == tl.float64
    # a PyTorch checkpoint materializes the lazy entries with its shapes
    ref = torch.nn.Linear(4, 3)
    lazy = tl.nn.LazyLinear(3)
    lazy.load_state_dict(ref.state_dict())
    assert type(lazy) is tl.nn.LazyLinear and tuple(lazy.weight.shape) == (3, 4)
    x = torch.randn(2, 4)
    np.testing.assert_allclose(_np(lazy(tl.tensor(x.numpy()))), _np(ref(x)), rtol=1e-6)
    assert type(lazy) is tl.nn.Linear and lazy.in_features == 4
    with pytest.raises(AssertionError, match="in_features inferred from input"):
        other = tl.nn.LazyLinear(3)
        other.load_state_dict(ref.state_dict())
        other(tl.ones(2, 5))


@pytest.mark.parametrize("name,shape", [("BatchNorm1d", (4, 3)), ("BatchNorm1d", (4, 3, 5)),
                                        ("BatchNorm2d", (2, 3, 4, 5)),
                                        ("BatchNorm3d", (2, 3, 2, 3, 4)),
                                        ("InstanceNorm1d", (2, 3, 6)),
                                        ("InstanceNorm2d", (2, 3, 4, 5)),
                                        ("InstanceNorm3d", (2, 3, 2, 3, 4))])
def test_lazy_norms_match_pytorch(name, shape):
    ours, theirs = getattr(tl.nn, "Lazy" + name)(), getattr(torch.nn, "Lazy" + name)()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours.state_dict()["running_mean"]) == "<UninitializedBuffer>"
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    for _ in range(2):  # training: batch statistics, running statistics updated
        out, ref = ours(tl.tensor(x)), theirs(torch.tensor(x))
        np.testing.assert_allclose(_np(out), _np(ref), rtol=1e-5, atol=1e-5)
    assert type(ours) is getattr(tl.nn, name) and type(theirs) is getattr(torch.nn, name)
    assert repr(ours) == repr(theirs)
    for key, value in theirs.state_dict().items():
        np.testing.assert_allclose(_np(ours.state_dict()[key]), value.numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=key)
    ours.eval()
    theirs.eval()
    np.testing.assert_allclose(_np(ours(tl.tensor(x))), _np(theirs(torch.tensor(x))),
                               rtol=1e-5, atol=1e-5)


def test_lazy_norm_options_and_unbatched_instance_norm():
    bn = tl.nn.LazyBatchNorm2d(affine=False, track_running_stats=False)
    assert bn.weight is None and bn.running_mean is None and not bn.has_uninitialized_params()
    bn(tl.randn(2, 3, 4, 4))  # nothing to infer: num_features stays 0, as in PyTorch
    assert type(bn) is tl.nn.BatchNorm2d and bn.num_features == 0
    nobias = tl.nn.LazyBatchNorm1d(bias=False)
    assert nobias.bias is None
    nobias(tl.randn(4, 5))
    assert tuple(nobias.weight.shape) == (5,) and nobias.bias is None
    # (C, L) input: the channels are dim 0 (PyTorch's lazy form reads dim 1 and then fails)
    inorm = tl.nn.LazyInstanceNorm1d()
    inorm(tl.randn(3, 7))
    assert inorm.num_features == 3 and tuple(inorm.running_mean.shape) == (3,)
    loaded = tl.nn.LazyBatchNorm1d()
    loaded.load_state_dict(torch.nn.BatchNorm1d(6).state_dict())
    assert tuple(loaded.running_var.shape) == (6,)


def test_uninitialized_parameter_and_buffer():
    p = tl.nn.UninitializedParameter(dtype=tl.float64)
    assert p.requires_grad and p.dtype == tl.float64 and repr(p) == "<UninitializedParameter>"
    p.materialize((2, 3))
    assert type(p) is tl.nn.Parameter and tuple(p.shape) == (2, 3) and p.dtype == tl.float64
    b = tl.nn.UninitializedBuffer()
    assert not b.requires_grad
    with pytest.raises(ValueError, match="uninitialized parameter in exp"):
        b.exp()
    b.materialize(4, dtype=tl.float64)
    assert type(b) is tl.Tensor and b.dtype == tl.float64 and tuple(b.shape) == (4,)
