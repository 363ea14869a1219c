"""Pictures of computation graphs, drawn with Graphviz.

``fad.viz.draw`` turns three kinds of object into a :class:`Graph` (a
``graphviz.Digraph`` that renders itself inline in Jupyter):

* a program: a ``ClosedJaxpr`` / ``Jaxpr`` (``fad.make_jaxpr(f)(x)``), or a
  function with example arguments (``draw(f, x)``). Inputs, constants and
  literals are drawn as data nodes, every equation as an operator node labelled
  with its primitive and parameters, and the edges carry the variables as the
  printed jaxpr names them (``c:f32[3]``).
* a facade tensor (``import fad.torch as torch``): the graph recorded behind
  ``loss.grad_fn``. Leaves and parameters are labelled by name (given in
  ``names=``, else found among the caller's variables) and shape, operator
  nodes are named like their ``grad_fn`` (``MulBackward0``).
* with ``backward=True``, the gradient program is drawn beside the forward one,
  in two clusters, as textbooks draw backpropagation: for a program, the IR of
  its gradient (``fad.make_jaxpr(fad.grad(f))``); for a tensor, the chain of
  ``grad_fn`` nodes the gradient flows through, ending in the leaves' ``.grad``.

Building a graph needs only the ``graphviz`` Python package; rendering it
(``.pipe()``, ``.render()``, display in Jupyter) also needs Graphviz's ``dot``
program (Debian: ``apt-get install graphviz``). Every walk over a graph is
iterative, so graphs of any depth can be drawn.

>>> import fad, fad.numpy as fnp, fad.viz
>>> g = fad.viz.draw(fad.make_jaxpr(lambda x: fnp.sum(fnp.sin(x) * x))(fnp.ones(3)))
>>> [n for n in ("sin", "mul", "reduce_sum") if n in g.source]
['sin', 'mul', 'reduce_sum']
"""

from __future__ import annotations

import inspect
import re
import shutil
import string
import sys
import types
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

try:
    import graphviz
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "fad.viz draws with the 'graphviz' Python package, which is not installed: "
        "pip install graphviz (or pip install 'fad[viz]'). Rendering also needs "
        "Graphviz's dot program (Debian/Ubuntu: apt-get install graphviz).") from exc

from .core.ir import ClosedJaxpr, Jaxpr, Literal, ShapedArray, Var, pp_param
from .tree import tree_leaf_paths

__all__ = ["draw", "Graph", "DotNotFoundError", "dot_available"]

# colours (fill) of the kinds of node
_INPUT = "#cfe2f3"
_CONST = "#eeeeee"
_FWD_OP = "#fff2cc"
_BWD_OP = "#f4cccc"
_OUTPUT = "#d9ead3"
_GRAD_OUT = "#ead1dc"
_COTANGENT = "#fce5cd"
_PARAM_WIDTH = 40


# ---------------------------------------------------------------- the Graph object
class DotNotFoundError(RuntimeError):
    """Rendering needs Graphviz's ``dot`` program and it is not on ``PATH``.

    >>> issubclass(DotNotFoundError, RuntimeError)
    True
    """


_DOT_MISSING = ("rendering a fad.viz graph needs Graphviz's 'dot' program, which was not "
                "found on PATH. Install Graphviz (Debian/Ubuntu: apt-get install graphviz; "
                "macOS: brew install graphviz; conda: conda install graphviz). The graph's "
                "DOT text is available without it, as .source.")


def dot_available() -> bool:
    """Whether Graphviz's ``dot`` program is on ``PATH`` (needed to render, not to build).

    >>> isinstance(dot_available(), bool)
    True
    """
    return shutil.which("dot") is not None


class Graph(graphviz.Digraph):
    """A drawn computation graph: a ``graphviz.Digraph`` that renders inline in Jupyter.

    ``.source`` is the DOT text; ``.pipe(format="svg")`` returns the rendered
    bytes and ``.render(filename)`` writes a file (both need ``dot``); in a
    notebook the object displays itself as SVG. If ``dot`` is missing, rendering
    raises :class:`DotNotFoundError`, and the notebook display falls back to
    the DOT text with that message.

    >>> import fad, fad.viz
    >>> g = fad.viz.draw(fad.make_jaxpr(lambda x: x * 2.0)(1.0))
    >>> isinstance(g, fad.viz.Graph), g.source.startswith("digraph")
    (True, True)
    """

    def pipe(self, *args: Any, **kwargs: Any) -> Any:
        """Render with ``dot`` and return the output (see ``graphviz.Digraph.pipe``).

        >>> import fad, fad.viz
        >>> g = fad.viz.draw(fad.make_jaxpr(lambda x: x + 1.0)(1.0))
        >>> if fad.viz.dot_available():
        ...     assert g.pipe(format="svg").lstrip().startswith(b"<?xml")
        """
        try:
            return super().pipe(*args, **kwargs)
        except graphviz.ExecutableNotFound as exc:
            raise DotNotFoundError(_DOT_MISSING) from exc

    def render(self, *args: Any, **kwargs: Any) -> Any:
        """Render with ``dot`` to a file; returns its path (see ``graphviz.Digraph.render``).

        >>> import os, tempfile, fad, fad.viz
        >>> g = fad.viz.draw(fad.make_jaxpr(lambda x: x + 1.0)(1.0), format="svg")
        >>> if fad.viz.dot_available():
        ...     with tempfile.TemporaryDirectory() as d:
        ...         assert os.path.exists(g.render(os.path.join(d, "graph")))
        """
        try:
            return super().render(*args, **kwargs)
        except graphviz.ExecutableNotFound as exc:
            raise DotNotFoundError(_DOT_MISSING) from exc

    def _repr_svg_(self) -> str:
        return self.pipe(format="svg", encoding="utf-8")

    def _repr_mimebundle_(self, include: Iterable[str] | None = None,
                          exclude: Iterable[str] | None = None, **kwargs: Any) -> dict:
        try:
            return super()._repr_mimebundle_(include, exclude, **kwargs)
        except DotNotFoundError as exc:
            return {"text/plain": f"{exc}\n\n{self.source}"}


