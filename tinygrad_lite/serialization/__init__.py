"""``tinygrad_lite.save`` / ``load``: checkpoints in the safetensors format, never pickle.

Tensors go into the safetensors body; the structure around them (nested dicts and lists,
tuples, numbers, strings, None: optimizer hyper-parameters, step counts, param-group layout) is
JSON in the header's ``__metadata__``. Nothing in a file can execute code. A flat
``{name: tensor}`` dict (a module's state dict) is stored under its own names, so files written by
other safetensors tools with PyTorch's key names load directly. ``format.py`` reads and writes
the bytes (validated, deterministic), ``files.py`` handles the file system (atomic saves, no
reads of FIFOs or devices); this module maps Python objects to them.
"""

from __future__ import annotations

import json
import math
from collections import OrderedDict
from typing import Any

import numpy as np

from ..tensor import Tensor
from .files import describe, read_from, write_to
from .format import FormatError, decode_file, encode_file

__all__ = ["save", "load"]

_META_KEY = "tinygrad_lite"
_ZIP_MAGIC = b"PK\x03\x04"  # torch.save's default format: a zip archive of pickles


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
    """The object the JSON ``node`` describes; tensors taken from ``tensors``."""
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
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as err:
        raise RuntimeError(f"load: '{file}' has a corrupt {_META_KEY} structure in its header "
                           f"metadata ({type(err).__name__}: {err})") from None
    raise RuntimeError(f"load: '{file}' has a corrupt {_META_KEY} structure in its header "
                       f"metadata (unknown node {str(node)[:60]})")


def _is_flat_state_dict(obj: Any) -> bool:
    return isinstance(obj, dict) and all(
        isinstance(k, str) and isinstance(v, Tensor) for k, v in obj.items())


def _looks_pickled(raw: bytearray) -> bool:
    """A pickle (PROTO opcode, protocol 2-5) whose first 8 bytes can't be a safetensors header
    length (which would claim more bytes than the file has)."""
    return (len(raw) >= 2 and raw[0] == 0x80 and 2 <= raw[1] <= 5
            and int.from_bytes(raw[:8], "little") > len(raw) - 8)


def save(obj: Any, f: Any, pickle_module: Any = None, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True) -> None:
    """Save ``obj`` (a state dict of a module or optimizer, or any nesting of dicts, lists,
    tuples, tensors and plain values) to ``f``: a path (written atomically) or a binary file
    object. The pickle arguments of ``torch.save`` are accepted and ignored: nothing is pickled."""
    tensors: dict[str, np.ndarray] = {}
    if _is_flat_state_dict(obj):
        for k, v in obj.items():
            tensors[k] = _contiguous(v._data)
        metadata = {"format": "pt", _META_KEY: json.dumps({"flat": list(obj.keys())})}
    else:
        structure = _encode(obj, "", tensors)
        metadata = {"format": "pt", _META_KEY: json.dumps({"tree": structure})}
    write_to(f, encode_file(tensors, metadata))


def load(f: Any, map_location: Any = None, pickle_module: Any = None, *,
         weights_only: bool | None = None, mmap: bool | None = None, **pickle_load_args: Any
         ) -> Any:
    """Load what ``save`` wrote, or any safetensors file (a dict of tensors by name), from a
    path or a binary file object. Raises a clear error naming the file when it is missing,
    truncated, corrupt, not a regular file, or a ``torch.save`` pickle archive. ``map_location``
    and ``weights_only`` are accepted for PyTorch's signature (everything loads to the CPU, and
    nothing but tensors and plain values can be in a file)."""
    name = describe(f)
    raw = read_from(f)
    if raw[:4] == _ZIP_MAGIC or _looks_pickled(raw):
        raise RuntimeError(
            f"load: '{name}' was written by torch.save (a pickle archive); tinygrad_lite never "
            "unpickles, since unpickling can run arbitrary code. Convert it once with PyTorch: "
            "`from safetensors.torch import save_file; save_file(torch.load(path), "
            "'model.safetensors')`, then tl.load('model.safetensors')")
    try:
        metadata, arrays = decode_file(raw)
    except FormatError as err:
        raise RuntimeError(f"load: '{name}' {err}") from None
    info = metadata.get(_META_KEY)
    if info is None:  # written by another tool: a flat dict of tensors, in file order
        return OrderedDict((k, Tensor._wrap(v)) for k, v in arrays.items())
    try:
        info = json.loads(info)
        if not isinstance(info, dict):
            raise ValueError("not a JSON object")
    except (ValueError, RecursionError) as err:
        raise RuntimeError(f"load: '{name}' has corrupt {_META_KEY} metadata: "
                           f"{type(err).__name__}: {str(err)[:80]}") from None
    if "flat" in info:
        names = info["flat"]
        if not isinstance(names, list) or not all(isinstance(k, str) for k in names):
            raise RuntimeError(f"load: '{name}' has corrupt {_META_KEY} metadata: 'flat' must "
                               "be a list of tensor names")
        missing = [k for k in names if k not in arrays]
        if missing:
            raise RuntimeError(f"load: '{name}' is corrupt: tensors {missing[:5]} are listed in "
                               "its metadata but missing")
        return OrderedDict((k, Tensor._wrap(arrays[k])) for k in names)
    return _decode(info.get("tree", {}), arrays, name)
