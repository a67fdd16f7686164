"""Catalogue rows of shape and movement ops: views, permutes, expands, joins and splits,
triangles and diagonals, padding, flips and rotations, as_strided windows and the shape
composites (stacks, meshgrid, repeat_interleave, block_diag, combinations, unfold)."""

import numpy as np

import tinygrad_lite as tl
from op_catalog.registry import row
from tinygrad_lite.nn.functional import pad


def _product(x, y):
    assert x.shape == y.shape
    return x * y


def _np_strided(a, size, stride, offset):
    index = offset + sum(np.arange(n).reshape([-1 if j == k else 1 for j in range(len(size))])
                         * s for k, (n, s) in enumerate(zip(size, stride, strict=True)))
    return a.reshape(-1)[index]


row("reshape", lambda a: a.reshape(4, -1), [(2, 3, 2)], "real")
row("view", lambda a: a.view(6), [(2, 3)], "real", lambda a: a.reshape(6))
row("view_as", lambda a, b: a.view_as(b) * b, [(2, 3), (6,)], "real",
    lambda a, b: a.reshape(6) * b)
row("permute", lambda a: a.permute(2, 0, 1), [(2, 3, 4)], "real",
    lambda a: a.transpose(2, 0, 1))
row("transpose", lambda a: a.transpose(0, -1), [(2, 3, 4)], "real",
    lambda a: a.swapaxes(0, -1))
row("T", lambda a: a.T, [(3, 4)], "real")
row("mT", lambda a: a.mT, [(2, 3, 4)], "real", lambda a: a.swapaxes(-1, -2))
row("movedim", lambda a: a.movedim(0, 2), [(2, 3, 4)], "real", lambda a: np.moveaxis(a, 0, 2))
row("movedim_dims", lambda a: a.movedim((0, 2), (2, 0)), [(2, 3, 4)], "real",
    lambda a: np.moveaxis(a, (0, 2), (2, 0)))
row("expand", lambda a: a.expand(2, 3, 4), [(3, 1)], "real",
    lambda a: np.broadcast_to(a, (2, 3, 4)))
row("expand-keep", lambda a: a.expand(-1, 5), [(3, 1)], "real",
    lambda a: np.broadcast_to(a, (3, 5)))
row("expand_as", lambda a, b: a.expand_as(b) * b, [(1, 4), (3, 4)], "real",
    lambda a, b: np.broadcast_to(a, b.shape) * b)
row("broadcast_to", lambda a: tl.broadcast_to(a, (2, 3)), [(3,)], "real",
    lambda a: np.broadcast_to(a, (2, 3)))
row("squeeze-unsqueeze", lambda a: a.squeeze(1).unsqueeze(0), [(3, 1, 2)], "real",
    lambda a: a.squeeze(1)[None])
row("flatten", lambda a: a.flatten(1), [(2, 3, 4)], "real", lambda a: a.reshape(2, 12))
row("unflatten", lambda a: a.unflatten(1, (2, -1)), [(3, 4)], "real",
    lambda a: a.reshape(3, 2, 2))
row("repeat", lambda a: a.repeat(2, 1, 3), [(2, 3)], "real", lambda a: np.tile(a, (2, 1, 3)))
row("tile", lambda a: a.tile((2,)), [(2, 3)], "real", lambda a: np.tile(a, 2))
row("flip", lambda a: a.flip(0, 1), [(3, 4)], "real", lambda a: a[::-1, ::-1])
row("roll", lambda a: a.roll((1, -1), (0, 1)), [(3, 4)], "real",
    lambda a: np.roll(a, (1, -1), (0, 1)))
row("roll-flat", lambda a: tl.roll(a, 5), [(3, 4)], "real", lambda a: np.roll(a, 5))
row("cat", lambda a, b: tl.cat([a, b], 1), [(2, 3), (2, 2)], "real",
    lambda a, b: np.concatenate([a, b], 1))
row("concatenate-three", lambda a, b, c: tl.concatenate((a, b, c)), [(1, 2), (2, 2), (3, 2)],
    "real", lambda a, b, c: np.concatenate([a, b, c]))
row("stack", lambda a, b: tl.stack([a, b], -1), [(2, 3), (2, 3)], "real",
    lambda a, b: np.stack([a, b], -1))
row("split-size", lambda a: tl.split(a, 2, 1)[1] * 2 + a.split(2, 1)[2].sum(), [(3, 5)],
    "real", lambda a: a[:, 2:4] * 2 + a[:, 4:].sum())
row("split-sections", lambda a: a.split([1, 3], 1)[1], [(3, 4)], "real", lambda a: a[:, 1:])
row("chunk", lambda a: a.chunk(3, 0)[-1], [(5, 2)], "real", lambda a: a[4:])
row("unbind", lambda a: a.unbind(1)[2] - a.unbind(1)[0], [(3, 4)], "real",
    lambda a: a[:, 2] - a[:, 0])
row("narrow", lambda a: a.narrow(1, 1, 2), [(3, 4)], "real", lambda a: a[:, 1:3])
row("select", lambda a: a.select(1, -1), [(3, 4)], "real", lambda a: a[:, -1])
row("tril", lambda a: a.tril(), [(3, 4)], "real", np.tril)
row("triu-offset", lambda a: tl.triu(a, -1), [(2, 3, 4)], "real", lambda a: np.triu(a, -1))
row("diagonal", lambda a: a.diagonal(), [(3, 4)], "real", np.diagonal)
row("diagonal-offset-dims", lambda a: a.diagonal(-1, 2, 0), [(3, 2, 4)], "real",
    lambda a: np.diagonal(a, -1, 2, 0))