# ---------------------------------------------------------------- public entry point
def draw(obj: Any, *args: Any, backward: bool = False, names: Any = None,
         argnums: int | Sequence[int] | None = None, format: str = "svg") -> Graph:
    """Draw the computation graph of a program or of a facade tensor.

    ``obj`` is one of:

    * a ``ClosedJaxpr`` or ``Jaxpr`` (e.g. ``fad.make_jaxpr(f)(x)``);
    * a function followed by example arguments, ``draw(f, x, w)``: its jaxpr
      at those arguments, with the inputs labelled by ``f``'s parameter names;
    * a facade tensor (anything with ``.grad_fn``, like ``fad.torch`` or
      PyTorch tensors), a ``grad_fn`` node, or a list/tuple of tensors.

    ``backward=True`` also draws the gradient program, in a second cluster
    beside the forward one. For a program that is the IR of
    ``fad.grad(f, argnums)`` when ``f`` returns one float scalar, else of its
    vector-Jacobian product (the pull-back, with one cotangent input per
    output). Equations the gradient program merely recomputes from the forward
    one are drawn once, in the forward cluster, so the arrows that cross into
    the backward cluster are exactly the forward values (residuals) the
    backward pass reads. ``argnums`` picks the differentiated arguments
    (default: every argument whose leaves are all floating point; for a jaxpr,
    flat input indices). For a tensor, the backward cluster shows the
    ``grad_fn`` nodes in the order the gradient flows through them, with
    dashed arrows from each ``AccumulateGrad`` to the leaf whose ``.grad`` it
    fills.

    ``names`` labels inputs: a mapping ``{"w1": w1, ...}`` from name to object
    (matched by identity, against tensors or against the example arguments),
    or, for a program, a sequence of names for its flat inputs. Without it, a
    function's inputs take its parameter names, and a tensor's leaves,
    intermediates and output take the names the caller's variables give them.
    ``format`` is the output format used by ``.render()``.

    >>> import fad, fad.numpy as fnp, fad.viz
    >>> def loss(x, w):
    ...     return fnp.sum(fnp.tanh(x * w))
    >>> g = fad.viz.draw(loss, fnp.ones(3), fnp.ones(3), backward=True)
    >>> "cluster_forward" in g.source and "cluster_backward" in g.source
    True
    >>> "grad w" in g.source
    True
    """
    if isinstance(obj, ClosedJaxpr | Jaxpr):
        if args:
            raise TypeError("fad.viz.draw(jaxpr) takes no further positional arguments; "
                            "to draw a function, pass it with example arguments: "
                            "draw(f, x)")
        graph = _draw_jaxpr(obj, backward=backward, names=names, argnums=argnums)
    elif _is_tensor(obj) or _is_grad_node(obj) or (
            isinstance(obj, list | tuple) and obj and all(_is_tensor(t) for t in obj)):
        if args:
            raise TypeError("fad.viz.draw(tensor) takes no further positional arguments")
        if argnums is not None:
            raise TypeError("argnums applies to functions and jaxprs, not to tensors")
        roots = list(obj) if isinstance(obj, list | tuple) else [obj]
        graph = _draw_tensors(roots, backward=backward, names=names,
                              frame=sys._getframe(1))
    elif callable(obj):
        graph = _draw_function(obj, args, backward=backward, names=names, argnums=argnums)
    else:
        raise TypeError(
            f"fad.viz.draw cannot draw a {type(obj).__name__}: pass a jaxpr "
            "(fad.make_jaxpr(f)(x)), a function with example arguments (draw(f, x)), or a "
            "tensor of the facade (its .grad_fn graph).")
    graph.format = format
    return graph


# ---------------------------------------------------------------- labels and names
def _esc(text: str) -> str:
    """Escape text for a DOT label; lines are joined by the caller with ``\\n``."""
    return str(text).replace("\\", "\\\\").replace("\n", "\\n")


def _label(*lines: str) -> str:
    return "\\n".join(_esc(line) for line in lines if line)


def _var_name_gen() -> Iterator[str]:
    """a, b, ..., z, ba, bb, ...: the printer's names for variables."""
    letters = string.ascii_lowercase
    n = 1
    while True:
        for idx in np.ndindex(*(26,) * n):
            if n > 1 and idx[0] == 0:
                continue
            yield "".join(letters[i] for i in idx)
        n += 1


