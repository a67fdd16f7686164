"""tl.amp.custom_fwd / custom_bwd on a custom Function under autocast, against PyTorch's
behaviour: cast_inputs runs the forward in that dtype with autocast off; without it the forward
follows the region and the backward runs in the forward's autocast state."""

import numpy as np
import pytest

import tinygrad_lite as tl


def _function(lib, cast_inputs):
    seen = {}

    class MatMul(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu", cast_inputs=cast_inputs)
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a.mm(b)

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            seen["autocast_in_backward"] = lib.is_autocast_enabled("cpu") \
                if hasattr(lib, "is_autocast_enabled") else lib.amp.is_autocast_enabled("cpu")
            a, b = ctx.saved_tensors
            return grad.mm(b.t()), a.t().mm(grad)

    return MatMul, seen


@pytest.mark.parametrize("cast", [None, "float32"])
def test_custom_fwd_bwd_follow_pytorch(cast):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    results = []
    for lib in (tl, torch):
        fn, seen = _function(lib, None if cast is None else getattr(lib, cast))
        x = lib.tensor(a, dtype=lib.float32, requires_grad=True)
        y = lib.tensor(b, dtype=lib.float32, requires_grad=True)
        with lib.autocast("cpu", dtype=lib.float16):
            out = fn.apply(x, y)
        out.float().sum().backward()
        results.append((str(out.dtype).split(".")[-1], str(x.grad.dtype).split(".")[-1],
                        seen["autocast_in_backward"]))
    assert results[0] == results[1]


def test_decorator_checks_and_availability():
    with pytest.raises(ValueError, match="device_type"):
        tl.amp.custom_fwd(lambda ctx: None, device_type=0)
    assert tl.amp.is_autocast_available("cpu") and not tl.amp.is_autocast_available("cuda")
