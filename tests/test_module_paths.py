"""PyTorch's module paths that programs import from (``from torch.distributions.normal import
Normal``, ``from torch.nn.modules.utils import _pair``), and what those modules hold: the
constraints a custom distribution is written with, the distribution and hook helpers."""

import importlib
import warnings
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.distributions import constraints

# path under the package -> names PyTorch's module of that path defines (and programs use)
PATHS = {
    "distributions.normal": ["Normal"], "distributions.categorical": ["Categorical"],
    "distributions.bernoulli": ["Bernoulli"], "distributions.uniform": ["Uniform"],
    "distributions.beta": ["Beta"], "distributions.gamma": ["Gamma"],
    "distributions.multivariate_normal": ["MultivariateNormal"],
    "distributions.one_hot_categorical": ["OneHotCategorical",
                                          "OneHotCategoricalStraightThrough"],
    "distributions.relaxed_bernoulli": ["RelaxedBernoulli", "LogitRelaxedBernoulli"],
    "distributions.relaxed_categorical": ["RelaxedOneHotCategorical", "ExpRelaxedCategorical"],
    "distributions.transformed_distribution": ["TransformedDistribution"],
    "distributions.studentT": ["StudentT"], "distributions.von_mises": ["VonMises"],
    "distributions.log_normal": ["LogNormal"], "distributions.dirichlet": ["Dirichlet"],
    "distributions.poisson": ["Poisson"], "distributions.laplace": ["Laplace"],
    "distributions.exponential": ["Exponential"], "distributions.binomial": ["Binomial"],
    "distributions.mixture_same_family": ["MixtureSameFamily"],
    "distributions.constraints": ["Constraint", "positive", "real", "interval", "simplex",
                                  "dependent_property", "is_dependent", "independent"],
    "distributions.utils": ["broadcast_all", "logits_to_probs", "probs_to_logits",
                            "clamp_probs", "lazy_property"],
    "distributions.kl": ["kl_divergence", "register_kl"],
    "distributions.cauchy": ["Cauchy"], "distributions.chi2": ["Chi2"],
    "distributions.continuous_bernoulli": ["ContinuousBernoulli"],
    "distributions.fishersnedecor": ["FisherSnedecor"],
    "distributions.generalized_pareto": ["GeneralizedPareto"],
    "distributions.geometric": ["Geometric"], "distributions.gumbel": ["Gumbel"],
    "distributions.half_cauchy": ["HalfCauchy"], "distributions.half_normal": ["HalfNormal"],
    "distributions.independent": ["Independent"],
    "distributions.inverse_gamma": ["InverseGamma"],
    "distributions.kumaraswamy": ["Kumaraswamy"], "distributions.lkj_cholesky": ["LKJCholesky"],
    "distributions.logistic_normal": ["LogisticNormal"],
    "distributions.lowrank_multivariate_normal": ["LowRankMultivariateNormal"],
    "distributions.multinomial": ["Multinomial"],
    "distributions.negative_binomial": ["NegativeBinomial"],
    "distributions.pareto": ["Pareto"], "distributions.weibull": ["Weibull"],
    "distributions.wishart": ["Wishart"], "distributions.distribution": ["Distribution"],
    "distributions.exp_family": ["ExponentialFamily"],
    "distributions.constraint_registry": ["biject_to", "transform_to", "ConstraintRegistry"],
    "distributions.transforms": ["Transform", "ComposeTransform", "ExpTransform",
                                 "PowerTransform", "SigmoidTransform", "TanhTransform",
                                 "SoftplusTransform", "AbsTransform", "AffineTransform",
                                 "SoftmaxTransform", "StickBreakingTransform",
                                 "LowerCholeskyTransform", "ReshapeTransform",
                                 "IndependentTransform", "CumulativeDistributionTransform",
                                 "identity_transform", "CatTransform", "StackTransform",
                                 "CorrCholeskyTransform", "PositiveDefiniteTransform"],
    "optim.adamw": ["AdamW"], "optim.adamax": ["Adamax"], "optim.nadam": ["NAdam"],
    "optim.radam": ["RAdam"], "optim.rprop": ["Rprop"], "optim.adadelta": ["Adadelta"],
    "optim.asgd": ["ASGD"],
    "nn.modules.upsampling": ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"],
    "nn.modules.pixelshuffle": ["PixelShuffle", "PixelUnshuffle"],
    "nn.modules.fold": ["Fold", "Unfold"], "nn.modules.channelshuffle": ["ChannelShuffle"],
    "nn.modules.utils": ["_single", "_pair", "_triple", "_quadruple", "_ntuple",
                         "_reverse_repeat_tuple", "consume_prefix_in_state_dict_if_present"],
    "nn.common_types": ["_size_1_t", "_size_2_t", "_size_any_t", "_ratio_2_t"],
    "utils.hooks": ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"],
    "nn.utils.prune": ["l1_unstructured", "ln_structured", "global_unstructured", "remove",
                       "is_pruned", "L1Unstructured", "BasePruningMethod"],
    "autograd.profiler": ["profile", "record_function"],
    "profiler": ["profile", "record_function", "schedule", "ProfilerActivity",
                 "tensorboard_trace_handler"],
    "backends.cudnn": ["benchmark", "deterministic", "enabled", "allow_tf32", "is_available",
                       "version", "flags"],
    "backends.cuda": ["matmul", "is_built", "flash_sdp_enabled", "enable_flash_sdp",
                      "math_sdp_enabled", "enable_math_sdp", "sdp_kernel"],
    "backends.mps": ["is_available", "is_built"], "backends.cpu": ["get_cpu_capability"],
    "backends.mkldnn": ["enabled", "is_available", "flags"], "backends.mkl": ["is_available"],
    "backends.openmp": ["is_available"], "backends.opt_einsum": ["enabled", "is_available"],
    "cpu.amp": ["autocast", "GradScaler"],
    "onnx": ["export", "is_in_onnx_export", "OnnxExporterError", "TrainingMode",
             "select_model_mode_for_export"],
    "nn.attention": ["SDPBackend", "sdpa_kernel"],
    "nn.attention.bias": ["CausalBias", "CausalVariant", "causal_upper_left",
                          "causal_lower_right"],
    "nn.grad": ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight",
                "conv3d_input", "conv3d_weight"],
    "functional": ["einsum", "meshgrid", "split", "norm", "unique", "tensordot",
                   "broadcast_tensors", "cdist"],
    "autograd.forward_ad": ["dual_level", "make_dual", "unpack_dual", "enter_dual_level",
                            "exit_dual_level", "UnpackedDualTensor"],
    "utils.benchmark": ["Timer", "Measurement", "Compare", "TaskSpec"],
    "utils._pytree": ["tree_map", "tree_flatten", "tree_unflatten", "tree_leaves", "TreeSpec",
                      "register_pytree_node"],
    "serialization": ["save", "load", "add_safe_globals", "safe_globals", "get_safe_globals",
                      "clear_safe_globals", "get_unsafe_globals_in_checkpoint"],
}


