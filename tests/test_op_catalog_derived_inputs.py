"""Every catalogue row against PyTorch on inputs derived from its samples (op_catalog/derived.py):
the samples themselves, 0-d, size-0 and non-contiguous (transposed or strided) inputs, and the
samples with zeros, ties, equal arguments and the row's kinks written in. Forward values, first
derivatives and (float64) a Hessian-vector product are compared, NaN and infinity positions
included; float32 runs forward and first order. Where PyTorch refuses a derived input (its
signature does not allow it), ours must refuse it too.

Why this rule exists: the catalogue used to draw only its rows' own shapes, and for leaky_relu
and GELU none was 0-d, so it never saw that a NumPy ufunc of 0-d operands returns a NumPy scalar
rather than a 0-d array, which their in-place fast paths then could not write into with
``out=``; deriving the variants for every row, rather than listing them per op, is what would
have caught it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from op_catalog import CATALOG, make_inputs
from op_catalog.derived import evaluate, in_library, singular_arrays, size_zero_candidates

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

# Rows or variants left out, with the reason ("*": every variant of the row).
OPT_OUT: dict[str, dict[str, str]] = {
    "getitem-negative-step": {"*": "PyTorch has no negative slicing step"},
    "scatter": {"*": "PyTorch's scatter backward returns a wrongly shaped gradient here"},
    "vander": {"*": "PyTorch's vander backward trips its own in-place check"},
    "vander-increasing": {"*": "PyTorch's vander backward trips its own in-place check"},
    "ldexp": {"*": "PyTorch's gradient of ldexp is 0 for a negative exponent (2 ** -2 taken "
                   "in integers); ours is 2 ** other"},
    "linalg-cond-fro": {"*": "PyTorch's backward trips its own in-place check"},
    "linalg-cond-inf": {"*": "PyTorch's backward trips its own in-place check"},
    "scatter-reduce-add": {"*": "PyTorch has no derivative for scatter with reduce"},
    "as_strided_scatter": {"*": "PyTorch's input gradient of as_strided_scatter is the "
                                "scattered window's, not the rest's (ours is the rest's)"},
    "take_along_dim-flat": {"non-contiguous": "PyTorch flattens with view(): refuses a "
                                              "transposed input (ours reshapes)"},
    "kron-mixed-ndim": {"non-contiguous": "PyTorch's kron views its input: refuses a "
                                          "transposed one (ours reshapes)"},
    "as_strided-overlapping-windows": {
        "non-contiguous": "as_strided addresses the storage: a transposed view's differs"},
    "as_strided-offset": {
        "non-contiguous": "as_strided addresses the storage: a transposed view's differs"},
}
# ties and rank deficiency: which element (or basis) is picked is not specified by PyTorch
for _name in ("linalg-svd-tall", "linalg-qr-tall", "linalg-lstsq", "topk", "kthvalue"):
    OPT_OUT.setdefault(_name, {})["singular"] = (
        "ties or a rank-deficient matrix: the element or basis picked is unspecified")

# Differences this sweep found and that are not fixed yet: each listed variant must still
# differ (when one is fixed the test says so, and the entry goes).
KNOWN: dict[str, dict[str, str]] = {
    "scatter_reduce-prod-exclude-self": {
        v: "second derivative of a product reduction differs" for v in
        ("base", "non-contiguous", "singular")},
    "index_reduce-prod-self-False": {
        v: "second derivative of a product reduction differs" for v in
        ("base", "non-contiguous", "singular")},
    "linalg-lu": {"singular": "ours: LU's backward solves with the singular factor and raises"},
    "linalg-lu-tall": {"singular": "ours: LU's backward solves with the singular factor and "
                                   "raises"},
    "prelu-per-channel": {"singular": "at x = 0 PyTorch's weight gradient does not depend on x"},
    "pow-same": {"singular": "0 ** b: PyTorch's second derivative is NaN at more points"},
    "pow-broadcast-both": {"singular": "0 ** b: PyTorch's second derivative is NaN at more "
                                       "points"},
    "pow-broadcast-left": {"singular": "0 ** b: PyTorch's second derivative is NaN at more "
                                       "points"},
    "pow-0dim": {"singular": "0 ** b: PyTorch's second derivative is NaN at more points"},
    "addcdiv": {"singular": "division by 0 at second order: NaN positions differ"},
    "gradient-coords-edge2": {v: "float32 input with float64 coordinates: PyTorch promotes to "
                                 "float64" for v in ("base", "non-contiguous")},
    "view_as": {"non-contiguous": "PyTorch refuses a view of incompatible strides; ours copies"},
    "cov": {"0-d": "ours: a NumPy warning from matmul's backward at the inf of 1 / 0"},
}

VARIANTS = ("base", "0-d", "size-0", "non-contiguous", "singular")
ROWS = [row for row in CATALOG if "*" not in OPT_OUT.get(row[0], {})]
TOLERANCE = {"float64": {"out": 1e-9, "grads": 1e-8, "hvp": 1e-7},
             "float32": {"out": 2e-5, "grads": 1e-4}}


def derived_inputs(name: str, shapes: list[tuple], domain: str, variant: str):
    """(arrays, layout) candidates of ``variant`` for the row, in the order tried."""
    base = make_inputs(shapes, domain)
    if variant == "base":
        return [(base, "contiguous")]
    if variant == "0-d":
        return [([np.array(a.reshape(-1)[0] if a.size else 0.5) for a in base], "contiguous")]
    if variant == "size-0":
        return [(make_inputs(s, domain), "contiguous") for s in size_zero_candidates(shapes)]
    if variant == "non-contiguous":
        return [(base, "non-contiguous")] if any(a.ndim for a in base) else []
    return [(singular_arrays(name, base), "contiguous")]


def differs(ours, theirs, rtol: float) -> str | None:
    """Why ``ours`` is not PyTorch's ``theirs``: NaN and infinities where PyTorch has them, the
    finite values within ``rtol`` (relative, with an absolute floor of ``10 * rtol``)."""
    if ours is None or theirs is None:  # no gradient on one side: the other must be zero
        other = theirs if ours is None else ours
        return None if other is None or not np.any(other) else "a gradient only on one side"
    if ours.shape != theirs.shape:
        return f"shape {ours.shape}, PyTorch's {theirs.shape}"
    nan_o, nan_t = np.isnan(ours), np.isnan(theirs)
    if (nan_o != nan_t).any():
        return f"NaN at {np.argwhere(nan_o != nan_t).tolist()[:3]} on one side only"
    inf_t = np.isinf(theirs)
    if (np.isinf(ours) != inf_t).any() or (ours[inf_t] != theirs[inf_t]).any():
        return "infinities differ"
    fin = np.isfinite(theirs)
    err = np.abs(ours[fin] - theirs[fin])
    if (err > rtol * (np.abs(theirs[fin]) + 10.0)).any():
        k = int(np.argmax(err))
        return f"off by {err[k]:.3g}: {ours[fin][k]!r}, PyTorch's {theirs[fin][k]!r}"
    return None


def compare(ours: dict, theirs: dict, dtype: str) -> str | None:
    if ours["dtype"] != theirs["dtype"]:
        return f"dtype {ours['dtype']}, PyTorch's {theirs['dtype']}"
    for key, rtol in TOLERANCE[dtype].items():
        a, b = ours.get(key), theirs.get(key)
        pairs = [(a, b)] if key == "out" else list(zip(a or [None] * len(b or []), b or []))
        for i, (x, y) in enumerate(pairs):
            why = differs(x, y, rtol)
            if why:
                return f"{key}[{i}]: {why}"
    return None


def run_variant(variant: str, fn, theirs_fn, arrays, layout: str, dtype: str) -> str | None:
    """None when ours matches PyTorch on these inputs (or both refuse them); else why not."""
    second = dtype == "float64"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            theirs = evaluate(torch, theirs_fn, arrays, layout, dtype, second)
        except Exception:  # noqa: BLE001 - PyTorch refuses: ours must too
            try:
                theirs = evaluate(torch, theirs_fn, arrays, layout, dtype, False)
                second = False  # PyTorch has no second derivative here: compare first order
            except Exception:  # noqa: BLE001
                try:
                    evaluate(tl, fn, arrays, layout, dtype, False)
                except Exception:  # noqa: BLE001
                    return None
                return "PyTorch refuses these inputs, ours accepts them"
        # no NumPy warning may come out of the package; at the singular points infinities
        # arise by design (x / 0) and their arithmetic is not this test's subject
        errors = "ignore" if variant == "singular" else "raise"
        try:  # (underflow is silent by NumPy's default, as it is in PyTorch)
            with np.errstate(divide=errors, over=errors, invalid=errors, under="ignore"):
                ours = evaluate(tl, fn, arrays, layout, dtype, second)
        except Exception as e:  # noqa: BLE001
            return f"ours raised {type(e).__name__}: {e}"[:300]
    if not second:
        theirs.pop("hvp", None)
        ours.pop("hvp", None)
    return compare(ours, theirs, dtype)


@pytest.mark.parametrize("name,fn,shapes,domain", ROWS, ids=[row[0] for row in ROWS])
def test_row_matches_pytorch_on_derived_inputs(name, fn, shapes, domain):
    theirs_fn = in_library(fn, torch)
    problems, fixed = [], []
    known = KNOWN.get(name, {})
    for variant in VARIANTS:
        if variant in OPT_OUT.get(name, {}):
            continue
        if variant in known:
            found = [run_variant(variant, fn, theirs_fn, arrays, layout, dtype)
                     for dtype in ("float64", "float32")
                     for arrays, layout in derived_inputs(name, shapes, domain, variant)]
            if not any(found):
                fixed.append(f"{variant}: {known[variant]}")
            continue
        for dtype in ("float64", "float32"):
            if dtype == "float32" and variant in ("size-0", "singular"):
                continue  # float32 adds nothing to these beyond float64's check
            for arrays, layout in derived_inputs(name, shapes, domain, variant):
                why = run_variant(variant, fn, theirs_fn, arrays, layout, dtype)
                if why is None:
                    break  # the first candidate both accept (or both refuse) decides
                problems.append(f"{variant} {dtype}: {why}")
                break
    assert not problems, "\n".join(problems)
    assert not fixed, "fixed, remove from KNOWN: " + "; ".join(fixed)


def test_every_opt_out_names_a_catalogue_row_and_a_reason():
    ids = {row[0] for row in CATALOG}
    for name, variants in [*OPT_OUT.items(), *KNOWN.items()]:
        assert name in ids, name
        assert all((v == "*" or v in VARIANTS) and len(r) > 20 for v, r in variants.items())


def test_derived_inputs_cover_zero_dim_size_zero_and_views():
    """The derivation itself: 0-d inputs, a zero-size dim, real non-contiguous views."""
    zero_d = derived_inputs("exp", [(3, 4)], "real", "0-d")[0][0]
    assert zero_d[0].shape == ()
    assert derived_inputs("add-same", [(3, 4), (3, 4)], "real", "size-0")[0][0][0].shape == (0, 4)
    from op_catalog.derived import leaves_and_inputs
    _, inputs = leaves_and_inputs(tl, [np.ones((3, 4)), np.ones(5)], "non-contiguous",
                                  tl.float64)
    assert not inputs[0].is_contiguous() and not inputs[1].is_contiguous()
    sing = singular_arrays("clamp", make_inputs([(3, 4)], "real"))[0]
    assert (sing == 0).any() and (sing == 0.5).any() and len(np.unique(sing)) < sing.size
