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

from typing import Any

import numpy as np

from ..interpreters.tape import entry_vjp
from ..primitives.indexing import Indexer
from . import _graph
from ._compiled import compiled_vjp
from ._graph import AccumulateGrad, accumulate_grad, array_aval, nexts_of
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
                 "no_consts", "in_operand", "double", "real")


_graph.REAL_FORM = _Direct


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
    form.in_operand = tuple(enodes.index(k) for k in range(len(diff)))
    form.double = None  # double_backward's plans (fad/torch/_double.py)
    # no complex value in or out: the backward pass has nothing to conjugate
    form.real = all(np.dtype(a[1]).kind != "c" for a in form.avals) and \
        np.asarray(entry.ans).dtype.kind != "c"
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


def _apply_direct(form: _Direct, op: Any, args: tuple, vals: list, diff: tuple,
                  params: dict) -> Any:
    """Record ``op`` by its direct form (``None``: take the general path instead).
    What ``_finish`` does, spelled out for this path, the most frequent: its node
    holds the operands and the output for ``form.vjp`` and no per-operation closure."""
    kernel = form.kernel
    try:
        if form.sources is None and kernel is not None:  # (form.run, inlined)
            operands = vals
            ans = kernel(*vals)
            if type(ans) is not np.ndarray:
                ans = np.asarray(ans)
        else:
            operands, ans = form.run(vals, params)
    except Exception:  # the general path reports the error in the facade's words
        return None
    n = len(diff)
    consts = form.no_consts
    if consts is not None:  # every argument is a recorded input
        tensors = args
    else:
        consts, tensors = _split(args, vals, diff)
    if n == 1:  # _edges, inlined: the common case
        t = tensors[0]
        fn = t._grad_fn
        if fn is None:  # (one next node is held bare: see Node)
            nexts, nrs = accumulate_grad(t), _NR0
        else:
            nr = t._output_nr
            nexts, nrs = fn, (_NR0 if nr == 0 else (nr,))
    else:
        nexts, nrs = _edges(tensors)
    cls = form.cls
    node = cls.__new__(cls)  # (make_node, inlined)
    node._next = nexts
    node._nrs = nrs
    node._layout = form.layout
    node._pull = form.vjp
    node._res = (*operands, ans)
    node._fun = form
    node._consts = consts
    node._params = params
    node._inputs = None  # (see inputs_of: the graph does not keep the Tensors alive)
    saved = form.saved
    if saved is _DIFF:  # (one guard is held bare: see _graph._guarded)
        if n == 1:
            node._checked = t = tensors[0]
            node._versions = t._vc[0]
        else:
            node._checked = tensors
            node._versions = tuple([t._vc[0] for t in tensors])
    elif saved:
        node._checked = saved = tuple([args[i] for i in saved])
        node._versions = tuple([t._vc[0] for t in saved])
    else:
        node._checked = node._versions = None
    node._saves = op.saves
    node._freed = False
    node._n_out = 1
    node._avals = form.avals
    if ans.dtype.kind in "fc":  # (wrap(ans, True, node), inlined)
        t = _new_tensor(Tensor)
        t._value = ans
        t._requires_grad = True
        t._grad_fn = node
        t._output_nr = 0
        t._vc = [0]
    else:
        t = _wrap(ans)
    if ans.base is not None:
        _aliasing(t, args)
    if form.out_saved:  # (save_output, without a SavedOutput: the value is in _res)
        vc = t._vc
        c = node._checked
        if c is None:
            node._checked, node._versions = vc, vc[0]
        elif type(c) is tuple:
            node._checked += (vc,)
            node._versions += (vc[0],)
        else:
            node._checked, node._versions = (c, vc), (node._versions, vc[0])
    return t


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


def function_of(node: Any) -> tuple:
    """``(op, consts, diff, dt, params)`` of a node recorded by this module: its
    operation as ``make_flat``'s arguments (the operation's fad function)."""
    f = node._fun
    if type(f) is _Direct:
        return f.op, node._consts, f.diff, None, node._params
    return f


def _plain(v: Any) -> bool:
    """A parameter value that cannot have been computed from array values."""
    tv = type(v)
    if tv in _SIMPLE_PARAMS or tv is Indexer or isinstance(v, np.dtype):
        return True  # (an Indexer is the index's static part: its arrays are operands)
    return tv is tuple and all(_plain(e) for e in v)
