"""The samplers that PyTorch implements value by value (gamma, Dirichlet, Poisson) and the
distributions built on them draw PyTorch's numbers after the same seed, bit for bit, and leave
the generator where PyTorch leaves it (the next draw agrees too)."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tests.oracle import torch

DISTRIBUTIONS = {
    "Gamma": lambda lib, dt: lib.distributions.Gamma(
        lib.tensor([0.3, 1.0, 2.5, 9.0], dtype=dt), lib.tensor([1.0, 3.0, 0.5, 2.0], dtype=dt)),
    "Beta": lambda lib, dt: lib.distributions.Beta(lib.tensor([0.5, 2.0], dtype=dt),
                                                   lib.tensor([1.5, 0.3], dtype=dt)),
    "Dirichlet": lambda lib, dt: lib.distributions.Dirichlet(
        lib.tensor([[0.5, 2.0, 1.0], [3.0, 3.0, 3.0]], dtype=dt)),
    "Poisson": lambda lib, dt: lib.distributions.Poisson(
        lib.tensor([0.0, 0.5, 9.99, 10.0, 30.0, 1e4], dtype=dt)),
    "Chi2": lambda lib, dt: lib.distributions.Chi2(lib.tensor([1.0, 5.0], dtype=dt)),
    "StudentT": lambda lib, dt: lib.distributions.StudentT(lib.tensor([2.0, 5.0], dtype=dt)),
    "FisherSnedecor": lambda lib, dt: lib.distributions.FisherSnedecor(
        lib.tensor([3.0], dtype=dt), lib.tensor([5.0], dtype=dt)),
    "InverseGamma": lambda lib, dt: lib.distributions.InverseGamma(
        lib.tensor([2.0], dtype=dt), lib.tensor([3.0], dtype=dt)),
    "NegativeBinomial": lambda lib, dt: lib.distributions.NegativeBinomial(
        lib.tensor([3.0, 10.0, 0.0], dtype=dt), probs=lib.tensor([0.3, 0.6, 0.5], dtype=dt)),
    "Geometric": lambda lib, dt: lib.distributions.Geometric(lib.tensor([0.3, 0.7], dtype=dt)),
    "Binomial": lambda lib, dt: lib.distributions.Binomial(
        lib.tensor([0.0, 5.0, 10.0, 100.0, 1000.0, 3e6], dtype=dt),
        probs=lib.tensor([0.5, 0.95, 0.3, 0.9, 0.02, 0.37], dtype=dt)),
    "Cauchy": lambda lib, dt: lib.distributions.Cauchy(lib.tensor([0.0, 1.0], dtype=dt),
                                                       lib.tensor([1.0, 2.0], dtype=dt)),
    "HalfCauchy": lambda lib, dt: lib.distributions.HalfCauchy(lib.tensor([1.0, 2.0], dtype=dt)),
    "Exponential": lambda lib, dt: lib.distributions.Exponential(lib.tensor([0.5, 2.0], dtype=dt)),
    "Uniform": lambda lib, dt: lib.distributions.Uniform(lib.tensor([0.0], dtype=dt),
                                                         lib.tensor([3.0], dtype=dt)),
    "Normal": lambda lib, dt: lib.distributions.Normal(lib.tensor([0.0, 1.0], dtype=dt),
                                                       lib.tensor([1.0, 0.5], dtype=dt)),
    "Bernoulli": lambda lib, dt: lib.distributions.Bernoulli(lib.tensor([0.3, 0.6], dtype=dt)),
    "Categorical": lambda lib, dt: lib.distributions.Categorical(
        lib.tensor([0.3, 0.6, 0.1], dtype=dt)),
}

# Where a sample passes through a kernel PyTorch vectorises with its own 1-ulp math (the README's
# differences): float32 normals of 16 or more values, and pow with a tensor exponent
# (InverseGamma's PowerTransform). The draws themselves are the same.
LAST_BIT = {("StudentT", "float32"): 3e-7, ("InverseGamma", "float64"): 4e-16,
            ("InverseGamma", "float32"): 2e-7, ("Normal", "float32"): 3e-7}


def _draw(lib, make, dtype_name):
    lib.manual_seed(0)
    samples = make(lib, getattr(lib, dtype_name)).sample((50,))
    after = lib.rand(5)  # where the stream was left
    return samples.numpy(), after.numpy()


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_distribution_samples_are_pytorchs(name, dtype):
    (ours, ours_after), (theirs, theirs_after) = (
        _draw(lib, DISTRIBUTIONS[name], dtype) for lib in (tl, torch))
    assert ours.dtype == theirs.dtype
    if (name, dtype) in LAST_BIT:  # see LAST_BIT
        np.testing.assert_allclose(ours, theirs, rtol=LAST_BIT[name, dtype], atol=0)
    else:
        np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(ours_after, theirs_after)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_gamma_poisson_and_dirichlet_functions(dtype):
    alphas = np.array([0.0, 1e-3, 0.3, 0.999, 1.0, 4.5, 100.0, np.nan])
    rates = np.array([0.0, 1e-300, 3.0, 9.999, 10.0, 57.5, 1e6])
    results = []
    for lib in (tl, torch):
        lib.manual_seed(3)
        dt = getattr(lib, dtype)
        results.append((lib._standard_gamma(lib.tensor(alphas, dtype=dt)).numpy(),
                        lib.binomial(lib.tensor([20.0, 3.0], dtype=dt),
                                     lib.tensor([0.6, 0.2], dtype=dt)).numpy(),
                        lib.poisson(lib.tensor(rates, dtype=dt)).numpy(),
                        lib._sample_dirichlet(lib.tensor([[0.1, 0.2], [5.0, 7.0]],
                                                         dtype=dt)).numpy(),
                        lib.randn(3, dtype=lib.float64).numpy()))  # the kept normal value
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


def test_reparameterised_samples_keep_their_gradients():
    tl.manual_seed(0)
    a = tl.tensor([0.7, 2.0], dtype=tl.float64, requires_grad=True)
    b = tl.tensor([1.5, 0.4], dtype=tl.float64, requires_grad=True)
    x = tl.distributions.Beta(a, b).rsample((200,))
    torch.manual_seed(0)
    beta = torch.distributions.Beta(torch.tensor([0.7, 2.0], dtype=torch.float64),
                                    torch.tensor([1.5, 0.4], dtype=torch.float64))
    expected = beta.sample((200,))
    np.testing.assert_array_equal(x.detach().numpy(), expected.numpy())
    x.mean(0).sum().backward()
    assert np.isfinite(a.grad.numpy()).all() and np.isfinite(b.grad.numpy()).all()
    # d E[x] / d a = b / (a + b)^2 > 0 and d E[x] / d b < 0: the sample's gradient agrees in sign
    assert (a.grad.numpy() > 0).all() and (b.grad.numpy() < 0).all()


@pytest.mark.parametrize("kind", ["hook", "parametrization"])
def test_spectral_norm_starts_from_pytorchs_vectors(kind):
    found = []
    for lib in (tl, torch):
        lib.manual_seed(0)
        layer = lib.nn.Linear(20, 40)
        if kind == "hook":
            lib.nn.utils.spectral_norm(layer)
            found.append((layer.weight_u.numpy(), layer.weight_v.numpy()))
        else:  # 15 power iterations at the start, as PyTorch does
            lib.nn.utils.parametrizations.spectral_norm(layer)
            state = layer.parametrizations.weight[0]
            found.append((state._u.numpy(), state._v.numpy()))
    for ours, theirs in zip(*found):
        np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=1e-7)
