"""``tinygrad_lite.save`` / ``load``: checkpoints in the safetensors format.

Tensors go into the safetensors body; the structure around them (nested dicts and lists,
tuples, numbers, strings, None: optimizer hyper-parameters, step counts, param-group layout) is
JSON in the header's ``__metadata__``: loading such a file can never execute code. Other
objects (a whole module, as ``torch.save(model, f)``) are pickled into the file
(``pickled.py``) and load as in PyTorch since 2.6: through an allowlist of globals by default
(``add_safe_globals``), everything with ``weights_only=False``. A flat
``{name: tensor}`` dict (a module's state dict) is stored under its own names, so files written
by other safetensors tools with PyTorch's key names load directly; files PyTorch's own
``torch.save`` wrote (its zip archive) are read by ``torch_archive.py``. ``format.py`` reads and
writes the bytes (validated, deterministic), ``files.py`` handles the file system (atomic saves, no
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
from .pickled import (
    PICKLE_KEY,
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    is_allowed,
    pickled,
    safe_globals,
    unpickled,
    unsafe_globals,
)
from .torch_archive import is_torch_archive, load_torch_archive

__all__ = ["save", "load", "add_safe_globals", "clear_safe_globals", "get_safe_globals",
           "safe_globals", "get_unsafe_globals_in_checkpoint"]

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
    raise _NotPlainError(f"an object of type {type(obj).__name__} at '{path or '<root>'}'")


class _NotPlainError(TypeError):
    """Something the JSON structure has no place for: the object is pickled instead."""


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


def _pickle_payload(info: dict, arrays: dict, name: str) -> np.ndarray:
    """The uint8 array holding a file's pickled object."""
    payload = arrays.get(str(info["pickle"]))
    if payload is None or payload.dtype != np.uint8 or payload.ndim != 1:
        raise RuntimeError(f"load: '{name}' is corrupt: its pickled object is missing")
    return payload


def get_unsafe_globals_in_checkpoint(f: Any) -> list[str]:
    """The "module.name" globals of a file's pickled object that a ``weights_only`` load would
    refuse now (empty for a file with tensors and plain values only)."""
    name = describe(f)
    try:
        metadata, arrays = decode_file(read_from(f))
    except FormatError as err:
        raise RuntimeError(f"get_unsafe_globals_in_checkpoint: '{name}' {err}") from None
    info = json.loads(metadata.get(_META_KEY, "{}") or "{}")
    if not isinstance(info, dict) or "pickle" not in info:
        return []
    return unsafe_globals(_pickle_payload(info, arrays, name), is_allowed)


def _is_flat_state_dict(obj: Any) -> bool:
    return isinstance(obj, dict) and all(
        isinstance(k, str) and isinstance(v, Tensor) for k, v in obj.items())


# torch.save's legacy (pre-1.6) format opens with this number pickled (LONG1, 10 bytes, STOP)
_LEGACY_MAGIC = b"\x8a\x0a" + (0x1950A86A20F9469CFC6C).to_bytes(10, "little") + b"."


def _is_legacy_torch(raw: bytearray) -> bool:
    """Whether a pickle file (see ``_looks_pickled``) is torch.save's legacy format: its first
    pickle is PyTorch's magic number, after a FRAME opcode in protocols 4 and 5."""
    head = bytes(raw[2:40])
    if head[:1] == b"\x95":  # FRAME and its 8-byte length
        head = head[9:]
    return head.startswith(_LEGACY_MAGIC)


def _looks_pickled(raw: bytearray) -> bool:
    """A pickle (PROTO opcode, protocol 2-5) whose first 8 bytes can't be a safetensors header
    length (which would claim more bytes than the file has)."""
    return (len(raw) >= 2 and raw[0] == 0x80 and 2 <= raw[1] <= 5
            and int.from_bytes(raw[:8], "little") > len(raw) - 8)


def save(obj: Any, f: Any, pickle_module: Any = None, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True) -> None:
    """Save ``obj`` to ``f``, a path (written atomically) or a binary file object: a state dict
    of a module or optimizer, or any nesting of dicts, lists, tuples, tensors and plain values,
    in the safetensors format; anything else (a whole module) pickled with ``pickle_module`` and
    ``pickle_protocol`` into the file, loadable with ``weights_only=False``."""
    tensors: dict[str, np.ndarray] = {}
    if _is_flat_state_dict(obj):
        for k, v in obj.items():
            tensors[k] = _contiguous(v._data)
        metadata = {"format": "pt", _META_KEY: json.dumps({"flat": list(obj.keys())})}
    else:
        try:
            structure = _encode(obj, "", tensors)
            metadata = {"format": "pt", _META_KEY: json.dumps({"tree": structure})}
        except _NotPlainError:
            tensors = {PICKLE_KEY: pickled(obj, pickle_module, pickle_protocol)}
            metadata = {"format": "pt", _META_KEY: json.dumps({"pickle": PICKLE_KEY})}
    write_to(f, encode_file(tensors, metadata))


def load(f: Any, map_location: Any = None, pickle_module: Any = None, *,
         weights_only: bool | None = None, mmap: bool | None = None, **pickle_load_args: Any
         ) -> Any:
    """Load what ``save`` wrote, any safetensors file (a dict of tensors by name), or a file
    PyTorch's own ``torch.save`` wrote (``torch_archive.py``), from a path or a binary file
    object. Raises a clear error naming the file when it is missing, truncated, corrupt, not a
    regular file, not a checkpoint at all (a plain pickle, a text file), or in PyTorch's legacy
    (pre-1.6) pickle format. A pickled object
    loads through the allowlist of ``add_safe_globals`` (``pickle.UnpicklingError`` naming the
    first global it refuses), or whole with ``weights_only=False``, as in PyTorch;
    ``map_location`` is accepted for PyTorch's signature (everything loads to the CPU)."""
    name = describe(f)
    raw = read_from(f)
    if is_torch_archive(raw):  # PyTorch's own torch.save format
        return load_torch_archive(raw, name, weights_only)
    if raw[:4] == _ZIP_MAGIC:
        raise RuntimeError(f"load: '{name}' is a zip archive but not a readable torch.save "
                           "file (truncated or corrupt, or no data.pkl inside)")
    if _looks_pickled(raw) and _is_legacy_torch(raw):
        raise RuntimeError(
            f"load: '{name}' was written by torch.save in its legacy (pre-1.6) pickle format, "
            "which tinygrad_lite does not read. Convert it once with PyTorch: "
            "`from safetensors.torch import save_file; save_file(torch.load(path), "
            "'model.safetensors')`, then tl.load('model.safetensors')")
    if _looks_pickled(raw):
        raise RuntimeError(
            f"load: '{name}' is a pickle file (as pickle.dump writes), neither a safetensors "
            "file nor a PyTorch zip checkpoint; tinygrad_lite does not unpickle raw pickle "
            "files, since unpickling can run arbitrary code. If you trust the file, load it "
            "with `pickle.load(open(path, 'rb'))`")
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
    if "pickle" in info:
        return unpickled(_pickle_payload(info, arrays, name), name, weights_only, pickle_module,
                         pickle_load_args)
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
