"""``tinygrad_lite.nn.init``: in-place initialisers with PyTorch's names and distributions,
drawing from the global generator (``tinygrad_lite.manual_seed``) unless given one."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._core.warnings import warn
from ..functions.generator import rng_of
from ..functions.torch_stream import draw_dtype
from ..tensor import Tensor

__all__ = [
    "calculate_gain", "uniform_", "normal_", "zeros_", "ones_", "constant_", "eye_",
    "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
    "trunc_normal_", "dirac_", "sparse_", "uniform", "normal", "constant", "eye", "dirac",
    "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse",
]


def _rng(generator: Any) -> Any:
    """The stream to draw from: ``generator``'s (a ``tl.Generator``) or the default one."""
    return rng_of(generator)


def _fill(tensor: Tensor, values: Any) -> Tensor:
    """Write ``values`` into ``tensor`` in place (no graph), bumping its version."""
    np.copyto(tensor._data, values, casting="unsafe")
    tensor._version_counter[0] += 1
    return tensor


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (PyTorch's table)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if not isinstance(slope, (int, float)) or isinstance(slope, bool):
            raise ValueError(f"negative_slope {slope} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    """``fan_in`` or ``fan_out`` of a weight (PyTorch's private helper, used by layers)."""
    return _fan(tensor, mode)


def _fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()  # (PyTorch accepts "FAN_IN" too)
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with U(a, b)."""
    return _fill(tensor, _rng(generator).uniform_as(a, b, tensor.shape,
                                                    draw_dtype(tensor._data.dtype)))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with N(mean, std^2)."""
    data = tensor._data
    return _fill(tensor, _rng(generator).normal_as(mean, std, data.shape, draw_dtype(data.dtype),
                                                   data.flags.c_contiguous))


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Any = None) -> Tensor:
    """Fill with N(mean, std^2) truncated to [a, b], drawn as PyTorch draws it: when [a, b]
    holds more than 30% of the mass, whole normal tensors redrawn where a value fell outside;
    else uniform candidates in [a, b] accepted against the density's peak."""
    def cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
             "distribution of values may be incorrect.")
    rng, dt, shape = _rng(generator), draw_dtype(tensor._data.dtype), tensor.shape
    if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
        low, high = float(np.asarray(a, dt)), float(np.asarray(b, dt))
        result = rng.normal_as(mean, std, shape, dt)
        while True:
            outside = (result < low) | (result > high)
            if not outside.any():
                break
            result = np.where(outside, rng.normal_as(mean, std, shape, dt), result)
        return _fill(tensor, result)
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def log_density(x: np.ndarray) -> np.ndarray:  # (in the tensor's dtype, as PyTorch)
        return np.square((x - mean) / std) * -0.5 - log_peak

    result = rng.uniform_as(a, b, shape, dt)
    pending = np.log(rng.uniform_as(0.0, 1.0, shape, dt)) > log_density(result)
    while pending.any():
        candidates = rng.uniform_as(a, b, shape, dt)
        result = np.where(pending, candidates, result)
        accept = np.log(rng.uniform_as(0.0, 1.0, shape, dt)) > log_density(candidates)
        pending = np.where(pending, accept, pending)
    return _fill(tensor, result)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with 0."""
    return _fill(tensor, 0)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with 1."""
    return _fill(tensor, 1)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    return _fill(tensor, val)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity matrix."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    return _fill(tensor, np.eye(rows, cols))


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))`` (Glorot)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """N(0, std^2) with ``std = gain * sqrt(2 / (fan_in + fan_out))`` (Glorot)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """U(-bound, bound) with ``bound = gain * sqrt(3 / fan)`` (He)."""
    if 0 in tensor.shape:
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """N(0, std^2) with ``std = gain / sqrt(fan)`` (He)."""
    if 0 in tensor.shape:
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """A (semi-)orthogonal matrix from the QR decomposition of a normal matrix, scaled."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    if tensor._data.dtype.itemsize < 4:  # PyTorch's CPU QR has no 16-bit kernel
        name = "Half" if tensor._data.dtype == np.float16 else "BFloat16"
        raise NotImplementedError(f'"geqrf_cpu" not implemented for \'{name}\'')
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _rng(generator).normal_as(0.0, 1.0, (rows, cols), draw_dtype(tensor._data.dtype))
    flat = flat.astype(np.float64)
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q *= np.sign(np.diag(r))  # make the decomposition unique (uniform over orthogonal matrices)
    if rows < cols:
        q = q.T
    return _fill(tensor, gain * q.reshape(tensor.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta: each of the first
    ``min(out/groups, in)`` output channels of a group passes its input channel through."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    n = min(per_group, sizes[1])
    values = np.zeros(tensor.shape)
    d = np.arange(n)
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        values[(g * per_group + d, d) + centre] = 1
    return _fill(tensor, values)


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """Fill a 2-D tensor from N(0, std^2) (from ``generator``) with a fraction ``sparsity`` of
    each column zeroed (rows chosen at random from the default generator, as PyTorch)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    values = _rng(generator).normal_as(0.0, std, tensor.shape, draw_dtype(tensor._data.dtype))
    # as PyTorch: per column, the rows of a random permutation's first num_zeros are zeroed;
    # its ``torch.randperm`` draws from the default generator even when one is given
    default = _rng(None)
    for col in range(cols):
        values[default.permutation(rows)[:num_zeros], col] = 0
    return _fill(tensor, values)


def _deprecated(new: Any) -> Any:
    """PyTorch's old initialiser names without the trailing underscore (they warn)."""
    old = new.__name__[:-1]

    def fn(*args: Any, **kwargs: Any) -> Any:
        warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new.__name__}`.",
             FutureWarning)
        return new(*args, **kwargs)

    fn.__name__ = old
    fn.__doc__ = f"Deprecated alias of ``{new.__name__}``."
    return fn


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
