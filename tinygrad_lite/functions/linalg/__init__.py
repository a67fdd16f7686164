"""Linear algebra of ``tl.*`` and ``tl.linalg`` (composites over the primitives of
``ops/linalg/``), by concept: ``products.py`` (matrix_power, addmm & co, tensordot, kron,
cross, ...), ``inverse.py`` (det, slogdet, inverse, pinverse), ``solve.py`` (triangular and
Cholesky solves, tensorsolve), ``lu.py`` (the LU family), ``ldl.py`` (LDL^T), ``householder.py``
(geqrf, orgqr, ormqr, householder_product), ``decompositions.py`` (the older svd/qr,
cholesky_ex), ``eigen.py`` (eig, eigvals, lobpcg), ``norms.py`` (vector/matrix norms, cond),
``matrices.py`` (diagonals, trace, vander), ``distance.py`` (cdist) and ``lowrank.py``
(svd_lowrank, pca_lowrank). ``tinygrad_lite/linalg.py`` is the ``torch.linalg`` namespace.
"""
