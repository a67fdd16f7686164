"""AdaptiveLogSoftmaxWithLoss (PyTorch's ``torch.nn.modules.adaptive``) against PyTorch: values,
predictions, state dicts and errors."""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")


def _np(t):
    return t.detach().numpy()


def _adaptive_pair(**kwargs):
    ref = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10, 15], **kwargs).double()
    ours = tl.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10, 15], dtype=tl.float64, **kwargs)
    assert list(ours.state_dict()) == list(ref.state_dict())
    ours.load_state_dict({k: v.numpy() for k, v in ref.state_dict().items()})
    return ours, ref


@pytest.mark.parametrize("head_bias", [False, True])
def test_adaptive_log_softmax_matches_pytorch(head_bias):
    ours, ref = _adaptive_pair(head_bias=head_bias, div_value=2.0)
    assert repr(ours) == repr(ref)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((9, 8))
    target = np.array([0, 3, 4, 9, 10, 19, 12, 1, 15])
    xt, xo = torch.tensor(x, requires_grad=True), tl.tensor(x, requires_grad=True)
    out_t = ref(xt, torch.tensor(target))
    out_o = ours(xo, tl.tensor(target))
    assert out_o._fields == ("output", "loss")
    np.testing.assert_allclose(_np(out_o.output), _np(out_t.output), rtol=1e-12)
    np.testing.assert_allclose(out_o.loss.item(), out_t.loss.item(), rtol=1e-12)
    out_t.loss.backward()
    out_o.loss.backward()
    np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    for (name, p), q in zip(ours.named_parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=name)
    np.testing.assert_allclose(_np(ours.log_prob(tl.tensor(x))), _np(ref.log_prob(xt)),
                               rtol=1e-12)
    np.testing.assert_array_equal(ours.predict(tl.tensor(x)).numpy(), ref.predict(xt).numpy())
    single = ours(tl.tensor(x[0]), tl.tensor(target[0]))
    assert single.output.ndim == 0
    np.testing.assert_allclose(single.output.item(),
                               ref(torch.tensor(x[0]), torch.tensor(target[0])).output.item())


@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")  # PyTorch's, hsz = 0
def test_adaptive_log_softmax_predict_paths_and_errors():
    ours, ref = _adaptive_pair()
    with torch.no_grad():  # a head that prefers the shortlist, or a tail cluster, everywhere
        for bias_row, value in ((slice(0, 4), 50.0), (slice(4, 7), 50.0)):
            w = ref.head.weight.clone()
            w[bias_row] += value
            ref.head.weight.copy_(w)
            ours.head.weight.data = tl.tensor(w.numpy())
            x = np.abs(np.random.default_rng(5).standard_normal((5, 8)))
            np.testing.assert_array_equal(ours.predict(tl.tensor(x)).numpy(),
                                          ref.predict(torch.tensor(x)).numpy())
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique"):
        tl.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [5, 3])
    with pytest.raises(ValueError, match="length larger than 0"):
        tl.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [])
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 19\]"):
        ours(tl.randn(2, 8, dtype=tl.float64), tl.tensor([1, 25]))
    with pytest.raises(RuntimeError, match="multi-target not supported"):
        ours(tl.randn(2, 8), tl.tensor([[1, 2]]))
