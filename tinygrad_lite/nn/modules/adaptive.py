"""PyTorch's ``torch.nn.modules.adaptive``: ``AdaptiveLogSoftmaxWithLoss`` (Grave et al.,
2016), the efficient softmax approximation for large vocabularies: a head over the frequent
(shortlist) classes plus one entry per tail cluster, and each cluster a two-layer projection of
reduced size. Parameter names (``head``, ``tail.i.0``, ``tail.i.1``) are PyTorch's, so its
state dicts load."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.tensor_base import TensorBase, wrap
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax: ``forward(input, target)`` gives ``(output, loss)``, the target log-
    probabilities and their negated mean; ``log_prob`` the full log-probabilities; ``predict``
    the most likely class."""

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int],
                 div_value: float = 4.0, head_bias: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hsz, bias=False, dtype=dtype),
                                        Linear(hsz, osz, bias=False, dtype=dtype)))

    def reset_parameters(self) -> None:
        """Re-initialise the head and every tail projection."""
        self.head.reset_parameters()
        for projection in self.tail:
            for layer in projection.children():
                layer.reset_parameters()

    def forward(self, input_: TensorBase, target_: TensorBase) -> Any:
        """``(output, loss)``: the log-probability of each target and ``-output.mean()``."""
        if target_.ndim == 1:
            if input_.shape[0] != target_.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input_.ndim != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input_.shape}")
        elif target_.ndim == 0:
            if input_.ndim != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input_.shape}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.ndim > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = np.asarray(target_._data).reshape(-1).astype(np.int64)
        batch = target.shape[0]
        gather_inds = np.zeros(batch, np.int64)
        rows_seen, pieces = [], []
        bounds = [0] + self.cutoffs
        for i in range(len(bounds) - 1):
            rows = np.nonzero((target >= bounds[i]) & (target < bounds[i + 1]))[0]
            if rows.size == 0:
                continue
            rows_seen.append(rows)
            if i == 0:
                gather_inds[rows] = target[rows]
                pieces.append(_fn.zeros(rows.size, dtype=input.dtype))
                continue
            relative = wrap(target[rows] - bounds[i])
            cluster_output = self.tail[i - 1](input.index_select(0, wrap(rows)))
            gather_inds[rows] = self.shortlist_size + i - 1
            cluster_logprob = _fn.log_softmax(cluster_output, 1)
            pieces.append(cluster_logprob.gather(1, relative.unsqueeze(1)).squeeze(1))
        used = sum(r.size for r in rows_seen)
        if used != batch:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{target.min()}, {target.max()}] were found. ")
        order = np.argsort(np.concatenate(rows_seen), kind="stable")
        output = _fn.cat(pieces, 0).index_select(0, wrap(order))
        head_logprob = _fn.log_softmax(self.head(input), 1)
        output = output + head_logprob.gather(1, wrap(gather_inds).unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input: TensorBase, head_output: TensorBase) -> TensorBase:
        head_logprob = _fn.log_softmax(head_output, 1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = _fn.log_softmax(self.tail[i](input), 1)
            parts.append(cluster_logprob
                         + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return _fn.cat(parts, 1)

    def log_prob(self, input: TensorBase) -> TensorBase:
        """The log-probability of every class, shape (N, n_classes)."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input: TensorBase) -> TensorBase:
        """The most likely class of each row (the tail is evaluated only where needed)."""
        head_output = self.head(input)
        output = np.asarray(_fn.argmax(head_output, 1)._data).copy()
        outside = output >= self.shortlist_size
        if not outside.any():
            return wrap(output)
        if outside.all():
            return _fn.argmax(self._get_full_log_prob(input, head_output), 1)
        rows = wrap(np.nonzero(outside)[0])
        log_prob = self._get_full_log_prob(input.index_select(0, rows),
                                           head_output.index_select(0, rows))
        output[outside] = _fn.argmax(log_prob, 1)._data
        return wrap(output)
