"""The facade's direct recording path and the bookkeeping of its nodes.

Most facade operations are one primitive applied to the operation's own inputs
(``sin``, ``mul``, ``matmul``, ``sum``...). Once the recorder
(``fad/torch/_recorder.py``) has run such an operation through the core's
reverse mode and found its tape to be that one primitive application, its
"direct form" (``_Direct``) records later calls of the same signature: the
primitive's NumPy kernel runs on the arrays, and the node holds the operands and
the output for the vector-Jacobian product that every call of the signature
shares, built from the primitive's own rules (``fad.interpreters.tape.entry_vjp``).
Here too: what a node keeps of its arguments (constants, the input Tensors its
backward reads, its ``next_functions``), and how outputs share the version
counter of the input they view.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..interpreters.tape import entry_vjp
from ..primitives.indexing import Indexer
from . import _graph
from ._compiled import compiled_vjp
from ._graph import AccumulateGrad, accumulate_grad, array_aval, next_seq, nexts_of
from ._memory import owner
from .tensor import Tensor, note_alias, view_of_own, wrap

_wrap = wrap
_new_tensor = object.__new__
_SIMPLE_PARAMS = frozenset({bool, int, float, complex, str, type(None), type(Ellipsis)})

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
        return owner(x)
    return x


def _with_views(saved: tuple, derived: Any, diff: tuple, args: tuple, vals: list) -> tuple:
    """``saved`` and the arguments whose buffer one of the ``derived`` arrays views."""
    roots = None
    for a in derived:
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
        root = o.base  # (NumPy's views name their owner; a strided view, a wrapper)
        if root is not None and type(root) is not np.ndarray:
            root = owner(o)
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


def _layout(args: tuple, diff: tuple) -> tuple | None:
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


class _Kernel:
    """An operation at one signature as its one primitive ``prim`` with parameters
    ``eparams`` (``kernel``: the NumPy function its ``impl`` calls on these operands,
    or ``None``); the operands' ``sources`` are positions in the arguments then the
    parameters ``pnames`` (``None``: the arguments themselves)."""

    __slots__ = ("prim", "eparams", "kernel", "sources", "pnames")

    def run(self, vals: list, params: dict) -> tuple:
        """``(operands, output)`` for these arguments and parameters."""
        sources = self.sources
        if sources is None:
            operands = vals
        else:
            src = vals if not self.pnames else vals + [params[name] for name in self.pnames]
            operands = [src[s] for s in sources]
        kernel = self.kernel
        ans = kernel(*operands) if kernel is not None else \
            self.prim.impl(*operands, **self.eparams)
        return operands, ans if type(ans) is np.ndarray else np.asarray(ans)


class _Direct(_Kernel):
    """The direct form of an operation at one signature: its kernel (``_Kernel``), the
    shared ``vjp`` (``fad.interpreters.tape.entry_vjp``), and what the node keeps: its
    class, the ``next_functions`` layout, the saved arguments and outputs
    (``_saved_positions``), the differentiated inputs ``diff`` and their ``avals``."""

    __slots__ = ("cls", "layout", "saved", "out_saved", "vjp", "op", "diff", "avals",
                 "no_consts", "in_operand", "double", "real", "record", "n_vals",
                 "consts_in_res")


def _one_application(vals: list, diff: tuple, params: dict, outs: list, out_nodes: list,
                     in_nodes: list, tape: list) -> tuple | None:
    """``(entry, sources, enodes, pnames)`` when the tape is one primitive applied to
    the operation's inputs and parameters (see ``_Kernel``; ``enodes``: each operand's
    recorded input, or ``None``), else ``None``."""
    if len(tape) != 1 or len(outs) != 1:
        return None
    entry = tape[0]
    prim, eparams = entry.prim, entry.params
    if (prim.multiple_results or prim.vjp_rule is not None or prim.inline is not None
            or out_nodes[0] != entry.out or outs[0] is not entry.ans
            or not all(_plain(v) for v in eparams.values())):
        return None
    pnames = list(params)
    sources = []
    enodes = []
    for x, n in zip(entry.primals, entry.nodes):
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
    return entry, sources, enodes, used


def _fill_kernel(form: _Kernel, vals: list, found: tuple) -> _Kernel:
    entry, sources, _, used = found
    identity = not used and tuple(sources) == tuple(range(len(vals)))
    form.prim, form.eparams, form.pnames = entry.prim, entry.params, used
    form.sources = None if identity else tuple(sources)
    form.kernel = _kernel(entry.prim, entry.params, tuple(entry.primals))
    return form


def eager_form(vals: list, diff: tuple, params: dict, outs: list, out_nodes: list,
               in_nodes: list, tape: list) -> _Kernel | None:
    """The kernel of an operation that is one primitive application (see
    ``_one_application``), for calls that record nothing, or ``None``."""
    found = _one_application(vals, diff, params, outs, out_nodes, in_nodes, tape)
    return None if found is None else _fill_kernel(_Kernel(), vals, found)


def _direct_form(op: Any, vals: list, diff: tuple, dt: Any, params: dict, outs: list,
                 out_nodes: list, in_nodes: list, tape: list, cls: type, args: tuple,
                 saved: tuple, out_saved: tuple) -> _Direct | None:
    """The direct form of ``op`` when the tape is one primitive applied to the
    operation's inputs, else ``None``."""
    found = _one_application(vals, diff, params, outs, out_nodes, in_nodes, tape)
    if found is None:
        return None
    entry, _, enodes, _ = found
    form = _fill_kernel(_Direct(), vals, found)
    form.cls = cls
    form.layout, form.saved, form.out_saved = _layout(args, diff), saved, out_saved
    form.vjp = compiled_vjp(entry_vjp(entry.prim, entry.params, tuple(enodes), len(diff)),
                            entry.prim, len(diff))
    form.op, form.diff = op, tuple(diff)
    form.avals = tuple([array_aval(vals[i]) for i in diff])
    form.no_consts = (None,) * len(vals) if len(diff) == len(vals) else None
    # the constants are the operands at their own positions: a node reads them from
    # its ``_res`` (no tuple made per call; see ``consts_of``)
    form.n_vals = len(vals)
    form.consts_in_res = form.no_consts is None and form.sources is None
    form.in_operand = tuple(enodes.index(k) for k in range(len(diff)))
    form.double = None  # double_backward's plans (fad/torch/_double.py)
    # no complex value in or out: the backward pass has nothing to conjugate
    form.real = all(np.dtype(a[1]).kind != "c" for a in form.avals) and \
        np.asarray(entry.ans).dtype.kind != "c"
    form.record = _make_recorder(form, len(vals), entry.ans)
    return form


