"""Reading files written by PyTorch's own ``torch.save`` (its default zip archive), so that a
published checkpoint or state dict loads with ``tl.load`` unchanged.

The archive holds ``<name>/data.pkl``, a pickle whose tensors refer to storages by key
(pickle's persistent ids), and each storage's raw little-endian bytes as ``<name>/data/<key>``.
Tensors rebuild from (storage, offset, size, stride) as NumPy views of the storage: tensors that
shared a storage in PyTorch (a view and its base) share it again, as with ``torch.load``.
Globals resolve as in ``pickled.py``: with ``weights_only`` (the default) only tensors,
Parameters, storages, dtypes, sizes, devices and plain containers; with ``weights_only=False``,
PyTorch's classes map to tinygrad_lite's at the same module path (``torch.nn.modules.linear.
Linear``), so a whole pickled model loads too. The older pre-1.6 format is not read."""

from __future__ import annotations

import importlib
import io
import pickle
import zipfile
import zlib
from typing import Any

import numpy as np

from .. import dtypes
from .._core.device import device
from .._core.size import Size
from ..nn.parameter import Parameter
from ..tensor import Tensor
from .pickled import _normalised, find_allowed, is_allowed, unsafe_globals

__all__ = ["is_torch_archive", "load_torch_archive", "archive_unsafe_globals"]

# PyTorch's typed storage classes, as its pickles name them ("torch FloatStorage")
_STORAGE_DTYPES: dict[str, Any] = {
    "FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
    "LongStorage": np.int64, "IntStorage": np.int32, "ShortStorage": np.int16,
    "CharStorage": np.int8, "ByteStorage": np.uint8, "BoolStorage": np.bool_,
    "UntypedStorage": np.uint8, "BFloat16Storage": "bfloat16",
}


# PyTorch dtypes tinygrad_lite has no counterpart of ("torch.complex64", "torch.float8_e4m3fn")
_NO_DTYPE_PREFIXES = ("complex", "Complex", "float8", "float4", "qint", "quint", "QInt", "QUInt",
                      "bits")
_NO_DTYPES = frozenset({"cfloat", "cdouble", "chalf", *(f"int{n}" for n in range(1, 8)),
                        *(f"uint{n}" for n in range(1, 8))})


class _StorageType:
    """What ``torch.FloatStorage`` and friends unpickle to: the element type of a storage."""

    def __init__(self, name: str) -> None:
        self.name = name

    def dtype(self) -> np.dtype:
        """The NumPy dtype of the storage's elements (bfloat16 through ml_dtypes)."""
        kind = _STORAGE_DTYPES[self.name]
        if kind == "bfloat16":
            if not dtypes._load_bfloat16():
                raise RuntimeError("load: the file holds bfloat16 tensors; reading them needs "
                                   f"the ml_dtypes package: {dtypes._BFLOAT16_INSTALL}")
            return dtypes.bfloat16.np
        return np.dtype(kind)


def _rebuild_tensor(storage: np.ndarray, offset: int, size: tuple, stride: tuple,
                    requires_grad: bool = False, backward_hooks: Any = None,
                    metadata: Any = None) -> Tensor:
    """``torch._utils._rebuild_tensor_v2``: the strided view of the storage, so tensors that
    shared a storage in PyTorch (a view and its base, tied weights) share it again."""
    if any(s < 0 for s in stride) or offset < 0:
        raise pickle.UnpicklingError("load: a tensor with negative strides or offset")
    needed = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if all(size) else 0
    if needed > storage.size:
        raise pickle.UnpicklingError(f"load: a tensor of size {tuple(size)} reads past the end "
                                     f"of its storage ({storage.size} elements)")
    item = storage.itemsize
    if not all(size):  # no elements: its offset may lie past the storage's end
        view = np.empty(tuple(size), storage.dtype)
    else:
        view = np.ndarray(tuple(size), storage.dtype, buffer=storage, offset=offset * item,
                          strides=tuple(s * item for s in stride))
    t = Tensor._wrap(view)
    return t.requires_grad_(True) if requires_grad else t


