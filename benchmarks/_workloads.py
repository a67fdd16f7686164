"""The MLP and toy workloads, one builder per framework, all from the same NumPy data and weights.

Every builder takes the NumPy initial weights (``(out, in)`` matrices, as ``nn.Linear`` stores
them) and data, copies them into its framework and returns a ``step()`` that does one training
step (forward, backward, SGD with momentum 0.9, torch-style: ``buf = g`` at the first step, then
``buf = 0.9 * buf + g``; ``p -= lr * buf``) and returns the loss. The toy builders also return a
``predict()`` giving the current scores as a NumPy array. The NumPy floor is hand-written:
forward, manual backward, the same optimizer, no preallocation tricks.

Frameworks: numpy (floor), tinygrad_lite (used like a user would: nn.Sequential of nn.Linear,
nn.functional.cross_entropy, optim.SGD), tl_compiled (the same step under ``tl.compile``), torch,
jax (``jax.jit`` of the whole step), mygrad, autograd (HIPS) and micrograd (toy only: it has
scalar Values and no exp/log for softmax). The compiled builders are in ``_workloads_compiled``.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import _harness as harness
import _workloads_compiled as compiled
import numpy as np

LR_MLP, LR_TOY, MOMENTUM = 0.01, 0.01, 0.9
MLP_SIZES = (784, 256, 128, 10)
TOY_SIZES = (2, 16, 16, 1)
POOL = 8  # the MLP cycles through this many fixed batches

MLP_FRAMEWORKS = ("numpy", "tinygrad_lite", "tl_compiled", "torch", "jax", "mygrad", "autograd")
TOY_FRAMEWORKS = (*MLP_FRAMEWORKS, "micrograd")
# Importable module of each peer, and how to install it.
PEER_INSTALL = {"torch": "pip install torch==2.13.0", "mygrad": "pip install mygrad",
                "jax": "pip install jax",
                "autograd": "pip install autograd", "micrograd": "pip install micrograd"}

Params = list[np.ndarray]  # [W1, b1, W2, b2, ...], float32, W as (out, in)
Step = Callable[[], Any]


def available(frameworks: list[str] | tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The installed subset of ``frameworks`` and one note per skipped peer."""
    kept, notes = [], []
    for fw in frameworks:
        if fw in PEER_INSTALL and importlib.util.find_spec(fw) is None:
            notes.append(f"{fw}: not installed, skipped (`{PEER_INSTALL[fw]}` to compare)")
        else:
            kept.append(fw)
    return kept, notes


def to_float(loss: Any) -> float:
    """A loss returned by any framework's step as a Python float."""
    if hasattr(loss, "item"):
        return float(loss.item())
    if type(loss).__name__ == "Value":  # micrograd
        return float(loss.data)
    return float(loss)


# -- data and initial weights (NumPy, seeded; identical for every framework) --------------------


def init_params(sizes: tuple[int, ...], seed: int) -> Params:
    """PyTorch-style Linear init U(-1/sqrt(in), 1/sqrt(in)) for each layer, as float32."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    return params


def mlp_data(batch: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """A pool of POOL batches: float32 inputs (batch, 784) and int64 labels in [0, 10)."""
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal((batch, MLP_SIZES[0])).astype(np.float32) for _ in range(POOL)]
    ys = [rng.integers(0, MLP_SIZES[-1], batch).astype(np.int64) for _ in range(POOL)]
    return xs, ys


def two_moons(n: int = 200, noise: float = 0.1, seed: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaved half circles (like sklearn's make_moons): X (n, 2) float32, y in {-1, 1}."""
    rng = np.random.default_rng(seed)
    n_out = n // 2
    t_out, t_in = np.linspace(0, np.pi, n_out), np.linspace(0, np.pi, n - n_out)
    x = np.concatenate([np.stack([np.cos(t_out), np.sin(t_out)], 1),
                        np.stack([1 - np.cos(t_in), 1 - np.sin(t_in) - 0.5], 1)])
    x += rng.normal(0.0, noise, x.shape)
    y = np.concatenate([-np.ones(n_out), np.ones(n - n_out)])
    return x.astype(np.float32), y.astype(np.float32)


def mlp_inputs(batch: int) -> tuple[Params, list[np.ndarray], list[np.ndarray]]:
    """Initial MLP weights and the data pool for ``batch``."""
    return (init_params(MLP_SIZES, 0), *mlp_data(batch))


def toy_inputs() -> tuple[Params, np.ndarray, np.ndarray]:
    """Initial toy weights and the two-moons data."""
    return (init_params(TOY_SIZES, 3), *two_moons())


