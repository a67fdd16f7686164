"""``tl.return_types``: the named-tuple results (max, sort, linalg_eigh, ...) are PyTorch's
``torch.return_types``: the same type names and fields, printed in PyTorch's form under
``tinygrad_lite.return_types.``, still tuples (unpacking, indexing, equality), pickle-able,
and built from one sequence as PyTorch's are."""

import copy
import pickle
import re
import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4))
S = rng.standard_normal((3, 3))
SPD = S @ S.T + 3 * np.eye(3)
SYM = S + S.T

# every call that returns a named tuple in PyTorch, written for either library
CALLS = {
    "max": lambda lib: lib.max(lib.tensor(X), 0),
    "min": lambda lib: lib.min(lib.tensor(X), 1),
    "Tensor.max": lambda lib: lib.tensor(X).max(dim=0),
    "sort": lambda lib: lib.sort(lib.tensor(X)),
    "topk": lambda lib: lib.topk(lib.tensor(X), 2),
    "kthvalue": lambda lib: lib.kthvalue(lib.tensor(X), 2),
    "median": lambda lib: lib.median(lib.tensor(X), 0),
    "nanmedian": lambda lib: lib.nanmedian(lib.tensor(X), 0),
    "nanmedian-0d": lambda lib: lib.nanmedian(lib.tensor(1.0), 0),
    "mode": lambda lib: lib.mode(lib.tensor(X), 0),
    "cummax": lambda lib: lib.cummax(lib.tensor(X), 0),
    "cummin": lambda lib: lib.cummin(lib.tensor(X), 1),
    "aminmax": lambda lib: lib.aminmax(lib.tensor(X)),
    "aminmax-dim": lambda lib: lib.aminmax(lib.tensor(X), dim=0),
    "frexp": lambda lib: lib.frexp(lib.tensor(X)),
    "histogram": lambda lib: lib.histogram(lib.tensor(X).flatten(), 3),
    "histogramdd": lambda lib: lib.histogramdd(lib.tensor(X), 3),
    "slogdet": lambda lib: lib.slogdet(lib.tensor(S)),
    "Tensor.slogdet": lambda lib: lib.tensor(S).slogdet(),
    "linalg.slogdet": lambda lib: lib.linalg.slogdet(lib.tensor(S)),
    "linalg.eigh": lambda lib: lib.linalg.eigh(lib.tensor(SYM)),
    "linalg.qr": lambda lib: lib.linalg.qr(lib.tensor(S)),
    "qr": lambda lib: lib.qr(lib.tensor(S)),
    "linalg.svd": lambda lib: lib.linalg.svd(lib.tensor(S)),
    "svd": lambda lib: lib.svd(lib.tensor(S)),
    "linalg.lu": lambda lib: lib.linalg.lu(lib.tensor(S)),
    "linalg.lu_factor": lambda lib: lib.linalg.lu_factor(lib.tensor(S)),
    "linalg.lu_factor_ex": lambda lib: lib.linalg.lu_factor_ex(lib.tensor(S)),
    "linalg.inv_ex": lambda lib: lib.linalg.inv_ex(lib.tensor(S)),
    "linalg.cholesky_ex": lambda lib: lib.linalg.cholesky_ex(lib.tensor(SPD)),
    "linalg.lstsq": lambda lib: lib.linalg.lstsq(lib.tensor(S), lib.tensor(S)),
    "linalg.solve_ex": lambda lib: lib.linalg.solve_ex(lib.tensor(S), lib.tensor(S)),
    "lu_unpack": lambda lib: lib.lu_unpack(*lib.linalg.lu_factor(lib.tensor(S))),
    "triangular_solve": lambda lib: lib.triangular_solve(lib.tensor(S), lib.tensor(S)),
    "geqrf": lambda lib: lib.geqrf(lib.tensor(S)),
    "linalg.ldl_factor": lambda lib: lib.linalg.ldl_factor(lib.tensor(SYM)),
    "linalg.ldl_factor_ex": lambda lib: lib.linalg.ldl_factor_ex(lib.tensor(SYM)),
    "lu-get_infos": lambda lib: lib.lu(lib.tensor(S), get_infos=True),
}


def _call(name, lib):
    with warnings.catch_warnings():  # PyTorch's deprecation notes (torch.lu & co)
        warnings.simplefilter("ignore")
        return CALLS[name](lib)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_result_types_are_named_tuples_of_return_types(name):
    out = _call(name, tl)
    kind = type(out)
    assert kind.__module__ == "tinygrad_lite.return_types"
    assert getattr(tl.return_types, kind.__name__) is kind
    assert isinstance(out, tuple) and isinstance(out, tl.return_types.StructSeq)
    assert len(out) == len(kind._fields) == kind.n_fields == kind.n_sequence_fields
    assert kind.n_unnamed_fields == 0
    for i, field in enumerate(kind._fields):
        assert getattr(out, field) is out[i]
    assert out == tuple(out) and tuple(out) == out  # equal as tuples
    first, *rest = out  # unpacking
    assert first is out[0] and len(rest) == len(out) - 1


@pytest.mark.parametrize("name", sorted(CALLS))
def test_result_types_match_pytorchs(name):
    torch = pytest.importorskip("torch")
    ours, ref = _call(name, tl), _call(name, torch)
    assert type(ours).__name__ == type(ref).__name__
    assert type(ours).n_fields == type(ref).n_fields
    # the field names, as PyTorch's repr shows them
    assert re.findall(r"\n(\w+)=", repr(ours)) == re.findall(r"\n(\w+)=", repr(ref))


