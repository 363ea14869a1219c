"""User-defined derivatives (``custom_jvp``, ``custom_vjp``) and rematerialisation
(``checkpoint``), as JAX has them.

Each is a call primitive whose parameters carry the user's Python functions
(on flat lists of arrays). Its rules honour the user's rule in every
transformation: forward mode calls the jvp rule (or, for ``custom_vjp``,
transposes the linear backward function), reverse mode calls the backward
function (or linearizes the jvp rule), ``vmap`` batches the function and its
rules together, and ``jit``/``make_jaxpr`` record one equation.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from ..core.ir import ClosedJaxpr
from ..core.primitive import Primitive
from ..core.trace import aval_of, bind, current_state, rebinding
from ..interpreters.batching import vmap_flat
from ..interpreters.evaluate import eval_jaxpr
from ..interpreters.jvp import jvp_flat
from ..interpreters.linearize import backward_pass, linearize_flat
from ..interpreters.staging import lift_tracers, writable
from ..interpreters.tape import vjp_flat
from ..primitives.builders import move_axis, to_front, zeros_where_none
from ..primitives.structural import optimization_barrier_p
from ..tree import tree_flatten, tree_leaf_paths, tree_map, tree_unflatten
from .arguments import as_positional, describe_argument, require_callable
from .leaves import check_like, leaf_array
from .programs import trace_program


# ---------------------------------------------------------------- shared pieces
def _traced(fun: Callable, avals: list) -> ClosedJaxpr:
    return trace_program(fun, avals, "a custom-rule function")


class _Staged:
    """A custom-rule function as ``jit``/``make_jaxpr`` stage it: its program,
    traced once, so the arrays it closes over are captured at that moment; the
    tracers it closes over are its leading inputs."""

    __slots__ = ("program",)

    def __init__(self, program: ClosedJaxpr):
        self.program = program

    def __call__(self, *args: Any) -> list:
        return eval_jaxpr(self.program.jaxpr, self.program.consts, *args)


def _out_avals(*avals: Any, fun: Callable, **_: Any) -> list:
    if type(fun) is _Staged:
        return fun.program.out_avals
    return _traced(fun, list(avals)).out_avals


def _call_impl(xp: Any, *args: Any, fun: Callable, **_: Any) -> list:
    return writable(fun(*args))


def _call_primitive(name: str) -> Primitive:
    return Primitive(name, _call_impl, _out_avals, multiple_results=True)


def _batched(fun: Callable, dims: Sequence[int | None], size: int) -> Callable:
    """``fun`` on flat lists, vectorised over the given argument axes (out axis 0)."""
    def batched(*args: Any) -> list:
        vals, out_dims = vmap_flat(lambda *xs: list(fun(*xs)), size, list(args), list(dims))
        return [move_axis(v, d, 0, size) for v, d in zip(vals, out_dims)]
    return batched


# ---------------------------------------------------------------- closures under jit
# A call primitive carries the user's Python functions. Staged by ``jit`` (or
# ``make_jaxpr``), a function that closes over a tracer of a running
# transformation would meet that tracer again when the staged program runs or is
# transformed, after its trace has finished. So the closed-over tracers become
# leading explicit inputs of the call, and each rule runs with ``rebinding``,
# which maps its closures onto those inputs. The function itself is staged as its
# traced program (``_Staged``): the arrays it closes over are captured when it is
# traced, as everywhere under ``jit``. A closed-over value is differentiated
# through the function itself: the user's rule covers only the explicit arguments.
def _closed_over(fun: Callable, args: list, eagerly: bool = False) -> tuple[Callable, list]:
    """``(fun as the call runs it, the tracers it closes over)``. Staging traces
    ``fun`` to its program; ``eagerly`` under a transformation, its closed-over
    tracers are found by tracing it abstractly too. Otherwise the call uses its
    closures in place (they are taped like any other operation)."""
    state = current_state()
    if state.dynamic is None and not (eagerly and not state.empty):
        return fun, []
    program, captured = lift_tracers(_traced(fun, [aval_of(a) for a in args]))
    if state.dynamic is not None:
        return _Staged(program), captured
    return (_rebound(fun, captured) if captured else fun), captured


def _rebound(fn: Callable, captured: list) -> Callable:
    """``fn`` with the values of ``captured`` as its leading arguments."""
    k = len(captured)

    def with_captured(*args: Any) -> Any:
        with rebinding(captured, args[:k]):
            return fn(*args[k:])
    return with_captured


# ---------------------------------------------------------------- custom_jvp
custom_jvp_call_p = _call_primitive("custom_jvp_call")


def _custom_jvp_jvp(primals: list, tangents: list, *, fun: Callable, rule: Callable,
                    name: str) -> tuple:
    """The rule gets ``None`` for a symbolically zero tangent."""
    outs, out_ts = rule(primals, tangents)
    return list(outs), list(out_ts)


def _jvp_with_captured(fun_c: Callable, captured: list, *, rule: Callable) -> dict:
    """The rule over (closed-over values, arguments): the user's rule for the
    arguments, plus the jvp of the function in the closed-over values."""
    k = len(captured)

    def rule_c(primals: list, tangents: list) -> tuple:
        with rebinding(captured, primals[:k]):
            outs, out_ts = rule(primals[k:], tangents[k:])
        if any(t is not None for t in tangents[:k]):
            _, extra = jvp_flat(lambda *c: fun_c(*c, *primals[k:]), list(primals[:k]),
                                zeros_where_none(list(tangents[:k]), list(primals[:k])))
            out_ts = [a + b for a, b in zip(out_ts, extra)]
        return outs, out_ts
    return {"rule": rule_c}


def _custom_jvp_batch(size: int, vals: list, dims: list, *, fun: Callable,
                      rule: Callable, name: str) -> tuple:
    n = len(vals)

    def flat_rule(*xs: Any) -> list:
        outs, ts = rule(list(xs[:n]), list(xs[n:]))
        return list(outs) + list(ts)

    # the arguments move to axis 0 (or stay unbatched) before the call, so the
    # batched function and rule see them, and their tangents, there
    args = [v if d is None else to_front(v, d, size) for v, d in zip(vals, dims)]
    front = [None if d is None else 0 for d in dims]
    batched_rule = _batched(flat_rule, front * 2, size)

    def rule_b(primals: list, tangents: list) -> tuple:
        res = batched_rule(*primals, *zeros_where_none(tangents, primals))
        return res[:len(res) // 2], res[len(res) // 2:]

    outs = bind(custom_jvp_call_p, *args, fun=_batched(fun, front, size), rule=rule_b,
                name=name)
    return outs, [0] * len(outs)


custom_jvp_call_p.jvp = _custom_jvp_jvp
custom_jvp_call_p.batch = _custom_jvp_batch
custom_jvp_call_p.with_captured = _jvp_with_captured


def _positional(fun: Callable, args: tuple, kwargs: dict) -> tuple:
    """``args`` and ``kwargs`` as the positional arguments of ``fun``, defaults
    filled in (a custom rule receives every argument, as in JAX)."""
    args, kwargs = as_positional(fun, args, kwargs)
    if kwargs:
        raise TypeError(f"keyword-only arguments of a custom-rule function "
                        f"({', '.join(kwargs)}) are not supported: make them "
                        "positional")
    return args


class _FlatCall:
    """One call of a custom-rule function on flat lists: the ``nondiff_argnums``
    set aside (``nd``), the other arguments flattened (``leaves``, ``in_tree``),
    and the output structure recorded by whichever user function runs first."""

    def __init__(self, fun: Callable, args: tuple, nondiff_argnums: tuple):
        self.fun = fun
        self.static = {i: args[i] for i in nondiff_argnums}
        self.nd = [self.static[i] for i in nondiff_argnums]
        self.dyn = [a for i, a in enumerate(args) if i not in self.static]
        self.leaves, self.in_tree = tree_flatten(self.dyn)
        self.n_args = len(args)
        self.out_tree: list = []

    def full(self, flat: Any) -> list:
        """All the arguments, from flat leaves of the differentiable ones."""
        it = iter(tree_unflatten(self.in_tree, flat))
        return [self.static[i] if i in self.static else next(it)
                for i in range(self.n_args)]

    def leaf_names(self) -> list[str]:
        """``argument 1 (w)['b']``: the names of the differentiable leaves."""
        positions = [i for i in range(self.n_args) if i not in self.static]
        return [p for i, d in zip(positions, self.dyn)
                for p in tree_leaf_paths(d, describe_argument(self.fun, i))]

    def outputs(self, out: Any) -> list:
        leaves, tree = tree_flatten(out)
        self.out_tree[:] = [tree]
        return leaves

    def flat_fun(self, *xs: Any) -> list:
        return self.outputs(self.fun(*self.full(xs)))

    def bind(self, prim: Primitive, eagerly: bool = False, **rules: Any) -> Any:
        """Bind ``prim`` on the flat leaves; closed-over tracers become leading
        inputs (``_closed_over``; ``prim.with_captured`` adapts the rules)."""
        args = [leaf_array(x) for x in self.leaves]
        fun, captured = _closed_over(self.flat_fun, args, eagerly)
        if captured and rules:
            rules = prim.with_captured(fun, captured, **rules)
        outs = bind(prim, *captured, *args, fun=fun, name=getattr(self.fun, "__name__", "f"),
                    **rules)
        if not self.out_tree:
            self.flat_fun(*self.leaves)
        return tree_unflatten(self.out_tree[0], outs)


class _CustomRules:
    """A function with user-defined derivative rules: the rules are set by
    ``defjvp`` or ``defvjp``; ``_call`` flattens a call for them."""

    _what = ""

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        require_callable(fun, self._what)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        functools.update_wrapper(self, fun, updated=())  # never copy fun.__dict__

    def _call(self, args: tuple, kwargs: dict, missing: Any, how: str) -> _FlatCall:
        """The call on flat lists; an ``AttributeError`` saying ``how`` to set the
        rules while ``missing`` (a rule) is not set."""
        if missing is None:
            raise AttributeError(f"{self._what[4:]} function {self.__name__} has no rule: "
                                 f"{how}")
        return _FlatCall(self.fun, _positional(self.fun, args, kwargs), self.nondiff_argnums)


class custom_jvp(_CustomRules):
    """A function with a user-defined forward-mode rule (``defjvp``), honoured by
    every transformation (reverse mode transposes the rule).

    >>> import fad, fad.numpy as fnp
    >>> @fad.custom_jvp
    ... def log1pexp(x):
    ...     return fnp.log1p(fnp.exp(x))
    >>> @log1pexp.defjvp
    ... def log1pexp_jvp(primals, tangents):
    ...     (x,), (t,) = primals, tangents
    ...     return log1pexp(x), t * fad.nn.sigmoid(x)   # stable where exp overflows
    >>> round(float(fad.grad(log1pexp)(10.0)), 4)
    1.0
    """

    _what = "fad.custom_jvp"
    jvp_rule: Callable | None = None

    def defjvp(self, rule: Callable) -> Callable:
        """Set ``rule(primals, tangents) -> (primal_out, tangent_out)``."""
        self.jvp_rule = rule
        return rule

    def defjvps(self, *rules: Callable | None) -> None:
        """Set one rule per argument, ``rule_i(t_i, primal_out, *primals) ->`` that
        argument's contribution to the output tangent (summed over the arguments);
        ``None`` for an argument the output does not depend on differentiably.

        >>> import fad, fad.numpy as fnp
        >>> @fad.custom_jvp
        ... def f(x, y):
        ...     return fnp.sin(x) * y
        >>> f.defjvps(lambda t, ans, x, y: fnp.cos(x) * y * t,
        ...           lambda t, ans, x, y: fnp.sin(x) * t)
        >>> float(fad.grad(f, argnums=1)(0.0, 2.0)), float(fad.grad(f)(0.0, 2.0))
        (0.0, 2.0)
        """
        if self.nondiff_argnums:
            raise TypeError(f"{self.__name__}.defjvps cannot be used with nondiff_argnums: "
                            "use defjvp")

        def rule(primals: tuple, tangents: tuple) -> tuple:
            if len(rules) != len(primals):
                raise TypeError(f"{self.__name__}.defjvps got {len(rules)} rule(s) for "
                                f"{len(primals)} argument(s): give one per argument "
                                "(None where there is no derivative)")
            out = self(*primals)
            parts = [r(t, out, *primals) for r, t in zip(rules, tangents) if r is not None]
            if not parts:
                leaves, tree = tree_flatten(out)
                return out, tree_unflatten(tree, zeros_where_none([None] * len(leaves),
                                                                  leaves))
            return out, functools.reduce(lambda a, b: tree_map(lambda u, v: u + v, a, b),
                                         parts)
        self.jvp_rule = rule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        call = self._call(args, kwargs, self.jvp_rule, "decorate one with @f.defjvp")

        def flat_rule(primals: list, tangents: list) -> tuple:
            p = tuple(tree_unflatten(call.in_tree, primals))
            t = tuple(tree_unflatten(call.in_tree, zeros_where_none(tangents, primals)))
            got = self.jvp_rule(*call.nd, p, t)
            if not isinstance(got, tuple | list) or len(got) != 2:
                raise TypeError(f"the custom_jvp rule of {self.__name__} must return a pair "
                                f"(primal_out, tangent_out), got {type(got).__name__}")
            outs = call.outputs(got[0])
            return outs, _checked_tangents(self.__name__, got[1], outs, call.out_tree[0])

        return call.bind(custom_jvp_call_p, rule=flat_rule)


def _checked_tangents(name: str, t_out: Any, outs: list, out_tree: Any) -> list:
    """The rule's tangent leaves, checked against its primal output: same
    structure, and per leaf the same shape and (for a float output) dtype."""
    leaves, tree = tree_flatten(t_out)
    if tree != out_tree:
        raise TypeError(f"the custom_jvp rule of {name} returned a tangent structured as "
                        f"{tree!r}; the primal output is structured as {out_tree!r}")
    return check_like(
        leaves, [aval_of(o) for o in outs],
        lambda: tree_leaf_paths(tree_unflatten(out_tree, outs), "a primal output"),
        f"the custom_jvp rule of {name} returned a", "tangent", ints=False)


# ---------------------------------------------------------------- custom_vjp
custom_vjp_call_p = _call_primitive("custom_vjp_call")


def _custom_vjp_rule(primals: list, *, fun: Callable, fwd: Callable, bwd: Callable,
                     name: str) -> tuple:
    outs, res = fwd(*primals)

    def pullback(cts: list) -> list:
        return list(bwd(res, zeros_where_none(cts, outs)))
    return list(outs), pullback


def _custom_vjp_jvp(primals: list, tangents: list, *, fun: Callable, fwd: Callable,
                    bwd: Callable, name: str) -> tuple:
    """Forward mode from a backward rule: the jvp is the transpose of the linear map
    ``ct -> bwd(res, ct)``, traced with symbolic cotangents."""
    outs, res = fwd(*primals)
    zeros = zeros_where_none([None] * len(outs), outs)
    _, lin, is_zero = linearize_flat(lambda *cts: list(bwd(res, list(cts))), zeros,
                                     label=f"the backward rule of {name}")
    live = [t for t, z in zip(zeros_where_none(tangents, primals), is_zero) if not z]
    got = backward_pass(lin.jaxpr, lin.consts, live) if live else [None] * len(outs)
    return list(outs), [g if g is not None else z for g, z in zip(got, zeros)]


def _custom_vjp_batch(size: int, vals: list, dims: list, *, fun: Callable, fwd: Callable,
                      bwd: Callable, name: str) -> tuple:
    n = len(vals)
    args = [to_front(v, d, size) for v, d in zip(vals, dims)]
    res_tree: list = []

    def flat_fwd(*xs: Any) -> list:
        outs, res = fwd(*xs)
        leaves, t = tree_flatten(res)
        res_tree[:] = [t, len(outs)]
        return list(outs) + leaves

    fwd_b = _batched(flat_fwd, [0] * n, size)

    def fwd2(*xs: Any) -> tuple:
        r = fwd_b(*xs)
        k = res_tree[1]
        return r[:k], r[k:]

    def bwd2(res: list, cts: list) -> list:
        def flat_bwd(*xs: Any) -> list:
            return list(bwd(tree_unflatten(res_tree[0], xs[:len(res)]), list(xs[len(res):])))
        return _batched(flat_bwd, [0] * (len(res) + len(cts)), size)(*res, *cts)

    outs = bind(custom_vjp_call_p, *args, fun=_batched(fun, [0] * n, size), fwd=fwd2,
                bwd=bwd2, name=name)
    return outs, [0] * len(outs)


def _vjp_with_captured(fun_c: Callable, captured: list, *, fwd: Callable,
                       bwd: Callable) -> dict:
    """``fwd`` and ``bwd`` over (closed-over values, arguments): the user's rule
    for the arguments, plus the vjp of the function in the closed-over values."""
    k = len(captured)

    def fwd_c(*args: Any) -> tuple:
        with rebinding(captured, args[:k]):
            outs, res = fwd(*args[k:])
        return outs, (list(args[:k]), list(args[k:]), res)

    def bwd_c(res: Any, cts: list) -> list:
        c, xs, user_res = res
        with rebinding(captured, c):
            got = bwd(user_res, cts)
        _, pull = vjp_flat(lambda *cc: fun_c(*cc, *xs), c, label="a closed-over value")
        return list(pull(list(cts), consume=True)) + list(got)
    return {"fwd": fwd_c, "bwd": bwd_c}


custom_vjp_call_p.vjp_rule = _custom_vjp_rule
custom_vjp_call_p.jvp = _custom_vjp_jvp
custom_vjp_call_p.batch = _custom_vjp_batch
custom_vjp_call_p.with_captured = _vjp_with_captured


class custom_vjp(_CustomRules):
    """A function with a user-defined reverse-mode rule (``defvjp(fwd, bwd)``),
    honoured by every transformation (forward mode transposes ``bwd``).

    ``fwd(*args) -> (out, residuals)``; ``bwd(residuals, ct) -> tuple`` with one
    cotangent per argument (excluding ``nondiff_argnums``, which come first).

    >>> import fad, fad.numpy as fnp
    >>> @fad.custom_vjp
    ... def clip_gradient(x):
    ...     return x
    >>> clip_gradient.defvjp(lambda x: (x, None),
    ...                      lambda res, g: (fnp.clip(g, -1.0, 1.0),))
    >>> float(fad.grad(lambda x: 5.0 * clip_gradient(x))(2.0))
    1.0
    """

    _what = "fad.custom_vjp"
    fwd: Callable | None = None
    bwd: Callable | None = None

    def defvjp(self, fwd: Callable, bwd: Callable) -> None:
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        call = self._call(args, kwargs, self.fwd, "call f.defvjp(fwd, bwd)")
        in_tree, leaves, n_dyn = call.in_tree, call.leaves, len(call.dyn)
        dyn_avals = [tree_map(aval_of, d) for d in call.dyn]

        def flat_fwd(*xs: Any) -> tuple:
            out, res = self.fwd(*call.full(xs))
            return call.outputs(out), res

        def flat_bwd(res: Any, cts: list) -> list:
            ct = tree_unflatten(call.out_tree[0], cts)
            got = self.bwd(*call.nd, res, ct)
            if not isinstance(got, tuple) or len(got) != n_dyn:
                raise TypeError(
                    f"the custom_vjp backward rule of {self.__name__} must return a tuple "
                    f"of {n_dyn} cotangent(s), one per differentiable argument, "
                    f"got {type(got).__name__}"
                    f"{' of length ' + str(len(got)) if isinstance(got, tuple) else ''}")
            # None for a whole argument: a zero cotangent (JAX's idiom, e.g. for ints)
            got = [tree_map(lambda a: np.zeros(a.shape, a.dtype), d) if g is None else g
                   for g, d in zip(got, dyn_avals)]
            g_leaves, g_tree = tree_flatten(got)
            if g_tree != in_tree:
                raise TypeError(f"the custom_vjp backward rule of {self.__name__} returned "
                                f"cotangents structured as {g_tree!r}; expected {in_tree!r}")
            # a float cotangent of another precision is cast to the argument's dtype
            # (JAX lets it through; the gradient keeps its argument's dtype this way)
            return check_like(
                g_leaves, [aval_of(x) for x in leaves], call.leaf_names,
                f"the custom_vjp backward rule of {self.__name__} returned a", "cotangent",
                ints=False, cast=True)

        return call.bind(custom_vjp_call_p, fwd=flat_fwd, bwd=flat_bwd)


# ---------------------------------------------------------------- checkpoint
checkpoint_p = _call_primitive("checkpoint")


def _checkpoint_rule(primals: list, *, fun: Callable, name: str) -> tuple:
    """Forward: run ``fun`` without taping it. Backward: run it again, taped."""
    outs = fun(*primals)

    def pullback(cts: list) -> list:
        inputs = list(primals)
        if current_state().dynamic is not None:  # staged: keep the recomputation apart
            inputs = [bind(optimization_barrier_p, x) for x in inputs]
        _, pull = vjp_flat(fun, inputs, label=f"the recomputation of {name}")
        return pull(cts, consume=True)
    return list(outs), pullback


def _checkpoint_jvp(primals: list, tangents: list, *, fun: Callable, name: str) -> tuple:
    outs, ts = jvp_flat(fun, primals, tangents)
    return outs, ts


def _checkpoint_batch(size: int, vals: list, dims: list, *, fun: Callable, name: str
                      ) -> tuple:
    outs = bind(checkpoint_p, *vals, fun=_batched(fun, dims, size), name=name)
    return outs, [0] * len(outs)


checkpoint_p.vjp_rule = _checkpoint_rule
checkpoint_p.jvp = _checkpoint_jvp
checkpoint_p.batch = _checkpoint_batch


def checkpoint(fun: Callable) -> Callable:
    """Rematerialise: reverse mode stores only ``fun``'s inputs and recomputes its
    intermediates during the backward pass.

    >>> import fad, fad.numpy as fnp
    >>> f = fad.checkpoint(lambda x: fnp.sin(fnp.sin(x)))
    >>> round(float(fad.grad(f)(1.0)), 6)
    0.360039
    """
    require_callable(fun, "fad.checkpoint")

    @functools.wraps(fun)
    def remat(*args: Any, **kwargs: Any) -> Any:
        # closures over running transformations' tracers (a layer's parameters)
        # become inputs eagerly too, so that they are recomputed rather than taped
        return _FlatCall(fun, _positional(fun, args, kwargs), ()).bind(checkpoint_p,
                                                                       eagerly=True)

    return remat

