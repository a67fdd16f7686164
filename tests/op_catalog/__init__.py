"""One catalogue of differentiable ops. Each row drives a float64 gradient check, a second-order
check, a float32 forward check against a NumPy reference and a float16 forward check (see
test_ops.py); adding an op is one ``row(...)`` call in the module of its op family.

A row: (id, function of tensors, input shapes, value domain), plus a NumPy reference kept in
``REFERENCE`` under the same id (``SAME``: the function itself also works on NumPy arrays).
Binary ops are listed once in ``BINARY`` (pointwise.py) and expanded into same-shape, broadcast
(both ways), 0-dim and Python-scalar rows. Domains: "real" (standard normal), "positive"
(0.5..2), "nonzero" (|x| in 0.5..2, random sign), "unit" (-0.9..0.9), "distinct" (a
permutation, so max/maximum have no ties).

The table and ``row`` live in registry.py; each family module below adds its rows when imported,
so the catalogue is complete once this package is.
"""

from op_catalog import (  # noqa: F401  (imported for their rows)
    indexing,
    inplace,
    linalg,
    matmul,
    nn,
    pointwise,
    reduction,
    shape,
    sorting,
    special,
    statistics,
)
from op_catalog.pointwise import BINARY
from op_catalog.registry import CATALOG, NO_FLOAT16, REFERENCE, SAME, make_inputs, row

__all__ = ["BINARY", "CATALOG", "NO_FLOAT16", "REFERENCE", "SAME", "make_inputs", "row"]
