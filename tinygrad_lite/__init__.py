"""tinygrad_lite: a small define-by-run autograd framework on NumPy with PyTorch's API."""

# The layers, bottom up; every import points down this list (tests/test_layering.py checks it):
#   dtypes, _core (tensor base, grad mode, graph, engine)  <  ops (primitives with their backward
#   rules)  <  functions (the tl.* API and composites)  <  tensor, _format (the public Tensor)  <
#   autograd (grad, Function, gradcheck, ...)  <  nn, optim, utils, serialization  <  viz  <  this.
from . import (  # torch._dynamo, _inductor, _logging: attributes, not star-exported
    _dynamo,  # noqa: F401
    _inductor,  # noqa: F401
    _logging,  # noqa: F401
    _torch_aliases,
    _torch_misc,
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
from ._dtype_info import (
    can_cast,
    e,
    finfo,
    iinfo,
    inf,
    nan,
    newaxis,
    pi,
    promote_types,
    result_type,
)
from ._runtime import (
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    get_num_interop_threads,
    get_num_threads,
    is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode,
    set_num_interop_threads,
    set_num_threads,
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
)
from ._tensor.storage import TypedStorage, UntypedStorage, is_storage
from ._torch_aliases import *  # noqa: F403 - torch.conv2d, torch.dropout, ... (nn.functional)
from ._torch_misc import *  # noqa: F403 - memory formats, layouts, typename, switches, ...
from .amp import autocast, get_autocast_dtype
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
    *_torch_aliases.__all__, *_torch_misc.__all__, "version", "__version__", "cpu",
    "get_deterministic_debug_mode", "set_deterministic_debug_mode",
    "is_deterministic_algorithms_warn_only_enabled", "get_autocast_dtype",
    "get_autocast_cpu_dtype", "is_autocast_cache_enabled", "is_autocast_cpu_enabled",
    "is_autocast_enabled", "set_autocast_cache_enabled", "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled", "set_autocast_dtype", "set_autocast_enabled",
    "testing", "signal", "quasirandom", "profiler", "UntypedStorage", "TypedStorage",
    "is_storage", "types", "from_dlpack", "to_dlpack", "onnx", "functional",
]
