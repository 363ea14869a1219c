"""The facade's dynamic graph (``grad_fn`` nodes) and the backward engine.

A ``Node`` is what PyTorch calls a backward function. Its ``pull`` is the core's
reverse mode (``fad.interpreters.tape``: ``vjp_flat``, or ``pullback`` of a tape
recorded by ``fad/torch/_recorder.py``) applied to the operation's fad function, so
the facade owns no derivative rule. The engine
walks the graph in an order computed iteratively (no recursion: chains of 10^5
operations work), and only mutates ``.grad`` after every check has passed.
"""

from __future__ import annotations

import gc
import itertools
import operator
import re
import weakref
from typing import Any, Callable

import numpy as np

from ..backends import namespace_of
from ..interpreters.tape import vjp_flat
from ._grad_mode import GRAD_ENABLED
from ._meta import NO_DATA, MetaArray

FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved "
    "tensors after they have already been freed). Saved intermediate values of the "
    "graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if "
    "you need to access saved tensors after calling backward.")

_T: Any = None  # fad.torch.tensor module, set on import (avoids a cycle)


class Node:
    """A backward function: ``grad_fn`` of a tensor made by a recorded operation.

    ``next_functions`` holds one ``(node_or_None, output_nr)`` pair per input of
    the operation, as in PyTorch; leaves appear as their ``AccumulateGrad``.
    """

    # ``_pull(cts, consume)`` gives the inputs' cotangents; an operation recorded by its
    # direct form (``fad/torch/_recorder.py``) has instead ``_pull(_res, ct)``, the
    # vector-Jacobian product its signature shares, and ``_res`` its own operands
    # and output; ``_fun`` (with ``_consts`` and ``_params`` for a direct form) is
    # what ``function_of`` turns into the operation's fad function.
    # Hooks, retained gradients and metadata, which few nodes have, live in the
    # instance's ``__dict__`` once set (the class gives ``None``): a node is made
    # per recorded operation and the garbage collector walks its slots. ``_next`` is a
    # tuple of nodes, or the node itself for an operation of one recorded input (no
    # tuple for the collector to track: see ``nexts_of``).
    # ``_seq`` numbers nodes in the order they were made (``next_seq``): a node's inputs'
    # nodes were made before it, so decreasing numbers are an order to run them in.
    __slots__ = ("_next", "_nrs", "_layout", "_pull", "_res", "_fun", "_consts", "_params",
                 "_inputs", "_checked", "_versions", "_saves", "_freed", "_n_out", "_avals",
                 "_seq", "__dict__", "__weakref__")
    # the engine conjugates complex cotangents on their way into and out of its backward
    # (see CONJ below): fad's vector-Jacobian product, not a custom Function's backward
    # (PyTorch's convention) nor a direct form's whose values are all real
    _conjugates = True
    _pre_hooks: dict | None = None
    _retain: dict | None = None
    _hooks: list | None = None
    _metadata: dict | None = None

    @property
    def next_functions(self) -> tuple:
        pairs = tuple(zip(nexts_of(self), self._nrs))
        if self._layout is None:
            return pairs
        return tuple(pairs[i] if i >= 0 else (None, 0) for i in self._layout)

    def name(self) -> str:
        return type(self).__name__

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn: Callable) -> "RemovableHandle":
        """``fn(grad_inputs, grad_outputs)`` runs after this node; it may return new
        ``grad_inputs``."""
        if self._hooks is None:
            self._hooks = []
        return RemovableHandle(self._hooks, fn)

    def register_prehook(self, fn: Callable) -> "RemovableHandle":
        """``fn(grad_outputs)`` runs before this node; it may return new ones."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return RemovableHandle(self._pre_hooks.setdefault(-1, []), fn)

    def _register_tensor_hook(self, nr: int, fn: Callable) -> "RemovableHandle":
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return RemovableHandle(self._pre_hooks.setdefault(nr, []), fn)

    # engine interface -------------------------------------------------------
    def _check_alive(self) -> None:
        if self._freed:
            raise RuntimeError(FREED_MSG)
        for t, v in zip(*_guarded(self)):
            now = (t if type(t) is list else t._vc)[0]
            if now != v:
                raise RuntimeError(_version_message(self, t, now, v))

    def _backward(self, cts: list, retain: bool, create_graph: bool) -> list:
        """Cotangents of the recorded inputs (``self._next``) from those of the
        outputs (arrays, or Tensors when ``create_graph``)."""
        if create_graph:
            return _differentiable_pull(self, cts)
        pull = self._pull
        if self._res is not None:
            res = pull(self._res, cts[0])
        else:
            if pull is None:  # a linear node whose tape was released: linearize again
                from ._recorder import function_of, make_flat
                _, pull = vjp_flat(make_flat(*function_of(self)), self._zero_inputs(),
                                   self.name())
            res = pull(cts, consume=not retain)
        for i, r in enumerate(res):
            if r is None:  # no dependence: PyTorch still hands back zeros
                res[i] = self._zero_input(i)
        return res

    def _zero_input(self, i: int) -> Any:
        if self._inputs is not None:
            v = self._inputs[i]._value
            return namespace_of([v]).zeros_like(v)
        shape, dtype, xp = self._avals[i]
        return xp.zeros(shape, dtype=dtype)

    def _zero_inputs(self) -> list:
        return [self._zero_input(i) for i in range(len(nexts_of(self)))]

    def _release(self) -> None:
        """Drop what the backward pass needed. A node that saved values can no longer
        run; a linear one (``AddBackward0``, ``ViewBackward0``...) keeps only the
        shapes of its inputs, as PyTorch's, and can run again."""
        if self._saves:
            self._freed = True
            self._pull = self._res = self._fun = self._inputs = self._checked = None
            self._versions = self._consts = self._params = None
        elif self._inputs is not None or self._res is not None:
            if self._avals is None:
                self._avals = tuple([array_aval(t._value) for t in self._inputs])
            if self._consts is CONSTS_IN_RES:  # (kept: linearizing again needs them)
                self._consts = CONSTS_OF(self)
            self._pull = self._res = self._inputs = self._checked = self._versions = None