def _rebuild_tensor_v3(storage: np.ndarray, offset: int, size: tuple, stride: tuple,
                       requires_grad: bool, backward_hooks: Any, dtype: Any,
                       metadata: Any = None) -> Tensor:
    """``torch._utils._rebuild_tensor_v3`` (dtypes without a typed storage: uint16/32/64): the
    untyped storage's bytes as ``dtype``, then as ``_rebuild_tensor``."""
    if not isinstance(dtype, dtypes.DType) or dtype.np is None:
        raise pickle.UnpicklingError(f"load: a tensor of dtype {dtype!r}, which tinygrad_lite "
                                     "cannot hold")
    if storage.nbytes % dtype.np.itemsize:
        raise pickle.UnpicklingError(f"load: a storage of {storage.nbytes} bytes, not a multiple "
                                     f"of {dtype.np.itemsize} ({dtype})")
    return _rebuild_tensor(storage.view(dtype.np), offset, size, stride, requires_grad)


def _rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks: Any = None,
                       state: Any = None) -> Any:
    """``torch._utils._rebuild_parameter`` (and ``_with_state``): a Parameter of ``data``."""
    return Parameter(data.detach(), requires_grad=requires_grad)


def _rebuild_from_type(func: Any, new_type: Any, args: tuple, state: Any) -> Any:
    """``torch._tensor._rebuild_from_type_v2``: a plain tensor (subclass state dropped)."""
    return func(*args)


_TENSOR_GLOBALS: dict[str, Any] = {
    "torch._utils._rebuild_tensor_v2": _rebuild_tensor,
    "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
    "torch._utils._rebuild_parameter": _rebuild_parameter,
    "torch._utils._rebuild_parameter_with_state": _rebuild_parameter,
    "torch._tensor._rebuild_from_type_v2": _rebuild_from_type,
    "torch.Size": Size,
    "torch.device": device,
    "torch.nn.parameter.Parameter": Parameter,
}


class _ArchiveUnpickler(pickle.Unpickler):
    """Resolves storages from the archive and PyTorch's globals to tinygrad_lite's."""

    def __init__(self, data: bytes, archive: zipfile.ZipFile, prefix: str,
                 weights_only: bool) -> None:
        super().__init__(io.BytesIO(data))
        self.archive, self.prefix, self.weights_only = archive, prefix, weights_only
        self.storages: dict[str, np.ndarray] = {}

    def persistent_load(self, pid: Any) -> np.ndarray:
        """A storage: ('storage', type, key, location, numel) -> its elements (1-D array)."""
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"
                and isinstance(pid[1], _StorageType)):
            raise pickle.UnpicklingError(f"load: unsupported persistent id {pid!r:.80}")
        _, kind, key, _, _ = pid
        key = str(key)
        if key not in self.storages:
            raw = bytearray(self.archive.read(f"{self.prefix}data/{key}"))  # writable
            dt = kind.dtype()
            if len(raw) % dt.itemsize:
                raise pickle.UnpicklingError(f"load: storage {key} has {len(raw)} bytes, not a "
                                             f"multiple of {dt.itemsize} ({dt})")
            self.storages[key] = np.frombuffer(raw, dtype=dt)
        return self.storages[key]

    def find_class(self, module: str, name: str) -> Any:
        """PyTorch's tensor globals as ours; the rest through the allowlist (weights_only) or
        at tinygrad_lite's matching module path."""
        module, name = _normalised(module, name)
        key = f"{module}.{name}"
        if module == "torch" and name in _STORAGE_DTYPES:
            return _StorageType(name)
        if key == "torch.storage.UntypedStorage":  # with _rebuild_tensor_v3 and a dtype
            return _StorageType("UntypedStorage")
        if module == "torch" and (name in _NO_DTYPES or name.startswith(_NO_DTYPE_PREFIXES)):
            raise pickle.UnpicklingError(f"the file holds a tensor of PyTorch's {name}, "
                                         "a dtype tinygrad_lite does not have")
        if key in _TENSOR_GLOBALS:
            return _TENSOR_GLOBALS[key]
        if module == "torch" and isinstance(getattr(dtypes, name, None), dtypes.DType):
            return getattr(dtypes, name)  # torch.float32 and the other dtypes
        if self.weights_only:
            if (module == "torch" or module.startswith("torch.")) and is_allowed(
                    f"tinygrad_lite{module[5:]}.{name}"):  # allowed by our class, PyTorch's path
                return find_allowed(f"tinygrad_lite{module[5:]}", name)
            return find_allowed(module, name)
        if module == "torch" or module.startswith("torch."):
            return _ours(module, name)
        return super().find_class(module, name)


