"""``tl.distributions``: probability distributions with PyTorch's names and semantics
(``torch.distributions``): sampling, reparameterised sampling, log-probabilities, entropies,
moments, validation of parameters and values, transforms and transformed distributions,
continuous relaxations, mixtures, and KL divergences.
"""

import sys

from .._core.module_paths import expose
from . import (
    constraints,
    transforms,
    utils,  # noqa: F401 - PyTorch's torch.distributions.utils path
)
from .constraint_registry import biject_to, transform_to
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
from .continuous_extra import (
    GeneralizedPareto,
    InverseGamma,
    LKJCholesky,
    OneHotCategoricalStraightThrough,
)
from .continuous_more import (
    Chi2,
    ContinuousBernoulli,
    FisherSnedecor,
    StudentT,
    VonMises,
)
from .discrete import Bernoulli, Binomial, Categorical, Geometric, OneHotCategorical, Poisson
from .discrete_more import MixtureSameFamily, Multinomial, NegativeBinomial
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .independent import Independent
from .kl import kl_divergence, register_kl
from .lowrank_mvn import LowRankMultivariateNormal
from .relaxed import (
    ExpRelaxedCategorical,
    LogitRelaxedBernoulli,
    RelaxedBernoulli,
    RelaxedOneHotCategorical,
)
from .transformed import (
    Gumbel,
    HalfCauchy,
    HalfNormal,
    Pareto,
    TransformedDistribution,
    Weibull,
)
from .transformed_more import Kumaraswamy, LogisticNormal
from .transforms import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from .transforms_extra import (
    CatTransform,
    CorrCholeskyTransform,
    PositiveDefiniteTransform,
    StackTransform,
)
from .wishart import Wishart

__all__ = ["Distribution", "constraints", "transforms", "biject_to", "transform_to",
           "Normal", "LogNormal", "Uniform", "Exponential", "Laplace", "Cauchy", "Gamma",
           "Beta", "Dirichlet", "MultivariateNormal", "Bernoulli", "Categorical",
           "OneHotCategorical", "Binomial", "Poisson", "Geometric", "Independent",
           "kl_divergence", "register_kl", "Chi2", "StudentT", "FisherSnedecor",
           "ContinuousBernoulli", "VonMises", "LowRankMultivariateNormal", "Multinomial",
           "NegativeBinomial", "MixtureSameFamily", "LogitRelaxedBernoulli", "RelaxedBernoulli",
           "ExpRelaxedCategorical", "RelaxedOneHotCategorical", "TransformedDistribution",
           "Gumbel", "HalfNormal", "HalfCauchy", "Weibull", "Pareto", "Kumaraswamy",
           "LogisticNormal", "Transform", "ComposeTransform", "ExpTransform", "PowerTransform",
           "SigmoidTransform", "TanhTransform", "SoftplusTransform", "AbsTransform",
           "AffineTransform", "SoftmaxTransform", "StickBreakingTransform",
           "LowerCholeskyTransform", "ReshapeTransform", "IndependentTransform",
           "CumulativeDistributionTransform", "identity_transform", "ExponentialFamily",
           "InverseGamma", "GeneralizedPareto", "LKJCholesky", "OneHotCategoricalStraightThrough",
           "Wishart", "CatTransform", "StackTransform", "CorrCholeskyTransform",
           "PositiveDefiniteTransform"]

# PyTorch's one-module-per-distribution paths (``from torch.distributions.normal import Normal``)
expose(sys.modules[__name__], {
    "bernoulli": ("Bernoulli",), "beta": ("Beta",), "binomial": ("Binomial",),
    "categorical": ("Categorical",), "cauchy": ("Cauchy",), "chi2": ("Chi2",),
    "continuous_bernoulli": ("ContinuousBernoulli",), "dirichlet": ("Dirichlet",),
    "exponential": ("Exponential",), "fishersnedecor": ("FisherSnedecor",), "gamma": ("Gamma",),
    "generalized_pareto": ("GeneralizedPareto",), "geometric": ("Geometric",),
    "gumbel": ("Gumbel",), "half_cauchy": ("HalfCauchy",), "half_normal": ("HalfNormal",),
    "inverse_gamma": ("InverseGamma",), "kumaraswamy": ("Kumaraswamy",),
    "laplace": ("Laplace",), "lkj_cholesky": ("LKJCholesky",), "log_normal": ("LogNormal",),
    "logistic_normal": ("LogisticNormal",),
    "lowrank_multivariate_normal": ("LowRankMultivariateNormal",),
    "mixture_same_family": ("MixtureSameFamily",), "multinomial": ("Multinomial",),
    "multivariate_normal": ("MultivariateNormal",), "negative_binomial": ("NegativeBinomial",),
    "normal": ("Normal",),
    "one_hot_categorical": ("OneHotCategorical", "OneHotCategoricalStraightThrough"),
    "pareto": ("Pareto",), "poisson": ("Poisson",),
    "relaxed_bernoulli": ("LogitRelaxedBernoulli", "RelaxedBernoulli"),
    "relaxed_categorical": ("ExpRelaxedCategorical", "RelaxedOneHotCategorical"),
    "studentT": ("StudentT",), "transformed_distribution": ("TransformedDistribution",),
    "uniform": ("Uniform",), "von_mises": ("VonMises",), "weibull": ("Weibull",),
})
