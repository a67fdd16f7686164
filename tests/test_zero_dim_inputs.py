"""0-d tensors through the ops with in-place fast paths (NumPy returns a scalar, not a 0-d array,
for 0-d operands, and a scalar cannot be written through ``out=``): forward, backward and double
backward in float32 and float64, against PyTorch."""

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.nn.functional as F  # noqa: N812

torch = pytest.importorskip("torch")
TF = torch.nn.functional

# name -> (ours, PyTorch's); every activation of nn.functional that takes a tensor alone, and
# the tl.* pointwise functions with hand-tuned rules
FUNCTIONS = {
    "leaky_relu": (F.leaky_relu, TF.leaky_relu),
    "leaky_relu_0.2": (lambda x: F.leaky_relu(x, 0.2), lambda x: TF.leaky_relu(x, 0.2)),
    "leaky_relu_-2": (lambda x: F.leaky_relu(x, -2.0), lambda x: TF.leaky_relu(x, -2.0)),
    "gelu": (F.gelu, TF.gelu),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"),
                  lambda x: TF.gelu(x, approximate="tanh")),
    **{name: (getattr(F, name), getattr(TF, name)) for name in (
        "relu", "relu6", "elu", "selu", "celu", "silu", "mish", "softplus", "softsign",
        "tanhshrink", "hardtanh", "hardswish", "hardsigmoid", "hardshrink", "softshrink",
        "logsigmoid", "sigmoid", "tanh")},
    **{name: (getattr(tl, name), getattr(torch, name)) for name in (
        "exp", "log", "sqrt", "rsqrt", "sin", "cos", "abs", "erf", "erfc", "lgamma", "digamma",
        "expm1", "log1p", "reciprocal", "square", "sinh", "asinh", "atan", "logit", "sinc")},
}


@pytest.mark.parametrize("value", [0.3, -0.4])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_zero_dim_forward_backward_and_double_backward(name, dtype, value):
    ours_fn, theirs_fn = FUNCTIONS[name]
    if value < 0 and name in ("log", "sqrt", "rsqrt", "lgamma", "digamma", "logit"):
        value = -value
    x = tl.tensor(value, dtype=getattr(tl, dtype), requires_grad=True)
    t = torch.tensor(value, dtype=getattr(torch, dtype), requires_grad=True)
    y, ty = ours_fn(x), theirs_fn(t)
    assert tuple(y.shape) == () and str(y.dtype).split(".")[-1] == dtype
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == "float32" else {"rtol": 1e-9, "atol": 1e-12}
    if name == "hardsigmoid" and dtype == "float64":
        # PyTorch's CPU backward multiplies by 1/6 rounded to float32 even for float64 (ours
        # divides by 6 in the input's dtype): 3e-8 apart
        tol = {"rtol": 1e-7, "atol": 1e-12}
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), **tol)
    y.backward()
    ty.backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), **tol)
    (g,) = tl.autograd.grad(ours_fn(x), x, create_graph=True)
    (tg,) = torch.autograd.grad(theirs_fn(t), t, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), **tol)
    assert g.requires_grad == tg.requires_grad
    if name == "hardsigmoid":  # PyTorch: "derivative for hardsigmoid_backward is not implemented"
        with pytest.raises(RuntimeError, match="hardsigmoid_backward is not implemented"):
            tl.autograd.grad(g, x)
        return
    # a piecewise-linear function's second derivative is a recorded zero in both (PyTorch's
    # may be a lazily zero tensor)
    (tgg,) = torch.autograd.grad(tg, t)
    (gg,) = tl.autograd.grad(g, x)
    expected = np.zeros(()) if tgg._is_zerotensor() else tgg.numpy()
    np.testing.assert_allclose(gg.numpy(), expected, **tol)