def _kernel(prim: Any, eparams: dict, primals: tuple) -> Any:
    """The NumPy function ``prim``'s ``impl`` runs on operands of these types with these
    parameters, or ``None``: its NumPy function, or else the kernel ``jit``'s
    generated code calls (fixed parameters, same results as ``impl``)."""
    if not eparams:
        return prim.numpy_kernel(primals)
    if prim.kernel is None or not all(type(p) is np.ndarray for p in primals):
        return None
    return prim.kernel(np, **eparams)


# ------------------------------------------------------------------ the recorder of a form
# A form's calls differ only in their values: which arguments are recorded, which are
# constants, what the node guards, whether the output is floating (and so gets the
# node) and whether it may view an input are all fixed by the signature. So each form
# records through a function generated for it (``_recorder_source``), in which every
# such decision is already taken: only the lines the signature needs, and the form's
# parts bound as globals.

@functools.lru_cache(maxsize=1024)
def _recorder_source(n_vals: int, diff: tuple, saved: Any, out_saved: bool, operands: tuple,
                     by_kernel: bool, zero_d: bool, floating: bool, may_alias: bool,
                     consts_in_res: bool = False, shared: bool = False) -> str:
    """The source of ``record(args, vals, params)`` for a form of this shape: the output
    Tensor with its node, or ``None`` (an error, or an output dtype the form was not
    learnt at: the general path then records the call and reports the error in the
    facade's words). ``saved``: argument positions, or ``_DIFF``; ``operands``: the
    primitive's operands as expressions of ``vals`` and ``params``, passed to its
    kernel (``by_kernel``) or else to its ``impl``; ``shared``: the node class holds
    the vjp, the form and (unless they vary) the constants (see ``_node_class``)."""
    n = len(diff)
    ts = [f"args[{i}]" for i in diff]
    ops = ", ".join(operands)
    call = f"_kernel({ops})" if by_kernel else f"_impl({ops}, **_eparams)"
    lines = ["def record(args, vals, params):", "    try:", f"        ans = {call}",
             "    except Exception:", "        return None"]
    res = f"({ops}, ans)"
    if zero_d:  # (NumPy gives a scalar for a 0-d result)
        lines.append("    ans = _asarray(ans)")
    lines += ["    if ans.dtype is not _OUT_DT:", "        return None",
              "    node = _new(_cls)", "    node._seq = _next_seq()"]
    if n == 1:  # one recorded input: its next node is held bare (see Node)
        lines += [f"    t0 = {ts[0]}", "    fn = t0._grad_fn", "    if fn is None:",
                  "        node._next = _accumulate_grad(t0)", "        node._nrs = _NR0",
                  "    else:", "        node._next = fn", "        nr = t0._output_nr",
                  "        node._nrs = _NR0 if nr == 0 else (nr,)"]
    else:  # (_edges, spelled out)
        for k, t in enumerate(ts):
            lines += [f"    t{k} = {t}", f"    fn = t{k}._grad_fn", "    if fn is None:",
                      f"        e{k} = _accumulate_grad(t{k})", f"        r{k} = 0", "    else:",
                      f"        e{k} = fn", f"        r{k} = t{k}._output_nr"]
        lines += [f"    node._next = ({', '.join(f'e{k}' for k in range(n))},)",
                  f"    node._nrs = ({', '.join(f'r{k}' for k in range(n))},)"]
        ts = [f"t{k}" for k in range(n)]
    consts = ", ".join("None" if i in diff else f"vals[{i}]" for i in range(n_vals))
    fixed_consts = n == n_vals or consts_in_res
    if not shared:
        lines += ["    node._pull = _vjp", "    node._fun = _form", "    node._inputs = None"]
    if not (shared and fixed_consts):
        lines.append("    node._consts = _NO_CONSTS" if fixed_consts else
                     f"    node._consts = ({consts},)")
    lines += [f"    node._res = {res}", "    node._params = params"]
    guarded = ts if saved is _DIFF else [f"args[{i}]" for i in saved]
    if saved is _DIFF and n == 1:  # (one guard is held bare: see _graph._guarded)
        lines += ["    node._checked = t0", "    node._versions = t0._vc[0]"]
    elif guarded:
        lines += [f"    node._checked = ({', '.join(guarded)},)",
                  f"    node._versions = ({', '.join(g + '._vc[0]' for g in guarded)},)"]
    else:
        lines.append("    node._checked = node._versions = None")
    lines.append("    node._freed = False")
    if floating:  # (wrap(ans, True, node), inlined)
        lines += ["    t = _new(_Tensor)", "    t._value = ans", "    t._requires_grad = True",
                  "    t._grad_fn = node", "    t._output_nr = 0", "    t._vc = [0]",
                  "    t._base = None"]
    else:
        lines.append("    t = _wrap(ans)")
    if may_alias:
        lines += ["    if ans.base is not None:", "        _aliasing(t, args)"]
    if out_saved:  # the output's counter guards it too (no SavedOutput: it is in _res)
        lines.append("    vc = t._vc")
        if saved is _DIFF and n == 1:
            lines += ["    node._checked = (t0, vc)",
                      "    node._versions = (node._versions, vc[0])"]
        elif guarded:
            lines += ["    node._checked += (vc,)", "    node._versions += (vc[0],)"]
        else:
            lines += ["    node._checked = vc", "    node._versions = vc[0]"]
    lines.append("    return t")
    return "\n".join(lines) + "\n"


