"""The safetensors file format, read and written here, strictly validated and deterministic.

A file is an 8-byte little-endian header length N, N bytes of JSON (``{name: {"dtype", "shape",
"data_offsets": [begin, end]}, "__metadata__": {str: str}}``, padded with spaces to a multiple of
8), then the tensors' bytes, back to back. Reading checks every field before touching the data
(known dtype, non-negative shape, offsets that match the shape, lie inside the file and cover it
without holes or overlaps) and returns NumPy views into one writable buffer: no copy per tensor.
Writing sorts names and metadata keys, so the same state gives the same bytes in any process.
Files written by the ``safetensors`` package (PyTorch's, JAX's, ...) read here, and ours read there.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

import numpy as np

from .. import dtypes

__all__ = ["encode_file", "decode_file", "FormatError"]

DTYPES = {"BOOL": np.bool_, "U8": np.uint8, "I8": np.int8, "I16": np.int16, "U16": np.uint16,
          "F16": np.float16, "I32": np.int32, "U32": np.uint32, "F32": np.float32,
          "F64": np.float64, "I64": np.int64, "U64": np.uint64}
CODES = {np.dtype(v): k for k, v in DTYPES.items()}
MAX_HEADER = 100 * 1024 * 1024  # the safetensors package's own limit
MAX_DIMS = 64  # NumPy's (and PyTorch's) limit on a tensor's dimensions
_ENTRY_KEYS = frozenset({"dtype", "shape", "data_offsets"})
_CODE_NAMES = {code: code for code in (*DTYPES, "BF16")}  # one string per dtype, not per entry
NOT_A_CHECKPOINT = "is not a checkpoint (safetensors or PyTorch zip)"


class FormatError(ValueError):
    """The bytes are not a valid safetensors file; the message reads after the file's name
    ("'x.st' is truncated: ...")."""


def encode_file(tensors: dict[str, np.ndarray], metadata: dict[str, str]) -> bytes:
    """The bytes of a safetensors file holding ``tensors`` (C-contiguous) and ``metadata``."""
    header: dict[str, Any] = {"__metadata__": dict(sorted(metadata.items()))}
    offset = 0
    for name in sorted(tensors):
        arr = tensors[name]
        code = "BF16" if arr.dtype is dtypes.bfloat16.np else CODES.get(arr.dtype)
        if code is None:
            supported = ", ".join(str(np.dtype(d)) for d in DTYPES.values())
            raise TypeError(f"save: tensor '{name}' has dtype {arr.dtype}, which safetensors "
                            f"cannot store (supported: {supported})")
        header[name] = {"dtype": code, "shape": list(arr.shape),
                        "data_offsets": [offset, offset + arr.nbytes]}
        offset += arr.nbytes
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    parts = [len(text).to_bytes(8, "little"), text]
    parts += [np.ascontiguousarray(tensors[name]).tobytes() for name in sorted(tensors)]
    return b"".join(parts)


def _compact(pairs: list[tuple[str, Any]]) -> Any:
    """A JSON object as the header parser meets it: a tensor's entry becomes a small (dtype,
    shape, data_offsets) tuple of tuples at once, any other object a dict. An entry as dict and
    lists costs ~500 bytes, so a header of 100,000 empty tensors (6 MB) would otherwise hold
    ~50 MB while it is read."""
    if len(pairs) == 3:
        info = dict(pairs)
        code, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
        if info.keys() == _ENTRY_KEYS and isinstance(shape, list) and isinstance(offsets, list):
            return (_CODE_NAMES.get(code, code) if isinstance(code, str) else code,
                    tuple(shape), tuple(offsets))
    return dict(pairs)


def _entry(name: str, info: Any, body: int) -> tuple[np.dtype, tuple[int, ...], int, int]:
    """Validate one header entry (a tuple from ``_compact``, or a dict with other keys too): its
    dtype, shape and byte range."""
    if isinstance(info, tuple):  # shape and offsets as tuples, shown as lists in messages
        code, shape, offsets = info
    elif isinstance(info, dict):
        code, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
    else:
        raise FormatError(f"has a corrupt header: entry '{name}' is not an object")
    if code == "BF16":
        try:
            dtype = dtypes.to_dtype(dtypes.bfloat16).np
        except TypeError as err:  # ml_dtypes is not installed
            raise FormatError(f"holds tensor '{name}' as bfloat16 (BF16): {err}") from None
    elif isinstance(code, str) and code in DTYPES:
        dtype = np.dtype(DTYPES[code])
    else:
        raise FormatError(f"has a corrupt header: tensor '{name}' has unsupported dtype {code!r} "
                          f"(supported: {', '.join(DTYPES)})")
    shape = list(shape) if isinstance(shape, tuple) else shape
    offsets = list(offsets) if isinstance(offsets, tuple) else offsets
    if (not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape)):
        raise FormatError(f"has a corrupt header: tensor '{name}' has an invalid shape {shape!r}")
    # Check what NumPy would refuse before anything is allocated: more than 64 dimensions, or
    # non-zero extents whose bytes overflow an index. With a zero extent the byte count is 0
    # and agrees with any offsets, yet NumPy still refuses a shape like [0, 2**62].
    if len(shape) > MAX_DIMS:
        raise FormatError(f"has a corrupt header: tensor '{name}' has {len(shape)} dimensions, "
                          f"more than {MAX_DIMS}")
    if math.prod(d for d in shape if d) * dtype.itemsize > sys.maxsize:
        raise FormatError(f"has a corrupt header: tensor '{name}' has shape {shape}, too big "
                          f"for an array (its non-zero extents span more than {sys.maxsize} "
                          "bytes)")
    if (not isinstance(offsets, list) or len(offsets) != 2
            or not all(type(o) is int for o in offsets) or not 0 <= offsets[0] <= offsets[1]):
        raise FormatError(f"has a corrupt header: tensor '{name}' has invalid data_offsets "
                          f"{offsets!r}")
    begin, end = offsets
    if end - begin != math.prod(shape) * dtype.itemsize:
        raise FormatError(f"has a corrupt header: tensor '{name}' ({code}, shape {shape}) "
                          f"needs {math.prod(shape) * dtype.itemsize} bytes, data_offsets "
                          f"give {end - begin}")
    if end > body:
        raise FormatError(f"is truncated: tensor '{name}' ends at byte {end} of the data "
                          f"section, which has only {body} bytes")
    return dtype, tuple(shape), begin, end


def decode_file(raw: bytearray) -> tuple[dict[str, str], dict[str, np.ndarray]]:
    """The metadata and the tensors (views into ``raw``, in file order) of a safetensors file."""
    size = len(raw)
    if size < 8:
        raise FormatError(f"is not a safetensors file or is truncated: it has {size} bytes, fewer "
                          "than the 8-byte header length")
    n = int.from_bytes(raw[:8], "little")
    # A safetensors header is a JSON object: a file whose 9th byte is not "{" (text, an image,
    # random bytes) is no checkpoint at all, rather than a truncated or corrupt one.
    framed = raw[8:9] == b"{"
    if n > min(size - 8, MAX_HEADER):
        lead = "is truncated or not a safetensors file" if framed else NOT_A_CHECKPOINT
        raise FormatError(f"{lead}: the header length field says {n} bytes but {size - 8} "
                          "follow")
    try:
        header = json.loads(bytes(memoryview(raw)[8:8 + n]).decode("utf-8"),
                            object_pairs_hook=_compact)
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        lead = ("is not a safetensors file or its header is corrupt" if framed
                else NOT_A_CHECKPOINT)
        raise FormatError(f"{lead} (the header is not valid JSON: {type(err).__name__}: "
                          f"{str(err)[:80]})") from None
    if not isinstance(header, dict):
        raise FormatError("has a corrupt header: it is not a JSON object")
    metadata = header.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in metadata.items()):
        raise FormatError("has a corrupt header: __metadata__ must map strings to strings")
    body = size - 8 - n
    entries = sorted(((name, *_entry(name, info, body)) for name, info in header.items()),
                     key=lambda e: e[3])
    del header  # the entries hold all of it now: a header of many tensors is not kept twice
    position = 0
    for name, _dtype, _shape, begin, end in entries:
        if begin != position:
            raise FormatError(f"has a corrupt header: tensor '{name}' starts at byte {begin}, "
                              f"expected {position} (a hole or overlapping tensors)")
        position = end
    if position != body:
        raise FormatError(f"has a corrupt header: the data section has {body} bytes but the "
                          f"tensors cover {position}")
    base = 8 + n
    empty = {dtype: np.zeros(0, dtype) for dtype in {e[1] for e in entries}}
    # empty tensors are views of one empty array per dtype, not an allocation each
    arrays = {name: (np.frombuffer(raw, dtype, math.prod(shape), base + begin) if end > begin
                     else empty[dtype]).reshape(shape)
              for name, dtype, shape, begin, end in entries}
    return metadata, arrays
