"""The named-tuple results of ``tl.return_types`` (PyTorch's ``torch.return_types``): ``max``,
``sort``, ``linalg_eigh``, ... Defined here, in the lowest layer that returns them (the
decompositions of ``ops/linalg/decompositions.py``); ``tinygrad_lite/return_types.py`` is their
public home, and the name they print and pickle under.

Each is a ``collections.namedtuple`` (tuple equality, unpacking, indexing, ``._fields``,
``._asdict()``) that also behaves as PyTorch's structseq types: built from one sequence
(``tl.return_types.max((values, indices))``) as well as from its fields, with ``n_fields`` &
co, and printed as PyTorch prints them, one field a line::

    tinygrad_lite.return_types.max(
    values=tensor([...]),
    indices=tensor([...]))
"""

# ruff: noqa: N801 - the types carry PyTorch's names (max, linalg_eigh), which its repr shows
from __future__ import annotations

from collections import namedtuple
from typing import Any, cast

MODULE = "tinygrad_lite.return_types"

__all__ = [
    "StructSeq", "all_return_types", "aminmax", "aminmax_out", "cummax", "cummax_out", "cummin",
    "cummin_out", "frexp", "frexp_out", "geqrf", "geqrf_out", "histogram", "histogram_out",
    "histogramdd", "kthvalue", "kthvalue_out", "linalg_cholesky_ex", "linalg_cholesky_ex_out",
    "linalg_eig", "linalg_eig_out", "linalg_eigh", "linalg_eigh_out", "linalg_inv_ex",
    "linalg_inv_ex_out", "linalg_ldl_factor", "linalg_ldl_factor_ex", "linalg_ldl_factor_ex_out",
    "linalg_ldl_factor_out", "linalg_lstsq", "linalg_lstsq_out", "linalg_lu", "linalg_lu_factor",
    "linalg_lu_factor_ex", "linalg_lu_factor_ex_out", "linalg_lu_factor_out", "linalg_lu_out",
    "linalg_qr", "linalg_qr_out", "linalg_slogdet", "linalg_slogdet_out", "linalg_solve_ex",
    "linalg_solve_ex_out", "linalg_svd", "linalg_svd_out", "lu_unpack", "lu_unpack_out", "max",
    "max_out", "median", "median_out", "min", "min_out", "mode", "mode_out", "nanmedian",
    "nanmedian_out", "qr", "qr_out", "slogdet", "slogdet_out", "sort", "sort_out", "svd",
    "svd_out", "topk", "topk_out", "triangular_solve", "triangular_solve_out",
]


class StructSeq:
    """The behaviour every result type adds to its namedtuple: PyTorch's constructor from one
    sequence, its ``n_fields`` attributes and its repr."""

    __slots__ = ()
    n_fields: int = 0
    n_sequence_fields: int = 0
    n_unnamed_fields: int = 0

    @classmethod
    def _names(cls) -> tuple[str, ...]:
        return getattr(cls, "_fields", ())

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.n_fields = cls.n_sequence_fields = len(cls._names())
        cls.__module__ = MODULE

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        """``T(sequence)`` as PyTorch's, or ``T(field, ...)`` / ``T(name=...)`` as a
        namedtuple's."""
        if len(args) == 1 and not kwargs:  # every type has two fields or more
            values = tuple(args[0])
            if len(values) != cls.n_fields:
                raise TypeError(f"{MODULE}.{cls.__name__}() takes a {cls.n_fields}-sequence "
                                f"({len(values)}-sequence given)")
            return tuple.__new__(cast(Any, cls), values)
        return super().__new__(cls, *args, **kwargs)

    def __repr__(self) -> str:
        """PyTorch's form: the type's full name, then one ``field=value`` a line."""
        pairs = zip(self._names(), cast(tuple, self))
        lines = ",\n".join(f"{name}={value!r}" for name, value in pairs)
        return f"{type(self).__module__}.{type(self).__qualname__}(\n{lines})"

    __str__ = __repr__


class max(StructSeq, namedtuple("max", ["values", "indices"])):
    """``(values, indices)`` of ``tl.max(x, dim)``."""
    __slots__ = ()


class min(StructSeq, namedtuple("min", ["values", "indices"])):
    """``(values, indices)`` of ``tl.min(x, dim)``."""
    __slots__ = ()


class sort(StructSeq, namedtuple("sort", ["values", "indices"])):
    """``(values, indices)`` of ``tl.sort``."""
    __slots__ = ()


