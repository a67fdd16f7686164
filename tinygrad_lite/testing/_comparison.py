"""``assert_close`` and the deprecated ``assert_allclose``, with PyTorch's semantics and messages.

The inputs are walked as PyTorch walks them: sequences (not strings) and mappings are compared
item by item, the path of a failing item is appended to the message ("The failure occurred for
item [1]['w']"); each leaf pair is handled by the first kind that accepts it: both None, both
booleans, both numbers (Python or NumPy scalars), or two directly related tensor-likes (tensors,
NumPy arrays, anything ``tl.as_tensor`` takes). Anything else is a TypeError. Closeness is
``|actual - expected| <= atol + rtol * |expected|``, computed in the inputs' dtype like
``torch.isclose``, with default tolerances per dtype when neither is given. Sparse tensors are
compared by their dense values (PyTorch compares their nnz, indices and values one by one).
"""

from __future__ import annotations

import cmath
import collections.abc
import contextlib
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from .. import dtypes, functions
from .._core.tensor_base import TensorBase
from .._core.warnings import warn

__all__ = ["assert_close", "assert_allclose"]

# {dtype: (rtol, atol)}: the loosest of the two inputs' entries is used; other dtypes are exact
_PRECISIONS = {dtypes.float16: (0.001, 1e-5), dtypes.bfloat16: (0.016, 1e-5),
               dtypes.float32: (1.3e-6, 1e-5), dtypes.float64: (1e-7, 1e-7)}
_COMPLEX128 = object()  # the dtype a Python complex stands for (tensors here are never complex)
_PRECISIONS_EXTRA = {_COMPLEX128: (1e-7, 1e-7)}
_NUMBER_DTYPES: dict[type, Any] = {int: dtypes.int64, float: dtypes.float64, complex: _COMPLEX128}
_WIDE_UNSIGNED = (dtypes.uint16, dtypes.uint32, dtypes.uint64)  # compared as int64, as PyTorch


class _ComparisonError(Exception):
    """A failure found while walking or comparing: the exception type to raise, its message and
    the path of the item it is about."""

    def __init__(self, kind: type[Exception], msg: str, *, id: tuple = ()) -> None:  # noqa: A002
        super().__init__(msg)
        self.kind, self.msg, self.id = kind, msg, id

    def to_error(self, msg: str | Callable[[str], str] | None = None) -> Exception:
        """The user-facing exception; a string ``msg`` replaces the text, a callable edits it."""
        if not isinstance(msg, str):
            text = self.msg
            if self.id:
                text += f"\n\nThe failure occurred for item {''.join(str([i]) for i in self.id)}"
            msg = msg(text) if callable(msg) else text
        return self.kind(msg)


class _UnsupportedInputsError(Exception):
    """A pair kind that does not handle the inputs; the next one is tried."""


def _tolerances(*kinds: Any, rtol: float | None, atol: float | None,
                id: tuple = (), table: dict | None = None) -> tuple[float, float]:  # noqa: A002
    """Both tolerances as given, or both defaults for the dtypes; one without the other is a
    ValueError."""
    if (rtol is None) ^ (atol is None):
        raise _ComparisonError(ValueError, "Both 'rtol' and 'atol' must be either specified or "
                         f"omitted, but got no {'rtol' if rtol is None else 'atol'}.", id=id)
    if rtol is not None and atol is not None:
        return rtol, atol
    table = table or {**_PRECISIONS, **_PRECISIONS_EXTRA}
    rtols, atols = zip(*(table.get(k, (0.0, 0.0)) for k in kinds))
    return max(rtols), max(atols)


