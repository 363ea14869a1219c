"""The facade's recorder: runs a table operation (``fad/torch/_ops.py``) and
records its ``grad_fn``.

An operation (an ``Op``) is a small *fad function* on arrays (written with
``fad.numpy``, ``fad.nn`` or primitives) and the name PyTorch gives its
``grad_fn``. ``apply`` runs the function directly on the arrays when no gradient
is recorded, and otherwise records it through the core's reverse mode: a tape of
primitive applications (``fad.interpreters.tape.TapeEntry``), whose
pullback (the core's ``pullback``) becomes the ``grad_fn`` node. Derivatives
therefore come from the core's primitive rules only.

Recording has three paths, one graph: the general one runs the function under a
fresh ``VJPTrace`` (always used while a fad transformation is running, so that
the operation is traced into it); when none is, an operation seen before with the
same signature is recorded without tracing, either by calling its one primitive
directly ("direct form", ``fad/torch/_direct.py``) or by evaluating its cached IR
("program"). See the sections below; ``tests/torch/test_torch_fast_paths.py``
checks the three agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .. import numpy as fnp
from ..backends import default_backend
from ..core.errors import ShapeError
from ..core.ir import ClosedJaxpr, Jaxpr, Literal
from ..core.trace import Tracer, current_state, new_main
from ..interpreters.codegen import compile_jaxpr
from ..interpreters.dce import dce
from ..interpreters.tape import (
    TapeEntry,
    VJPTrace,
    VJPTracer,
    entry_reads,
    flows_through,
    tape_pullback,
    unpack_all,
)
from ..transforms.autodiff import make_jaxpr
from ._compiled import PullPlan
from ._direct import (  # noqa: F401 - function_of, inputs_of and _aliasing for other modules
    _DIFF,
    _SIMPLE_PARAMS,
    _aliasing,
    _as_diff,
    _Direct,
    _direct_form,
    _edges,
    _layout,
    _root,
    _saved_tensors,
    _split,
    _union,
    _with_views,
    eager_form,
    function_of,
    inputs_of,
)
from ._dtype import array_np_dtype, default_np, result_type
from ._grad_mode import GRAD_ENABLED
from ._graph import make_node, node_type, save_output
from ._meta import MetaArray, on_meta
from ._program_recorder import program_recorder
from .tensor import Tensor, wrap

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
@dataclass(slots=True, eq=False)
class Op:
    """One facade operation: ``fun(*inputs, **params)`` and its grad_fn name (or a
    function of the inputs and parameters giving it). ``prune``: outputs that do not
    depend on the inputs get no grad_fn."""

    name: str
    fun: Callable
    grad_fn: str | Callable
    kind: int | None = None
    saves: bool = True
    multi: bool = False
    prune: bool = False
    label: str = field(init=False)
    cls: type | None = field(init=False)
    # the direct form of its last recorded call of one array (and a float), with the
    # parts of its signature and the table of forms it came from (a new table forgets
    # it): (diff, dtype, shape, type of the float or None, form, table)
    recent: tuple | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.label = f"fad.torch operation {self.name}"
        self.cls = node_type(self.grad_fn) if isinstance(self.grad_fn, str) else None


def apply(op: Op, args: tuple, params: dict = _NOPARAMS) -> Any:
    """Run ``op`` on ``args`` (Tensors, Python scalars, arrays); record a
    ``grad_fn`` when grad mode is on and an input requires grad."""
    grad_on = _grad_enabled()
    mask = 0  # bit i: argument i is recorded (a Tensor that requires grad)
    n = len(args)
    if n == 1 and type(args[0]) is Tensor:  # (the loop below, for one Tensor)
        a = args[0]
        vals = [a._value]
        if a._requires_grad and grad_on:
            mask = 1
    elif n == 2:  # (and for two arguments)
        a, b = args
        if isinstance(a, Tensor):
            if a._requires_grad and grad_on:
                mask = 1
            a = a._value
        if isinstance(b, Tensor):
            if b._requires_grad and grad_on:
                mask |= 2
            b = b._value
        vals = [a, b]
    else:
        vals = []
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                vals.append(a._value)
                if a._requires_grad and grad_on:
                    mask |= 1 << i
            else:
                vals.append(a)
    diff = (_DIFFS[mask] if mask < _N_DIFFS else tuple(
        [i for i in range(len(args)) if mask >> i & 1])) if mask else _NO_RECORD
    state = _trace_state()
    if state.empty and state.no_grad is None:  # no fad transformation is running
        key = None
        tw = np.ndarray  # (the second operand's type; an array's call is not kept recent)
        if len(vals) <= 2 and not params and type(vals[0]) is np.ndarray:
            # _signature, spelled out for the most frequent operands (the same keys)
            v = vals[0]
            tw = None if len(vals) == 1 else type(vals[1])
            if tw is None or tw is float:  # one array, or an array and a float
                recent = op.recent
                if recent is not None and recent[0] is diff and recent[3] is tw and \
                        recent[1] is v.dtype and recent[2] == v.shape and recent[5] is _DIRECT:
                    out = recent[4].record(args, vals, params)
                    if out is not None:
                        return out
                key = (op, diff, v.shape, v.dtype) if tw is None else \
                    (op, diff, v.shape, v.dtype, float)
            else:
                if tw is np.ndarray:
                    w = vals[1]
                    key = (op, diff, v.shape, v.dtype, w.shape, w.dtype)
                tw = np.ndarray
        if key is None:
            key = _signature(op, vals, diff, params)
        if key is not None:
            if not mask:
                t = _apply_eager(key, op, args, vals, params)
                return t if t is not None else _apply_plain(op, args, vals, params)
            form = _DIRECT.get(key, _UNKNOWN)
            if form is _UNKNOWN:
                return _record(op, args, vals, diff, params, key)
            if form is not None:
                out = form.record(args, vals, params)
                if tw is not np.ndarray:
                    op.recent = (diff, v.dtype, v.shape, tw, form, _DIRECT)
            else:
                out = _apply_program(key, op, args, vals, diff, params)
            if out is not None:
                return out
    if not mask:
        return _apply_plain(op, args, vals, params)
    return _record(op, args, vals, diff, params)


def _has_meta(vals: list) -> bool:
    for v in vals:
        if type(v) is MetaArray:
            return True
    return False


def _apply_plain(op: Op, args: tuple, vals: list, params: dict) -> Any:
    """``op`` recording nothing, by its fad function (the inputs cast first if their
    dtypes differ)."""
    if _has_meta(vals):
        return on_meta(lambda vs: _apply_plain(op, args, vs, params), vals)
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


# the recorded arguments (``diff``) of each mask of up to eight arguments
_N_DIFFS = 256
_DIFFS = [tuple([i for i in range(8) if m >> i & 1]) for m in range(_N_DIFFS)]


def _record(op: Op, args: tuple, vals: list, diff: tuple, params: dict,
            key: tuple | None = None) -> Any:
    """The general recording path: the core's reverse mode (a ``VJPTrace``) applied to
    the operation's fad function; with ``key``, also learn whether the operation is
    one primitive application (see ``_direct_form``)."""
    if _has_meta(vals):
        return on_meta(lambda vs: _record(op, args, vs, diff, params), vals)
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
                        if dt is None and not op.multi else None)
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
    for entry in tape:
        out_flags, in_flags = entry_reads(entry)
        read += [x for x, f in zip(entry.primals, in_flags) if f]
        if out_flags:  # (none for a vjp_rule's entry, whose ``ans`` is its pullback)
            outs_e = entry.ans if entry.prim.multiple_results else (entry.ans,)
            read += [x for x, f in zip(outs_e, out_flags) if f]
    roots = {id(_root(x)) for x in read}
    saved = tuple([i for i, a in enumerate(args)
                   if isinstance(a, Tensor) and id(_root(vals[i])) in roots])
    ids = {id(x) for x in read}
    known = {id(_root(v)) for v in (*vals, *params.values())} | {id(o) for o in outs}
    inner = not roots <= known
    return saved, tuple([k for k, o in enumerate(outs) if id(o) in ids]), inner


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


def signature_key(op: Op, vals: list, diff: tuple, params: dict) -> tuple | None:
    """What the direct form of ``op`` may depend on, or ``None`` when the inputs are not
    plain NumPy arrays and Python scalars (or a parameter is not a plain value)."""
    parts = [op, diff]
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
            elif tv is tuple and len(v) == 1 and type(v[0]) is slice and \
                    type(v[0].start) in _SIMPLE_PARAMS and type(v[0].stop) in _SIMPLE_PARAMS \
                    and type(v[0].step) in _SIMPLE_PARAMS:  # x[a:b:c], the most frequent index
                e = v[0]
                append((k, slice, type(e.start), e.start, type(e.stop), e.stop,
                        type(e.step), e.step))
            elif tv is tuple and all(type(e) in _SIMPLE_PARAMS for e in v):
                append((k, tuple(map(type, v)), v))
            elif tv is tuple or tv is slice:  # an index: slices of plain values
                got = _index_key(v)
                if got is None:
                    return None
                append((k, got))
            elif isinstance(v, np.dtype):
                append((k, v))
            elif tv is np.ndarray:  # an index or a mask: an input of the operation
                append((k, tv, v.shape, v.dtype))
            else:
                return None
    return tuple(parts)


_signature = signature_key  # (what the fast paths key on)


def _index_key(v: Any) -> tuple | None:
    """A hashable key of the value of an index made of plain values, tuples and
    slices (``x[1:, 0]``), or ``None``."""
    tv = type(v)
    if tv in _SIMPLE_PARAMS:
        return tv, v
    if tv is slice:
        parts = (v.start, v.stop, v.step)
    elif tv is tuple:
        parts = v
    else:
        return None
    got = []
    for e in parts:
        te = type(e)
        if te in _SIMPLE_PARAMS:  # (the recursion, spelled out for the common items)
            got.append((te, e))
            continue
        if te is slice:
            a, b, c = e.start, e.stop, e.step
            ta, tb, tc = type(a), type(b), type(c)
            if ta in _SIMPLE_PARAMS and tb in _SIMPLE_PARAMS and tc in _SIMPLE_PARAMS:
                got.append((slice, ((ta, a), (tb, b), (tc, c))))
                continue
        e = _index_key(e)
        if e is None:
            return None
        got.append(e)
    return tv, tuple(got)


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


def _finish(op: Op, args: tuple, vals: list, diff: tuple, dt: Any, params: dict,
            prog: "_Program", pull: Callable, outs: list, saved: tuple) -> Any:
    """The node of an operation recorded by its program, and its output Tensor(s).
    ``saved``: see ``_saved_positions``."""
    consts, tensors = _split(args, vals, diff)
    nexts, nrs = _edges(tensors)
    node = make_node(prog.cls, pull, (op, consts, diff, dt, params), tensors, nexts, nrs,
                     prog.layout, op.saves, len(outs), _saved_tensors(saved, args, tensors))
    res = []
    for k, out in enumerate(outs):
        if type(out) is not np.ndarray:
            out = np.asarray(out)
        t = wrap(out, True, node, k) if out.dtype.kind in "fc" and not prog.pruned[k] \
            else wrap(out)
        if out.base is not None or prog.same[k]:
            _aliasing(t, args)
        res.append(t)
    for k in prog.out_saved:
        save_output(node, k, res[k])
    return tuple(res) if op.multi else res[0]


# ------------------------------------------------------------------ calls that record nothing
# An operation that records nothing (grad mode off, or no input requiring grad) and
# that the core's reverse mode finds to be one primitive application at its signature
# calls that primitive's kernel directly from then on, as a direct form does, instead
# of going through fad's dispatch. The signature is learnt once, by tracing the
# operation with its floating Tensors as the differentiated inputs.
_EAGER: dict = {}
_NO_RECORD = ("records nothing",)  # the place of ``diff`` in these signatures


def _apply_eager(key: tuple, op: Op, args: tuple, vals: list, params: dict) -> Any:
    """``op`` on ``vals`` by its kernel or its program, or ``None`` (not known yet: the
    caller runs the operation's fad function). ``key``: the signature, with
    ``_NO_RECORD`` for ``diff``."""
    form = _EAGER.get(key, _UNKNOWN)
    if form is _UNKNOWN:
        if len(_EAGER) >= _DIRECT_MAX:
            _EAGER.clear()
        _EAGER[key] = None if op.multi or op.kind and _target(op.kind, vals) is not None \
            else _learn_eager(op, args, vals, params)  # (None: inputs to cast, or outputs)
        return None
    if form is None:
        return None
    if form is _PROGRAM:
        return _eager_program(key, op, args, vals, params)
    try:
        kernel = form.kernel
        if form.sources is None and kernel is not None:  # (form.run, inlined)
            ans = kernel(*vals)
            if type(ans) is not np.ndarray:
                ans = np.asarray(ans)
        else:
            _, ans = form.run(vals, params)
    except Exception:  # the fad function reports the error in the facade's words
        return None
    t = wrap(ans)
    if ans.base is not None or ans is vals[0]:
        _aliasing(t, args)
    return t


_PROGRAM = object()  # (an operation of more than one primitive: see _eager_program)


def _learn_eager(op: Op, args: tuple, vals: list, params: dict) -> Any:
    diff = tuple([i for i, a in enumerate(args) if isinstance(a, Tensor)
                  and array_np_dtype(vals[i]).kind in "fc"])
    if not diff:
        return _PROGRAM
    try:
        outs, out_nodes, in_nodes, tape = _taped(make_flat(op, vals, diff, None, params),
                                                 [vals[i] for i in diff], op.label)
    except Exception:  # the fad function reports the error when the caller runs it
        return None
    form = eager_form(vals, diff, params, outs, out_nodes, in_nodes, tape)
    return _PROGRAM if form is None else form


def _eager_program(key: tuple, op: Op, args: tuple, vals: list, params: dict) -> Any:
    """``op`` on ``vals`` by its cached program (compiled as the recording path's, with
    nothing recorded), or ``None``."""
    prog = _program(key, op, args, vals, (), None, params)
    if prog is None:
        return None
    env = _evaluate(prog, vals, params)
    if env is None:
        return None
    o = env[prog.out_slots[0]]
    t = wrap(o if type(o) is np.ndarray else np.asarray(o))
    if prog.same[0] or t._value.base is not None:  # an input, or a view of one
        _aliasing(t, args)
    return t


# ------------------------------------------------------------------ programs
# An operation that is not one primitive (``log_softmax``, ``nll_loss``, ``relu``,
# ``mse_loss``...) is traced once per signature (Python scalar values included) to
# its IR with ``fad.make_jaxpr``, every array input abstract. Later calls evaluate
# that program on the arrays (as one function of ``jit``'s code generator on NumPy,
# else equation by equation with each primitive's ``impl``), and tape the equations
# that depend on a recorded input exactly as the core's ``VJPTrace`` does (same
# entries, same rule for what is taped); the node's pullback is the core's
# ``pullback`` of that tape. An operation whose program
# cannot be traced abstractly (value-dependent Python control flow), or that holds
# calls, custom rules or multiple-output primitives on its differentiated path,
# keeps the general path. A signature is compiled the second time it is seen.
_PROGRAMS: dict = {}
_SEEN_ONCE = object()
_COMPILE_ON_FIRST_SIGHT = False  # the tests set it to exercise programs everywhere
_PROGRAM_CONSTS_MAX = 1 << 20  # bytes of constants a cached program may hold


class _Program:
    __slots__ = ("env0", "in_slots", "sources", "code", "out_slots", "cls", "layout", "plan",
                 "saved", "out_saved", "derived", "same", "pruned", "out_nodes", "in_nodes",
                 "run", "run_slots", "record")


def _program_key(key: tuple, vals: list, dt: Any) -> tuple | None:
    parts = [key, dt, default_backend()]
    for v in vals:
        tv = type(v)
        if tv is float:  # baked into the program: by value (hex: -0.0 and nan too)
            parts.append(v.hex())
        elif tv is complex:
            parts.append((v.real.hex(), v.imag.hex()))
    return tuple(parts)


def _program(key: tuple, op: Op, args: tuple, vals: list, diff: tuple, dt: Any,
             params: dict) -> _Program | None:
    """The cached program of ``op`` at this signature, compiled on its second sighting
    (``None``: not yet, or it cannot be compiled)."""
    pkey = _program_key(key, vals, dt)
    prog = _PROGRAMS.get(pkey, _UNKNOWN)
    if prog is _UNKNOWN or prog is _SEEN_ONCE:
        if len(_PROGRAMS) >= _DIRECT_MAX:
            _PROGRAMS.clear()
        if prog is _UNKNOWN and _COMPILE_ON_FIRST_SIGHT is False:
            _PROGRAMS[pkey] = _SEEN_ONCE
            return None
        prog = _PROGRAMS[pkey] = _compile(op, args, vals, diff, dt, params)
    return prog


def _apply_program(key: tuple, op: Op, args: tuple, vals: list, diff: tuple,
                   params: dict) -> Any:
    """Record ``op`` by evaluating its cached program (``None``: take the general
    path instead)."""
    dt = _target(op.kind, vals) if op.kind else None
    prog = _program(key, op, args, vals, diff, dt, params)
    if prog is None:
        return None
    if prog.record is not None:  # (see fad/torch/_program_recorder.py)
        return prog.record(args, vals, params, dt)
    env = _evaluate(prog, vals, params)
    if env is None:
        return None
    pull = prog.plan.pull(env)  # (the tape of the taped equations, as VJPTrace's)
    saved = prog.saved
    if prog.derived:  # computed values the backward reads: views of an input, perhaps
        saved = _with_views(saved, [env[s] for s in prog.derived], diff, args, vals)
    return _finish(op, args, vals, diff, dt, params, prog, pull,
                   [env[k] for k in prog.out_slots], saved)


def _evaluate(prog: _Program, vals: list, params: dict) -> list | None:
    """The values of every slot of ``prog`` at these arguments (``None`` on an error:
    the general path reports it in the facade's words)."""
    env = prog.env0.copy()
    for s, src in zip(prog.in_slots, prog.sources):
        env[s] = vals[src] if type(src) is int else params[src]
    try:
        run = prog.run
        if run is not None:  # generated code: the slots the caller reads
            for s, v in zip(prog.run_slots, run(*[env[s] for s in prog.in_slots])):
                env[s] = v
            return env
        for prim, eparams, ins, out, _ in prog.code:
            ans = prim.impl(*[env[a] for a in ins], **eparams)
            if type(out) is int:
                env[out] = ans
            else:
                for o, a in zip(out, ans):
                    env[o] = a
    except Exception:
        return None
    return env


def _compile(op: Op, args: tuple, vals: list, diff: tuple, dt: Any, params: dict
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
        closed = dce(make_jaxpr(program)(*[vals[s] if type(s) is int else params[s]
                                           for s in sources]))
    except Exception:  # value-dependent control flow and the like: the general path
        return None
    jaxpr = closed.jaxpr
    outvars = jaxpr.outvars
    if ((len(outvars) != 1 and not op.multi) or not outvars
            or any(type(v) is Literal or v in jaxpr.constvars  # (a result every call would share)
                   for v in outvars)
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
                out_flags, in_flags = entry_reads(TapeEntry(
                    prim, eqn.params, [seen[i] for i in ins], eqn.outvars[0].aval, nodes, out))
                read.update(i for i, f in zip(ins, in_flags) if f)
                if out_flags and out_flags[0]:
                    read.add(out)
        code.append((prim, eqn.params, tuple(ins), out, nodes))
    prog = _Program()
    prog.env0 = env0
    prog.in_slots = tuple(in_slots)
    prog.sources = tuple(sources)
    prog.code = tuple(code)
    prog.out_slots = out_slots = tuple(slot[v] for v in outvars)
    prog.cls = op.cls or node_type(op.grad_fn(vals, params))
    prog.layout = _layout(args, diff)
    prog.saved = tuple([src for s, src in zip(in_slots, sources)
                        if s in read and type(src) is int and isinstance(args[src], Tensor)])
    if op.saves and not read.isdisjoint(dep - set(in_slots) - set(out_slots)):  # _union
        prog.saved = _union(prog.saved, diff)
    prog.saved = _as_diff(prog.saved, diff)
    prog.out_saved = tuple(k for k, s in enumerate(out_slots) if s in read)
    # computed values the backward reads: views of an input at run time, perhaps
    prog.derived = tuple(sorted(s for s in read if env0[s] is None and s not in in_slots))
    prog.same = tuple(s in in_slots for s in out_slots)
    # (``prune``: an output no recorded input flows into gets no grad_fn, see _record)
    prog.pruned = tuple(op.prune and s not in live for s in out_slots)
    # the output node and the input nodes, as lists for tape_pullback (which only reads them)
    prog.out_nodes = [s if s in live else None for s in out_slots]
    prog.in_nodes = list(diff_slots)
    prog.plan = PullPlan(prog)
    prog.run_slots, prog.run = _generated_forward(closed, slot, prog)
    prog.record = program_recorder(prog, op, tuple(diff), len(vals), [v.aval for v in outvars])
    return prog


def _generated_forward(closed: Any, slot: dict, prog: _Program) -> tuple:
    """``(slots, fn)``: the program as one function of jit's code generator, from the
    input arrays to the values of the slots that its callers read (outputs, and what
    the pullback and the saved-view check read), or ``((), None)`` (another backend
    than NumPy, or code that cannot be generated: the equations then run one by one
    with each primitive's ``impl``)."""
    if default_backend() != "numpy":
        return (), None
    wanted = set(prog.out_slots) | set(prog.plan.slots)
    var_of = {s: v for v, s in slot.items() if s not in prog.in_slots and s in wanted}
    slots = tuple(sorted(var_of))
    j = closed.jaxpr
    try:
        fn = compile_jaxpr(ClosedJaxpr(Jaxpr(j.constvars, j.invars, j.eqns,
                                             [var_of[s] for s in slots]), closed.consts), np)
    except Exception:  # (a kernel that cannot be bound ahead)
        return (), None
    return slots, fn


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
