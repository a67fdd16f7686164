"""``tl.distributions``: probability distributions with PyTorch's names and semantics
(``torch.distributions``): sampling, reparameterised sampling, log-probabilities, entropies,
moments, validation of parameters and values, transforms and transformed distributions,
continuous relaxations, mixtures, and KL divergences.
"""

from . import (
    constraints,
    transforms,
    utils,  # noqa: F401 - PyTorch's torch.distributions.utils path
)
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import LogitRelaxedBernoulli, RelaxedBernoulli
from .relaxed_categorical import ExpRelaxedCategorical, RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import (
    AbsTransform,
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
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

