"""Reverse mode by taping primitive applications and pulling cotangents back.

The forward pass runs each primitive on its primal values and appends one tape
entry. The backward pass walks the tape in reverse and derives each entry's
vector-Jacobian product from the rules the primitive already has:

* an elementwise primitive (``defjvp`` partials) has a diagonal Jacobian, which
  is its own transpose: the cotangent goes through the *same* partial rule,
  then is summed down to the operand's shape (``unbroadcast``);
* a linear primitive's vjp is its ``transpose`` rule;
* any other primitive is linearized on the spot (its jvp rule traced with
  symbolic tangents) and that small linear program is transposed.

No rule is written twice. Because every rule is written in fad operations, the
backward pass is itself traced by any transformation around it, which is how
``grad(grad(f))``, ``jvp(grad(f))`` and ``make_jaxpr(grad(f))`` work.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from ..backends import default_xp, namespace_of
from ..core.ir import ShapedArray
from ..core.linear import UndefinedPrimal
from ..core.trace import PrimalTracer, Trace, Tracer, _np_dtype, aval_of, bind, new_main
from ..primitives.builders import negated, unbroadcast
from ..tree import tree_flatten, tree_unflatten
from .jvp import lower_aux
from .linearize import backward_pass, linearize_flat
from .staging import owned, trace_to_jaxpr

_node_ids = itertools.count(1)
_NO_PARTIALS = [(None,) * n for n in range(64)]  # "nothing differentiable here"


@dataclass(slots=True, eq=False, repr=False)
class TapeEntry:
    """One primitive application on a tape.

    ``primals`` are its operands' values and ``nodes`` their tape nodes (``None``:
    a constant); ``ans`` is its output (a list of outputs for a multiple-results
    primitive), or for a primitive with a ``vjp_rule`` the pullback that rule
    returned; ``out`` is the output's node (a list of nodes, ``None`` for an output
    no derivative flows through, for a multiple-results primitive or a
    ``vjp_rule``).

    The forward pass of ``grad`` and every recorded facade operation make one per
    primitive, and the backward pass reads each field once or twice: a class with
    ``__slots__`` is the cheapest such record to build and to read (cheaper than a
    ``NamedTuple``, built through ``tuple.__new__`` or not). Entries are not changed
    in place: ``dataclasses.replace`` makes a new one.
    """

    prim: Any
    params: dict
    primals: Any
    ans: Any
    nodes: Any
    out: Any

    def __repr__(self) -> str:
        return f"TapeEntry({self.prim.name}, nodes={self.nodes}, out={self.out})"


class VJPTracer(PrimalTracer):
    """A primal value and the tape node its cotangent accumulates into."""

    __slots__ = ("node",)

    def __init__(self, trace: Trace, primal: Any, node: int):
        self._trace = trace
        self.primal = primal
        self.node = node


class VJPTrace(Trace):
    differentiates = True

    def __init__(self, main: Any, payload: list):
        super().__init__(main, payload)
        self.tape = payload

    def process_primitive(self, prim: Any, args: Any, params: dict) -> Any:
        if prim.inline is not None:  # a call (jit): tape the body's operations
            return prim.inline(*args, **params)
        primals, nodes = unpack_all(self, args)
        if prim.vjp_rule is not None:  # a user-defined backward (custom_vjp, checkpoint)
            outs, pullback = prim.vjp_rule(primals, **params)
            wrapped = [VJPTracer(self, o, next(_node_ids)) if _is_float(o) else o
                       for o in outs]
            self.tape.append(TapeEntry(
                prim, params, primals, pullback, nodes,
                [o.node if type(o) is VJPTracer else None for o in wrapped]))
            return wrapped
        ans = bind(prim, *primals, **params)
        if prim.jvp is None:
            if any(n is not None for n in nodes):
                raise NotImplementedError(
                    f"differentiation of primitive '{prim.name}' is not implemented "
                    "(it has no jvp rule)")
            return ans
        if prim.multiple_results:
            outs = [VJPTracer(self, o, next(_node_ids)) if _is_float(o) else o for o in ans]
            self.tape.append(TapeEntry(
                prim, params, primals, ans, nodes,
                [o.node if type(o) is VJPTracer else None for o in outs]))
            return outs
        # flows_through(prim, _is_float(ans), len(nodes)), spelled out: this line
        # runs for every operation under grad, and two calls cost more than the entry
        is_float = _FLOAT.get(type(ans.dtype))
        if is_float is None:
            is_float = _is_float(ans)
        if not is_float or prim.partials == _NO_PARTIALS[len(nodes)]:
            return ans
        out = VJPTracer(self, ans, next(_node_ids))
        # tuples, not lists: the cycle collector stops tracking a tuple of arrays
        # and ints, so a long tape costs its full collections far less
        self.tape.append(TapeEntry(prim, params, tuple(primals), ans, tuple(nodes),
                                   out.node))
        return out


def flows_through(prim: Any, float_output: bool, n_operands: int) -> bool:
    """Whether a derivative flows through an application of ``prim`` (so that it
    is taped): not for integer outputs, nor for ``stop_gradient`` and the like."""
    return float_output and prim.partials != _NO_PARTIALS[n_operands]


def unpack_all(trace: Trace, values: Any) -> tuple[list, list]:
    """The primal values of ``values`` and their tape nodes (None: a constant)."""
    primals, nodes = [], []
    for v in values:  # one pass: this runs for every operation under grad
        if type(v) is VJPTracer and v._trace is trace:
            primals.append(v.primal)
            nodes.append(v.node)
        else:
            primals.append(v)
            nodes.append(None)
    return primals, nodes


# NumPy dtype class -> is it a float or complex dtype. Keyed by the class: each
# NumPy dtype has its own (``Float64DType``...), and other namespaces' dtypes
# (array_api_strict's one ``DType`` class) never meet NumPy's in a comparison.
_FLOAT: dict = {}


def _is_float(x: Any) -> bool:
    d = x.dtype
    r = _FLOAT.get(type(d))
    if r is None:
        if isinstance(d, np.dtype):
            r = _FLOAT[type(d)] = d.kind in "fc"
        else:
            r = _np_dtype(d).kind in "fc"
    return r


def pullback(tape: list, cts: dict[int, Any], consume: bool) -> dict[int, Any]:
    """Run the tape backwards from ``cts`` (node -> cotangent); returns all cts."""
    n = len(tape)
    for k in range(n - 1, -1, -1):
        entry = tape.pop() if consume else tape[k]
        if entry.prim.multiple_results:
            ct = [_value(cts.pop(o, None)) if o is not None else None for o in entry.out]
            if all(c is None for c in ct):
                continue
        else:
            ct = cts.pop(entry.out, None)
            if ct is None:
                continue
        for node, ct_in in zip(entry.nodes, _entry_vjp(entry, ct)):
            if node is not None and ct_in is not None:
                cts[node] = _accumulate(cts.get(node), ct_in)
    return cts


class _Negated:
    """A cotangent ``-value`` whose negation waits until it is needed: added to
    another cotangent it is one subtraction (``a + (-b) = a - b``), and it passes
    through every linear rule (``-(J^T v) = J^T (-v)``), cancelling against the
    next negation."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value