@pytest.mark.parametrize("path", sorted(PATHS))
def test_pytorch_paths_import_with_their_names(path):
    module = importlib.import_module(f"tinygrad_lite.{path}")
    for name in PATHS[path]:
        assert hasattr(module, name), f"{path}.{name}"
    exec(f"from tinygrad_lite.{path} import {', '.join(PATHS[path])}", {})  # noqa: S102
    parent, leaf = f"tinygrad_lite.{path}".rsplit(".", 1)
    assert getattr(importlib.import_module(parent), leaf) is module


@pytest.mark.parametrize("path", sorted(p for p in PATHS
                                         if p.startswith(("distributions.", "optim."))))
def test_distribution_and_optimizer_paths_are_files(path):
    """A reader can open the file behind each of these paths (no module made up at import)."""
    module = importlib.import_module(f"tinygrad_lite.{path}")
    relative = Path(module.__file__).relative_to(Path(tl.__file__).parent)
    assert relative.with_suffix("").parts in (tuple(path.split(".")),
                                              (*path.split("."), "__init__"))


def test_the_paths_hold_the_package_objects():
    from tinygrad_lite.distributions.normal import Normal
    from tinygrad_lite.nn.modules.upsampling import Upsample
    from tinygrad_lite.optim.adamw import AdamW
    assert Normal is tl.distributions.Normal and AdamW is tl.optim.AdamW
    assert Upsample is tl.nn.Upsample