def _diff_lines(identifier: str, extra: str, abs_diff: Any, abs_idx: Any, atol: float,
                rel_diff: Any, rel_idx: Any, rtol: float) -> str:
    """PyTorch's mismatch text: header, ``extra``, then the absolute and relative differences
    (with where they are and the allowed tolerance, unless the comparison is exact)."""
    equality = rtol == 0 and atol == 0
    lines = [f"{identifier} are not {'equal' if equality else 'close'}!", "", extra.strip()]
    for name, diff, idx, tol in (("absolute", abs_diff, abs_idx, atol),
                                 ("relative", rel_diff, rel_idx, rtol)):
        line = (f"{name.title()} difference: {diff}" if idx is None
                else f"Greatest {name} difference: {diff} at index {idx}")
        lines.append(line if equality else f"{line} (up to {tol} allowed)")
    return "\n".join(lines).strip()


def _scalar_message(actual: Any, expected: Any, rtol: float, atol: float) -> str:
    """The message for two scalars (Python numbers or 0-d tensors) that are not close."""
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _diff_lines("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, atol,
                       rel_diff, None, rtol)


def _pair_none(actual: Any, expected: Any, id: tuple, **_: Any) -> Callable[[], None]:  # noqa: A002
    """Either input None: both must be."""
    if not (actual is None or expected is None):
        raise _UnsupportedInputsError

    def compare() -> None:
        if not (actual is None and expected is None):
            raise _ComparisonError(AssertionError, f"None mismatch: {actual} is not {expected}",
                                   id=id)
    return compare


def _pair_boolean(actual: Any, expected: Any, id: tuple, **_: Any) -> Callable[[], None]:  # noqa: A002
    """Two booleans (``bool`` or ``np.bool_``): identical."""
    if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
        raise _UnsupportedInputsError
    a, e = bool(actual), bool(expected)

    def compare() -> None:
        if a is not e:
            raise _ComparisonError(AssertionError, f"Booleans mismatch: {a} is not {e}", id=id)
    return compare


def _pair_number(actual: Any, expected: Any, id: tuple, rtol: float | None,  # noqa: A002
                 atol: float | None, equal_nan: bool, check_dtype: bool,
                 **_: Any) -> Callable[[], None]:
    """Two numbers (int, float, complex or NumPy scalars): close, and of one type when
    ``check_dtype``."""
    if not all(isinstance(x, (int, float, complex, np.number)) for x in (actual, expected)):
        raise _UnsupportedInputsError
    a, e = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
    r, t = _tolerances(*(_NUMBER_DTYPES[type(x)] for x in (a, e)), rtol=rtol, atol=atol, id=id)

    def compare() -> None:
        if check_dtype and type(a) is not type(e):
            raise _ComparisonError(AssertionError,
                             f"The (d)types do not match: {type(a)} != {type(e)}.", id=id)
        if a == e or (equal_nan and cmath.isnan(a) and cmath.isnan(e)):
            return
        diff = abs(a - e)
        if cmath.isfinite(diff) and diff <= t + r * abs(e):
            return
        raise _ComparisonError(AssertionError, _scalar_message(a, e, r, t), id=id)
    return compare


def _is_tensor(x: Any) -> bool:
    """A tinygrad_lite tensor, dense or sparse."""
    return isinstance(x, TensorBase) or (getattr(x, "is_sparse", False) is True
                                         and hasattr(x, "to_dense"))


