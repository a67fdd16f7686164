"""Bad input raises a clear exception naming the op, the shapes/dtypes and what was expected."""

import pytest

import tinygrad_lite as tl
from tinygrad_lite.nn.functional import pad

ERRORS = [
    # incompatible broadcasting
    ("add-broadcast", lambda: tl.ones(2, 3) + tl.ones(4),
     "add: shapes (2, 3) and (4,) cannot be broadcast together: the size of tensor a (3) must "
     "match the size of tensor b (4) at non-singleton dimension 1"),
    ("minimum-broadcast", lambda: tl.minimum(tl.ones(2, 3), tl.ones(2, 2)),
     "minimum: shapes (2, 3) and (2, 2) cannot be broadcast"),
    ("where-broadcast", lambda: tl.where(tl.ones(3) > 0, tl.ones(2), 0.0),
     "where: shapes (3,) (condition), (2,) and () cannot be broadcast"),
    ("logical_and-broadcast", lambda: tl.logical_and(tl.ones(3), tl.ones(4)),
     "logical_and: shapes (3,) and (4,) cannot be broadcast"),
    ("in-place-broadcast", lambda: tl.ones(3).add_(tl.ones(2, 3)),
     "add_: output with shape (3,) doesn't match the broadcast shape (2, 3)"),
    ("masked_fill-mask-shape", lambda: tl.ones(3).masked_fill_(tl.ones(2, 3) > 0, 1.0),
     "masked_fill: the mask of shape (2, 3) must be broadcastable to the input's shape (3,)"),
    ("copy_-shape", lambda: tl.ones(3).copy_(tl.ones(4)),
     "copy_: the source of shape (4,) must be broadcastable to the destination's shape (3,)"),
    # linear algebra shapes
    ("matmul-inner", lambda: tl.ones(2, 3) @ tl.ones(4, 5),
     "matmul: shapes (2, 3) and (4, 5) cannot be multiplied: a.shape[-1] (3) must equal "
     "b.shape[-2] (4)"),
    ("matmul-vector", lambda: tl.ones(3) @ tl.ones(4), "matmul: shapes (3,) and (4,)"),
    ("mm-not-matrix", lambda: tl.mm(tl.ones(2, 3), tl.ones(3)),
     "mm: mat2 must be a 2-D tensor, got shape (3,) (1-D)"),
    ("bmm-batch", lambda: tl.bmm(tl.ones(2, 3, 4), tl.ones(3, 4, 5)),
     "bmm: batch sizes differ: input has shape (2, 3, 4) and mat2 has shape (3, 4, 5)"),
    ("dot-size", lambda: tl.dot(tl.ones(3), tl.ones(4)),
     "dot: inconsistent tensor size: expected tensors of the same number of elements, got (3,) "
     "and (4,)"),
    ("mv-not-vector", lambda: tl.mv(tl.ones(2, 3), tl.ones(3, 1)),
     "mv: vec must be a 1-D tensor, got shape (3, 1)"),
    ("einsum-operands", lambda: tl.einsum("ij,jk->ik", tl.ones(2, 3)),
     "einsum: the equation 'ij,jk->ik' has 2 operands but 1 tensors were given"),
    ("einsum-subscripts", lambda: tl.einsum("ijk->i", tl.ones(2, 3)),
     "einsum: the subscripts 'ijk' name 3 dimensions but the operand has shape (2, 3)"),
    ("einsum-sizes", lambda: tl.einsum("ij,jk->ik", tl.ones(2, 3), tl.ones(4, 5)),
     "einsum: equation 'ij,jk->ik' does not fit operands of shapes (2, 3), (4, 5)"),
    # joining
    ("cat-shapes", lambda: tl.cat([tl.ones(2, 3), tl.ones(3, 4)], 1),
     "cat: sizes of tensors must match except in dimension 1: tensor 0 has shape (2, 3) but "
     "tensor 1 has shape (3, 4)"),
    ("cat-ndim", lambda: tl.cat([tl.ones(2, 3), tl.ones(3)]),
     "cat: Tensors must have same number of dimensions: got 2 and 1 (shapes (2, 3) and (3,))"),
    ("cat-empty", lambda: tl.cat([]), "cat: expected a non-empty list of tensors"),
    ("cat-0dim", lambda: tl.cat([tl.tensor(1.0), tl.tensor(2.0)]),
     "cat: zero-dimensional tensor (at position 0) cannot be concatenated"),
    ("stack-shapes", lambda: tl.stack([tl.ones(2, 3), tl.ones(2, 4)]),
     "stack: expects each tensor to be equal size, but got (2, 3) at entry 0 and (2, 4) at "
     "entry 1"),
    # dims out of range
    ("sum-dim", lambda: tl.ones(2, 3).sum(2),
     "sum: dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ("softmax-dim", lambda: tl.ones(2, 3).softmax(-3),
     "softmax: dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    ("cumsum-dim", lambda: tl.ones(4).cumsum(1),
     "cumsum: dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    ("transpose-dim", lambda: tl.ones(2, 3).transpose(0, 5), "transpose: dimension out of range"),
    ("unsqueeze-dim", lambda: tl.ones(2, 3).unsqueeze(4),
     "unsqueeze: dimension out of range (expected to be in range of [-3, 2], but got 4)"),
    ("gather-dim", lambda: tl.ones(2, 3).gather(2, tl.tensor([[0]])),
     "gather: dimension out of range"),
    ("cat-dim", lambda: tl.cat([tl.ones(2, 3)], 2), "cat: dimension out of range"),
    ("max-repeated-dims", lambda: tl.ones(2, 3).amax((1, -1)),
     "amax: dim (1, -1) contains a repeated dimension"),
    ("diagonal-same-dims", lambda: tl.ones(2, 3).diagonal(0, 1, -1),
     "diagonal: dimensions cannot be identical 1, -1"),
    # reshape and friends
    ("reshape-size", lambda: tl.ones(2, 3).reshape(4, 2),
     "reshape: shape [4, 2] is invalid for input of shape (2, 3) (size 6)"),
    ("view-size", lambda: tl.ones(2, 3).view(-1, 4),
     "reshape: shape [-1, 4] is invalid for input of shape (2, 3) (size 6)"),
    ("unflatten-size", lambda: tl.ones(2, 6).unflatten(1, (4, 2)),
     "unflatten: Provided sizes [4, 2] don't multiply up to the size of dim 1 (6) in the input "
     "tensor"),
    ("expand-size", lambda: tl.ones(2, 3).expand(4, 3),
     "expand: a tensor of shape (2, 3) cannot be expanded to (4, 3)"),
    ("permute-dims", lambda: tl.ones(2, 3).permute(0, 0), "not a permutation"),
    ("repeat-dims", lambda: tl.ones(2, 3).repeat(2),
     "repeat: number of repeat dims (1) can not be smaller than number of dimensions of tensor "
     "(2, shape (2, 3))"),
    ("split-sizes", lambda: tl.ones(5).split([2, 2]),
     "split: split_with_sizes expects split_sizes to sum exactly to 5"),
    ("narrow-range", lambda: tl.ones(2, 6).narrow(1, 5, 2),
     "narrow: start (5) + length (2) exceeds dimension size (6)"),
    ("chunk-zero", lambda: tl.ones(4).chunk(0), "chunk: chunks must be greater than 0, got 0"),
    ("roll-args", lambda: tl.ones(2, 2).roll((1, 1), 0),
     "roll: shifts and dimensions must align"),
    ("tril-1d", lambda: tl.ones(3).tril(),
     "tril: input tensor must have at least 2 dimensions, got shape (3,)"),
    ("pad-reflect", lambda: pad(tl.ones(1, 3), (3, 0), mode="reflect"),
     "pad: padding size should be less than the corresponding input dimension, but got padding "
     "(3, 0) at dimension 1"),
    ("pad-odd", lambda: pad(tl.ones(3), (1,)), "pad: padding length must be even"),
    # indexing out of bounds and bad index types
    ("getitem-bounds", lambda: tl.ones(3)[5],
     "getitem: index 5 is out of bounds for axis 0 with size 3 (indexing a tensor of shape (3,))"),
    ("getitem-float-index", lambda: tl.ones(3)[tl.tensor([0.5])], "must be long, int or bool"),
    ("setitem-bounds", lambda: tl.ones(2, 3).__setitem__((0, 7), 1.0),
     "setitem: index 7 is out of bounds for axis 1 with size 3"),
    ("setitem-shape", lambda: tl.ones(2, 3).__setitem__(0, tl.ones(2)),
     "setitem: shape mismatch: value tensor of shape (2,) cannot be broadcast to indexing result "
     "of shape (3,)"),
    ("gather-bounds", lambda: tl.ones(2, 3).gather(1, tl.tensor([[0, 4]])),
     "gather: index 4 is out of bounds for dimension 1 with size 3"),
    ("gather-index-ndim", lambda: tl.ones(2, 3).gather(1, tl.tensor([0, 1])),
     "gather: index tensor must have the same number of dimensions as input tensor"),
    ("gather-index-dtype", lambda: tl.ones(2, 3).gather(1, tl.tensor([[0.0]])),
     "gather: expected an integer (int64) index tensor, got dtype float32"),
    ("scatter-bounds", lambda: tl.zeros(3).scatter(0, tl.tensor([-4]), tl.ones(1)),
     "scatter: index -4 is out of bounds for dimension 0 with size 3"),
    ("index_select-bounds", lambda: tl.ones(2, 3).index_select(0, tl.tensor([2])),
     "index_select: index out of range in self: index values must be in [0, 1]"),
    ("take_along_dim-ndim", lambda: tl.ones(2, 3).take_along_dim(tl.tensor([0]), 1),
     "take_along_dim: input and indices should have the same number of dimensions, but got 2 "
     "and 1"),
    ("masked_fill-mask-dtype", lambda: tl.ones(3).masked_fill(tl.tensor([1, 0, 1]), 0.0),
     "masked_fill: only supports boolean masks, but got mask with dtype tinygrad_lite.int64"),
    ("masked_fill-value-dims", lambda: tl.ones(3).masked_fill(tl.ones(3) > 0, tl.ones(3)),
     "masked_fill: only supports a 0-dimensional value tensor, but got tensor with 1 "
     "dimension(s)"),
    # float-only ops on integer tensors (where PyTorch refuses)
    ("mean-int", lambda: tl.tensor([1, 2]).mean(),
     "mean: input dtype must be floating point, got tinygrad_lite.int64"),
    ("var-int", lambda: tl.tensor([1, 2]).var(),
     "std and var only support floating point and complex dtypes"),  # PyTorch's message
    ("std-int", lambda: tl.tensor([1, 2]).std(),
     "std and var only support floating point and complex dtypes"),
    ("softmax-int", lambda: tl.tensor([1, 2]).softmax(0),
     "softmax: not implemented for integer or bool tensors (got tinygrad_lite.int64)"),
    ("log_softmax-int", lambda: tl.tensor([1, 2]).log_softmax(0),
     "log_softmax: not implemented for integer or bool tensors"),
    ("norm-int", lambda: tl.tensor([1, 2]).norm(),
     "norm: input dtype should be floating point, got tinygrad_lite.int64"),
    ("lerp-int", lambda: tl.lerp(tl.tensor([1, 2]), tl.tensor([3, 4]), 0.5),
     "lerp: expected floating point tensors, but input has dtype tinygrad_lite.int64"),
    ("requires-grad-int", lambda: tl.tensor([1, 2], requires_grad=True),
     "only tensors of floating point dtype can require gradients, got tinygrad_lite.int64"),
    ("div_-int", lambda: tl.tensor([1, 2]).div_(2),
     "div_: result type float32 can't be cast to the desired output type int64"),
    ("bitwise-float", lambda: tl.ones(2) & tl.ones(2),
     "bitwise_and: only integer and bool tensors are supported, got float32"),
    # other misuse
    ("in-place-leaf", lambda: tl.ones(2, requires_grad=True).mul_(2),
     "a leaf Variable that requires grad is being used in an in-place operation.\nmul_: "),
    ("fill_-value-dims", lambda: tl.ones(2).fill_(tl.ones(2)),
     "fill_: only supports 0-dimension value tensor but got tensor with 1 dimensions"),
    ("clamp-no-bounds", lambda: tl.ones(2).clamp(),
     "clamp: at least one of 'min' or 'max' must not be None"),
    ("max-dim-tuple", lambda: tl.ones(2, 3).max((0, 1)),
     "max: dim must be an int, got (0, 1); use amax to reduce several dims"),
    ("min-empty", lambda: tl.ones(0).min(),
     "min(): Expected reduction dim to be specified for input.numel() == 0"),
    ("argmax-empty", lambda: tl.ones(0).argmax(),
     "argmax(): Expected reduction dim to be specified for input.numel() == 0"),
    ("amax-empty-dim", lambda: tl.ones(0, 2).amax(0),
     "amax(): Expected reduction dim 0 to have non-zero size"),
    ("prod-dim-tuple", lambda: tl.ones(2, 3).prod((0, 1)),
     "prod: dim must be an int or None, got (0, 1)"),
    ("scatter-reduce", lambda: tl.ones(3).scatter(0, tl.tensor([0]), tl.ones(1), reduce="max"),
     "scatter: reduce argument must be either add or multiply, got 'max'"),
    ("pad-circular-wraps", lambda: pad(tl.ones(1, 1, 3), (4, 0), mode="circular"),
     "pad: padding value causes wrapping around more than once"),
    ("unfold-dim", lambda: tl.arange(8.0).unfold(1, 8, 3),
     "unfold: dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    ("cummax-0d-dim", lambda: tl.tensor(1.0).cummax(1),
     "cummax: dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    ("logcumsumexp-int", lambda: tl.tensor([1, 2]).logcumsumexp(0),
     "logcumsumexp: not implemented for tinygrad_lite.int64 tensors"),
    ("heaviside-dtypes", lambda: tl.heaviside(tl.ones(2), tl.tensor([1])),
     "heaviside is not yet implemented for tensors with different dtypes"),
    ("narrow-past-end", lambda: tl.ones(4).narrow(0, 2, 3),
     "narrow: start (2) + length (3) exceeds dimension size (4)"),
    ("meshgrid-indexing", lambda: tl.meshgrid(tl.ones(2), indexing="bad"),
     "meshgrid: indexing must be 'ij' or 'xy', got 'bad'"),
    ("invert-float", lambda: ~tl.ones(2),
     "~ (operator.invert) is only implemented on integer and Boolean-type tensors"),
    ("pad-mode", lambda: pad(tl.ones(3), (1, 1), mode="mirror"),
     "pad: mode 'mirror' is not supported"),
]


@pytest.mark.parametrize("name,fn,message", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_input_raises_clear_error(name, fn, message):
    with pytest.raises((RuntimeError, TypeError, IndexError, ValueError,
                        NotImplementedError)) as info:
        fn()
    assert message in str(info.value)


def test_error_list_is_long_enough():
    assert len(ERRORS) >= 30 and len({e[0] for e in ERRORS}) == len(ERRORS)