def _printed_names(jaxpr: Jaxpr, taken: Mapping[Var, Any] | None = None,
                   start: int = 0) -> dict[Var, str]:
    """The names ``str(jaxpr)`` gives each variable (same order as the printer).

    Variables in ``taken`` get no name, and naming starts at the ``start``-th
    name: the gradient program drawn beside a forward one continues its names.
    """
    gen = _var_name_gen()
    for _ in range(start):
        next(gen)
    names: dict[Var, str] = {}
    taken = taken or {}

    def see(v: Any) -> None:
        if type(v) is not Literal and v not in names and v not in taken:
            names[v] = next(gen)

    for v in jaxpr.constvars:
        see(v)
    for v in jaxpr.invars:
        see(v)
    for eqn in jaxpr.eqns:
        for v in eqn.outvars:
            see(v)
        for v in eqn.invars:
            see(v)
    for v in jaxpr.outvars:
        see(v)
    return names


def _aval_text(x: Any) -> str:
    aval = getattr(x, "aval", None)
    if isinstance(aval, ShapedArray):
        return aval.str_short()
    return "?"


def _literal_text(lit: Literal) -> str:
    val = lit.val
    try:
        kind = lit.aval.dtype.kind
        if kind == "b":
            return "True" if bool(val) else "False"
        if kind == "f":
            return repr(float(val))
        if kind == "c":
            return repr(complex(val))
        return repr(int(val))
    except (TypeError, ValueError):
        return repr(val)


def _param_text(value: Any) -> str:
    if isinstance(value, ClosedJaxpr | Jaxpr):
        inner = value.jaxpr if isinstance(value, ClosedJaxpr) else value
        return f"{{ {len(inner.eqns)} eqns }}"
    try:
        text = pp_param(value)
    except Exception:  # noqa: BLE001 - a parameter that cannot print itself
        text = object.__repr__(value)
    text = " ".join(str(text).split())
    return text if len(text) <= _PARAM_WIDTH else text[:_PARAM_WIDTH - 3] + "..."


def _param_key(value: Any) -> str:
    try:
        return pp_param(value)
    except Exception:  # noqa: BLE001
        return f"<{id(value)}>"


# ---------------------------------------------------------------- programs
class _Canvas:
    """Collects nodes per cluster and edges for the top level, then writes the DOT."""

    def __init__(self, title: str | None = None):
        self.graph = Graph(graph_attr={"rankdir": "TB", "fontname": "Helvetica",
                                       "labelloc": "t", "nodesep": "0.3",
                                       "ranksep": "0.35"},
                           node_attr={"fontname": "Helvetica", "fontsize": "11",
                                      "style": "filled", "penwidth": "0.8"},
                           edge_attr={"fontname": "Helvetica", "fontsize": "9",
                                      "arrowsize": "0.6", "color": "#555555"})
        if title:
            self.graph.attr(label=_label(title))
        self.edges: list[str] = []

    def node(self, sub: Any, nid: str, label: str, **attrs: str) -> None:
        """Add node ``nid`` to ``sub`` (the graph or a cluster of it).

        ``label`` is DOT text (from ``_label``); a ``tooltip`` is plain text. The
        line is written directly: graphviz's generic quoting costs more than the
        rest of the drawing on large graphs.
        """
        if "tooltip" in attrs:
            attrs["tooltip"] = _esc(attrs["tooltip"])
        sub.body.append(f"\t{nid} [{_dot_attrs(label=label, **attrs)}]\n")

    def edge(self, tail: str, head: str, **attrs: str) -> None:
        """Edges are written after every cluster (so that no edge declares a node)."""
        extra = f" [{_dot_attrs(**attrs)}]" if attrs else ""
        self.edges.append(f"\t{tail} -> {head}{extra}\n")

    def finish(self) -> Graph:
        self.graph.body.extend(self.edges)
        self.edges = []
        return self.graph


def _dot_attrs(**attrs: str) -> str:
    """``k="v"`` pairs; values are DOT text already, only their quotes need escaping."""
    return " ".join(f'{k}="{_quote(v)}"' for k, v in attrs.items())


def _quote(text: str) -> str:
    """Escape the double quotes of DOT text (its backslashes are escaped already)."""
    return text.replace('"', '\\"')