row("contiguous", lambda a: a.T.contiguous(), [(3, 4)], "real", lambda a: a.T)
row("pad-constant", lambda a: pad(a, (1, 2), value=0.5), [(3, 4)], "real",
    lambda a: np.pad(a, ((0, 0), (1, 2)), constant_values=0.5))
row("pad-constant-crop", lambda a: pad(a, (0, -1, 1, 0)), [(3, 4)], "real",
    lambda a: np.pad(a[:, :3], ((1, 0), (0, 0))))
row("pad-reflect", lambda a: pad(a, (2, 1, 1, 1), mode="reflect"), [(1, 3, 4)], "real",
    lambda a: np.pad(a, ((0, 0), (1, 1), (2, 1)), mode="reflect"))
row("pad-replicate", lambda a: pad(a, (2, 3), mode="replicate"), [(2, 3)], "real",
    lambda a: np.pad(a, ((0, 0), (2, 3)), mode="edge"))
row("pad-circular", lambda a: pad(a, (1, 2), mode="circular"), [(2, 3)], "real",
    lambda a: np.pad(a, ((0, 0), (1, 2)), mode="wrap"))
row("t-method", lambda a: a.t() * 2, [(3, 4)], "real", lambda a: a.T * 2)
row("t-1d", lambda a: tl.t(a) * 2, [(4,)], "real", lambda a: a * 2)
row("meshgrid-xy", lambda a, b: tl.stack(tl.meshgrid(a, b, indexing="xy")), [(3,), (2,)],
    "real", lambda a, b: np.stack(np.meshgrid(a, b, indexing="xy")))
row("hstack", lambda a, b: tl.hstack([a, b]), [(3, 2), (3, 4)], "real",
    lambda a, b: np.hstack([a, b]))
row("vstack", lambda a, b: tl.vstack([a, b]), [(4,), (2, 4)], "real",
    lambda a, b: np.vstack([a, b]))
row("dstack", lambda a, b: tl.dstack([a, b]), [(3, 2), (3, 2)], "real",
    lambda a, b: np.dstack([a, b]))
row("column_stack", lambda a, b: tl.column_stack([a, b]), [(3,), (3, 2)], "real",
    lambda a, b: np.column_stack([a, b]))
row("repeat_interleave", lambda a: tl.repeat_interleave(a, tl.tensor([2, 0, 1]), dim=0),
    [(3, 2)], "real", lambda a: np.repeat(a, [2, 0, 1], axis=0))
row("repeat_interleave-int", lambda a: tl.repeat_interleave(a, 3, dim=1), [(2, 3, 2)],
    "real", lambda a: np.repeat(a, 3, axis=1))
row("repeat_interleave-flat", lambda a: a.repeat_interleave(tl.tensor(2)), [(2, 3)],
    "real", lambda a: np.repeat(a, 2))
row("rot90", lambda a: tl.rot90(a, 1, (0, 1)), [(3, 4)], "real", lambda a: np.rot90(a))
row("rot90-k3", lambda a: tl.rot90(a, 3, (1, 2)), [(2, 3, 4)], "real",
    lambda a: np.rot90(a, 3, (1, 2)))
row("block_diag", lambda a, b: tl.block_diag(a, b), [(2, 2), (1, 3)], "real",
    lambda a, b: np.block([[a, np.zeros((2, 3))], [np.zeros((1, 2)), b]]))
row("cartesian_prod", lambda a, b: tl.cartesian_prod(a, b), [(3,), (2,)], "real",
    lambda a, b: np.stack(np.meshgrid(a, b, indexing="ij"), -1).reshape(-1, 2))
row("combinations", lambda a: tl.combinations(a, 2), [(4,)], "real",
    lambda a: np.array([[a[i], a[j]] for i in range(4) for j in range(i + 1, 4)]))
row("tensor-unfold", lambda a: a.unfold(1, 2, 1), [(3, 4)], "real",
    lambda a: np.stack([a[:, i:i + 2] for i in range(3)], 1))
row("tensor_split-cat", lambda a: tl.cat(tl.tensor_split(a, 3, dim=1)[::-1], 1),
    [(2, 5)], "real", lambda a: np.concatenate(np.array_split(a, 3, axis=1)[::-1], 1))
row("ravel", lambda a: tl.ravel(a.t()), [(3, 4)], "real", lambda a: a.T.ravel())
row("split_with_sizes", lambda a: a.split_with_sizes([1, 3], 1)[1], [(3, 4)], "real",
    lambda a: a[:, 1:])
row("adjoint", tl.adjoint, [(2, 3, 4)], "real", lambda a: np.swapaxes(a, -2, -1))
row("broadcast_tensors", lambda a, b: _product(*tl.broadcast_tensors(a, b)), [(3, 1), (4,)],
    "real", lambda a, b: a * b)
row("sum_to_size", lambda a: a.sum_to_size(3, 1), [(2, 3, 4)], "real",
    lambda a: a.sum((0, 2))[:, None])
row("clone", lambda a: tl.clone(a) * 2, [(2, 3)], "real", lambda a: a * 2)
row("as_strided-overlapping-windows", lambda a: a.as_strided((3, 3), (1, 1)), [(6,)], "real",
    lambda a: _np_strided(a, (3, 3), (1, 1), 0))
row("as_strided-offset", lambda a: tl.as_strided(a, (2, 2), (1, 3), 2), [(3, 4)], "real",
    lambda a: _np_strided(a, (2, 2), (1, 3), 2))
