"""Linear-algebra primitives, each with its backward rule beside it, by concept: ``inverse.py``
(inv, det, slogdet, solve, pinv; ``LinAlgError``), ``decompositions.py`` (cholesky, eigh,
svd, qr), ``lu.py`` (LU factorisation: getrf/getrs, its backward), ``ldl.py`` (LDL^T:
sytrf/sytrs) and ``distance.py`` (cdist's pairwise distances). Import from the concept module.
"""
