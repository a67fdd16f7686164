"""tinygrad_lite: a small define-by-run autograd framework on NumPy with PyTorch's API."""

# The layers, bottom up; every import points down this list (tests/test_layering.py checks it):
#   dtypes, _core (tensor base, grad mode, graph, engine)  <  ops (primitives with their backward
#   rules)  <  functions (the tl.* API and composites)  <  tensor, _tensor (the public Tensor)  <
#   autograd (grad, Function, gradcheck, ...)  <  nn, optim, utils, serialization  <  viz  <  this.
import importlib as _importlib
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from . import _layout, _method_forms, _random_sampling, dtypes, functions, version
from ._constants import e, inf, nan, newaxis, pi
from ._core import moved_modules as _moved_modules
from ._core.allocator import tune_allocator
from ._core.device import device, get_default_device, set_default_device
from ._core.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from ._core.quiet import silence_numpy_warnings
from ._core.shared_storage import on_first_map as _on_first_map
from ._core.size import Size
from ._dtype_info import can_cast, finfo, iinfo, promote_types, result_type
from ._layout import *  # noqa: F403 - memory formats and layouts
from ._method_forms import *  # noqa: F403 - tl.is_signed(t), tl.detach_(t), ... (Tensor methods)
from ._random_sampling import *  # noqa: F403 - default_generator, binomial
from ._tensor.dlpack import from_dlpack, to_dlpack
from ._tensor.format import set_printoptions
from ._tensor.legacy import (
    BFloat16Tensor,
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
    set_default_tensor_type,
    typename,
)
from ._tensor.storage import TypedStorage, UntypedStorage, is_storage
from .dtypes import (
    DType,
    bfloat16,
    bool,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    set_default_dtype,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .functions import *  # noqa: F403 - the whole tl.* API (functions.__all__)
from .tensor import Tensor
from .version import __version__

if _TYPE_CHECKING:  # what loads lazily (see _LAZY_SUBMODULES), for type checkers and editors
    from . import (
        _dynamo,  # noqa: F401 - an attribute, not star-exported
        _inductor,  # noqa: F401 - an attribute, not star-exported
        _logging,  # noqa: F401 - an attribute, not star-exported
        accelerator,
        amp,
        autograd,
        backends,
        compiler,  # noqa: F401 - an attribute, not star-exported
        cpu,
        cuda,
        distributed,
        distributions,
        func,
        functional,
        jit,
        linalg,
        multiprocessing,
        nn,
        onnx,
        optim,
        profiler,
        quasirandom,
        random,
        return_types,
        serialization,  # noqa: F401 - an attribute, not star-exported
        signal,
        sparse,
        special,
        testing,
        types,
        utils,
        viz,
    )
    from ._nn_functional_forms import *  # noqa: F403
    from ._settings import *  # noqa: F403
    from .amp import GradScaler, autocast, get_autocast_dtype
    from .amp.state import (
        get_autocast_cpu_dtype,
        is_autocast_cache_enabled,
        is_autocast_cpu_enabled,
        is_autocast_enabled,
        set_autocast_cache_enabled,
        set_autocast_cpu_dtype,
        set_autocast_cpu_enabled,
        set_autocast_dtype,
        set_autocast_enabled,
    )
    from .compiler import compile  # noqa: A004 - PyTorch's name
    from .func import vmap
    from .random import thread_safe_generator
    from .serialization import load, save
    from .sparse import dsmm, hsmm, hspmm, saddmm, smm, sparse_coo_tensor, spmm, sspaddmm

# glibc keeps freed activation memory for the next step instead of unmapping it and faulting it
# in again (see _core/allocator.py: 35 % of a Transformer training step)
tune_allocator()

silence_numpy_warnings()  # PyTorch prints no floating-point warnings: see _core/quiet.py

# tl.multiprocessing loads lazily, but its pickling reducers (a shared tensor travels as a handle
# to the same memory, through any multiprocessing pickler) must be in place before a tensor can
# be shared: load it just before this process maps shared memory for the first time
_on_first_map(lambda: _importlib.import_module(".multiprocessing", __name__))



def _load_sparse_then(method: str) -> _Any:
    """``Tensor.<method>`` until ``tl.sparse`` loads: the sparse layout lives above the Tensor
    layer and attaches the real method when it loads, so the first call loads it and goes on."""
    def call(self: _Any, *args: _Any, **kwargs: _Any) -> _Any:
        _importlib.import_module(".sparse", __name__)
        return getattr(self, method)(*args, **kwargs)

    call.__name__ = method
    return call


for _method in ("to_sparse", "to_sparse_coo"):
    if not hasattr(Tensor, _method):
        setattr(Tensor, _method, _load_sparse_then(_method))

# pickles written before the package was regrouped name modules that are gone: answer those paths
# with the modules that hold their objects now (see _core/moved_modules.py)
_moved_modules.install()

# PyTorch's dtype aliases (int and float shadow the builtins in this namespace only, as torch's)
double, half, long, float = float64, float16, int64, float32
int, short = int32, int16  # noqa: A001
dtype = DType

# -- what loads on first use ---------------------------------------------------------------------
# ``import tinygrad_lite`` loads the core, the Tensor and the tl.* functions above. Everything else
# (nn, optim, the compiler, distributions, ...: 280 of the 360 modules) loads when a program
# first reaches for it (PEP 562 module ``__getattr__`` below), as one of the submodules here or
# as one of the names one of them defines. ``import tinygrad_lite.nn`` and ``from
# tinygrad_lite.optim import SGD`` are ordinary imports and need nothing from this table.
# tests/test_import.py checks that none of these load with the package, and that every name
# resolves to the object its module defines.
_LAZY_SUBMODULES = (
    "_dynamo", "_inductor", "_logging", "_nn_functional_forms", "_settings", "accelerator", "amp",
    "autograd", "backends", "compiler", "cpu", "cuda", "distributed", "distributions", "func",
    "functional", "jit", "linalg", "multiprocessing", "nn", "onnx", "optim", "overrides",
    "profiler", "quasirandom", "random", "return_types", "serialization", "signal", "sparse",
    "special", "storage", "testing", "types", "utils", "viz",
)

# submodule -> the tl.* names it defines (what ``from .submodule import ...`` used to bind here)
_LAZY_NAMES_BY_MODULE = {
    "amp": ("GradScaler", "autocast", "get_autocast_dtype"),
    "amp.state": (
        "get_autocast_cpu_dtype", "is_autocast_cache_enabled", "is_autocast_cpu_enabled",
        "is_autocast_enabled", "set_autocast_cache_enabled", "set_autocast_cpu_dtype",
        "set_autocast_cpu_enabled", "set_autocast_dtype", "set_autocast_enabled",
    ),
    "compiler": ("compile",),
    "func": ("vmap",),
    "random": ("thread_safe_generator",),
    "serialization": ("load", "save"),
    "sparse": (
        "dsmm", "hsmm", "hspmm", "saddmm", "smm", "sparse_coo_tensor", "spmm", "sspaddmm",
    ),
    # PyTorch's torch.* forms of nn.functional (its __all__)
    "_nn_functional_forms": (
        "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
        "convolution", "dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_dropout",
        "feature_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "batch_norm",
        "layer_norm", "group_norm", "instance_norm", "rms_norm", "embedding", "embedding_bag",
        "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "avg_pool1d",
        "adaptive_avg_pool1d", "adaptive_max_pool1d", "pixel_shuffle", "pixel_unshuffle",
        "channel_shuffle", "rrelu", "rrelu_", "selu", "selu_", "celu", "celu_", "threshold",
        "threshold_", "bilinear", "cosine_similarity", "pairwise_distance", "pdist", "kl_div",
        "binary_cross_entropy_with_logits", "cosine_embedding_loss", "hinge_embedding_loss",
        "margin_ranking_loss", "triplet_margin_loss", "poisson_nll_loss", "ctc_loss",
    ),
    # thread counts, determinism, anomaly mode, matmul precision, warnings (its __all__)
    "_settings": (
        "set_num_threads", "get_num_threads", "use_deterministic_algorithms",
        "are_deterministic_algorithms_enabled", "set_num_interop_threads",
        "get_num_interop_threads", "is_deterministic_algorithms_warn_only_enabled",
        "set_deterministic_debug_mode", "get_deterministic_debug_mode", "is_anomaly_enabled",
        "is_anomaly_check_nan_enabled", "set_anomaly_enabled", "set_float32_matmul_precision",
        "get_float32_matmul_precision", "set_flush_denormal", "set_warn_always",
        "is_warn_always_enabled",
    ),
}
_LAZY_NAMES = {name: module for module, names in _LAZY_NAMES_BY_MODULE.items()
               for name in names}


def __getattr__(name: str) -> _Any:
    """A lazily loaded submodule or name, imported on first access (PEP 562)."""
    if name in _LAZY_SUBMODULES:
        return _importlib.import_module(f".{name}", __name__)
    module = _LAZY_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later lookups find it without coming here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY_SUBMODULES, *_LAZY_NAMES})


