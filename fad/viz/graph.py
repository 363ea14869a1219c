"""The :class:`Graph` a drawing returns, the DOT text it is written in, and the
node colours and labels the pictures share."""

from __future__ import annotations

import shutil
from typing import Any, Iterable, Mapping

try:
    import graphviz
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "fad.viz draws with the 'graphviz' Python package, which is not installed: "
        "pip install graphviz (or pip install 'fad[viz]'). Rendering also needs "
        "Graphviz's dot program (Debian/Ubuntu: apt-get install graphviz).") from exc


# colours (fill) of the kinds of node
_INPUT = "#cfe2f3"
_CONST = "#eeeeee"
_FWD_OP = "#fff2cc"
_BWD_OP = "#f4cccc"
_OUTPUT = "#d9ead3"
_GRAD_OUT = "#ead1dc"
_COTANGENT = "#fce5cd"


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


def _esc(text: str) -> str:
    """Escape text for a DOT label; lines are joined by the caller with ``\\n``."""
    return str(text).replace("\\", "\\\\").replace("\n", "\\n")


def _label(*lines: str) -> str:
    return "\\n".join(_esc(line) for line in lines if line)


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
