"""Shape, view and conversion methods against PyTorch: view/reshape/unflatten/expand errors and
strides, the split family's edge cases, narrow/select/unfold, roll/flip/rot90/repeat/
repeat_interleave, cat's legacy empty rule and the joining functions, as_strided on a view's
storage, stride()/contiguous()/clone() layouts, dtype conversions and Python scalar
conversions: values, shapes, dtypes, shared memory, gradients, warnings and errors."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite._core.warnings as tl_warnings

torch = pytest.importorskip("torch")

_X = np.arange(24.0).reshape(2, 3, 4)
_R = np.random.default_rng(0).standard_normal((2, 3, 4))


def _run(fn, mod):
    """``fn(mod)``, or the exception it raised; and the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn(mod)
        except Exception as err:  # noqa: BLE001 - compared with PyTorch's below
            out = err
    return out, [str(w.message) for w in caught]


def _check_same(ours, ref):
    if isinstance(ref, torch.Tensor):
        assert isinstance(ours, tl.Tensor), ours
        assert tuple(ours.shape) == tuple(ref.shape)
        assert str(ours.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
        np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=1e-12)
    elif isinstance(ref, (tuple, list)):
        assert type(ours) is type(ref) and len(ours) == len(ref), (ours, ref)
        for o, r in zip(ours, ref):
            _check_same(o, r)
    else:
        assert ours == ref


def _same(fn, message=None):
    """Run ``fn`` on both libraries: the same result, or the same exception type (and
    ``message`` in ours)."""
    ours, _ = _run(fn, tl)
    ref, _ = _run(fn, torch)
    if isinstance(ref, Exception):
        assert type(ours) is type(ref), f"PyTorch raised {ref!r}, ours gave {ours!r}"
        if message is not None:
            assert message in str(ours), str(ours)
        return ours
    assert not isinstance(ours, Exception), f"ours raised {ours!r}, PyTorch gave {ref!r}"
    _check_same(ours, ref)
    return ours


def _t(mod, data=_X, **kwargs):
    return mod.tensor(np.array(data), **kwargs)


# -- view, reshape, unflatten, expand -------------------------------------------------------------