def _sgd_numpy(params: Params, grads: Params, bufs: list, lr: float) -> None:
    """Torch-style SGD with momentum on NumPy arrays, in place."""
    for i, (p, g) in enumerate(zip(params, grads)):
        if bufs[i] is None:
            bufs[i] = g.copy()
        else:
            bufs[i] *= MOMENTUM
            bufs[i] += g
        p -= lr * bufs[i]


# -- MLP 784-256-128-10, ReLU, mean softmax cross-entropy --------------------------------------


def mlp_numpy(params: Params, xs: list, ys: list) -> Step:
    """The floor: forward, hand-derived backward and SGD, in plain NumPy."""
    w1, b1, w2, b2, w3, b3 = params = [p.copy() for p in params]
    bufs: list = [None] * 6
    it = [0]

    def step() -> float:
        """One training step on the next batch of the pool."""
        x, y = xs[it[0] % POOL], ys[it[0] % POOL]
        it[0] += 1
        n = x.shape[0]
        z1 = x @ w1.T + b1
        h1 = np.maximum(z1, 0)
        z2 = h1 @ w2.T + b2
        h2 = np.maximum(z2, 0)
        z3 = h2 @ w3.T + b3
        shifted = z3 - z3.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        s = e.sum(axis=1, keepdims=True)
        rows = np.arange(n)
        loss = float(np.log(s[:, 0]).sum() - shifted[rows, y].sum()) / n
        dz3 = e / s
        dz3[rows, y] -= 1
        dz3 /= n
        dh2 = dz3 @ w3
        dz2 = dh2 * (z2 > 0)
        dh1 = dz2 @ w2
        dz1 = dh1 * (z1 > 0)
        grads = [dz1.T @ x, dz1.sum(0), dz2.T @ h1, dz2.sum(0), dz3.T @ h2, dz3.sum(0)]
        _sgd_numpy(params, grads, bufs, LR_MLP)
        return loss

    return step


def _tl_model(params: Params) -> Any:
    """A tinygrad_lite nn.Sequential of Linear/ReLU holding ``params``."""
    harness.add_repo_to_path()
    import tinygrad_lite as tl

    sizes = [params[0].shape[1]] + [w.shape[0] for w in params[::2]]
    layers: list = []
    for i in range(len(sizes) - 1):
        layers += [tl.nn.Linear(sizes[i], sizes[i + 1]), tl.nn.ReLU()]
    model = tl.nn.Sequential(*layers[:-1])
    with tl.no_grad():
        for p, value in zip(model.parameters(), params):
            p.copy_(tl.from_numpy(value.copy()))
    return model


def mlp_tinygrad_lite(params: Params, xs: list, ys: list) -> Step:
    """tinygrad_lite as a user writes it: nn.Sequential, F.cross_entropy, optim.SGD."""
    model = _tl_model(params)  # also puts the repository on sys.path
    import tinygrad_lite as tl

    opt = tl.optim.SGD(model.parameters(), lr=LR_MLP, momentum=MOMENTUM)
    txs, tys = [tl.from_numpy(x) for x in xs], [tl.from_numpy(y) for y in ys]
    it = [0]

    def step() -> Any:
        """One training step on the next batch of the pool."""
        i = it[0] % POOL
        it[0] += 1
        opt.zero_grad()
        loss = tl.nn.functional.cross_entropy(model(txs[i]), tys[i])
        loss.backward()
        opt.step()
        return loss

    return step


def _torch_model(params: Params) -> Any:
    """The same nn.Sequential in PyTorch (2 intra-op threads)."""
    import torch

    torch.set_num_threads(2)
    sizes = [params[0].shape[1]] + [w.shape[0] for w in params[::2]]
    layers: list = []
    for i in range(len(sizes) - 1):
        layers += [torch.nn.Linear(sizes[i], sizes[i + 1]), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers[:-1])
    with torch.no_grad():
        for p, value in zip(model.parameters(), params):
            p.copy_(torch.from_numpy(value.copy()))
    return model


def mlp_torch(params: Params, xs: list, ys: list) -> Step:
    """PyTorch CPU eager: nn.Sequential, F.cross_entropy, optim.SGD."""
    import torch

    model = _torch_model(params)
    opt = torch.optim.SGD(model.parameters(), lr=LR_MLP, momentum=MOMENTUM)
    txs, tys = [torch.from_numpy(x) for x in xs], [torch.from_numpy(y) for y in ys]
    it = [0]

    def step() -> Any:
        """One training step on the next batch of the pool."""
        i = it[0] % POOL
        it[0] += 1
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(txs[i]), tys[i])
        loss.backward()
        opt.step()
        return loss

    return step


