"""Files saved before the package was regrouped by concept name module paths that are gone
(``tinygrad_lite.nn.modules.activation_extra.Mish``, ``tinygrad_lite._tensor_api.rebuild_tensor``);
they still load, plainly and through the weights-only allowlist (``_core/moved_modules.py``)."""

from __future__ import annotations

import importlib
import pickle
from pathlib import Path

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite._core.moved_modules import MOVED
from tinygrad_lite.serialization.pickled import (
    add_safe_globals,
    clear_safe_globals,
    find_allowed,
    unpickled,
)

PACKAGE = Path(tl.__file__).parent


@pytest.mark.parametrize("old", sorted(MOVED))
def test_each_old_path_is_gone_and_answered_by_its_new_module(old):
    relative = Path(*old.split(".")[1:])
    assert not (PACKAGE / relative.with_suffix(".py")).exists(), f"{old} is a file again"
    assert not (PACKAGE / relative).is_dir(), f"{old} is a package again"
    assert importlib.import_module(old) is importlib.import_module(MOVED[old])


def with_old_path(obj, new: str, old: str) -> bytes:
    """``obj`` pickled as a file saved before the move would have it (protocol 0 names each
    global as text, so the path can be replaced)."""
    data = pickle.dumps(obj, protocol=0)
    assert new.encode() in data
    return data.replace(new.encode() + b"\n", old.encode() + b"\n")


def test_a_model_pickled_under_the_old_paths_loads():
    model = tl.nn.Sequential(tl.nn.Linear(3, 2), tl.nn.Mish(), tl.nn.Upsample(scale_factor=2))
    data = with_old_path(model, "tinygrad_lite.nn.modules.activation",
                         "tinygrad_lite.nn.modules.activation_extra")
    data = data.replace(b"tinygrad_lite.nn.modules.upsampling\n",
                        b"tinygrad_lite.nn.modules.vision\n")
    data = data.replace(b"tinygrad_lite._tensor.pickling\n", b"tinygrad_lite._tensor_api\n")
    assert b"activation_extra" in data and b"vision" in data and b"_tensor_api" in data
    loaded = pickle.loads(data)
    assert type(loaded[1]) is tl.nn.Mish and type(loaded[2]) is tl.nn.Upsample
    x = tl.randn(4, 3)
    np.testing.assert_array_equal(loaded[0](x).detach().numpy(), model[0](x).detach().numpy())


def test_a_distribution_pickled_under_its_old_module_loads():
    normal = tl.distributions.Normal(tl.tensor([0.0]), tl.tensor([2.0]))
    data = with_old_path(normal, "tinygrad_lite.distributions.normal",
                         "tinygrad_lite.distributions.continuous")
    loaded = pickle.loads(data)
    assert type(loaded) is tl.distributions.Normal and loaded.scale.item() == 2.0


def test_weights_only_allowlist_sees_the_current_path():
    assert find_allowed("tinygrad_lite._tensor_api", "rebuild_tensor") is \
        importlib.import_module("tinygrad_lite._tensor.pickling").rebuild_tensor
    with pytest.raises(pickle.UnpicklingError, match="Mish"):
        find_allowed("tinygrad_lite.nn.modules.activation_extra", "Mish")
    add_safe_globals([tl.nn.Mish])
    try:
        assert find_allowed("tinygrad_lite.nn.modules.activation_extra", "Mish") is tl.nn.Mish
    finally:
        clear_safe_globals()


def test_a_tensor_pickled_under_the_old_path_loads_weights_only():
    t = tl.arange(6.0).reshape(2, 3)
    data = with_old_path(t, "tinygrad_lite._tensor.pickling", "tinygrad_lite._tensor_api")
    payload = np.frombuffer(data, dtype=np.uint8)
    loaded = unpickled(payload, "old.safetensors", weights_only=True, pickle_module=None,
                       load_args={})
    np.testing.assert_array_equal(loaded.numpy(), t.numpy())
