"""The functional API: every ``tl.*`` function, and the Tensor methods bound from it.

Primitives come from ``ops/`` with PyTorch's signatures; composites (mean, softmax, norm, ...)
are built from them here and get their gradients for free. The themed modules:

| module | what it holds |
|---|---|
| ``creation.py`` | tensors from data, filled, ranges, random (``manual_seed``) |
| ``basic.py`` | arithmetic, sum/mean/max, matmul, reshape and friends, softmax |
| ``pointwise.py`` | the rest of the elementwise math, comparisons, logical ops |
| ``reduction.py`` | min/argmax/prod/var/norm/..., cumulative ops, mm/bmm/einsum |
| ``shape.py`` | cat/stack/split, repeat/tile/flip/roll, tril/triu, ... |
| ``indexing.py`` | gather/scatter, index_select, masked ops, nonzero |
| ``inplace.py`` | ``add_``, ``relu_``, ``copy_``, ``fill_``, ... (store through ``ops.inplace``) |

Adding an op: write it in one of these modules (or as a primitive in ``ops/``), list its name in
that module's ``__all__``, and, when ``x.name(...)`` means ``tl.name(x, ...)``, in
``TENSOR_METHODS`` below; tensor.py binds every name listed there, so there is no wrapper to
write. Then add a row to ``tests/op_catalog.py``.
"""

from . import basic, creation, indexing, pointwise, reduction, shape
from .basic import *  # noqa: F403
from .creation import *  # noqa: F403
from .indexing import *  # noqa: F403
from .inplace import *  # noqa: F403
from .inplace import clamp_, clip_, exp_, neg_, relu_
from .pointwise import *  # noqa: F403
from .reduction import *  # noqa: F403
from .shape import *  # noqa: F403

# tl.* names: everything the themed modules export, except the in-place helpers that PyTorch
# has only as methods.
__all__ = [
    *basic.__all__, *creation.__all__, *indexing.__all__, *pointwise.__all__,
    *reduction.__all__, *shape.__all__, "relu_", "clamp_", "clip_", "neg_", "exp_",
]

# Names bound as Tensor methods: ``x.name(*args)`` is ``name(x, *args)``. Methods whose
# arguments differ from the function (``x.reshape(2, 3)``, ``x.where(cond, y)``, ...) are written
# out in tensor.py instead.
TENSOR_METHODS = [
    # basic
    "add", "sub", "mul", "div", "pow", "neg", "exp", "log", "sin", "cos", "sqrt", "relu", "tanh",
    "sigmoid", "maximum", "softmax", "log_softmax", "sum", "mean", "max", "amax", "matmul",
    "reshape", "permute", "expand", "t", "transpose", "squeeze", "unsqueeze", "flatten",
    # pointwise
    "abs", "absolute", "sign", "clamp", "clip", "rsqrt", "square", "exp2", "expm1", "log2",
    "log10", "log1p", "tan", "reciprocal", "floor", "ceil", "round", "trunc", "minimum", "lerp",
    "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
    "logical_not", "isnan", "isinf", "isfinite", "bitwise_not", "bitwise_and", "bitwise_or",
    "bitwise_xor",
    # reduction
    "min", "amin", "argmax", "argmin", "prod", "cumsum", "cumprod", "var", "std", "logsumexp",
    "norm", "all", "any", "mm", "bmm", "mv", "dot", "outer",
    # shape
    "unflatten", "broadcast_to", "repeat", "roll", "split", "chunk", "unbind", "narrow", "select",
    "movedim", "tril", "triu", "diagonal", "contiguous",
    # indexing
    "gather", "scatter", "scatter_add", "index_select", "masked_fill", "masked_select",
    "take_along_dim", "nonzero",
    # in place
    "add_", "sub_", "mul_", "div_", "pow_", "clamp_", "clip_", "relu_", "neg_", "exp_",
    "masked_fill_", "fill_", "zero_", "copy_",
]
