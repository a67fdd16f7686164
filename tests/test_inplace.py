"""In-place ops: values, version counters, the leaf rule, graph rebasing and stale-save errors."""

import numpy as np
import pytest
from helpers import check_grads

import tinygrad_lite as tl

IN_PLACE = [
    ("add_", lambda t: t.add_(2.0), lambda a: a + 2),
    ("add_-alpha", lambda t: t.add_(tl.ones(3), alpha=3), lambda a: a + 3),
    ("sub_", lambda t: t.sub_(tl.tensor([1.0, 2.0, 3.0])), lambda a: a - [1, 2, 3]),
    ("mul_", lambda t: t.mul_(3), lambda a: a * 3),
    ("div_", lambda t: t.div_(4), lambda a: a / 4),
    ("pow_", lambda t: t.pow_(2), lambda a: a ** 2),
    ("zero_", lambda t: t.zero_(), lambda a: a * 0),
    ("fill_", lambda t: t.fill_(7), lambda a: np.full_like(a, 7)),
    ("fill_-tensor", lambda t: t.fill_(tl.tensor(5.0)), lambda a: np.full_like(a, 5)),
    ("copy_", lambda t: t.copy_(tl.tensor([4, 5, 6])), lambda a: np.array([4.0, 5, 6])),
    ("copy_-broadcast", lambda t: t.copy_(tl.tensor(9.0)), lambda a: np.full_like(a, 9)),
    ("clamp_", lambda t: t.clamp_(-0.5, 1.5), lambda a: np.clip(a, -0.5, 1.5)),
    ("clip_", lambda t: t.clip_(max=0.0), lambda a: np.minimum(a, 0)),
    ("masked_fill_", lambda t: t.masked_fill_(tl.tensor([True, False, True]), -1.0),
     lambda a: np.where([True, False, True], -1.0, a)),
    ("relu_", lambda t: t.relu_(), lambda a: np.maximum(a, 0)),
    ("neg_", lambda t: t.neg_(), lambda a: -a),
    ("exp_", lambda t: t.exp_(), np.exp),
    ("iadd", lambda t: t.__iadd__(1.0), lambda a: a + 1),
    ("isub", lambda t: t.__isub__(tl.ones(3)), lambda a: a - 1),
    ("imul", lambda t: t.__imul__(2.0), lambda a: a * 2),
    ("itruediv", lambda t: t.__itruediv__(2.0), lambda a: a / 2),
    ("setitem", lambda t: t.__setitem__(1, 10.0), lambda a: np.array([a[0], 10, a[2]])),
]


@pytest.mark.parametrize("name,op,expected", IN_PLACE, ids=[c[0] for c in IN_PLACE])
def test_in_place_op_writes_values_and_bumps_version_shared_with_views(name, op, expected):
    start = np.array([-1.0, 0.5, 2.0], dtype=np.float32)
    t = tl.tensor(start.copy())
    view = t.view(3, 1)
    before = t._version
    result = op(t)
    assert result is None or result is t  # in-place ops return self (setitem returns None)
    np.testing.assert_allclose(t.numpy(), expected(start.astype(np.float64)), rtol=1e-6)
    assert t.dtype == tl.float32
    assert t._version == view._version == before + 1
    np.testing.assert_allclose(view.numpy()[:, 0], t.numpy())  # memory is shared


@pytest.mark.parametrize("name,op,expected", IN_PLACE, ids=[c[0] for c in IN_PLACE])
def test_in_place_on_leaf_requiring_grad_raises_like_pytorch(name, op, expected):
    w = tl.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in "
                                           "an in-place operation"):
        op(w)
    assert w._version == 0 and w.tolist() == [-1.0, 0.5, 2.0]  # nothing was written


@pytest.mark.parametrize("name,op,expected", IN_PLACE, ids=[c[0] for c in IN_PLACE])
def test_in_place_under_no_grad_updates_leaf_parameters(name, op, expected):
    w = tl.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    with tl.no_grad():
        op(w)
    np.testing.assert_allclose(w.detach().numpy(), expected(np.array([-1.0, 0.5, 2.0])),
                               rtol=1e-6)
    assert w.is_leaf and w.requires_grad and w.grad_fn is None and w._version == 1


def test_optimizer_style_update_keeps_leaf_usable():
    w = tl.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    with tl.no_grad():
        w.sub_(w.grad, alpha=0.1)
        w.grad.zero_()
    assert w.tolist() == pytest.approx([0.8, 1.6])
    assert w.grad.tolist() == [0.0, 0.0]
    (w * 3).sum().backward()
    assert w.grad.tolist() == [3.0, 3.0]


def test_view_of_leaf_in_place_raises():
    w = tl.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        w[0].mul_(2)
    assert w.detach().numpy().sum() == 6


def test_in_place_on_non_leaf_is_differentiable():
    x = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y.mul_(y.detach().clone())  # y = 2x * 2x (the factor is a constant)
    y.add_(x)           # + x
    assert y.grad_fn.name() == "AddBackward0" and not y.is_leaf
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * 2 * np.array([1.0, 2.0, 3.0]) + 1)


def test_scalar_in_place_does_not_trip_its_own_version_check():
    # mul_ and pow_ save the old values of y: they must not see their own write as a change
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.mul_(3)
    y.pow_(2)  # y = 36 x^2
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 72 * np.array([1.0, 2.0]), rtol=1e-6)