def _accumulate(prev: Any, ct: Any) -> Any:
    if prev is None:
        return ct
    if type(ct) is _Negated:
        if type(prev) is _Negated:
            return _Negated(prev.value + ct.value)
        return prev - ct.value
    if type(prev) is _Negated:
        return ct - prev.value
    return prev + ct


def _flipped(ct: Any) -> Any:
    if ct is None:
        return None
    return ct.value if type(ct) is _Negated else _Negated(ct)


def _value(ct: Any) -> Any:
    return -ct.value if type(ct) is _Negated else ct


def _entry_vjp(entry: TapeEntry, ct: Any) -> list:
    """Cotangents of an entry's operands (``None``: a constant's, or zero)."""
    prim = entry.prim
    if type(ct) is _Negated:
        if prim.vjp_rule is not None:  # a user's backward: not necessarily linear
            ct = -ct.value
        else:  # every rule below is linear in ct: the negation passes through
            return [_flipped(c) for c in _entry_vjp(entry, ct.value)]
    if prim.vjp_rule is not None:
        return entry.ans(ct)
    params, primals, nodes = entry.params, entry.primals, entry.nodes
    partials = prim.partials
    if partials is not None:  # diagonal Jacobian: transpose == itself
        ans = entry.ans
        out = []
        for node, partial, x in zip(nodes, partials, primals):
            if node is None or partial is None:
                out.append(None)
                continue
            lazy = partial is negated  # (x - y in y): negated lazily, see _Negated
            g = ct if lazy else partial(ct, ans, *primals, **params)
            if g.shape != x.shape:
                g = unbroadcast(g, x.shape)
            out.append(_Negated(g) if lazy else g)
        return out
    if _transposes(prim, nodes):
        if prim.multilinear:  # linear in each operand with the others fixed
            out = []
            for i, node in enumerate(nodes):
                if node is None:
                    out.append(None)
                    continue
                args = list(primals)
                args[i] = UndefinedPrimal(aval_of(primals[i]))
                out.append(prim.transpose(ct, *args, **params)[i])
            return out
        args = [UndefinedPrimal(aval_of(x)) if node is not None else x
                for x, node in zip(primals, nodes)]
        return prim.transpose(ct, *args, **params)
    return _vjp_by_linearizing(prim, params, primals, nodes, ct)


