"""``repr(tensor)`` in PyTorch's style: ``tensor([1.0000, 2.5000], grad_fn=<MulBackward0>)``."""

from __future__ import annotations

import numpy as np

from ._core.device import is_meta_array
from ._core.tensor_base import TensorBase
from .dtypes import is_float_dtype

__all__ = ["format_tensor", "set_printoptions"]

_DEFAULT_DTYPES = (np.dtype(np.float32), np.dtype(np.int64), np.dtype(np.bool_))
_PROFILES = {"default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
             "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
             "full": {"precision": 4, "threshold": 2 ** 63 - 1, "edgeitems": 3,
                      "linewidth": 80}}
_OPTIONS: dict = {**_PROFILES["default"], "sci_mode": None}


def set_printoptions(precision: int | None = None, threshold: int | None = None,
                     edgeitems: int | None = None, linewidth: int | None = None,
                     profile: str | None = None, sci_mode: bool | None = None) -> None:
    """How tensors print, as ``torch.set_printoptions``: digits after the point, how many
    elements before summarising with ``...``, elements kept at each end, line width, a profile
    ("default", "short", "full"), and scientific notation forced on/off (None: automatic)."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions: unknown profile {profile!r}; expected one of "
                             f"{sorted(_PROFILES)}")
        _OPTIONS.update(_PROFILES[profile])
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            _OPTIONS[key] = int(value)
    _OPTIONS["sci_mode"] = sci_mode


def _float_formatter(values: np.ndarray):
    """PyTorch's choice, made from the nonzero finite entries only: ``1.`` when they are all
    whole, scientific for wide ranges (max/min > 1e3, max > 1e8 or min < 1e-4), else 4
    decimals; every entry right-aligned to the widest of them (``inf``/``nan`` do not widen)."""
    sample = values.reshape(-1)[:2000].astype(np.float64)
    valid = np.abs(sample[np.isfinite(sample) & (sample != 0)])
    digits, int_mode, sci, width = _OPTIONS["precision"], True, False, 1
    if valid.size:
        int_mode = bool(np.all(valid == np.ceil(valid)))
        sci = _OPTIONS["sci_mode"]
        if sci is None:
            sci = bool(valid.max() / valid.min() > 1e3 or valid.max() > 1e8 or valid.min() < 1e-4)
    spec = f"{{:.{digits}e}}" if sci else "{:.0f}." if int_mode else f"{{:.{digits}f}}"

    def fmt(v: float) -> str:
        return spec.format(v) if np.isfinite(v) else str(v)

    signed = sample[np.isfinite(sample) & (sample != 0)]
    if signed.size:
        width = max(len(fmt(v)) for v in signed)
    return lambda v: fmt(v).rjust(width)


def _padded(values: np.ndarray, text):
    """``text`` of each entry, right-aligned to the widest one (as PyTorch does for ints, bools)."""
    width = max(len(text(v)) for v in values.reshape(-1)[:2000])
    return lambda v: text(v).rjust(width)


def _bool_str(v: object) -> str:
    return "True" if v else "False"


def _meta_repr(t: TensorBase) -> str:
    """``tensor(..., device='meta', size=(2, 3), dtype=..., requires_grad=True)``."""
    parts = [f"size={tuple(t._data.shape)}"]
    if t._data.dtype != np.float32:
        parts.append(f"dtype={t.dtype!r}")
    if t.grad_fn is not None:
        parts.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t._requires_grad:
        parts.append("requires_grad=True")
    return "tensor(..., device='meta', " + ", ".join(parts) + ")"


def format_tensor(t: TensorBase) -> str:
    """The repr of ``t``: data, then dtype (if not a default), then grad information."""
    data = t._data
    if is_meta_array(data):  # no values to show (PyTorch's form)
        return _meta_repr(t)
    if data.size == 0 and data.ndim == 1:
        body = "[]"
    elif data.size == 0:
        body = f"[], size={data.shape}"
    else:
        if is_float_dtype(data.dtype) and data.dtype.kind != "f":
            data = data.astype(np.float32)  # bfloat16: NumPy formats only its own float kinds
        kind = data.dtype.kind
        entry = (_float_formatter(data) if kind == "f"
                 else _padded(data, _bool_str if kind == "b" else str))
        # NumPy uses the entry for the array's kind and ignores the others
        body = np.array2string(data, separator=", ", prefix="tensor(",
                               threshold=_OPTIONS["threshold"], edgeitems=_OPTIONS["edgeitems"],
                               max_line_width=_OPTIONS["linewidth"],
                               formatter={"float_kind": entry, "bool": entry, "int": entry})
        body = body.replace(", ...,", ",  ...,")  # PyTorch's summary entry is " ..."
    suffixes = []
    if t._data.dtype not in _DEFAULT_DTYPES:
        suffixes.append(f"dtype={t.dtype!r}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    # PyTorch's _add_suffixes: a suffix that would overflow the line goes on its own line
    text = "tensor(" + body
    line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if line + len(suffix) + 2 > _OPTIONS["linewidth"]:
            text += ",\n" + " " * len("tensor(") + suffix
            line = len("tensor(") + len(suffix)
        else:
            text += ", " + suffix
            line += len(suffix) + 2
    return text + ")"
