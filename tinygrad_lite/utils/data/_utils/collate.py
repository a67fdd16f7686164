"""``default_collate`` and ``default_convert``: samples to batches, with PyTorch's semantics.

``collate`` dispatches on the type of the first element through ``collate_fn_map`` (exact type
first, then ``isinstance`` in insertion order) and recurses into mappings, named tuples and
sequences; ``default_collate_fn_map`` handles tensors (stacked), NumPy arrays (as tensors, then
stacked), NumPy scalars, Python floats (float64), ints (int64, bools stay bool) and strings
(kept as a list). Tuples come back as lists, as in PyTorch.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, MutableMapping, MutableSequence, Sequence
from typing import Any

import numpy as np

from .... import dtypes
from ...._core.tensor_base import TensorBase
from ....functions import creation as _creation
from ....functions import shape as _shape

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map",
           "default_collate_err_msg_format"]

CollateFnMap = dict[type | tuple[type, ...], Callable[..., Any]]

# dtype.str of NumPy arrays of strings, bytes and objects (no tensor can hold them)
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
    "found {}"
)


def _is_numpy(obj: Any) -> bool:
    """NumPy arrays and scalars, except string scalars (``np.str_``, ``np.bytes_``)."""
    return type(obj).__module__ == "numpy" and not isinstance(obj, (str, bytes))


def default_convert(data: Any) -> Any:
    """Turn the NumPy arrays and scalars in ``data`` into tensors (recursing into mappings and
    sequences; tuples become lists); everything else is returned as is."""
    if isinstance(data, TensorBase):
        return data
    if _is_numpy(data):
        if isinstance(data, np.ndarray) and np_str_obj_array_pattern.search(data.dtype.str):
            return data
        return _creation.as_tensor(np.asarray(data))  # scalars keep their NumPy dtype
    if isinstance(data, Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # named tuple
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def _rebuild_mapping(like: Mapping, values: dict) -> Any:
    """``values`` in a mapping of the type of ``like`` (a plain dict where that fails)."""
    try:
        if isinstance(like, MutableMapping):
            clone = copy.copy(like)  # keeps the extra state a mapping subclass may carry
            clone.update(values)
            return clone
        return type(like)(values)  # type: ignore[call-arg]  # most mappings take a dict
    except TypeError:
        return values


def _rebuild_sequence(like: Sequence, values: list) -> Any:
    """``values`` in a sequence of the type of ``like`` (a plain list where that fails)."""
    try:
        if isinstance(like, MutableSequence):
            clone = copy.copy(like)
            for i, v in enumerate(values):
                clone[i] = v
            return clone
        return type(like)(values)  # type: ignore[call-arg]  # most sequences take a list
    except TypeError:
        return values


def collate(batch: Sequence[Any], *, collate_fn_map: CollateFnMap | None = None) -> Any:
    """Collate the samples of ``batch`` by the type of the first one: a function from
    ``collate_fn_map`` for it, else per key / per position for mappings and sequences."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type, fn in collate_fn_map.items():
            if isinstance(elem, collate_type):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, Mapping):
        return _rebuild_mapping(elem, {key: collate([d[key] for d in batch],
                                                    collate_fn_map=collate_fn_map)
                                       for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # named tuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map)
                           for samples in zip(*batch)))
    if isinstance(elem, Sequence):
        size = len(elem)
        if any(len(b) != size for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        collated = [collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return collated  # a list, as PyTorch does for backward compatibility
        return _rebuild_sequence(elem, collated)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch: Sequence[TensorBase], *,
                      collate_fn_map: CollateFnMap | None = None) -> TensorBase:
    """Tensors: stacked along a new first dim (a recorded op when they require grad)."""
    return _shape.stack(batch, 0)


def collate_numpy_array_fn(batch: Sequence[np.ndarray], *,
                           collate_fn_map: CollateFnMap | None = None) -> Any:
    """NumPy arrays: as tensors, then collated (stacked); string/object arrays are an error."""
    if np_str_obj_array_pattern.search(batch[0].dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(batch[0].dtype))
    return collate([_creation.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch: Sequence[Any], *,
                            collate_fn_map: CollateFnMap | None = None) -> TensorBase:
    """NumPy scalars: one tensor, of the dtype PyTorch infers from the list (``[np.float32(1),
    2.0]`` stays float32 where NumPy says float64)."""
    array = np.asarray(batch)
    if array.dtype.type is type(batch[0]):  # nothing widened it: PyTorch agrees (the usual case)
        return _creation.as_tensor(array)
    return _creation.as_tensor(list(batch))  # PyTorch's inference, element by element


def collate_float_fn(batch: Sequence[float], *,
                     collate_fn_map: CollateFnMap | None = None) -> TensorBase:
    """Python floats: a float64 tensor."""
    return _creation.tensor(list(batch), dtype=dtypes.float64)


def collate_int_fn(batch: Sequence[int], *,
                   collate_fn_map: CollateFnMap | None = None) -> TensorBase:
    """Python ints (and bools): a tensor of the inferred dtype (int64, or bool)."""
    return _creation.tensor(list(batch))


def collate_str_fn(batch: Sequence[Any], *, collate_fn_map: CollateFnMap | None = None) -> Any:
    """Strings and bytes: the batch itself."""
    return batch


default_collate_fn_map: CollateFnMap = {
    TensorBase: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    # NumPy's scalar hierarchy, string scalars left out (they are str/bytes subclasses)
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch: Sequence[Any]) -> Any:
    """Put a list of samples into a batch with a new outer dimension (``collate`` with
    ``default_collate_fn_map``): tensors, arrays and numbers become stacked tensors, mappings
    and named tuples keep their type, tuples and lists become lists, strings stay a list."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
