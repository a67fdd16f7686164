"""``tinygrad_lite.utils.dlpack`` (PyTorch's ``torch.utils.dlpack``): ``from_dlpack``,
``to_dlpack`` and the ``DLDeviceType`` codes (defined in ``_tensor/dlpack.py``)."""

from .._tensor.dlpack import DLDeviceType, from_dlpack, to_dlpack

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]