_READS: dict = {}


def entry_reads(entry: TapeEntry) -> tuple[tuple, tuple]:
    """Which values of a tape entry its backward reads (its residuals):
    ``(output_flags, operand_flags)``, one flag per output (``ans``, or each of a
    multiple-results primitive's outputs) and one per operand in ``primals``.
    Values may be arrays or their ``ShapedArray``; ``out`` is not read.

    Found by tracing the entry's vector-Jacobian product abstractly and looking at
    what the traced program uses, so it follows whichever rule the primitive has
    (partials, transpose or linearization); cached per primitive, parameters and
    differentiated operands. A user-defined backward (``custom_vjp``) is opaque:
    all of its operands count as read.

    >>> import numpy as np
    >>> from fad.primitives import elementwise as E
    >>> x = np.ones(3)
    >>> entry_reads(TapeEntry(E.mul_p, {}, (x, x), x, (1, None), 2))  # d(x*c)/dx reads c
    ((False,), (False, True))
    >>> entry_reads(TapeEntry(E.exp_p, {}, (x,), x, (1,), 2))  # exp's derivative: its output
    ((True,), (False,))
    """
    prim, params, primals, nodes = entry.prim, entry.params, entry.primals, entry.nodes
    if prim.vjp_rule is not None:
        return (), (True,) * len(primals)
    try:
        key = (prim, tuple([2 if n is not None else _is_value(x)
                            for n, x in zip(nodes, primals)]), tuple(params.items()))
        reads = _READS.get(key)
    except TypeError:  # a parameter that cannot be hashed: no caching
        key, reads = None, None
    if reads is None:
        if (prim.partials is None and not prim.multilinear and _transposes(prim, nodes)
                and all(n is not None for n in nodes)):
            # transposed with every operand undefined: nothing to read (see _entry_vjp)
            n_out = len(entry.ans) if prim.multiple_results else 1
            reads = (False,) * n_out, (False,) * len(primals)
        else:
            reads = _trace_reads(entry)
        if key is not None:
            if len(_READS) > 4096:
                _READS.clear()
            _READS[key] = reads
    return reads


def _is_value(x: Any) -> bool:
    """An array (or abstract array) rather than a Python scalar baked into a rule."""
    return hasattr(x, "shape") and hasattr(x, "dtype")


def _trace_reads(entry: TapeEntry) -> tuple[tuple, tuple]:
    prim = entry.prim
    multi = prim.multiple_results
    outs = list(entry.ans) if multi else [entry.ans]
    n_out = len(outs)
    vals = outs + list(entry.primals)
    pos = [i for i, v in enumerate(vals) if _is_value(v)]

    def vjp_of_entry(*xs: Any) -> list:
        full = list(vals)
        for i, x in zip(pos, xs[n_out:]):
            full[i] = x
        ct = list(xs[:n_out]) if multi else xs[0]
        res = _entry_vjp(replace(entry, primals=full[n_out:],
                                        ans=full[:n_out] if multi else full[0]), ct)
        return [_value(r) for r in res if r is not None]

    avals = [aval_of(o) for o in outs] + [aval_of(vals[i]) for i in pos]
    try:
        closed, _ = trace_to_jaxpr(vjp_of_entry, avals, label=f"the vjp of {prim.name}")
    except Exception:  # a rule that needs concrete values: assume it reads everything
        return (True,) * n_out, (True,) * len(entry.primals)
    jaxpr = closed.jaxpr
    used = {id(v) for v in jaxpr.outvars}
    for eqn in reversed(jaxpr.eqns):  # what the cotangents depend on (dead code aside)
        if any(id(v) in used for v in eqn.outvars):
            used.update(id(v) for v in eqn.invars)
    flags = [False] * len(vals)
    for i, v in zip(pos, jaxpr.invars[n_out:]):
        flags[i] = id(v) in used
    return tuple(flags[:n_out]), tuple(flags[n_out:])


def _transposes(prim: Any, nodes: Any) -> bool:
    """Whether ``prim``'s ``transpose`` rule gives its vjp for these operands."""
    return prim.transpose is not None and (prim.linear_in is None or all(
        node is None or i in prim.linear_in for i, node in enumerate(nodes)))


