"""tl.distributions' multivariate families and ``kl_divergence`` against PyTorch:
MultivariateNormal's given matrix kept (``repr``, validation of positive-definiteness and of
the Cholesky factor, shape errors) and its properties expanded to the batch shape,
LowRankMultivariateNormal's KL pairs and messages, OneHotCategorical (support, validation,
``mode``, ``enumerate_support``, ``expand``), Multinomial's support, and the KL registry:
every cross-family closed form, the exponential-family rule and PyTorch's dispatch."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.distributions as dist

torch = pytest.importorskip("torch")
TD = torch.distributions

RNG = np.random.default_rng(0)


def _pd(*batch, n=3):
    a = RNG.standard_normal((*batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


COV, COV2 = _pd(), _pd(2)
LOC, LOC2 = RNG.standard_normal(3), RNG.standard_normal((2, 3))
X = RNG.standard_normal((4, 2, 3))


def _both(make):
    """``make(lib, distributions)`` for both libraries (numpy arrays as float64 tensors)."""
    return make(tl, dist), make(torch, TD)


def _same(ours, theirs, tol=1e-10):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol,
                               atol=tol)


def _repr(d):
    return repr(d).replace("tinygrad_lite", "torch")


MVNS = {
    "covariance": lambda lib, m: m.MultivariateNormal(lib.tensor(LOC),
                                                      covariance_matrix=lib.tensor(COV)),
    "batched_loc_scale_tril": lambda lib, m: m.MultivariateNormal(
        lib.tensor(LOC2), scale_tril=lib.tensor(np.linalg.cholesky(COV))),
    "batched_precision": lambda lib, m: m.MultivariateNormal(
        lib.tensor(LOC), precision_matrix=lib.tensor(np.linalg.inv(COV2))),
}


@pytest.mark.parametrize("name", MVNS)
def test_mvn_properties_are_expanded_to_the_batch(name):
    ours, theirs = _both(MVNS[name])
    assert _repr(ours) == repr(theirs)  # the given matrix is listed
    for attr in ["loc", "mean", "variance", "stddev", "covariance_matrix",
                 "precision_matrix", "scale_tril"]:
        _same(getattr(ours, attr), getattr(theirs, attr))
    _same(ours.entropy(), theirs.entropy())
    _same(ours.log_prob(tl.tensor(X)), theirs.log_prob(torch.tensor(X)))
    # computed matrices are stored once read, and then listed too
    assert _repr(ours) == repr(theirs)
    big_o, big_t = ours.expand((4, 2)), theirs.expand((4, 2))
    assert _repr(big_o) == repr(big_t)
    _same(big_o.log_prob(tl.tensor(X)), big_t.log_prob(torch.tensor(X)))
    _same(big_o.covariance_matrix, big_t.covariance_matrix)


def test_mvn_precision_gradient():
    def grads(lib, m):
        prec = lib.tensor(np.linalg.inv(COV2)).requires_grad_()
        d = m.MultivariateNormal(lib.tensor(LOC), precision_matrix=prec)
        (d.log_prob(lib.tensor(X)).sum() + d.entropy().sum()).backward()
        return prec.grad
    _same(*_both(grads), tol=1e-9)


@pytest.mark.parametrize("kw, matrix", [
    ("covariance_matrix", [[1.0, 2.0], [2.0, 1.0]]),   # not positive-definite
    ("covariance_matrix", [[2.0, 1.0], [0.0, 2.0]]),   # not symmetric
    ("precision_matrix", [[1.0, 2.0], [2.0, 1.0]]),
    ("scale_tril", [[-1.0, 0.0], [0.0, 2.0]]),         # negative diagonal
    ("scale_tril", [[1.0, 1.0], [0.0, 2.0]]),          # not lower triangular
])
def test_mvn_validates_the_given_matrix(kw, matrix):
    for lib, m in ((tl, dist), (torch, TD)):
        with pytest.raises(ValueError, match=f"Expected parameter {kw} "):
            m.MultivariateNormal(lib.zeros(2, dtype=lib.float64),
                                 **{kw: lib.tensor(matrix)}, validate_args=True)


@pytest.mark.parametrize("kw", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_mvn_shape_errors(kw):
    messages = []
    for lib, m in ((tl, dist), (torch, TD)):
        with pytest.raises(ValueError) as e:
            m.MultivariateNormal(lib.tensor(LOC), **{kw: lib.tensor(LOC)})
        messages.append(str(e.value))
        with pytest.raises(ValueError, match="loc must be at least one-dimensional"):
            m.MultivariateNormal(lib.tensor(0.0), **{kw: lib.tensor(COV)})
    assert messages[0] == messages[1]


W, D = RNG.standard_normal((3, 2)), RNG.random(3) + 0.5


@pytest.mark.parametrize("pair", ["lowrank-lowrank", "lowrank-mvn", "mvn-lowrank"])
def test_lowrank_kl_pairs(pair):
    def kl(lib, m):
        low = m.LowRankMultivariateNormal(lib.tensor(LOC2), lib.tensor(W), lib.tensor(D))
        low2 = m.LowRankMultivariateNormal(lib.tensor(LOC), lib.tensor(W[::-1].copy()),
                                           lib.tensor(D + 1))
        mvn = m.MultivariateNormal(lib.tensor(LOC), covariance_matrix=lib.tensor(COV2))
        p, q = {"lowrank-lowrank": (low, low2), "lowrank-mvn": (low, mvn),
                "mvn-lowrank": (mvn, low)}[pair]
        return m.kl_divergence(p, q)
    _same(*_both(kl))


def test_lowrank_shape_messages_print_sizes():
    messages = []
    for lib, m in ((tl, dist), (torch, TD)):
        with pytest.raises(ValueError) as e:
            m.LowRankMultivariateNormal(lib.tensor(LOC), lib.tensor(W), lib.tensor(D[:2]))
        messages.append(str(e.value).replace("tinygrad_lite", "torch"))
    assert messages[0] == messages[1]


P = np.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.0, 0.25, 0.25]])


def test_one_hot_categorical_matches_pytorch():
    ours, theirs = _both(lambda lib, m: m.OneHotCategorical(probs=lib.tensor(P)))
    assert _repr(ours) == repr(theirs) == "OneHotCategorical()"
    assert repr(ours.support) == repr(theirs.support) == "OneHot()"
    assert tuple(ours.param_shape) == tuple(theirs.param_shape)
    _same(ours.mode, theirs.mode)
    _same(ours.enumerate_support(), theirs.enumerate_support())
    _same(ours.enumerate_support(expand=False), theirs.enumerate_support(expand=False))
    value = np.eye(4)[[1, 3]]
    _same(ours.expand((3, 2)).log_prob(tl.tensor(value)),
          theirs.expand((3, 2)).log_prob(torch.tensor(value)))
    for d, lib in ((ours, tl), (theirs, torch)):
        with pytest.raises(ValueError, match=r"within the support \(OneHot\(\)\)"):
            d.log_prob(lib.tensor(value * 2))


def test_multinomial_support_and_mode_error():
    ours, theirs = _both(lambda lib, m: m.Multinomial(5, probs=lib.tensor(P)))
    assert repr(ours.support) == repr(theirs.support) == "Multinomial()"
    for d, lib in ((ours, tl), (theirs, torch)):
        with pytest.raises(ValueError, match=r"within the support \(Multinomial\(\)\)"):
            d.log_prob(lib.tensor([[2.0, 2.0, 2.0, 2.0], [5.0, 0.0, 0.0, 0.0]]))
        with pytest.raises(NotImplementedError, match="does not implement mode"):
            d.mode  # noqa: B018


def _family(name, lib):
    m = lib.distributions
    t = lambda *v: lib.tensor(np.array(v, dtype=np.float64))  # noqa: E731
    cat = [[0.2, 0.8, 0.0], [0.3, 0.3, 0.4], [0.5, 0.5, 0.0], [0.1, 0.1, 0.8]]
    return {
        "Bernoulli": lambda: m.Bernoulli(probs=t(0.0, 0.3, 1.0, 0.6)),
        "Beta": lambda: m.Beta(t(0.5, 2.0, 1.0, 3.0), t(1.5, 0.7, 1.0, 2.0)),
        "Binomial": lambda: m.Binomial(t(5, 5, 5, 5), probs=t(0.0, 0.3, 1.0, 0.6)),
        "Categorical": lambda: m.Categorical(probs=lib.tensor(cat, dtype=lib.float64)),
        "ContinuousBernoulli": lambda: m.ContinuousBernoulli(probs=t(0.2, 0.5, 0.7, 0.499)),
        "Exponential": lambda: m.Exponential(t(0.5, 1.0, 2.0, 3.0)),
        "Gamma": lambda: m.Gamma(t(0.5, 1.0, 2.0, 3.0), t(1.0, 2.0, 0.5, 1.5)),
        "Chi2": lambda: m.Chi2(t(0.5, 1.0, 2.0, 3.0)),
        "Gumbel": lambda: m.Gumbel(t(0.0, 1.0, -1.0, 0.5), t(1.0, 2.0, 0.5, 1.5)),
        "Laplace": lambda: m.Laplace(t(0.0, 1.0, -1.0, 0.5), t(1.0, 2.0, 0.5, 1.5)),
        "Normal": lambda: m.Normal(t(0.0, 1.0, -1.0, 0.5), t(1.0, 2.0, 0.5, 1.5)),
        "Pareto": lambda: m.Pareto(t(1.0, 2.0, 0.5, 1.5), t(1.0, 3.0, 2.5, 4.0)),
        "Poisson": lambda: m.Poisson(t(0.5, 1.0, 2.0, 3.0)),
        "Uniform": lambda: m.Uniform(t(0.0, 0.2, -1.0, 0.1), t(1.0, 0.9, 2.0, 0.5)),
        "LogNormal": lambda: m.LogNormal(t(0.0, 1.0), t(1.0, 2.0)),
    }[name]()


CROSS_PAIRS = [
    ("Bernoulli", "Poisson"), ("Bernoulli", "Bernoulli"), ("Categorical", "Categorical"),
    ("Beta", "ContinuousBernoulli"), ("Beta", "Exponential"), ("Beta", "Gamma"),
    ("Beta", "Normal"), ("Beta", "Pareto"), ("Beta", "Uniform"), ("Beta", "Chi2"),
    ("ContinuousBernoulli", "Exponential"), ("ContinuousBernoulli", "Normal"),
    ("ContinuousBernoulli", "Pareto"), ("ContinuousBernoulli", "Uniform"),
    ("Exponential", "Beta"), ("Exponential", "Gamma"), ("Exponential", "Gumbel"),
    ("Exponential", "Normal"), ("Exponential", "Uniform"), ("Gamma", "Beta"),
    ("Gamma", "Exponential"), ("Gamma", "Gumbel"), ("Gamma", "Normal"), ("Gamma", "Pareto"),
    ("Gumbel", "Normal"), ("Gumbel", "Gamma"), ("Laplace", "Normal"), ("Laplace", "Uniform"),
    ("Normal", "Gumbel"), ("Normal", "Laplace"), ("Normal", "Exponential"),
    ("Normal", "Uniform"), ("Pareto", "Exponential"), ("Pareto", "Gamma"),
    ("Pareto", "Normal"), ("Pareto", "Chi2"), ("Pareto", "Uniform"), ("Poisson", "Bernoulli"),
    ("Poisson", "Binomial"), ("Uniform", "Beta"), ("Uniform", "ContinuousBernoulli"),
    ("Uniform", "Exponential"), ("Uniform", "Gamma"), ("Uniform", "Gumbel"),
    ("Uniform", "Normal"), ("Uniform", "Pareto"), ("Uniform", "Chi2"),
]


@pytest.mark.parametrize("p, q", CROSS_PAIRS)
def test_kl_closed_forms_match_pytorch(p, q):
    ours = dist.kl_divergence(_family(p, tl), _family(q, tl))
    theirs = TD.kl_divergence(_family(p, torch), _family(q, torch))
    _same(ours, theirs, tol=1e-9)


@pytest.mark.parametrize("p, q, message", [
    # exponential families of different types: PyTorch's Bregman rule refuses
    ("Normal", "Poisson", "cross KL-divergence between different exponential families"),
    ("Bernoulli", "Beta", "cross KL-divergence between different exponential families"),
    ("Normal", "Categorical", "No KL"),
    # PyTorch's LogNormal is a TransformedDistribution whose transforms differ
    ("LogNormal", "Gumbel", "^$"),
    ("Pareto", "LogNormal", "^$"),
])
def test_kl_unavailable_pairs_raise_as_pytorch(p, q, message):
    for lib in (tl, torch):
        with pytest.raises(NotImplementedError, match=message):
            lib.distributions.kl_divergence(_family(p, lib), _family(q, lib))


def test_exponential_families_subclass_the_base():
    for name in ["Bernoulli", "Beta", "ContinuousBernoulli", "Dirichlet", "Exponential",
                 "Gamma", "Normal", "Poisson"]:
        assert issubclass(getattr(dist, name), dist.ExponentialFamily) == \
            issubclass(getattr(TD, name), TD.ExponentialFamily)


def test_register_kl_dispatch_and_ambiguity():
    class P(dist.Normal):
        pass

    class Q(dist.Normal):
        pass

    p, q = P(0.0, 1.0), Q(1.0, 2.0)
    # the closed form of the base pair serves subclasses
    assert abs(dist.kl_divergence(p, q).item() -
               dist.kl_divergence(dist.Normal(0.0, 1.0), dist.Normal(1.0, 2.0)).item()) < 1e-6
    dist.register_kl(P, dist.Normal)(lambda a, b: tl.tensor(1.0))
    dist.register_kl(dist.Normal, Q)(lambda a, b: tl.tensor(2.0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert dist.kl_divergence(p, q).item() == 1.0  # P-first order wins
    assert any("Ambiguous kl_divergence(P, Q)" in str(w.message) for w in caught)
    dist.register_kl(P, Q)(lambda a, b: tl.tensor(3.0))  # the registration resets lookups
    assert dist.kl_divergence(p, q).item() == 3.0