def _draw_program(canvas: _Canvas, sub: Any, jaxpr: Jaxpr, consts: Sequence | None, *,
                  prefix: str, in_labels: Sequence[str], out_labels: Sequence[str],
                  op_color: str = _FWD_OP, in_color: Sequence[str] | None = None,
                  out_color: str = _OUTPUT,
                  shared: Mapping[Var, tuple[str, str]] | None = None,
                  skip: set[int] | None = None, names_from: int = 0
                  ) -> dict[Var, tuple[str, str]]:
    """Draw ``jaxpr``'s nodes into ``sub`` and its edges into ``canvas``.

    ``shared`` maps variables already drawn elsewhere to ``(node id, name)``;
    equations whose index is in ``skip`` are not drawn (their outputs are in
    ``shared``); the other variables are named from the ``names_from``-th
    name on. Returns every variable's ``(producing node id, display name)``.
    """
    shared = shared or {}
    names = _printed_names(jaxpr, shared, names_from)
    env: dict[Var, tuple[str, str]] = {}
    skip = skip or set()

    def source(v: Var) -> tuple[str, str]:
        if v in env:
            return env[v]
        if v in shared:
            return shared[v]
        nid = f"{prefix}undef{len(env)}"
        canvas.node(sub, nid, _label("?", names.get(v, "?")), shape="box", fillcolor="white")
        env[v] = (nid, names.get(v, "?"))
        return env[v]

    for i, v in enumerate(jaxpr.constvars):
        if v in shared:
            continue
        nid = f"{prefix}const{i}"
        tip = ""
        if consts is not None and i < len(consts):
            tip = " ".join(repr(consts[i]).split())[:200]
        canvas.node(sub, nid, _label(f"const {names[v]}", _aval_text(v)), shape="box",
                    style="filled,rounded", fillcolor=_CONST, tooltip=tip or names[v])
        env[v] = (nid, names[v])
    for i, v in enumerate(jaxpr.invars):
        if v in shared:
            continue
        nid = f"{prefix}in{i}"
        user = in_labels[i] if i < len(in_labels) else names[v]
        first = user if user == names[v] else f"{user} ({names[v]})"
        color = in_color[i] if in_color is not None and i < len(in_color) else _INPUT
        canvas.node(sub, nid, _label(first, _aval_text(v)), shape="box", style="filled,rounded",
                    fillcolor=color)
        env[v] = (nid, names[v])

    n_lit = 0

    def literal_node(lit: Literal) -> str:
        nonlocal n_lit
        nid = f"{prefix}lit{n_lit}"
        n_lit += 1
        text = _literal_text(lit)
        canvas.node(sub, nid, _label(text), shape="plaintext", style="", fontsize="9",
                    tooltip=f"{text}:{_aval_text(lit)}")
        return nid

    for k, eqn in enumerate(jaxpr.eqns):
        if k in skip:
            continue
        nid = f"{prefix}eq{k}"
        prim = getattr(eqn.primitive, "name", str(eqn.primitive))
        lines = [prim] + [f"{p}={_param_text(val)}" for p, val in eqn.params.items()]
        args_text = []
        for a in eqn.invars:
            if type(a) is Literal:
                args_text.append(f"{_literal_text(a)}:{_aval_text(a)}")
            else:
                args_text.append(source(a)[1])
        outs_text = " ".join(f"{names[v]}:{_aval_text(v)}" for v in eqn.outvars)
        params_text = ""
        if eqn.params:
            params_text = "[" + " ".join(f"{p}={_param_text(val)}"
                                         for p, val in eqn.params.items()) + "]"
        tip = f"{outs_text} = {prim}{params_text} {' '.join(args_text)}"
        src = getattr(eqn, "source", None)
        if src:
            tip += f"  ({src})"
        canvas.node(sub, nid, _label(*lines), shape="box", fillcolor=op_color, tooltip=tip)
        for a in eqn.invars:
            if type(a) is Literal:
                canvas.edge(literal_node(a), nid)
            else:
                tail, nm = source(a)
                canvas.edge(tail, nid, label=_label(f"{nm}:{_aval_text(a)}"))
        for v in eqn.outvars:
            env[v] = (nid, names[v])

    for i, v in enumerate(jaxpr.outvars):
        nid = f"{prefix}out{i}"
        label = out_labels[i] if i < len(out_labels) else f"out[{i}]"
        canvas.node(sub, nid, _label(label, _aval_text(v)), shape="box", style="filled,bold",
                    fillcolor=out_color)
        if type(v) is Literal:
            canvas.edge(literal_node(v), nid)
        else:
            tail, nm = source(v)
            canvas.edge(tail, nid, label=_label(f"{nm}:{_aval_text(v)}"))
    return env


def _eqn_key(eqn: Any, lookup: Callable[[Var], Any]) -> tuple | None:
    ins: list = []
    for a in eqn.invars:
        if type(a) is Literal:
            ins.append(("lit", _literal_text(a), _aval_text(a)))
        else:
            target = lookup(a)
            if target is None:
                return None
            ins.append(("var", id(target)))
    params = tuple((k, _param_key(v)) for k, v in sorted(eqn.params.items()))
    return (id(eqn.primitive), params, tuple(ins))


