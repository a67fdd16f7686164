"""The meta device: tensors with a shape and a dtype but no memory, for building a model before
its weights exist (``with tl.device("meta")``, ``to("meta")``, ``to_empty``,
``load_state_dict(assign=True)``), PyTorch's reprs and refusals."""

import copy
import pickle

import numpy as np
import pytest

import tinygrad_lite as tl

nn = tl.nn


def test_factories_make_meta_tensors_without_memory():
    big = tl.empty(2 ** 20, 2 ** 20, device="meta")  # 4 TiB as a real float32 array
    assert big.shape == (2 ** 20, 2 ** 20) and big.is_meta and not big.is_cpu
    assert big.device == tl.device("meta") and big._data.nbytes > 2 ** 40
    assert repr(tl.zeros(2, 3, device="meta")) == "tensor(..., device='meta', size=(2, 3))"
    assert repr(tl.ones(2, dtype=tl.int64, device=tl.device("meta"))) == \
        "tensor(..., device='meta', size=(2,), dtype=tinygrad_lite.int64)"
    assert repr(tl.randn(2, device="meta", requires_grad=True)) == \
        "tensor(..., device='meta', size=(2,), requires_grad=True)"
    x = tl.arange(6.0).reshape(2, 3)
    assert tl.zeros_like(big[:2]).is_meta and not tl.zeros_like(x).is_meta
    assert x.to("meta").is_meta and x.to("meta").dtype == tl.float32
    assert x.to("meta", tl.float64).dtype == tl.float64 and big.new_zeros(3).is_meta
    assert big[:2, :3].is_meta and big.t().is_meta  # views of meta tensors stay meta


def test_values_of_meta_tensors_cannot_be_read():
    m = tl.empty(2, 3, device="meta")
    with pytest.raises(NotImplementedError, match="meta tensor"):
        m.tolist()
    with pytest.raises(TypeError, match="meta"):
        m.numpy()
    with pytest.raises(NotImplementedError, match="meta tensor"):
        tl.empty(1, device="meta").item()
    with pytest.raises(NotImplementedError, match="copy out of a meta tensor"):
        m.to("cpu")
    with pytest.raises(NotImplementedError, match="meta tensors"):
        tl.Generator(device="meta")


def test_building_a_model_on_meta_then_loading_weights():
    with tl.device("meta"):
        assert tl.get_default_device() == "meta"
        model = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.ReLU())
        made = tl.zeros(2)
    assert tl.get_default_device() == "cpu" and not tl.zeros(2).is_meta and made.is_meta
    assert all(t.is_meta for t in [*model.parameters(), *model.buffers()])
    assert "device='meta'" in repr(model[0].weight)
    with pytest.raises(NotImplementedError, match="to_empty"):
        model.to("cpu")
    source = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.ReLU())
    assert str(model.load_state_dict(source.state_dict(), assign=True)) == \
        "<All keys matched successfully>"
    assert not any(t.is_meta for t in model.parameters())
    x = tl.randn(5, 4)
    np.testing.assert_array_equal(model(x).detach().numpy(), source(x).detach().numpy())
    # to_empty gives real (uninitialised) memory of each shape to fill
    other = nn.Linear(2, 2).to("meta")
    assert other.weight.is_meta and isinstance(other.weight, nn.Parameter)
    other.to_empty(device="cpu")
    assert other.weight.device == "cpu" and other.weight.shape == (2, 2)
    with tl.no_grad():
        other.weight.copy_(tl.eye(2))
    assert other.weight.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    tl.set_default_device("meta")
    try:
        assert tl.ones(3).is_meta
    finally:
        tl.set_default_device(None)
    assert not tl.ones(3).is_meta


def test_meta_modules_copy_and_pickle_as_meta():
    # the model-ensembling recipe: a meta copy of one model, called with stacked weights
    models = [nn.Linear(2, 3) for _ in range(3)]
    params, buffers = tl.func.stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")
    assert base.weight.is_meta and not models[0].weight.is_meta
    x = tl.randn(4, 2)
    out = tl.func.vmap(lambda p, b, x: tl.func.functional_call(base, (p, b), (x,)),
                       in_dims=(0, 0, None))(params, buffers, x)
    np.testing.assert_allclose(out[1].detach().numpy(), models[1](x).detach().numpy(),
                               rtol=1e-6)
    copied = copy.deepcopy(base.weight)
    assert copied.is_meta and isinstance(copied, nn.Parameter) and copied.requires_grad
    assert pickle.loads(pickle.dumps(base.weight)).is_meta


def test_layers_honour_their_device_argument():
    layer = nn.Linear(2, 3, device="meta")
    assert layer.weight.is_meta and layer.bias.is_meta and tl.get_default_device() == "cpu"
    assert nn.Conv2d(1, 2, 3, device=tl.device("meta")).weight.is_meta
    assert nn.BatchNorm1d(3, device="meta").running_mean.is_meta
    assert not nn.Linear(2, 3, device="cpu").weight.is_meta
    with pytest.raises(RuntimeError, match="not compiled with CUDA"):
        nn.Linear(2, 2, device="cuda")

    class Own(nn.Module):  # a user's module keeps its own meaning of the argument
        def __init__(self, device=None):
            super().__init__()
            self.where, self.layer = device, nn.Linear(2, 2)

    own = Own(device="cuda")
    assert own.where == "cuda" and not own.layer.weight.is_meta