@pytest.mark.parametrize("fn, message", [
    (lambda m: _t(m, [1.0, 2.0]).expand(3, 2).view(6), "view size is not compatible"),
    (lambda m: _t(m, np.arange(4.0)).expand(2000, 4).view(-1), "view size is not compatible"),
    (lambda m: _t(m, [1.0, 2.0]).expand(3, 2).view(3, 1, 2), None),
    (lambda m: _t(m).transpose(0, 1).view(-1), "Use .reshape(...) instead"),
    (lambda m: _t(m)[:, :, ::2].view(-1), "view size is not compatible"),
    (lambda m: _t(m).view(-1, -1), "only one dimension can be inferred"),
    (lambda m: _t(m, np.zeros((0, 3))).view(-1, 0), "the unspecified dimension size -1 can be "
                                                    "any value and is ambiguous"),
    (lambda m: _t(m).view(2.0, 12), "must be tuple of ints"),
    (lambda m: _t(m).reshape(-1, -1), "only one dimension can be inferred"),
    (lambda m: _t(m, _X.astype(np.float32)).view(m.int16), None),
    (lambda m: _t(m, np.arange(3.0, dtype=np.float32)).view(m.float64),
     "self.size(-1) must be divisible by 2 to view Float as Double (different element sizes), "
     "but got 3"),
    (lambda m: _t(m, np.float32(1.0)).view(m.int16),
     "self.dim() cannot be 0 to view Float as Short (different element sizes)"),
    (lambda m: _t(m, _X.astype(np.float32)).transpose(0, 2).view(m.int16),
     "self.stride(-1) must be 1 to view Float as Short (different element sizes), but got 12"),
    (lambda m: _t(m, np.arange(24.0, dtype=np.float32).reshape(4, 6))[:, 1:5].view(m.float64),
     "self.storage_offset() must be divisible by 2"),
    (lambda m: _t(m, np.arange(24.0, dtype=np.float32).reshape(4, 6))[:, :4].view(m.float64),
     None),
    (lambda m: _t(m).unflatten(2, (3, -1)), "unflatten: Provided sizes [3, -1] don't multiply "
                                            "up to the size of dim 2 (4) in the input tensor"),
    (lambda m: _t(m).unflatten(2, ()), "unflatten: sizes must be non-empty"),
    (lambda m: _t(m).unflatten(2, (-1, -1)), "only one dimension can be inferred"),
    (lambda m: _t(m, 1.0).unflatten(0, (1,)), "0-dim"),
    (lambda m: _t(m, np.zeros((2, 0))).unflatten(1, (0, -1)), "ambiguous"),
    (lambda m: _t(m).unflatten(-1, (2, -1)), None),
    (lambda m: (lambda t: (t.flatten() is t, t.flatten(1, 1) is t))(_t(m, [1.0, 2.0])), None),
    (lambda m: (lambda t: t.flatten(1, 1) is t)(_t(m)), None),
    (lambda m: _t(m, [[1.0], [2.0]]).expand(3, 3),
     "the expanded size of the tensor (3) must match the existing size (2) at non-singleton "
     "dimension 0.  Target sizes: [3, 3].  Tensor sizes: [2, 1]"),
    (lambda m: _t(m, [[1.0], [2.0]]).expand(-1, 2, 3),
     "the expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
     "dimension 0"),
    (lambda m: _t(m)[0].t().unsqueeze(0).view(-1), "view size is not compatible"),
    (lambda m: _t(m)[:, :1, ::2].squeeze(1).view(-1), "view size is not compatible"),
    (lambda m: _t(m)[0].t().unsqueeze(0).view(4, 3), None),
    (lambda m: (_t(m) * 2).reshape(6, 4).view(-1), None),
    (lambda m: _t(m, [1.0, 2.0]).broadcast_to(3, 2), None),
    (lambda m: m.broadcast_to(_t(m, [1.0, 2.0]), size=(3, 2)), None),
])
def test_view_reshape_unflatten_expand(fn, message):
    _same(fn, message)


def test_view_as_other_dtype_shares_memory_and_version():
    for m in (tl, torch):
        x = m.zeros(2, 4)
        v = x.view(m.int32)
        v.add_(1)
        assert x._version == v._version == 1
        assert x.view(m.int32)[0, 0].item() == 1