def nexts_of(node: Node) -> tuple:
    """The nodes of ``node``'s ``next_functions`` (``_next``, as a tuple)."""
    n = node._next
    return n if type(n) is tuple else (n,)


def array_aval(v: Any) -> tuple:
    return v.shape, v.dtype, (np if type(v) is np.ndarray else namespace_of([v]))


class SavedOutput:
    """An output of a node that its backward reads: held without the output Tensor
    (which holds the node), through its version counter (``_vc``), its number
    (``nr``) and its array (``value``)."""

    __slots__ = ("_vc", "nr", "value")


_new_saved_output = SavedOutput.__new__


def save_output(node: Node, nr: int, t: Any) -> None:
    """Add output ``t`` (number ``nr``) of ``node`` to what its backward checks."""
    out = _new_saved_output(SavedOutput)
    out._vc = t._vc
    out.nr = nr
    out.value = t._value
    if node._checked is None:
        node._checked, node._versions = (out,), (t._vc[0],)
    else:
        node._checked += (out,)
        node._versions += (t._vc[0],)


def rebind_saved_output(node: Node, old: list, new: list) -> None:
    """An output of ``node`` with counter ``old`` is now held by a tensor with counter
    ``new`` (an in-place operation): guard it by that counter from now on."""
    if node._checked is None:
        return
    guards, versions = _guarded(node)
    guards, versions = list(guards), list(versions)
    for k, s in enumerate(guards):
        if type(s) is SavedOutput and s._vc is old:
            s._vc = new
            versions[k] = new[0]
        elif s is old:  # (a direct form's saved output: its counter itself)
            guards[k] = new
            versions[k] = new[0]
    if type(node._checked) is tuple:
        node._checked, node._versions = tuple(guards), tuple(versions)
    else:
        node._checked, node._versions = guards[0], versions[0]


