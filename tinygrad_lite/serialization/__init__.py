"""``tinygrad_lite.save`` / ``load``: checkpoints in the safetensors format.

Tensors go into the safetensors body; the structure around them (nested dicts and lists,
tuples, numbers, strings, None: optimizer hyper-parameters, step counts, param-group layout) is
JSON in the header's ``__metadata__``: loading such a file can never execute code. As with
``torch.save``, Parameters, ``requires_grad``, dict vs OrderedDict, an object saved twice and
tensors sharing memory (views, tied weights) come back as they were saved. Other
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
import os
import pickle
from collections import OrderedDict
from typing import Any

import numpy as np

from .._core.device import check_device, device, is_meta_array, meta_array, wants_meta
from .._tensor.pickling import rebuild_meta_tensor
from ..nn.parameter import Parameter
from ..ops.movement import memory_root
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
from .torch_archive import archive_unsafe_globals, is_torch_archive, load_torch_archive

__all__ = ["save", "load", "add_safe_globals", "clear_safe_globals", "get_safe_globals",
           "safe_globals", "get_unsafe_globals_in_checkpoint"]

_META_KEY = "tinygrad_lite"
_ZIP_MAGIC = b"PK\x03\x04"  # torch.save's default format: a zip archive of pickles


def _contiguous(arr: np.ndarray) -> np.ndarray:
    """C-contiguous, keeping 0-d arrays 0-d (np.ascontiguousarray would make them 1-d)."""
    return arr if arr.flags.c_contiguous else arr.copy(order="C")


class _Encoder:
    """Builds the JSON structure of an object; tensors go into ``tensors`` under unique keys.

    As ``torch.save`` does, an object met twice is stored once and loads as one object, and
    tensors that share memory (a view and its base, tied weights) are stored as one storage and
    load sharing it again (``share_storages``); a lone tensor is stored compactly, as its values.
    """

    def __init__(self) -> None:
        self.tensors: dict[str, np.ndarray] = {}
        self.seen: dict[int, Any] = {}  # id(tensor) -> its node
        self.keep: list[Any] = []  # the encoded tensors, so their ids stay unique
        self.by_root: dict[int, list[tuple[dict, np.ndarray]]] = {}

    def tensor(self, obj: Any, path: str) -> dict:
        if id(obj) in self.seen:
            return self.seen[id(obj)]
        arr = obj._data if isinstance(obj, Tensor) else obj
        key = path or "tensor"
        while key in self.tensors:
            key += "_"
        node: dict[str, Any] = {"T": key, "np": isinstance(obj, np.ndarray)}
        if is_meta_array(arr):  # no data: an empty array of its dtype, and its shape
            self.tensors[key] = np.empty(0, arr.dtype)
            node["meta"] = list(arr.shape)
        else:
            self.tensors[key] = _contiguous(arr)
            self.by_root.setdefault(id(memory_root(arr)), []).append((node, arr))
        if isinstance(obj, Parameter):
            node["P"] = True
        if isinstance(obj, Tensor) and obj.requires_grad:
            node["rg"] = True
        self.seen[id(obj)] = node
        self.keep.append(obj)
        return node

    def encode(self, obj: Any, path: str = "") -> Any:
        """The JSON structure of ``obj``. Only exact plain types are JSON: subclasses (a
        namedtuple, a defaultdict, an IntEnum) raise ``_NotPlainError`` and are pickled, so
        they load as themselves (``weights_only=False``) or are refused, as in PyTorch."""
        kind = type(obj)
        if kind in (Tensor, Parameter) or kind is np.ndarray:
            return self.tensor(obj, path)
        if obj is None or kind in (bool, str):
            return {"V": obj}
        if kind is int or isinstance(obj, np.integer):
            return {"V": int(obj)}
        if kind is float or isinstance(obj, np.floating):
            f = float(obj)
            return {"F": repr(f)} if not math.isfinite(f) else {"V": f}
        if kind in (dict, OrderedDict):
            sub = (lambda k: f"{path}.{k}" if path else str(k))
            if all(isinstance(k, str) for k in obj):
                node: dict[str, Any] = {"D": [[k, self.encode(v, sub(k))] for k, v in obj.items()]}
            else:
                node = {"DK": [[self.encode(k), self.encode(v, sub(k))] for k, v in obj.items()]}
            node["o"] = kind is OrderedDict
            return node
        if kind in (list, tuple):
            items = [self.encode(v, f"{path}.{i}" if path else str(i)) for i, v in enumerate(obj)]
            return {"L" if kind is list else "U": items}
        raise _NotPlainError(f"an object of type {kind.__name__} at '{path or '<root>'}'")

    def share_storages(self) -> None:
        """Tensors with one root array are stored as that root (once, 1-D) and each as its
        offset, shape and strides into it (in elements), as PyTorch stores views."""
        storages: list[tuple[list, np.ndarray]] = []
        for group in self.by_root.values():
            root = memory_root(group[0][1])
            if len(group) < 2 or not root.flags.c_contiguous or any(
                    arr.dtype != root.dtype or any(s < 0 or s % arr.itemsize for s in arr.strides)
                    for _, arr in group):
                continue  # a dtype view or negative strides: stored as separate values
            start = root.__array_interface__["data"][0]
            for node, arr in group:
                del self.tensors[node["T"]]
                offset = arr.__array_interface__["data"][0] - start if arr.size else 0
                node.update(o=offset // arr.itemsize, sh=list(arr.shape),
                            st=[s // arr.itemsize for s in arr.strides])
            storages.append((group, root.reshape(-1)))
        for group, storage in storages:  # keyed once every tensor key is settled
            key = f"storage.{group[0][0]['T']}"
            while key in self.tensors:
                key += "_"
            self.tensors[key] = storage
            for node, _ in group:
                node["S"] = key


class _NotPlainError(TypeError):
    """Something the JSON structure has no place for: the object is pickled instead."""


def _tensor(node: dict, tensors: dict) -> Any:
    """The tensor (or array) of a tensor node: its own values, or a view into a shared storage."""
    if "S" in node:
        storage, offset = tensors[node["S"]], node["o"]
        shape, strides = tuple(node["sh"]), tuple(node["st"])
        # the view must lie inside the storage
        if (storage.ndim != 1 or not all(type(v) is int and v >= 0
                                         for v in (offset, *shape, *strides))
                or len(shape) != len(strides) or len(shape) > 64 or (math.prod(shape) and offset
                + sum((n - 1) * st for n, st in zip(shape, strides)) >= storage.size)):
            raise ValueError(f"tensor '{node['T']}' lies outside its storage")
        # a view whose base is the storage (as_strided's would not be), so a save of the loaded
        # tensors finds their shared root again
        item = storage.itemsize
        arr = np.ndarray(shape, storage.dtype, buffer=storage, offset=offset * item,
                         strides=tuple(st * item for st in strides))
    elif "meta" in node:
        arr = meta_array(tuple(node["meta"]), tensors[node["T"]].dtype)
    else:
        arr = tensors[node["T"]]
    if node.get("np"):
        return arr
    if node.get("P"):
        return Parameter(Tensor._wrap(arr), requires_grad=bool(node.get("rg")))
    t = Tensor._wrap(arr)
    return t.requires_grad_(True) if node.get("rg") else t


def _decode(node: Any, tensors: dict, file: str, loaded: dict | None = None) -> Any:
    """The object the JSON ``node`` describes; tensors taken from ``tensors``, each loaded once
    (``loaded``: key -> tensor), so an object saved twice loads as one."""
    loaded = {} if loaded is None else loaded
    try:
        if "T" in node:
            if node["T"] not in loaded:
                loaded[node["T"]] = _tensor(node, tensors)
            return loaded[node["T"]]
        if "V" in node:
            return node["V"]
        if "F" in node:
            return float(node["F"])
        if "D" in node:  # files before OrderedDict was told apart ("o") load as OrderedDict
            pairs = ((k, _decode(v, tensors, file, loaded)) for k, v in node["D"])
            return OrderedDict(pairs) if node.get("o", True) else dict(pairs)
        if "DK" in node:
            pairs = ((_decode(k, tensors, file, loaded), _decode(v, tensors, file, loaded))
                     for k, v in node["DK"])
            return OrderedDict(pairs) if node.get("o") else dict(pairs)
        if "L" in node:
            return [_decode(v, tensors, file, loaded) for v in node["L"]]
        if "U" in node:
            return tuple(_decode(v, tensors, file, loaded) for v in node["U"])
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
    refuse now (empty for a file with tensors and plain values only); for PyTorch's own
    ``torch.save`` archives too."""
    name = describe(f)
    raw = read_from(f)
    if raw[:4] == _ZIP_MAGIC:  # a torch.save archive (or a truncated one: a clear error)
        return archive_unsafe_globals(raw, name)
    try:
        metadata, arrays = decode_file(raw)
    except FormatError as err:
        raise RuntimeError(f"get_unsafe_globals_in_checkpoint: '{name}' {err}") from None
    info = json.loads(metadata.get(_META_KEY, "{}") or "{}")
    if not isinstance(info, dict) or "pickle" not in info:
        return []
    return unsafe_globals(_pickle_payload(info, arrays, name), is_allowed)


