"""optim.swa_utils against PyTorch's: SWA and EMA averages of the same weight trajectory,
averaging buffers too, the SWALR schedule, and update_bn's recomputed BatchNorm statistics."""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")
rng = np.random.default_rng(0)


def pair_models():
    """The same small model with BatchNorm in both libraries (weights copied, float64)."""
    ours = tl.nn.Sequential(tl.nn.Linear(3, 4), tl.nn.BatchNorm1d(4), tl.nn.Linear(4, 2)).double()
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4),
                                 torch.nn.Linear(4, 2)).double()
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    return ours, theirs


def perturb(ours, theirs, step):
    """Move both models' weights the same way (a stand-in for a training step)."""
    for a, b in zip(ours.parameters(), theirs.parameters()):
        delta = np.sin(np.arange(a.numel()) + step).reshape(a.shape) * 0.1
        a.data = a.data + tl.tensor(delta)
        b.data = b.data + torch.tensor(delta)
    batch = rng.standard_normal((8, 3))
    ours(tl.tensor(batch)), theirs(torch.tensor(batch))  # BatchNorm buffers move too


@pytest.mark.parametrize("rule", ["swa", "ema_multi", "ema_fn", "swa_buffers"])
def test_averaged_model_matches_pytorch(rule):
    ours, theirs = pair_models()
    ours_kw, theirs_kw = {}, {}
    if rule == "ema_multi":
        ours_kw["multi_avg_fn"] = tl.optim.swa_utils.get_ema_multi_avg_fn(0.9)
        theirs_kw["multi_avg_fn"] = torch.optim.swa_utils.get_ema_multi_avg_fn(0.9)
    elif rule == "ema_fn":
        ours_kw["avg_fn"] = tl.optim.swa_utils.get_ema_avg_fn(0.8)
        theirs_kw["avg_fn"] = torch.optim.swa_utils.get_ema_avg_fn(0.8)
    elif rule == "swa_buffers":
        ours_kw["use_buffers"] = theirs_kw["use_buffers"] = True
    avg_ours = tl.optim.swa_utils.AveragedModel(ours, **ours_kw)
    avg_theirs = torch.optim.swa_utils.AveragedModel(theirs, **theirs_kw)
    for step in range(5):
        perturb(ours, theirs, step)
        avg_ours.update_parameters(ours)
        avg_theirs.update_parameters(theirs)
    assert int(avg_ours.n_averaged.item()) == int(avg_theirs.n_averaged.item()) == 5
    theirs_state = avg_theirs.state_dict()
    for key, value in avg_ours.state_dict().items():
        np.testing.assert_allclose(value.numpy(), theirs_state[key].numpy(), rtol=1e-12,
                                   err_msg=key)
    x = rng.standard_normal((4, 3))
    avg_ours.eval(), avg_theirs.eval()
    np.testing.assert_allclose(avg_ours(tl.tensor(x)).detach().numpy(),
                               avg_theirs(torch.tensor(x)).detach().numpy(), rtol=1e-12)


def test_swalr_schedule_matches_pytorch():
    def run(lib, **kw):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=0.5)
        sched = lib.optim.swa_utils.SWALR(opt, **kw)
        out = []
        for _ in range(8):
            opt.step()
            sched.step()
            out.append(sched.get_last_lr()[0])
        return out
    for kw in (dict(swa_lr=0.05, anneal_epochs=4), dict(swa_lr=0.05, anneal_epochs=3,
                                                         anneal_strategy="linear"),
               dict(swa_lr=0.1, anneal_epochs=0)):
        np.testing.assert_allclose(run(tl, **kw), run(torch, **kw), rtol=1e-12)
    with pytest.raises(ValueError, match="anneal_strategy"):
        tl.optim.swa_utils.SWALR(tl.optim.SGD([tl.nn.Parameter(tl.ones(1))], lr=1.0), 0.1,
                                 anneal_strategy="step")


def test_update_bn_recomputes_statistics_like_pytorch():
    ours, theirs = pair_models()
    data = [rng.standard_normal((10, 3)) * 3 + 1 for _ in range(4)]
    tl.optim.swa_utils.update_bn([(tl.tensor(d), 0) for d in data], ours)
    torch.optim.swa_utils.update_bn([(torch.tensor(d), 0) for d in data], theirs)
    np.testing.assert_allclose(ours[1].running_mean.numpy(), theirs[1].running_mean.numpy(),
                               rtol=1e-12)
    np.testing.assert_allclose(ours[1].running_var.numpy(), theirs[1].running_var.numpy(),
                               rtol=1e-12)
    assert ours[1].momentum == 0.1 and ours.training
