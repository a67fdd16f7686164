"""``tl.device``: where a tensor lives. Every tensor lives in CPU memory (NumPy arrays), so the
only device with memory is ``device("cpu")``. Other devices can be named, compared and printed
(``device("cuda")``, ``x.device == torch.device("cuda")``, as in a CPU-only PyTorch build); using
one raises one clear error wherever it is used (``tensor(..., device="cuda")``,
``x.to("cuda")``, ``x.cuda()``, ``set_default_device("cuda")``).

``device("meta")`` makes tensors that have a shape and a dtype but no memory: every element is
one placeholder item (a zero-strided array over a 16-byte buffer of its own), so a large model
can be built ``with tl.device("meta"):`` and then given weights (``load_state_dict(sd,
assign=True)``, ``to_empty(device="cpu")``). Their values must not be read (``item``,
``numpy``, ``tolist`` raise); an operation on them computes on the placeholders and returns an
ordinary CPU tensor (PyTorch would return a meta one), and in-place writes land in the
placeholder item only."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["device", "check_device", "CPU", "META", "DeviceUnavailableError",
           "get_default_device", "set_default_device", "meta_array", "is_meta_array",
           "wants_meta"]

ELSEWHERE = ("{what}: device {name!r} is not available: tinygrad_lite was not compiled with CUDA "
             "enabled; its tensors live in CPU memory (NumPy arrays). Use 'cpu' (programs "
             "usually choose it with `device = 'cuda' if tl.cuda.is_available() else 'cpu'`)")


# PyTorch's device types: naming one that this CPU-only build lacks says "not available";
# anything else is not a device string at all
KNOWN_DEVICE_TYPES = ("cpu", "cuda", "mps", "xpu", "meta", "hip", "xla", "lazy", "vulkan", "ipu",
                      "hpu", "mtia", "maia", "mkldnn", "opengl", "opencl", "ideep", "ve", "fpga",
                      "privateuseone")


class DeviceUnavailableError(AssertionError, RuntimeError):
    """Asking for a device other than the CPU. PyTorch raises AssertionError ("Torch not
    compiled with CUDA enabled") in some places and RuntimeError in others: this is both."""


class device:  # noqa: N801 - PyTorch's name
    """A device, PyTorch style: ``device("cpu")``, ``device("cpu", 0)``, ``device("cpu:0")``;
    ``.type`` and ``.index``; equal to another device or to its string."""

    __slots__ = ("type", "index")
    __module__ = "tinygrad_lite"  # prints as <class 'torch.device'> prints: tl.device is it

    type: str
    index: int | None

    def __init__(self, type: Any, index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        if isinstance(type, int) and not isinstance(type, bool):
            # a bare index names the accelerator's device: there is none (PyTorch raises too)
            raise DeviceUnavailableError(ELSEWHERE.format(what="device", name=f"cuda:{type}"))
        if not isinstance(type, str):
            raise TypeError(f"device: expected a string or a device, got "
                            f"{builtins_type_name(type)}")
        name, _, number = type.partition(":")
        if number:
            if index is not None:
                raise RuntimeError(f"device: type (string) must not include an index because "
                                   f"index was passed explicitly: {type}")
            if not number.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(number)
        if name not in KNOWN_DEVICE_TYPES:
            # e.g. x.to("float64"): a dtype name is not a device; say what a device looks like
            raise RuntimeError(
                f"Invalid device string: {type!r}: expected one of "
                f"{', '.join(KNOWN_DEVICE_TYPES)} at its start (to change the dtype, pass a "
                f"dtype such as tl.float64, not a string)")
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative, got {index}")
        self.type, self.index = name, index

    def __enter__(self) -> device:
        """``with tl.device("cpu"):`` / ``with tl.device("meta"):``: factories inside make
        tensors on this device; another device raises as using it anywhere does."""
        check_device(self, "device context", meta_ok=True)
        _DEFAULT.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        """Put the previous default device back."""
        _DEFAULT.pop()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            try:
                other = device(other)
            except RuntimeError:
                return False
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __repr__(self) -> str:
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __reduce__(self) -> tuple:
        return (device, (self.type, self.index))


def builtins_type_name(x: Any) -> str:
    """The type name of ``x`` for messages."""
    return type(x).__name__


CPU = device("cpu")
META = device("meta")
_DEFAULT = [CPU]  # the default device, innermost ``with device(...)`` last


def _is_meta_spec(spec: Any) -> bool:
    return (isinstance(spec, device) and spec.type == "meta") or (
        isinstance(spec, str) and spec.partition(":")[0] == "meta")


def check_device(spec: Any, what: str, meta_ok: bool = False) -> None:
    """Accept None, "cpu", "cpu:N", a cpu device (and the meta device where ``meta_ok``: the
    caller makes meta tensors); raise PyTorch-style for anything else."""
    if spec is None or spec == "cpu":
        return
    if _is_meta_spec(spec):
        if not meta_ok:
            raise NotImplementedError(f"{what}: meta tensors (device='meta') are not supported "
                                      "here; use the CPU")
        return
    if isinstance(spec, device):
        if spec.type != "cpu":
            raise DeviceUnavailableError(ELSEWHERE.format(what=what, name=str(spec)))
        return
    if isinstance(spec, str):
        device_type = spec.partition(":")[0]
        if device_type != "cpu" and device_type in KNOWN_DEVICE_TYPES:
            raise DeviceUnavailableError(ELSEWHERE.format(what=what, name=spec))
        device(spec)  # raises for a malformed string or a name that is no device type
        return
    if isinstance(spec, int) and not isinstance(spec, bool):
        raise DeviceUnavailableError(ELSEWHERE.format(what=what, name=f"cuda:{spec}"))
    raise TypeError(f"{what}: device must be a string or a tl.device, got "
                    f"{type(spec).__name__}")


def wants_meta(spec: Any) -> bool:
    """Whether a factory given ``device=spec`` makes a meta tensor (None: the default device,
    meta inside ``with tl.device("meta"):``)."""
    return _is_meta_spec(spec) if spec is not None else _DEFAULT[-1].type == "meta"


class _MetaBuffer(bytearray):
    """The one placeholder item behind a meta tensor (its type marks the array as meta)."""


def meta_array(shape: tuple, dtype: Any) -> np.ndarray:
    """A meta tensor's array: ``shape`` and ``dtype`` over one placeholder item (strides 0)."""
    dt = np.dtype(dtype)
    return np.ndarray(tuple(shape), dt, buffer=_MetaBuffer(max(dt.itemsize, 1)),
                      strides=(0,) * len(shape))


def is_meta_array(a: Any) -> bool:
    """Whether ``a`` is a meta tensor's array or a view of one."""
    while isinstance(a, np.ndarray):
        a = a.base
    return isinstance(a, _MetaBuffer)


def get_default_device() -> device:
    """The device new tensors are made on: the CPU, or the meta device inside ``with
    tl.device("meta"):`` / after ``set_default_device("meta")``."""
    return _DEFAULT[-1]


def set_default_device(device: Any) -> None:
    """Make factories default to the CPU (None, PyTorch's reset, or "cpu") or the meta device;
    refuse any other device with the same error as ``tensor(..., device="cuda")``."""
    check_device(device, "set_default_device", meta_ok=True)
    _DEFAULT[0] = META if wants_meta(device) and device is not None else CPU