def _match_forward(fwd: Jaxpr, fconsts: Sequence, bwd: Jaxpr, bconsts: Sequence,
                   n_inputs: int) -> tuple[dict[Var, Var], set[int]]:
    """Which variables and equations of ``bwd`` merely recompute ``fwd``'s.

    Returns ``(bwd var -> fwd var, indices of bwd equations to leave out)``.
    """
    mapping: dict[Var, Var] = {}
    for bv, fv in zip(bwd.invars[:n_inputs], fwd.invars[:n_inputs]):
        if getattr(bv, "aval", None) == getattr(fv, "aval", None):
            mapping[bv] = fv
    by_id = {id(c): fv for fv, c in zip(fwd.constvars, fconsts)}
    for bv, c in zip(bwd.constvars, bconsts):
        if id(c) in by_id:
            mapping[bv] = by_id[id(c)]
    ident = {v: v for v in fwd.constvars + fwd.invars}
    table: dict[tuple, list] = {}
    for eqn in fwd.eqns:
        key = _eqn_key(eqn, lambda v: ident.get(v, v))
        if key is not None:
            table.setdefault(key, eqn.outvars)
    skip: set[int] = set()
    for k, eqn in enumerate(bwd.eqns):
        key = _eqn_key(eqn, mapping.get)
        outs = table.get(key) if key is not None else None
        if outs is None or len(outs) != len(eqn.outvars):
            continue
        if any(getattr(b, "aval", None) != getattr(f, "aval", None)
               for b, f in zip(eqn.outvars, outs)):
            continue
        for b, f in zip(eqn.outvars, outs):
            mapping[b] = f
        skip.add(k)
    return mapping, skip


def _draw_programs(fwd: ClosedJaxpr | Jaxpr, *, in_labels: Sequence[str],
                   out_labels: Sequence[str], grad: tuple | None,
                   fwd_title: str | None) -> Graph:
    """Draw ``fwd`` alone, or, with ``grad``, in a cluster beside its gradient program.

    ``grad`` is ``(bwd closed jaxpr, n inputs shared with fwd, bwd input labels,
    bwd output labels, bwd input colours, title)``.
    """
    fj, fconsts = _split_closed(fwd)
    if grad is None:
        canvas = _Canvas()
        _draw_program(canvas, canvas.graph, fj, fconsts, prefix="",
                      in_labels=in_labels, out_labels=out_labels)
        return canvas.finish()
    bwd, n_shared, b_in, b_out, b_colors, title = grad
    bj, bconsts = _split_closed(bwd)
    canvas = _Canvas()
    with canvas.graph.subgraph(name="cluster_forward") as sub:
        sub.attr(label=_label(fwd_title or "forward program"), style="rounded",
                 color="#999999", fontname="Helvetica-Bold")
        fenv = _draw_program(canvas, sub, fj, fconsts, prefix="fwd_",
                             in_labels=in_labels, out_labels=out_labels)
    mapping, skip = _match_forward(fj, fconsts or [], bj, bconsts or [], n_shared)
    shared = {b: fenv[f] for b, f in mapping.items() if f in fenv}
    with canvas.graph.subgraph(name="cluster_backward") as sub:
        sub.attr(label=_label(title), style="rounded", color="#cc4125",
                 fontname="Helvetica-Bold")
        _draw_program(canvas, sub, bj, bconsts, prefix="bwd_", in_labels=b_in,
                      out_labels=b_out, op_color=_BWD_OP, in_color=b_colors,
                      out_color=_GRAD_OUT, shared=shared, skip=skip,
                      names_from=len(_printed_names(fj)))
    return canvas.finish()


def _split_closed(obj: ClosedJaxpr | Jaxpr) -> tuple[Jaxpr, list | None]:
    if isinstance(obj, ClosedJaxpr):
        return obj.jaxpr, list(obj.consts)
    return obj, None


def _is_float_leaf(x: Any) -> bool:
    aval = _aval_of(x)
    return aval is not None and aval.dtype.kind in "fc"


def _aval_of(x: Any) -> ShapedArray | None:
    if isinstance(x, ShapedArray):
        return x
    try:
        from .core.trace import aval_of
        return aval_of(x)
    except Exception:  # noqa: BLE001
        try:
            arr = np.asarray(x)
            return ShapedArray(arr.shape, arr.dtype)
        except Exception:  # noqa: BLE001
            return None


def _param_names(fun: Callable, n: int) -> list[str]:
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    out: list[str] = []
    for i in range(n):
        if i < len(params) and params[i].kind in (params[i].POSITIONAL_ONLY,
                                                  params[i].POSITIONAL_OR_KEYWORD):
            out.append(params[i].name)
        elif params and params[-1].kind is params[-1].VAR_POSITIONAL and i >= len(params) - 1:
            out.append(f"{params[-1].name}[{i - len(params) + 1}]")
        else:
            out.append(f"arg{i}")
    return out


def _fun_name(fun: Callable) -> str:
    name = getattr(fun, "__name__", "")
    return name if name.isidentifier() else ""