def mlp_mygrad(params: Params, xs: list, ys: list) -> Step:
    """mygrad: tensors for the weights, its fused softmax_crossentropy, SGD on ``.data``."""
    import mygrad as mg
    from mygrad.nnet.activations import relu
    from mygrad.nnet.losses import softmax_crossentropy

    ps = [mg.tensor(p.copy()) for p in params]
    bufs: list = [None] * len(ps)
    it = [0]

    def step() -> Any:
        """One training step on the next batch of the pool."""
        i = it[0] % POOL
        it[0] += 1
        w1, b1, w2, b2, w3, b3 = ps
        h = relu(mg.matmul(xs[i], w1.T) + b1)
        h = relu(mg.matmul(h, w2.T) + b2)
        loss = softmax_crossentropy(mg.matmul(h, w3.T) + b3, ys[i])
        loss.backward()
        _sgd_numpy([p.data for p in ps], [p.grad for p in ps], bufs, LR_MLP)
        return loss

    return step


def mlp_autograd(params: Params, xs: list, ys: list) -> Step:
    """HIPS autograd: value_and_grad of a loss written with autograd.numpy."""
    import autograd.numpy as anp
    from autograd import value_and_grad

    def loss_fn(ps: Params, x: np.ndarray, y: np.ndarray) -> Any:
        """Mean softmax cross-entropy of the MLP."""
        w1, b1, w2, b2, w3, b3 = ps
        h = anp.maximum(anp.dot(x, w1.T) + b1, 0)
        h = anp.maximum(anp.dot(h, w2.T) + b2, 0)
        z = anp.dot(h, w3.T) + b3
        shifted = z - anp.max(z, axis=1, keepdims=True)
        logp = shifted - anp.log(anp.sum(anp.exp(shifted), axis=1, keepdims=True))
        return -anp.mean(logp[np.arange(x.shape[0]), y])

    vg = value_and_grad(loss_fn)
    ps = [p.copy() for p in params]
    bufs: list = [None] * len(ps)
    it = [0]

    def step() -> Any:
        """One training step on the next batch of the pool."""
        i = it[0] % POOL
        it[0] += 1
        loss, grads = vg(ps, xs[i], ys[i])
        _sgd_numpy(ps, grads, bufs, LR_MLP)
        return loss

    return step


MLP_BUILDERS = {"numpy": mlp_numpy, "tinygrad_lite": mlp_tinygrad_lite,
                "tl_compiled": compiled.mlp_tinygrad_lite_compiled, "torch": mlp_torch,
                "jax": compiled.mlp_jax, "mygrad": mlp_mygrad, "autograd": mlp_autograd}


# -- toy: 2-16-16-1 MLP, full batch, mean hinge loss relu(1 - y * score) ------------------------

Toy = tuple[Step, Callable[[], np.ndarray]]


def toy_numpy(params: Params, x: np.ndarray, y: np.ndarray) -> Toy:
    """The floor: forward, hand-derived backward and SGD, in plain NumPy."""
    w1, b1, w2, b2, w3, b3 = params = [p.copy() for p in params]
    bufs: list = [None] * 6
    n = x.shape[0]

    def forward() -> tuple:
        """Pre-activations, activations and scores."""
        z1 = x @ w1.T + b1
        h1 = np.maximum(z1, 0)
        z2 = h1 @ w2.T + b2
        h2 = np.maximum(z2, 0)
        return z1, h1, z2, h2, (h2 @ w3.T + b3)[:, 0]

    def step() -> float:
        """One full-batch training step."""
        z1, h1, z2, h2, score = forward()
        margin = 1 - y * score
        loss = float(np.maximum(margin, 0).mean())
        dscore = (-(y * (margin > 0)) / n).astype(np.float32)[:, None]
        dz2 = (dscore @ w3) * (z2 > 0)
        dz1 = (dz2 @ w2) * (z1 > 0)
        grads = [dz1.T @ x, dz1.sum(0), dz2.T @ h1, dz2.sum(0), dscore.T @ h2, dscore.sum(0)]
        _sgd_numpy(params, grads, bufs, LR_TOY)
        return loss

    return step, lambda: forward()[-1]


def toy_tinygrad_lite(params: Params, x: np.ndarray, y: np.ndarray) -> Toy:
    """tinygrad_lite as a user writes it: nn.Sequential, F.relu, optim.SGD."""
    model = _tl_model(params)
    import tinygrad_lite as tl

    opt = tl.optim.SGD(model.parameters(), lr=LR_TOY, momentum=MOMENTUM)
    tx, ty = tl.from_numpy(x), tl.from_numpy(y)

    def step() -> Any:
        """One full-batch training step."""
        opt.zero_grad()
        score = model(tx).reshape(-1)
        loss = tl.nn.functional.relu(1 - ty * score).mean()
        loss.backward()
        opt.step()
        return loss

    def predict() -> np.ndarray:
        """Current scores."""
        with tl.no_grad():
            return model(tx).reshape(-1).numpy()

    return step, predict