def _guarded(node: Node) -> tuple[tuple, tuple]:
    """``(guards, versions)``: what the node's backward checks the versions of, and
    the versions it expects. A node holds them as ``_checked`` and ``_versions``:
    ``None``, one guard and its version, or tuples of them; a guard is a saved
    Tensor, a ``SavedOutput``, or a direct form's saved output's version counter
    (its value is the node's ``_res[-1]``). One guard is held bare: the collector
    tracks no tuple for it."""
    c = node._checked
    if c is None:
        return (), ()
    if type(c) is tuple:
        return c, node._versions
    return (c,), (node._versions,)


def guards_of(node: Node) -> list:
    """What ``node``'s backward checks the version of before it runs: the saved
    Tensors and outputs (``SavedOutput``s)."""
    return [_as_guard(node, g) for g in _guarded(node)[0]]


def _as_guard(node: Node, g: Any) -> Any:
    if type(g) is list:  # a direct form's output: its counter and its value in _res
        out = SavedOutput()
        out._vc, out.nr, out.value = g, 0, node._res[-1]
        return out
    return g


def _version_message(node: Node, who: Any, now: int, expected: int) -> str:
    """PyTorch's words for a saved value edited in place since it was saved. ``who``
    is the saved Tensor, or a ``SavedOutput`` of ``node``."""
    who = _as_guard(node, who)
    if type(who) is SavedOutput:
        t = _T.wrap(who.value)
        of = f", which is output {who.nr} of {_short_name(node.name())},"
    else:
        t = who
        fn = t._grad_fn
        of = "" if fn is None else f", which is output {t._output_nr} of {_short_name(fn.name())},"
    from .autograd import is_anomaly_enabled
    hint = ("the backtrace further above shows the operation that failed to compute its "
            "gradient. The variable in question was changed in there or anywhere later. "
            "Good luck!" if is_anomaly_enabled() else
            "enable anomaly detection to find the operation that failed to compute its "
            "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
    return ("one of the variables needed for gradient computation has been modified by "
            f"an inplace operation: [{t.type()} {list(t.shape)}]{of} is at version {now}; "
            f"expected version {expected} instead. Hint: {hint}")


def _short_name(name: str) -> str:
    """A node's name as PyTorch's version message prints it (``MulBackward0`` is
    ``Mul``, ``PowBackward1`` is ``Pow1``)."""
    m = re.fullmatch(r"(.*)Backward(\d*)", name)
    if m is None:
        return name
    return m.group(1) + ("" if m.group(2) == "0" else m.group(2))


_NODE_TYPES: dict[str, type] = {}


def node_type(name: str) -> type:
    """The ``Node`` subclass called ``name`` (so that ``repr`` is PyTorch's
    ``<MulBackward0 object at 0x...>``)."""
    cls = _NODE_TYPES.get(name)
    if cls is None:
        body: dict = {"__slots__": (), "__module__": "builtins"}
        if name in _QUALIFIED:  # (a node PyTorch names by its C++ class)
            body["name"] = lambda self: _QUALIFIED[name]
        cls = type(name, (Node,), body)
        _NODE_TYPES[name] = cls
    return cls


_QUALIFIED = {"CopySlices": "torch::autograd::CopySlices"}


def make_node(cls: type, pull: Any, fun: Any, inputs: tuple, nexts: tuple, nrs: tuple,
              layout: tuple | None, saves: bool, n_out: int, saved: tuple | None = None
              ) -> Node:
    """A node; ``saved`` are the tensors whose buffer its backward reads: their
    versions now are checked before it runs."""
    node = cls.__new__(cls)
    node._seq = next_seq()
    node._next = nexts
    node._nrs = nrs
    node._layout = layout
    node._pull = pull
    node._res = node._consts = node._params = None
    node._fun = fun
    node._inputs = inputs
    node._checked = saved
    node._versions = None if saved is None else tuple([t._vc[0] for t in saved])
    node._saves = saves
    node._freed = False
    node._n_out = n_out
    node._avals = None
    return node


class AccumulateGrad(Node):
    """The node of a leaf tensor: sums incoming gradients into ``variable.grad``."""

    __slots__ = ("variable",)
    __module__ = "builtins"
    _seq = -1  # (it has no inputs: it runs after every node that leads to it)

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def _check_alive(self) -> None:
        pass

    def _release(self) -> None:
        pass


def accumulate_grad(t: Any) -> AccumulateGrad:
    """The (cached, weakly held) ``AccumulateGrad`` of leaf ``t``."""
    ref = t._acc
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad.__new__(AccumulateGrad)
        node.variable = t
        node._next = node._nrs = ()
        node._layout = None
        node._n_out = 1
        node._freed = False
        node._saves = False
        node._pull = node._fun = node._inputs = node._checked = node._versions = node._avals = None
        node._res = node._consts = node._params = None
        t._acc = weakref.ref(node)
    return node


def edge_of(t: Any) -> tuple:
    """``(node, output_nr)`` through which gradient reaches tensor ``t``."""
    fn = t._grad_fn
    if fn is not None:
        return fn, t._output_nr
    return accumulate_grad(t), 0


class RemovableHandle:
    """Returned by ``register_hook``; ``.remove()`` unregisters the hook. ``hooks`` is
    a list, or a dict that keys the hook by the handle's ``id`` (a module's hooks, as
    PyTorch's); ``extra``: dicts that key something else by that ``id`` (whether a
    module hook takes keyword arguments), dropped with it."""

    _ids = itertools.count()

    def __init__(self, hooks: list | dict, fn: Callable, *extra: dict):
        self.id = next(self._ids)
        self._hooks = hooks
        self._fn = fn
        self._extra = extra
        if type(hooks) is list:
            hooks.append(fn)
        else:
            hooks[self.id] = fn

    def remove(self) -> None:
        if type(self._hooks) is list:
            try:
                self._hooks.remove(self._fn)
            except ValueError:
                pass
            return
        for d in (self._hooks, *self._extra):
            d.pop(self.id, None)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


# ------------------------------------------------------------------ create_graph
def _differentiable_pull(node: Node, cts: list) -> list:
    """The node's vjp as a recorded facade operation on Tensors, so that the
    gradients it returns have a ``grad_fn`` of their own (double backward)."""
    if node._freed:
        raise RuntimeError(FREED_MSG)
    return DOUBLE_BACKWARD(node, cts)


CONSTS_IN_RES: Any = None  # a direct node's marker of constants held in _res, and
CONSTS_OF: Callable = None  # type: ignore[assignment]  # their reader (set by _direct.py)
DOUBLE_BACKWARD: Callable = None  # type: ignore[assignment]  # set by the recorder


# ------------------------------------------------------------------ the engine
next_seq = itertools.count().__next__
_seq_of = operator.attrgetter("_seq")


def _graph_order(roots: list[Node]) -> list[Node]:
    """Nodes reachable from ``roots``, each before every node it leads to: found
    breadth first, then sorted by decreasing ``_seq`` (a node is made after the
    nodes of its inputs). A chain is found already in that order, which the sort
    then only checks."""
    order: list[Node] = []
    seen: set[Node] = {None}  # type: ignore[arg-type]
    append = order.append
    add = seen.add
    for root in roots:
        if root not in seen:
            add(root)
            append(root)
    for node in order:  # (the loop visits what it appends)
        nn = node._next
        if type(nn) is tuple:
            for nxt in nn:
                if nxt not in seen:
                    add(nxt)
                    append(nxt)
        elif nn not in seen:
            add(nn)
            append(nn)
    order.sort(key=_seq_of, reverse=True)
    return order


# PyTorch's gradient of a complex value is the conjugate of fad's cotangent (PyTorch
# pairs a gradient g with a tangent t through Re(sum(conj(g) t)), fad and JAX through
# Re(sum(g t))): the backward pass keeps PyTorch's, so that seeds, hooks, ``.grad``
# and custom ``Function``s see PyTorch's numbers, and conjugates complex cotangents
# on their way into and out of fad's own vector-Jacobian products.
CONJ: Callable | None = None  # Tensor conjugation (recorded), set by the functions


def _is_complex(c: Any) -> bool:
    if isinstance(c, _T.Tensor):
        return c.is_complex()
    return getattr(c.dtype, "kind", None) == "c"


def _conj(c: Any) -> Any:
    return CONJ(c) if isinstance(c, _T.Tensor) else c.conj()


def _conj_complex(cts: list) -> list:
    """``cts`` with every complex cotangent conjugated (real ones untouched)."""
    return [_conj(c) if c is not None and _is_complex(c) else c for c in cts]


def _any_complex(cts: list) -> bool:
    for c in cts:  # (a loop, not any(): this runs twice per node of every pass)
        if c is not None:
            if type(c) is not np.ndarray and isinstance(c, _T.Tensor):
                c = c._value
            if getattr(c.dtype, "kind", None) == "c":
                return True
    return False


def _add(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def run_backward(roots: list, grads: list, retain_graph: bool, create_graph: bool,
                 inputs: list | None = None, accumulate: bool = True,
                 allow_unused: bool = False) -> list | None:
    """Backpropagate ``grads`` from ``roots``.

    With ``accumulate`` (``Tensor.backward``), sums into ``.grad`` of the leaves
    (or of ``inputs`` only). Without (``autograd.grad``), returns the gradients of
    ``inputs``. ``grads`` are arrays, or Tensors when ``create_graph``.

    The cyclic garbage collector is paused during the pass: the pass frees the
    graph node by node (reference counting does that) and allocates only arrays
    and short-lived containers, so a collection would find nothing to free, yet a
    full one walks every object alive, the whole graph of a deep chain included
    (a fifth of the pass at 10^5 operations). It is turned back on, if it was on,
    however the pass ends.
    """
    gc_was = gc.isenabled()
    try:
        gc.disable()
        return _run_backward(roots, grads, retain_graph, create_graph, inputs, accumulate,
                             allow_unused)
    finally:
        if gc_was:
            gc.enable()


def _run_backward(roots: list, grads: list, retain_graph: bool, create_graph: bool,
                  inputs: list | None, accumulate: bool, allow_unused: bool) -> list | None:
    T = _T
    root_edges = [edge_of(r) for r in roots]
    order = _graph_order([e[0] for e in root_edges])

    targets: dict[tuple, int] | None = None
    target_ids: set = set()
    if inputs is not None:
        targets = {}
        for i, t in enumerate(inputs):
            targets.setdefault(_key(edge_of(t)), i)
        target_ids = {k[0] for k in targets}
        run = _needed(order, target_ids)
    else:
        run = order
    for n in run:  # check everything before changing anything
        if n._freed:
            n._check_alive()
        vs = n._versions
        if vs is not None:  # (see _guarded)
            c = n._checked
            if type(c) is tuple:
                for t, v in zip(c, vs):
                    if (t if type(t) is list else t._vc)[0] != v:
                        n._check_alive()
            elif (c if type(c) is list else c._vc)[0] != vs:
                n._check_alive()

    buffers: dict[Node, list] = {}
    for (node, nr), g in zip(root_edges, grads):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node._n_out
        buf[nr] = _add(buf[nr], g)

    captured: list = [None] * len(inputs) if inputs is not None else []
    leaf_grads: dict[int, list] = {}   # id(tensor) -> [tensor, grad]
    retained: list = []
    consume = not retain_graph
    pop = buffers.pop
    get = buffers.get
    grad_was = GRAD_ENABLED.get()
    try:  # (switched inside the try: see _grad_mode)
        GRAD_ENABLED.set(bool(create_graph))
        for node in run:
            buf = pop(node, None)
            if buf is None:
                continue
            if node._pre_hooks or node._retain:
                buf = _run_pre_hooks(node, buf, create_graph, retained)
            if type(node) is AccumulateGrad:
                var = node.variable
                if var._hooks and buf[0] is not None:
                    buf = [_apply_hooks(var._hooks, buf[0], create_graph)]
                if targets is not None:
                    i = targets.get((id(node), 0))
                    if i is not None and buf[0] is not None:
                        captured[i] = buf[0]
                if accumulate and var._requires_grad:  # (turned off since: no .grad)
                    g = buf[0]
                    entry = leaf_grads.get(id(var))
                    if entry is None:
                        leaf_grads[id(var)] = [var, g]
                    else:
                        entry[1] = _add(entry[1], g)
                continue
            if targets is not None and id(node) in target_ids:
                for nr in range(node._n_out):
                    i = targets.get((id(node), nr))
                    if i is not None and buf[nr] is not None:
                        captured[i] = buf[nr]
            if node._n_out == 1:
                if buf[0] is None:
                    continue
            elif all(c is None for c in buf):
                continue
            pull = node._pull
            native = node._conjugates
            if native and _any_complex(buf):
                buf = _conj_complex(buf)
            try:
                if pull is None or create_graph:
                    in_cts = node._backward(buf, retain_graph, create_graph)
                else:  # Node._backward, inlined: the common case
                    res = node._res
                    in_cts = pull(buf, consume) if res is None else pull(res, buf[0])
                    if len(in_cts) == 1:  # (the loop below, for one input)
                        if in_cts[0] is None:
                            in_cts[0] = node._zero_input(0)
                    else:
                        for i, r in enumerate(in_cts):
                            if r is None:  # no dependence: PyTorch still hands back zeros
                                in_cts[i] = node._zero_input(i)
                if consume:
                    node._release()
            except BaseException:
                if consume:  # a pullback stopped halfway has used up part of its tape:
                    node._release()  # it must not run again
                raise
            if native and _any_complex(in_cts):
                in_cts = _conj_complex(in_cts)
            if node._hooks:
                in_cts = _run_node_hooks(node, in_cts, buf, create_graph)
            nexts = node._next
            if type(nexts) is not tuple:  # one recorded input (the loop below, for it)
                ct = in_cts[0]
                if ct is not None:
                    nb = get(nexts)
                    if nb is None and nexts._n_out == 1:
                        buffers[nexts] = [ct]
                        continue
                    if nb is None:
                        nb = buffers[nexts] = [None] * nexts._n_out
                    nr = node._nrs[0]
                    prev = nb[nr]
                    nb[nr] = ct if prev is None else prev + ct
                continue
            for nxt, nr, ct in zip(nexts, node._nrs, in_cts):
                if nxt is None or ct is None:
                    continue
                nb = get(nxt)
                if nb is None:
                    if nxt._n_out == 1:
                        buffers[nxt] = [ct]
                        continue
                    nb = buffers[nxt] = [None] * nxt._n_out
                prev = nb[nr]
                nb[nr] = ct if prev is None else prev + ct
    finally:
        GRAD_ENABLED.set(grad_was)

    # success: now change state
    for tensor, g in retained:
        tensor._grad = T.wrap_grad(g, create_graph)
    if accumulate:
        for var, g in leaf_grads.values():
            if inputs is None or targets.get(_key(edge_of(var))) is not None:
                T.accumulate_into(var, g, create_graph)
                if var._post_accumulate_hooks:
                    _run_post_accumulate_hooks(var)
        if inputs is not None:
            for t, g in zip(inputs, captured):
                if t._grad_fn is not None and g is not None:
                    T.accumulate_into(t, g, create_graph)
    if accumulate:
        return None
    out = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used "
                    "in the graph. Set allow_unused=True if this is the desired behavior.")
            out.append(None)
        else:
            out.append(T.wrap_grad(g, create_graph, fresh=True))
    return out


def _run_post_accumulate_hooks(var: Any) -> None:
    """The hooks ``var.register_post_accumulate_grad_hook`` added, on ``var`` whose
    ``.grad`` has just been accumulated (before the next leaf's, as PyTorch's)."""
    for hook in list(var._post_accumulate_hooks):
        r = hook(var)
        if r is not None:
            if isinstance(r, _T.Tensor):
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")
            raise TypeError(f"expected Variable, but hook returned '{type(r).__name__}'")


def _key(edge: tuple) -> tuple:
    return id(edge[0]), edge[1]


def _needed(order: list[Node], target_ids: set[int]) -> list[Node]:
    """The nodes of ``order`` from which some target node can be reached, in order."""
    needed: set[int] = set(target_ids)
    add = needed.add
    for node in reversed(order):
        nn = node._next
        if type(nn) is not tuple:  # (one input: see nexts_of)
            if id(nn) in needed:
                add(id(node))
            continue
        for n in nn:
            if n is not None and id(n) in needed:
                add(id(node))
                break
    return [n for n in order if id(n) in needed]


def _as_tensor(g: Any, create_graph: bool) -> Any:
    return g if create_graph else _T.wrap(g)


def _apply_hooks(hooks: list, g: Any, create_graph: bool) -> Any:
    for hook in list(hooks):
        t = _as_tensor(g, create_graph)
        r = hook(t)
        if r is not None:
            _check_hook_grad(hook, r, t)
            g = r if create_graph else r._value
    return g


def _check_hook_grad(hook: Callable, r: Any, t: Any) -> None:
    """PyTorch's errors for a hook that returned something other than a gradient
    like ``t``; the words name the hook."""
    if not isinstance(r, _T.Tensor):
        raise TypeError(f"expected Variable, but hook returned '{_type_name(r)}' (the hook "
                        f"'{_qualname(hook)}' must return a Tensor or None)")
    name = getattr(hook, "__name__", "<unknown>")
    if tuple(r.shape) != tuple(t.shape):
        raise RuntimeError(f"hook '{name}' has changed the size of value (it returned a "
                           f"gradient of shape {list(r.shape)} for a tensor of shape "
                           f"{list(t.shape)})")
    if r.dtype is not t.dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {t.type()} "
                           f"got {r.type()})")


