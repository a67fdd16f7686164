"""tl.viz: the DOT text of small graphs (labels, edges, clusters, gradients, NaN) and rendering."""

import re
import shutil

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.viz as viz
from tinygrad_lite import nn


def labels(dot: str) -> dict[str, str]:
    """node id -> its label text (with real newlines)."""
    return {m[0]: m[1].replace("\\n", "\n")
            for m in re.findall(r'^\s*(\w+) \[label="((?:[^"\\]|\\.)*)"', dot, re.M)}


def edges(dot: str) -> set[tuple[str, str]]:
    return set(re.findall(r"^\s*(\w+) -> (\w+)$", dot, re.M))


def by_label(dot: str, start: str) -> str:
    (key,) = [k for k, v in labels(dot).items() if v.startswith(start)]
    return key


def test_small_graph_nodes_labels_and_edges():
    w = tl.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    x = tl.tensor([1.0, -1.0], requires_grad=True)
    y = (w * x).exp().sum()
    dot = viz.to_dot(y, params={"w": w})
    text = labels(dot)
    assert text[by_label(dot, "w\n")] == "w\n(2, 2) float32"
    assert text[by_label(dot, "input")] == "input\n(2,) float32"      # a non-parameter leaf
    exp = text[by_label(dot, "ExpBackward0")]
    assert exp.split("\n")[1] == "(2, 2) float32"                      # output shape, inferred
    assert "saved (2, 2) 16 B" in exp                                  # exp saves its output
    assert "() float32" in text[by_label(dot, "SumBackward0")]
    e = edges(dot)
    mv, ex, sm = by_label(dot, "MulBackward0"), by_label(dot, "ExpBackward0"), \
        by_label(dot, "SumBackward0")
    assert {(by_label(dot, "w\n"), mv), (by_label(dot, "input"), mv), (mv, ex), (ex, sm),
            (sm, by_label(dot, "output"))} == e
    assert 'shape="invhouse"' in dot and 'peripheries="2"' in dot     # inputs, outputs styled
    assert "gradient norm" not in dot                                 # no legend before backward


def test_gradient_annotations_and_nan_flag():
    w = tl.tensor([1.0, 2.0], requires_grad=True)
    b = tl.tensor([0.0, -1.0], requires_grad=True)
    with viz.record() as rec, np.errstate(all="ignore"):
        y = (w * 3 + b.sqrt()).sum()  # sqrt(-1) = nan: b.s gradient has a NaN
        y.backward()
    dot = viz.to_dot(y, params={"w": w, "b": b}, recording=rec)
    text = labels(dot)
    assert "grad norm 4.24, max 3" in text[by_label(dot, "w\n")]      # |(3, 3)| = 4.24
    assert "grad has NaN/Inf!" in text[by_label(dot, "b\n")]
    assert "grad norm 1, max 1" in text[by_label(dot, "SumBackward0")]
    line = next(s for s in dot.splitlines() if s.strip().startswith(by_label(dot, "b\n")))
    assert 'fillcolor="#e31a1c"' in line                              # flagged in red
    assert "gradient norm" in dot and "NaN/Inf" in dot                # the legend
    assert "grad" not in "".join(labels(viz.to_dot(y, show_grads=False, recording=rec))
                                 .values())


def test_hooks_retain_grad_and_named_tensors():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 2)
    h = x * x
    h.retain_grad()
    h.register_hook(lambda g: None)
    y = h.sum()
    y.backward()
    dot = viz.to_dot(y, tensors={"h": h})
    mul = labels(dot)[by_label(dot, "MulBackward0")]
    assert "= h" in mul and "hooks: 1, retain_grad" in mul
    assert "grad norm 1.41, max 1" in mul                              # h.grad, retained
    assert "hooks: 1" in labels(dot)[by_label(dot, "input")]
    assert "dashed" in next(s for s in dot.splitlines() if "MulBackward0" in s)


def test_module_clusters_and_folding():
    tl.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    with viz.record() as rec:
        loss = model(tl.randn(5, 3)).sum()
        loss.backward()
    dot = viz.to_dot(loss, params=model, collapse="modules", recording=rec)
    for label in ("Sequential", "0: Linear", "1: ReLU", "2: Linear"):
        assert f'label="{label}"' in dot
    assert dot.count("subgraph cluster_m") == 4
    block = dot[dot.index('label="0: Linear"'):]
    block = block[:block.index("}")]
    assert "0.weight" in block and "AddmmBackward0" in block          # params inside the layer
    folded = viz.to_dot(loss, params=model, collapse="modules", fold=True, recording=rec)
    text = labels(folded)
    assert any(v.startswith("0: Linear\n(5, 4) float32\n16 parameters\n1 op\ngrad norm")
               for v in text.values())
    assert not any(v.startswith("AddmmBackward0") for v in text.values())
    assert len(edges(folded)) == 4                                     # 3 layers, sum, output
    only = viz.to_dot(loss, params=model, collapse=[model[0]], fold=True, recording=rec)
    assert sum(v.startswith("0: Linear") for v in labels(only).values()) == 1
    assert any(v.startswith("AddmmBackward0") for v in labels(only).values())


def test_collapse_without_recording_says_how():
    y = (tl.ones(2, requires_grad=True) * 2).sum()
    with pytest.raises(ValueError, match=r"tl.viz.record\(\)"):
        viz.to_dot(y, collapse="modules", recording=viz.Recording())


