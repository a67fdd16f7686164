"""``repr(tensor)`` in PyTorch's style: ``tensor([1.0000, 2.5000], grad_fn=<MulBackward0>)``."""

from __future__ import annotations

import numpy as np

from ._core.tensor_base import TensorBase

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
    """PyTorch's choice: ``1.`` for whole numbers, 4 decimals, or scientific for wide ranges;
    every entry padded to the same width so columns line up."""
    finite = np.abs(values[np.isfinite(values)].astype(np.float64))
    nonzero = finite[finite > 0]
    digits, sci = _OPTIONS["precision"], _OPTIONS["sci_mode"]
    if sci is None and finite.size and np.all(finite == np.round(finite)) and finite.max() < 1e8:
        spec = "{:.0f}."
    elif sci or sci is None and nonzero.size and (nonzero.max() >= 1e8 or nonzero.min() < 1e-4
                                                 or nonzero.max() / nonzero.min() > 1e3):
        spec = f"{{:.{digits}e}}"
    else:
        spec = f"{{:.{digits}f}}"

    def fmt(v: float) -> str:
        return spec.format(v) if np.isfinite(v) else str(v)

    width = max(len(fmt(v)) for v in values.reshape(-1)[:2000])
    return lambda v: fmt(v).rjust(width)


def _bool_str(v: object) -> str:
    return "True" if v else "False"


def format_tensor(t: TensorBase) -> str:
    """The repr of ``t``: data, then dtype (if not a default), then grad information."""
    data = t._data
    if data.size == 0 and data.ndim == 1:
        body = "[]"
    elif data.size == 0:
        body = f"[], size={data.shape}"
    else:
        float_kind = _float_formatter(data) if data.dtype.kind == "f" else str
        # NumPy uses the entry for the array's kind and ignores the others
        body = np.array2string(data, separator=", ", prefix="tensor(",
                               threshold=_OPTIONS["threshold"], edgeitems=_OPTIONS["edgeitems"],
                               max_line_width=_OPTIONS["linewidth"],
                               formatter={"float_kind": float_kind, "bool": _bool_str, "int": str})
    parts = [body]
    if data.dtype not in _DEFAULT_DTYPES:
        parts.append(f"dtype={t.dtype!r}")
    if t.grad_fn is not None:
        parts.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t._requires_grad:
        parts.append("requires_grad=True")
    return f"tensor({', '.join(parts)})"
