"""tinygrad_lite: a small define-by-run autograd framework on NumPy with PyTorch's API."""

from . import autograd, dtypes
from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .creation import (
    arange,
    as_tensor,
    empty,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    tensor,
    zeros,
    zeros_like,
)
from .dtypes import (
    DType,
    bool,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from .functions import (
    add,
    amax,
    cos,
    div,
    exp,
    expand,
    flatten,
    log,
    log_softmax,
    matmul,
    max,
    maximum,
    mean,
    mul,
    neg,
    permute,
    pow,
    relu,
    reshape,
    sigmoid,
    sin,
    softmax,
    sqrt,
    squeeze,
    sub,
    sum,
    tanh,
    transpose,
    unsqueeze,
    where,
)
from .tensor import Tensor

__version__ = "0.1.0"

double, half, long, float = float64, float16, int64, float32  # PyTorch's dtype aliases

__all__ = [
    "Tensor", "tensor", "as_tensor", "from_numpy", "autograd", "dtypes", "DType", "no_grad",
    "enable_grad", "set_grad_enabled", "is_grad_enabled", "manual_seed", "zeros", "ones", "full",
    "empty", "arange", "linspace", "eye", "rand", "randn", "randint", "zeros_like", "ones_like",
    "full_like", "rand_like", "randn_like", "bool", "uint8", "int8", "int16", "int32", "int64",
    "float16", "float32", "float64", "double", "half", "long", "float", "get_default_dtype",
    "add", "sub", "mul", "div", "pow", "neg", "exp", "log", "sin", "cos", "relu", "tanh",
    "sigmoid", "sqrt", "maximum", "where", "sum", "mean", "max", "amax", "matmul", "reshape",
    "permute", "expand", "transpose", "squeeze", "unsqueeze", "flatten", "softmax",
    "log_softmax",
]