def _grad_program(fun: Callable, args: tuple, nums: tuple[int, ...],
                  out_avals: Sequence[ShapedArray], out_tree: Any,
                  arg_labels: Sequence[Sequence[str]], out_labels: Sequence[str]) -> tuple:
    """The gradient (or pull-back) program of ``fun`` at ``args``, with its labels."""
    from .transforms import autodiff as api
    from .tree import tree_structure, tree_unflatten
    in_labels = [lab for labs in arg_labels for lab in labs]
    grad_labels = [f"grad {lab}" for i in nums for lab in arg_labels[i]]
    scalar = (len(out_avals) == 1 and out_avals[0].shape == ()
              and out_avals[0].dtype.kind in "fc" and out_tree == tree_structure(0))
    name = _fun_name(fun) or "f"
    if scalar:
        bwd = api.make_jaxpr(api.grad(fun, argnums=nums))(*args)
        title = f"gradient program: make_jaxpr(grad({name}))"
        return bwd, len(in_labels), in_labels, grad_labels, None, title

    def pullback(*primals_and_ct: Any) -> Any:
        primals, ct = primals_and_ct[:-1], primals_and_ct[-1]

        def partial(*diff: Any) -> Any:
            full = list(primals)
            for i, d in zip(nums, diff):
                full[i] = d
            return fun(*full)

        _, pull = api.vjp(partial, *[primals[i] for i in nums])
        return pull(ct)

    ct = tree_unflatten(out_tree, [np.zeros(a.shape, a.dtype) for a in out_avals])
    bwd = api.make_jaxpr(pullback)(*args, ct)
    ct_labels = [f"cotangent of {lab}" for lab in out_labels]
    grad_labels = [f"cotangent of {lab}" for i in nums for lab in arg_labels[i]]
    colors = [_INPUT] * len(in_labels) + [_COTANGENT] * len(ct_labels)
    title = f"backward program: the pull-back of vjp({name})"
    return bwd, len(in_labels), in_labels + ct_labels, grad_labels, colors, title


def _resolve_argnums(argnums: int | Sequence[int] | None, args: Sequence,
                     what: str) -> tuple[int, ...]:
    from .tree import tree_leaves
    n = len(args)
    if argnums is None:
        nums = tuple(i for i, a in enumerate(args)
                     if tree_leaves(a) and all(_is_float_leaf(x) for x in tree_leaves(a)))
        if not nums:
            raise TypeError(f"fad.viz.draw(..., backward=True): {what} has no floating-point "
                            "input to differentiate with respect to")
        return nums
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    return tuple(i % n if -n <= i < n else _bad_argnum(i, n) for i in nums)


def _bad_argnum(i: int, n: int) -> int:
    raise ValueError(f"argnums {i} is out of range for {n} inputs")


def _names_by_identity(names: Any) -> dict[int, str]:
    if names is None:
        return {}
    if isinstance(names, Mapping):
        out: dict[int, str] = {}
        for k, v in names.items():
            if isinstance(k, str):
                out[id(v)] = k
            elif isinstance(v, str):
                out[id(k)] = v
            else:
                raise TypeError("names must map names (str) to objects: {'w1': w1, ...}")
        return out
    raise TypeError("for a tensor, names must be a mapping {'w1': w1, ...}")


def _draw_function(fun: Callable, args: tuple, *, backward: bool, names: Any,
                   argnums: Any) -> Graph:
    from .transforms import autodiff as api
    fwd = api.make_jaxpr(fun)(*args)
    bases = _param_names(fun, len(args))
    if isinstance(names, Mapping):
        by_id = _names_by_identity(names)
        bases = [by_id.get(id(a), b) for a, b in zip(args, bases)]
    arg_labels = [tree_leaf_paths(a, b) for a, b in zip(args, bases)]
    in_labels = [lab for labs in arg_labels for lab in labs]
    if names is not None and not isinstance(names, Mapping):
        given = [str(s) for s in names]
        in_labels = given + in_labels[len(given):]
        it = iter(in_labels)
        arg_labels = [[next(it) for _ in labs] for labs in arg_labels]
    out_labels = _out_labels(fun, len(fwd.jaxpr.outvars))
    grad = None
    if backward:
        nums = _resolve_argnums(argnums, args, f"function {_fun_name(fun) or fun!r}")
        grad = _grad_program(fun, args, nums, fwd.out_avals, fwd.out_tree, arg_labels,
                             out_labels)
    name = _fun_name(fun)
    return _draw_programs(fwd, in_labels=in_labels, out_labels=out_labels, grad=grad,
                          fwd_title=f"forward program: make_jaxpr({name or 'f'})")


def _out_labels(fun: Callable | None, n: int) -> list[str]:
    base = _fun_name(fun) if fun is not None else ""
    if n == 1:
        return [base or "out"]
    return [f"{base or 'out'}[{i}]" for i in range(n)]


def _draw_jaxpr(obj: ClosedJaxpr | Jaxpr, *, backward: bool, names: Any,
                argnums: Any) -> Graph:
    jaxpr, consts = _split_closed(obj)
    printed = _printed_names(jaxpr)
    in_labels = [printed[v] for v in jaxpr.invars]
    if names is not None:
        if isinstance(names, Mapping) or isinstance(names, str):
            raise TypeError("for a jaxpr, names is a sequence of names for its inputs, "
                            "in order: names=['x', 'w']")
        given = [str(s) for s in names]
        in_labels = given + in_labels[len(given):]
    out_labels = _out_labels(None, len(jaxpr.outvars))
    grad = None
    if backward:
        if consts is None and jaxpr.constvars:
            raise TypeError("fad.viz.draw(jaxpr, backward=True) needs the constants' values: "
                            "pass the ClosedJaxpr (as fad.make_jaxpr returns it)")
        grad = _jaxpr_grad_program(jaxpr, consts or [], in_labels, out_labels, argnums)
    return _draw_programs(obj, in_labels=in_labels, out_labels=out_labels, grad=grad,
                          fwd_title="forward program")