def _node_class(form: _Direct) -> type:
    """The class of the form's nodes: its ``grad_fn`` class (same name) with what
    every node of the form shares and keeps (the layout of ``next_functions``,
    whether it saves values, its one output, its inputs' shapes) as class
    attributes, which the recorder then need not store node by node. A node that
    saves values is never run again once released, so its vjp, its form, its
    inputs (remade by ``inputs_of``) and its constants, when they are the same for
    every call, are the class's too, and releasing it drops only what it saved."""
    cls = form.cls
    body = {"__slots__": (), "__module__": cls.__module__, "__qualname__": cls.__qualname__,
            "_layout": form.layout, "_saves": form.op.saves, "_n_out": 1, "_avals": form.avals,
            "_conjugates": not form.real}
    if form.op.saves:
        body.update(_pull=staticmethod(form.vjp), _fun=form, _inputs=None)
        if _fixed_consts(form):
            body.update(_consts=IN_RES if form.consts_in_res else form.no_consts,
                        _release=_release_saved)
        else:
            body["_release"] = _release_saved_consts
    return type(cls.__name__, (cls,), body)


def _fixed_consts(form: _Direct) -> bool:
    """Whether every node of ``form`` has the same ``_consts`` (none, or its operands)."""
    return form.no_consts is not None or form.consts_in_res


