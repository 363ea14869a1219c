"""fad.viz: pictures of jaxprs, of functions with their gradient programs, and of tensors.

The rendering tests run Graphviz's ``dot`` for real and read the SVG it writes
(node titles are our node ids, the ``<text>`` lines are the labels); they skip,
with the reason shown by ``pytest -ra``, where ``dot`` is not installed. Building
a graph does not need ``dot``, so the structural tests always run.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from contextlib import contextmanager

import numpy as np
import pytest

import fad
import fad.numpy as fnp
import fad.viz
from fad.viz import DotNotFoundError, Graph, dot_available, draw

requires_dot = pytest.mark.skipif(
    not dot_available(),
    reason="Graphviz's dot program is not installed (apt-get install graphviz): "
           "SVG rendering not tested")

SVG = "{http://www.w3.org/2000/svg}"


# ---------------------------------------------------------------- helpers
def svg_of(graph: Graph) -> ET.Element:
    """Render with dot and parse the SVG."""
    data = graph.pipe(format="svg")
    assert data.lstrip().startswith(b"<?xml")
    return ET.fromstring(data)


def svg_nodes(root: ET.Element) -> dict[str, list[str]]:
    """Node id (its <title>) -> the lines of its label, from the rendered SVG."""
    out = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "node":
            title = g.find(f"{SVG}title").text
            out[title] = [t.text or "" for t in g.iter(f"{SVG}text")]
    return out


def svg_edges(root: ET.Element) -> list[tuple[str, str]]:
    edges = []
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "edge":
            tail, head = g.find(f"{SVG}title").text.split("->")
            edges.append((tail, head))
    return edges


def svg_cluster_xrange(root: ET.Element) -> dict[str, tuple[float, float]]:
    """Cluster name -> horizontal extent of its frame."""
    out = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "cluster":
            name = g.find(f"{SVG}title").text
            shape = g.find(f"{SVG}path")
            if shape is None:
                shape = g.find(f"{SVG}polygon")
            coords = shape.get("d") or shape.get("points")
            xs = [float(x) for x, _ in re.findall(r"(-?[\d.]+),(-?[\d.]+)", coords)]
            out[name] = (min(xs), max(xs))
    return out


def first_lines(nodes: dict[str, list[str]], prefix: str = "") -> Counter:
    """How many nodes (whose id starts with prefix) have each first label line."""
    return Counter(lines[0] for nid, lines in nodes.items()
                   if nid.startswith(prefix) and lines)


def prim_names(closed) -> Counter:
    return Counter(e.primitive.name for e in closed.eqns)


@contextmanager
def shallow_stack(extra: int = 150):
    """Lower the recursion limit to just above the current depth: a recursive walk fails."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + extra)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def loss(x, w):
    return fnp.sum(fnp.tanh(x @ w) ** 2)


X = np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(2, 3)
W = np.linspace(0.5, -0.5, 12, dtype=np.float32).reshape(3, 4)


# ---------------------------------------------------------------- jaxprs, rendered
@requires_dot
def test_jaxpr_svg_has_inputs_every_primitive_and_outputs():
    closed = fad.make_jaxpr(lambda x: fnp.sum(fnp.sin(x) * x))(np.ones(3, np.float32))
    root = svg_of(draw(closed))
    nodes = svg_nodes(root)
    assert nodes["in0"] == ["a", "f32[3]"]
    assert nodes["out0"] == ["out", "f32[]"]
    ops = {nid: lines for nid, lines in nodes.items() if nid.startswith("eq")}
    assert [ops[f"eq{k}"][0] for k in range(3)] == ["sin", "mul", "reduce_sum"]
    assert ops["eq2"][1] == "axes=(0,)"                       # parameters are shown
    assert len(ops) == len(closed.eqns)
    edges = svg_edges(root)
    assert ("in0", "eq0") in edges and ("in0", "eq1") in edges
    assert ("eq0", "eq1") in edges and ("eq2", "out0") in edges
    edge_labels = [t.text for g in root.iter(f"{SVG}g") if g.get("class") == "edge"
                   for t in g.iter(f"{SVG}text")]
    assert "b:f32[3]" in edge_labels and "d:f32[]" in edge_labels   # printer's names


