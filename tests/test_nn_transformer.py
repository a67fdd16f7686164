"""Transformer layers against PyTorch with copied weights (eval mode, float64): masks, key
padding, batch_first, norm_first, activations; and deep copies and pickling of modules."""

import copy
import pickle
import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

rng = np.random.default_rng(0)


def _copy(torch_module, ours):
    assert list(ours.state_dict()) == list(torch_module.state_dict())
    ours.load_state_dict({k: tl.tensor(v.detach().numpy())
                          for k, v in torch_module.state_dict().items()})


@pytest.mark.parametrize("kwargs", [{}, {"norm_first": True, "batch_first": True,
                                         "activation": "gelu"}])
def test_transformer_matches_pytorch(kwargs):
    torch = pytest.importorskip("torch")
    args = {"d_model": 8, "nhead": 2, "num_encoder_layers": 2, "num_decoder_layers": 2,
            "dim_feedforward": 16, "dropout": 0.0, **kwargs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm = torch.nn.Transformer(**args).double().eval()
    om = tl.nn.Transformer(**args).double().eval()
    _copy(tm, om)
    src, tgt = rng.standard_normal((5, 3, 8)), rng.standard_normal((4, 3, 8))
    if kwargs.get("batch_first"):
        src, tgt = src.transpose(1, 0, 2).copy(), tgt.transpose(1, 0, 2).copy()
    mask = torch.nn.Transformer.generate_square_subsequent_mask(4).double()
    ours_mask = tl.nn.Transformer.generate_square_subsequent_mask(4, dtype=tl.float64)
    np.testing.assert_array_equal(ours_mask.numpy(), mask.numpy())
    pad = np.zeros((3, 5), bool)
    pad[1, 3:] = True
    ts, tt = torch.tensor(src, requires_grad=True), torch.tensor(tgt)
    os_, ot = tl.tensor(src, requires_grad=True), tl.tensor(tgt)
    a = tm(ts, tt, tgt_mask=mask, src_key_padding_mask=torch.tensor(pad))
    b = om(os_, ot, tgt_mask=ours_mask, src_key_padding_mask=tl.tensor(pad))
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), atol=1e-12)
    a.square().sum().backward()
    b.square().sum().backward()
    np.testing.assert_allclose(os_.grad.numpy(), ts.grad.numpy(), atol=1e-11)
    for (name, tp), (_, op) in zip(tm.named_parameters(), om.named_parameters()):
        np.testing.assert_allclose(op.grad.numpy(), tp.grad.numpy(), atol=1e-10, err_msg=name)


def test_encoder_stack_with_causal_mask_matches_pytorch():
    torch = pytest.importorskip("torch")
    tm = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, 0.0), 2,
                                     enable_nested_tensor=False).double().eval()
    om = tl.nn.TransformerEncoder(tl.nn.TransformerEncoderLayer(8, 2, 16, 0.0), 2).double()
    om.eval()
    _copy(tm, om)
    x = rng.standard_normal((5, 2, 8))
    mask = torch.nn.Transformer.generate_square_subsequent_mask(5).double()
    a = tm(torch.tensor(x), mask=mask, is_causal=True)
    b = om(tl.tensor(x), mask=tl.tensor(mask.numpy()), is_causal=True)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), atol=1e-12)


def test_layers_are_independent_copies_and_modules_copy_and_pickle():
    layer = tl.nn.TransformerEncoderLayer(8, 2, 16)
    stack = tl.nn.TransformerEncoder(layer, 3)
    weights = [m.linear1.weight for m in stack.layers]
    assert len({id(w) for w in weights}) == 3
    stack(tl.randn(4, 2, 8)).sum().backward()
    clone = copy.deepcopy(stack)
    assert clone.layers[0].linear1.weight is not weights[0]
    np.testing.assert_array_equal(clone.layers[0].linear1.weight.detach().numpy(),
                                  weights[0].detach().numpy())
    assert clone.layers[0].linear1.weight.grad is None  # as torch.nn.Parameter.__deepcopy__
    restored = pickle.loads(pickle.dumps(stack))
    assert restored.layers[2].linear2.weight.requires_grad
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(weights[0] * 2)
