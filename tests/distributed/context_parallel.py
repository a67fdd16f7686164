"""Run under mpiexec on 4 ranks: context parallelism (ring attention) against single-process
attention in float64, for cp = 4 (the whole world), 2 (the "cp" dimension of a 2x2 mesh) and
1 (a 4x1 mesh), causal and not, load-balanced and not, both rotation methods, one tile per
chunk pair or tiles of 3 x 3: output, log-sum-exp, dQ, dK and dV to 1e-10; the shard layout and
its unsharding; the work per rank (query-key pairs) equal under balancing; bytes sent against
the formula; buffers restored on exit; the errors for attn_mask and dropout;
nn.MultiheadAttention end to end. Prints "rank R: ok"."""

import math

import numpy as np

import tinygrad_lite as tl
import tinygrad_lite.distributed as dist
import tinygrad_lite.nn.functional as F  # noqa: N812 - PyTorch's alias
from tinygrad_lite import nn
from tinygrad_lite.distributed.device_mesh import init_device_mesh
from tinygrad_lite.distributed.tensor.experimental import (
    _attention,
    context_parallel,
    context_parallel_unshard,
)
from tinygrad_lite.ops import ring_attention

rank = dist.get_rank() if dist.is_initialized() else None
meshes = {4: init_device_mesh("cpu", (4,), mesh_dim_names=("cp",))}
meshes[2] = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "cp"))["cp"]
meshes[1] = init_device_mesh("cpu", (4, 1), mesh_dim_names=("dp", "cp"))["cp"]
rank = dist.get_rank()
B, H, T, E = 1, 2, 16, 4
TOL = dict(rtol=1e-10, atol=1e-10)


def reference(q, k, v, do, is_causal):
    """Single-process attention (tl's own, autograd) and the log-sum-exp by NumPy."""
    tq, tk, tv = (tl.tensor(a, requires_grad=True) for a in (q, k, v))
    out = F.scaled_dot_product_attention(tq, tk, tv, is_causal=is_causal)
    out.backward(tl.tensor(do))
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(E)
    if is_causal:
        scores = np.where(np.tril(np.ones((T, T), bool)), scores, -np.inf)
    top = scores.max(-1, keepdims=True)
    lse = (top + np.log(np.exp(scores - top).sum(-1, keepdims=True)))[..., 0]
    return out.detach().numpy(), lse, tq.grad.numpy(), tk.grad.numpy(), tv.grad.numpy()