@requires_dot
def test_function_with_gradient_program_side_by_side():
    graph = draw(loss, X, W, backward=True)
    root = svg_of(graph)
    nodes = svg_nodes(root)
    clusters = svg_cluster_xrange(root)
    assert set(clusters) == {"cluster_forward", "cluster_backward"}
    (f0, f1), (b0, b1) = clusters["cluster_forward"], clusters["cluster_backward"]
    assert f1 < b0 or b1 < f0                                  # beside, not overlapping
    # forward: inputs named after loss's parameters, every primitive, the output
    assert nodes["fwd_in0"] == ["x (a)", "f32[2,3]"]
    assert nodes["fwd_in1"] == ["w (b)", "f32[3,4]"]
    assert first_lines(nodes, "fwd_eq") == prim_names(fad.make_jaxpr(loss)(X, W))
    assert nodes["fwd_out0"] == ["loss", "f32[]"]
    # backward: the gradient outputs, and the equations of the gradient program
    assert nodes["bwd_out0"] == ["grad x", "f32[2,3]"]
    assert nodes["bwd_out1"] == ["grad w", "f32[3,4]"]
    bwd_ops = first_lines(nodes, "bwd_eq")
    assert "tanh" not in bwd_ops and bwd_ops["matmul"] == 2 and bwd_ops["transpose"] == 2
    # every equation of make_jaxpr(grad(loss)) is drawn once: either in the backward
    # cluster or, when it merely recomputes a forward value, as the forward node
    gprog = fad.make_jaxpr(fad.grad(loss, argnums=(0, 1)))(X, W)
    drawn = bwd_ops + first_lines(nodes, "fwd_eq")
    assert drawn == prim_names(gprog) | first_lines(nodes, "fwd_eq")
    # the residuals: the backward pass reads forward values (tanh's output, x, w)
    crossing = {(t, h) for t, h in svg_edges(root) if t.startswith("fwd_")
                and h.startswith("bwd_")}
    assert {t for t, _ in crossing} >= {"fwd_in0", "fwd_in1", "fwd_eq1"}


@requires_dot
def test_non_scalar_function_draws_its_pullback_with_cotangent_inputs():
    root = svg_of(draw(lambda x: (fnp.sin(x), x * 2.0), np.ones(3), backward=True))
    nodes = svg_nodes(root)
    assert nodes["bwd_in1"][0].startswith("cotangent of out[0]")
    assert nodes["bwd_in2"][0].startswith("cotangent of out[1]")
    assert nodes["bwd_out0"] == ["cotangent of x", "f64[3]"]
    assert "cos" in first_lines(nodes, "bwd_eq")


@requires_dot
def test_jaxpr_backward_retraces_the_program():
    closed = fad.make_jaxpr(loss)(X, W)
    nodes = svg_nodes(svg_of(draw(closed, backward=True, names=["x", "w"])))
    assert nodes["fwd_in0"][0] == "x (a)" and nodes["fwd_in1"][0] == "w (b)"
    assert nodes["bwd_out0"] == ["grad x", "f32[2,3]"]
    assert nodes["bwd_out1"] == ["grad w", "f32[3,4]"]
    assert first_lines(nodes, "fwd_eq") == prim_names(closed)


@requires_dot
def test_constants_and_literals_are_drawn():
    c = np.arange(3.0)
    closed = fad.make_jaxpr(lambda x: x * c + 2.0)(np.ones(3))
    assert closed.jaxpr.constvars, "the captured array should be a constant of the jaxpr"
    nodes = svg_nodes(svg_of(draw(closed)))
    assert nodes["const0"] == ["const a", "f64[3]"]
    assert ["2.0"] in nodes.values()


@requires_dot
def test_labels_with_quotes_backslashes_and_newlines_survive_rendering():
    closed = fad.make_jaxpr(lambda x: x * 2.0)(1.0)
    nodes = svg_nodes(svg_of(draw(closed, names=['say "hi"\\n\\'])))
    assert nodes["in0"][0] == 'say "hi"\\n\\ (a)'


@requires_dot
def test_jupyter_display_is_svg():
    graph = draw(fad.make_jaxpr(lambda x: x * 2.0)(1.0))
    bundle = graph._repr_mimebundle_()
    assert ET.fromstring(bundle["image/svg+xml"].encode()).tag == f"{SVG}svg"
    assert graph._repr_svg_().lstrip().startswith("<?xml")


@requires_dot
def test_render_writes_a_file(tmp_path):
    path = draw(loss, X, W, format="svg").render(tmp_path / "loss")
    assert path.endswith(".svg") and (tmp_path / "loss.svg").read_bytes().startswith(b"<?xml")