class topk(StructSeq, namedtuple("topk", ["values", "indices"])):
    """``(values, indices)`` of ``tl.topk``."""
    __slots__ = ()


class kthvalue(StructSeq, namedtuple("kthvalue", ["values", "indices"])):
    """``(values, indices)`` of ``tl.kthvalue``."""
    __slots__ = ()


class median(StructSeq, namedtuple("median", ["values", "indices"])):
    """``(values, indices)`` of ``tl.median(x, dim)``."""
    __slots__ = ()


class nanmedian(StructSeq, namedtuple("nanmedian", ["values", "indices"])):
    """``(values, indices)`` of ``tl.nanmedian(x, dim)``."""
    __slots__ = ()


class mode(StructSeq, namedtuple("mode", ["values", "indices"])):
    """``(values, indices)`` of ``tl.mode``."""
    __slots__ = ()


class cummax(StructSeq, namedtuple("cummax", ["values", "indices"])):
    """``(values, indices)`` of ``tl.cummax``."""
    __slots__ = ()


class cummin(StructSeq, namedtuple("cummin", ["values", "indices"])):
    """``(values, indices)`` of ``tl.cummin``."""
    __slots__ = ()


class aminmax(StructSeq, namedtuple("aminmax", ["min", "max"])):
    """``(min, max)`` of ``tl.aminmax``."""
    __slots__ = ()


class frexp(StructSeq, namedtuple("frexp", ["mantissa", "exponent"])):
    """``(mantissa, exponent)`` of ``tl.frexp``."""
    __slots__ = ()


class histogram(StructSeq, namedtuple("histogram", ["hist", "bin_edges"])):
    """``(hist, bin_edges)`` of ``tl.histogram``."""
    __slots__ = ()


class histogramdd(StructSeq, namedtuple("histogramdd", ["hist", "bin_edges"])):
    """``(hist, bin_edges)`` of ``tl.histogramdd``."""
    __slots__ = ()


class geqrf(StructSeq, namedtuple("geqrf", ["a", "tau"])):
    """``(a, tau)`` of ``tl.geqrf``."""
    __slots__ = ()


class slogdet(StructSeq, namedtuple("slogdet", ["sign", "logabsdet"])):
    """``(sign, logabsdet)`` of ``tl.slogdet``."""
    __slots__ = ()


class svd(StructSeq, namedtuple("svd", ["U", "S", "V"])):
    """``(U, S, V)`` of PyTorch's older ``tl.svd``."""
    __slots__ = ()


class qr(StructSeq, namedtuple("qr", ["Q", "R"])):
    """``(Q, R)`` of PyTorch's older ``tl.qr``."""
    __slots__ = ()


class triangular_solve(StructSeq, namedtuple("triangular_solve",
                                             ["solution", "cloned_coefficient"])):
    """``(solution, cloned_coefficient)`` of ``tl.triangular_solve``."""
    __slots__ = ()


class lu_unpack(StructSeq, namedtuple("lu_unpack", ["P", "L", "U"])):
    """``(P, L, U)`` of ``tl.lu_unpack``."""
    __slots__ = ()


class _lu_with_info(StructSeq, namedtuple("_lu_with_info", ["LU", "pivots", "info"])):
    """``(LU, pivots, info)`` of ``tl.lu(A, get_infos=True)``."""
    __slots__ = ()


class linalg_slogdet(StructSeq, namedtuple("linalg_slogdet", ["sign", "logabsdet"])):
    """``(sign, logabsdet)`` of ``tl.linalg.slogdet``."""
    __slots__ = ()


class linalg_eigh(StructSeq, namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])):
    """``(eigenvalues, eigenvectors)`` of ``tl.linalg.eigh``."""
    __slots__ = ()


class linalg_eig(StructSeq, namedtuple("linalg_eig", ["eigenvalues", "eigenvectors"])):
    """``(eigenvalues, eigenvectors)`` of ``tl.linalg.eig`` (which needs complex dtypes)."""
    __slots__ = ()


class linalg_svd(StructSeq, namedtuple("linalg_svd", ["U", "S", "Vh"])):
    """``(U, S, Vh)`` of ``tl.linalg.svd``."""
    __slots__ = ()


class linalg_qr(StructSeq, namedtuple("linalg_qr", ["Q", "R"])):
    """``(Q, R)`` of ``tl.linalg.qr``."""
    __slots__ = ()


