"""Muon (Newton-Schulz orthogonalised momentum, 2-D parameters only): its update is close to an
orthogonal matrix, its options and errors are PyTorch's, and its trajectory is PyTorch's."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.optim.muon import zeropower_via_newtonschulz


def test_update_is_nearly_orthogonal_on_the_wide_side():
    rng = np.random.default_rng(0)
    for shape in ((6, 10), (10, 6)):
        m = rng.standard_normal(shape).astype(np.float32)
        o = zeropower_via_newtonschulz(m, (3.4445, -4.775, 2.0315), 5, 1e-7)
        assert o.shape == shape and o.dtype == np.float32
        singular = np.linalg.svd(o.astype(np.float64), compute_uv=False)
        # the quintic iteration drives singular values into roughly [0.7, 1.2], not exactly 1
        assert singular.min() > 0.5 and singular.max() < 1.3
        u, _, vt = np.linalg.svd(m.astype(np.float64), full_matrices=False)
        # same singular vectors: o is close to u @ vt in direction
        cosine = (o * (u @ vt)).sum() / np.linalg.norm(o) / np.linalg.norm(u @ vt)
        assert cosine > 0.95


def test_options_errors_and_state():
    w = tl.nn.Parameter(tl.randn(4, 3))
    opt = tl.optim.Muon([w], lr=0.02)
    group = opt.param_groups[0]
    assert (group["weight_decay"], group["momentum"], group["nesterov"], group["ns_steps"],
            group["adjust_lr_fn"]) == (0.1, 0.95, True, 5, None)
    w.grad = tl.ones(4, 3)
    before = w.detach().clone()
    opt.step()
    assert not tl.equal(w, before) and opt.state[w]["momentum_buffer"].shape == (4, 3)
    with pytest.raises(ValueError, match="only supports 2D parameters"):
        tl.optim.Muon([tl.nn.Parameter(tl.randn(3))])
    with pytest.raises(ValueError, match="not supported"):
        tl.optim.Muon([w], adjust_lr_fn="cubic")
    with pytest.raises(ValueError, match="Learning rate"):
        tl.optim.Muon([w], lr=-1.0)
    state = opt.state_dict()
    again = tl.optim.Muon([w])
    again.load_state_dict(state)
    assert again.param_groups[0]["lr"] == 0.02


@pytest.mark.parametrize("kwargs", [{}, {"nesterov": False, "adjust_lr_fn": "match_rms_adamw"},
                                    {"weight_decay": 0.0, "lr": 0.02}])
def test_trajectory_matches_pytorch(kwargs):
    torch = pytest.importorskip("torch")
    if not hasattr(torch.optim, "Muon"):
        pytest.skip("this PyTorch has no Muon")
    rng = np.random.default_rng(1)
    for shape in ((8, 5), (5, 8)):
        w0 = rng.standard_normal(shape).astype(np.float32)
        theirs = torch.nn.Parameter(torch.tensor(w0))
        ours = tl.nn.Parameter(tl.tensor(w0))
        opt_t, opt_l = torch.optim.Muon([theirs], **kwargs), tl.optim.Muon([ours], **kwargs)
        for _ in range(4):
            g = rng.standard_normal(shape).astype(np.float32)
            theirs.grad, ours.grad = torch.tensor(g), tl.tensor(g)
            opt_t.step()
            opt_l.step()
        moved = np.abs(theirs.detach().numpy() - w0).max()
        # bfloat16 iterations: a product rounded the other way moves an update by ~0.4 %
        assert np.abs(theirs.detach().numpy() - ours.detach().numpy()).max() <= 1e-2 * moved