def toy_torch(params: Params, x: np.ndarray, y: np.ndarray) -> Toy:
    """PyTorch CPU eager: nn.Sequential, F.relu, optim.SGD."""
    import torch

    model = _torch_model(params)
    opt = torch.optim.SGD(model.parameters(), lr=LR_TOY, momentum=MOMENTUM)
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)

    def step() -> Any:
        """One full-batch training step."""
        opt.zero_grad()
        score = model(tx).reshape(-1)
        loss = torch.nn.functional.relu(1 - ty * score).mean()
        loss.backward()
        opt.step()
        return loss

    def predict() -> np.ndarray:
        """Current scores."""
        with torch.no_grad():
            return model(tx).reshape(-1).numpy()

    return step, predict


def toy_mygrad(params: Params, x: np.ndarray, y: np.ndarray) -> Toy:
    """mygrad: tensors for the weights, SGD on ``.data``."""
    import mygrad as mg
    from mygrad.nnet.activations import relu

    ps = [mg.tensor(p.copy()) for p in params]
    bufs: list = [None] * len(ps)

    def scores() -> Any:
        """The forward pass."""
        w1, b1, w2, b2, w3, b3 = ps
        h = relu(mg.matmul(x, w1.T) + b1)
        h = relu(mg.matmul(h, w2.T) + b2)
        return (mg.matmul(h, w3.T) + b3).reshape(-1)

    def step() -> Any:
        """One full-batch training step."""
        loss = relu(1 - y * scores()).mean()
        loss.backward()
        _sgd_numpy([p.data for p in ps], [p.grad for p in ps], bufs, LR_TOY)
        return loss

    def predict() -> np.ndarray:
        """Current scores."""
        with mg.no_autodiff:
            return np.asarray(scores())

    return step, predict


def toy_autograd(params: Params, x: np.ndarray, y: np.ndarray) -> Toy:
    """HIPS autograd: value_and_grad of the hinge loss."""
    import autograd.numpy as anp
    from autograd import value_and_grad

    def scores(ps: Params) -> Any:
        """The forward pass."""
        w1, b1, w2, b2, w3, b3 = ps
        h = anp.maximum(anp.dot(x, w1.T) + b1, 0)
        h = anp.maximum(anp.dot(h, w2.T) + b2, 0)
        return (anp.dot(h, w3.T) + b3)[:, 0]

    vg = value_and_grad(lambda ps: anp.mean(anp.maximum(1 - y * scores(ps), 0)))
    ps = [p.copy() for p in params]
    bufs: list = [None] * len(ps)

    def step() -> Any:
        """One full-batch training step."""
        loss, grads = vg(ps)
        _sgd_numpy(ps, grads, bufs, LR_TOY)
        return loss

    return step, lambda: scores(ps)


def toy_micrograd(params: Params, x: np.ndarray, y: np.ndarray) -> Toy:
    """micrograd: its MLP of scalar Values, weights copied in; SGD with momentum on ``.data``."""
    from micrograd.engine import Value
    from micrograd.nn import MLP

    model = MLP(TOY_SIZES[0], list(TOY_SIZES[1:]))
    for layer, (w, b) in zip(model.layers, zip(params[::2], params[1::2])):
        for j, neuron in enumerate(layer.neurons):
            for k, wk in enumerate(neuron.w):
                wk.data = float(w[j, k])
            neuron.b.data = float(b[j])
    ps = model.parameters()
    bufs = [0.0] * len(ps)
    rows = [[Value(float(v)) for v in row] for row in x]
    first = [True]

    def step() -> Any:
        """One full-batch training step."""
        model.zero_grad()
        losses = [(1 + -float(yi) * model(xi)).relu() for xi, yi in zip(rows, y)]
        loss = sum(losses) * (1.0 / len(losses))
        loss.backward()
        for i, p in enumerate(ps):
            bufs[i] = p.grad if first[0] else MOMENTUM * bufs[i] + p.grad
            p.data -= LR_TOY * bufs[i]
        first[0] = False
        return loss

    def predict() -> np.ndarray:
        """Current scores."""
        return np.array([model(xi).data for xi in rows], np.float32)

    return step, predict


TOY_BUILDERS = {"numpy": toy_numpy, "tinygrad_lite": toy_tinygrad_lite,
                "tl_compiled": compiled.toy_tinygrad_lite_compiled, "torch": toy_torch,
                "jax": compiled.toy_jax, "mygrad": toy_mygrad, "autograd": toy_autograd,
                "micrograd": toy_micrograd}


def accuracy(scores: np.ndarray, y: np.ndarray) -> float:
    """The fraction of points whose score has the label's sign."""
    return float(np.mean((np.asarray(scores) > 0) == (y > 0)))