def _pair_tensor(actual: Any, expected: Any, id: tuple, allow_subclasses: bool,  # noqa: A002
                 rtol: float | None, atol: float | None, equal_nan: bool, check_dtype: bool,
                 check_device: bool, check_layout: bool, check_stride: bool,
                 **_: Any) -> Callable[[], None]:
    """Two directly related tensor-likes (one's type a subclass of the other's; NumPy arrays and
    what else ``tl.as_tensor`` accepts are converted): attributes, then values."""
    related = (isinstance(actual, type(expected)) or isinstance(expected, type(actual))
               or (_is_tensor(actual) and _is_tensor(expected)))
    if not related or (not allow_subclasses and type(actual) is not type(expected)):
        raise _UnsupportedInputsError
    try:
        a, e = (x if _is_tensor(x) else functions.as_tensor(x) for x in (actual, expected))
    except Exception:
        raise _UnsupportedInputsError from None
    r, t = _tolerances(a.dtype, e.dtype, rtol=rtol, atol=atol, id=id)

    def fail(attribute: str, got: Any, want: Any) -> NoReturn:
        raise _ComparisonError(AssertionError, f"The values for attribute '{attribute}' do not "
                         f"match: {got} != {want}.", id=id)

    def compare() -> None:
        if tuple(a.shape) != tuple(e.shape):
            fail("shape", a.shape, e.shape)
        if a.layout != e.layout:
            if check_layout:
                fail("layout", a.layout, e.layout)
        elif not a.is_sparse and check_stride and a.stride() != e.stride():
            fail("stride()", a.stride(), e.stride())
        if check_device and a.device != e.device:
            fail("device", a.device, e.device)
        if check_dtype and a.dtype != e.dtype:
            fail("dtype", a.dtype, e.dtype)
        x, y = (np.asarray((v.to_dense() if v.is_sparse else v).detach()._data) for v in (a, e))
        if x.dtype != y.dtype:
            common = dtypes.result_type(*(np.empty(1, (dtypes.int64 if v.dtype in _WIDE_UNSIGNED
                                                       else v.dtype).np) for v in (a, e)))
            x, y = x.astype(common), y.astype(common)
        _compare_values(x, y, r, t, equal_nan, id)
    return compare


def _isclose(x: np.ndarray, y: np.ndarray, rtol: float, atol: float,
             equal_nan: bool) -> np.ndarray:
    """``torch.isclose``: equal, or both NaN with ``equal_nan``, or a finite difference within
    ``atol + |rtol * y|`` (computed in the float dtype, integers and bools in the default one)."""
    close = x == y
    floating = dtypes.is_float_dtype(x.dtype)
    if equal_nan and floating:
        close |= np.isnan(x) & np.isnan(y)
    if rtol == 0 and atol == 0:
        return close
    default = dtypes.get_default_dtype().np
    if x.dtype == np.bool_:
        x, y = x.astype(default), y.astype(default)
    allowed = atol + np.abs(rtol * (y if dtypes.is_float_dtype(y.dtype) else y.astype(default)))
    error = np.abs(x - y)
    return close | (np.isfinite(error) & (error <= allowed))


def _compare_values(x: np.ndarray, y: np.ndarray, rtol: float, atol: float, equal_nan: bool,
                    id: tuple) -> None:  # noqa: A002
    """Raise PyTorch's "Tensor-likes are not close!" (or the scalar message for 0-d inputs)
    unless every element of ``x`` is close to ``y``."""
    with np.errstate(all="ignore"):
        matches = _isclose(x, y, rtol, atol, equal_nan)
        if matches.all():
            return
        if x.ndim == 0:
            a, e = (v.item() if not dtypes.is_float_dtype(v.dtype) else float(v) for v in (x, y))
            raise _ComparisonError(AssertionError, _scalar_message(a, e, rtol, atol), id=id)
        total, wrong = matches.size, int(matches.size - matches.sum())
        extra = f"Mismatched elements: {wrong} / {total} ({wrong / total:.1%})"
        x, y, ok = x.reshape(-1), y.reshape(-1), matches.reshape(-1)
        floating = dtypes.is_float_dtype(x.dtype)
        if not floating:
            x, y = x.astype(np.int64), y.astype(np.int64)
        abs_diff = np.abs(x - y)
        abs_diff[ok] = 0
        if floating:
            rel_diff = abs_diff / np.abs(y)
        else:  # integer true division gives the default float dtype, as in PyTorch
            default = dtypes.get_default_dtype().np
            rel_diff = abs_diff.astype(default) / np.abs(y).astype(default)
        rel_diff[ok] = 0
        abs_at, rel_at = int(np.argmax(abs_diff)), int(np.argmax(rel_diff))

    def where(flat: int) -> tuple[int, ...]:
        return tuple(int(i) for i in np.unravel_index(flat, matches.shape))

    def item(v: Any) -> Any:
        return float(v) if floating or isinstance(v, np.floating) else int(v)
    raise _ComparisonError(AssertionError, _diff_lines(
        "Tensor-likes", extra, item(abs_diff[abs_at]), where(abs_at), atol,
        float(rel_diff[rel_at]), where(rel_at), rtol), id=id)