def _vjp_by_linearizing(prim: Any, params: dict, primals: list, nodes: list, ct: Any
                        ) -> list:
    return _linearized(prim, params, primals, nodes)(ct if prim.multiple_results else [ct])


def _linearized(prim: Any, params: dict, primals: list, nodes: list, later: bool = False
                ) -> Callable[[list], list]:
    """The transposed linearization of one application of ``prim`` in its
    differentiated operands: output cotangents (a list, None for zero) to operand
    cotangents (None for a constant). ``later``: it owns its constants."""
    idx = [i for i, node in enumerate(nodes) if node is not None]

    def one_primitive(*xs: Any) -> list:
        args = list(primals)
        for i, x in zip(idx, xs):
            args[i] = x
        out = bind(prim, *args, **params)
        return list(out) if prim.multiple_results else [out]

    _, lin, is_zero = linearize_flat(one_primitive, [primals[i] for i in idx],
                                     label=f"the vjp of {prim.name}", later=later)

    def transposed(cts: list) -> list:
        outvars = iter(lin.jaxpr.outvars)  # one per output whose tangent is not zero
        live = []
        for c, zero in zip(cts, is_zero):
            if not zero:
                v = next(outvars)
                live.append(c if c is not None else _zeros(v.aval, primals))
        got = backward_pass(lin.jaxpr, lin.consts, live) if live else [None] * len(idx)
        out: list = [None] * len(primals)
        for i, g in zip(idx, got):
            out[i] = g
        return out
    return transposed


def _zeros(aval: ShapedArray, like: list) -> Any:
    """Zeros of ``aval`` on the backend of the arrays among ``like`` (the default
    backend when they are all tracers)."""
    concrete = [a for a in like if not isinstance(a, Tracer)]
    xp = namespace_of(concrete) if concrete else default_xp()
    if xp is np:
        return np.zeros(aval.shape, aval.dtype)
    return xp.zeros(aval.shape, dtype=getattr(xp, aval.dtype.name))


def vjp_flat(fun: Callable, primals: list, label: str = "fad.vjp",
             aux_box: list | None = None, later: bool = False) -> tuple[list, Callable]:
    """Run ``fun`` taping it; returns the outputs and ``pull(cts, consume)``.
    ``later``: the pullback may run after the caller has written into its arrays
    (``fad.vjp``), so the tape keeps copies of its own (``own_residuals``)."""
    tape: list = []
    if later:  # (custom rules' residuals hold the inputs out of the tape's sight)
        primals = [owned(p) for p in primals]
    with new_main(VJPTrace, tape, label=label) as main:
        trace = main.trace
        ins = [VJPTracer(trace, p, next(_node_ids)) for p in primals]
        out_primals, out_nodes = unpack_all(trace, fun(*ins))
        if aux_box:  # (no call at all on grad's common path)
            lower_aux(trace, aux_box)
    if later and aux_box:
        aux, aux_tree = tree_flatten(aux_box[0])
        values = own_residuals(tape, out_primals + aux)
        out_primals = values[:len(out_primals)]
        aux_box[0] = tree_unflatten(aux_tree, values[len(out_primals):])
    elif later:
        out_primals = own_residuals(tape, out_primals)
    return out_primals, tape_pullback(tape, out_nodes, [t.node for t in ins])


def tape_pullback(tape: list, out_nodes: list, in_nodes: list) -> Callable:
    """``pull(cts_out, consume=False)``: cotangents of the outputs (nodes
    ``out_nodes``) to cotangents of the inputs (nodes ``in_nodes``), by running
    ``tape`` backwards (``consume``: pop its entries, once only)."""
    def pull(cts_out: list, consume: bool = False) -> list:
        cts: dict[int, Any] = {}
        for node, ct in zip(out_nodes, cts_out):
            if node is not None and ct is not None:
                cts[node] = _accumulate(cts.get(node), ct)
        cts = pullback(tape, cts, consume)
        return [_value(cts.get(n)) for n in in_nodes]
    return pull


