"""Double backward in the facade: a node's vector-Jacobian product recorded as an
operation of its own, so that ``create_graph=True`` gives gradients with a
``grad_fn``.

The operation (``_backward_op``, one per kind of node) is the core's ``fad.vjp``
of the node's own fad function, taking the node's inputs, its constants and the
cotangents; it is recorded like any facade operation (by its cached program after
the first calls). Edges go only to the inputs that product reads
(``_inputs_read``): the gradient of a function linear in ``x`` is not connected
to ``x``, as in PyTorch's graph.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import numpy as fnp
from ..core.ir import Literal
from ..interpreters.dce import dce
from ..transforms.autodiff import make_jaxpr
from ..transforms.autodiff import vjp as fad_vjp
from . import _graph
from ._direct import _Direct, consts_of, function_of, input_values, inputs_of
from ._recorder import (
    _DIRECT_MAX,
    _PYS,
    _UNKNOWN,
    Op,
    _grad_enabled,
    apply,
    make_flat,
    signature_key,
)
from .tensor import Tensor, wrap


def double_backward(node: Any, cts: list) -> list:
    """A node's vector-Jacobian product as a recorded operation on Tensors, so that
    ``create_graph=True`` yields differentiable gradients. The function is the
    core's ``fad.vjp`` of the node's own fad function (transformations nest), an
    operation of its own per kind of node (``_backward_op``) whose arguments are the
    node's inputs, its constants and the cotangents: so it is recorded as any
    operation is, by its cached program after the first calls."""
    ins = None
    if len(cts) == 1:  # (the common case, spelled out)
        c = cts[0]
        ct_tensors = (c if isinstance(c, Tensor) else wrap(c),)
        present = _ONE
    else:
        ct_tensors = tuple([c if isinstance(c, Tensor) else wrap(c) for c in cts
                            if c is not None])
        present = tuple([c is not None for c in cts])
    form = node._fun
    if type(form) is _Direct:  # the plan is the same for every node of the form
        consts, params = consts_of(node), node._params
        key = present if consts is form.no_consts else (present, _scalar_values(consts))
        plans = form.double
        if plans is None:
            plans = form.double = {}
        plan = plans.get(key)
        if plan is None:
            ins = _inputs(node)
            plan = plans[key] = _plan(node, present, ins, ct_tensors)
    else:
        ins = _inputs(node)
        plan = _plan(node, present, ins, ct_tensors)
        consts, params = form[1], form[4]
    bop, fixed_at, reads, out_deps, passes = plan
    if passes is not None:  # each gradient is a cotangent itself (``AddBackward0``): as
        return [ct_tensors[p] for p in passes]  # PyTorch's, handed on, nothing recorded
    if reads is not None and not any(reads) and not _records(ct_tensors):
        return _plain_backward(node, cts)  # (known without making the inputs)
    fixed = tuple([consts[i] for i in fixed_at]) if fixed_at else ()
    if reads is None:
        if ins is None:
            ins = _inputs(node)
    else:  # an input the vjp does not read is a constant of it, not an edge
        if ins is None and not any(reads):
            ins = _input_values(node)
        else:
            ins = tuple([t if r else t._value
                         for t, r in zip(_inputs(node) if ins is None else ins, reads)])
        if not _records(ins) and not _records(ct_tensors):
            return _plain_backward(node, cts)
    out = apply(bop, ins + fixed + ct_tensors, params)
    outs = list(out) if bop.multi else [out]
    if out_deps is not None:
        for k, o in enumerate(outs):
            if o._grad_fn is None and _grad_enabled():
                held = [ins[i] for i in out_deps[k]
                        if isinstance(ins[i], Tensor) and ins[i]._requires_grad]
                if held:
                    outs[k] = _linked(bop.name, o, held)
    return outs


def _plain_backward(node: Any, cts: list) -> list:
    """Nothing to record (a linear node's vjp of constant cotangents): the node's
    gradients as plain values, as PyTorch's."""
    got = node._backward([c._value if isinstance(c, Tensor) else c for c in cts], True, False)
    return [wrap(g) for g in got]


def _inputs(node: Any) -> tuple:
    """The node's recorded inputs (zeros of their shapes for a released linear node,
    whose vjp does not depend on them)."""
    ins = inputs_of(node)
    return tuple([wrap(z) for z in node._zero_inputs()]) if ins is None else ins


def _input_values(node: Any) -> tuple:
    """The values of the node's recorded inputs (as ``_inputs``, without remaking
    Tensors: for a vjp that reads none of them, so they are its constants)."""
    vals = input_values(node)
    return tuple(node._zero_inputs()) if vals is None else vals


def _linked(name: str, out: Tensor, held: list) -> Tensor:
    """``out``, recorded as a function of the inputs ``held`` whose values it was
    computed from without a derivative (``relu``'s mask, max pooling's positions):
    PyTorch's gradient there references the input it saved, so it requires grad, and
    differentiating it again gives zeros rather than an error."""
    op = _LINKS.get((name, len(held)))
    if op is None:
        op = _LINKS[(name, len(held))] = Op(name, _link, name, None, False)
    return apply(op, (out, *held))


_LINKS: dict = {}


def _link(out: Any, *held: Any) -> Any:
    # where(True, out, z) is out, and its derivative in z is 0; z is made from the
    # held values (times 0: an infinite value is never selected, so never read)
    z = fnp.zeros((), out.dtype)
    for x in held:
        z = z + fnp.sum(fnp.real(x) * 0).astype(out.dtype)
    return fnp.where(True, out, z)


_ONE = (True,)


def _records(args: tuple) -> bool:
    """Whether one of ``args`` is a Tensor that requires grad."""
    for a in args:
        if isinstance(a, Tensor) and a._requires_grad:
            return True
    return False


def _plan(node: Any, present: tuple, ins: tuple, ct_tensors: tuple) -> tuple:
    """``(bop, positions of the constants it takes, which inputs it reads, the inputs
    each output is computed from, the cotangent each output is when every one is a
    cotangent itself)`` for ``double_backward`` (see ``_trace_reads``)."""
    op, consts, diff, dt, params = function_of(node)
    bop = _backward_op(type(node), op, tuple(diff), dt, present, len(consts))
    fixed_at = tuple(i for i in range(len(consts)) if i not in diff)
    fixed = tuple(consts[i] for i in fixed_at)
    return (bop, fixed_at) + _inputs_read(bop, ins, fixed + ct_tensors, params,
                                          len(ct_tensors))


def _scalar_values(consts: tuple) -> tuple:
    """The Python numbers among ``consts``, by value (the key of a vjp's plan: a rule
    may depend on them; arrays it only traces)."""
    return tuple(v.hex() if type(v) is float else repr(v) for v in consts
                 if type(v) in _PYS)


_READS: dict = {}


def _inputs_read(bop: Op, ins: tuple, rest: tuple, params: dict, n_cts: int) -> tuple:
    """``(reads, out_deps, passes)``: which of a node's inputs ``ins`` its
    vector-Jacobian product ``bop`` reads, at these arguments' shapes, dtypes and
    parameters (``None``: all, or unknown); per output of ``bop`` the positions of the
    inputs it is computed from by any path (``None``: unknown); and, when every
    output is one of the ``n_cts`` cotangents (the last arguments) itself, which
    (else ``None``). A linear operation's (``add``, ``sum``, a slice...) reads none,
    as PyTorch's backward of it does not: the gradient it gives is then not
    connected to them."""
    vals = [a._value if isinstance(a, Tensor) else a for a in ins + rest]
    key = signature_key(bop, vals, (), params)
    if key is None:
        return None, None, None
    key += _scalar_values(tuple(vals))
    reads = _READS.get(key, _UNKNOWN)
    if reads is _UNKNOWN:
        if len(_READS) >= _DIRECT_MAX:
            _READS.clear()
        reads = _READS[key] = _trace_reads(bop, vals, len(ins), params, n_cts)
    return reads


def _trace_reads(bop: Op, vals: list, k: int, params: dict, n_cts: int) -> tuple:
    arrays = [i for i, v in enumerate(vals) if type(v) is np.ndarray]

    def program(*xs: Any) -> Any:
        full = list(vals)
        for i, x in zip(arrays, xs):
            full[i] = x
        return bop.fun(*full, **params)
    try:
        jaxpr = dce(make_jaxpr(program)(*[vals[i] for i in arrays])).jaxpr
    except Exception:  # value-dependent control flow and the like
        return None, None, None
    used = {a for e in jaxpr.eqns for a in e.invars if type(a) is not Literal}
    used.update(jaxpr.outvars)
    var_of = dict(zip(arrays, jaxpr.invars))
    reads = tuple(i not in var_of or var_of[i] in used for i in range(k))
    # the inputs (of the first k) each variable is computed from, by any path
    deps: dict = {var_of[i]: frozenset((i,)) for i in range(k) if i in var_of}
    for e in jaxpr.eqns:
        got = frozenset().union(*[deps.get(a, ()) for a in e.invars if type(a) is not Literal])
        for v in e.outvars:
            deps[v] = got
    out_deps = tuple(tuple(sorted(deps.get(v, ()))) if type(v) is not Literal else ()
                     for v in jaxpr.outvars)
    first_ct = len(vals) - n_cts
    cts = {var_of[i]: i - first_ct for i in range(first_ct, len(vals)) if i in var_of}
    passes = tuple(cts.get(v) if type(v) is not Literal else None for v in jaxpr.outvars)
    return (None if all(reads) else reads), out_deps, \
        (passes if passes and None not in passes else None)


_graph.DOUBLE_BACKWARD = double_backward
_BACKWARD_OPS: dict = {}


def _backward_op(cls: type, op: Op, diff: tuple, dt: Any, present: tuple, n_vals: int) -> Op:
    """The operation ``double_backward`` records for a node of class ``cls`` made by
    ``op`` (``diff``, ``dt``: see ``make_flat``) when the cotangents of its outputs
    marked in ``present`` are given: ``(*inputs, *constants, *cotangents, **params)``
    to the inputs' cotangents (one output per input; ``None`` outputs are zeros)."""
    key = (cls, op, diff, dt, present, n_vals)
    bop = _BACKWARD_OPS.get(key)
    if bop is not None:
        return bop
    k = len(diff)
    fixed = [i for i in range(n_vals) if i not in diff]
    n_fixed = len(fixed)

    def backward_fun(*xs: Any, **params: Any) -> Any:
        vals: list = [None] * n_vals
        for i, x in zip(fixed, xs[k:k + n_fixed]):
            vals[i] = x
        fun = make_flat(op, vals, diff, dt, params)
        outs, vjp_fn = fad_vjp(lambda *a: fun(*a), *xs[:k])
        given = iter(xs[k + n_fixed:])
        full = [next(given) if p else fnp.zeros_like(o) for p, o in zip(present, outs)]
        got = vjp_fn(full)
        return got[0] if k == 1 else list(got)

    name = cls.__name__ + "Backward"
    bop = Op(name, backward_fun, name, None, True, multi=k > 1, prune=True)
    if len(_BACKWARD_OPS) >= _DIRECT_MAX:
        _BACKWARD_OPS.clear()
    _BACKWARD_OPS[key] = bop
    return bop