def _ours(module: str, name: str) -> Any:
    """tinygrad_lite's object at PyTorch's path ``module.name`` (``torch.nn.modules.linear``
    -> ``tinygrad_lite.nn.modules.linear``)."""
    path = "tinygrad_lite" + module[len("torch"):]
    try:
        target: Any = importlib.import_module(path)
        for part in name.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError):
        raise pickle.UnpicklingError(f"load: the file needs {module}.{name}, which "
                                     f"tinygrad_lite does not have (looked for {path}.{name})"
                                     ) from None
    return target


def is_torch_archive(raw: bytes | bytearray) -> bool:
    """Whether ``raw`` is a zip archive with a ``data.pkl``: PyTorch's ``torch.save`` format."""
    if raw[:4] != b"PK\x03\x04":
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            return any(n.endswith("data.pkl") for n in archive.namelist())
    except zipfile.BadZipFile:
        return False


def _archive_allows(key: str) -> bool:
    """Whether a ``weights_only`` load of an archive resolves the global ``key`` ("module.name")
    now: as ``_ArchiveUnpickler.find_class`` does."""
    module, _, name = key.rpartition(".")
    if key in _TENSOR_GLOBALS or key == "torch.storage.UntypedStorage" or (
            module == "torch" and (name in _STORAGE_DTYPES
                                   or isinstance(getattr(dtypes, name, None), dtypes.DType))):
        return True
    if module == "torch" or module.startswith("torch."):
        return is_allowed(f"tinygrad_lite{module[5:]}.{name}") or is_allowed(key)
    return is_allowed(key)


def archive_unsafe_globals(raw: bytes | bytearray, name: str) -> list[str]:
    """The globals of a ``torch.save`` archive's pickle that a ``weights_only`` load would
    refuse now, as ``torch.serialization.get_unsafe_globals_in_checkpoint`` lists them."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            data = next(n for n in archive.namelist() if n.endswith("data.pkl"))
            payload = np.frombuffer(archive.read(data), dtype=np.uint8)
            return unsafe_globals(payload, _archive_allows)
    except (zipfile.BadZipFile, StopIteration, KeyError, EOFError, zlib.error, ValueError) as err:
        raise RuntimeError(f"get_unsafe_globals_in_checkpoint: '{name}' is a corrupt or "
                           f"truncated torch.save archive: {type(err).__name__}: {err}") from None


def load_torch_archive(raw: bytes | bytearray, name: str, weights_only: bool | None) -> Any:
    """The object a PyTorch ``torch.save`` archive holds (see the module docstring)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except zipfile.BadZipFile as err:
        raise RuntimeError(f"load: '{name}' is not a valid zip archive: {err}") from None
    with archive:
        pickles = [n for n in archive.namelist() if n.endswith("data.pkl")]
        prefix = pickles[0][:-len("data.pkl")]
        order = f"{prefix}byteorder"
        if order in archive.namelist() and archive.read(order).strip() != b"little":
            raise RuntimeError(f"load: '{name}' was written on a big-endian machine; only "
                               "little-endian archives are read")
        try:
            unpickler = _ArchiveUnpickler(archive.read(pickles[0]), archive, prefix,
                                          weights_only is not False)
            return unpickler.load()
        except pickle.UnpicklingError as err:
            message = str(err).removeprefix("load: ")  # the file's name goes after "load: "
            raise pickle.UnpicklingError(f"load: '{name}': {message}") from None
        except (zipfile.BadZipFile, KeyError, EOFError, zlib.error) as err:
            raise RuntimeError(f"load: '{name}' is a corrupt or truncated torch.save archive: "
                               f"{type(err).__name__}: {err}") from None
