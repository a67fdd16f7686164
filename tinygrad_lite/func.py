"""``tl.func``: PyTorch 2's function transforms on top of the tape-based engine.

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``linearize``, ``jacrev``, ``jacfwd``,
``hessian``, ``vmap``, ``functional_call`` and ``replace_all_batch_norm_modules_``, with
``torch.func``'s signatures. Each transform runs the function once with fresh leaves and asks
the engine for gradients, so transforms nest (``grad(grad(f))``, ``jacrev(grad(f))``): inside
another transform the gradients are built with ``create_graph``.

Differences from PyTorch, by design of a tape-based engine (documented in the README):
``jacfwd`` computes the same Jacobian as ``jacrev`` (reverse mode, one backward per output
element), ``jvp`` uses the double-vjp trick (two backward passes), and ``vmap`` runs the function
once per sample and stacks the results: correct for any function, but without vectorising it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from . import functions
from ._core.backward import grad as _engine_grad
from ._core.backward_scope import keep_graphs
from ._core.grad_mode import enable_grad
from ._core.tensor_base import TensorBase
from .functions.generator import default_generator, vmap_randomness
from .nn.modules.batchnorm import _BatchNorm
from .nn.utils import stateless

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian",
           "vmap", "functional_call", "stack_module_state", "replace_all_batch_norm_modules_"]

_depth = [0]  # how many transforms are running: inside one, gradients must stay differentiable


@contextmanager
def _transform() -> Iterator[bool]:
    """Enter a transform; says whether an outer transform will differentiate our results."""
    nested = _depth[0] > 0
    _depth[0] += 1
    try:
        with enable_grad():
            yield nested
    finally:
        _depth[0] -= 1


def _leaf(x: Any) -> Any:
    """A differentiable stand-in for an argument: the tensor itself when an outer transform
    already tracks it (so its gradients reach the outer level), else a fresh leaf."""
    if isinstance(x, TensorBase):
        return x if x.requires_grad else x.detach().requires_grad_(True)
    if isinstance(x, (tuple, list)):
        return type(x)(_leaf(v) for v in x)
    if isinstance(x, dict):
        return {k: _leaf(v) for k, v in x.items()}
    raise TypeError(f"expected tensors (or tuples, lists, dicts of tensors) as the arguments to "
                    f"differentiate, got {type(x).__name__}")


def _flat(x: Any) -> list:
    """The tensors of a nested structure, in order."""
    if isinstance(x, TensorBase):
        return [x]
    if isinstance(x, (tuple, list)):
        return [t for v in x for t in _flat(v)]
    if isinstance(x, dict):
        return [t for v in x.values() for t in _flat(v)]
    return []


def _rebuild(like: Any, values: Iterator) -> Any:
    """``like``'s structure filled with ``values`` in order."""
    if isinstance(like, TensorBase):
        return next(values)
    if isinstance(like, (tuple, list)):
        return type(like)(_rebuild(v, values) for v in like)
    if isinstance(like, dict):
        return {k: _rebuild(v, values) for k, v in like.items()}
    return like


def _finish(x: Any, nested: bool) -> Any:
    """Results leave the outermost transform detached, as ``torch.func`` returns them."""
    if nested:
        return x
    return _rebuild(x, iter([t.detach() for t in _flat(x)]))


def _gradients(outputs: list, inputs: list, cotangents: list | None, nested: bool) -> list:
    """d(outputs . cotangents)/d(inputs); zeros for inputs the outputs do not depend on."""
    found = _engine_grad(outputs, inputs, grad_outputs=cotangents, create_graph=nested,
                         allow_unused=True, retain_graph=True)
    return [functions.zeros_like(x) if g is None else g for g, x in zip(found, inputs)]


def _argnums_tuple(argnums: Any, count: int, name: str) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for n in nums:
        if not -count <= n < count:
            raise RuntimeError(f"{name}: got argnums={argnums}, but only {count} positional "
                               f"inputs")
    return tuple(n % count for n in nums)


