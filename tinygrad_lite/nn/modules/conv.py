"""PyTorch's ``torch.nn.modules.conv``: Conv1d/2d/3d, ConvTranspose1d/2d/3d and their lazy
forms (in_channels inferred at the first forward)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import dtypes
from ..._core.grad_mode import no_grad
from ..._core.tensor_base import TensorBase
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from .utils import _ntuple

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
           "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d"]


_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    """What the convolutions share: arguments, weight and bias, initialisation, repr."""

    _nd = 2
    transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", output_padding: Any = 0, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"in_channels ({in_channels}) and out_channels ({out_channels}) "
                             f"must be divisible by groups ({groups})")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {list(_PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        if padding_mode != "zeros" and self.transposed:
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{type(self).__name__}")
        n = self._nd
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = _ntuple(n)(kernel_size), _ntuple(n)(stride)
        if isinstance(padding, str):  # checked here, as PyTorch, not at the first call
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{{'same', 'valid'}}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        self.padding = padding if isinstance(padding, str) else _ntuple(n)(padding)
        self.dilation, self.output_padding = _ntuple(n)(dilation), _ntuple(n)(output_padding)
        self.padding_mode = padding_mode
        dt = dtypes.default_float_np(dtype)
        if self._lazy:  # shapes wait for the first input (see _LazyConvMixin)
            self.weight: Parameter = UninitializedParameter(dtype=dt)
            if bias:
                self.bias: Parameter | None = UninitializedParameter(dtype=dt)
            else:
                self.register_parameter("bias", None)
        else:
            self._make_parameters(bias, dt)

    _lazy = False

    def _make_parameters(self, bias: bool, dt: np.dtype) -> None:
        """Allocate weight (and bias) for the known channels and initialise them."""
        in_channels, out_channels, groups = self.in_channels, self.out_channels, self.groups
        shape = ((in_channels, out_channels // groups) if self.transposed
                 else (out_channels, in_channels // groups)) + self.kernel_size
        self.weight = Parameter(np.empty(shape, dt))
        if bias:
            self.bias = Parameter(np.empty((out_channels,), dt))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default: kaiming_uniform_(a=sqrt(5)) weight, U(+-1/sqrt(fan_in)) bias."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        """The channels, kernel size and the arguments that differ from the defaults."""
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * self._nd:
            s += f", padding={self.padding}"  # PyTorch prints padding=same unquoted
        if self.dilation != (1,) * self._nd:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self._nd:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:  # before padding_mode, as PyTorch prints them
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _padded(self, input: TensorBase) -> tuple[TensorBase, Any]:
        """The input and the padding to convolve it with: as given for ``padding_mode="zeros"``,
        else the input padded by ``F.pad`` in that mode and no further padding (PyTorch's
        ``_reversed_padding_repeated_twice``; ``"same"`` splits odd totals to the right)."""
        if self.padding_mode == "zeros":
            return input, self.padding
        pads: list[int] = []
        for i in reversed(range(self._nd)):
            if self.padding == "valid":
                before = after = 0
            elif self.padding == "same":
                total = self.dilation[i] * (self.kernel_size[i] - 1)
                before, after = total // 2, total - total // 2
            else:
                before = after = int(self.padding[i])
            pads += [before, after]
        return F.pad(input, tuple(pads), mode=self.padding_mode), 0


class Conv1d(_ConvNd):
    """1-D convolution over (N, C_in, L) input."""

    _nd = 1

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, 0, device, dtype)

    def forward(self, input: TensorBase) -> TensorBase:
        """The convolution of the input."""
        input, padding = self._padded(input)
        return F.conv1d(input, self.weight, self.bias, self.stride, padding, self.dilation,
                        self.groups)


class Conv2d(_ConvNd):
    """2-D convolution over (N, C_in, H, W) input (padding: int, pair, 'same' or 'valid')."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, 0, device, dtype)

    def forward(self, input: TensorBase) -> TensorBase:
        """The convolution of the input."""
        input, padding = self._padded(input)
        return F.conv2d(input, self.weight, self.bias, self.stride, padding, self.dilation,
                        self.groups)


class Conv3d(_ConvNd):
    """3-D convolution over (N, C_in, D, H, W) input (padding: int, triple, 'same' or 'valid')."""

    _nd = 3

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, 0, device, dtype)

    def forward(self, input: TensorBase) -> TensorBase:
        """The convolution of the input."""
        input, padding = self._padded(input)
        return F.conv3d(input, self.weight, self.bias, self.stride, padding, self.dilation,
                        self.groups)


