"""SparseAdam against PyTorch: its updates on sparse gradients (maximize too), and its refusal
of dense gradients and of bad arguments."""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")


def _sparse_grad_pair(rng, shape, rows):
    dense = np.zeros(shape)
    dense[rows] = rng.standard_normal((len(rows),) + shape[1:])
    indices = np.array([rows])
    values = dense[rows]
    t_grad = torch.sparse_coo_tensor(torch.tensor(indices), torch.tensor(values), shape,
                                     check_invariants=True)
    o_grad = tl.sparse_coo_tensor(tl.tensor(indices), tl.tensor(values), shape)
    return t_grad, o_grad


@pytest.mark.parametrize("maximize", [False, True])
def test_sparse_adam_matches_pytorch_on_sparse_gradients(maximize):
    rng = np.random.default_rng(3)
    w = rng.standard_normal((6, 3))
    tp = torch.tensor(w, requires_grad=True)
    op = tl.tensor(w, requires_grad=True)
    t_opt = torch.optim.SparseAdam([tp], lr=0.1, maximize=maximize)
    o_opt = tl.optim.SparseAdam([op], lr=0.1, maximize=maximize)
    for rows in ([0, 2], [2, 5], [1, 2, 4], [4, 2]):  # [4, 2]: unsorted, coalesced first
        t_grad, o_grad = _sparse_grad_pair(rng, (6, 3), rows)
        tp.grad = t_grad
        op._grad = o_grad  # autograd's gradients are dense: a sparse one is stored directly
        t_opt.step()
        o_opt.step()
        np.testing.assert_allclose(op.detach().numpy(), tp.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(o_opt.state[op]["exp_avg_sq"].numpy(),
                               t_opt.state[tp]["exp_avg_sq"].numpy(), rtol=1e-12)
    assert o_opt.state[op]["step"] == t_opt.state[tp]["step"] == 4
    np.testing.assert_array_equal(op.detach().numpy()[3], w[3])  # never in a gradient: untouched


def test_sparse_adam_refuses_dense_gradients_and_bad_arguments():
    op = tl.zeros(3, requires_grad=True)
    tp = torch.zeros(3, requires_grad=True)
    opt = tl.optim.SparseAdam([op])
    assert opt.defaults == torch.optim.SparseAdam([tp]).defaults
    (op * 2).sum().backward()
    message = "SparseAdam does not support dense gradients, please consider Adam instead"
    with pytest.raises(RuntimeError, match=message):
        opt.step()
    (tp * 2).sum().backward()
    with pytest.raises(RuntimeError, match=message):
        torch.optim.SparseAdam([tp]).step()
    for kwargs, text in (({"lr": 0.0}, "Invalid learning rate"), ({"eps": 0.0}, "Invalid epsilon"),
                         ({"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0"),
                         ({"betas": (0.9, -0.1)}, "Invalid beta parameter at index 1")):
        with pytest.raises(ValueError, match=text):
            tl.optim.SparseAdam([op], **kwargs)