def test_repr_is_pytorchs_form_under_this_package():
    torch = pytest.importorskip("torch")
    x = np.array([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]], np.float32)
    ours = repr(tl.max(tl.tensor(x), dim=0))
    ref = repr(torch.max(torch.tensor(x), dim=0))
    assert ours == ref.replace("torch.return_types.", "tinygrad_lite.return_types.")
    assert ours == ("tinygrad_lite.return_types.max(\nvalues=tensor([4., 5., 3.]),\n"
                    "indices=tensor([1, 0, 1]))")
    assert str(tl.max(tl.tensor(x), dim=0)) == ours
    # multi-line values and four fields
    ours = repr(tl.sort(tl.tensor(x)))
    ref = repr(torch.sort(torch.tensor(x)))
    assert ours == ref.replace("torch.return_types.", "tinygrad_lite.return_types.")
    assert repr(tl.return_types.linalg_lstsq((1, 2, 3, 4))) == repr(
        torch.return_types.linalg_lstsq((1, 2, 3, 4))).replace("torch.", "tinygrad_lite.")


def test_constructed_from_one_sequence_or_from_fields():
    rt = tl.return_types
    assert rt.max((1, 2)) == rt.max([1, 2]) == rt.max(iter((1, 2))) == (1, 2)
    assert rt.max(1, 2) == rt.max(values=1, indices=2) == (1, 2)  # namedtuple's forms too
    assert type(rt.max((1, 2))) is rt.max and rt.max((1, 2)).indices == 2
    with pytest.raises(TypeError, match=re.escape(
            "tinygrad_lite.return_types.max() takes a 2-sequence (1-sequence given)")):
        rt.max((1,))
    with pytest.raises(TypeError, match="takes a 2-sequence .3-sequence given"):
        rt.max((1, 2, 3))
    assert rt.max((1, 2))._replace(values=5) == (5, 2)
    assert rt.max((1, 2))._asdict() == {"values": 1, "indices": 2}


def test_pickle_and_copy_keep_the_type():
    out = tl.max(tl.tensor(X), dim=0)
    for again in (pickle.loads(pickle.dumps(out)), copy.copy(out), copy.deepcopy(out)):
        assert type(again) is tl.return_types.max
        np.testing.assert_array_equal(again.values.numpy(), out.values.numpy())
        np.testing.assert_array_equal(again.indices.numpy(), out.indices.numpy())
    for kind in tl.return_types.all_return_types:
        values = tuple(range(kind.n_fields))
        again = pickle.loads(pickle.dumps(kind(values)))
        assert type(again) is kind and again == values


def test_namespace_matches_pytorchs():
    torch = pytest.importorskip("torch")
    theirs = {n for n in torch.return_types.__all__
              if n not in ("pytree_register_structseq",)}
    ours = set(tl.return_types.__all__) - {"StructSeq"}
    assert theirs <= ours
    assert {t.__name__ for t in tl.return_types.all_return_types} == theirs - {
        "all_return_types"}
    for name in theirs - {"all_return_types"}:
        kind = getattr(tl.return_types, name)
        assert kind.__name__ == name and kind.__module__ == "tinygrad_lite.return_types"
        assert kind.__doc__
        assert kind.n_fields == getattr(torch.return_types, name).n_fields


def test_results_still_work_as_before():
    x = tl.tensor(X, requires_grad=True)
    values, indices = tl.max(x, 1)
    values.sum().backward()
    assert x.grad.sum().item() == 3.0 and indices.dtype == tl.int64
    assert tl.median(tl.tensor([[1.0, float("nan"), 3.0]]), 1).values.isnan().all()
    assert tl.nanmedian(tl.tensor([[1.0, float("nan"), 3.0]]), 1).values.item() == 1.0
    sign, logabsdet = tl.linalg.slogdet(tl.tensor(S))
    np.testing.assert_allclose(sign.item() * np.exp(logabsdet.item()), np.linalg.det(S))
    inverse, info = tl.linalg.inv_ex(tl.tensor(S))
    np.testing.assert_allclose(inverse.numpy(), np.linalg.inv(S), atol=1e-12)
    assert info.dtype == tl.int32 and info.item() == 0
    # out= still writes into the tensors given
    a, b = tl.empty(4), tl.empty(4, dtype=tl.int64)
    out = tl.max(tl.tensor(X), 0, out=(a, b))
    assert out.values is a and out.indices is b


@pytest.mark.parametrize("name", ["max", "min", "sort", "topk", "kthvalue", "cummax", "mode"])
def test_out_results_are_the_out_variant(name: str) -> None:
    """With out=(values, indices), the result is the "_out" named tuple holding those very
    tensors, as PyTorch's (torch.return_types.max_out, ...)."""
    calls = {"max": lambda lib, x, out: lib.max(x, 1, out=out),
             "min": lambda lib, x, out: lib.min(x, 1, out=out),
             "sort": lambda lib, x, out: lib.sort(x, 1, out=out),
             "topk": lambda lib, x, out: lib.topk(x, 2, 1, out=out),
             "kthvalue": lambda lib, x, out: lib.kthvalue(x, 2, 1, out=out),
             "cummax": lambda lib, x, out: lib.cummax(x, 1, out=out),
             "mode": lambda lib, x, out: lib.mode(x, 1, out=out)}
    out = (tl.empty(0, dtype=tl.float64), tl.empty(0, dtype=tl.int64))
    got = calls[name](tl, tl.tensor(X), out)
    assert type(got).__name__ == f"{name}_out" and type(got) is getattr(tl.return_types,
                                                                         f"{name}_out")
    assert got.values is out[0] and got.indices is out[1]
    torch = pytest.importorskip("torch")
    theirs = calls[name](torch, torch.tensor(X), (torch.empty(0, dtype=torch.float64),
                                                  torch.empty(0, dtype=torch.long)))
    assert type(theirs).__name__ == type(got).__name__
    np.testing.assert_array_equal(got.values.numpy(), theirs.values.numpy())
