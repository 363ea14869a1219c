"""The operation table of the facade and the dispatcher that runs it.

Every facade operation is one entry: a small *fad function* on arrays (written
with ``fad.numpy``) and the name PyTorch gives its ``grad_fn``. ``apply`` runs
the function directly on the arrays when no gradient is recorded, and otherwise
records it through the core's reverse mode: a tape of primitive applications in
the format of ``fad.interpreters.tape`` (``VJPTrace``), whose pullback (the core's
``pullback``) becomes the ``grad_fn`` node. Derivatives therefore come from the
core's primitive rules only.

Recording has three paths, one graph: the general one runs the function under a
fresh ``vjp_flat`` (always used while a fad transformation is running, so that
the operation is traced into it); when none is, an operation seen before with the
same signature is recorded without tracing, either by calling its one primitive
directly ("direct form") or by evaluating its cached IR ("program"). See the
sections below; ``tests/torch/test_torch_fast_paths.py`` checks the three agree.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import numpy as fnp
from ..backends import default_backend
from ..core.errors import ShapeError
from ..core.ir import Literal
from ..core.trace import Tracer, current_state, new_main
from ..interpreters.tape import (
    VJPTrace,
    VJPTracer,
    entry_reads,
    flows_through,
    tape_pullback,
    unpack_all,
)
from ..transforms.autodiff import make_jaxpr, stop_gradient
from ..transforms.autodiff import vjp as fad_vjp
from ._dtype import array_np_dtype, default_np, result_type
from ._grad_mode import GRAD_ENABLED
from ._graph import accumulate_grad, make_node, node_type, save_output
from .tensor import Tensor, note_alias, view_of_own, wrap

_PYS = (bool, int, float, complex)
_NOPARAMS: dict = {}
_grad_enabled = GRAD_ENABLED.get


class TorchShapeError(RuntimeError, ShapeError):
    """A shape/dtype error raised by a facade operation (a ``RuntimeError`` as in
    PyTorch, and a ``fad.ShapeError``)."""


# ------------------------------------------------------------------ dtype kinds
EW = 1      # elementwise: PyTorch promotion over the inputs
EWF = 2     # elementwise, result at least floating (true division, atan2)
UF = 3      # unary maths: integers become the default float dtype
CMP = 4     # comparison: promoted inputs, bool output (never differentiable)


def _target(kind: int, vals: list) -> np.dtype | None:
    """The dtype the inputs must be cast to, or ``None`` when they already agree."""
    d0 = None
    simple = True
    for v in vals:
        tv = type(v)
        if tv is float or tv is int or v is None:
            continue
        if tv in _PYS:
            simple = False
            break
        d = v.dtype
        if d0 is None:
            d0 = d
        elif d != d0:
            simple = False
            break
    if simple and d0 is not None and isinstance(d0, np.dtype) and d0.kind == "f":
        return None
    if kind == UF:
        dt = array_np_dtype(vals[0])
    else:
        dt = result_type(vals)
    if dt is None:
        return None
    if kind in (EWF, UF) and dt.kind not in "fc":
        dt = default_np()
    for v in vals:
        if v is not None and type(v) not in _PYS and array_np_dtype(v) != dt:
            return dt
    return None


def _cast(vals: list, dt: np.dtype) -> list:
    return [v if v is None or type(v) in _PYS or array_np_dtype(v) == dt
            else fnp.asarray(v, dt) for v in vals]


# ------------------------------------------------------------------ ops
class Op:
    """One facade operation: ``fun(*inputs, **params)`` and its grad_fn name."""

    __slots__ = ("name", "fun", "grad_fn", "kind", "saves", "multi", "label", "cls", "prune")

    def __init__(self, name: str, fun: Callable, grad_fn: str | Callable,
                 kind: int | None = None, saves: bool = True, multi: bool = False,
                 prune: bool = False):
        self.prune = prune  # outputs that do not depend on the inputs get no grad_fn
        self.name = name
        self.fun = fun
        self.grad_fn = grad_fn
        self.kind = kind
        self.saves = saves
        self.multi = multi
        self.label = f"fad.torch operation {name}"
        self.cls = node_type(grad_fn) if isinstance(grad_fn, str) else None


def apply(op: Op, args: tuple, params: dict = _NOPARAMS) -> Any:
    """Run ``op`` on ``args`` (Tensors, Python scalars, arrays); record a
    ``grad_fn`` when grad mode is on and an input requires grad."""
    grad_on = _grad_enabled()
    vals = []
    diff = None
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            vals.append(a._value)
            if a._requires_grad and grad_on:
                if diff is None:
                    diff = [i]
                else:
                    diff.append(i)
        else:
            vals.append(a)
    if diff is None:
        dt = _target(op.kind, vals) if op.kind else None
        try:
            out = op.fun(*(_cast(vals, dt) if dt is not None else vals), **params)
        except (ShapeError, ValueError) as e:
            raise _torch_error(op, vals, e) from None
        if op.multi:
            return tuple(_aliasing(wrap(o), args) for o in out)
        t = wrap(out)
        # a view of an input, or the input itself (``view`` to the same shape)
        if type(out) is np.ndarray and (out.base is not None or out is vals[0]):
            _aliasing(t, args)
        return t
    if not op.multi:
        state = _trace_state()
        if state.empty and state.no_grad is None:  # no fad transformation is running
            key = _signature(op, vals, diff, params)
            if key is not None:
                form = _DIRECT.get(key, _UNKNOWN)
                if form is _UNKNOWN:
                    return _record(op, args, vals, diff, params, key)
                # (key[1] is ``diff`` as a tuple: what the node keeps)
                if form is not None:
                    out = _apply_direct(form, op, args, vals, key[1], params)
                else:
                    out = _apply_program(key, op, args, vals, key[1], params)
                if out is not None:
                    return out
    return _record(op, args, vals, diff, params)


def _record(op: Op, args: tuple, vals: list, diff: list, params: dict,
            key: tuple | None = None) -> Any:
    """The general recording path: the core's reverse mode (a ``VJPTrace``) applied to
    the operation's fad function; with ``key``, also learn whether the operation is
    one primitive application (see ``_direct_form``)."""
    dt = _target(op.kind, vals) if op.kind else None
    deps: list = []
    flat = make_flat(op, vals, diff, dt, params, deps if op.prune else None)
    primals = [vals[i] for i in diff]
    try:
        outs, out_nodes, in_nodes, tape = _taped(flat, primals, op.label)
        pull = tape_pullback(tape, out_nodes, in_nodes)
    except (ShapeError, ValueError) as e:
        raise _torch_error(op, vals, e) from None
    cls = op.cls or node_type(op.grad_fn(vals, params))
    saved, out_saved, inner = _saved_positions(tape, args, vals, params, outs)
    if op.saves and inner:
        saved = _union(saved, diff)
    if key is not None:
        if len(_DIRECT) >= _DIRECT_MAX:
            _DIRECT.clear()
        _DIRECT[key] = (_direct_form(op, vals, diff, dt, params, outs, out_nodes, in_nodes,
                                     tape, cls, args, _as_diff(saved, diff), out_saved)
                        if dt is None else None)
    for i in diff:  # the node needs only the constants from now on
        vals[i] = None
    tensors = tuple([args[i] for i in diff])
    nexts, nrs = _edges(tensors)
    node = make_node(cls, pull, (op, tuple(vals), tuple(diff), dt, params), tensors,
                     nexts, nrs, _layout(args, diff), op.saves, len(outs),
                     tuple([args[i] for i in saved]) if saved else None)
    res = []
    for k, o in enumerate(outs):
        if type(o) is not np.ndarray and isinstance(o, np.generic):
            o = np.asarray(o)
        if deps and not deps[0][k]:
            t = wrap(o)
        elif array_np_dtype(o).kind in "fc":
            t = wrap(o, True, node, k)
        else:
            t = wrap(o)
        res.append(_aliasing(t, args))
    for k in out_saved:
        save_output(node, k, res[k])
    return tuple(res) if op.multi else res[0]


def _saved_positions(tape: list, args: tuple, vals: list, params: dict, outs: list
                     ) -> tuple:
    """Which arguments (Tensors) and outputs of an operation hold a buffer that its
    backward reads: the residuals of the tape's entries (``entry_reads``), or views
    of them (``fnp.matmul`` of vectors reads reshaped views of its operands); and
    whether it reads a value computed inside the operation, neither an argument nor
    an output, nor an array parameter (``relu``'s mask, ``var``'s centred values: see
    ``_union``)."""
    read: list = []
    for prim, eparams, primals, ans, nodes, _ in tape:
        out_flags, in_flags = entry_reads(prim, eparams, primals, ans, nodes)
        read += [x for x, f in zip(primals, in_flags) if f]
        read += [x for x, f in zip(ans if prim.multiple_results else (ans,), out_flags) if f]
    roots = {id(_root(x)) for x in read}
    saved = tuple([i for i, a in enumerate(args)
                   if isinstance(a, Tensor) and id(_root(vals[i])) in roots])
    ids = {id(x) for x in read}
    known = {id(_root(v)) for v in (*vals, *params.values())} | {id(o) for o in outs}
    inner = not roots <= known
    return saved, tuple([k for k, o in enumerate(outs) if id(o) in ids]), inner


_DIFF = ("the differentiated inputs",)  # ``saved`` positions that are ``diff``'s


def _as_diff(saved: tuple, diff: Any) -> tuple:
    return _DIFF if tuple(saved) == tuple(diff) else saved


def _union(saved: tuple, diff: Any) -> tuple:
    """``saved`` and the differentiated inputs. An operation that the table says saves
    its inputs (as PyTorch's does) and whose backward reads a value computed from
    them inside the operation (``gelu``, ``clamp``, ``var``...) checks the inputs that
    value stands for, as PyTorch would; one whose backward reads only its output
    (``exp``, ``tanh``) or constants (``x * c``) does not, as PyTorch's does not."""
    return tuple(sorted(set(saved).union(diff)))


def _root(x: Any) -> Any:
    """The array owning the memory of NumPy array ``x`` (``x`` itself if it does)."""
    if type(x) is np.ndarray and x.base is not None:
        return x.base
    return x


def _with_views(saved: tuple, slots: tuple, env: list, diff: tuple, args: tuple,
                vals: list) -> tuple:
    """``saved`` and the arguments whose buffer one of the arrays in these ``slots`` of
    ``env`` views."""
    roots = None
    for s in slots:
        a = env[s]
        if type(a) is np.ndarray and a.base is not None:
            roots = {id(a.base)} if roots is None else roots | {id(a.base)}
    if roots is None:
        return saved
    if saved is _DIFF:
        saved = diff
    more = [i for i, a in enumerate(args) if i not in saved and isinstance(a, Tensor)
            and id(_root(vals[i])) in roots]
    return saved + tuple(more) if more else saved


def _aliasing(t: Tensor, args: tuple) -> Tensor:
    """Give output ``t`` the version counter of the argument whose buffer its array
    is or views: an in-place write through either is a write to both (PyTorch's
    views share their base's counter); that argument (or its own base) becomes
    ``t._base``."""
    o = t._value
    if type(o) is np.ndarray:
        root = o.base
        for a in args:
            if isinstance(a, Tensor):
                v = a._value
                if v is o or root is not None and (v is root or type(v) is np.ndarray
                                                   and v.base is root):
                    if a._cow:
                        view_of_own(t, a)
                    t._vc = a._vc
                    t._base = a if a._base is None else a._base
                    note_alias(t)
                    break
    return t


def _edges(tensors: tuple) -> tuple[tuple, tuple]:
    """``next_functions`` of a node recorded on ``tensors``: (nodes, output numbers)."""
    nexts = []
    nrs = []
    for t in tensors:
        fn = t._grad_fn
        if fn is None:
            nexts.append(accumulate_grad(t))
            nrs.append(0)
        else:
            nexts.append(fn)
            nrs.append(t._output_nr)
    return tuple(nexts), tuple(nrs)


def _layout(args: tuple, diff: list) -> tuple | None:
    """Where each argument's entry of ``next_functions`` comes from: the index of the
    recorded input, or ``-1`` for a constant (``None`` arguments have none)."""
    if len(diff) == len(args):
        return None
    lay = []
    k = 0
    for i, a in enumerate(args):
        if k < len(diff) and diff[k] == i:
            lay.append(k)
            k += 1
        elif a is not None:
            lay.append(-1)
    return tuple(lay)


# ------------------------------------------------------------------ the direct path
# Most facade operations are one primitive applied to the operation's own inputs
# (``sin``, ``mul``, ``matmul``, ``sum``...). The first time an operation is recorded
# with a given signature (input shapes and dtypes, which inputs require grad, Python
# scalar types, parameters) it runs through the core's reverse mode as above, and the
# tape is inspected: if it holds a single primitive application whose operands are the
# operation's inputs (or parameters) themselves, that "direct form" is remembered.
# Later calls with the same signature, when no fad transformation is running, apply
# the primitive's ``impl`` to the arrays and hand the node a one-entry tape in the core's
# format; the backward pass is the core's ``pullback`` of that tape, i.e. the
# primitive's own rules (partials, transpose or linearization). The facade still owns
# no derivative rule, and the graph (``grad_fn`` names, ``next_functions``, saved
# values, versions) is the one the general path would have built.
_DIRECT: dict = {}
_DIRECT_MAX = 4096
_UNKNOWN = object()
_trace_state = current_state
_SIMPLE_PARAMS = frozenset({bool, int, float, complex, str, type(None), type(Ellipsis)})


def _signature(op: Op, vals: list, diff: list, params: dict) -> tuple | None:
    """What the direct form of ``op`` may depend on, or ``None`` when the inputs are not
    plain NumPy arrays and Python scalars (or a parameter is not a plain value)."""
    parts = [op, tuple(diff)]
    append = parts.append
    for v in vals:
        tv = type(v)
        if tv is np.ndarray:
            append(v.shape)
            append(v.dtype)
        elif tv is float or tv is complex or v is None:
            append(tv)
        elif tv is int or tv is bool:  # small ints are shared objects: key their value
            append(tv)
            append(v)
        else:
            return None
    if params:
        for k, v in params.items():
            tv = type(v)
            if tv in _SIMPLE_PARAMS:
                append((k, tv, v))
            elif tv is tuple and all(type(e) in _SIMPLE_PARAMS for e in v):
                append((k, tuple(map(type, v)), v))
            elif isinstance(v, np.dtype):
                append((k, v))
            elif tv is np.ndarray:  # an index or a mask: an input of the operation
                append((k, tv, v.shape, v.dtype))
            else:
                return None
    return tuple(parts)


def _taped(flat: Callable, primals: list, label: str) -> tuple:
    """``fad.interpreters.tape.vjp_flat``'s forward half, keeping the tape visible:
    ``(out_primals, out_nodes, in_nodes, tape)``."""
    tape: list = []
    with new_main(VJPTrace, tape, label=label) as main:
        trace = main.trace
        # input nodes: fresh objects, distinct from whatever ids the core gives outputs
        ins = [VJPTracer(trace, p, object()) for p in primals]
        out_primals, out_nodes = unpack_all(trace, flat(*ins))
    return out_primals, out_nodes, [t.node for t in ins], tape


def _direct_form(op: Op, vals: list, diff: list, dt: Any, params: dict, outs: list,
                 out_nodes: list, in_nodes: list, tape: list, cls: type, args: tuple,
                 saved: tuple, out_saved: tuple) -> tuple | None:
    """``(prim, prim_params, sources, nodes, param_names, cls, layout, saved,
    out_saved)`` when the tape is one primitive applied to the operation's inputs,
    else ``None``."""
    if len(tape) != 1 or len(outs) != 1:
        return None
    prim, eparams, primals, ans, nodes, out_node = tape[0]
    if (prim.multiple_results or prim.vjp_rule is not None or prim.inline is not None
            or out_nodes[0] != out_node or outs[0] is not ans
            or not all(_plain(v) for v in eparams.values())):
        return None
    pnames = list(params)
    sources = []
    enodes = []
    for x, n in zip(primals, nodes):
        if n is not None:
            if n not in in_nodes:
                return None
            k = in_nodes.index(n)
            sources.append(diff[k])
            enodes.append(k)
            continue
        for i, v in enumerate(vals):
            if v is x and i not in diff:
                sources.append(i)
                break
        else:
            for j, name in enumerate(pnames):
                if params[name] is x:
                    sources.append(len(vals) + j)
                    break
            else:  # an operand computed by the operation: not direct
                return None
        enodes.append(None)
    used = tuple(name for j, name in enumerate(pnames) if len(vals) + j in sources)
    if used != tuple(pnames[:len(used)]):  # keep parameter sources contiguous
        return None
    identity = not used and tuple(sources) == tuple(range(len(vals)))
    return (prim, eparams, None if identity else tuple(sources), tuple(enodes), used, cls,
            _layout(args, diff), saved, out_saved)


def _apply_direct(form: tuple, op: Op, args: tuple, vals: list, diff: tuple,
                  params: dict) -> Any:
    """Record ``op`` by its direct form (``None``: take the general path instead)."""
    prim, eparams, sources, enodes, pnames, cls, layout, saved, out_saved = form
    if sources is None:
        operands = vals
    else:
        src = vals if not pnames else vals + [params[name] for name in pnames]
        operands = [src[s] for s in sources]
    try:
        ans = prim.impl(*operands, **eparams)
    except Exception:  # the general path reports the error in the facade's words
        return None
    pull = _entry_pull((prim, eparams, operands, ans, enodes, -1), len(diff))
    return _finish(op, args, vals, diff, None, params, cls, layout, pull, ans, saved,
                   out_saved)


def _entry_pull(entry: tuple, n: int) -> Callable:
    """The pullback of a one-entry tape whose output node is -1 and whose operands'
    nodes are the recorded inputs' positions. The entry is never consumed: a
    released linear node may run again."""
    pull = tape_pullback([entry], _OUT_NODE, _POSITIONS[n] if n < 8 else list(range(n)))
    return lambda cts_out, consume=False: pull(cts_out)


_OUT_NODE = [-1]
_POSITIONS = [list(range(n)) for n in range(8)]  # (read only, as tape_pullback reads them)


def _plain(v: Any) -> bool:
    """A parameter value that cannot have been computed from array values."""
    tv = type(v)
    if tv in _SIMPLE_PARAMS or isinstance(v, np.dtype):
        return True
    return tv is tuple and all(_plain(e) for e in v)


def _finish(op: Op, args: tuple, vals: list, diff: tuple, dt: Any, params: dict,
            cls: type, layout: tuple | None, pull: Callable, out: Any, saved: tuple,
            out_saved: tuple, same: bool = False) -> Any:
    """The node of a recorded operation and its output Tensor (the direct paths).
    ``saved``, ``out_saved``: see ``_saved_positions``; ``same``: the output may be
    an input's array itself."""
    n = len(diff)
    if n == len(args):  # the node keeps the constants only: here, none
        consts = (None,) * n
        tensors = args
    else:
        consts = list(vals)
        for i in diff:
            consts[i] = None
        consts = tuple(consts)
        tensors = (args[diff[0]],) if n == 1 else tuple([args[i] for i in diff])
    if n == 1:  # _edges, inlined: the common case
        t = tensors[0]
        fn = t._grad_fn
        if fn is None:
            nexts, nrs = (accumulate_grad(t),), (0,)
        else:
            nexts, nrs = (fn,), (t._output_nr,)
    else:
        nexts, nrs = _edges(tensors)
    node = make_node(cls, pull, (op, consts, diff, dt, params), tensors, nexts, nrs,
                     layout, op.saves, 1,
                     tensors if saved is _DIFF else
                     tuple([args[i] for i in saved]) if saved else None)
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    t = wrap(out, True, node) if out.dtype.kind in "fc" else wrap(out)
    if out.base is not None or same:
        _aliasing(t, args)
    if out_saved:
        save_output(node, 0, t)
    return t


# ------------------------------------------------------------------ programs
# An operation that is not one primitive (``log_softmax``, ``nll_loss``, ``relu``,
# ``mse_loss``...) is traced once per signature (Python scalar values included) to
# its IR with ``fad.make_jaxpr``, every array input abstract. Later calls evaluate
# that program on the arrays, equation by equation with each primitive's ``impl``,
# and tape the equations that depend on a recorded input exactly as the core's
# ``VJPTrace`` does (same entries, same rule for what is taped); the node's
# pullback is the core's ``pullback`` of that tape. An operation whose program
# cannot be traced abstractly (value-dependent Python control flow), or that holds
# calls, custom rules or multiple-output primitives on its differentiated path,
# keeps the general path. A signature is compiled the second time it is seen.
_PROGRAMS: dict = {}
_SEEN_ONCE = object()
_COMPILE_ON_FIRST_SIGHT = False  # the tests set it to exercise programs everywhere
_PROGRAM_CONSTS_MAX = 1 << 20  # bytes of constants a cached program may hold


class _Program:
    __slots__ = ("env0", "in_slots", "sources", "code", "out_slot", "cls", "layout",
                 "saved", "out_saved", "derived", "same", "out_nodes", "in_nodes")


def _program_key(key: tuple, vals: list, dt: Any) -> tuple | None:
    parts = [key, dt, default_backend()]
    for v in vals:
        tv = type(v)
        if tv is float:  # baked into the program: by value (hex: -0.0 and nan too)
            parts.append(v.hex())
        elif tv is complex:
            parts.append((v.real.hex(), v.imag.hex()))
    return tuple(parts)


def _apply_program(key: tuple, op: Op, args: tuple, vals: list, diff: tuple,
                   params: dict) -> Any:
    """Record ``op`` by evaluating its cached program (``None``: take the general
    path instead)."""
    dt = _target(op.kind, vals) if op.kind else None
    pkey = _program_key(key, vals, dt)
    prog = _PROGRAMS.get(pkey, _UNKNOWN)
    if prog is _UNKNOWN or prog is _SEEN_ONCE:
        if len(_PROGRAMS) >= _DIRECT_MAX:
            _PROGRAMS.clear()
        if prog is _UNKNOWN and _COMPILE_ON_FIRST_SIGHT is False:
            _PROGRAMS[pkey] = _SEEN_ONCE
            return None
        prog = _PROGRAMS[pkey] = _compile(op, args, vals, diff, dt, params)
    if prog is None:
        return None
    env = prog.env0.copy()
    for s, src in zip(prog.in_slots, prog.sources):
        env[s] = vals[src] if type(src) is int else params[src]
    tape = []
    try:
        for prim, eparams, ins, out, nodes in prog.code:
            xs = [env[a] for a in ins]
            ans = prim.impl(*xs, **eparams)
            if type(out) is int:
                env[out] = ans
                if nodes is not None:
                    tape.append((prim, eparams, xs, ans, nodes, out))
            else:
                for o, a in zip(out, ans):
                    env[o] = a
    except Exception:  # the general path reports the error in the facade's words
        return None
    pull = tape_pullback(tape, prog.out_nodes, prog.in_nodes)
    saved = prog.saved
    if prog.derived:  # computed values the backward reads: views of an input, perhaps
        saved = _with_views(saved, prog.derived, env, diff, args, vals)
    return _finish(op, args, vals, diff, dt, params, prog.cls, prog.layout, pull,
                   env[prog.out_slot], saved, prog.out_saved, prog.same)


def _compile(op: Op, args: tuple, vals: list, diff: list, dt: Any, params: dict
             ) -> _Program | None:
    """Trace ``op`` to its program at these inputs, or ``None`` if it cannot be
    evaluated and taped outside the core's tracing (see above)."""
    sources: list = [i for i, v in enumerate(vals) if type(v) is np.ndarray]
    n_vals = len(sources)
    sources += [k for k, v in params.items() if type(v) is np.ndarray]

    def program(*arrays: Any) -> Any:
        full = list(vals)
        ps = dict(params) if n_vals < len(sources) else params
        for src, a in zip(sources, arrays):
            if type(src) is int:
                full[src] = a
            else:
                ps[src] = a
        if dt is not None:
            full = _cast(full, dt)
        return op.fun(*full, **ps)

    try:
        closed = make_jaxpr(program)(*[vals[s] if type(s) is int else params[s]
                                       for s in sources])
    except Exception:  # value-dependent control flow and the like: the general path
        return None
    jaxpr = closed.jaxpr
    if (len(jaxpr.outvars) != 1 or type(jaxpr.outvars[0]) is Literal
            or jaxpr.outvars[0] in jaxpr.constvars  # (a result every call would share)
            or sum(getattr(c, "nbytes", 0) for c in closed.consts) > _PROGRAM_CONSTS_MAX):
        return None  # (large constants, as cumsum's triangle, are not kept alive)
    env0: list = []
    slot: dict = {}
    seen: list = []  # per slot: its value or abstract value (what entry_reads needs)

    def new(v: Any, value: Any = None) -> int:
        slot[v] = len(env0)
        env0.append(value)
        seen.append(v.aval if value is None else value)
        return slot[v]

    for v, c in zip(jaxpr.constvars, closed.consts):
        new(v, c)
    in_slots = [new(v) for v in jaxpr.invars]
    diff_slots = tuple(in_slots[sources.index(i)] for i in diff)
    live = set(diff_slots)  # slots holding a value taped (or recorded) as a node
    dep = set(diff_slots)  # slots computed from the differentiated inputs
    read: set = set()  # slots the backward reads (see _saved_positions)
    code = []
    for eqn in jaxpr.eqns:
        prim = eqn.primitive
        if prim.inline is not None or prim.vjp_rule is not None:
            return None
        ins = []
        for a in eqn.invars:
            if type(a) is Literal:
                ins.append(len(env0))
                env0.append(a.val)
                seen.append(a.val)
            else:
                ins.append(slot[a])
        on_path = any(i in live for i in ins)
        from_diff = not dep.isdisjoint(ins)
        if prim.multiple_results:
            if on_path:
                return None
            code.append((prim, eqn.params, tuple(ins), tuple(new(v) for v in eqn.outvars),
                         None))
            if from_diff:
                dep.update(code[-1][3])
            continue
        out = new(eqn.outvars[0])
        if from_diff:
            dep.add(out)
        nodes = None
        if on_path:  # as VJPTrace.process_primitive decides
            if prim.jvp is None:
                return None
            if flows_through(prim, eqn.outvars[0].aval.dtype.kind in "fc", len(ins)):
                nodes = tuple(i if i in live else None for i in ins)
                live.add(out)
                out_flags, in_flags = entry_reads(prim, eqn.params, [seen[i] for i in ins],
                                                  eqn.outvars[0].aval, nodes)
                read.update(i for i, f in zip(ins, in_flags) if f)
                if out_flags and out_flags[0]:
                    read.add(out)
        code.append((prim, eqn.params, tuple(ins), out, nodes))
    prog = _Program()
    prog.env0 = env0
    prog.in_slots = tuple(in_slots)
    prog.sources = tuple(sources)
    prog.code = tuple(code)
    prog.out_slot = slot[jaxpr.outvars[0]]
    prog.cls = op.cls or node_type(op.grad_fn(vals, params))
    prog.layout = _layout(args, diff)
    prog.saved = tuple([src for s, src in zip(in_slots, sources)
                        if s in read and type(src) is int and isinstance(args[src], Tensor)])
    if op.saves and not read.isdisjoint(dep - set(in_slots) - {prog.out_slot}):  # _union
        prog.saved = _union(prog.saved, diff)
    prog.saved = _as_diff(prog.saved, diff)
    prog.out_saved = (0,) if prog.out_slot in read else ()
    # computed values the backward reads: views of an input at run time, perhaps
    prog.derived = tuple(sorted(s for s in read if env0[s] is None and s not in in_slots))
    prog.same = prog.out_slot in in_slots
    # the output node and the input nodes, as lists for tape_pullback (which only reads them)
    prog.out_nodes = [prog.out_slot if prog.out_slot in live else None]
    prog.in_nodes = list(diff_slots)
    return prog


def make_flat(op: Op, vals: Any, diff: Any, dt: Any, params: dict,
              deps: list | None = None) -> Callable:
    """``op`` as a function of its differentiable inputs only (the others fixed).
    With ``deps``, records which outputs depend on those inputs (are traced)."""
    fun = op.fun
    multi = op.multi

    def flat(*xs: Any) -> list:
        full = list(vals)
        for p, x in zip(diff, xs):
            full[p] = x
        if dt is not None:
            full = _cast(full, dt)
        out = fun(*full, **params)
        out = list(out) if multi else [out]
        if deps is not None:
            deps.append([isinstance(o, Tracer) for o in out])
        return out
    return flat


def double_backward(node: Any, cts: list) -> list:
    """A node's vector-Jacobian product as a recorded operation on Tensors, so that
    ``create_graph=True`` yields differentiable gradients. The function is the
    core's ``fad.vjp`` of the node's own fad function: transformations nest."""
    fun = make_flat(*node._fun)
    ins = node._inputs
    if ins is None:  # a released linear node: its vjp does not depend on the inputs
        ins = tuple(wrap(z) for z in node._zero_inputs())
    k = len(ins)
    present = [c is not None for c in cts]

    def backward_fun(*xs: Any) -> list:
        outs, vjp_fn = fad_vjp(lambda *a: fun(*a), *xs[:k])
        given = iter(xs[k:])
        full = [next(given) if p else fnp.zeros_like(o) for p, o in zip(present, outs)]
        return list(vjp_fn(full))

    name = node.name() + "Backward"
    op = Op(name, backward_fun, name, None, True, multi=True, prune=True)
    ct_tensors = tuple(c if isinstance(c, Tensor) else wrap(c) for c in cts if c is not None)
    out = apply(op, tuple(ins) + ct_tensors)
    return list(out)


def _torch_error(op: Op, vals: list, e: Exception) -> Exception:
    shapes = [tuple(v.shape) for v in vals if v is not None and type(v) not in _PYS
              and hasattr(v, "shape")]
    msg = None
    if op.kind in (EW, EWF, CMP) and len(shapes) >= 2:
        msg = _broadcast_message(shapes)
    if msg is None:
        msg = f"{op.name}: {e}"
    return TorchShapeError(msg)


def _broadcast_message(shapes: list) -> str | None:
    a, b = shapes[0], shapes[1]
    n = max(len(a), len(b))
    pa, pb = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    for d in range(n - 1, -1, -1):
        if pa[d] != pb[d] and pa[d] != 1 and pb[d] != 1:
            return (f"The size of tensor a ({pa[d]}) must match the size of tensor b "
                    f"({pb[d]}) at non-singleton dimension {d}")
    return None


# ------------------------------------------------------------------ helpers used by ops
def _ax(dim: Any) -> Any:
    return tuple(dim) if isinstance(dim, list) else dim


def _squeeze_dims(a: Any, dims: Any) -> Any:
    return fnp.squeeze(a, axis=dims) if dims != () else a


def _sum(a: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    return fnp.sum(a, axis=_ax(dim), keepdims=keepdim, dtype=dtype)


def _mean(a: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    return fnp.mean(a, axis=_ax(dim), keepdims=keepdim, dtype=dtype)


def _var(a: Any, dim: Any = None, correction: float = 1, keepdim: bool = False) -> Any:
    return fnp.var(a, axis=_ax(dim), ddof=correction, keepdims=keepdim)


def _std(a: Any, dim: Any = None, correction: float = 1, keepdim: bool = False) -> Any:
    return fnp.sqrt(_var(a, dim, correction, keepdim))


def _max_dim(a: Any, dim: int, keepdim: bool, arg: Callable) -> list:
    if a.ndim == 0:
        return [a, fnp.zeros((), dtype=np.int64)]
    idx = arg(a, axis=dim, keepdims=True)
    vals = fnp.take_along_axis(a, idx, axis=dim)
    if not keepdim:
        vals = fnp.squeeze(vals, axis=dim)
        idx = fnp.squeeze(idx, axis=dim)
    return [vals, idx]


def _logsumexp(a: Any, dim: Any, keepdim: bool = False) -> Any:
    m = stop_gradient(fnp.max(a, axis=_ax(dim), keepdims=True))
    m = fnp.where(fnp.isfinite(m), m, 0.0)
    out = fnp.log(fnp.sum(fnp.exp(a - m), axis=_ax(dim), keepdims=True)) + m
    return out if keepdim else _squeeze_dims(out, _ax(dim))


def _softmax(a: Any, dim: int) -> Any:
    if a.ndim == 0:
        return fnp.exp(a - a)
    m = stop_gradient(fnp.max(a, axis=dim, keepdims=True))
    e = fnp.exp(a - m)
    return e / fnp.sum(e, axis=dim, keepdims=True)


def _log_softmax(a: Any, dim: int) -> Any:
    if a.ndim == 0:
        return a - a
    m = stop_gradient(fnp.max(a, axis=dim, keepdims=True))
    s = a - m
    return s - fnp.log(fnp.sum(fnp.exp(s), axis=dim, keepdims=True))


def _cumsum(a: Any, dim: int) -> Any:
    if a.ndim == 0:
        return a
    n = a.shape[dim]
    upper = np.triu(np.ones((n, n), dtype=array_np_dtype(a)))
    moved = fnp.moveaxis(a, dim, -1)
    return fnp.moveaxis(fnp.matmul(moved, upper), -1, dim)


def _prod(a: Any, dim: Any = None, keepdim: bool = False) -> Any:
    if dim is None:
        flat = fnp.reshape(a, (-1,))
        out = _prod_axis(flat, 0)
        return fnp.reshape(out, (1,) * a.ndim) if keepdim else out
    out = _prod_axis(a, dim)
    return fnp.expand_dims(out, dim) if keepdim else out


def _prod_axis(a: Any, dim: int) -> Any:
    n = a.shape[dim] if a.ndim else 1
    if a.ndim == 0:
        return a
    index = [slice(None)] * a.ndim
    out = None
    for i in range(n):
        index[dim] = i
        part = a[tuple(index)]
        out = part if out is None else out * part
    if out is None:
        shape = tuple(s for d, s in enumerate(a.shape) if d != dim % a.ndim)
        return fnp.ones(shape, dtype=array_np_dtype(a))
    return out


def _norm(a: Any, p: Any = 2, dim: Any = None, keepdim: bool = False) -> Any:
    dim = _ax(dim)
    if p == 2 or p == "fro":
        s = fnp.sum(a * a, axis=dim, keepdims=keepdim)
        zero = s == 0
        return fnp.where(zero, 0.0, fnp.sqrt(fnp.where(zero, 1.0, s)))
    if p == 1:
        return fnp.sum(fnp.abs(a), axis=dim, keepdims=keepdim)
    if p in (math.inf, "inf"):
        return fnp.max(fnp.abs(a), axis=dim, keepdims=keepdim)
    if p == 0:
        return fnp.sum(fnp.asarray(a != 0, array_np_dtype(a)), axis=dim, keepdims=keepdim)
    return fnp.sum(fnp.abs(a) ** p, axis=dim, keepdims=keepdim) ** (1.0 / p)


def _erf(x: Any) -> Any:
    """erf by Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7), in fad operations."""
    s = fnp.sign(x)
    a = fnp.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (
        -1.453152027 + t * 1.061405429))))
    return s * (1.0 - poly * fnp.exp(-a * a))