def _jaxpr_grad_program(jaxpr: Jaxpr, consts: list, in_labels: list[str],
                        out_labels: list[str], argnums: Any) -> tuple:
    """The gradient program of a jaxpr, obtained by re-tracing it (fad's invariant 2)."""
    from .interpreters.evaluate import eval_jaxpr
    from .tree import tree_structure
    avals = [v.aval for v in jaxpr.invars]
    args = tuple(np.zeros(a.shape, a.dtype) for a in avals)
    out_avals = [v.aval for v in jaxpr.outvars]
    single = len(out_avals) == 1

    def program(*xs: Any) -> Any:
        outs = eval_jaxpr(jaxpr, consts, *xs)
        return outs[0] if single else tuple(outs)

    program.__name__ = "jaxpr"
    out_tree = tree_structure(0) if single else tree_structure(tuple(range(len(out_avals))))
    nums = _resolve_argnums(argnums, args, "the jaxpr")
    return _grad_program(program, args, nums, out_avals, out_tree,
                         [[lab] for lab in in_labels], out_labels)


# ---------------------------------------------------------------- facade tensors
def _is_tensor(obj: Any) -> bool:
    return (not isinstance(obj, type) and hasattr(obj, "grad_fn")
            and hasattr(obj, "requires_grad"))


def _is_grad_node(obj: Any) -> bool:
    return not isinstance(obj, type) and hasattr(obj, "next_functions")


def _node_name(fn: Any) -> str:
    name = getattr(fn, "name", None)
    try:
        text = name() if callable(name) else (name or type(fn).__name__)
    except Exception:  # noqa: BLE001
        text = type(fn).__name__
    text = str(text)
    return text.rsplit("::", 1)[-1]


def _next_functions(fn: Any) -> list[tuple[Any, int]]:
    try:
        nxt = fn.next_functions
    except Exception:  # noqa: BLE001
        return []
    out = []
    for entry in nxt or ():
        if isinstance(entry, tuple):
            out.append((entry[0], entry[1] if len(entry) > 1 else 0))
        else:
            out.append((entry, 0))
    return out


def _is_accumulate(fn: Any) -> bool:
    return hasattr(fn, "variable")


def _shape_text(t: Any) -> str:
    try:
        shape = tuple(int(s) for s in t.shape)
    except Exception:  # noqa: BLE001
        return ""
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


_SKIP_TYPES = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType,
               types.MethodType)


def _scan_frame(frame: Any, want_tensor: set[int], want_fn: set[int]
                ) -> tuple[dict[int, str], dict[int, tuple[str, Any]]]:
    """Names of wanted tensors, and of tensors whose ``grad_fn`` is a wanted node,
    among ``frame``'s local then global variables (names starting with ``_`` skipped)."""
    tensor_names: dict[int, str] = {}
    fn_names: dict[int, tuple[str, Any]] = {}
    if frame is None:
        return tensor_names, fn_names
    scopes = [frame.f_locals]
    if frame.f_globals is not frame.f_locals:
        scopes.append(frame.f_globals)
    for scope in scopes:
        for key, val in list(scope.items()):
            if not isinstance(key, str) or key.startswith("_") or isinstance(val, _SKIP_TYPES):
                continue
            if id(val) in want_tensor and id(val) not in tensor_names:
                tensor_names[id(val)] = key
            if not want_fn:
                continue
            try:
                gf = getattr(val, "grad_fn", None)
            except Exception:  # noqa: BLE001
                continue
            if gf is not None and id(gf) in want_fn and id(gf) not in fn_names:
                fn_names[id(gf)] = (key, val)
    return tensor_names, fn_names