# ---------------------------------------------------------------- without dot
def test_building_needs_no_dot_and_rendering_says_how_to_get_it(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))               # no dot on this PATH
    assert not dot_available()
    graph = draw(loss, X, W, backward=True)
    assert graph.source.startswith("digraph") and "cluster_backward" in graph.source
    with pytest.raises(DotNotFoundError, match="apt-get install graphviz"):
        graph.pipe(format="svg")
    with pytest.raises(DotNotFoundError):
        graph.render(tmp_path / "g")
    bundle = graph._repr_mimebundle_()                      # a notebook still shows something
    assert "image/svg+xml" not in bundle and "digraph" in bundle["text/plain"]


def test_argument_names_argnums_and_pytrees():
    def f(params, x):
        return fnp.sum(fnp.tanh(x @ params["w"] + params["b"]))

    params = {"w": np.ones((3, 2)), "b": np.zeros(2)}
    src = draw(f, params, np.ones((4, 3)), backward=True).source
    for label in ("params['w']", "params['b']", "grad params['w']", "grad x"):
        assert label in src
    src = draw(f, params, np.ones((4, 3)), backward=True, argnums=1).source
    assert "grad x" in src and "grad params" not in src
    src = draw(f, params, np.ones((4, 3)), names={"theta": params}).source
    assert "theta['w']" in src


def test_bad_arguments_are_clear_errors():
    closed = fad.make_jaxpr(lambda x: x + 1.0)(1.0)
    with pytest.raises(TypeError, match="draw"):
        draw(closed, 1.0)
    with pytest.raises(TypeError, match="cannot draw"):
        draw(42)
    with pytest.raises(TypeError, match="floating-point"):
        draw(lambda n: n + 1, np.arange(3), backward=True)
    with pytest.raises(TypeError, match="names"):
        draw(closed, names={"x": 1.0})


def test_deep_programs_are_walked_without_recursion():
    def chain(x):
        for _ in range(10_000):
            x = fnp.sin(x)
        return fnp.sum(x)

    closed = fad.make_jaxpr(chain)(np.ones(2))
    with shallow_stack():
        src = draw(closed).source
    assert src.count('label="sin"') == 10_000


# ---------------------------------------------------------------- tensors (duck-typed)
class FakeNode:
    """A grad_fn node with PyTorch's interface: name() and next_functions."""

    def __init__(self, name, inputs):
        self._name = name
        self.next_functions = tuple(
            (t.grad_fn or t.accumulator(), 0) if t.requires_grad else (None, 0)
            for t in inputs)

    def name(self):
        return self._name


class FakeAccumulateGrad:
    def __init__(self, variable):
        self.variable = variable
        self.next_functions = ()

    def name(self):
        return "torch::autograd::AccumulateGrad"


class FakeTensor:
    """Just enough of a facade tensor to record a graph: + * rsub sum."""

    def __init__(self, data, requires_grad=False, grad_fn=None):
        self.data = np.asarray(data, dtype=np.float32)
        self.requires_grad = requires_grad or grad_fn is not None
        self.grad_fn = grad_fn
        self._acc = None

    @property
    def shape(self):
        return self.data.shape

    @property
    def is_leaf(self):
        return self.grad_fn is None

    def accumulator(self):
        if self._acc is None:
            self._acc = FakeAccumulateGrad(self)
        return self._acc

    def _op(self, name, value, *inputs):
        tracked = any(t.requires_grad for t in inputs)
        return FakeTensor(value, grad_fn=FakeNode(name, inputs) if tracked else None)

    def __add__(self, o):
        return self._op("AddBackward0", self.data + o.data, self, o)

    def __mul__(self, o):
        return self._op("MulBackward0", self.data * o.data, self, o)

    def __rsub__(self, c):
        return self._op("RsubBackward1", c - self.data, self)

    def sum(self):
        return self._op("SumBackward0", self.data.sum(), self)


def seeds_graph(T):
    """The textbook example: d = w3*b + w4*c with b = w1*a, c = w2*a; L = sum(10 - d)."""
    a, w1, w2, w3, w4 = (T(np.full((3, 3), 0.5 + k), requires_grad=True) for k in range(5))
    b = w1 * a
    c = w2 * a
    d = w3 * b + w4 * c
    L = (10 - d).sum()
    return a, w1, w2, w3, w4, b, c, d, L


