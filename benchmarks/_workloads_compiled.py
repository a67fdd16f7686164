"""Builders for the compiled rows: tinygrad_lite under ``tl.compile`` and JAX under ``jax.jit``.

Same contract as ``_workloads``: the NumPy initial weights and data in, a ``step()`` out (one
training step: forward, backward, SGD with momentum 0.9 torch-style, returning the loss), and for
the toy also ``predict()``. The tinygrad_lite step is the eager one of ``_workloads`` with its
body under ``tl.compile`` (the batch passed as arguments, as a user compiles a step); the JAX step
is the functional equivalent, ``jax.jit`` of one function from (params, buffers, batch) to
(params, buffers, loss), float32 throughout. Momentum buffers start at zero, which gives the
torch rule's ``buf = g`` at the first step.
"""

from __future__ import annotations

from typing import Any

import numpy as np

Params = list[np.ndarray]


def _compiled_step(model: Any, opt: Any, loss_fn: Any) -> Any:
    import tinygrad_lite as tl

    @tl.compile
    def step(x: Any, y: Any) -> Any:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def mlp_tinygrad_lite_compiled(params: Params, xs: list, ys: list) -> Any:
    """tinygrad_lite's MLP step under ``tl.compile``."""
    import _workloads as wl

    model = wl._tl_model(params)
    import tinygrad_lite as tl

    opt = tl.optim.SGD(model.parameters(), lr=wl.LR_MLP, momentum=wl.MOMENTUM)
    compiled = _compiled_step(model, opt, tl.nn.functional.cross_entropy)
    txs, tys = [tl.from_numpy(x) for x in xs], [tl.from_numpy(y) for y in ys]
    it = [0]

    def step() -> Any:
        """One training step on the next batch of the pool."""
        i = it[0] % wl.POOL
        it[0] += 1
        return compiled(txs[i], tys[i])

    return step


def toy_tinygrad_lite_compiled(params: Params, x: np.ndarray, y: np.ndarray) -> Any:
    """tinygrad_lite's toy step under ``tl.compile``."""
    import _workloads as wl

    model = wl._tl_model(params)
    import tinygrad_lite as tl

    opt = tl.optim.SGD(model.parameters(), lr=wl.LR_TOY, momentum=wl.MOMENTUM)

    def hinge(scores: Any, target: Any) -> Any:
        return tl.nn.functional.relu(1 - target * scores.reshape(-1)).mean()

    compiled = _compiled_step(model, opt, hinge)
    tx, ty = tl.from_numpy(x), tl.from_numpy(y)

    def predict() -> np.ndarray:
        """Current scores."""
        with tl.no_grad():
            return model(tx).reshape(-1).numpy()

    return (lambda: compiled(tx, ty)), predict


def _jax_sgd(jax: Any, lr: float, momentum: float) -> Any:
    def update(params: list, bufs: list, grads: list) -> tuple[list, list]:
        bufs = [momentum * b + g for b, g in zip(bufs, grads)]
        return [p - lr * b for p, b in zip(params, bufs)], bufs
    return update


def _jax_forward(jnp: Any, params: list, x: Any) -> Any:
    h = x
    for i in range(0, len(params), 2):
        h = h @ params[i].T + params[i + 1]
        if i + 2 < len(params):
            h = jnp.maximum(h, 0)
    return h


def mlp_jax(params: Params, xs: list, ys: list) -> Any:
    """JAX: ``jax.jit`` of the whole step (forward, ``jax.grad``, SGD with momentum)."""
    import _workloads as wl
    import jax
    import jax.numpy as jnp

    update = _jax_sgd(jax, wl.LR_MLP, wl.MOMENTUM)

    def loss_fn(ps: list, x: Any, y: Any) -> Any:
        logits = _jax_forward(jnp, ps, x)
        logp = jax.nn.log_softmax(logits, axis=1)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    @jax.jit
    def train(ps: list, bufs: list, x: Any, y: Any) -> tuple:
        loss, grads = jax.value_and_grad(loss_fn)(ps, x, y)
        ps, bufs = update(ps, bufs, grads)
        return ps, bufs, loss

    state = {"p": [jnp.asarray(p) for p in params],
             "b": [jnp.zeros_like(jnp.asarray(p)) for p in params]}
    jxs, jys = [jnp.asarray(x) for x in xs], [jnp.asarray(y) for y in ys]
    it = [0]

    def step() -> Any:
        """One training step on the next batch of the pool."""
        i = it[0] % wl.POOL
        it[0] += 1
        state["p"], state["b"], loss = train(state["p"], state["b"], jxs[i], jys[i])
        return loss.block_until_ready()

    return step


def toy_jax(params: Params, x: np.ndarray, y: np.ndarray) -> Any:
    """JAX: ``jax.jit`` of the whole toy step."""
    import _workloads as wl
    import jax
    import jax.numpy as jnp

    update = _jax_sgd(jax, wl.LR_TOY, wl.MOMENTUM)
    jx, jy = jnp.asarray(x), jnp.asarray(y)

    def loss_fn(ps: list) -> Any:
        return jnp.mean(jnp.maximum(1 - jy * _jax_forward(jnp, ps, jx)[:, 0], 0))

    @jax.jit
    def train(ps: list, bufs: list) -> tuple:
        loss, grads = jax.value_and_grad(loss_fn)(ps)
        ps, bufs = update(ps, bufs, grads)
        return ps, bufs, loss

    state = {"p": [jnp.asarray(p) for p in params],
             "b": [jnp.zeros_like(jnp.asarray(p)) for p in params]}

    def step() -> Any:
        """One full-batch training step."""
        state["p"], state["b"], loss = train(state["p"], state["b"])
        return loss.block_until_ready()

    def predict() -> np.ndarray:
        """Current scores."""
        return np.asarray(_jax_forward(jnp, state["p"], jx)[:, 0])

    return step, predict
