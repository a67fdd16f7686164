"""Point-to-point operations beyond single sends and receives: batches of them
(``P2POp``/``batch_isend_irecv``, all started at once so that a ring exchange cannot deadlock)
and lists of picklable objects (``send_object_list``/``recv_object_list``)."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .collectives import irecv, isend
from .process_group import ProcessGroup, Work, default_group, mpi

__all__ = ["P2POp", "batch_isend_irecv", "send_object_list", "recv_object_list"]

# objects travel on their own tag, so that they never meet tensors sent with the default tag 0
_OBJECT_TAG = 0x7A11


def _peer(group: ProcessGroup, peer: int | None, group_peer: int | None, what: str) -> int:
    """The global rank named by ``peer`` (global) or ``group_peer`` (in ``group``): exactly
    one of them."""
    if (peer is None) == (group_peer is None):
        raise ValueError(f"{what}: give exactly one of peer (a global rank) and group_peer "
                         f"(a rank in the group), got peer={peer}, group_peer={group_peer}")
    if peer is not None:
        group.group_rank(int(peer))  # a clear error for a rank outside the group
        return int(peer)
    if not 0 <= int(group_peer) < group.size():  # type: ignore[arg-type]
        raise ValueError(f"{what}: group_peer {group_peer} is not a rank of a group of "
                         f"{group.size()}")
    return group.ranks[int(group_peer)]  # type: ignore[arg-type]


class P2POp:
    """One send or receive of a batch: ``op`` is ``isend`` or ``irecv``, ``peer`` the other
    side's global rank (or ``group_peer`` its rank in ``group``)."""

    def __init__(self, op: Any, tensor: Tensor, peer: int | None = None,
                 group: ProcessGroup | None = None, tag: int = 0,
                 group_peer: int | None = None) -> None:
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type "
                             "``tl.distributed.isend`` or ``tl.distributed.irecv``.")
        if not isinstance(tensor, Tensor):
            raise TypeError(f"P2POp: tensor must be a Tensor, got {type(tensor).__name__}")
        self.op = op
        self.tensor = tensor
        self.group = default_group(group)
        self.peer = _peer(self.group, peer, group_peer, "P2POp")
        self.group_peer = self.group.group_rank(self.peer)
        self.tag = tag

    def __repr__(self) -> str:
        return (f"P2POp({self.op.__name__}, peer={self.peer}, {tuple(self.tensor.shape)}, "
                f"{self.tensor.dtype})")


def batch_isend_irecv(p2p_op_list: list[P2POp]) -> list[Work]:
    """Start every send and receive of ``p2p_op_list`` (non-blocking) and return their Works;
    all ops must use the same group."""
    if not isinstance(p2p_op_list, list) or not p2p_op_list or \
            not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``tl.distributed.P2POp``.")
    group = p2p_op_list[0].group
    if any(p.group is not group for p in p2p_op_list):
        raise ValueError("All ops need to use the same group.")
    return [p.op(p.tensor, p.peer, p.group, p.tag) for p in p2p_op_list]


def send_object_list(object_list: list, dst: int | None = None,
                     group: ProcessGroup | None = None, device: Any = None,
                     group_dst: int | None = None, use_batch: bool = False) -> None:
    """Send the picklable objects of ``object_list`` to global rank ``dst`` (or ``group_dst``
    of ``group``); the receiver needs a list of the same length."""
    g = default_group(group)
    target = _peer(g, dst, group_dst, "send_object_list")
    if target == g.ranks[g.rank()]:
        raise ValueError("send_object_list: a rank cannot send objects to itself")
    g.comm.send(list(object_list), dest=g.group_rank(target), tag=_OBJECT_TAG)


def recv_object_list(object_list: list, src: int | None = None,
                     group: ProcessGroup | None = None, device: Any = None,
                     group_src: int | None = None, use_batch: bool = False) -> int:
    """Fill ``object_list`` with the objects sent by global rank ``src`` (or ``group_src``;
    any rank when both are None); returns the sender's global rank."""
    g = default_group(group)
    source = mpi().ANY_SOURCE if src is None and group_src is None else \
        g.group_rank(_peer(g, src, group_src, "recv_object_list"))
    status = mpi().Status()
    received = g.comm.recv(source=source, tag=_OBJECT_TAG, status=status)
    if len(received) != len(object_list):
        raise ValueError(f"recv_object_list: {len(received)} objects arrived for a list of "
                         f"{len(object_list)}")
    object_list[:] = received
    return g.ranks[status.Get_source()]