def labels_of(src: str) -> list[str]:
    """The node and edge labels of a DOT text, quoted or not, with real newlines."""
    found = re.findall(r'label=(?:"((?:[^"\\]|\\.)*)"|([^\s\]"]+))', src)
    return [(q or bare).replace("\\n", "\n") for q, bare in found]


def test_tensor_graph_names_leaves_and_intermediates_from_the_callers_variables():
    a, w1, w2, w3, w4, b, c, d, L = seeds_graph(FakeTensor)
    src = draw(L).source
    labels = labels_of(src)
    for leaf in ("a", "w1", "w2", "w3", "w4"):
        assert f"{leaf}\n(3, 3)" in labels
    assert "MulBackward0\nb (3, 3)" in labels and "AddBackward0\nd (3, 3)" in labels
    assert "L\n()" in labels and "SumBackward0" in labels
    assert labels.count("MulBackward0") == 2                # w3*b and w4*c: no names


def test_tensor_names_argument_wins_and_constants_appear():
    x = FakeTensor(np.ones(4))                               # needs no grad: a constant
    w = FakeTensor(np.ones(4), requires_grad=True)
    y = (x * w).sum()
    labels = labels_of(draw(y, names={"weight": w, "loss": y}).source)
    assert "weight\n(4,)" in labels and "loss\n()" in labels
    assert "constant" in labels


@requires_dot
def test_tensor_backward_graph_rendered_beside_the_forward_one():
    a, w1, w2, w3, w4, b, c, d, L = seeds_graph(FakeTensor)
    root = svg_of(draw(L, backward=True))
    nodes = svg_nodes(root)
    assert set(svg_cluster_xrange(root)) == {"cluster_forward", "cluster_backward"}
    fwd = {nid: lines for nid, lines in nodes.items() if nid.startswith("fwd_")}
    bwd = {nid: lines for nid, lines in nodes.items() if nid.startswith("bwd_")}
    assert sorted(lines[0] for lines in fwd.values()) == sorted(
        ["a", "w1", "w2", "w3", "w4", "Mul", "Mul", "Mul", "Mul", "Add", "Rsub", "Sum", "L"])
    bwd_first = Counter(lines[0] for lines in bwd.values())
    assert bwd_first["MulBackward0"] == 4 and bwd_first["AccumulateGrad"] == 5
    assert {"SumBackward0", "RsubBackward1", "AddBackward0"} <= set(bwd_first)
    into = {lines[1] for lines in bwd.values() if lines[0] == "AccumulateGrad"}
    assert into == {f"into {n}.grad (3, 3)" for n in ("a", "w1", "w2", "w3", "w4")}
    # gradients flow from the output's seed down to the leaves
    edges = svg_edges(root)
    assert any(t.startswith("bwd_seed") for t, _ in edges)


def test_deep_tensor_graph_is_walked_without_recursion():
    x = FakeTensor(np.ones(2), requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y + x
    with shallow_stack():
        src = draw(y, backward=True).source
    assert src.count('label="AddBackward0"') == 10_000


def test_grad_fn_node_and_list_of_tensors():
    a, w1, w2, w3, w4, b, c, d, L = seeds_graph(FakeTensor)
    assert "SumBackward0" in draw(L.grad_fn).source
    labels = labels_of(draw([b, c]).source)
    assert "b\n(3, 3)" in labels and "c\n(3, 3)" in labels


# ---------------------------------------------------------------- the real facade
def test_real_facade_tensor_graph():
    import fad.torch as torch
    a = torch.randn((3, 3), requires_grad=True)
    w1 = torch.randn((3, 3), requires_grad=True)
    w2 = torch.randn((3, 3), requires_grad=True)
    w3 = torch.randn((3, 3), requires_grad=True)
    w4 = torch.randn((3, 3), requires_grad=True)
    b = w1 * a
    c = w2 * a
    d = w3 * b + w4 * c
    L = (10 - d).sum()
    graph = draw(L, backward=True)
    labels = labels_of(graph.source)
    for leaf in ("a", "w1", "w2", "w3", "w4"):
        assert f"{leaf}\n(3, 3)" in labels
    assert any(lab.startswith("MulBackward") for lab in labels)
    assert any(lab.startswith("AccumulateGrad") for lab in labels)
    if dot_available():
        nodes = svg_nodes(svg_of(graph))
        assert sum(lines[0].startswith("MulBackward") for lines in nodes.values()) == 4
    assert isinstance(fad.viz.draw(L), Graph)
