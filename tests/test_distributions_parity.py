"""tl.distributions edge cases against PyTorch: ``__repr__``, log-densities at the ends of and
outside the support (``xlogy`` terms, probabilities of exactly 0 or 1), probs-to-logits
clamping, Binomial's integer support and enumeration, Geometric's logits, inverse CDFs,
``expand`` of LogNormal, Uniform's and Pareto's ``arg_constraints``, integer constraints on
infinities, and the 0-d Bernoulli sample."""

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.distributions as dist

torch = pytest.importorskip("torch")
TD = torch.distributions


def _pair(name, *args, **kw):
    """The same distribution in both libraries (numpy arrays become float64 tensors)."""
    def conv(lib, v):
        return lib.tensor(v) if isinstance(v, np.ndarray) else v
    ours = getattr(dist, name)(*[conv(tl, a) for a in args],
                               **{k: conv(tl, v) for k, v in kw.items()})
    theirs = getattr(TD, name)(*[conv(torch, a) for a in args],
                               **{k: conv(torch, v) for k, v in kw.items()})
    return ours, theirs


def _same(ours, theirs, rtol=1e-12, atol=1e-12):
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol,
                               atol=atol)


def _tl_repr(text):
    return text.replace("tinygrad_lite", "torch")


A = lambda *x: np.array(x, dtype=np.float64)  # noqa: E731


@pytest.mark.parametrize("make", [
    lambda lib, m: m.Normal(0.0, 1.0),
    lambda lib, m: m.Normal(lib.tensor([0.0]), 1.0),
    lambda lib, m: m.Normal(lib.zeros(3), 2.0),
    lambda lib, m: m.Bernoulli(0.3),
    lambda lib, m: m.Bernoulli(logits=lib.zeros(2)),
    lambda lib, m: m.Binomial(10, probs=lib.full((2,), 0.5)),
    lambda lib, m: m.Geometric(logits=lib.zeros(2)),
    lambda lib, m: m.Categorical(probs=lib.full((3,), 1 / 3)),
    lambda lib, m: m.LogNormal(lib.zeros(2), 1.0),
    lambda lib, m: m.HalfNormal(lib.ones(2)),
    lambda lib, m: m.HalfCauchy(lib.ones(2)),
    lambda lib, m: m.Pareto(lib.ones(2), 2.0),
    lambda lib, m: m.Uniform(0.0, 1.0),
])
def test_repr_matches_pytorch(make):
    # one-element parameters print as the tensor (0-d: its number), others as their size;
    # only the given one of probs/logits; parameters that are properties are not listed
    assert _tl_repr(repr(make(tl, dist))) == repr(make(torch, TD))


@pytest.mark.parametrize("name, args, values", [
    ("Gamma", (A(1.0, 1.0), A(1.0, 2.0)), A(0.0, -1.0)),
    ("Chi2", (A(2.0, 2.0),), A(0.0, -3.0)),
    ("Beta", (A(1.0, 0.5, 1.0), A(1.0, 1.0, 0.5)), A(0.0, 1.0, 1.5)),
])
def test_xlogy_terms_at_and_outside_the_support(name, args, values):
    # (concentration - 1) log x is 0 where the concentration is 1, whatever x
    ours, theirs = _pair(name, *args, validate_args=False)
    _same(ours.log_prob(tl.tensor(values)), theirs.log_prob(torch.tensor(values)))


def test_dirichlet_xlogy_at_zero_components():
    conc, value = A(1.0, 2.0, 3.0), A(0.0, 0.4, 0.6)
    ours, theirs = _pair("Dirichlet", conc, validate_args=False)
    _same(ours.log_prob(tl.tensor(value)), theirs.log_prob(torch.tensor(value)))