def _is_flat_state_dict(obj: Any) -> bool:
    """A dict of plain tensors by name (a state dict), stored under its own names. Parameters,
    tensors that require grad and tensors sharing memory go into the tree structure, which
    keeps those."""
    if type(obj) not in (dict, OrderedDict) or not all(
            isinstance(k, str) and type(v) is Tensor and not v.requires_grad
            for k, v in obj.items()):
        return False
    roots = [id(memory_root(v._data)) for v in obj.values()]
    return len(set(roots)) == len(roots)


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
    if pickle_module is None and pickle_protocol > pickle.HIGHEST_PROTOCOL:
        raise ValueError(f"save: pickle protocol must be <= {pickle.HIGHEST_PROTOCOL}, got "
                         f"{pickle_protocol}")
    tensors: dict[str, np.ndarray] = {}
    if _is_flat_state_dict(obj):
        for k, v in obj.items():
            tensors[k] = _contiguous(v._data)
        flat: dict[str, Any] = {"flat": list(obj.keys())}
        if type(obj) is dict:
            flat["dict"] = True  # loads as a dict (files without the flag: an OrderedDict)
        metadata = {"format": "pt", _META_KEY: json.dumps(flat)}
    else:
        try:
            encoder = _Encoder()
            structure = encoder.encode(obj)
            encoder.share_storages()
            tensors = encoder.tensors
            metadata = {"format": "pt", _META_KEY: json.dumps({"tree": structure})}
        except _NotPlainError:
            tensors = {PICKLE_KEY: pickled(obj, pickle_module, pickle_protocol)}
            metadata = {"format": "pt", _META_KEY: json.dumps({"pickle": PICKLE_KEY})}
    write_to(f, encode_file(tensors, metadata))