def entry_vjp(prim: Any, params: dict, nodes: tuple, n_inputs: int) -> Callable:
    """``vjp(res, ct)``: the cotangents of inputs ``0 .. n_inputs - 1`` of one
    application of the single-output ``prim`` whose operand ``i`` is input
    ``nodes[i]`` (``None``: a constant), from its output's cotangent ``ct``; ``res``
    is ``(*operands, output)``. What pulling ``ct`` back through a tape of that one
    entry gives (``None`` for an input the output does not depend on), built once
    for many applications with the same structure: an elementwise primitive whose
    differentiated operands are distinct inputs goes straight to its partials,
    any other through ``_entry_vjp``.

    >>> import numpy as np
    >>> from fad.primitives import elementwise as E
    >>> vjp = entry_vjp(E.mul_p, {}, (0, None), 1)  # x * c, in x
    >>> x, c = np.ones(2), np.full(2, 3.0)
    >>> vjp((x, c, x * c), np.ones(2))[0].tolist()
    [3.0, 3.0]
    """
    partials = prim.partials
    steps = tuple((i, k, partials[i] if partials is not None else None)
                  for i, k in enumerate(nodes) if k is not None)
    ks = [k for _, k, _ in steps]
    if (partials is None or prim.vjp_rule is not None or len(set(ks)) < len(ks)
            or any(p is None for _, _, p in steps)):
        def vjp(res: tuple, ct: Any) -> list:
            entry = TapeEntry(prim, params, res[:-1], res[-1], nodes, None)
            out: list = [None] * n_inputs
            for node, c in zip(nodes, _entry_vjp(entry, ct)):
                if node is not None and c is not None:
                    out[node] = _accumulate(out[node], c)
            return [_value(c) for c in out]
        return vjp
    if len(nodes) == 1 and not params:  # (unary maths: the common case, spelled out)
        partial = steps[0][2]

        def vjp(res: tuple, ct: Any) -> list:
            x, ans = res
            g = partial(ct, ans, x)
            if g.shape != x.shape:
                g = unbroadcast(g, x.shape)
            return [g]
        return vjp

    def vjp(res: tuple, ct: Any) -> list:
        primals, ans = res[:-1], res[-1]
        out: list = [None] * n_inputs
        for i, k, partial in steps:
            g = -ct if partial is negated else partial(ct, ans, *primals, **params)
            shape = primals[i].shape
            if g.shape != shape:
                g = unbroadcast(g, shape)
            out[k] = g
        return out
    return vjp


class _Prelinearized:
    """A tape entry's primitive, linearized by ``own_residuals``: the entry's
    pullback (in place of its output) is the transposed linearization."""

    vjp_rule = multiple_results = True

    def __init__(self, name: str):
        self.name = name


def own_residuals(tape: list, values: list) -> list:
    """Make ``tape``, whose pullback runs after the forward pass has returned
    (``fad.vjp``'s function), independent of arrays the caller can write into: an
    array an entry reads that the forward pass did not make (an array the function
    closes over) is replaced by a read-only copy, as ``jit`` captures constants,
    and an entry without a direct rule is linearized now, owning its constants.
    Returns ``values`` (what goes back to the caller: outputs, ``aux``) with each
    array the tape holds replaced by a copy of its own.

    >>> import numpy as np, fad.numpy as fnp
    >>> c = np.ones(2)
    >>> (y,), pull = vjp_flat(lambda x: [fnp.exp(x) * c], [np.zeros(2)], later=True)
    >>> c[:] = 5.0; y[:] = 0.0  # the caller writes into its arrays...
    >>> pull([np.ones(2)])[0].tolist()  # ...the pullback still sees their values then
    [1.0, 1.0]
    """
    made = set()  # ids of the arrays the forward pass made (entries' outputs)
    for entry in tape:
        if entry.prim.vjp_rule is None:
            made.update(map(id, entry.ans) if entry.prim.multiple_results else (id(entry.ans),))
    copies: dict[int, Any] = {}

    def own(x: Any) -> Any:
        if type(x) is not np.ndarray or id(x) in made or not x.flags.writeable:
            return x
        got = copies.get(id(x))
        if got is None:
            got = copies[id(x)] = owned(x)
        return got

    for k, entry in enumerate(tape):
        prim, primals, nodes = entry.prim, entry.primals, entry.nodes
        new = [own(p) for p in primals]
        if any(a is not b for a, b in zip(new, primals)):
            tape[k] = entry = replace(entry, primals=type(primals)(new))
        if prim.vjp_rule is None and prim.partials is None and not _transposes(prim, nodes):
            # linearized now rather than when the pullback runs: a rule written by
            # the user (custom_jvp) reads the arrays it closes over now, as jit would
            try:
                pull = _linearized(prim, entry.params, list(entry.primals), list(nodes),
                                   later=True)
            except Exception:  # (the pullback will meet the same error, if it runs)
                continue
            tape[k] = replace(entry, prim=_Prelinearized(prim.name), ans=pull,
                                     out=entry.out if prim.multiple_results else [entry.out])
    return [v.copy() if type(v) is np.ndarray and (id(v) in made or not v.flags.writeable)
            else v for v in values]
