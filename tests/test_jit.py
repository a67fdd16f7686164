"""``tl.jit``: PyTorch's ``torch.jit`` with its JIT disabled (``PYTORCH_JIT=0``): scripted and
traced functions and modules are the originals and give the same results; the decorators leave
what they decorate; ``jit.save``/``jit.load`` round-trip a module, and PyTorch's TorchScript
archives raise naming the alternative."""

# ruff: noqa: UP006, UP035, UP045 - typing's List/Dict/Optional: the forms TorchScript code uses
import io
import warnings
from typing import Dict, List, Optional, Tuple

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.nn as nn


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        if x.sum() > 0:  # data-dependent control flow: fine eagerly
            return self.fc(x).relu()
        return self.helper(x)

    @tl.jit.export
    def helper(self, x):
        return self.fc(x)

    @tl.jit.ignore
    def debug(self, x):
        return x.shape

    @tl.jit.unused
    def unused_path(self, x):
        return x * 2


@tl.jit.script
def _fused_gelu(x):
    return x * 0.5 * (1.0 + tl.erf(x / 1.41421))


def test_script_and_trace_return_the_original_and_give_its_results():
    model = _Net()
    x = tl.randn(2, 4)
    scripted = tl.jit.script(model)
    traced = tl.jit.trace(model, (x,))
    assert scripted is model and traced is model
    np.testing.assert_array_equal(scripted(x).detach().numpy(), model(x).detach().numpy())
    np.testing.assert_array_equal(scripted(-x.abs()).detach().numpy(),
                                  model.helper(-x.abs()).detach().numpy())
    assert model.debug(x) == (2, 4) and model.unused_path(tl.ones(1)).item() == 2.0
    y = _fused_gelu(x)
    np.testing.assert_allclose(y.numpy(), tl.nn.functional.gelu(x).numpy(), atol=1e-4)
    assert _fused_gelu.__name__ == "_fused_gelu"
    assert tl.jit.trace_module(model, {"forward": x}) is model


def test_a_script_module_subclass_trains_like_a_module():
    class Old(tl.jit.ScriptModule):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(tl.ones(3))

        @tl.jit.script_method
        def forward(self, x):
            return (self.w * x).sum()

    m = Old()
    m(tl.tensor([1.0, 2.0, 3.0])).backward()
    assert m.w.grad.tolist() == [1.0, 2.0, 3.0] and list(m.state_dict()) == ["w"]


def test_switches_and_helpers():
    assert tl.jit.is_scripting() is False and tl.jit.is_tracing() is False
    assert tl.jit.annotate(List[int], []) == [] and tl.jit.Attribute(3, int) == 3
    fut = tl.jit.fork(lambda a, b: a + b, 2, b=3)
    assert tl.jit.wait(fut) == 5 and fut.done()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=tl.jit.TracerWarning)
    with tl.jit.optimized_execution(False), tl.jit.fuser("fuser1"):
        pass
    assert tl.jit.set_fusion_strategy([("DYNAMIC", 3)]) == [("STATIC", 2), ("DYNAMIC", 10)]
    model = _Net()
    with pytest.raises(RuntimeError, match="eval mode"):
        tl.jit.freeze(model)
    assert tl.jit.freeze(model.eval()) is model
    assert tl.jit.optimize_for_inference(model.train()) is model and not model.training


@pytest.mark.parametrize("value, hint, expected", [
    ([1, 2], List[int], True), ([1, "a"], List[int], False),
    ({"a": tl.ones(1)}, Dict[str, tl.Tensor], True), ({"a": 1}, Dict[str, tl.Tensor], False),
    ((1, "x"), Tuple[int, str], True), ((1, 2, 3), Tuple[int, ...], True),
    (None, Optional[int], True), (2.0, Optional[int], False), (3, int, True),
    ([1], list[int], True), ([[1]], List[List[int]], True), (None, int | None, True),
])
def test_jit_isinstance_checks_container_elements(value, hint, expected):
    assert tl.jit.isinstance(value, hint) is expected


def test_saved_scripted_modules_load_back_with_their_extra_files(tmp_path):
    model = _Net().eval()
    x = tl.randn(3, 4)
    traced = tl.jit.trace(model, (x,))
    tl.jit.save(traced, tmp_path / "m.pt", _extra_files={"config.txt": "hidden=8"})
    extra = {"config.txt": ""}
    loaded = tl.jit.load(tmp_path / "m.pt", _extra_files=extra)
    assert isinstance(loaded, _Net) and extra == {"config.txt": "hidden=8"}
    assert np.array_equal(loaded(x).detach().numpy(), model(x).detach().numpy())
    buffer = io.BytesIO()  # file objects too, and a module tl.save pickled whole
    tl.save(model, buffer)
    buffer.seek(0)
    assert isinstance(tl.jit.load(buffer), _Net)
    with pytest.raises(tl.jit.Error, match="scripted or traced module"):
        tl.jit.save(lambda v: v, tmp_path / "f.pt")
    tl.save({"w": tl.ones(2)}, tmp_path / "weights.pt")
    with pytest.raises(tl.jit.Error, match="not a module"):
        tl.jit.load(tmp_path / "weights.pt")


def test_torchscript_archives_raise_naming_the_alternative(tmp_path):
    torch = pytest.importorskip("torch")
    torch.jit.script(torch.nn.Linear(2, 3)).save(str(tmp_path / "ts.pt"))
    with pytest.raises(tl.jit.Error, match="load_state_dict"):
        tl.jit.load(tmp_path / "ts.pt")