def _check_map_location(map_location: Any) -> None:
    """PyTorch's checks of ``map_location``: None, a callable, a device (string or tl.device),
    or a dict from saved locations to devices, whose target for "cpu" (where every tensor of a
    tinygrad_lite file lives) must be available."""
    if map_location is None or callable(map_location):
        return
    if isinstance(map_location, dict):
        map_location = map_location.get("cpu")
        if map_location is None:
            return
    if not isinstance(map_location, (str, device)):
        raise TypeError("load: map_location must be a string, a tl.device, a dict or a "
                        f"callable, got {type(map_location).__name__}")
    check_device(map_location, "load: map_location", meta_ok=True)


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
    ``map_location`` is checked as PyTorch does (a device that is not available raises);
    tensors load to the CPU, or as meta tensors (shapes and dtypes only) for ``"meta"``.
    ``mmap=True`` needs a path, as in PyTorch (the file is read whole)."""
    _check_map_location(map_location)
    loaded = _load(f, pickle_module, weights_only, mmap, pickle_load_args)
    target = map_location.get("cpu") if isinstance(map_location, dict) else map_location
    if target is not None and not callable(target) and wants_meta(target):
        return _on_meta(loaded, {})
    return loaded


def _on_meta(obj: Any, memo: dict) -> Any:
    """``obj`` with each tensor in its containers replaced by a meta tensor of its class,
    shape, dtype and ``requires_grad`` (``map_location="meta"``; tensors shared before stay
    shared)."""
    if isinstance(obj, Tensor):
        if id(obj) not in memo:
            memo[id(obj)] = rebuild_meta_tensor(type(obj), obj.shape, obj._data.dtype,
                                                obj.requires_grad)
        return memo[id(obj)]
    if isinstance(obj, dict):
        converted = type(obj)() if type(obj) in (dict, OrderedDict) else dict()
        for key, value in obj.items():
            converted[key] = _on_meta(value, memo)
        return converted
    if isinstance(obj, list):
        return [_on_meta(value, memo) for value in obj]
    if isinstance(obj, tuple):
        values = [_on_meta(value, memo) for value in obj]
        return type(obj)(*values) if hasattr(obj, "_fields") else type(obj)(values)
    return obj


def _load(f: Any, pickle_module: Any, weights_only: bool | None, mmap: bool | None,
          pickle_load_args: dict) -> Any:
    """``load`` once ``map_location`` is checked (the tensors come back on the CPU)."""
    if mmap and not isinstance(f, (str, os.PathLike)):
        raise ValueError("load: f must be a file path in order to use the mmap argument")
    if pickle_module is not None:  # as in PyTorch: an explicit pickle module means a full load
        if weights_only:
            raise RuntimeError("load: Can not safely load weights when explicit pickle_module "
                               "is specified (pass weights_only=False)")
        weights_only = False
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
        pairs = ((k, Tensor._wrap(arrays[k])) for k in names)
        return dict(pairs) if info.get("dict") else OrderedDict(pairs)
    return _decode(info.get("tree", {}), arrays, name)
