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

import sys
from typing import Any, Sequence

from ..core.ir import ClosedJaxpr, Jaxpr
from .graph import DotNotFoundError, Graph, dot_available
from .programs import _draw_function, _draw_jaxpr
from .tensors import _draw_tensors, _is_grad_node, _is_tensor

__all__ = ["draw", "Graph", "DotNotFoundError", "dot_available"]


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


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
