"""``kl_divergence(p, q)`` with the closed forms of the standard pairs, and ``register_kl`` to
add more (the most specific registered pair of classes wins, as in PyTorch)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .. import functions as _fn
from .. import linalg
from .._core.tensor_base import TensorBase
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform

__all__ = ["kl_divergence", "register_kl"]

_REGISTRY: dict[tuple[type, type], Callable] = {}


def register_kl(type_p: type, type_q: type) -> Callable[[Callable], Callable]:
    """Decorator: ``@register_kl(P, Q)`` makes the function compute KL(p || q) for those
    classes (and their subclasses, unless a more specific pair is registered)."""
    def decorate(fn: Callable) -> Callable:
        _REGISTRY[(type_p, type_q)] = fn
        return fn
    return decorate


def kl_divergence(p: Distribution, q: Distribution) -> TensorBase:
    """``KL(p || q)`` per batch element."""
    matches = [(tp, tq) for tp, tq in _REGISTRY if isinstance(p, tp) and isinstance(q, tq)]
    if not matches:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{type(p).__name__} and q type {type(q).__name__}")
    best = min(matches, key=lambda pair: (type(p).__mro__.index(pair[0]),
                                          type(q).__mro__.index(pair[1])))
    return _REGISTRY[best](p, q)


@register_kl(Normal, Normal)
def _normal_normal(p: Any, q: Any) -> TensorBase:
    var_ratio = (p.scale / q.scale) ** 2
    t1 = ((p.loc - q.loc) / q.scale) ** 2
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _bernoulli_bernoulli(p: Any, q: Any) -> TensorBase:
    eps = 1e-12
    pp, qq = p.probs.clamp(eps, 1 - eps), q.probs.clamp(eps, 1 - eps)
    return pp * (pp / qq).log() + (1 - pp) * ((1 - pp) / (1 - qq)).log()


@register_kl(Categorical, Categorical)
def _categorical_categorical(p: Any, q: Any) -> TensorBase:
    t = p.probs * (p.logits - q.logits)
    return _fn.where(p.probs == 0, 0.0, t).sum(-1)


@register_kl(Exponential, Exponential)
def _exponential_exponential(p: Any, q: Any) -> TensorBase:
    ratio = q.rate / p.rate
    return ratio - 1 - ratio.log()


@register_kl(Laplace, Laplace)
def _laplace_laplace(p: Any, q: Any) -> TensorBase:
    scale_ratio = p.scale / q.scale
    loc_abs = (p.loc - q.loc).abs()
    return -scale_ratio.log() + loc_abs / q.scale + scale_ratio * (-loc_abs / p.scale).exp() - 1


@register_kl(Uniform, Uniform)
def _uniform_uniform(p: Any, q: Any) -> TensorBase:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    outside = (q.low > p.low) | (q.high < p.high)
    return _fn.where(outside, math.inf, result)


@register_kl(Poisson, Poisson)
def _poisson_poisson(p: Any, q: Any) -> TensorBase:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Gamma, Gamma)
def _gamma_gamma(p: Any, q: Any) -> TensorBase:
    a1, b1, a2, b2 = p.concentration, p.rate, q.concentration, q.rate
    return ((a1 - a2) * _fn.digamma(a1) - _fn.lgamma(a1) + _fn.lgamma(a2)
            + a2 * (b1.log() - b2.log()) + a1 * (b2 / b1 - 1))


@register_kl(Beta, Beta)
def _beta_beta(p: Any, q: Any) -> TensorBase:
    a1, b1, a2, b2 = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    s1 = a1 + b1
    t1 = _fn.lgamma(a2) + _fn.lgamma(b2) - _fn.lgamma(a2 + b2)
    t2 = _fn.lgamma(a1) + _fn.lgamma(b1) - _fn.lgamma(s1)
    return (t1 - t2 + (a1 - a2) * _fn.digamma(a1) + (b1 - b2) * _fn.digamma(b1)
            + (a2 - a1 + b2 - b1) * _fn.digamma(s1))


@register_kl(Dirichlet, Dirichlet)
def _dirichlet_dirichlet(p: Any, q: Any) -> TensorBase:
    a, b = p.concentration, q.concentration
    a0 = a.sum(-1)
    return (_fn.lgamma(a0) - _fn.lgamma(b.sum(-1)) - (_fn.lgamma(a) - _fn.lgamma(b)).sum(-1)
            + ((a - b) * (_fn.digamma(a) - _fn.digamma(a0).unsqueeze(-1))).sum(-1))


@register_kl(MultivariateNormal, MultivariateNormal)
def _mvn_mvn(p: Any, q: Any) -> TensorBase:
    k = p.event_shape[0]
    lp, lq = p.scale_tril, q.scale_tril
    half_logdet = lq.diagonal(0, -2, -1).log().sum(-1) - lp.diagonal(0, -2, -1).log().sum(-1)
    m = linalg.solve_triangular(lq, lp, upper=False)
    trace = (m * m).sum((-2, -1))
    diff = linalg.solve_triangular(lq, (q.loc - p.loc).unsqueeze(-1), upper=False).squeeze(-1)
    return half_logdet + 0.5 * (trace + (diff * diff).sum(-1) - k)


@register_kl(Independent, Independent)
def _independent_independent(p: Any, q: Any) -> TensorBase:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError("KL between Independents with different event dims")
    result = kl_divergence(p.base_dist, q.base_dist)
    n = p.reinterpreted_batch_ndims
    return result.sum(tuple(range(-n, 0))) if n else result


@register_kl(LogNormal, LogNormal)
def _lognormal_lognormal(p: Any, q: Any) -> TensorBase:
    return _normal_normal(p.base_dist, q.base_dist)


@register_kl(HalfNormal, HalfNormal)
def _halfnormal_halfnormal(p: Any, q: Any) -> TensorBase:
    return _normal_normal(p.base_dist, q.base_dist)


@register_kl(Gumbel, Gumbel)
def _gumbel_gumbel(p: Any, q: Any) -> TensorBase:
    euler = 0.57721566490153286061
    ct1, ct2, ct3 = p.scale / q.scale, q.loc / q.scale, p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t3 = (ct2 + _fn.lgamma(1 + ct1) - ct3).exp()
    return t1 + ct1 * euler + t3 - (1 + euler)


@register_kl(Pareto, Pareto)
def _pareto_pareto(p: Any, q: Any) -> TensorBase:
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    return _fn.where(p.scale < q.scale, math.inf, result)


@register_kl(TransformedDistribution, TransformedDistribution)
def _transformed_transformed(p: Any, q: Any) -> TensorBase:
    # KL is invariant under one bijection applied to both
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Cauchy, Cauchy)
def _cauchy_cauchy(p: Any, q: Any) -> TensorBase:
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    return t1 - (4 * p.scale * q.scale).log()


@register_kl(Geometric, Geometric)
def _geometric_geometric(p: Any, q: Any) -> TensorBase:
    q_logits = q.probs.log() - (-q.probs).log1p()
    return -p.entropy() - (-q.probs).log1p() / p.probs - q_logits


@register_kl(OneHotCategorical, OneHotCategorical)
def _onehot_onehot(p: Any, q: Any) -> TensorBase:
    return _categorical_categorical(p._categorical, q._categorical)


@register_kl(Binomial, Binomial)
def _binomial_binomial(p: Any, q: Any) -> TensorBase:
    if (p.total_count < q.total_count).any():
        raise NotImplementedError("KL between Binomials where q.total_count > "
                                  "p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p()
                          - (-q.probs).log1p())
    return _fn.where(p.total_count > q.total_count, math.inf, kl)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _cb_cb(p: Any, q: Any) -> TensorBase:
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + (-p.probs).log1p()
    t3 = -q._cont_bern_log_norm() - (-q.probs).log1p()
    return t1 + t2 + t3
