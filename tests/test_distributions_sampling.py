"""Learning through samples: the score-function (REINFORCE) estimator on a bandit with
Categorical, pathwise gradients of reparameterised samples (against the closed forms, and against
PyTorch's within Monte Carlo noise), relaxed samples and their temperature, and sample moments
against each distribution's own."""

import math

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.distributions as dist


def test_reinforce_learns_the_best_arm():
    tl.manual_seed(0)
    means = np.array([0.1, 0.9, 0.3])
    logits = tl.zeros(3, requires_grad=True)
    optimizer = tl.optim.Adam([logits], lr=0.1)
    noise = np.random.default_rng(0)
    for _ in range(150):
        policy = dist.Categorical(logits=logits)
        actions = policy.sample((16,))
        rewards = tl.tensor(means[actions.numpy()] + 0.1 * noise.standard_normal(16))
        loss = -(policy.log_prob(actions) * (rewards - rewards.mean())).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert dist.Categorical(logits=logits).probs.argmax().item() == 1
    assert dist.Categorical(logits=logits).probs[1].item() > 0.8


def test_rsample_gives_pathwise_gradients():
    tl.manual_seed(0)
    mu = tl.tensor([0.5, -1.0], requires_grad=True, dtype=tl.float64)
    log_sigma = tl.tensor([0.0, -0.5], requires_grad=True, dtype=tl.float64)
    z = dist.Normal(mu, log_sigma.exp()).rsample((20000,))
    (z ** 2).mean(0).sum().backward()  # d/dmu E[z^2] = 2 mu, d/dlog_sigma = 2 sigma^2
    np.testing.assert_allclose(mu.grad.numpy(), 2 * mu.detach().numpy(), atol=0.05)
    sigma = np.exp(log_sigma.detach().numpy())
    np.testing.assert_allclose(log_sigma.grad.numpy(), 2 * sigma ** 2, atol=0.05)
    kl = dist.kl_divergence(dist.Normal(mu, log_sigma.exp()), dist.Normal(0.0, 1.0)).sum()
    kl.backward()
    assert math.isfinite(kl.item())


def test_reparameterised_gradients_match_pytorch_statistically():
    """d/dparam E[f(x)] from rsample: ours and PyTorch's agree within Monte Carlo noise."""
    torch = pytest.importorskip("torch")
    tl.manual_seed(0)
    torch.manual_seed(0)
    cases = [("Gumbel", (0.5, 1.5)), ("Weibull", (1.5, 2.0)), ("Kumaraswamy", (2.0, 3.0)),
             ("StudentT", (5.0, 0.5, 1.5)), ("Gamma", (2.5, 1.5)), ("Beta", (2.0, 3.0)),
             ("HalfNormal", (1.5,)), ("ContinuousBernoulli", (0.3,)),
             ("FisherSnedecor", (6.0, 9.0))]
    n = 10000
    for name, params in cases:
        grads = []
        for lib, mod in ((tl, dist), (torch, torch.distributions)):
            ps = [lib.tensor(p, dtype=lib.float64, requires_grad=True) for p in params]
            sample = getattr(mod, name)(*ps).rsample((n,))
            (sample.clamp(max=5.0) ** 2).mean().backward()
            grads.append(np.array([p.grad.item() for p in ps]))
        np.testing.assert_allclose(grads[0], grads[1], rtol=0.1, atol=0.03, err_msg=name)


def test_relaxed_rsample_gradients_and_temperature():
    tl.manual_seed(0)
    logits = tl.tensor([0.0, 1.0, -1.0], requires_grad=True)
    samples = dist.RelaxedOneHotCategorical(tl.tensor(0.1), logits=logits).rsample((2000,))
    assert tuple(samples.shape) == (2000, 3)
    np.testing.assert_allclose(samples.sum(-1).detach().numpy(), 1.0, rtol=1e-5)
    # low temperature: nearly one-hot, and the category frequencies follow softmax(logits)
    assert (samples.max(-1)[0].detach().numpy() > 0.9).mean() > 0.85
    np.testing.assert_allclose(samples.detach().numpy().mean(0),
                               logits.softmax(-1).detach().numpy(), atol=0.04)
    samples[:, 1].mean().backward()
    g = logits.grad.numpy()
    assert g[1] > 0 and g[0] < 0 and g[2] < 0
    probs = tl.tensor([0.3], requires_grad=True)
    b = dist.RelaxedBernoulli(tl.tensor(0.5), probs=probs).rsample((4000,))
    b.mean().backward()
    assert 0.0 < b.min().item() and b.max().item() < 1.0 and probs.grad.item() > 0


def test_sample_moments():
    tl.manual_seed(1)
    cases = [(dist.Gumbel(tl.tensor(1.0), tl.tensor(2.0)), 1e4),
             (dist.Weibull(tl.tensor(1.5), tl.tensor(2.0)), 1e4),
             (dist.StudentT(tl.tensor(6.0), tl.tensor(1.0), tl.tensor(2.0)), 2e4),
             (dist.NegativeBinomial(tl.tensor(3.0), probs=tl.tensor(0.4)), 1e4),
             (dist.Chi2(tl.tensor(3.0)), 1e4), (dist.Pareto(tl.tensor(1.0), tl.tensor(5.0)), 1e4),
             (dist.VonMises(tl.tensor(0.5), tl.tensor(4.0)), 1e4),
             (dist.Multinomial(10, probs=tl.tensor([0.2, 0.3, 0.5])), 1e4)]
    for d, n in cases:
        s = d.sample((int(n),)).numpy()
        np.testing.assert_allclose(s.mean(0), d.mean.numpy(), rtol=0.05, atol=0.05,
                                   err_msg=type(d).__name__)
        if not isinstance(d, dist.VonMises):
            np.testing.assert_allclose(s.var(0), d.variance.numpy(), rtol=0.15,
                                       err_msg=type(d).__name__)
    v = dist.VonMises(tl.tensor(0.5), tl.tensor(4.0)).sample((10000,)).numpy()
    assert 1 - np.abs(np.exp(1j * v).mean()) == pytest.approx(
        dist.VonMises(tl.tensor(0.5), tl.tensor(4.0)).variance.item(), abs=0.02)
