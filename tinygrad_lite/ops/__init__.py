"""Primitive differentiable ops: the only code in the package with hand-written backward rules.

Each op is a function that computes its forward pass on NumPy arrays, next to a ``Node``
subclass whose ``backward`` gives the input gradients. Backward rules are written in Tensor ops,
so they are differentiable again under ``create_graph=True``; the engine runs them under no_grad
otherwise, which makes them plain NumPy calls plus a thin wrapper. A rule that exists only on
NumPy arrays (FlashAttention, CrossMapLRN2d, SyncBatchNorm) hands its gradients back through
``common.first_order_grads``, so that differentiating them again raises instead of treating them
as constants. Everything else in tinygrad_lite (mean, variance, losses, layers) is composed from
these and gets gradients for free; hot composites became primitives of their own (softmax, GELU,
layer and batch norm, attention), and so did the layers whose gradients are scatters or a
by-product of the forward (embedding and embedding bags, grid_sample's gather, ctc_loss). A rule
that needs something from a higher layer gets it as an argument (SyncBatchNorm's all-reduce).
``autograd.Function`` is the user's API for custom ops, not a mechanism the package uses; the
other ``Node`` subclasses outside ops are graph machinery, not rules (the Function node, module
backward hooks).
"""

from . import common, inplace, scan, special, unary
from .common import normalize_dims, sum_to
from .elementwise import (
    add,
    cast,
    clone,
    compare,
    div,
    maximum,
    minimum,
    mul,
    pow,
    promote,
    rsub_number,
    sub,
    where,
)
from .indexing import index_put
from .movement import expand, getitem, permute, reshape, scatter_into_zeros
from .reduce import amax, linear, matmul2d, reduce_sum
from .shape import cat
from .softmax import log_softmax, softmax
from .unary import cos, exp, log, neg, relu, sigmoid, sin, tanh

__all__ = [
    "add", "amax", "cast", "clone", "compare", "cos", "div", "exp", "expand", "getitem", "linear",
    "log",
    "matmul2d", "maximum", "minimum", "mul", "neg", "normalize_dims", "permute", "pow", "promote",
    "reduce_sum", "relu", "reshape", "rsub_number", "scatter_into_zeros", "sigmoid", "sin", "sub",
    "sum_to", "tanh", "where", "index_put", "cat", "common", "inplace", "scan", "special", "unary",
    "softmax", "log_softmax",
]