def _release_saved(node: Any) -> None:
    """``Node._release`` of a node of a saving form (see ``_node_class``)."""
    node._freed = True
    node._res = node._checked = None


def _release_saved_consts(node: Any) -> None:
    """``_release_saved``, for a form whose nodes hold their constants."""
    node._freed = True
    node._res = node._checked = node._consts = None


def _make_recorder(form: _Direct, n_vals: int, out: Any) -> Any:
    """``form.record``: the recorder generated for ``form`` (see ``_recorder_source``),
    whose learning call gave the output ``out``."""
    out = np.asarray(out)
    by_kernel = form.kernel is not None
    src = [f"vals[{i}]" for i in range(n_vals)] + [f"params[{p!r}]" for p in form.pnames]
    operands = tuple(src) if form.sources is None else tuple([src[s] for s in form.sources])
    source = _recorder_source(
        n_vals, form.diff, form.saved, bool(form.out_saved), operands, by_kernel,
        out.ndim == 0, out.dtype.kind in "fc",
        not (by_kernel and isinstance(form.kernel, np.ufunc)),  # (a ufunc's output is new)
        form.consts_in_res, form.op.saves)
    scope = {"_kernel": form.kernel, "_impl": form.prim.impl, "_eparams": form.eparams,
             "_asarray": np.asarray,
             "_OUT_DT": out.dtype, "_new": _new_tensor, "_cls": _node_class(form),
             "_Tensor": Tensor,
             "_accumulate_grad": accumulate_grad, "_NR0": _NR0, "_next_seq": next_seq,
             "_vjp": form.vjp, "_form": form,
             "_NO_CONSTS": IN_RES if form.consts_in_res else form.no_consts,
             "_wrap": _wrap, "_aliasing": _aliasing}
    return generated_function(source, scope, "record")


_CODE: dict = {}  # generated sources, compiled: a new signature of the same shape of code
_CODE_MAX = 1024  # reuses its code object (compiling costs a few hundred µs)


