"""Catalogue rows of matrix and tensor products: matmul in every rank combination, mm, bmm, mv,
dot, outer, einsum, addmm/baddbmm, tensordot and kron."""

import numpy as np

import tinygrad_lite as tl
from op_catalog.registry import row

row("matmul-2d", lambda a, b: a @ b, [(3, 4), (4, 5)], "real")
row("matmul-batched", lambda a, b: a @ b, [(2, 3, 4), (2, 4, 5)], "real")
row("matmul-batch-broadcast", lambda a, b: a @ b, [(2, 1, 3, 4), (3, 4, 2)], "real")
row("matmul-1d-left", lambda a, b: a @ b, [(4,), (4, 5)], "real")
row("matmul-1d-right", lambda a, b: a @ b, [(3, 4), (4,)], "real")
row("matmul-1d-1d", lambda a, b: a @ b, [(4,), (4,)], "real")
row("matmul-1d-batched", lambda a, b: a @ b, [(4,), (2, 4, 3)], "real")
row("matmul-batched-1d", lambda a, b: tl.matmul(a, b), [(2, 3, 4), (4,)], "real", np.matmul)
row("mm", tl.mm, [(3, 4), (4, 2)], "real", np.matmul)
row("bmm", tl.bmm, [(2, 3, 4), (2, 4, 2)], "real", np.matmul)
row("mv", tl.mv, [(3, 4), (4,)], "real", np.matmul)
row("dot", tl.dot, [(4,), (4,)], "real", np.dot)
row("outer", tl.outer, [(3,), (4,)], "real", np.outer)
for _eq, _shapes in [("ij,jk->ik", [(3, 4), (4, 2)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
                     ("ii", [(3, 3)]), ("ii->i", [(3, 3)]), ("ij->ji", [(3, 4)]),
                     ("i,j->ij", [(3,), (2,)]), ("...ij,...jk", [(2, 2, 3), (3, 4)]),
                     ("ij,k->i", [(3, 2), (4,)]), ("ijk,ikj->i", [(2, 3, 3), (2, 3, 3)]),
                     ("bhqd,bhkd->bhqk", [(1, 2, 3, 2), (1, 2, 4, 2)])]:
    row(f"einsum-{_eq}", lambda *xs, _eq=_eq: tl.einsum(_eq, *xs), _shapes, "real",
        lambda *xs, _eq=_eq: np.einsum(_eq, *xs))
row("addmm", lambda a, b, c: tl.addmm(a, b, c, beta=0.5, alpha=2.0),
    [(3, 2), (3, 4), (4, 2)], "real", lambda a, b, c: 0.5 * a + 2 * b @ c)
row("baddbmm", lambda a, b, c: tl.baddbmm(a, b, c, alpha=0.3), [(2, 3, 2), (2, 3, 4),
                                                               (2, 4, 2)], "real",
    lambda a, b, c: a + 0.3 * b @ c)
row("tensordot", lambda a, b: tl.tensordot(a, b, dims=([0, 1], [1, 0])),
    [(2, 3, 4), (3, 2, 2)], "real", lambda a, b: np.tensordot(a, b, ([0, 1], [1, 0])))
row("kron", tl.kron, [(2, 3), (2, 2)], "real", np.kron)
row("kron-mixed-ndim", tl.kron, [(2, 1, 3), (3, 2)], "real", np.kron)
