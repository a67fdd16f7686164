"""``tl.special``: PyTorch's ``torch.special`` names.

Most are the ``tl.*`` functions under their SciPy-style names (``expit`` is ``sigmoid``,
``gammaln`` is ``lgamma``, ``psi`` is ``digamma``...), bound here; the rest live by family:
``error.py`` (``erfcx``, ``ndtr``, ``ndtri``, ``log_ndtr``), ``entropy.py`` (``entr``,
``xlog1py``), ``gamma.py`` (``multigammaln``, ``gammainc``/``gammaincc``, ``zeta``),
``bessel.py`` (``i0``/``i1`` and the Bessel and Airy functions) and ``polynomials.py`` (the
orthogonal polynomials). Their backward rules are in ``ops`` (``ops/special.py``,
``ops/modified_bessel.py``, ``ops/incomplete_gamma.py``).
"""

from __future__ import annotations

from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from . import bessel, entropy, error, gamma, polynomials
from .bessel import *  # noqa: F403
from .entropy import *  # noqa: F403
from .error import *  # noqa: F403
from .gamma import *  # noqa: F403
from .polynomials import *  # noqa: F403

__all__ = ["digamma", "psi", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln",
           "polygamma", "log1p", "logit", "logsumexp", "softmax", "log_softmax", "sinc", "round",
           "xlogy", *error.__all__, *entropy.__all__, *gamma.__all__, *bessel.__all__,
           *polynomials.__all__]

digamma = psi = _fn.digamma
erf, erfc, erfinv = _fn.erf, _fn.erfc, _fn.erfinv
exp2, expm1, log1p = _fn.exp2, _fn.expm1, _fn.log1p
expit = _fn.sigmoid
gammaln = _fn.lgamma
polygamma, logit, logsumexp, sinc, xlogy = _fn.polygamma, _fn.logit, _fn.logsumexp, _fn.sinc, \
    _fn.xlogy
round = _fn.round  # noqa: A001 - PyTorch's name


def softmax(input: TensorBase, dim: int, *, dtype: Any = None) -> TensorBase:
    """``exp(x) / sum(exp(x))`` along ``dim``."""
    return _fn.softmax(input, dim, dtype=dtype)


def log_softmax(input: TensorBase, dim: int, *, dtype: Any = None) -> TensorBase:
    """``x - logsumexp(x)`` along ``dim``."""
    return _fn.log_softmax(input, dim, dtype=dtype)