def check(cp, is_causal, balanced, method, block=None):
    mesh = meshes[cp]
    group = mesh.get_group()
    _attention._cp_options.enable_load_balance = balanced
    _attention._cp_options.block_size = block
    _attention.set_rotate_method(method)
    rng = np.random.default_rng([cp, is_causal, balanced])  # the same data on every rank
    q, k, v, do = (rng.standard_normal((B, H, T, E)) for _ in range(4))
    ref_out, ref_lse, ref_dq, ref_dk, ref_dv = reference(q, k, v, do, is_causal)

    cq, ck, cv, cdo = (tl.tensor(a) for a in (q, k, v, do))
    ring_attention.stats.reset()
    with context_parallel(mesh, buffers=[cq, ck, cv, cdo], buffer_seq_dims=[2, 2, 2, -2],
                          no_restore_buffers={cdo}):
        assert cq.shape == (B, H, T // cp, E)
        cq.requires_grad_()
        ck.requires_grad_()
        cv.requires_grad_()
        out = F.scaled_dot_product_attention(cq, ck, cv, is_causal=is_causal)
        forward = (ring_attention.stats.forward_pairs, ring_attention.stats.bytes_sent)
        out.backward(cdo)
        for bad in (dict(attn_mask=tl.ones(T // cp, T // cp, dtype=tl.bool)),
                    dict(dropout_p=0.5)):
            try:
                F.scaled_dot_product_attention(cq, ck, cv, **bad)
            except NotImplementedError as exc:
                assert "context_parallel" in str(exc), exc
            else:
                raise AssertionError(f"no error for {bad}")
        _, lse = _attention._ring_sdpa(group, balanced, cq.detach(), ck.detach(), cv.detach(),
                                       is_causal=is_causal)
        full = context_parallel_unshard(mesh, [out.detach(), cq.grad, ck.grad, cv.grad,
                                               tl.from_numpy(lse)], [2, 2, 2, 2, 2])
    for got, want, name in zip(full, (ref_out, ref_dq, ref_dk, ref_dv, ref_lse),
                               ("out", "dq", "dk", "dv", "lse")):
        np.testing.assert_allclose(got.numpy(), want, **TOL,
                                   err_msg=f"{name} cp={cp} causal={is_causal} "
                                           f"balanced={balanced} {method} block={block}")
    # restored on exit (q, k, v), left sharded when asked (the output gradient)
    for t, a in ((cq, q), (ck, k), (cv, v)):
        np.testing.assert_array_equal(t.detach().numpy(), a)
    assert cdo.shape == (B, H, T // cp, E)

    # the work and traffic of each rank
    pairs, sent = forward
    every = [None] * cp
    dist.all_gather_object(every, pairs, group=group)
    n = T // cp
    kv_bytes = B * H * n * 2 * E * 8
    assert sent == (cp - 1) * kv_bytes, (sent, cp, kv_bytes)
    if block is not None:  # tiles inside each step: no larger than block x block
        assert ring_attention.stats.peak_tile_elements <= B * H * block * block
        return
    if not is_causal:
        assert every == [n * n * cp] * cp, every
    elif balanced:
        c = n // 2  # two diagonal chunk pairs, 2 cp - 1 full ones, on every rank
        assert every == [(2 * cp + 1) * c * c] * cp, every
    else:  # rank r: r full blocks and its diagonal one, so the last rank does cp times more
        assert every == [(r + 1) * n * n for r in range(cp)], every
    assert ring_attention.stats.peak_tile_elements == B * H * (n // 2 if is_causal and balanced
                                                               else n) ** 2


for method in ("alltoall", "allgather"):
    for cp in (4, 2, 1):
        for is_causal in (True, False):
            for balanced in (True, False):
                if method == "allgather" and cp != 4:
                    continue
                check(cp, is_causal, balanced, method)
for cp in (4, 2):
    for is_causal in (True, False):
        for balanced in (True, False):
            check(cp, is_causal, balanced, "alltoall", block=3)
_attention._cp_options.block_size = None

# a module end to end: nn.MultiheadAttention (sequence first) on the sharded sequence gives
# the full output, and its parameter gradients summed over the ranks are the full ones
for is_causal in (False, True):
    _attention._cp_options.enable_load_balance = True
    mesh = meshes[4]
    tl.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, dtype=tl.float64)
    rng = np.random.default_rng(5)
    x_full, w_full = rng.standard_normal((T, 3, 8)), rng.standard_normal((T, 3, 8))
    hint = tl.tensor(~np.tril(np.ones((T, T), bool))) if is_causal else None
    out = mha(tl.tensor(x_full), tl.tensor(x_full), tl.tensor(x_full), need_weights=False,
              attn_mask=hint, is_causal=is_causal)[0]
    (out * tl.tensor(w_full)).sum().backward()
    want = {name: p.grad.numpy().copy() for name, p in mha.named_parameters()}
    mha.zero_grad()
    x, w = tl.tensor(x_full), tl.tensor(w_full)
    with context_parallel(mesh, buffers=[x, w], buffer_seq_dims=[0, 0]):
        local = mha(x, x, x, need_weights=False, attn_mask=hint, is_causal=is_causal)[0]
        (local * w).sum().backward()
        whole = context_parallel_unshard(mesh, [local.detach()], [0])[0]
    np.testing.assert_allclose(whole.numpy(), out.detach().numpy(), **TOL)
    for name, p in mha.named_parameters():
        dist.all_reduce(p.grad, group=mesh.get_group())
        np.testing.assert_allclose(p.grad.numpy(), want[name], **TOL, err_msg=name)

# the shard layout: positions 0..T-1 sharded and gathered back
for balanced in (True, False):
    _attention._cp_options.enable_load_balance = balanced
    for cp, mesh in meshes.items():
        pos = tl.arange(T, dtype=tl.float64).reshape(1, T).expand(3, T).contiguous()
        with context_parallel(mesh, buffers=[pos], buffer_seq_dims=[1]):
            r, c = mesh.get_local_rank(), T // (2 * cp)
            want = (list(range(r * c, (r + 1) * c)) + list(range((2 * cp - 1 - r) * c,
                                                                  (2 * cp - r) * c))
                    if balanced else list(range(r * T // cp, (r + 1) * T // cp)))
            assert pos.numpy()[0].tolist() == want, (cp, balanced, pos.numpy()[0])
            back = context_parallel_unshard(mesh, [pos], [1])[0]
        assert back.numpy()[0].tolist() == list(range(T)) and back.shape == (3, T)
        assert pos.numpy()[1].tolist() == list(range(T))  # restored

errors = 0
_attention._cp_options.enable_load_balance = True
for bad in (lambda: context_parallel(meshes[4], buffers=[tl.ones(1, 12)],
                                     buffer_seq_dims=[1]).__enter__(),  # 12 / 8 chunks
            lambda: context_parallel(meshes[4], buffers=[tl.ones(8)],
                                     buffer_seq_dims=[0, 1]).__enter__(),
            lambda: context_parallel(meshes[4], buffers=[tl.ones(8)], buffer_seq_dims=[0],
                                     no_restore_buffers={tl.ones(8)}).__enter__(),
            lambda: context_parallel(meshes[4], buffers=[tl.ones(8, requires_grad=True)],
                                     buffer_seq_dims=[0]).__enter__(),
            lambda: _attention.set_rotate_method("ring")):
    try:
        bad()
    except (ValueError, RuntimeError, NotImplementedError):
        errors += 1
assert errors == 5, errors
print(f"rank {rank}: ok", flush=True)