@pytest.mark.parametrize("name, kw", [
    ("Bernoulli", {"probs": A(0.0, 1.0, 0.3)}),
    ("Binomial", {"total_count": 10, "probs": A(0.0, 1.0, 0.3)}),
    ("Geometric", {"probs": A(0.0, 1.0, 0.3)}),
])
def test_logits_of_probabilities_clamp_by_the_dtype_eps(name, kw):
    ours, theirs = _pair(name, validate_args=False, **kw)
    _same(ours.logits, theirs.logits)
    for v in (0.0, 1.0, 2.0):
        value = np.full(3, v)
        _same(ours.log_prob(tl.tensor(value)), theirs.log_prob(torch.tensor(value)))


def test_categorical_logits_clamp_both_ends():
    probs = A(0.0, 1.0, 0.0)
    ours, theirs = _pair("Categorical", probs=probs)
    _same(ours.logits, theirs.logits)
    _same(ours.log_prob(tl.tensor([0, 1])), theirs.log_prob(torch.tensor([0, 1])))


def test_geometric_logits_log_prob_and_entropy_at_probability_one():
    ours, theirs = _pair("Geometric", probs=A(1.0, 0.5, 0.2), validate_args=False)
    value = A(0.0, 2.0, 3.0)
    _same(ours.log_prob(tl.tensor(value)), theirs.log_prob(torch.tensor(value)))
    _same(ours.entropy(), theirs.entropy())
    ours, theirs = _pair("Geometric", logits=A(-1.0, 0.0, 2.0))
    _same(ours.logits, theirs.logits)
    _same(ours.probs, theirs.probs)


def test_binomial_integer_support_and_enumeration():
    ours, theirs = _pair("Binomial", 10.0, probs=A(0.2, 0.5, 0.9))
    assert ours.has_enumerate_support and theirs.has_enumerate_support
    assert _tl_repr(repr(ours.support)) == repr(theirs.support)
    assert ours.support.is_discrete
    for expand in (True, False):
        _same(ours.enumerate_support(expand), theirs.enumerate_support(expand))
    _same(ours.entropy(), theirs.entropy())
    assert tuple(ours.param_shape) == tuple(theirs.param_shape) == (3,)
    with pytest.raises(ValueError, match="to be within the support \\(IntegerInterval"):
        ours.log_prob(tl.tensor(A(3.5, 1.0, 1.0)))
    _same(ours.support.check(tl.tensor(A(3.0, 3.5, 11.0))),
          theirs.support.check(torch.tensor(A(3.0, 3.5, 11.0))))


def test_binomial_inhomogeneous_counts_and_logits_broadcast():
    ours, theirs = _pair("Binomial", A(10.0, 5.0), logits=A(-1.0, 2.0))
    for method in ("entropy", "enumerate_support"):
        with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
            getattr(ours, method)()
        with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
            getattr(theirs, method)()
    ours, theirs = _pair("Binomial", A(10.0, 4.0), logits=A(0.5))
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape) == (2,)
    value = A(3.0, 4.0)
    _same(ours.log_prob(tl.tensor(value)), theirs.log_prob(torch.tensor(value)))


def test_negative_binomial_param_shape():
    ours, theirs = _pair("NegativeBinomial", A(2.0, 3.0), logits=A(0.5, -0.5))
    assert tuple(ours.param_shape) == tuple(theirs.param_shape) == (2,)


def test_integer_constraints_reject_infinities():
    value = A(0.0, 2.0, np.inf, -1.0, 1.5)
    for name in ("nonnegative_integer", "positive_integer"):
        ours = getattr(dist.constraints, name).check(tl.tensor(value)).numpy()
        theirs = getattr(TD.constraints, name).check(torch.tensor(value)).numpy()
        np.testing.assert_array_equal(ours, theirs)


def test_scalar_bernoulli_sample_is_zero_dimensional():
    assert tuple(dist.Bernoulli(0.3).sample().shape) == ()
    assert tuple(dist.Bernoulli(0.3).sample((4,)).shape) == (4,)