def generated_function(source: str, scope: dict, name: str) -> Any:
    """The function ``name`` that ``source`` defines, with ``scope`` as its globals."""
    code = _CODE.get(source)
    if code is None:
        if len(_CODE) >= _CODE_MAX:
            _CODE.clear()
        code = _CODE[source] = compile(source, f"<fad.torch generated {name}>", "exec")
    exec(code, scope)
    return scope[name]


_NR0 = (0,)


def _split(args: tuple, vals: list, diff: tuple) -> tuple[tuple, tuple]:
    """What a node keeps of its arguments: the constants (``vals`` with the recorded
    inputs left out) and the recorded input Tensors."""
    n = len(diff)
    if n == len(args):
        return (None,) * n, args
    consts = list(vals)
    for i in diff:
        consts[i] = None
    return tuple(consts), (args[diff[0]],) if n == 1 else tuple([args[i] for i in diff])


def _saved_tensors(saved: Any, args: tuple, tensors: tuple) -> tuple | None:
    """The Tensors at positions ``saved`` (``_DIFF``: the recorded ones, ``tensors``)
    that a node guards."""
    if saved is _DIFF:
        return tensors
    return tuple([args[i] for i in saved]) if saved else None


def inputs_of(node: Any) -> tuple | None:
    """The recorded input Tensors of a node, or ``None`` once released. A direct form's
    node keeps only the Tensors its backward reads (``_checked``), as PyTorch's saved
    variables do, so that a chain's intermediate Tensors die with their last user:
    the others are remade from the operands it holds and the edges they came by
    (their vector-Jacobian product does not read their values)."""
    ins = node._inputs
    form = node._fun
    if ins is not None or type(form) is not _Direct or node._res is None:
        return ins
    saved, diff = form.saved, form.diff
    if saved is _DIFF:
        c = node._checked
        return c[:len(diff)] if type(c) is tuple else (c,)
    held = dict(zip(saved, node._checked)) if saved else {}
    res = node._res
    out = []
    for k, (i, nxt, nr) in enumerate(zip(diff, nexts_of(node), node._nrs)):
        t = held.get(i)
        if t is None:
            t = nxt.variable if type(nxt) is AccumulateGrad else \
                _wrap(res[form.in_operand[k]], True, nxt, nr)
        out.append(t)
    return tuple(out)


def input_values(node: Any) -> tuple | None:
    """The values of a node's recorded inputs, without remaking the Tensors
    ``inputs_of`` gives (``None`` once released)."""
    ins = node._inputs
    if ins is not None:
        return tuple([t._value for t in ins])
    form = node._fun
    res = node._res
    if type(form) is not _Direct or res is None:
        return None
    return tuple([res[k] for k in form.in_operand])


def function_of(node: Any) -> tuple:
    """``(op, consts, diff, dt, params)`` of a node recorded by this module: its
    operation as ``make_flat``'s arguments (the operation's fad function)."""
    f = node._fun
    if type(f) is _Direct:
        return f.op, consts_of(node), f.diff, None, node._params
    return f


IN_RES = ("the constants are the node's operands",)  # (a marker: see consts_of)


def consts_of(node: Any) -> tuple:
    """A direct node's constants (``None`` at its recorded inputs): held, or read from
    its operands when the form keeps them there (``IN_RES``)."""
    c = node._consts
    if c is not IN_RES:
        return c
    f, res = node._fun, node._res
    diff = f.diff
    return tuple([None if i in diff else res[i] for i in range(f.n_vals)])


def _plain(v: Any) -> bool:
    """A parameter value that cannot have been computed from array values."""
    tv = type(v)
    if tv in _SIMPLE_PARAMS or tv is Indexer or isinstance(v, np.dtype):
        return True  # (an Indexer is the index's static part: its arrays are operands)
    return tv is tuple and all(_plain(e) for e in v)


_graph.CONSTS_IN_RES, _graph.CONSTS_OF = IN_RES, consts_of