class ConvTranspose1d(_ConvNd):
    """1-D transposed convolution; weight (C_in, C_out / groups, k)."""

    _nd = 1
    transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, output_padding, device, dtype)

    def _output_padding(self, input: TensorBase, output_size: Any) -> tuple:
        """``output_padding``, or the one that makes the output ``output_size`` (the spatial
        sizes, optionally led by the batch and channel sizes). A stride above 1 leaves the
        output size ambiguous; this picks among the ``stride`` valid sizes."""
        if output_size is None:
            return tuple(self.output_padding)
        nd = self._nd
        lead = input.ndim - nd
        wanted = [int(v) for v in output_size]
        if len(wanted) == lead + nd:
            wanted = wanted[lead:]
        if len(wanted) != nd:
            raise ValueError(f"{type(self).__name__}: for {nd}-D input, output_size must have "
                             f"{nd} or {lead + nd} elements (got {len(output_size)})")
        smallest = [(input.shape[lead + d] - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(nd)]
        largest = [low + self.stride[d] - 1 for d, low in enumerate(smallest)]
        if any(not low <= size <= high for size, low, high in zip(wanted, smallest, largest)):
            raise ValueError(f"{type(self).__name__}: requested an output size of {wanted}, but "
                             f"valid sizes range from {smallest} to {largest} (for an input of "
                             f"{list(input.shape[lead:])})")
        return tuple(size - low for size, low in zip(wanted, smallest))

    def forward(self, input: TensorBase, output_size: Any = None) -> TensorBase:
        """The transposed convolution of the input (of ``output_size``, when given)."""
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


class ConvTranspose2d(ConvTranspose1d):
    """2-D transposed convolution; weight (C_in, C_out / groups, kh, kw)."""

    _nd = 2

    def forward(self, input: TensorBase, output_size: Any = None) -> TensorBase:
        """The transposed convolution of the input (of ``output_size``, when given)."""
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


class ConvTranspose3d(ConvTranspose1d):
    """3-D transposed convolution; weight (C_in, C_out / groups, kd, kh, kw)."""

    _nd = 3

    def forward(self, input: TensorBase, output_size: Any = None) -> TensorBase:
        """The transposed convolution of the input (of ``output_size``, when given)."""
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


class _LazyConvMixin(LazyModuleMixin, _ConvNd):
    """A convolution whose in_channels (0 until then) come from its first input, as in
    PyTorch: ``weight`` and ``bias`` are ``UninitializedParameter``s (listed by
    ``parameters()``, so an optimizer built before the first forward trains them) that the
    first forward materializes and initialises as the eager layer's are; then the module
    becomes that layer (``cls_to_become``)."""

    _lazy = True
    cls_to_become: type = _ConvNd

    def initialize_parameters(self, input: TensorBase) -> None:
        """Take in_channels from ``input`` (dim 1 batched, dim 0 unbatched) and allocate."""
        nd = self._nd
        if not self.has_uninitialized_params():  # materialized by load_state_dict
            if self.in_channels == 0:
                w = self.weight.shape
                self.in_channels = int(w[0] if self.transposed else w[1] * self.groups)
            return
        if input.ndim not in (nd + 1, nd + 2):
            raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: "
                               f"{list(input.shape)}")
        self.in_channels = int(input.shape[1] if input.ndim == nd + 2 else input.shape[0])
        if self.in_channels % self.groups:
            raise ValueError("in_channels must be divisible by groups")
        in_channels, out_channels, groups = self.in_channels, self.out_channels, self.groups
        shape = ((in_channels, out_channels // groups) if self.transposed
                 else (out_channels, in_channels // groups)) + self.kernel_size
        with no_grad():
            self.weight.materialize(shape)
            if self.bias is not None:
                self.bias.materialize((out_channels,))
            self.reset_parameters()


class LazyConv1d(_LazyConvMixin, Conv1d):
    """``Conv1d`` with in_channels inferred from the first input."""

    cls_to_become = Conv1d

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        LazyModuleMixin.__init__(self, 0, out_channels, kernel_size, stride, padding, dilation,
                                 groups, bias, padding_mode, device, dtype)


class LazyConv2d(_LazyConvMixin, Conv2d):
    """``Conv2d`` with in_channels inferred from the first input."""

    cls_to_become = Conv2d

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        LazyModuleMixin.__init__(self, 0, out_channels, kernel_size, stride, padding, dilation,
                                 groups, bias, padding_mode, device, dtype)


class LazyConv3d(_LazyConvMixin, Conv3d):
    """``Conv3d`` with in_channels inferred from the first input."""

    cls_to_become = Conv3d

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        LazyModuleMixin.__init__(self, 0, out_channels, kernel_size, stride, padding, dilation,
                                 groups, bias, padding_mode, device, dtype)


class _LazyConvTransposeNd(_LazyConvMixin, ConvTranspose1d):
    """The lazy transposed convolutions' constructor (PyTorch's argument order)."""

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        LazyModuleMixin.__init__(self, 0, out_channels, kernel_size, stride, padding,
                                 output_padding, groups, bias, dilation, padding_mode, device,
                                 dtype)


class LazyConvTranspose1d(_LazyConvTransposeNd):
    """``ConvTranspose1d`` with in_channels inferred from the first input."""

    _nd = 1
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTransposeNd):
    """``ConvTranspose2d`` with in_channels inferred from the first input."""

    _nd = 2
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTransposeNd):
    """``ConvTranspose3d`` with in_channels inferred from the first input."""

    _nd = 3
    cls_to_become = ConvTranspose3d