_PAIRS = (("NonePair", _pair_none), ("BooleanPair", _pair_boolean),
          ("NumberPair", _pair_number), ("TensorLikePair", _pair_tensor))


def _originate(actual: Any, expected: Any, id: tuple,  # noqa: A002
               options: dict[str, Any]) -> list[Callable[[], None]]:
    """The comparisons of all leaf pairs (recursing through sequences and mappings); raises
    for mismatched lengths or keys, and for leaves no pair kind handles."""
    def is_sequence(x: Any) -> bool:
        return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)

    if is_sequence(actual) and is_sequence(expected):
        if len(actual) != len(expected):
            raise _ComparisonError(AssertionError, f"The length of the sequences mismatch: "
                             f"{len(actual)} != {len(expected)}", id=id)
        return [c for i in range(len(actual))
                for c in _originate(actual[i], expected[i], (*id, i), options)]
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected,
                                                                  collections.abc.Mapping):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise _ComparisonError(AssertionError, (
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
                f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}"),
                id=id)
        keys: Any = actual_keys
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        return [c for k in keys for c in _originate(actual[k], expected[k], (*id, k), options)]
    for name, make in _PAIRS:
        try:
            return [make(actual, expected, id=id, **options)]
        except (_UnsupportedInputsError, _ComparisonError) as err:
            if isinstance(err, _ComparisonError):
                raise
        except Exception as error:
            raise RuntimeError(
                f"Originating a {name}() at item {''.join(str([i]) for i in id)} with\n\n"
                f"{type(actual).__name__}(): {actual}\n\nand\n\n{type(expected).__name__}(): "
                f"{expected}\n\nresulted in the unexpected exception above.") from error
    raise _ComparisonError(TypeError, f"No comparison pair was able to handle inputs of type "
                     f"{type(actual)} and {type(expected)}.", id=id)


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True,
                 rtol: float | None = None, atol: float | None = None, equal_nan: bool = False,
                 check_device: bool = True, check_dtype: bool = True, check_layout: bool = True,
                 check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Assert that ``actual`` and ``expected`` are close (``torch.testing.assert_close``)."""
    __tracebackhide__ = True  # noqa: F841 - hides this frame from pytest's tracebacks
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype,
                   check_layout=check_layout, check_stride=check_stride)
    try:
        comparisons = _originate(actual, expected, (), options)
    except _ComparisonError as meta:
        raise meta.to_error() from None
    for compare in comparisons:
        try:
            compare()
        except _ComparisonError as meta:
            raise meta.to_error(msg) from None


_ALLCLOSE_PRECISIONS = {dtypes.float16: (1e-3, 1e-3), dtypes.float32: (1e-4, 1e-5),
                        dtypes.float64: (1e-5, 1e-8)}


def assert_allclose(actual: Any, expected: Any, rtol: float | None = None,
                    atol: float | None = None, equal_nan: bool = True, msg: str = "") -> None:
    """Deprecated form of ``assert_close`` (looser defaults, dtypes promoted, NaNs equal)."""
    __tracebackhide__ = True  # noqa: F841
    warn("`tinygrad_lite.testing.assert_allclose()` is deprecated since 1.12 and will be "
         "removed in a future release. Please use `tinygrad_lite.testing.assert_close()` "
         "instead. You can find detailed upgrade instructions in "
         "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning)
    if not isinstance(actual, TensorBase):
        actual = functions.tensor(actual)
    if not isinstance(expected, TensorBase):
        expected = functions.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _tolerances(actual.dtype, expected.dtype, rtol=None, atol=None,
                                 table=_ALLCLOSE_PRECISIONS)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
