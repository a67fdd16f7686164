"""``tl.device``: where a tensor lives. Every tensor lives in CPU memory (NumPy arrays), so the
only usable device is ``device("cpu")``. Other devices can be named, compared and printed
(``device("cuda")``, ``x.device == torch.device("cuda")``, as in a CPU-only PyTorch build); using
one raises one clear error wherever it is used (``tensor(..., device="cuda")``,
``x.to("cuda")``, ``x.cuda()``, ``set_default_device("cuda")``)."""

from __future__ import annotations

from typing import Any

__all__ = ["device", "check_device", "CPU", "DeviceUnavailableError", "get_default_device",
           "set_default_device"]

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
        """``with tl.device("cpu"):``: factories inside make tensors on this device (the
        default, the only one here); another device raises as using it anywhere does."""
        check_device(self, "device context")
        return self

    def __exit__(self, *exc: object) -> None:
        """Nothing to put back: the default device stays the CPU."""

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


def check_device(spec: Any, what: str) -> None:
    """Accept None, "cpu", "cpu:N", a cpu device; raise PyTorch-style for anything else."""
    if spec is None or spec == "cpu":
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


def get_default_device() -> device:
    """The device new tensors are made on: always ``device("cpu")``."""
    return CPU


def set_default_device(device: Any) -> None:
    """Accept the CPU (or None, PyTorch's reset) as the default device; refuse any other device
    with the same error as ``device("cuda")``, since tensors cannot live there."""
    check_device(device, "set_default_device")
