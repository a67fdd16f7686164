"""More in-place methods (``x.addmm_(a, b)``, ``x.put_(i, v)``, ``x.resize_(4)`` ...) and the
list of PyTorch's ``torch.<name>_`` in-place functions (``torch.sqrt_(x)`` is ``x.sqrt_()``).
Value-changing ones store their out-of-place result through ``ops.inplace.apply`` (version bump,
leaf check, graph rebase, as every in-place method); the shape-changing ones (``resize_``,
``as_strided_``) swap the tensor's array and refuse tensors that require grad."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.grad_mode import grad_state
from .._core.size import Size
from .._core.tensor_base import TensorBase
from ..ops import inplace
from . import indexing_more, linalg, math_more
from .mathops import float_power, polygamma

__all__: list[str] = []  # the Tensor methods defined here (filled below)

# PyTorch's torch.* in-place functions, each the Tensor method of the same name (defined here
# or in inplace.py / inplace_extra.py): they become tl.* names (functions/__init__.py)
TORCH_INPLACE = [
    "abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
    "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_max_", "clamp_min_",
    "cos_", "cosh_", "deg2rad_", "erf_", "erfc_", "exp2_", "expm1_", "fill_", "fix_", "floor_",
    "frac_", "gcd_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_",
    "nan_to_num_", "negative_", "rad2deg_", "reciprocal_", "round_", "rsqrt_", "sigmoid_",
    "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "xlogy_", "zero_",
    "addmv_", "conj_physical_", "i0_", "as_strided_", "resize_as_",
]


def _store(name: str, fn: Callable) -> Callable:
    """The in-place method ``name``: ``fn(self, *args)`` written into ``self``."""

    def method(input: Any, *args: Any, **kwargs: Any) -> Any:
        return inplace.apply(input, name, lambda s: fn(s, *args, **kwargs))

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In place: ``{name[:-1]}`` written into the tensor."
    return method


_SIMPLE: dict[str, Callable] = {
    "addmm_": linalg.addmm, "addmv_": linalg.addmv, "addr_": linalg.addr,
    "addbmm_": linalg.addbmm, "baddbmm_": linalg.baddbmm,
    "bitwise_left_shift_": math_more.bitwise_left_shift,
    "bitwise_right_shift_": math_more.bitwise_right_shift, "i0_": math_more.i0,
    "igamma_": math_more.igamma, "igammac_": math_more.igammac,
    "put_": indexing_more.put, "index_reduce_": indexing_more.index_reduce,
}
for _name, _fn in _SIMPLE.items():
    globals()[_name] = _store(_name, _fn)
    __all__.append(_name)


def float_power_(input: TensorBase, exponent: Any) -> TensorBase:
    """In place: ``input ** exponent`` computed in float64, so ``input`` must be float64."""
    if input._data.dtype != np.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {input.dtype} but the "
                           "operation's result requires dtype Double (float64); use "
                           "float_power or convert with .double() first")
    return inplace.apply(input, "float_power_", lambda s: float_power(s, exponent))


def polygamma_(input: TensorBase, n: int) -> TensorBase:
    """In place: ``polygamma(n, input)``."""
    return inplace.apply(input, "polygamma_", lambda s: polygamma(n, s))


def conj_physical_(input: TensorBase) -> TensorBase:
    """In place: the complex conjugate, which leaves a real tensor as it is."""
    return input


def _refuse_grad(input: TensorBase, op: str) -> None:
    if input._requires_grad:
        raise RuntimeError(f"{op}: cannot resize variables that require grad (shape "
                           f"{tuple(input.shape)}); use the out-of-place reshape/as_strided")


def resize_(input: TensorBase, *size: Any, memory_format: Any = None) -> TensorBase:
    """In place: this tensor takes shape ``size``, keeping its elements in row-major order as
    far as they go; new elements are uninitialised (zeros here)."""
    shape = tuple(int(n) for n in (size[0] if len(size) == 1 and isinstance(
        size[0], (tuple, list, Size)) else size))
    if any(n < 0 for n in shape):
        raise RuntimeError(f"resize_: Trying to create tensor with negative dimension: "
                           f"{list(shape)}")
    _refuse_grad(input, "resize_")
    data = input._data
    count = int(np.prod(shape, dtype=np.int64))
    if count == data.size:
        input._data = data.reshape(shape)
    else:
        new = np.zeros(count, data.dtype)
        keep = min(count, data.size)
        new[:keep] = data.reshape(-1)[:keep]
        input._data = new.reshape(shape)
    input._version_counter[0] += 1
    return input


def resize_as_(input: TensorBase, the_template: TensorBase, *,
               memory_format: Any = None) -> TensorBase:
    """In place: ``resize_`` to the shape of ``the_template``."""
    return resize_(input, tuple(the_template.shape))


def as_strided_(input: TensorBase, size: Any, stride: Any,
                storage_offset: int | None = None) -> TensorBase:
    """In place: this tensor becomes ``as_strided(size, stride, storage_offset)`` of itself
    (a tensor that requires grad is refused while grad mode is on)."""
    if grad_state.enabled and input._requires_grad:
        raise RuntimeError("as_strided_: changing the shape of a tensor that requires grad in "
                           "place is not supported; use the out-of-place as_strided")
    input._data = indexing_more.as_strided(input, size, stride, storage_offset)._data
    input._version_counter[0] += 1
    return input


__all__ += ["float_power_", "polygamma_", "conj_physical_", "resize_", "resize_as_",
            "as_strided_"]