def test_expand_is_a_view_of_its_input():
    for m in (tl, torch):
        x = m.zeros(2, 3)
        x.expand(1, 2, 3).add_(1)  # new leading 1s only: a writable view
        assert x.sum().item() == 6 and x._version == 1
        with pytest.raises(RuntimeError, match="Can't detach views in-place"):
            x.expand(4, 2, 3).detach_()
        leaf = m.zeros(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
            leaf.expand(3).add_(1)
    grads = []
    for m in (tl, torch):
        x = _t(m, _R, requires_grad=True)
        y = x * 1
        y.expand(2, 3, 4).mul_(3)  # in place through the view: y's graph is rebased
        (y ** 2).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(*grads, rtol=1e-12)


@pytest.mark.parametrize("fn, message", [
    (lambda m: _t(m, [[1.0, 2.0]]).expand(3, 2).stride(), None),
    (lambda m: _t(m, np.arange(100.0)).expand(100, 100).stride(), None),
    (lambda m: m.zeros(0, 3).stride(), None),
    (lambda m: m.zeros(4, 0, 2).stride(), None),
    (lambda m: _t(m).stride(3), "dimension out of range"),
    (lambda m: _t(m, 1.0).stride(0), "no dimensions"),
    (lambda m: _t(m).stride(-1), None),
    (lambda m: _t(m)[0].diagonal(1).storage_offset(), None),
    (lambda m: _t(m)[1].unfold(1, 2, 1).storage_offset(), None),
    (lambda m: _t(m)[1].unfold(1, 2, 1).untyped_storage().nbytes(), None),
    (lambda m: _t(m).transpose(0, 2).clone().stride(), None),
    (lambda m: _t(m).permute(1, 2, 0).clone().stride(), None),
    (lambda m: _t(m).permute(1, 2, 0).clone().is_contiguous(), None),
    (lambda m: _t(m)[:, :, ::2].clone().stride(), None),
    (lambda m: _t(m).transpose(0, 2).clone(memory_format=m.contiguous_format).stride(), None),
    (lambda m: _t(m).contiguous(memory_format=m.preserve_format).stride(), None),
    (lambda m: _t(m).transpose(0, 2).contiguous(memory_format=m.preserve_format), "preserve"),
])
def test_strides_and_layouts(fn, message):
    _same(fn, message)


# -- dims: squeeze, unsqueeze, transpose, movedim, permute ----------------------------------------


@pytest.mark.parametrize("fn, message", [
    (lambda m: _t(m).unsqueeze((0, 1)), "must be int, not tuple"),
    (lambda m: _t(m).unsqueeze(1.0), "must be int, not float"),
    (lambda m: _t(m).unsqueeze(m.tensor(1)), None),
    (lambda m: _t(m, 1.0).transpose(0, 1), "dimension out of range"),
    (lambda m: _t(m, 1.0).transpose(0, -1), None),
    (lambda m: _t(m, 1.0).movedim(0, -1), None),
    (lambda m: _t(m, 1.0).movedim(1, 0), "dimension out of range"),
    (lambda m: _t(m).permute(0, 1, 3), "dimension out of range"),
    (lambda m: _t(m).permute(0, 0, 1), "duplicate dims are not allowed"),
    (lambda m: _t(m).permute(0, 1), "input.dim() = 3 is not equal to len(dims) = 2"),
    (lambda m: _t(m).squeeze((0, 4)), "dimension out of range"),
    (lambda m: _t(m, np.zeros((1, 3, 1))).squeeze((0, -1)), None),
    (lambda m: _t(m, 1.0).mT, None),
    (lambda m: _t(m, [1.0, 2.0]).mT, "tensor.mT is only supported on matrices"),
    (lambda m: _t(m, 1.0).mH, None),
    (lambda m: _t(m, [1.0]).mH, "tensor.mH is only supported on matrices"),
    (lambda m: _t(m).permute(), 'missing 1 required positional arguments: "dims"'),
    (lambda m: _t(m).flip(), 'missing 1 required positional arguments: "dims"'),
    (lambda m: _t(m).flip(()), None),
])
def test_dim_arguments(fn, message):
    _same(fn, message)


@pytest.mark.parametrize("fn, message", [
    (lambda x: x.mT, "Tensor.mT is deprecated on 0-D tensors. This function is the identity in "
                     "these cases."),
    (lambda x: x.mH, "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj()."),
    (float, "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
            "behavior.\nConsider using tensor.detach() first."),
])
def test_warnings_given_once_per_process(monkeypatch, fn, message):
    # PyTorch's TORCH_WARN_ONCE: the registry is emptied to see the first time again
    monkeypatch.setattr(tl_warnings, "_WARNED_ONCE", set())
    x = tl.tensor(2.0, requires_grad=True)
    _, first = _run(lambda m: fn(x), tl)
    _, again = _run(lambda m: fn(x), tl)
    assert first == [message] and again == []
    assert _run(lambda m: (int(x), x.item(), float(x.detach())), tl)[1] == []
    y = torch.tensor(2.0, requires_grad=True)  # (PyTorch's own, if it has not given it yet)
    assert all(w.startswith(message) for w in _run(lambda m: fn(y), torch)[1])


# -- the split family -------------------------------------------------------------------------


_Y = np.arange(10.0)
_Z = np.arange(48.0).reshape(2, 4, 6)


@pytest.mark.parametrize("fn, message", [
    (lambda m: _t(m, _Y).split([11, -1]), "split_sizes have only non-negative entries"),
    (lambda m: _t(m, _Y).split_with_sizes([11, -1]), "only non-negative entries"),
    (lambda m: _t(m, _Y).split(-1), "split expects split_size be non-negative"),
    (lambda m: _t(m, _Y).split(0), "split_size can only be 0 if dimension size is 0"),
    (lambda m: _t(m, 1.0).split(1), "split expects at least a 1-dimensional tensor"),
    (lambda m: _t(m).split(split_size=2, dim=2), None),
    (lambda m: _t(m, np.zeros(0)).chunk(3), None),
    (lambda m: _t(m, np.zeros((2, 0))).chunk(2, 1), None),
    (lambda m: _t(m, 1.0).chunk(1), "chunk expects at least a 1-dimensional tensor"),
    (lambda m: _t(m, _Y).chunk(4), None),
    (lambda m: _t(m, _Y).tensor_split([-2]), None),
    (lambda m: _t(m, _Y).tensor_split([7, 3]), None),
    (lambda m: _t(m, _Y).tensor_split([12, 1]), None),
    (lambda m: _t(m, _Y).tensor_split(m.tensor([2, 5])), None),
    (lambda m: _t(m, _Y).tensor_split(m.tensor(3)), None),
    (lambda m: _t(m, _Y).tensor_split(m.tensor([2.0, 5.0])), "to have dtype of long"),
    (lambda m: _t(m, _Y).tensor_split(m.tensor([[2, 5]])),
     "to be a zero-dimensional or one-dimensional tensor, but got a tensor with 2 dims"),
    (lambda m: _t(m).tensor_split(3, 3), "dimension out of range"),
    (lambda m: _t(m, 1.0).tensor_split(1), "expected at least a 1-dimensional tensor"),
    (lambda m: m.tensor_split(_t(m), indices=[1], dim=1), None),
    (lambda m: m.tensor_split(_t(m), sections=2, dim=1), None),
    (lambda m: m.tensor_split(_t(m), tensor_indices_or_sections=m.tensor(2), dim=1), None),
    (lambda m: _t(m, _Z).hsplit(3), "the size of the dimension 4 is not divisible by the "
                                    "split_size 3!"),
    (lambda m: _t(m, _Z).vsplit(4), "is not divisible by the split_size 4!"),
    (lambda m: _t(m, _Z).dsplit(0), "is not divisible by the split_size 0!"),
    (lambda m: _t(m, _Y).vsplit(2), "torch.vsplit requires a tensor with at least 2 dimension"),
    (lambda m: _t(m, np.zeros((2, 4))).dsplit([1]), "requires a tensor with at least 3"),
    (lambda m: _t(m, 1.0).hsplit(1), "requires a tensor with at least 1 dimension"),
    (lambda m: _t(m, _Z).hsplit([1, 3]), None),
    (lambda m: _t(m, _Z).dsplit(3), None),
    (lambda m: _t(m, np.arange(6.0)).hsplit(2), None),
    (lambda m: m.hsplit(_t(m, _Z), sections=2), None),
    (lambda m: m.vsplit(_t(m, _Z), indices=[1]), None),
])
def test_split_family(fn, message):
    _same(fn, message)


def test_overlapping_tensor_split_pieces_get_their_gradients():
    grads = []
    for m in (tl, torch):
        x = _t(m, _Y, requires_grad=True)
        a, b, c = x.tensor_split([7, 3])
        (a.sum() + 2 * b.sum() + 3 * c.sum()).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(*grads)


# -- narrow, select, unfold, roll, flip, rot90, repeat, repeat_interleave -------------------------


@pytest.mark.parametrize("fn, message", [
    (lambda m: _t(m, 1.0).select(0, 0), "select() cannot be applied to a 0-dim tensor"),
    (lambda m: _t(m).select(2, 4), "select(): index 4 out of range for tensor of size "
                                   "[2, 3, 4] at dimension 2"),
    (lambda m: _t(m).select(2, -4), None),
    (lambda m: _t(m).narrow(2, -3, 2), None),
    (lambda m: _t(m).narrow(0, 0, -1), "narrow(): length must be non-negative."),
    (lambda m: _t(m).narrow(2, m.tensor(1), 2), None),
    (lambda m: _t(m).unfold(2, 2, 1), None),
    (lambda m: _t(m).unfold(-1, 3, 2), None),
    (lambda m: _t(m).transpose(0, 2).unfold(1, 2, 1), None),
    (lambda m: _t(m, 5.0).unfold(0, 1, 1), None),
    (lambda m: _t(m, np.zeros((0, 4))).unfold(1, 2, 1), None),
    (lambda m: _t(m, _Y).fliplr(), "Input must be >= 2-d"),
    (lambda m: _t(m, 1.0).flipud(), "Input must be >= 1-d"),
    (lambda m: _t(m).roll(1, ()), None),
    (lambda m: m.roll(_t(m), (), ()), "`shifts` required"),
    (lambda m: _t(m).roll((1, 2)), "shifts and dimensions must align"),
    (lambda m: _t(m).rot90(1, (0, 3)), "dimension out of range"),
    (lambda m: _t(m).rot90(1, (0, 0)), "expected rotation dims to be different"),
    (lambda m: _t(m).rot90(1, (0,)), "expected total rotation dims == 2"),
    (lambda m: _t(m, _Y).rot90(), "expected total dims >= 2"),
    (lambda m: _t(m).rot90(-1, (2, 1)), None),
    (lambda m: _t(m).repeat(1, -1, 1), "Trying to create tensor with negative dimension"),
    (lambda m: _t(m).tile(-1), "Trying to create tensor with negative dimension"),
    (lambda m: _t(m).repeat_interleave(m.tensor([1.0, 2.0]), 0), "not implemented for 'Float'"),
    (lambda m: _t(m).repeat_interleave(m.tensor([[1, 2]]), 0),
     "repeats must be 0-dim or 1-dim tensor"),
    (lambda m: _t(m).repeat_interleave(m.tensor([1, 2]), 0, output_size=4),
     "allocated size does not match required size"),
    (lambda m: _t(m).repeat_interleave(m.tensor([1, 2]), 0, output_size=3), None),
    (lambda m: _t(m).repeat_interleave(2, 0, output_size=5),
     "Invalid output_size, expected 4 but got 5"),
    (lambda m: _t(m).repeat_interleave(-1), "Repeats must be non-negative"),
    (lambda m: _t(m).repeat_interleave(2, 3), "dimension out of range"),
    (lambda m: _t(m).repeat_interleave(m.tensor([2]), -1), None),
    (lambda m: _t(m, 1.0).repeat_interleave(3), None),
    (lambda m: m.repeat_interleave(m.tensor([1, 0, 3], dtype=m.int32)), None),
    (lambda m: m.repeat_interleave(m.tensor([1, 0, 3]), output_size=4), None),
    (lambda m: m.repeat_interleave(m.tensor([1.0, 2.0])), "not implemented for 'Float'"),
    (lambda m: m.repeat_interleave(m.tensor([[1, 2]])), "only accept 1D vector as repeat"),
    (lambda m: m.repeat_interleave(m.tensor([1, -2])), "repeats can not be negative"),
])
def test_narrow_select_unfold_and_repeats(fn, message):
    _same(fn, message)


def test_unfold_is_a_view():
    for m in (tl, torch):
        x = m.zeros(6)
        x.unfold(0, 2, 2).add_(1)
        assert x.tolist() == [1.0] * 6 and x._version == 1
    grads = []
    for m in (tl, torch):  # overlapping windows: their gradients add up
        x = _t(m, _R, requires_grad=True)
        (x.unfold(2, 3, 1) * _t(m, np.arange(6.0).reshape(2, 3))).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(*grads, rtol=1e-12)


# -- joining -------------------------------------------------------------------------------------


_A = np.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize("fn, message", [
    (lambda m: m.cat([_t(m, _A), m.tensor([])]), None),
    (lambda m: m.cat([m.tensor([]), _t(m, _A)], 1), None),
    (lambda m: m.cat([_t(m, _A.astype(np.int64)), m.tensor([])]), None),  # dtype: float32
    (lambda m: m.cat([m.tensor([]), m.tensor([], dtype=m.int64)]), None),
    (lambda m: m.cat([_t(m, _A), m.zeros(0, 2)]), "sizes of tensors must match"),
    (lambda m: m.cat([_t(m, _A), m.zeros(3)]),
     "Tensors must have same number of dimensions: got 2 and 1"),
    (lambda m: m.cat([m.tensor([1.0]), m.tensor(2.0)]),
     "zero-dimensional tensor (at position 1) cannot be concatenated"),
    (lambda m: m.cat([]), "expected a non-empty list of"),
    (lambda m: m.cat(_t(m, _A)), "must be tuple of Tensors, not Tensor"),
    (lambda m: m.stack([_t(m, _A), 1]), "expected Tensor as element 1 in argument 0"),
    (lambda m: m.stack(_t(m, _A)), "must be tuple of Tensors, not Tensor"),
    (lambda m: m.hstack([]), "hstack expects a non-empty TensorList"),
    (lambda m: m.vstack([]), "vstack expects a non-empty TensorList"),
    (lambda m: m.dstack([]), "dstack expects a non-empty TensorList"),
    (lambda m: m.column_stack([]), "column_stack expects a non-empty TensorList"),
    (lambda m: m.hstack([_t(m, _A), m.tensor([])]), None),
    (lambda m: m.hstack([_t(m, _A.astype(np.float32)), _t(m, _A.astype(np.int64))]), None),
    (lambda m: m.atleast_1d([_t(m, 1.0)]), None),
    (lambda m: m.atleast_2d((_t(m, 1.0),)), None),
    (lambda m: m.atleast_3d([_t(m, _A)]), None),
    (lambda m: m.atleast_3d(_t(m, _A)), None),
    (lambda m: m.atleast_1d(_t(m, 1.0), _t(m, _A)), None),
])
def test_joining(fn, message):
    _same(fn, message)


def test_cat_legacy_empty_input_gets_an_empty_gradient():
    a, b = tl.ones(2, 3, requires_grad=True), tl.zeros(0, requires_grad=True)
    tl.cat([b, a, b]).sum().backward()
    assert b.grad.shape == (0,) and a.grad.tolist() == [[1.0] * 3] * 2


# -- as_strided ------------------------------------------------------------------------------


@pytest.mark.parametrize("fn", [
    lambda m: _t(m).as_strided((2, 2), (1, 2)),
    lambda m: _t(m).as_strided((2, 2), (1, 2), 3),
    lambda m: _t(m)[1].as_strided((2,), (1,)),  # the view's own offset by default
    lambda m: _t(m)[1].as_strided((2,), (1,), 0),  # an offset into the base's memory
    lambda m: _t(m, _A).t().as_strided((2, 3), (3, 1)),  # the storage's order, not the view's
    lambda m: _t(m).as_strided((2, 2), (1, 2)).stride(),
    lambda m: _t(m)[1:].as_strided((2,), (5,)).storage_offset(),
    lambda m: _t(m).as_strided((3, 3), (1, 1)),  # overlapping
    lambda m: _t(m).as_strided((2, 2), (1, 30)),  # out of bounds
])
def test_as_strided_reads_the_storage(fn):
    _same(fn)


def test_as_strided_is_a_view_with_gradients():
    for m in (tl, torch):
        x = m.zeros(2, 3, 4)
        x.as_strided((2,), (5,)).add_(1)
        assert x.sum().item() == 2 and x._version == 1
    grads = []
    for m in (tl, torch):
        x = _t(m, _R, requires_grad=True)
        w = _t(m, np.arange(9.0).reshape(3, 3))
        ((x[1].as_strided((3, 3), (2, 1), 1) * w).sum()
         + (x[1].as_strided((2,), (1,), 0) ** 2).sum()).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(*grads, rtol=1e-12)


# -- conversions ---------------------------------------------------------------------------------


@pytest.mark.parametrize("fn, message", [
    (lambda m: (lambda t: t.to(m.float64, False, True) is t)(_t(m, _A)), None),
    (lambda m: (lambda t: t.to(m.float64, True) is t)(_t(m, _A)), None),
    (lambda m: _t(m, np.zeros((2, 3, 4, 5))).double(memory_format=m.channels_last).stride(),
     None),
    (lambda m: _t(m, np.zeros((2, 3, 4, 5))).byte(memory_format=m.channels_last).stride(),
     None),
    (lambda m: _t(m, _A * 1.5 - 3).short(), None),
    (lambda m: (lambda t: t.char() is t)(_t(m, _A).char()), None),
    (lambda m: _t(m, _A).type("foo"), "invalid type: 'foo'"),
    (lambda m: _t(m, _A).type("torch.IntTensor"), None),
    (lambda m: [1, 2, 3][m.tensor(True)], None),
    (lambda m: [1, 2, 3][m.tensor(1.0)], "only integer tensors of a single element"),
    (lambda m: float(m.tensor([1.0, 2.0])), "only one element tensors"),
    (lambda m: m.tensor([]).item(), "cannot be converted"),
])
def test_conversions(fn, message):
    _same(fn, message)


# -- gradients through views and shape ops (float64, first and second order) -----------------------


_GRAD_FNS = {
    "view": lambda m, t: t.view(6, 4),
    "reshape": lambda m, t: t.transpose(0, 1).reshape(-1),
    "unflatten": lambda m, t: t.unflatten(2, (2, -1)),
    "expand": lambda m, t: t[:, :1].expand(2, 5, 4),
    "broadcast_to": lambda m, t: t[0, :, :1].broadcast_to(2, 3, 5),
    "squeeze": lambda m, t: t[:1, :, :1].squeeze((0, 2)),
    "movedim": lambda m, t: t.movedim((0, 1), (2, 0)),
    "split": lambda m, t: t.split([1, 3], 2),
    "tensor_split": lambda m, t: t.tensor_split([3, 1], 2),
    "chunk": lambda m, t: t.chunk(3, 1),
    "unbind": lambda m, t: t.unbind(1),
    "narrow": lambda m, t: t.narrow(2, -3, 2),
    "select": lambda m, t: t.select(1, -1),
    "unfold": lambda m, t: t.unfold(2, 2, 1),
    "roll": lambda m, t: t.roll((1, -1), (0, 2)),
    "rot90": lambda m, t: t.rot90(3, (1, 2)),
    "repeat": lambda m, t: t.repeat(1, 2, 1, 2),
    "repeat_interleave": lambda m, t: t.repeat_interleave(m.tensor([1, 0, 2]), 1),
    "cat": lambda m, t: m.cat([t, t ** 2, m.tensor([], dtype=m.float64)], -1),
    "hstack": lambda m, t: m.hstack([t, t * 2]),
    "as_strided": lambda m, t: t[1].as_strided((3, 3), (2, 1), 1),
    "clone": lambda m, t: t.transpose(0, 2).clone(),
}


@pytest.mark.parametrize("name", list(_GRAD_FNS))
def test_float64_gradients_match(name):
    results = []
    for m in (tl, torch):
        t = _t(m, _R, requires_grad=True)
        out = _GRAD_FNS[name](m, t)
        outs = out if isinstance(out, tuple) else (out,)
        weights = [_t(m, np.random.default_rng(i).standard_normal(tuple(o.shape)))
                   for i, o in enumerate(outs)]
        total = sum(((o * w) ** 2).sum() for o, w in zip(outs, weights))
        (g,) = m.autograd.grad(total, t, create_graph=True)
        (gg,) = m.autograd.grad((g * g).sum(), t)
        results.append((g.detach().numpy(), gg.numpy()))
    for ours, ref in zip(*results):
        np.testing.assert_allclose(ours, ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn", [
    lambda m: m.clone(_t(m).transpose(0, 2)).stride(),
    lambda m: m.clone(_t(m).transpose(0, 2), memory_format=m.contiguous_format).stride(),
    lambda m: m.clone(_t(m, np.zeros((2, 3, 4, 5))), memory_format=m.channels_last).stride(),
])
def test_clone_function_keeps_the_layout(fn):
    _same(fn)


@pytest.mark.parametrize("r", [0, 2, 5])
def test_combinations_of_every_length(r):
    """r = 0 gives an empty 1-D tensor outside the graph (it raised), r > n an empty (0, r)
    gather in the graph, as PyTorch's."""
    results = []
    for lib in (tl, torch):
        x = lib.arange(4.0).requires_grad_()
        out = lib.combinations(x, r)
        results.append((tuple(out.shape), out.requires_grad, out.tolist()))
    assert results[0] == results[1]