@pytest.mark.parametrize("path", sorted(PATHS))
def test_pytorch_has_the_same_paths(path):
    torch = pytest.importorskip("torch")
    module = importlib.import_module(f"torch.{path}")
    for name in PATHS[path]:
        assert hasattr(module, name), f"torch.{path}.{name}"
    del torch


def test_argument_helpers_of_nn_modules_utils():
    from tinygrad_lite.nn.modules.utils import _ntuple, _pair, _reverse_repeat_tuple, _triple
    assert _pair(3) == (3, 3) and _pair((1, 2)) == (1, 2) and _triple(0.5) == (0.5,) * 3
    assert _ntuple(4)([1, 2, 3, 4]) == (1, 2, 3, 4)
    assert _reverse_repeat_tuple((1, 2), 2) == (2, 2, 1, 1)


def test_consume_prefix_strips_a_wrapped_models_prefix_in_place():
    from tinygrad_lite.nn.modules.utils import consume_prefix_in_state_dict_if_present
    model = tl.nn.Linear(3, 2)
    state = OrderedDict((f"module.{k}", v) for k, v in model.state_dict().items())
    state["other"] = tl.zeros(1)
    state._metadata = OrderedDict([("", {}), ("module", {"version": 1}),
                                   ("module.sub", {"version": 2})])
    consume_prefix_in_state_dict_if_present(state, "module.")
    assert list(state) == ["other", "weight", "bias"]
    assert dict(state._metadata) == {"": {"version": 1}, "sub": {"version": 2}}
    tl.nn.Linear(3, 2).load_state_dict({k: v for k, v in state.items() if k != "other"})


class _Between(constraints.Constraint):
    """A user-defined constraint, written as for PyTorch."""

    def __init__(self, low, high):
        self.low, self.high = low, high

    def check(self, value):
        return (value > self.low) & (value < self.high)