@pytest.mark.parametrize("name, args", [
    ("LogNormal", (A(0.0, 1.0), A(0.5, 1.5))),
    ("Laplace", (A(0.0, 1.0), A(0.5, 1.5))),
    ("Cauchy", (A(0.0, 1.0), A(0.5, 1.5))),
])
def test_icdf_matches_pytorch(name, args):
    ours, theirs = _pair(name, *args)
    for p in (0.0, 0.3, 0.5, 0.9, 1.0):
        value = np.full(2, p)
        _same(ours.icdf(tl.tensor(value)), theirs.icdf(torch.tensor(value)), rtol=1e-10)
    # cdf validates its value as PyTorch does
    if name == "LogNormal":
        with pytest.raises(ValueError, match="to be within the support"):
            ours.cdf(tl.tensor(A(-1.0, 1.0)))


@pytest.mark.parametrize("name", ["Laplace", "Cauchy"])
def test_cdf_validates_its_value(name):
    ours, theirs = _pair(name, A(0.0), A(1.0))
    with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
        ours.cdf(0.5)
    with pytest.raises(ValueError):
        theirs.cdf(0.5)


def test_lognormal_expand_expands_the_base():
    ours, theirs = _pair("LogNormal", A(0.0, 1.0), A(0.5, 1.5))
    o, t = ours.expand((3, 2)), theirs.expand((3, 2))
    assert tuple(o.sample((4,)).shape) == tuple(t.sample((4,)).shape) == (4, 3, 2)
    _same(o.mean, t.mean)
    _same(o.loc, t.loc)


def test_uniform_arg_constraints_and_error():
    ours, theirs = _pair("Uniform", A(0.0, -1.0), A(1.0, 3.0))
    assert {k: _tl_repr(repr(v)) for k, v in ours.arg_constraints.items()} == \
        {k: repr(v) for k, v in theirs.arg_constraints.items()}
    with pytest.raises(ValueError) as ours_err:
        dist.Uniform(tl.tensor([0.0, 2.0]), 1.0)
    with pytest.raises(ValueError) as theirs_err:
        TD.Uniform(torch.tensor([0.0, 2.0]), 1.0)
    assert _tl_repr(str(ours_err.value)) == str(theirs_err.value)


def test_pareto_arg_constraints_order():
    assert list(dist.Pareto.arg_constraints) == list(TD.Pareto.arg_constraints)


def test_expand_keeps_the_given_parameter():
    for lib, module in ((tl, dist), (torch, TD)):
        d = module.Binomial(5, logits=lib.zeros(3)).expand((2, 3))
        assert tuple(d.param_shape) == (2, 3)
    assert _tl_repr(repr(dist.Categorical(probs=tl.full((3,), 1 / 3)).expand((2,)))) == \
        repr(TD.Categorical(probs=torch.full((3,), 1 / 3)).expand((2,)))


@pytest.mark.parametrize("make, value", [
    (lambda lib: lib.distributions.Exponential(1.0), -1.0),
    (lambda lib: lib.distributions.Uniform(0.0, 1.0), 2.0),
    (lambda lib: lib.distributions.Normal(lib.zeros(2), 1.0), [1.0, 2.0, 3.0]),
])
def test_cdf_validates_its_value_as_pytorch(make, value):
    """Exponential(1).cdf(-1) was -1.72 here: the cdf now checks the value's support and
    shape as PyTorch's does."""
    for lib in (tl, torch):
        with pytest.raises(ValueError):
            make(lib).cdf(lib.tensor(value))


def test_dirichlet_mode_as_pytorch():
    a = np.array([[2.0, 3.0, 1.5], [0.5, 0.2, 0.9], [0.5, 3.0, 1.5]])
    ours = dist.Dirichlet(tl.tensor(a)).mode
    theirs = torch.distributions.Dirichlet(torch.tensor(a)).mode
    _same(ours, theirs)
