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
| ``mathops.py`` | asin/sinh/..., erf/lgamma/digamma (``ops/special.py``), logaddexp, fmod, ... |
| ``inplace.py`` | ``add_``, ``relu_``, ``copy_``, ``fill_``, ... (store through ``ops.inplace``) |
| ``numeric.py`` | clone/detach, renorm, frexp, vander, unravel_index, matrix_exp |
| ``linalg_lu.py``, ``linalg_more.py`` | LU family, triangular_solve, cholesky; geqrf/orgqr/ormqr |
| ``scatters.py`` | index_put, diagonal/select/slice_scatter (the index_put primitive) |
| ``math_more.py`` | bit shifts, i0, igamma/igammac, angle, hardshrink, prelu, conj_physical |
| ``indexing_more.py`` | put, index_reduce, nonzero_static, as_strided(_scatter), unsafe_split |
| ``inplace_more.py`` | addmm_ & co, put_, resize_, ...; ``TORCH_INPLACE``: torch.sqrt_ & co |
| ``lowrank.py`` | svd_lowrank, pca_lowrank (randomized range finder) |
| ``linalg_lobpcg.py`` | lobpcg (exact: Cholesky of B, then eigh) |
| ``tensor_hash.py`` | hash_tensor (xor of the elements' 64-bit patterns) |
| ``torch_only.py`` | tl.* only: range, scalar_tensor, fill, asarray, gradient, histogramdd, ... |

Adding an op takes three places: its code (a composite in one of these modules, or a primitive
with its backward rule in ``ops/``, imported by one of them), its name in that module's
``__all__`` (which makes it ``tl.name`` and, when it takes a tensor first, ``Tensor.name``: see
``TENSOR_METHODS``), and a row in ``tests/op_catalog/`` (the module of its op family).
"""

from . import (
    api_options,
    basic,
    creation,
    indexing,
    indexing_more,
    inplace,
    inplace_extra,
    inplace_more,
    linalg,
    linalg_lobpcg,
    linalg_lu,
    linalg_more,
    lowrank,
    math_more,
    mathops,
    nan_reductions,
    numeric,
    pointwise,
    quantiles,
    reduction,
    scatters,
    shape,
    shape_extra,
    signal_windows,
    sorting,
    tensor_hash,
    torch_only,
)
from .basic import *  # noqa: F403
from .creation import *  # noqa: F403
from .indexing import *  # noqa: F403
from .indexing_more import *  # noqa: F403
from .inplace import *  # noqa: F403
from .inplace import clamp_, clip_, exp_, neg_, relu_
from .inplace_extra import *  # noqa: F403 - x.sqrt_() & co, methods only
from .inplace_more import *  # noqa: F403 - x.addmm_() & co, methods (TORCH_INPLACE: tl.* too)
from .linalg import *  # noqa: F403
from .linalg_lobpcg import *  # noqa: F403
from .linalg_lu import *  # noqa: F403
from .linalg_more import *  # noqa: F403
from .lowrank import *  # noqa: F403
from .math_more import *  # noqa: F403
from .mathops import *  # noqa: F403
from .nan_reductions import *  # noqa: F403
from .numeric import *  # noqa: F403
from .pointwise import *  # noqa: F403
from .quantiles import *  # noqa: F403
from .reduction import *  # noqa: F403
from .scatters import *  # noqa: F403
from .shape import *  # noqa: F403
from .shape_extra import *  # noqa: F403
from .signal_windows import *  # noqa: F403
from .sorting import *  # noqa: F403
from .tensor_hash import *  # noqa: F403
from .torch_only import *  # noqa: F403

# tl.* names: everything the themed modules export, except the in-place helpers that PyTorch
# has only as methods.
__all__ = [
    *basic.__all__, *creation.__all__, *indexing.__all__, *pointwise.__all__,
    *reduction.__all__, *shape.__all__, *mathops.__all__, *sorting.__all__,
    *shape_extra.__all__, *linalg.__all__, *nan_reductions.__all__, *quantiles.__all__,
    *linalg_lu.__all__, *linalg_more.__all__,
    *signal_windows.__all__, *numeric.__all__, *scatters.__all__, *math_more.__all__,
    *indexing_more.__all__, *torch_only.__all__, *inplace_more.TORCH_INPLACE,
    *lowrank.__all__, *tensor_hash.__all__, *linalg_lobpcg.__all__,
    "relu_", "clamp_",
    "clip_", "neg_",
    "exp_",
]

# Names bound as Tensor methods, ``x.name(*args)`` being ``name(x, *args)``: every tl.* function
# that takes a tensor first, and the in-place functions. tensor.py binds each one it does not
# write out itself (``x.reshape(2, 3)``, ``x.where(cond, y)``, ... whose arguments differ).
# PyTorch's argument conventions, applied by name and signature (see api_options.py): NumPy's
# axis/keepdims spellings wherever there is a dim/keepdim, and out= on the functions PyTorch
# gives it to (the creation functions take out's dtype as their default).
_OUT_CREATION = {"arange", "empty", "eye", "full", "linspace", "logspace", "ones", "rand",
                 "randint", "randn", "randperm", "zeros", "range", "scalar_tensor"}
_OUT = {
    *_OUT_CREATION, "abs", "absolute", "acos", "acosh", "add", "addbmm", "addmm", "addmv",
    "addr", "all", "amax", "amin", "any", "arccos", "arccosh", "arcsin", "arcsinh", "arctan",
    "arctanh", "argmax", "argmin", "asin", "asinh", "atan", "atan2", "atanh", "baddbmm",
    "bernoulli", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bmm", "bucketize",
    "cat", "ceil", "chain_matmul", "cholesky_inverse", "cholesky_solve", "clamp", "clip",
    "column_stack", "concat", "concatenate", "copysign", "cos", "cosh", "cross", "cummax",
    "cummin", "cumprod", "cumsum", "deg2rad", "diag", "diff", "digamma", "div", "dot",
    "dstack", "eq", "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "fix", "float_power",
    "floor", "floor_divide", "fmod", "frac", "gather", "ge", "ger", "gt", "heaviside", "histc",
    "hstack", "hypot", "index_add", "index_copy", "index_select", "inner", "inverse",
    "isneginf", "isposinf", "kron", "kthvalue", "le", "lerp", "lgamma", "log", "log10",
    "log1p", "log2", "log_softmax", "logaddexp", "logaddexp2", "logcumsumexp", "logical_and",
    "logical_not", "logical_or", "logical_xor", "logit", "logsumexp", "lt", "masked_select",
    "matmul", "matrix_power", "max", "maximum", "mean", "median", "min", "minimum", "mm",
    "mode", "msort", "mul", "divide", "histogram", "multinomial", "mv", "nan_to_num",
    "nanmean", "nanmedian",
    "nansum", "narrow_copy", "ne", "neg", "negative", "nonzero", "norm", "normal", "outer",
    "polygamma", "pow", "prod", "rad2deg", "reciprocal", "remainder", "round", "row_stack",
    "renorm", "rsqrt", "scatter", "scatter_add", "scatter_reduce", "searchsorted", "sgn",
    "sigmoid",
    "sign", "signbit", "sin", "sinc", "sinh", "softmax", "sort", "sqrt", "square", "stack",
    "std", "sub", "sum", "take", "take_along_dim", "tan", "tanh", "tensordot", "topk", "tril",
    "triu", "true_divide", "trunc", "var", "vdot", "vstack", "where", "xlogy",
    # functions/math_more.py, indexing_more.py and torch_only.py
    "angle", "bitwise_left_shift", "bitwise_right_shift", "frobenius_norm", "hardshrink", "i0",
    "igamma", "igammac", "index_reduce", "nonzero_static", "nuclear_norm", "put", "range",
    "scalar_tensor", "hash_tensor",
}


def _apply_conventions() -> None:
    """Rebind each exported function here with the conventions it takes (one wrapper each)."""
    names = globals()
    for name in __all__:
        fn = names[name]
        if not callable(fn) or isinstance(fn, type):
            continue
        names[name] = api_options.conventions(fn, out=name in _OUT,
                                              creation=name in _OUT_CREATION)


_apply_conventions()

# (vander, unravel_index, lu_unpack and the low-rank SVDs take a tensor first, but PyTorch has
# no such methods)
# (lu is a method of its own: Tensor.lu returns a plain tuple, see _tensor/linalg.py)
_NOT_METHODS = {"cat", "concat", "concatenate", "stack", "einsum", "setitem", "broadcast_shapes",
                "broadcast_tensors", "vander", "unravel_index", "lu_unpack", "lu",
                *creation.__all__, *signal_windows.__all__, *torch_only.__all__, *lowrank.__all__,
                *linalg_lobpcg.__all__}
TENSOR_METHODS = [name for name in (*__all__, *inplace.__all__, *inplace_extra.__all__,
                                    *inplace_more.__all__)
                  if name not in _NOT_METHODS]