def test_custom_function_named_by_class():
    class Cube(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x * x * g

    x = tl.ones(2, 3, requires_grad=True)
    dot = viz.to_dot(Cube.apply(x).mean())
    assert "CubeBackward\n(2, 3) float32\nsaved (2, 3) 24 B" in labels(dot).values()


def test_draw_renders_svg(tmp_path):
    pytest.importorskip("graphviz")
    y = (tl.ones(2, requires_grad=True) * 2).sum()
    graph = viz.draw(y)
    if shutil.which("dot") is None:
        with pytest.raises(RuntimeError, match="apt-get install graphviz"):
            graph.render(tmp_path / "g", format="svg")
        return
    path = graph.render(tmp_path / "g", format="svg")
    svg = open(path).read()
    assert svg.lstrip().startswith("<?xml") and "MulBackward0" in svg


def test_render_without_dot_fails_clearly(tmp_path, monkeypatch):
    pytest.importorskip("graphviz")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    graph = viz.draw((tl.ones(2, requires_grad=True) * 2).sum())
    with pytest.raises(RuntimeError, match="needs Graphviz's `dot` program.*to_dot"):
        graph.render(tmp_path / "g", format="svg")


def test_draw_without_graphviz_package_says_how(monkeypatch):
    import builtins

    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name == "graphviz":
            raise ImportError("no graphviz")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(ImportError, match=r"pip install 'tinygrad-lite\[viz\]'"):
        viz.draw((tl.ones(2, requires_grad=True) * 2).sum())


def test_drawing_does_not_change_the_graph():
    x = tl.tensor(np.array([0.5, 1.5]), requires_grad=True)
    y = (x.exp() * x).sum()
    viz.to_dot(y)  # the shape dry run must not free or alter anything
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.5, 1.5]) * np.array([1.5, 2.5]))


def _fill(dot: str, key: str) -> str:
    return re.search(rf'^\s*{key} \[.*fillcolor="([^"]*)"', dot, re.M)[1]


def test_legend_bands_come_from_robust_quantiles_and_differ():
    # many nodes with close norms plus one bias whose gradient cancels to ~1e-11: the tiny one
    # is drawn as "about 0" and the others spread over the scale instead of one dark band
    xs = [tl.tensor([1.0 + 0.02 * i], requires_grad=True) for i in range(10)]
    bias = tl.tensor([1.0], requires_grad=True)
    with viz.record() as rec:
        out = sum((x * (1.0 + 0.01 * i)).sum() for i, x in enumerate(xs))
        out = out + (bias * 1e-11).sum()
        out.backward()
    dot = viz.to_dot(out, params={f"x{i}": x for i, x in enumerate(xs)} | {"bias": bias},
                     recording=rec)
    legend = re.search(r"legend \[.*\]", dot)[0]
    bands = re.findall(r"<font[^>]*>([^<]*)</font>", legend)[:-1]  # the last one is NaN/Inf
    assert len(bands) == 5 and len(set(bands)) == 5, bands
    edges_text = [b.replace("&lt; ", "").replace("&gt;= ", "").split(" .. ") for b in bands]
    flat = [e for pair in edges_text for e in pair]
    assert all(a != b for a, b in (p for p in edges_text if len(p) == 2)), bands
    assert len(set(flat)) >= 4
    assert "about 0" in legend
    names = labels(dot)
    fills = {_fill(dot, k) for k, v in names.items() if v.startswith("x")}
    assert len(fills) >= 3                  # the close norms use several colours, not one
    bias_key = next(k for k, v in names.items() if v.startswith("bias"))
    assert _fill(dot, bias_key) == "white"  # the near-zero gradient is marked apart


def test_band_labels_have_enough_digits():
    from tinygrad_lite.viz.dot import band_labels

    text = band_labels(np.log10(1.10), np.log10(1.12), 5)
    edges_seen = [t for label in text for t in re.findall(r"\d[\d.]*", label)]
    assert len(set(edges_seen)) == 4, text  # 4 inner edges, each printed distinctly


def test_fold_without_collapse_folds_the_module_calls():
    tl.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    with viz.record() as rec:
        loss = model(tl.randn(5, 3)).sum()
        loss.backward()
    assert (viz.to_dot(loss, params=model, fold=True, recording=rec)
            == viz.to_dot(loss, params=model, collapse="modules", fold=True, recording=rec))
    with pytest.raises(ValueError, match="record"):
        viz.to_dot(loss, params=model, fold=True, recording=viz.Recording())


def test_recorded_forward_labels_ops_with_their_layer():
    tl.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    with viz.record() as rec:  # forward only
        loss = model(tl.randn(5, 3)).sum()
    text = labels(viz.to_dot(loss, params=model, recording=rec))
    layer_of = {v.split("\n")[0]: v.split("\n")[1] for v in text.values()
                if v.split("\n")[0].endswith("Backward0") and len(v.split("\n")) > 1}
    assert layer_of["ReluBackward0"] == "in 1"
    assert sum(v.startswith("AddmmBackward0\nin 0") for v in text.values()) == 1
    assert sum(v.startswith("AddmmBackward0\nin 2") for v in text.values()) == 1
