"""tinygrad_lite: a small define-by-run autograd framework on NumPy with PyTorch's API."""

# The layers, bottom up; every import points down this list (tests/test_layering.py checks it):
#   dtypes, _core (tensor base, grad mode, graph, engine)  <  ops (primitives with their backward
#   rules)  <  functions (the tl.* API and composites)  <  tensor, _format (the public Tensor)  <
#   autograd (grad, Function, gradcheck, ...)  <  nn, optim, utils, serialization  <  viz  <  this.
from . import (  # torch._dynamo, _inductor, _logging: attributes, not star-exported
    _dynamo,  # noqa: F401
    _inductor,  # noqa: F401
    _layout,
    _logging,  # noqa: F401
    _method_forms,
    _nn_functional_forms,
    _random_sampling,
    accelerator,
    amp,
    autograd,
    backends,
    cpu,
    cuda,
    distributed,
    distributions,
    dtypes,
    func,
    functional,
    functions,
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
    signal,
    sparse,
    special,
    testing,
    types,
    utils,
    version,
    viz,
)
from ._constants import e, inf, nan, newaxis, pi
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
from ._core.size import Size
from ._dtype_info import can_cast, finfo, iinfo, promote_types, result_type
from ._layout import *  # noqa: F403 - memory formats and layouts
from ._method_forms import *  # noqa: F403 - tl.is_signed(t), tl.detach_(t), ... (Tensor methods)
from ._nn_functional_forms import *  # noqa: F403 - torch.conv2d, torch.dropout, ... (nn.functional)
from ._random_sampling import *  # noqa: F403 - default_generator, binomial
from ._settings import (
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    get_float32_matmul_precision,
    get_num_interop_threads,
    get_num_threads,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    is_deterministic_algorithms_warn_only_enabled,
    is_warn_always_enabled,
    set_anomaly_enabled,
    set_deterministic_debug_mode,
    set_float32_matmul_precision,
    set_flush_denormal,
    set_num_interop_threads,
    set_num_threads,
    set_warn_always,
    use_deterministic_algorithms,
)
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
from .func import vmap
from .functions import *  # noqa: F403 - the whole tl.* API (functions.__all__)
from .random import thread_safe_generator
from .serialization import load, save
from .sparse import dsmm, hsmm, hspmm, saddmm, smm, sparse_coo_tensor, spmm, sspaddmm
from .tensor import Tensor
from .version import __version__

# glibc keeps freed activation memory for the next step instead of unmapping it and faulting it
# in again (see _core/allocator.py: 35 % of a Transformer training step)
tune_allocator()

silence_numpy_warnings()  # PyTorch prints no floating-point warnings: see _core/quiet.py

# PyTorch's dtype aliases (int and float shadow the builtins in this namespace only, as torch's)
double, half, long, float = float64, float16, int64, float32
int, short = int32, int16  # noqa: A001
dtype = DType

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
    "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor", "set_num_threads", "get_num_threads",
    "set_num_interop_threads", "get_num_interop_threads", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "int", "short", "dtype", "finfo", "iinfo",
    "promote_types", "can_cast", "result_type", "pi", "e", "inf", "nan", "newaxis", "compile",
    "get_default_device", "set_default_device", "vmap", "thread_safe_generator",
    *functions.__all__,
    # PyTorch's torch.* forms of nn.functional, the odds and ends, and the process switches
    *_nn_functional_forms.__all__, *_layout.__all__, *_method_forms.__all__,
    *_random_sampling.__all__, "typename", "set_default_tensor_type", "GradScaler",
    "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_anomaly_enabled",
    "set_float32_matmul_precision", "get_float32_matmul_precision", "set_flush_denormal",
    "set_warn_always", "is_warn_always_enabled", "version", "__version__", "cpu",
    "get_deterministic_debug_mode", "set_deterministic_debug_mode",
    "is_deterministic_algorithms_warn_only_enabled", "get_autocast_dtype",
    "get_autocast_cpu_dtype", "is_autocast_cache_enabled", "is_autocast_cpu_enabled",
    "is_autocast_enabled", "set_autocast_cache_enabled", "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled", "set_autocast_dtype", "set_autocast_enabled",
    "testing", "signal", "quasirandom", "profiler", "UntypedStorage", "TypedStorage",
    "is_storage", "types", "from_dlpack", "to_dlpack", "onnx", "functional",
]