def _check_hook_tuple(hook: Callable, r: Any, n: int) -> None:
    """PyTorch's errors for a backward hook of a node that returned something other
    than a tuple of ``n`` gradients (Tensors or None)."""
    if not isinstance(r, tuple):
        raise TypeError(f"expected tuple, but hook returned '{_type_name(r)}' (the hook "
                        f"'{_qualname(hook)}' must return a tuple of Tensors or None)")
    if len(r) != n:
        raise RuntimeError(f"hook '{getattr(hook, '__name__', '<unknown>')}' has returned an "
                           f"incorrect number of values (got {len(r)}, but expected {n})")
    for g in r:
        if g is not None and not isinstance(g, _T.Tensor):
            raise TypeError(f"expected Variable, but hook returned '{_type_name(g)}' in its "
                            f"tuple (the hook '{_qualname(hook)}' must return a tuple of "
                            "Tensors or None)")


def _qualname(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or repr(fn)


def _type_name(x: Any) -> str:
    """``list``, ``numpy.ndarray``: a type as PyTorch names it in its messages."""
    t = type(x)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _run_pre_hooks(node: Node, buf: list, create_graph: bool, retained: list) -> list:
    buf = list(buf)
    hooks = node._pre_hooks or {}
    for nr in range(node._n_out):
        if buf[nr] is not None and hooks.get(nr):
            buf[nr] = _apply_hooks(hooks[nr], buf[nr], create_graph)
    if hooks.get(-1):
        for hook in list(hooks[-1]):
            r = hook(tuple(None if g is None else _as_tensor(g, create_graph) for g in buf))
            if r is not None:
                _check_hook_tuple(hook, r, len(buf))
                buf = [None if g is None else (g if create_graph else g._value) for g in r]
    if node._retain:
        for nr, ref in node._retain.items():
            t = ref()
            if t is not None and buf[nr] is not None:
                retained.append((t, buf[nr]))
    return buf


def _run_node_hooks(node: Node, in_cts: list, buf: list, create_graph: bool) -> list:
    wrap = lambda gs: tuple(None if g is None else _as_tensor(g, create_graph) for g in gs)
    for hook in list(node._hooks):
        r = hook(wrap(in_cts), wrap(buf))
        if r is not None:
            _check_hook_tuple(hook, r, len(in_cts))
            in_cts = [None if g is None else (g if create_graph else g._value) for g in r]
    return in_cts


def host(x: Any) -> np.ndarray:
    """A NumPy copy/view of a backend array."""
    if type(x) is np.ndarray:
        return x
    if type(x) is MetaArray:
        raise NotImplementedError(NO_DATA)
    get = getattr(x, "get", None)
    if get is not None and type(x).__module__.startswith("cupy"):
        return get()
    try:
        return np.asarray(x)
    except Exception:  # array_api_strict and friends
        import array_api_strict as xps  # noqa: F401
        return np.asarray(x._array)