__all__ = [
    "Tensor", "autograd", "dtypes", "DType", "no_grad", "enable_grad", "set_grad_enabled",
    "is_grad_enabled", "bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32",
    "uint64", "float16", "float32", "bfloat16", "float64", "double", "half", "long", "float",
    "get_default_dtype", "functions",
    "nn", "optim", "utils", "viz", "save", "load", "amp", "autocast", "accelerator", "backends",
    "cuda", "distributed", "distributions", "func", "jit", "linalg", "random", "device", "Size",
    "multiprocessing", "return_types", "sparse", "special", "sparse_coo_tensor", "spmm",
    "smm", "sspaddmm", "saddmm", "hspmm", "hsmm", "dsmm",
    "inference_mode", "is_inference_mode_enabled", "set_default_dtype", "set_printoptions",
    "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
    "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor", "int", "short", "dtype", "finfo",
    "iinfo", "promote_types", "can_cast", "result_type", "pi", "e", "inf", "nan", "newaxis",
    "compile",
    "get_default_device", "set_default_device", "vmap", "thread_safe_generator",
    *functions.__all__,
    # PyTorch's torch.* forms of nn.functional, the odds and ends, and the process switches
    *_LAZY_NAMES_BY_MODULE["_nn_functional_forms"], *_layout.__all__, *_method_forms.__all__,
    *_random_sampling.__all__, "typename", "set_default_tensor_type", "GradScaler",
    *_LAZY_NAMES_BY_MODULE["_settings"], "version", "__version__", "cpu",
    "get_autocast_dtype",
    "get_autocast_cpu_dtype", "is_autocast_cache_enabled", "is_autocast_cpu_enabled",
    "is_autocast_enabled", "set_autocast_cache_enabled", "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled", "set_autocast_dtype", "set_autocast_enabled",
    "testing", "signal", "quasirandom", "profiler", "UntypedStorage", "TypedStorage",
    "is_storage", "types", "from_dlpack", "to_dlpack", "onnx", "functional",
]
