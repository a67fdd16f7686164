"""Distribution transforms, constraints and composite distributions against PyTorch: every
transform's caching (``with_cache``), inverse, ``repr``, equality, ``sign`` and shape errors;
``biject_to``/``transform_to`` for every constraint; constraints' ``check`` on bad shapes;
Independent, MixtureSameFamily and TransformedDistribution (support, expand, enumeration,
messages, the value-shape checks of ``_validate_sample``); LogNormal as a transformed
distribution; StudentT's variance gradient at df <= 2."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.distributions as dist

torch = pytest.importorskip("torch")
TD = torch.distributions
C, TC = dist.constraints, TD.constraints

_RNG = np.random.default_rng(0)


def _text(obj):
    return str(obj).replace("tinygrad_lite", "torch")


def _close(ours, ref, rtol=1e-10):
    assert tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=rtol,
                               atol=1e-12, equal_nan=True)


def _same_error(ours, theirs):
    """Both raise: the same exception type and message (PyTorch's names)."""
    with pytest.raises(Exception) as ref:
        theirs()
    with pytest.raises(type(ref.value)) as got:
        ours()
    assert _text(got.value) == str(ref.value)


# one of each transform in both libraries, with an input in its domain
_TRANSFORMS = {
    "exp": (lambda m, t: m.ExpTransform(), (2, 3)),
    "sigmoid": (lambda m, t: m.SigmoidTransform(), (2, 3)),
    "tanh": (lambda m, t: m.TanhTransform(), (2, 3)),
    "softplus": (lambda m, t: m.SoftplusTransform(), (2, 3)),
    "abs": (lambda m, t: m.AbsTransform(), (2, 3)),
    "power": (lambda m, t: m.PowerTransform(t([2.0, -0.5, 3.0])), (2, 3)),
    "affine": (lambda m, t: m.AffineTransform(0.5, t([2.0, -1.0, 3.0]), event_dim=1), (2, 3)),
    "softmax": (lambda m, t: m.SoftmaxTransform(), (2, 3)),
    "stick": (lambda m, t: m.StickBreakingTransform(), (2, 3)),
    "lower_cholesky": (lambda m, t: m.LowerCholeskyTransform(), (2, 3, 3)),
    "corr_cholesky": (lambda m, t: m.CorrCholeskyTransform(), (2, 3)),
    "positive_definite": (lambda m, t: m.PositiveDefiniteTransform(), (2, 3, 3)),
    "reshape": (lambda m, t: m.ReshapeTransform((3,), (3, 1)), (2, 3)),
    "independent": (lambda m, t: m.IndependentTransform(m.ExpTransform(), 1), (2, 3)),
    "compose": (lambda m, t: m.ComposeTransform([m.ExpTransform(),
                                                 m.AffineTransform(1.0, -2.0)]), (2, 3)),
    "cdf": (lambda m, t: m.CumulativeDistributionTransform(m.Normal(t(0.0), t(2.0))), (2, 3)),
    "cat": (lambda m, t: m.CatTransform([m.ExpTransform(), m.TanhTransform()], -1, [1, 2]),
            (2, 3)),
    "stack": (lambda m, t: m.StackTransform([m.ExpTransform(), m.TanhTransform(),
                                             m.SigmoidTransform()], -1), (2, 3)),
    "exp.inv": (lambda m, t: m.ExpTransform().inv, (2, 3)),
}


def _both(name):
    make, shape = _TRANSFORMS[name]
    x = np.abs(_RNG.standard_normal(shape)) + 0.2
    ours = make(dist, lambda v: tl.tensor(np.asarray(v, np.float64)))
    theirs = make(TD, lambda v: torch.tensor(np.asarray(v, np.float64)))
    return ours, theirs, x


@pytest.mark.parametrize("name", sorted(_TRANSFORMS))
def test_transform_caching_inverse_and_repr(name):
    ours, theirs, x = _both(name)
    assert _text(repr(ours.inv)) == repr(theirs.inv)  # _InverseTransform(...)
    assert ours.inv.inv is ours
    assert ours.with_cache(0) is ours
    cached_o, cached_t = ours.with_cache(1), theirs.with_cache(1)
    assert type(cached_o).__name__ == type(cached_t).__name__
    assert (cached_o == ours) == (cached_t == theirs)
    assert cached_o._cache_size == 1
    xo, xt = tl.tensor(x), torch.tensor(x)
    yo, yt = cached_o(xo), cached_t(xt)
    _close(yo, yt)
    assert cached_o(xo) is yo and cached_o.inv(yo) is xo  # the cached pair, not recomputed
    # equality of fresh instances: parameter-free and parameterised transforms compare by
    # value, the others (Reshape, Independent, Cat, Stack, CorrCholesky) by identity
    o2, t2, _ = _both(name)
    assert (ours == o2) == (theirs == t2)
    assert (ours.inv == o2.inv) == (theirs.inv == t2.inv)
    assert (ours != o2) == (theirs != t2)


def test_transform_reprs_and_sign():
    ours = dist.IndependentTransform(dist.ExpTransform(), 1)
    theirs = TD.IndependentTransform(TD.ExpTransform(), 1)
    assert repr(ours) == repr(theirs) == "IndependentTransform(ExpTransform(), 1)"
    assert repr(dist.SigmoidTransform().inv) == "_InverseTransform(SigmoidTransform())"
    # PowerTransform holds its exponent as a tensor, and its sign is a tensor
    power = dist.PowerTransform(-2.0)
    assert isinstance(power.exponent, tl.Tensor) and isinstance(power.sign, tl.Tensor)
    assert float(power.sign) == float(TD.PowerTransform(-2.0).sign) == -1.0
    assert power == dist.PowerTransform(tl.tensor(-2.0))
    assert power != dist.PowerTransform(2.0)
    _close(dist.ComposeTransform([dist.ExpTransform(), dist.PowerTransform(-1.0)]).sign,
           TD.ComposeTransform([TD.ExpTransform(), TD.PowerTransform(-1.0)]).sign)


@pytest.mark.parametrize("make, shape, method", [
    (lambda m: m.SoftmaxTransform(), (), "forward_shape"),
    (lambda m: m.SoftmaxTransform(), (), "inverse_shape"),
    (lambda m: m.StickBreakingTransform(), (), "forward_shape"),
    (lambda m: m.StickBreakingTransform(), (), "inverse_shape"),
    (lambda m: m.ReshapeTransform((2, 3), (6,)), (3,), "forward_shape"),
    (lambda m: m.ReshapeTransform((6,), (2, 3)), (3,), "inverse_shape"),
    (lambda m: m.CorrCholeskyTransform(), (), "forward_shape"),
])
def test_transform_shape_errors(make, shape, method):
    _same_error(lambda: getattr(make(dist), method)(shape),
                lambda: getattr(make(TD), method)(shape))


def test_independent_transform_refuses_too_few_dims():
    _same_error(lambda: dist.IndependentTransform(dist.ExpTransform(), 2)(tl.ones(3)),
                lambda: TD.IndependentTransform(TD.ExpTransform(), 2)(torch.ones(3)))
    _same_error(lambda: dist.IndependentTransform(dist.ExpTransform(), 2).inv(tl.ones(3)),
                lambda: TD.IndependentTransform(TD.ExpTransform(), 2).inv(torch.ones(3)))


def test_reshape_transform_shapes_are_sizes():
    ours, theirs = dist.ReshapeTransform((6,), (2, 3)), TD.ReshapeTransform((6,), (2, 3))
    assert _text(repr(ours.in_shape)) == repr(theirs.in_shape)
    assert tuple(ours.forward_shape((4, 6))) == tuple(theirs.forward_shape((4, 6)))


def test_affine_log_abs_det_jacobian_sums_the_scale_first():
    # an event-dim scale is summed, then expanded to x's batch (an empty one included)
    for shape in [(0, 3), (4, 3), (3,)]:
        x = np.ones(shape)
        ours = dist.AffineTransform(0.5, tl.tensor([2.0, -1.0, 3.0]), event_dim=1)
        theirs = TD.AffineTransform(0.5, torch.tensor([2.0, -1.0, 3.0]), event_dim=1)
        _close(ours.log_abs_det_jacobian(tl.tensor(x), tl.tensor(x)),
               theirs.log_abs_det_jacobian(torch.tensor(x), torch.tensor(x)))


def test_user_transform_with_cache():
    class Doubling(dist.Transform):
        def _call(self, x):
            return 2 * x

    class Scaled(dist.Transform):
        def __init__(self, factor):
            super().__init__()
            self.factor = factor

    assert isinstance(Doubling().with_cache(), Doubling)
    with pytest.raises(NotImplementedError, match="with_cache is not implemented"):
        Scaled(2.0).with_cache()


# -- constraints --------------------------------------------------------------------------------


_CONSTRAINTS = {
    "real": lambda c, t: c.real, "positive": lambda c, t: c.positive,
    "nonnegative": lambda c, t: c.nonnegative, "unit_interval": lambda c, t: c.unit_interval,
    "boolean": lambda c, t: c.boolean, "nonnegative_integer": lambda c, t: c.nonnegative_integer,
    "positive_integer": lambda c, t: c.positive_integer, "simplex": lambda c, t: c.simplex,
    "real_vector": lambda c, t: c.real_vector, "one_hot": lambda c, t: c.one_hot,
    "square": lambda c, t: c.square, "symmetric": lambda c, t: c.symmetric,
    "positive_definite": lambda c, t: c.positive_definite,
    "positive_semidefinite": lambda c, t: c.positive_semidefinite,
    "lower_cholesky": lambda c, t: c.lower_cholesky,
    "lower_triangular": lambda c, t: c.lower_triangular,
    "corr_cholesky": lambda c, t: c.corr_cholesky,
    "integer_interval": lambda c, t: c.integer_interval(0, 3),
    "interval": lambda c, t: c.interval(-1.0, 2.0),
    "interval_tensor": lambda c, t: c.interval(t([0.0, 1.0, 2.0]), t([1.0, 3.0, 2.5])),
    "half_open_interval": lambda c, t: c.half_open_interval(0.0, 1.0),
    "greater_than": lambda c, t: c.greater_than(1.0),
    "greater_than_eq": lambda c, t: c.greater_than_eq(1.0),
    "less_than": lambda c, t: c.less_than(2.0), "multinomial": lambda c, t: c.multinomial(5),
    "cat": lambda c, t: c.cat([c.positive, c.real], dim=-1, lengths=[1, 2]),
    "stack": lambda c, t: c.stack([c.positive, c.real, c.unit_interval], dim=-1),
    "independent": lambda c, t: c.independent(c.positive, 1),
    "independent_simplex": lambda c, t: c.independent(c.simplex, 1),
    "dependent": lambda c, t: c.dependent,
    "mixture": lambda c, t: c.MixtureSameFamilyConstraint(c.positive),
}


def _constraints(name):
    make = _CONSTRAINTS[name]
    return (make(C, lambda v: tl.tensor(np.asarray(v, np.float64))),
            make(TC, lambda v: torch.tensor(np.asarray(v, np.float64))))


@pytest.mark.parametrize("name", sorted(_CONSTRAINTS))
@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_biject_to_and_transform_to_every_constraint(name, registry):
    ours_c, theirs_c = _constraints(name)
    assert _text(repr(ours_c)) == repr(theirs_c)
    assert ours_c.event_dim == theirs_c.event_dim if name != "dependent" else True
    try:
        theirs = getattr(TD, registry)(theirs_c)
    except NotImplementedError as e:
        with pytest.raises(NotImplementedError) as got:
            getattr(dist, registry)(ours_c)
        assert str(got.value) == str(e)  # "Cannot transform _Boolean constraints"
        return
    ours = getattr(dist, registry)(ours_c)
    assert repr(ours) == repr(theirs)
    assert ours.bijective == theirs.bijective
    shape = (2, 3, 3) if theirs_c.event_dim >= 2 else (2, 3)
    x = _RNG.standard_normal(shape)
    yo, yt = ours(tl.tensor(x)), theirs(torch.tensor(x))
    _close(yo, yt, rtol=1e-9)
    np.testing.assert_array_equal(ours_c.check(yo).numpy(), theirs_c.check(yt).numpy())
    if theirs.bijective:
        _close(ours.log_abs_det_jacobian(tl.tensor(x), yo),
               theirs.log_abs_det_jacobian(torch.tensor(x), yt), rtol=1e-9)


def test_constraint_event_dims_and_reprs():
    assert C.stack([C.real, C.positive], dim=-1).event_dim == \
        TC.stack([TC.real, TC.positive], dim=-1).event_dim == 1
    assert C.stack([C.real, C.positive], dim=0).event_dim == 0
    assert C.cat([C.real, C.simplex], dim=-1).event_dim == 1
    assert repr(C.MixtureSameFamilyConstraint(C.positive)) == \
        repr(TC.MixtureSameFamilyConstraint(TC.positive))
    assert C.real_vector.base_constraint is C.real
    assert C.real_vector.reinterpreted_batch_ndims == 1


_VALUES = [np.array(1.0), np.array([-1.0, 0.5, 2.0]), np.array([[1.0, 2.0], [2.0, 1.0]]),
           np.array([[1.0, 2.0, 0.0], [1.0, 1.0, 1.0]]), np.eye(3),
           np.array([[[1.0, 0.0], [0.5, 2.0]], [[2.0, 0.1], [0.1, 1.0]]])]


_SQUARE = ["positive_definite", "positive_semidefinite", "symmetric", "square", "corr_cholesky"]


@pytest.mark.parametrize("name, index", [
    (name, index) for name in ["real_vector", "independent", "independent_simplex",
                               "lower_cholesky", "lower_triangular", "cat", "stack",
                               "mixture", *_SQUARE]
    for index in range(len(_VALUES))
    if name not in _SQUARE or _VALUES[index].ndim >= 2])  # (vectors: an IndexError in both)
def test_constraint_checks_on_any_shape(name, index):
    # too few dims for an event are refused with PyTorch's error; non-square matrices are not
    # positive definite; a stack zips its constraints with the slices
    ours_c, theirs_c = _constraints(name)
    value = _VALUES[index]
    try:
        expected = theirs_c.check(torch.tensor(value))
    except (ValueError, RuntimeError, AssertionError) as e:
        with pytest.raises(type(e)) as got:
            ours_c.check(tl.tensor(value))
        assert _text(got.value) == str(e)
        return
    np.testing.assert_array_equal(ours_c.check(tl.tensor(value)).numpy(), expected.numpy())


# -- composite distributions ---------------------------------------------------------------------


def _normals(lib, shape=(2, 3)):
    return (TD if lib is torch else dist).Normal(lib.zeros(shape, dtype=lib.float64),
                                                 lib.ones(shape, dtype=lib.float64))


@pytest.mark.parametrize("n", [0, 1, 2])
def test_independent_support_expand_and_enumeration(n):
    ours, theirs = dist.Independent(_normals(tl), n), TD.Independent(_normals(torch), n)
    assert _text(repr(ours)) == repr(theirs)
    assert repr(ours.support) == repr(theirs.support)
    assert ours.support.event_dim == theirs.support.event_dim
    big_o, big_t = ours.expand((4,) + tuple(ours.batch_shape)), \
        theirs.expand((4,) + tuple(theirs.batch_shape))
    assert tuple(big_o.base_dist.batch_shape) == tuple(big_t.base_dist.batch_shape)
    assert tuple(big_o.sample((5,)).shape) == tuple(big_t.sample((5,)).shape)
    value = np.full((2, 3), 0.5)
    _close(big_o.log_prob(tl.tensor(value)), big_t.log_prob(torch.tensor(value)))
    _close(big_o.entropy(), big_t.entropy())
    b_o = dist.Independent(dist.Bernoulli(tl.tensor([0.2, 0.7])), n if n < 2 else 1)
    b_t = TD.Independent(TD.Bernoulli(torch.tensor([0.2, 0.7])), n if n < 2 else 1)
    assert b_o.has_enumerate_support == b_t.has_enumerate_support
    if b_t.has_enumerate_support:
        _close(b_o.enumerate_support(), b_t.enumerate_support())
    else:
        _same_error(b_o.enumerate_support, b_t.enumerate_support)
    with pytest.raises(ValueError, match="to be within the support"):
        b_o.log_prob(tl.tensor([2.0, 0.0]))


def test_independent_rejects_too_many_dims():
    _same_error(lambda: dist.Independent(dist.Normal(tl.zeros(2), 1.0), 2),
                lambda: TD.Independent(TD.Normal(torch.zeros(2), 1.0), 2))


def _mixture(lib, batch=()):
    m = TD if lib is torch else dist
    logits = lib.tensor(np.log(np.broadcast_to([0.3, 0.7], batch + (2,))).copy())
    comp = m.Independent(_normals(lib, batch + (2, 3)), 1)
    return m.MixtureSameFamily(m.Categorical(logits=logits), comp)


@pytest.mark.parametrize("batch", [(), (4,)])
def test_mixture_support_expand_and_repr(batch):
    ours, theirs = _mixture(tl, batch), _mixture(torch, batch)
    assert _text(repr(ours)) == repr(theirs)
    assert repr(ours.support) == repr(theirs.support)
    big_o, big_t = ours.expand((5,) + batch), theirs.expand((5,) + batch)
    assert tuple(big_o.batch_shape) == tuple(big_t.batch_shape)
    assert tuple(big_o.component_distribution.batch_shape) == \
        tuple(big_t.component_distribution.batch_shape)
    tl.manual_seed(0)
    torch.manual_seed(0)
    _close(big_o.sample((2,)), big_t.sample((2,)), rtol=1e-6)
    value = _RNG.standard_normal((5,) + batch + (3,))
    _close(big_o.log_prob(tl.tensor(value)), big_t.log_prob(torch.tensor(value)))
    _close(big_o.mean, big_t.mean)
    _close(big_o.variance, big_t.variance)
    np.testing.assert_array_equal(ours.support.check(tl.tensor(value)).numpy(),
                                  theirs.support.check(torch.tensor(value)).numpy())


@pytest.mark.parametrize("value", [np.ones(2), np.ones((4, 3))])
def test_value_shapes_are_validated_as_pytorch(value):
    # the event shape must match, and the batch broadcast (before the support is checked)
    _same_error(lambda: _mixture(tl).expand((5,)).log_prob(tl.tensor(value)),
                lambda: _mixture(torch).expand((5,)).log_prob(torch.tensor(value)))


def test_mixture_errors():
    _same_error(lambda: dist.MixtureSameFamily(dist.Normal(0.0, 1.0), dist.Normal(0.0, 1.0)),
                lambda: TD.MixtureSameFamily(TD.Normal(0.0, 1.0), TD.Normal(0.0, 1.0)))
    _same_error(lambda: dist.MixtureSameFamily(dist.Categorical(tl.ones(2)), 1.0),
                lambda: TD.MixtureSameFamily(TD.Categorical(torch.ones(2)), 1.0))
    _same_error(lambda: dist.MixtureSameFamily(dist.Categorical(tl.ones(3, 2)),
                                               dist.Normal(tl.zeros(4, 2), 1.0)),
                lambda: TD.MixtureSameFamily(TD.Categorical(torch.ones(3, 2)),
                                             TD.Normal(torch.zeros(4, 2), 1.0)))


@pytest.mark.parametrize("transforms", [[1], 1])
def test_transformed_distribution_errors(transforms):
    _same_error(lambda: dist.TransformedDistribution(dist.Normal(0.0, 1.0), transforms),
                lambda: TD.TransformedDistribution(TD.Normal(0.0, 1.0), transforms))
    _same_error(lambda: dist.TransformedDistribution(dist.Normal(0.0, 1.0),
                                                     dist.StickBreakingTransform()),
                lambda: TD.TransformedDistribution(TD.Normal(0.0, 1.0),
                                                   TD.StickBreakingTransform()))


def test_transformed_distribution_cdf_icdf_and_rsample_gradient():
    def build(lib, m):
        loc = lib.tensor([0.3, 1.0], dtype=lib.float64, requires_grad=True)
        scale = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        d = m.TransformedDistribution(m.Normal(loc, scale),
                                      [m.ExpTransform(), m.PowerTransform(-1.0)])
        return d, loc, scale

    (ours, *p_o), (theirs, *p_t) = build(tl, dist), build(torch, TD)
    value = np.array([0.5, 2.0])
    _close(ours.cdf(tl.tensor(value)), theirs.cdf(torch.tensor(value)))  # a decreasing map
    _close(ours.icdf(tl.tensor([0.2, 0.9])), theirs.icdf(torch.tensor([0.2, 0.9])))
    _close(ours.log_prob(tl.tensor(value)), theirs.log_prob(torch.tensor(value)))
    tl.manual_seed(1)
    torch.manual_seed(1)
    s_o, s_t = ours.rsample((3,)), theirs.rsample((3,))
    _close(s_o, s_t, rtol=1e-6)
    for g_o, g_t in zip(tl.autograd.grad(s_o.sum(), p_o), torch.autograd.grad(s_t.sum(), p_t)):
        _close(g_o, g_t, rtol=1e-6)


def test_lognormal_is_a_transformed_distribution():
    ours, theirs = dist.LogNormal(tl.tensor([0.0, 1.0]), 1.5), \
        TD.LogNormal(torch.tensor([0.0, 1.0]), 1.5)
    assert isinstance(ours, dist.TransformedDistribution)
    assert ours.transforms == [dist.ExpTransform()]
    # its cdf inverts first and validates the pre-image against the base (log 0 = -inf passes)
    _close(ours.cdf(tl.tensor([0.0, 1.0])), theirs.cdf(torch.tensor([0.0, 1.0])))
    _same_error(lambda: ours.log_prob(tl.tensor([0.0, 1.0])),
                lambda: theirs.log_prob(torch.tensor([0.0, 1.0])))
    _close(ours.expand((3, 2)).log_prob(tl.tensor([0.5, 2.0])),
           theirs.expand((3, 2)).log_prob(torch.tensor([0.5, 2.0])))
    other_o, other_t = dist.LogNormal(tl.tensor([1.0, 0.0]), 0.5), \
        TD.LogNormal(torch.tensor([1.0, 0.0]), 0.5)
    _close(dist.kl_divergence(ours, other_o), TD.kl_divergence(theirs, other_t))
    with pytest.raises(NotImplementedError):
        dist.kl_divergence(ours, dist.Gumbel(tl.zeros(2), 1.0))


def test_studentt_variance_gradient_where_it_is_infinite():
    df_o = tl.tensor([0.7, 1.5, 2.0, 4.0], dtype=tl.float64, requires_grad=True)
    df_t = torch.tensor([0.7, 1.5, 2.0, 4.0], dtype=torch.float64, requires_grad=True)
    var_o, var_t = dist.StudentT(df_o).variance, TD.StudentT(df_t).variance
    _close(var_o, var_t)
    _close(tl.autograd.grad(var_o.sum(), df_o)[0], torch.autograd.grad(var_t.sum(), df_t)[0])


@pytest.mark.parametrize("name", ["TransformedDistribution", "Independent", "MixtureSameFamily"])
def test_composite_supports_are_dependent_properties(name):
    ours, theirs = getattr(dist, name).support, getattr(TD, name).support
    assert C.is_dependent(ours) and TC.is_dependent(theirs)
    assert repr(ours) == repr(theirs)
    _same_error(lambda: dist.biject_to(ours), lambda: TD.biject_to(theirs))
    if name == "TransformedDistribution":
        assert ours.is_discrete is theirs.is_discrete is False


@pytest.mark.parametrize("name, args, kwargs", [
    ("Chi2", ([-1.0],), {}),                      # df is a property, validated all the same
    ("HalfNormal", ([-1.0],), {}),                # named as itself, not as its base Normal
    ("HalfCauchy", ([0.0],), {}),
    ("Geometric", (), {"probs": [0.0, 0.5]}),     # a success probability of 0 is refused
    ("Gumbel", ([1.0, 2.0], [1.0, 2.0, 3.0]), {}),  # parameters that do not broadcast
    ("Pareto", ([1.0, 2.0], [1.0, 2.0, 3.0]), {}),
])
def test_family_parameter_errors(name, args, kwargs):
    def build(lib, m):
        conv = lambda v: lib.tensor(v, dtype=lib.float64)  # noqa: E731
        return getattr(m, name)(*map(conv, args), **{k: conv(v) for k, v in kwargs.items()})
    _same_error(lambda: build(tl, dist), lambda: build(torch, TD))


@pytest.mark.parametrize("make", [
    lambda c: c.independent(1.0, 1), lambda c: c.independent(c.real, 1.5),
    lambda c: c.independent(c.real, -1), lambda c: c.cat([1.0]), lambda c: c.stack([1.0]),
    lambda c: c.MixtureSameFamilyConstraint(1.0),
])
def test_constraint_construction_errors(make):
    _same_error(lambda: make(C), lambda: make(TC))


@pytest.mark.parametrize("name", ["lower_triangular", "lower_cholesky", "corr_cholesky"])
def test_triangular_constraints_fail_on_nan(name):
    value = np.array([[[1.0, 0.0], [np.nan, 1.0]], [[1.0, 0.0], [0.0, 1.0]]])
    np.testing.assert_array_equal(getattr(C, name).check(tl.tensor(value)).numpy(),
                                  getattr(TC, name).check(torch.tensor(value)).numpy())


def test_subclass_without_arg_constraints_or_support_warns():
    def messages(base, value):
        class Custom(base):
            def __init__(self):
                super().__init__((), validate_args=True)

            def log_prob(self, v):
                self._validate_sample(v)
                return v

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            Custom().log_prob(value)
        assert all(w.filename == __file__ for w in caught)  # the user's line
        return [str(w.message).split("Custom'> ")[1] for w in caught]

    assert messages(dist.Distribution, tl.tensor(1.0)) == \
        messages(TD.Distribution, torch.tensor(1.0))


def test_registering_a_user_constraint():
    class Even(C.Constraint):
        def check(self, value):
            return value % 2 == 0

    registry = dist.constraint_registry.ConstraintRegistry()
    registry.register(Even, lambda c: dist.AffineTransform(0.0, 2.0))
    assert isinstance(registry(Even()), dist.AffineTransform)
    _same_error(lambda: registry.register(1.0, lambda c: c),
                lambda: TD.constraint_registry.ConstraintRegistry().register(1.0, lambda c: c))
    _same_error(lambda: registry.register(int, lambda c: c),
                lambda: TD.constraint_registry.ConstraintRegistry().register(int, lambda c: c))


@pytest.mark.parametrize("base_validates, validates", [(False, True), (True, False)])
def test_transformed_cdf_validates_by_its_own_flag(base_validates, validates):
    def cdf(lib, m):
        base = m.Laplace(lib.tensor(0.0), lib.tensor(1.0), validate_args=base_validates)
        return m.TransformedDistribution(base, m.ExpTransform(),
                                         validate_args=validates).cdf(lib.tensor([-1.0, 1.0]))
    _same_error(lambda: cdf(tl, dist), lambda: cdf(torch, TD))