def grad_and_value(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """A function returning ``(gradient of func's scalar output w.r.t. argnums, output)``; with
    ``has_aux`` func returns ``(output, aux)`` and the value is that pair."""

    def wrapper(*args: Any, **kwargs: Any) -> tuple:
        with _transform() as nested:
            nums = _argnums_tuple(argnums, len(args), "grad_and_value")
            args = tuple(_leaf(a) if i in nums else a for i, a in enumerate(args))
            result = func(*args, **kwargs)
            if has_aux:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should be "
                                       "a tuple: (output, aux) if has_aux is True")
                output, aux = result
            else:
                output, aux = result, None
            if not isinstance(output, TensorBase) or output.numel() != 1:
                got = f"shape {tuple(output.shape)}" if isinstance(output, TensorBase) \
                    else type(output).__name__
                raise RuntimeError(f"grad_and_value(f)(*args): expected f(*args) to return a "
                                   f"scalar Tensor, got {got}")
            chosen = [args[i] for i in nums]
            flat_inputs = _flat(chosen)
            grads = iter(_gradients([output], flat_inputs, None, nested))
            rebuilt = [_rebuild(c, grads) for c in chosen]
            gradient = rebuilt[0] if isinstance(argnums, int) else tuple(rebuilt)
            value = (output, aux) if has_aux else output
            return _finish(gradient, nested), _finish(value, nested)

    return wrapper