def _gelu(x: Any, approximate: str = "none") -> Any:
    if approximate == "tanh":
        return 0.5 * x * (1.0 + fnp.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    return 0.5 * x * (1.0 + _erf(x * 0.7071067811865476))


def _softplus(x: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    z = x * beta
    big = z > threshold
    return fnp.where(big, x, fnp.log1p(fnp.exp(fnp.where(big, 0.0, z))) / beta)


def _elu(x: Any, alpha: float = 1.0) -> Any:
    pos = x > 0
    return fnp.where(pos, x, alpha * fnp.expm1(fnp.where(pos, 0.0, x)))


def _logsigmoid(x: Any) -> Any:
    # log sigmoid(x) = min(x, 0) - log1p(e^-|x|), with min(x, 0) = -max(-x, 0)
    return -fnp.maximum(-x, 0.0) - fnp.log1p(fnp.exp(-fnp.abs(x)))


def _reduce(loss: Any, reduction: str) -> Any:
    if reduction == "mean":
        return fnp.mean(loss)
    if reduction == "sum":
        return fnp.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _bce_logits(x: Any, t: Any, weight: Any = None, pos_weight: Any = None,
                reduction: str = "mean") -> Any:
    softplus_neg = fnp.log1p(fnp.exp(-fnp.abs(x))) + fnp.maximum(-x, 0.0)
    if pos_weight is not None:
        log_weight = 1.0 + (pos_weight - 1.0) * t
        loss = (1.0 - t) * x + log_weight * softplus_neg
    else:
        loss = (1.0 - t) * x + softplus_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _bce(p: Any, t: Any, weight: Any = None, reduction: str = "mean") -> Any:
    log_p = fnp.maximum(fnp.log(p), -100.0)
    log_q = fnp.maximum(fnp.log(1.0 - p), -100.0)
    loss = -(t * log_p + (1.0 - t) * log_q)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _nll(logp: Any, target: Any, weight: Any = None, ignore_index: int = -100,
         reduction: str = "mean") -> Any:
    if logp.ndim == 1:
        logp = fnp.expand_dims(logp, 0)
        target = fnp.reshape(target, (1,))
        squeeze = True
    else:
        squeeze = False
    valid = target != ignore_index
    safe = fnp.where(valid, target, 0)
    picked = fnp.squeeze(fnp.take_along_axis(logp, fnp.expand_dims(safe, 1), axis=1), 1)
    w = fnp.asarray(valid, array_np_dtype(logp))
    if weight is not None:
        w = w * fnp.take(weight, safe)
    loss = -picked * w
    if reduction == "mean":
        return fnp.sum(loss) / fnp.sum(w)
    if reduction == "sum":
        return fnp.sum(loss)
    return fnp.reshape(loss, ()) if squeeze else loss


def _soft_ce(x: Any, target: Any, dim: int, weight: Any, reduction: str,
             label_smoothing: float) -> Any:
    logp = _log_softmax(x, dim)
    n_cls = x.shape[dim]
    if label_smoothing:
        target = target * (1.0 - label_smoothing) + label_smoothing / n_cls
    if weight is not None:
        shape = [1] * x.ndim
        shape[dim] = n_cls
        logp = logp * fnp.reshape(weight, tuple(shape))
    return _reduce(-fnp.sum(target * logp, axis=dim), reduction)


def _smooth_ce(logp: Any, target: Any, weight: Any, ignore_index: int, reduction: str,
               eps: float) -> Any:
    """Label smoothing with class indices: (1-eps) * nll + eps * mean over classes."""
    nll = _nll(logp, target, weight, ignore_index, reduction)
    valid = fnp.asarray(target != ignore_index, array_np_dtype(logp))
    lp = logp if weight is None else logp * weight
    smooth = -fnp.mean(lp, axis=1) * valid
    if reduction == "mean":
        denom = fnp.sum(valid) if weight is None else fnp.sum(
            fnp.take(weight, fnp.where(target != ignore_index, target, 0)) * valid)
        smooth = fnp.sum(smooth) / denom
    elif reduction == "sum":
        smooth = fnp.sum(smooth)
    return (1.0 - eps) * nll + eps * smooth


def _repeat(a: Any, reps: tuple) -> Any:
    shape = (1,) * (len(reps) - a.ndim) + tuple(a.shape)
    a = fnp.reshape(a, shape)
    expanded = []
    target = []
    for r, s in zip(reps, shape):
        expanded += [1, s]
        target += [r, s]
    out = fnp.broadcast_to(fnp.reshape(a, tuple(expanded)), tuple(target))
    return fnp.reshape(out, tuple(r * s for r, s in zip(reps, shape)))


def _flip(a: Any, dims: tuple) -> Any:
    index = [slice(None)] * a.ndim
    for d in dims:
        index[d] = slice(None, None, -1)
    return a[tuple(index)]


def _roll(a: Any, shifts: tuple, dims: tuple | None) -> Any:
    if dims is None:
        flat = fnp.reshape(a, (-1,))
        return fnp.reshape(_roll(flat, shifts, (0,)), a.shape)
    for s, d in zip(shifts, dims):
        n = a.shape[d]
        if n == 0:
            continue
        s %= n
        if s:
            index_a = [slice(None)] * a.ndim
            index_b = [slice(None)] * a.ndim
            index_a[d] = slice(n - s, None)
            index_b[d] = slice(None, n - s)
            a = fnp.concatenate([a[tuple(index_a)], a[tuple(index_b)]], axis=d)
    return a


def _split(a: Any, sizes: list, dim: int) -> list:
    out, start = [], 0
    index = [slice(None)] * a.ndim
    for s in sizes:
        index[dim] = slice(start, start + s)
        out.append(a[tuple(index)])
        start += s
    return out


def _unbind(a: Any, dim: int) -> list:
    index = [slice(None)] * a.ndim
    out = []
    for i in range(a.shape[dim]):
        index[dim] = i
        out.append(a[tuple(index)])
    return out


def _gather(a: Any, dim: int, index: Any) -> Any:
    sl = tuple(slice(0, index.shape[d]) if d != dim else slice(None) for d in range(a.ndim))
    if any(index.shape[d] != a.shape[d] for d in range(a.ndim) if d != dim):
        a = a[sl]
    return fnp.take_along_axis(a, index, axis=dim)


def _tri(a: Any, diagonal: int, lower: bool) -> Any:
    n, m = a.shape[-2], a.shape[-1]
    mask = np.tri(n, m, diagonal, dtype=bool) if lower else ~np.tri(n, m, diagonal - 1,
                                                                    dtype=bool)
    return fnp.where(mask, a, 0)


def _index_put(a: Any, v: Any, index: Any = None, accumulate: bool = False) -> Any:
    """``a[index] = v`` out of place: ``v`` is placed by the transpose of the gather."""
    zeros = fnp.zeros_like(a)
    index = _full_index(index)
    picked, scatter = fad_vjp(lambda z: z[index], zeros)
    v = fnp.broadcast_to(fnp.asarray(v, array_np_dtype(a)), picked.shape)
    placed = scatter(v)[0]
    if accumulate:
        return a + placed
    mask = scatter(fnp.ones(picked.shape, dtype=array_np_dtype(a)))[0] != 0
    return fnp.where(mask, placed, a)


def _pad(a: Any, pad: tuple, value: float = 0.0) -> Any:
    for i in range(len(pad) // 2):
        d = a.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo < 0 or hi < 0:
            index = [slice(None)] * a.ndim
            index[d] = slice(max(-lo, 0), a.shape[d] - max(-hi, 0))
            a = a[tuple(index)]
            lo, hi = max(lo, 0), max(hi, 0)
        parts = []
        for n in (lo, None, hi):
            if n is None:
                parts.append(a)
            elif n:
                shape = list(a.shape)
                shape[d] = n
                parts.append(fnp.full(tuple(shape), value, dtype=array_np_dtype(a)))
        a = fnp.concatenate(parts, axis=d) if len(parts) > 1 else a
    return a


def _matmul_name(vals: list, params: dict) -> str:
    na, nb = len(vals[0].shape), len(vals[1].shape)
    return {(1, 1): "DotBackward0", (2, 2): "MmBackward0", (2, 1): "MvBackward0",
            (1, 2): "SqueezeBackward4"}.get((na, nb), "UnsafeViewBackward0")


def _index_name(vals: list, params: dict) -> str:
    last = "AliasBackward0"
    for i in params["index"]:
        if i is None:
            last = "UnsqueezeBackward0"
        elif i is Ellipsis:
            continue
        elif isinstance(i, slice):
            if i != slice(None) or last == "AliasBackward0":
                last = "SliceBackward0"
        elif isinstance(i, int | np.integer) and not isinstance(i, bool):
            last = "SelectBackward0"
        else:
            return "IndexBackward0"
    return last


def _full_index(index: tuple) -> tuple:
    """An explicit trailing ``...`` (the Array API requires every axis be indexed)."""
    if any(i is Ellipsis for i in index):
        return index
    return index + (Ellipsis,)


def _clone(a: Any) -> Any:
    return fnp.array(a, copy=True)


def _to(a: Any, dtype: Any) -> Any:
    return fnp.asarray(a, dtype)


def _where(a: Any, b: Any, cond: Any = None) -> Any:
    return fnp.where(cond, a, b)


def _mm(a: Any, b: Any) -> Any:
    return fnp.matmul(a, b)


# ------------------------------------------------------------------ THE TABLE
# name: (fad function, grad_fn name, dtype kind, saves tensors for backward)
_TABLE: dict[str, tuple] = {
    # arithmetic
    "add": (lambda a, b, alpha=1: fnp.add(a, b if alpha == 1 else fnp.multiply(b, alpha)),
            "AddBackward0", EW, False),
    "sub": (lambda a, b, alpha=1: fnp.subtract(a, b if alpha == 1 else fnp.multiply(b, alpha)),
            "SubBackward0", EW, False),
    "rsub": (lambda a, other=0, alpha=1: fnp.subtract(
        other, a if alpha == 1 else fnp.multiply(a, alpha)), "RsubBackward1", None, False),
    "rsub_t": (lambda a, b, alpha=1: fnp.subtract(
        b, a if alpha == 1 else fnp.multiply(a, alpha)), "RsubBackward0", EW, False),
    "mul": (fnp.multiply, "MulBackward0", EW, True),
    "div": (fnp.divide, "DivBackward0", EWF, True),
    "floor_divide": (fnp.floor_divide, "FloorDivideBackward0", EW, True),
    "remainder": (fnp.remainder, "RemainderBackward0", EW, True),
    "pow": (fnp.power, "PowBackward1", EW, True),
    "pow_scalar": (lambda a, exponent=1: a ** exponent, "PowBackward0", None, True),
    "rpow": (lambda a, base=1: fnp.power(base, a), "PowBackward2", None, True),
    "maximum": (fnp.maximum, "MaximumBackward0", EW, True),
    "minimum": (fnp.minimum, "MinimumBackward0", EW, True),
    "atan2": (fnp.arctan2, "Atan2Backward0", EWF, True),
    "neg": (fnp.negative, "NegBackward0", None, False),
    "abs": (fnp.abs, "AbsBackward0", None, True),
    "sign": (fnp.sign, "SignBackward0", None, True),
    "floor": (fnp.floor, "FloorBackward0", None, True),
    "ceil": (fnp.ceil, "CeilBackward0", None, True),
    "round": (lambda a: fnp.where(a - fnp.floor(a) == 0.5, 2.0 * fnp.floor(a / 2.0 + 0.5),
                                  fnp.floor(a + 0.5)), "RoundBackward0", None, True),
    "trunc": (lambda a: fnp.sign(a) * fnp.floor(fnp.abs(a)), "TruncBackward0", None, True),
    "frac": (lambda a: a - fnp.sign(a) * fnp.floor(fnp.abs(a)), "FracBackward0", None, True),
    # unary maths (integers become floats)
    "exp": (fnp.exp, "ExpBackward0", UF, True),
    "exp2": (lambda a: fnp.power(2.0, a), "Exp2Backward0", UF, True),
    "expm1": (fnp.expm1, "Expm1Backward0", UF, True),
    "log": (fnp.log, "LogBackward0", UF, True),
    "log2": (fnp.log2, "Log2Backward0", UF, True),
    "log10": (fnp.log10, "Log10Backward0", UF, True),
    "log1p": (fnp.log1p, "Log1PBackward0", UF, True),
    "sqrt": (fnp.sqrt, "SqrtBackward0", UF, True),
    "rsqrt": (lambda a: 1.0 / fnp.sqrt(a), "RsqrtBackward0", UF, True),
    "square": (lambda a: a * a, "PowBackward0", None, True),
    "reciprocal": (lambda a: 1.0 / a, "ReciprocalBackward0", UF, True),
    "sin": (fnp.sin, "SinBackward0", UF, True),
    "cos": (fnp.cos, "CosBackward0", UF, True),
    "tan": (fnp.tan, "TanBackward0", UF, True),
    "asin": (fnp.arcsin, "AsinBackward0", UF, True),
    "acos": (fnp.arccos, "AcosBackward0", UF, True),
    "atan": (fnp.arctan, "AtanBackward0", UF, True),
    "sinh": (fnp.sinh, "SinhBackward0", UF, True),
    "cosh": (fnp.cosh, "CoshBackward0", UF, True),
    "tanh": (fnp.tanh, "TanhBackward0", UF, True),
    "sigmoid": (fnp.sigmoid, "SigmoidBackward0", UF, True),
    "erf": (_erf, "ErfBackward0", UF, True),
    # activations
    "relu": (lambda a: fnp.where(a > 0, a, 0), "ReluBackward0", None, True),
    "leaky_relu": (lambda a, negative_slope=0.01: fnp.where(a > 0, a, a * negative_slope),
                   "LeakyReluBackward0", None, True),
    "elu": (_elu, "EluBackward0", None, True),
    "gelu": (_gelu, "GeluBackward0", None, True),
    "silu": (lambda a: a * fnp.sigmoid(a), "SiluBackward0", None, True),
    "softplus": (_softplus, "SoftplusBackward0", None, True),
    "logsigmoid": (_logsigmoid, "LogSigmoidBackward0", None, True),
    "hardtanh": (lambda a, min_val=-1.0, max_val=1.0: fnp.clip(a, min_val, max_val),
                 "HardtanhBackward0", None, True),
    "softmax": (_softmax, "SoftmaxBackward0", UF, True),
    "log_softmax": (_log_softmax, "LogSoftmaxBackward0", UF, True),
    "clamp": (lambda a, min=None, max=None: fnp.clip(a, min, max), "ClampBackward1", None,
              True),
    "clamp_t": (lambda a, min=None, max=None: fnp.clip(a, min, max), "ClampBackward0", None,
                True),
    "clamp_min": (lambda a, min=None: fnp.clip(a, min, None), "ClampMinBackward0", None,
                  True),
    "clamp_max": (lambda a, max=None: fnp.clip(a, None, max), "ClampMaxBackward0", None,
                  True),
    # comparisons and logic (never differentiable)
    "eq": (fnp.equal, None, CMP, False),
    "ne": (fnp.not_equal, None, CMP, False),
    "lt": (fnp.less, None, CMP, False),
    "le": (fnp.less_equal, None, CMP, False),
    "gt": (fnp.greater, None, CMP, False),
    "ge": (fnp.greater_equal, None, CMP, False),
    "logical_and": (lambda a, b: fnp.logical_and(a != 0, b != 0), None, None, False),
    "logical_or": (lambda a, b: fnp.logical_or(a != 0, b != 0), None, None, False),
    "logical_xor": (lambda a, b: fnp.logical_xor(a != 0, b != 0), None, None, False),
    "logical_not": (lambda a: fnp.logical_not(a != 0), None, None, False),
    "isnan": (fnp.isnan, None, None, False),
    "isfinite": (fnp.isfinite, None, None, False),
    "isinf": (lambda a: fnp.logical_not(fnp.logical_or(fnp.isfinite(a), fnp.isnan(a))),
              None, None, False),
    # reductions
    "sum": (_sum, "SumBackward0", None, False),
    "sum_dim": (_sum, "SumBackward1", None, False),
    "nansum": (lambda a, dim=None, keepdim=False: _sum(fnp.where(fnp.isnan(a), 0.0, a), dim,
                                                       keepdim), "NansumBackward0", None, True),
    "mean": (_mean, "MeanBackward0", None, False),
    "mean_dim": (_mean, "MeanBackward1", None, False),
    "prod": (_prod, "ProdBackward0", None, True),
    "prod_dim": (_prod, "ProdBackward1", None, True),
    "var": (_var, "VarBackward0", None, True),
    "std": (_std, "StdBackward0", None, True),
    "norm": (_norm, "LinalgVectorNormBackward0", None, True),
    "logsumexp": (_logsumexp, "LogsumexpBackward0", UF, True),
    "amax": (lambda a, dim=None, keepdim=False: fnp.max(a, axis=_ax(dim), keepdims=keepdim),
             "AmaxBackward0", None, True),
    "amin": (lambda a, dim=None, keepdim=False: fnp.min(a, axis=_ax(dim), keepdims=keepdim),
             "AminBackward0", None, True),
    "max": (fnp.max, "MaxBackward1", None, True),
    "min": (fnp.min, "MinBackward1", None, True),
    "max_dim": (lambda a, dim=0, keepdim=False: _max_dim(a, dim, keepdim, fnp.argmax),
                "MaxBackward0", None, True, True),
    "min_dim": (lambda a, dim=0, keepdim=False: _max_dim(a, dim, keepdim, fnp.argmin),
                "MinBackward0", None, True, True),
    "argmax": (lambda a, dim=None, keepdim=False: fnp.argmax(a, axis=dim, keepdims=keepdim),
               None, None, False),
    "argmin": (lambda a, dim=None, keepdim=False: fnp.argmin(a, axis=dim, keepdims=keepdim),
               None, None, False),
    "all": (lambda a, dim=None, keepdim=False: fnp.all(a, axis=_ax(dim), keepdims=keepdim),
            None, None, False),
    "any": (lambda a, dim=None, keepdim=False: fnp.any(a, axis=_ax(dim), keepdims=keepdim),
            None, None, False),
    "cumsum": (_cumsum, "CumsumBackward0", None, False),
    # shapes
    "view": (lambda a, shape=(): fnp.reshape(a, shape), "ViewBackward0", None, False),
    "unsqueeze": (lambda a, dim=0: fnp.expand_dims(a, dim), "UnsqueezeBackward0", None,
                  False),
    "squeeze": (lambda a, dims=(): _squeeze_dims(a, dims), "SqueezeBackward0", None, False),
    "squeeze_dim": (lambda a, dims=(): _squeeze_dims(a, dims), "SqueezeBackward1", None,
                    False),
    "squeeze_dims": (lambda a, dims=(): _squeeze_dims(a, dims), "SqueezeBackward2", None,
                     False),
    "permute": (lambda a, dims=(): fnp.transpose(a, dims), "PermuteBackward0", None, False),
    "transpose": (lambda a, dim0=0, dim1=1: fnp.swapaxes(a, dim0, dim1),
                  "TransposeBackward0", None, False),
    "t": (lambda a: fnp.transpose(a) if a.ndim == 2 else a, "TBackward0", None, False),
    "expand": (lambda a, shape=(): fnp.broadcast_to(a, shape), "ExpandBackward0", None,
               False),
    "repeat": (_repeat, "RepeatBackward0", None, False),
    "flip": (_flip, "FlipBackward0", None, False),
    "roll": (_roll, "RollBackward0", None, False),
    "cat": (lambda *xs, dim=0: fnp.concatenate(xs, axis=dim), "CatBackward0", EW, False),
    "stack": (lambda *xs, dim=0: fnp.stack(xs, axis=dim), "StackBackward0", EW, False),
    "split": (_split, "SplitBackward0", None, False, True),
    "split_sizes": (_split, "SplitWithSizesBackward0", None, False, True),
    "unbind": (_unbind, "UnbindBackward0", None, False, True),
    "getitem": (lambda a, index=(): a[_full_index(index)], _index_name, None, False),
    "index_select": (lambda a, dim=0, index=None: fnp.take(a, index, axis=dim),
                     "IndexSelectBackward0", None, True),
    "gather": (_gather, "GatherBackward0", None, True),
    "embedding": (lambda w, index=None: w[index], "EmbeddingBackward0", None, True),
    "masked_fill": (lambda a, mask=None, value=0.0: fnp.where(mask, value, a),
                    "MaskedFillBackward0", None, True),
    "where": (_where, "WhereBackward0", EW, True),
    "tril": (lambda a, diagonal=0: _tri(a, diagonal, True), "TrilBackward0", None, False),
    "triu": (lambda a, diagonal=0: _tri(a, diagonal, False), "TriuBackward0", None, False),
    "pad": (_pad, "ConstantPadNdBackward0", None, False),
    "index_put": (_index_put, "CopySlices", None, True),
    "trace": (fnp.trace, "TraceBackward0", None, False),
    "clone": (_clone, "CloneBackward0", None, False),
    "grad_copy": (_clone, "CopyBackwards", None, False),
    "to": (_to, "ToCopyBackward0", None, False),
    "copy": (lambda a, src, dtype=None: fnp.asarray(fnp.broadcast_to(src, a.shape), dtype),
             "CopyBackwards", None, False),
    "fill": (lambda a, value=0.0: fnp.full(a.shape, value, dtype=array_np_dtype(a)),
             "FillBackward0", None, False),
    "zero": (lambda a: fnp.zeros_like(a), "ZeroBackward0", None, False),
    # products
    "matmul": (fnp.matmul, _matmul_name, EW, True),
    "mm": (_mm, "MmBackward0", EW, True),
    "bmm": (_mm, "BmmBackward0", EW, True),
    "mv": (_mm, "MvBackward0", EW, True),
    "dot": (_mm, "DotBackward0", EW, True),
    "outer": (fnp.outer, "MulBackward0", EW, True),
    "addmm": (lambda c, a, b, beta=1, alpha=1: (c if beta == 1 else c * beta) + (
        fnp.matmul(a, b) if alpha == 1 else fnp.matmul(a, b) * alpha), "AddmmBackward0", EW,
              True),
    "einsum": (lambda *xs, equation="": fnp.einsum(equation, *xs), "ViewBackward0", EW,
               True),
    # losses
    "mse_loss": (lambda x, t, reduction="mean": _reduce((x - t) * (x - t), reduction),
                 "MseLossBackward0", EW, True),
    "l1_loss": (lambda x, t, reduction="mean": _reduce(fnp.abs(x - t), reduction),
                "L1LossBackward0", EW, True),
    "smooth_l1_loss": (lambda x, t, reduction="mean", beta=1.0: _reduce(fnp.where(
        fnp.abs(x - t) < beta, 0.5 * (x - t) * (x - t) / beta, fnp.abs(x - t) - 0.5 * beta),
        reduction), "SmoothL1LossBackward0", EW, True),
    "huber_loss": (lambda x, t, reduction="mean", delta=1.0: _reduce(fnp.where(
        fnp.abs(x - t) <= delta, 0.5 * (x - t) * (x - t),
        delta * (fnp.abs(x - t) - 0.5 * delta)), reduction), "HuberLossBackward0", EW, True),
    "bce_with_logits": (_bce_logits, "BinaryCrossEntropyWithLogitsBackward0", EW, True),
    "bce": (_bce, "BinaryCrossEntropyBackward0", EW, True),
    "nll_loss": (lambda logp, target=None, weight=None, ignore_index=-100,
                 reduction="mean": _nll(logp, target, weight, ignore_index, reduction),
                 "NllLossBackward0", None, True),
    "soft_cross_entropy": (lambda x, t, dim=1, weight=None, reduction="mean",
                           label_smoothing=0.0: _soft_ce(x, t, dim, weight, reduction,
                                                         label_smoothing),
                           "DivBackward1", EW, True),
    "smooth_cross_entropy": (lambda logp, target=None, weight=None, ignore_index=-100,
                             reduction="mean", eps=0.0: _smooth_ce(
                                 logp, target, weight, ignore_index, reduction, eps),
                             "AddBackward0", None, True),
    "kl_div": (lambda x, t, reduction="mean", log_target=False: _reduce(
        fnp.exp(t) * (t - x) if log_target else
        fnp.where(t > 0, t * (fnp.log(fnp.where(t > 0, t, 1.0)) - x), 0.0), reduction),
        "KlDivBackward0", EW, True),
    "dropout": (lambda a, mask=None, scale=1.0: a * mask * scale, "MulBackward0", None, True),
}

OPS: dict[str, Op] = {}
for _name, _entry in _TABLE.items():
    _fun, _gname, _kind, _saves, *_multi = _entry
    OPS[_name] = Op(_name, _fun, _gname or "NotDifferentiable", _kind, _saves,
                    bool(_multi and _multi[0]))
del _name, _entry, _fun, _gname, _kind, _saves, _multi


def call(name: str, *args: Any, **params: Any) -> Any:
    """Apply table operation ``name``."""
    return apply(OPS[name], args, params)
