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
| ``inplace.py`` | ``add_``, ``relu_``, ``copy_``, ``resize_``, ...; the made ``x.sqrt_()`` & co |
| ``numeric.py`` | clone/detach, renorm, frexp, vander, unravel_index, matrix_exp |
| ``linalg/`` | linear algebra by concept: products, inverse, solve, lu, ldl, norms, ... |
| ``scatters.py`` | index_put, diagonal/select/slice_scatter, as_strided(_scatter) |
| ``histograms.py`` | histc, histogram, histogramdd |
| ``conventions.py`` | PyTorch's argument conventions: NumPy's axis/keepdims, ``out=`` |
| ``tensor_hash.py`` | hash_tensor (xor of the elements' 64-bit patterns) |
| ``registry.py`` | what each public function declares: method, out=, in-place variant |

Adding an op takes three places: its code (a composite in one of these modules, or a primitive
with its backward rule in ``ops/``, imported by one of them) with its declaration beside it
(``@public(out=True, inplace=True)``: see ``registry.py``; none when the defaults fit), its name
in that module's ``__all__`` (which makes it ``tl.name`` and, unless it declares
``method=False``, ``Tensor.name``), and a row in ``tests/op_catalog/``. No other list names
it: ``TENSOR_METHODS``, the ``out=`` wrappers and the in-place variants are derived here from
the declarations.
"""

from . import (
    basic,
    conventions,
    creation,
    histograms,
    indexing,
    inplace,
    linalg,
    mathops,
    nan_reductions,
    numeric,
    pointwise,
    quantiles,
    reduction,
    registry,
    scatters,
    shape,
    signal_windows,
    sorting,
    tensor_hash,
)
from .basic import *  # noqa: F403
from .creation import *  # noqa: F403
from .histograms import *  # noqa: F403
from .indexing import *  # noqa: F403
from .inplace import *  # noqa: F403
from .linalg.decompositions import *  # noqa: F403
from .linalg.distance import *  # noqa: F403
from .linalg.eigen import *  # noqa: F403
from .linalg.householder import *  # noqa: F403
from .linalg.inverse import *  # noqa: F403
from .linalg.ldl import *  # noqa: F403
from .linalg.lowrank import *  # noqa: F403
from .linalg.lu import *  # noqa: F403
from .linalg.matrices import *  # noqa: F403
from .linalg.norms import *  # noqa: F403
from .linalg.products import *  # noqa: F403
from .linalg.solve import *  # noqa: F403
from .mathops import *  # noqa: F403
from .nan_reductions import *  # noqa: F403
from .numeric import *  # noqa: F403
from .pointwise import *  # noqa: F403
from .quantiles import *  # noqa: F403
from .reduction import *  # noqa: F403
from .scatters import *  # noqa: F403
from .shape import *  # noqa: F403
from .signal_windows import *  # noqa: F403
from .sorting import *  # noqa: F403
from .tensor_hash import *  # noqa: F403

# The themed modules whose __all__ names are public: each name is what it declares (registry.py)
_MODULES = (basic, creation, indexing, pointwise, reduction, shape, mathops, sorting, histograms,
            linalg.inverse, linalg.products, linalg.solve, linalg.norms, linalg.decompositions,
            linalg.matrices, linalg.distance, nan_reductions, quantiles, linalg.lu,
            linalg.householder, linalg.ldl, signal_windows, numeric, scatters, linalg.lowrank,
            tensor_hash, linalg.eigen, inplace)


def _public() -> tuple[list[str], list[str]]:
    """The tl.* names and the Tensor method names, from the declarations; the in-place variants
    that names declare are made here, from their out-of-place function (before any wrapper)."""
    names = globals()
    functions: list[str] = []
    methods: list[str] = []
    variants: list[str] = []
    for module in _MODULES:
        for name in module.__all__:
            declared = registry.declaration(name)
            if declared.function and name not in functions:
                functions.append(name)
            if declared.method and name not in methods:
                methods.append(name)
            if declared.inplace is not None and name + "_" not in names:
                make = inplace.reshaped if declared.inplace == "shape" else inplace.stored
                names[name + "_"] = make(name, getattr(module, name))
                variants.append(name + "_")
                if declared.torch_inplace:
                    functions.append(name + "_")
    return functions, methods + variants


# tl.* names: everything the themed modules export, except what declares function=False (the
# in-place methods that PyTorch has only as methods); TENSOR_METHODS: the names bound as Tensor
# methods, ``x.name(*args)`` being ``name(x, *args)``: every tl.* function that takes a tensor
# first, and the in-place methods. tensor.py binds each one it does not write out itself
# (``x.reshape(2, 3)``, ``x.where(cond, y)``, ... whose arguments differ).
__all__, TENSOR_METHODS = _public()


def _apply_conventions() -> None:
    """Rebind each exported function here with PyTorch's argument conventions (see
    conventions.py): NumPy's axis/keepdims spellings wherever there is a dim/keepdim, and out=
    on the functions that declare it (creation functions take out's dtype as their default).
    One wrapper each."""
    names = globals()
    for name in __all__:
        fn = names[name]
        if not callable(fn) or isinstance(fn, type):
            continue
        declared = registry.declaration(name)
        names[name] = conventions.conventions(fn, out=declared.out, creation=declared.creation)


_apply_conventions()
