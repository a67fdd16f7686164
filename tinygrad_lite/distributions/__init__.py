"""``tl.distributions``: probability distributions with PyTorch's names and semantics
(``torch.distributions``): sampling, reparameterised sampling, log-probabilities, entropies,
moments, validation of parameters and values, and KL divergences.

Not here yet: TransformedDistribution and transforms, RelaxedBernoulli /
RelaxedOneHotCategorical, StudentT, Multinomial, and reparameterised Gamma/Beta/Dirichlet
samples (they sample without a gradient path).
"""

from .continuous import (
    Beta,
    Cauchy,
    Dirichlet,
    Exponential,
    Gamma,
    Laplace,
    LogNormal,
    MultivariateNormal,
    Normal,
    Uniform,
)
from .discrete import Bernoulli, Binomial, Categorical, Geometric, OneHotCategorical, Poisson
from .distribution import Distribution, constraints
from .independent import Independent
from .kl import kl_divergence, register_kl

__all__ = ["Distribution", "constraints", "Normal", "LogNormal", "Uniform", "Exponential",
           "Laplace", "Cauchy", "Gamma", "Beta", "Dirichlet", "MultivariateNormal", "Bernoulli",
           "Categorical", "OneHotCategorical", "Binomial", "Poisson", "Geometric",
           "Independent", "kl_divergence", "register_kl"]
