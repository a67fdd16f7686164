"""``tinygrad_lite.save`` / ``load``: checkpoints in the safetensors format, never pickle.

Tensors go into the safetensors body through the ``safetensors`` package's NumPy API; the
structure around them (nested dicts and lists, numbers, strings: optimizer hyper-parameters,
step counts, param-group layout) is JSON in the header's ``__metadata__``. Nothing in a file can
execute code. A flat ``{name: tensor}`` dict (a module's state dict) is stored under its own
names, so files written by other safetensors tools with PyTorch's key names load directly.
Writes are atomic: a temporary file in the same directory, fsync, then ``os.replace``.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections import OrderedDict
from typing import Any

import numpy as np

from .tensor import Tensor

__all__ = ["save", "load"]

_META_KEY = "tinygrad_lite"


def _safetensors_numpy() -> Any:
    try:
        import safetensors.numpy as st
    except ImportError:
        raise ImportError(
            "tinygrad_lite.save/load need the 'safetensors' package: pip install "
            "'tinygrad-lite[io]' (in a checkout: bash tools/setup.sh io)"
        ) from None
    return st


def _contiguous(arr: np.ndarray) -> np.ndarray:
    """C-contiguous, keeping 0-d arrays 0-d (np.ascontiguousarray would make them 1-d)."""
    return arr if arr.flags.c_contiguous else arr.copy(order="C")


def _encode(obj: Any, path: str, tensors: dict) -> Any:
    """The JSON structure of ``obj``; tensors are moved into ``tensors`` under unique keys."""
    if isinstance(obj, (Tensor, np.ndarray)):
        arr = obj._data if isinstance(obj, Tensor) else obj
        key = path or "tensor"
        while key in tensors:
            key += "_"
        tensors[key] = _contiguous(arr)
        return {"T": key, "np": isinstance(obj, np.ndarray)}
    if obj is None or isinstance(obj, (bool, str)):
        return {"V": obj}
    if isinstance(obj, (int, np.integer)):
        return {"V": int(obj)}
    if isinstance(obj, (float, np.floating)):
        f = float(obj)
        return {"F": repr(f)} if not math.isfinite(f) else {"V": f}
    if isinstance(obj, dict):
        sub = (lambda k: f"{path}.{k}" if path else str(k))
        if all(isinstance(k, str) for k in obj):
            return {"D": [[k, _encode(v, sub(k), tensors)] for k, v in obj.items()]}
        return {"DK": [[_encode(k, "", {}), _encode(v, sub(k), tensors)] for k, v in obj.items()]}
    if isinstance(obj, (list, tuple)):
        items = [_encode(v, f"{path}.{i}" if path else str(i), tensors) for i, v in enumerate(obj)]
        return {"L" if isinstance(obj, list) else "U": items}
    raise TypeError(f"save: cannot store an object of type {type(obj).__name__} at "
                    f"'{path or '<root>'}'; only tensors, arrays, numbers, strings, None, and "
                    "dicts/lists/tuples of them can be saved (no pickling)")


def _decode(node: Any, tensors: dict, file: str) -> Any:
    try:
        if "T" in node:
            arr = tensors[node["T"]]
            return arr if node.get("np") else Tensor._wrap(arr)
        if "V" in node:
            return node["V"]
        if "F" in node:
            return float(node["F"])
        if "D" in node:
            return OrderedDict((k, _decode(v, tensors, file)) for k, v in node["D"])
        if "DK" in node:
            return {_decode(k, tensors, file): _decode(v, tensors, file) for k, v in node["DK"]}
        if "L" in node:
            return [_decode(v, tensors, file) for v in node["L"]]
        if "U" in node:
            return tuple(_decode(v, tensors, file) for v in node["U"])
    except (KeyError, TypeError, ValueError) as err:
        raise RuntimeError(f"load: '{file}' has a corrupt {_META_KEY} structure in its header "
                           f"metadata ({type(err).__name__}: {err})") from None
    raise RuntimeError(f"load: '{file}' has a corrupt {_META_KEY} structure in its header "
                       f"metadata (unknown node {str(node)[:60]})")


def _is_flat_state_dict(obj: Any) -> bool:
    return isinstance(obj, dict) and all(
        isinstance(k, str) and isinstance(v, Tensor) for k, v in obj.items())


def save(obj: Any, f: str | os.PathLike) -> None:
    """Save ``obj`` (a state dict of a module or optimizer, or any nesting of dicts, lists,
    tensors and plain values) to the safetensors file ``f``, atomically."""
    st = _safetensors_numpy()
    path = os.fspath(f)
    tensors: dict[str, np.ndarray] = {}
    if _is_flat_state_dict(obj):
        for k, v in obj.items():
            tensors[k] = _contiguous(v._data)
        metadata = {"format": "pt", _META_KEY: json.dumps({"flat": list(obj.keys())})}
    else:
        structure = _encode(obj, "", tensors)
        metadata = {"format": "pt", _META_KEY: json.dumps({"tree": structure})}
    payload = st.save(tensors, metadata=metadata)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise RuntimeError(f"save: parent directory {os.path.dirname(path) or directory} of "
                           f"{path!r} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp",
                               dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:  # make the rename itself durable (best effort: not every platform allows it)
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass


def _check_layout(raw: bytes, path: str) -> dict:
    """Validate the safetensors framing; returns the parsed header."""
    size = len(raw)
    if size < 8:
        raise RuntimeError(f"load: '{path}' is not a safetensors file or is truncated: it has "
                           f"{size} bytes, fewer than the 8-byte header length")
    n = int.from_bytes(raw[:8], "little")
    if n > size - 8:
        raise RuntimeError(f"load: '{path}' is truncated or not a safetensors file: the header "
                           f"length field says {n} bytes but only {size - 8} follow")
    try:
        header = json.loads(raw[8:8 + n].decode("utf-8"))
        if not isinstance(header, dict):
            raise ValueError("header is not a JSON object")
    except (UnicodeDecodeError, ValueError) as err:
        raise RuntimeError(f"load: '{path}' is not a safetensors file or its header is corrupt "
                           f"(the header is not valid JSON: {err})") from None
    body = size - 8 - n
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            end = int(info["data_offsets"][1])
        except (KeyError, TypeError, IndexError, ValueError):
            raise RuntimeError(f"load: '{path}' has a corrupt header: entry '{name}' has no "
                               "valid data_offsets") from None
        if end > body:
            raise RuntimeError(f"load: '{path}' is truncated: tensor '{name}' ends at byte {end} "
                               f"of the data section, which has only {body} bytes")
    return header


def load(f: str | os.PathLike, map_location: Any = None, weights_only: bool = True) -> Any:
    """Load what ``save`` wrote (or any safetensors file: a dict of tensors by name). Raises a
    clear error naming the file when it is missing, truncated, corrupt or not safetensors."""
    st = _safetensors_numpy()
    path = os.fspath(f)
    if not os.path.exists(path):
        raise FileNotFoundError(f"load: no such file: '{path}'")
    if os.path.isdir(path):
        raise IsADirectoryError(f"load: '{path}' is a directory, not a safetensors file")
    with open(path, "rb") as fh:
        raw = fh.read()
    header = _check_layout(raw, path)
    try:
        arrays = st.load(raw)
    except Exception as err:  # the package raises its own error types for bad files
        raise RuntimeError(f"load: '{path}' is a corrupt safetensors file: {err}") from None
    arrays = {k: np.array(v, copy=True) for k, v in arrays.items()}  # own, writable memory
    meta = header.get("__metadata__") or {}
    info = meta.get(_META_KEY)
    if info is None:  # written by another tool: a flat dict of tensors
        names = [k for k in header if k != "__metadata__"]
        names.sort(key=lambda k: header[k]["data_offsets"][0])
        return OrderedDict((k, Tensor._wrap(arrays[k])) for k in names)
    try:
        info = json.loads(info)
    except ValueError as err:
        raise RuntimeError(f"load: '{path}' has corrupt {_META_KEY} metadata: {err}") from None
    if "flat" in info:
        missing = [k for k in info["flat"] if k not in arrays]
        if missing:
            raise RuntimeError(f"load: '{path}' is corrupt: tensors {missing} are listed in its "
                               "metadata but missing")
        return OrderedDict((k, Tensor._wrap(arrays[k])) for k in info["flat"])
    return _decode(info.get("tree", {}), arrays, path)