def test_in_place_with_grad_operand_turns_plain_tensor_into_graph_node():
    w = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    buf = tl.zeros(3)
    buf.add_(w * w)
    assert buf.requires_grad and buf.grad_fn is not None
    buf.sum().backward()
    assert w.grad.tolist() == [2.0, 4.0, 6.0]


def test_setitem_differentiates_both_the_tensor_and_the_value():
    x = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    v = tl.tensor([10.0, 20.0], requires_grad=True)
    y = x * 1
    y[:, 1] = v * 2
    assert y.tolist() == [[1.0, 20.0, 3.0], [4.0, 40.0, 6.0]]
    (y * tl.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0, 3.0], [1.0, 0.0, 3.0]]
    assert v.grad.tolist() == [4.0, 4.0]


def test_setitem_value_is_reduced_to_its_shape_when_broadcast():
    v = tl.tensor(2.0, requires_grad=True)
    y = tl.zeros(3, 4)
    y[tl.tensor([0, 2])] = v
    assert y.tolist()[0] == [2.0] * 4 and y.tolist()[1] == [0.0] * 4
    y.sum().backward()
    assert v.grad.item() == 8.0


def test_in_place_on_view_of_non_leaf_rebases_the_base():
    x = tl.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = x * 1
    b[0].mul_(3)              # write through a basic-index view
    b.T[1].add_(x[0, 0])      # and through a view of a view (column 1)
    assert b.tolist() == [[3.0, 7.0], [3.0, 5.0]]
    b.sum().backward()
    assert x.grad.tolist() == [[5.0, 3.0], [1.0, 1.0]]  # x00 reaches b[0,0] and column 1


def test_grad_check_through_view_writes():
    def fn(a, v):
        y = a * 1
        y.reshape(6)[2:4].copy_(v)
        y[1, 1:].mul_(v.sum())
        return y
    rng = np.random.default_rng(0)
    check_grads(fn, rng.standard_normal((3, 2)), rng.standard_normal(2))


def test_backward_raises_when_a_saved_input_was_modified():
    x = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    z = y.sin()  # saves y at version 0
    y.add_(1)
    with pytest.raises(RuntimeError) as info:
        z.sum().backward()
    message = str(info.value)
    for part in ("SinBackward0", "shape (3,)", "version 0", "now at version 1"):
        assert part in message


def test_backward_raises_when_a_saved_output_was_modified():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()  # saves its output
    y.mul_(2)
    y[0] = 5.0
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    message = str(info.value)
    for part in ("ExpBackward0", "shape (2,)", "version 0", "now at version 2"):
        assert part in message


def test_saved_tensor_modified_through_a_view_is_detected():
    x = tl.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    z = y * y  # saves y
    with tl.no_grad():
        y.view(4)[0] = 100.0
    with pytest.raises(RuntimeError, match="MulBackward0.*modified by an in-place operation"):
        z.sum().backward()


def test_in_place_type_and_shape_errors():
    i = tl.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="result type float32 can't be cast to the desired "
                                           "output type int64"):
        i.div_(2)
    with pytest.raises(RuntimeError, match=r"output with shape \(3,\) doesn't match the "
                                           r"broadcast shape \(2, 3\)"):
        tl.ones(3).add_(tl.ones(2, 3))
    i.add_(2)  # int + int stays int
    assert i.tolist() == [3, 4, 5] and i.dtype == tl.int64


def test_broadcast_view_is_not_writable():
    big = tl.ones(1, 5000).expand(2, 5000)
    with pytest.raises(RuntimeError, match="broadcast view"):
        big.add_(1)


def test_iadd_keeps_identity_and_other_names():
    t = tl.ones(2)
    alias = t
    t += 1
    t *= 3
    assert t is alias and t.tolist() == [6.0, 6.0] and t._version == 2


def test_copy_converts_dtype_and_carries_gradient_to_source():
    dst = tl.zeros(2, 2, dtype=tl.float64)
    src = tl.tensor([1.5, 2.5], requires_grad=True)
    dst.copy_(src)
    assert dst.dtype == tl.float64 and dst.tolist() == [[1.5, 2.5], [1.5, 2.5]]
    dst.sum().backward()
    assert src.grad.tolist() == [2.0, 2.0] and src.grad.dtype == tl.float32
    ints = tl.zeros(2, dtype=tl.int64)
    ints.copy_(tl.tensor([1.7, -2.2]))
    assert ints.tolist() == [1, -2]


def test_single_element_view_writes_through():
    t = tl.zeros(2, 3)
    t[1, 2].fill_(4.0)
    t[0][1] = 2.0
    assert t.tolist() == [[0.0, 2.0, 0.0], [0.0, 0.0, 4.0]]


def test_in_place_ops_on_zero_dim_results():
    """``loss += reg`` on a loss NumPy computed as a scalar (a mean, an exp of a 0-d tensor):
    writable, recorded, and the gradient PyTorch gives."""
    w = tl.ones(3, requires_grad=True)
    loss = tl.nn.functional.mse_loss(w * 2, tl.zeros(3))
    loss += 1
    loss *= 2
    loss.backward()
    assert loss.item() == 10.0
    np.testing.assert_allclose(w.grad.numpy(), np.full(3, 16 / 3), rtol=1e-6)
    x = tl.tensor(1.0).exp()
    x.mul_(2)
    assert abs(x.item() - 2 * np.e) < 1e-5
    y = tl.tensor([1.0, 2.0]).mean()
    y.copy_(tl.tensor(5.0))
    y[()] = 7
    assert y.item() == 7.0 and y.shape == ()