class _Box(tl.distributions.Distribution):
    """A custom distribution whose support depends on its parameters."""

    arg_constraints = {"low": constraints.dependent(is_discrete=False, event_dim=0),
                       "width": constraints.positive}
    has_rsample = True

    def __init__(self, low, width, validate_args=None):
        self.low, self.width = tl.distributions.utils.broadcast_all(low, width)
        super().__init__(self.low.shape, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return _Between(self.low, self.low + self.width)

    def log_prob(self, value):
        self._validate_sample(value)
        return -self.width.log().expand(value.shape)


def test_a_custom_distribution_with_a_user_constraint_and_a_dependent_support():
    box = _Box(tl.tensor([0.0, 1.0]), tl.tensor([1.0, 2.0]))
    assert constraints.is_dependent(_Box.support) and not constraints.is_dependent(
        constraints.positive)
    assert _Box.support.event_dim == 0 and _Box.support.is_discrete is False
    assert isinstance(box.support, _Between)
    np.testing.assert_allclose(box.log_prob(tl.tensor([0.5, 2.0])).numpy(),
                               [0.0, -np.log(2.0)], rtol=1e-6)
    with pytest.raises(ValueError, match="support"):
        box.log_prob(tl.tensor([1.5, 2.0]))
    with pytest.raises(ValueError, match="width"):
        _Box(tl.tensor([0.0]), tl.tensor([-1.0]))
    with pytest.raises(ValueError, match="dependent"):
        constraints.dependent.check(tl.tensor([1.0]))
    with pytest.raises(NotImplementedError):
        _ = constraints.dependent.event_dim
    assert repr(constraints.dependent) == "Dependent()" and repr(_Between(0, 1)) == "Between()"


def test_biject_to_registers_a_user_constraint_class():
    from tinygrad_lite.distributions import biject_to, transforms

    @biject_to.register(_Between)
    def _to_between(c):
        return transforms.ComposeTransform([transforms.SigmoidTransform(),
                                            transforms.AffineTransform(c.low, c.high - c.low)])

    y = biject_to(_Between(1.0, 3.0))(tl.tensor([-5.0, 0.0, 5.0]))
    np.testing.assert_allclose(y.numpy(), 1 + 2 / (1 + np.exp(-np.array([-5.0, 0.0, 5.0]))),
                               rtol=1e-6)


def test_check_returns_a_bool_tensor_per_batch_element():
    ok = constraints.simplex.check(tl.tensor([[0.2, 0.8], [0.5, 0.6]]))
    assert isinstance(ok, tl.Tensor) and ok.dtype == tl.bool
    assert ok.tolist() == [True, False]


CASES = [
    ("square", (), [np.zeros((2, 3, 3)), np.zeros((2, 3))]),
    ("symmetric", (), [np.array([[[1.0, 2.0], [2.0, 1.0]], [[1.0, 2.0], [0.0, 1.0]]])]),
    ("positive_definite", (), [np.array([[[2.0, 1.0], [1.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]]])]),
    ("one_hot", (), [np.array([[0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]])]),
    ("multinomial", (3,), [np.array([[1.0, 2.0], [2.0, 2.0], [-1.0, 1.0]])]),
    ("half_open_interval", (0.0, 1.0), [np.array([0.0, 0.5, 1.0])]),
    ("greater_than_eq", (1.0,), [np.array([0.0, 1.0, 2.0])]),
    ("integer_interval", (0, 2), [np.array([0.0, 1.5, 2.0, 3.0])]),
]


@pytest.mark.parametrize("name, args, values", CASES, ids=[c[0] for c in CASES])
def test_constraints_agree_with_pytorch(name, args, values):
    torch = pytest.importorskip("torch")
    ours = getattr(constraints, name)
    theirs = getattr(torch.distributions.constraints, name)
    if args:
        ours, theirs = ours(*args), theirs(*args)
    assert ours.event_dim == theirs.event_dim and ours.is_discrete == theirs.is_discrete
    for v in values:
        np.testing.assert_array_equal(ours.check(tl.tensor(v)).numpy(),
                                      theirs.check(torch.tensor(v)).numpy())


def test_mixture_same_family_constraint_agrees_with_pytorch():
    torch = pytest.importorskip("torch")
    v = np.array([[0.5, -1.0], [2.0, 3.0]])
    ours = constraints.MixtureSameFamilyConstraint(constraints.positive)
    theirs = torch.distributions.constraints.MixtureSameFamilyConstraint(
        torch.distributions.constraints.positive)
    np.testing.assert_array_equal(ours.check(tl.tensor(v)).numpy(),
                                  theirs.check(torch.tensor(v)).numpy())


def test_probability_and_logit_helpers_agree_with_pytorch():
    torch = pytest.importorskip("torch")
    import torch.distributions.utils as tu

    from tinygrad_lite.distributions.utils import logits_to_probs, probs_to_logits
    logits = np.array([[0.3, -1.2, 2.0], [0.0, 0.0, 1.0]])
    probs = np.array([[0.2, 0.3, 0.5], [0.0, 1.0, 0.0]])
    for binary in (False, True):
        np.testing.assert_allclose(logits_to_probs(tl.tensor(logits), binary).numpy(),
                                   tu.logits_to_probs(torch.tensor(logits), binary).numpy(),
                                   rtol=1e-12)
        np.testing.assert_allclose(probs_to_logits(tl.tensor(probs), binary).numpy(),
                                   tu.probs_to_logits(torch.tensor(probs), binary).numpy(),
                                   rtol=1e-12)


def test_lazy_property_computes_once_and_can_be_preset():
    from tinygrad_lite.distributions.utils import lazy_property
    calls = []

    class Holder:
        @lazy_property
        def value(self):
            calls.append(1)
            return 42

    h = Holder()
    assert h.value == 42 and h.value == 42 and len(calls) == 1
    preset = Holder()
    preset.__dict__["value"] = 7
    assert preset.value == 7 and len(calls) == 1


def test_removable_handle_with_extra_dicts_and_hook_marks():
    from tinygrad_lite.utils.hooks import (
        RemovableHandle,
        unserializable_hook,
        warn_if_has_hooks,
    )
    hooks, options = OrderedDict(), OrderedDict()
    handle = RemovableHandle(hooks, extra_dict=options)
    hooks[handle.id], options[handle.id] = print, {"always": True}
    handle.remove()
    assert not hooks and not options
    t = tl.ones(2, requires_grad=True)
    t.register_hook(unserializable_hook(lambda g: g))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_has_hooks(t)  # marked: silent
    t.register_hook(lambda g: g)
    with pytest.warns(UserWarning, match="will not be serialized"):
        warn_if_has_hooks(t)