def grad(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """A function returning the gradient of ``func``'s scalar output w.r.t. the arguments at
    ``argnums`` (and ``aux`` too with ``has_aux``)."""
    inner = grad_and_value(func, argnums, has_aux)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        gradient, value = inner(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient

    return wrapper


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """``(func(*primals), vjp_fn)``, where ``vjp_fn(cotangents)`` returns one gradient per
    primal (``(output, vjp_fn, aux)`` with ``has_aux``)."""
    with _transform() as nested:
        leaves = tuple(_leaf(p) for p in primals)
        result = func(*leaves)
        output, aux = result if has_aux else (result, None)
    flat_out = _flat(output)

    def vjp_fn(cotangents: Any) -> tuple:
        with _transform() as inner_nested:
            flat_cot = _flat(cotangents)
            if len(flat_cot) != len(flat_out):
                raise RuntimeError(f"vjp_fn: expected {len(flat_out)} cotangents (one per "
                                   f"output), got {len(flat_cot)}")
            for c, o in zip(flat_cot, flat_out):
                if tuple(c.shape) != tuple(o.shape):
                    raise RuntimeError(f"vjp_fn: cotangent of shape {tuple(c.shape)} does not "
                                       f"match the output's shape {tuple(o.shape)}")
            grads = iter(_gradients(flat_out, _flat(leaves), flat_cot, nested or inner_nested))
            return _finish(tuple(_rebuild(p, grads) for p in leaves), nested or inner_nested)

    out = _finish(output, nested)
    return (out, vjp_fn, _finish(aux, nested)) if has_aux else (out, vjp_fn)


def jvp(func: Callable, primals: Any, tangents: Any, has_aux: bool = False) -> tuple:
    """``(func(*primals), J @ tangents)``, computed with two backward passes (the double-vjp
    trick: the vjp is linear in its cotangent, so differentiating it gives J v)."""
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise RuntimeError(f"jvp: expected primals and tangents of the same length, got "
                           f"{len(primals)} and {len(tangents)}")
    with _transform() as nested:
        leaves = tuple(_leaf(p) for p in primals)
        result = func(*leaves)
        output, aux = result if has_aux else (result, None)
        flat_out, flat_in = _flat(output), _flat(leaves)
        dummies = [functions.zeros_like(o).requires_grad_(True) for o in flat_out]
        pulled = _gradients(flat_out, flat_in, dummies, True)
        found = _engine_grad(pulled, dummies, grad_outputs=_flat(tangents),
                             create_graph=nested, allow_unused=True)
        pushed = [functions.zeros_like(o) if g is None else g for g, o in zip(found, flat_out)]
        tangent_out = _rebuild(output, iter(pushed))
        out = (_finish(output, nested), _finish(tangent_out, nested))
        return (*out, _finish(aux, nested)) if has_aux else out


def linearize(func: Callable, *primals: Any) -> tuple:
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` gives ``J @ tangents`` at
    ``primals``. ``func`` runs once; its vjp graph is kept, and each ``jvp_fn`` call is one
    backward pass through it (the double-vjp trick of ``jvp``)."""
    with _transform() as nested:
        leaves = tuple(_leaf(p) for p in primals)
        output = func(*leaves)
        flat_out, flat_in = _flat(output), _flat(leaves)
        dummies = [functions.zeros_like(o).requires_grad_(True) for o in flat_out]
        pulled = _gradients(flat_out, flat_in, dummies, True)
    output = _finish(output, nested)

    def jvp_fn(*tangents: Any) -> Any:
        flat_tangents = _flat(tangents)
        if len(flat_tangents) != len(flat_in):
            raise RuntimeError(f"linearize: expected {len(flat_in)} tangents (one per primal), "
                               f"got {len(flat_tangents)}")
        for t, p in zip(flat_tangents, flat_in):
            if t.shape != p.shape:
                raise RuntimeError(f"linearize: a tangent's shape {tuple(t.shape)} does not "
                                   f"match its primal's {tuple(p.shape)}")
        with _transform() as inner:
            found = _engine_grad(pulled, dummies, grad_outputs=flat_tangents,
                                 create_graph=inner, retain_graph=True, allow_unused=True)
            pushed = [functions.zeros_like(o) if g is None else g
                      for g, o in zip(found, flat_out)]
            return _finish(_rebuild(output, iter(pushed)), inner)

    return output, jvp_fn


def jacrev(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """A function returning the Jacobian of ``func`` w.r.t. the arguments at ``argnums``
    (shape output.shape + input.shape), one backward pass per output element."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _transform() as nested:
            nums = _argnums_tuple(argnums, len(args), "jacrev")
            args = tuple(_leaf(a) if i in nums else a for i, a in enumerate(args))
            result = func(*args, **kwargs)
            output, aux = result if has_aux else (result, None)
            inputs = [args[i] for i in nums]
            flat_in = _flat(inputs)
            per_output = []
            for out in _flat(output):
                rows = []
                flat = out.reshape(-1)
                for k in range(flat.numel()):
                    rows.append(_gradients([flat[k]], flat_in, None, True))
                jac = []
                for j, x in enumerate(flat_in):
                    stacked = functions.stack([r[j] for r in rows]) if rows else \
                        functions.zeros(0, *x.shape, dtype=x.dtype)
                    jac.append(stacked.reshape(*out.shape, *x.shape))
                per_output.append(jac)
            # structure: per output (like ``output``), per argnum (like ``argnums``)
            nested_jac = []
            for jac in per_output:
                values = iter(jac)
                per_arg = [_rebuild(x, values) for x in inputs]
                nested_jac.append(per_arg[0] if isinstance(argnums, int) else tuple(per_arg))
            jacobian = _rebuild(output, iter(nested_jac)) if not isinstance(output, TensorBase) \
                else nested_jac[0]
            jacobian = _finish(jacobian, nested)
            return (jacobian, _finish(aux, nested)) if has_aux else jacobian

    return wrapper


def jacfwd(func: Callable, argnums: Any = 0, has_aux: bool = False,
           randomness: str = "error") -> Callable:
    """The Jacobian, as ``jacrev`` computes it (this engine has no forward mode; the values
    are the same, only the cost differs: one backward pass per output element)."""
    return jacrev(func, argnums, has_aux)


def hessian(func: Callable, argnums: Any = 0) -> Callable:
    """A function returning the Hessian of ``func``'s scalar output w.r.t. ``argnums``."""
    return jacfwd(jacrev(func, argnums), argnums)


def _dims_for(in_dims: Any, args: tuple) -> list:
    """One in_dim (int or None, or a nested structure) per positional argument."""
    if isinstance(in_dims, (int, type(None))):
        return [in_dims] * len(args)
    in_dims = list(in_dims)
    if len(in_dims) != len(args):
        raise ValueError(f"vmap: in_dims has {len(in_dims)} entries but the function was "
                         f"called with {len(args)} positional arguments")
    return in_dims


def _batch_size(arg: Any, dim: Any, sizes: list) -> None:
    if dim is None:
        return
    if isinstance(arg, TensorBase):
        if not isinstance(dim, int):
            raise ValueError(f"vmap: in_dim for a tensor must be an int or None, got {dim!r}")
        if not -arg.ndim <= dim < max(arg.ndim, 1) or arg.ndim == 0:
            raise ValueError(f"vmap: in_dim={dim} is out of range for a tensor of shape "
                             f"{tuple(arg.shape)}")
        sizes.append(arg.shape[dim])
    elif isinstance(arg, (tuple, list)):
        dims = dim if isinstance(dim, (tuple, list)) else [dim] * len(arg)
        for a, d in zip(arg, dims):
            _batch_size(a, d, sizes)
    elif isinstance(arg, dict):
        for k, a in arg.items():
            _batch_size(a, dim[k] if isinstance(dim, dict) else dim, sizes)


def _select(arg: Any, dim: Any, index: int) -> Any:
    """Sample ``index`` of ``arg`` along ``dim`` (``arg`` itself where dim is None)."""
    if dim is None:
        return arg
    if isinstance(arg, TensorBase):
        return arg.select(dim, index)
    if isinstance(arg, (tuple, list)):
        dims = dim if isinstance(dim, (tuple, list)) else [dim] * len(arg)
        return type(arg)(_select(a, d, index) for a, d in zip(arg, dims))
    if isinstance(arg, dict):
        return {k: _select(a, dim[k] if isinstance(dim, dict) else dim, index)
                for k, a in arg.items()}
    return arg


def _stack_outputs(samples: list, out_dims: Any, name: str) -> Any:
    first = samples[0]
    if isinstance(first, (tuple, list)):
        dims = out_dims if isinstance(out_dims, (tuple, list)) else [out_dims] * len(first)
        return type(first)(_stack_outputs([s[i] for s in samples], d, name)
                           for i, d in enumerate(dims))
    if isinstance(first, dict):
        return {k: _stack_outputs([s[k] for s in samples], out_dims, name) for k in first}
    if out_dims is None:  # not batched: every sample gave the same value
        return first
    if isinstance(first, TensorBase):
        return functions.stack(samples, out_dims)
    raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                     f"{type(first)}. Did you mean to set out_dims= to None for output?")


_RANDOMNESS = ("error", "different", "same")


def vmap(func: Callable, in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error",
         *, chunk_size: int | None = None) -> Callable:
    """``func`` mapped over a batch dimension of its inputs (``in_dims``; None: not batched),
    results stacked along ``out_dims``. Runs ``func`` once per sample (see the module
    docstring); gradients flow through as through any stack. ``randomness``: "error" (random
    operations inside raise), "different" (each sample draws its own numbers) or "same" (every
    sample draws the same numbers: the default generator restarts from one state for each)."""
    if randomness not in _RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    name = getattr(func, "__name__", repr(func))

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        dims = _dims_for(in_dims, args)
        sizes: list[int] = []
        for arg, dim in zip(args, dims):
            _batch_size(arg, dim, sizes)
        if not sizes:
            raise ValueError("vmap: at least one input must be batched (in_dims all None)")
        if len(set(sizes)) != 1:
            raise ValueError(f"vmap: expected all batched inputs to have the same size along "
                             f"their mapped dimension, got sizes {sizes}")
        start = default_generator.get_state() if randomness == "same" else None
        outer_randomness = vmap_randomness[0]
        keep_graphs[0] += 1  # a backward inside func runs per sample (see backward_scope)
        vmap_randomness[0] = randomness
        samples = []
        try:
            for i in range(sizes[0]):
                if start is not None:
                    default_generator.set_state(start)
                samples.append(func(*(_select(a, d, i) for a, d in zip(args, dims)), **kwargs))
        finally:
            keep_graphs[0] -= 1
            vmap_randomness[0] = outer_randomness
        return _stack_outputs(samples, out_dims, name)

    return wrapper


def functional_call(module: Any, parameter_and_buffer_dicts: Any, args: Any = None,
                    kwargs: dict | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """Call ``module`` with some of its parameters and buffers replaced by the given tensors
    (a dict, or a sequence of dicts, by dotted name), restoring the originals afterwards:
    ``nn.utils.stateless.functional_call``, as PyTorch's ``torch.func`` calls it."""
    return stateless.functional_call(module, parameter_and_buffer_dicts, args, kwargs,
                                     tie_weights=tie_weights, strict=strict)


def stack_module_state(models: Any) -> tuple[dict, dict]:
    """The parameters and buffers of same-shaped ``models``, each stacked along a new leading
    dimension (for ``vmap`` over ``functional_call`` ensembles): new leaves, the parameters
    requiring grad where the originals do."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({bool(m.training) for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    first = models[0]
    if any(type(m) is not type(first) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(named: list[dict], name: str, grad: bool) -> Any:
        values = [entry[name] for entry in named]
        out = functions.stack([v.detach() for v in values], 0)
        return out.requires_grad_(grad and any(v.requires_grad for v in values))

    params = [dict(m.named_parameters()) for m in models]
    buffers = [dict(m.named_buffers()) for m in models]
    return ({n: stacked(params, n, True) for n in params[0]},
            {n: stacked(buffers, n, False) for n in buffers[0]})


def replace_all_batch_norm_modules_(root: Any) -> Any:
    """In place: every batch norm in ``root`` (``root`` included) stops tracking running
    statistics (its running buffers become None), so that it normalises with the batch's own
    statistics under ``vmap`` and in ensembles, as PyTorch's helper does. Returns ``root``."""
    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