def _draw_tensors(roots: list, *, backward: bool, names: Any, frame: Any) -> Graph:
    given = _names_by_identity(names)
    # ---- walk the grad_fn graph (iteratively, from every root)
    fns: list[Any] = []
    index: dict[int, int] = {}
    stack: list[Any] = []
    root_fns: list[Any] = []
    for r in roots:
        fn = r if _is_grad_node(r) and not _is_tensor(r) else getattr(r, "grad_fn", None)
        root_fns.append(fn)
        if fn is not None and id(fn) not in index:
            index[id(fn)] = len(fns)
            fns.append(fn)
            stack.append(fn)
    inputs: dict[int, list[tuple[Any, int]]] = {}
    while stack:
        fn = stack.pop()
        nxt = _next_functions(fn)
        inputs[id(fn)] = nxt
        for child, _ in nxt:
            if child is not None and id(child) not in index:
                index[id(child)] = len(fns)
                fns.append(child)
                stack.append(child)

    # ---- names: explicit first, then the caller's variables
    leaf_vars = {id(fn): fn.variable for fn in fns if _is_accumulate(fn)}
    want_tensor = {id(v) for v in leaf_vars.values()} | {id(r) for r in roots}
    want_fn = {id(fn) for fn in fns if not _is_accumulate(fn)}
    tensor_names, fn_names = _scan_frame(frame, want_tensor, want_fn)
    if isinstance(names, Mapping):
        for k, v in names.items():
            obj, nm = (v, k) if isinstance(k, str) else (k, v)
            gf = getattr(obj, "grad_fn", None) if _is_tensor(obj) else None
            if gf is not None and id(gf) in want_fn:
                fn_names[id(gf)] = (nm, obj)
    tensor_names.update(given)

    root_names = {id(fn): fn_names.pop(id(fn))[0] for r, fn in zip(roots, root_fns)
                  if fn is not None and fn_names.get(id(fn), (None, None))[1] is r}

    def node_tensor_name(fn: Any) -> tuple[str, str]:
        """(name, shape) of the tensor a node produced, when known."""
        if _is_accumulate(fn):
            var = fn.variable
            return tensor_names.get(id(var), ""), _shape_text(var)
        if id(fn) in fn_names:
            nm, t = fn_names[id(fn)]
            return nm, _shape_text(t)
        return "", ""

    root_info = []
    for i, (r, fn) in enumerate(zip(roots, root_fns)):
        if _is_tensor(r):
            nm = tensor_names.get(id(r), "") or root_names.get(id(fn), "")
            root_info.append((nm or ("output" if len(roots) == 1 else f"output[{i}]"),
                              _shape_text(r)))
        else:
            root_info.append((_node_name(r), ""))

    canvas = _Canvas()
    if backward:
        with canvas.graph.subgraph(name="cluster_forward") as sub:
            sub.attr(label="forward graph", style="rounded", color="#999999",
                     fontname="Helvetica-Bold")
            _tensor_forward(canvas, sub, fns, index, inputs, roots, root_fns, root_info,
                            node_tensor_name, op_names=True)
        with canvas.graph.subgraph(name="cluster_backward") as sub:
            sub.attr(label="backward graph: the grad_fn nodes, gradients flow down",
                     style="rounded", color="#cc4125", fontname="Helvetica-Bold")
            _tensor_backward(canvas, sub, fns, index, inputs, roots, root_fns, root_info,
                             node_tensor_name)
    else:
        _tensor_forward(canvas, canvas.graph, fns, index, inputs, roots, root_fns, root_info,
                        node_tensor_name, op_names=False)
    return canvas.finish()


_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")


def _tensor_forward(canvas: _Canvas, sub: Any, fns: list, index: dict, inputs: dict,
                    roots: list, root_fns: list, root_info: list, tname: Callable,
                    op_names: bool) -> None:
    """Forward direction: leaves and constants -> operator nodes -> outputs."""
    n_const = 0
    for k, fn in enumerate(fns):
        nid = f"fwd_n{k}"
        name, shape = tname(fn)
        if _is_accumulate(fn):
            canvas.node(sub, nid, _label(name or "leaf", shape), shape="box",
                        style="filled,rounded", fillcolor=_INPUT,
                        tooltip=f"leaf tensor {name} {shape}".strip())
            continue
        op = _node_name(fn)
        shown = (_BACKWARD_SUFFIX.sub("", op) or op) if op_names else op
        canvas.node(sub, nid, _label(shown, f"{name} {shape}".strip()), shape="box",
                    fillcolor=_FWD_OP, tooltip=f"grad_fn={op}")
        for child, _ in inputs.get(id(fn), []):
            if child is None:
                cid = f"fwd_const{n_const}"
                n_const += 1
                canvas.node(sub, cid, "constant", shape="plaintext", style="", fontsize="9",
                            fontcolor="#666666")
                canvas.edge(cid, nid, style="dotted")
            else:
                canvas.edge(f"fwd_n{index[id(child)]}", nid)
    for i, (r, fn) in enumerate(zip(roots, root_fns)):
        nid = f"fwd_out{i}"
        name, shape = root_info[i]
        canvas.node(sub, nid, _label(name, shape), shape="box", style="filled,bold",
                    fillcolor=_OUTPUT)
        if fn is not None:
            canvas.edge(f"fwd_n{index[id(fn)]}", nid)


def _tensor_backward(canvas: _Canvas, sub: Any, fns: list, index: dict, inputs: dict,
                     roots: list, root_fns: list, root_info: list, tname: Callable) -> None:
    """Gradient direction: grad of the output -> grad_fn nodes -> AccumulateGrad (leaf.grad)."""
    for i, fn in enumerate(root_fns):
        if fn is None:
            continue
        name, shape = root_info[i]
        nid = f"bwd_seed{i}"
        canvas.node(sub, nid, _label(f"grad of {name}", "ones" if shape in ("", "()") else shape),
                    shape="box", style="filled,rounded", fillcolor=_COTANGENT)
        canvas.edge(nid, f"bwd_n{index[id(fn)]}")
    for k, fn in enumerate(fns):
        nid = f"bwd_n{k}"
        op = _node_name(fn)
        name, shape = tname(fn)
        if _is_accumulate(fn):
            target = f"{name or 'leaf'}.grad"
            canvas.node(sub, nid, _label(op, f"into {target} {shape}".strip()), shape="box",
                        fillcolor=_GRAD_OUT, tooltip=f"accumulates the gradient into {target}")
            continue
        canvas.node(sub, nid, _label(op, f"gets grad of {name}" if name else ""), shape="box",
                    fillcolor=_BWD_OP, tooltip=f"{op}: backward of the operation" +
                    (f" that made {name}" if name else ""))
        for child, _ in inputs.get(id(fn), []):
            if child is not None:
                canvas.edge(nid, f"bwd_n{index[id(child)]}")