class linalg_inv_ex(StructSeq, namedtuple("linalg_inv_ex", ["inverse", "info"])):
    """``(inverse, info)`` of ``tl.linalg.inv_ex``."""
    __slots__ = ()


class linalg_cholesky_ex(StructSeq, namedtuple("linalg_cholesky_ex", ["L", "info"])):
    """``(L, info)`` of ``tl.linalg.cholesky_ex``."""
    __slots__ = ()


class linalg_lstsq(StructSeq, namedtuple("linalg_lstsq", ["solution", "residuals", "rank",
                                                           "singular_values"])):
    """``(solution, residuals, rank, singular_values)`` of ``tl.linalg.lstsq``."""
    __slots__ = ()


class linalg_lu(StructSeq, namedtuple("linalg_lu", ["P", "L", "U"])):
    """``(P, L, U)`` of ``tl.linalg.lu``."""
    __slots__ = ()


class linalg_lu_factor(StructSeq, namedtuple("linalg_lu_factor", ["LU", "pivots"])):
    """``(LU, pivots)`` of ``tl.linalg.lu_factor``."""
    __slots__ = ()


class linalg_lu_factor_ex(StructSeq, namedtuple("linalg_lu_factor_ex",
                                                ["LU", "pivots", "info"])):
    """``(LU, pivots, info)`` of ``tl.linalg.lu_factor_ex``."""
    __slots__ = ()


class linalg_solve_ex(StructSeq, namedtuple("linalg_solve_ex", ["result", "info"])):
    """``(result, info)`` of ``tl.linalg.solve_ex``."""
    __slots__ = ()


class linalg_ldl_factor(StructSeq, namedtuple("linalg_ldl_factor", ["LD", "pivots"])):
    """``(LD, pivots)`` of ``tl.linalg.ldl_factor``."""
    __slots__ = ()


class linalg_ldl_factor_ex(StructSeq, namedtuple("linalg_ldl_factor_ex",
                                                 ["LD", "pivots", "info"])):
    """``(LD, pivots, info)`` of ``tl.linalg.ldl_factor_ex``."""
    __slots__ = ()


def _out_variant(base: type) -> type:
    """PyTorch's ``<name>_out``: the same fields, the type of a result written to ``out=``."""
    name = f"{base.__name__}_out"
    fields = namedtuple(name, base._fields)  # type: ignore[attr-defined, misc]
    doc = f"``{base.__name__}``'s fields, for results written to ``out=`` tensors."
    return type(name, (StructSeq, fields), {"__slots__": (), "__doc__": doc,
                                            "__qualname__": name})


max_out = _out_variant(max)
min_out = _out_variant(min)
sort_out = _out_variant(sort)
topk_out = _out_variant(topk)
kthvalue_out = _out_variant(kthvalue)
median_out = _out_variant(median)
nanmedian_out = _out_variant(nanmedian)
mode_out = _out_variant(mode)
cummax_out = _out_variant(cummax)
cummin_out = _out_variant(cummin)
aminmax_out = _out_variant(aminmax)
frexp_out = _out_variant(frexp)
histogram_out = _out_variant(histogram)
geqrf_out = _out_variant(geqrf)
slogdet_out = _out_variant(slogdet)
svd_out = _out_variant(svd)
qr_out = _out_variant(qr)
triangular_solve_out = _out_variant(triangular_solve)
lu_unpack_out = _out_variant(lu_unpack)
linalg_slogdet_out = _out_variant(linalg_slogdet)
linalg_eigh_out = _out_variant(linalg_eigh)
linalg_eig_out = _out_variant(linalg_eig)
linalg_svd_out = _out_variant(linalg_svd)
linalg_qr_out = _out_variant(linalg_qr)
linalg_inv_ex_out = _out_variant(linalg_inv_ex)
linalg_cholesky_ex_out = _out_variant(linalg_cholesky_ex)
linalg_lstsq_out = _out_variant(linalg_lstsq)
linalg_lu_out = _out_variant(linalg_lu)
linalg_lu_factor_out = _out_variant(linalg_lu_factor)
linalg_lu_factor_ex_out = _out_variant(linalg_lu_factor_ex)
linalg_solve_ex_out = _out_variant(linalg_solve_ex)
linalg_ldl_factor_out = _out_variant(linalg_ldl_factor)
linalg_ldl_factor_ex_out = _out_variant(linalg_ldl_factor_ex)

# every public type, as torch.return_types.all_return_types
all_return_types: list[type] = [globals()[name] for name in __all__
                                if name not in ("StructSeq", "all_return_types")]
