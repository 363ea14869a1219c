"""Differentiation and staging: ``grad``, ``value_and_grad``, ``vjp``, ``jvp``,
``linearize``, ``make_jaxpr``, ``stop_gradient`` and ``no_grad``, thin compositions
of trace -> rewrite -> evaluate (the Jacobians are in ``jacobians``)."""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from ..core.ir import ClosedJaxpr, ShapedArray
from ..core.trace import Tracer, aval_of, bind, current_state, enter_onto, no_grad_scope
from ..interpreters.evaluate import eval_jaxpr
from ..interpreters.jvp import jvp_flat
from ..interpreters.linearize import linearize_flat
from ..interpreters.staging import trace_to_jaxpr
from ..interpreters.tape import vjp_flat
from ..primitives.structural import stop_gradient_p
from ..tree import tree_flatten, tree_leaf_paths, tree_map, tree_unflatten
from .arguments import (
    argnums_tuple,
    call_label,
    check_argnums,
    distinct_argnums,
    per_argnum,
    require_callable,
    require_inputs,
    substitute,
)
from .leaves import (
    as_array,
    check_like,
    differentiated,
    flatten_leaves,
    is_float,
    leaf_array,
    ones_like,
    zeros_like,
)


# ---------------------------------------------------------------- make_jaxpr
def make_jaxpr(fun: Callable, static_argnums: int | Sequence[int] = ()) -> Callable:
    """Trace ``fun`` abstractly to its IR.

    >>> import fad, fad.numpy as fnp
    >>> print(fad.make_jaxpr(lambda x: fnp.sum(fnp.sin(x) * x))(fnp.ones(3, "float32")))
    { lambda ; a:f32[3]. let
        b:f32[3] = sin a
        c:f32[3] = mul b a
        d:f32[] = reduce_sum[axes=(0,)] c
      in (d,) }
    """
    require_callable(fun, "fad.make_jaxpr")
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def traced(*args: Any, **kwargs: Any) -> ClosedJaxpr:
        dyn_idx = [i for i in range(len(args)) if i not in static]
        leaves, in_tree = flatten_leaves([args[i] for i in dyn_idx])
        avals = [x if isinstance(x, ShapedArray) else aval_of(x) for x in leaves]
        out_tree = []

        def flat_fun(*flat: Any) -> list:
            dyn = tree_unflatten(in_tree, flat)
            out = fun(*substitute(args, tuple(dyn_idx), tuple(dyn)), **kwargs)
            out_leaves, tree = tree_flatten(out)
            out_tree.append(tree)
            return [as_array(o) for o in out_leaves]

        closed, _ = trace_to_jaxpr(flat_fun, avals, label=call_label("make_jaxpr", fun))
        closed.in_tree, closed.out_tree = in_tree, out_tree[0]
        return closed

    return traced


# ---------------------------------------------------------------- reverse mode
def vjp(fun: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """``(out, vjp_fn)`` (plus ``aux``): ``vjp_fn(ct)`` returns one cotangent per primal.

    >>> import fad, fad.numpy as fnp
    >>> out, f_vjp = fad.vjp(lambda x: x * 3.0, fnp.array([1.0, 2.0]))
    >>> f_vjp(fnp.ones(2))[0].tolist()
    [3.0, 3.0]
    """
    require_callable(fun, "fad.vjp")
    return vjp_of(fun, primals, has_aux, later=True)


def vjp_of(fun: Callable, primals: tuple, has_aux: bool, later: bool) -> tuple:
    """``fad.vjp`` of ``fun`` at ``primals``; ``later``: ``vjp_fn`` may run after the
    caller has written into its arrays, so it keeps the call's values (``jacrev``
    pulls back at once)."""
    leaves, in_tree = differentiated(fun, primals, range(len(primals)), "fad.vjp")
    flat_fun, out_tree, aux_box = _flat_function(fun, in_tree, has_aux)
    out_primals, pull = vjp_flat(flat_fun, leaves, label=call_label("vjp", fun),
                                 aux_box=aux_box, later=later)
    out_avals = [aval_of(o) for o in out_primals]

    def vjp_fn(ct: Any) -> tuple:
        ct_leaves, ct_tree = tree_flatten(ct)
        if ct_tree != out_tree[0]:
            raise TypeError(f"vjp_fn expects a cotangent with the structure of the "
                            f"output {out_tree[0]!r}, got {ct_tree!r}")
        ct_leaves = check_like(
            ct_leaves, out_avals, lambda: tree_leaf_paths(out, "the output"),
            "vjp_fn got a", "cotangent")
        cts = pull(ct_leaves)
        grads = [zeros_like(x) if g is None else g for g, x in zip(cts, leaves)]
        return tuple(tree_unflatten(in_tree, grads))

    out = tree_unflatten(out_tree[0], out_primals)
    return (out, vjp_fn, aux_box[0]) if has_aux else (out, vjp_fn)


def _flat_function(fun: Callable, in_tree: Any, has_aux: bool) -> tuple:
    """``fun`` on flat leaves, returning flat outputs; fills ``out_tree`` (and
    ``aux_box`` when ``has_aux``) when it runs."""
    out_tree: list = []
    aux_box: list = []

    def flat_fun(*flat: Any) -> list:
        out = fun(*tree_unflatten(in_tree, flat))
        if has_aux:
            out, aux = _split_aux(out)
            aux_box.append(aux)
        leaves, tree = tree_flatten(out)
        out_tree.append(tree)
        return leaves

    return flat_fun, out_tree, aux_box


def _split_aux(out: Any) -> tuple:
    if not (isinstance(out, tuple | list) and len(out) == 2):
        raise TypeError("with has_aux=True the function must return a pair (output, aux)")
    return out[0], out[1]


def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0,
                   has_aux: bool = False, holomorphic: bool = False, *,
                   argnum: int | Sequence[int] | None = None) -> Callable:
    """``f(x)`` and its gradient, in one pass. ``argnum`` is HIPS autograd's
    spelling of ``argnums``.

    >>> import fad
    >>> v, g = fad.value_and_grad(lambda x: x ** 3)(2.0)
    >>> float(v), float(g)
    (8.0, 12.0)
    """
    require_callable(fun, "fad.value_and_grad")
    argnums = check_argnums(argnums if argnum is None else argnum)

    @functools.wraps(fun)
    def value_and_grad_f(*args: Any, **kwargs: Any) -> Any:
        nums = argnums_tuple(argnums, len(args), "fad.grad", fun)
        diff = distinct_argnums(nums)
        leaves, in_tree = differentiated(fun, args, diff, "fad.grad")
        if holomorphic and any(aval_of(x).dtype.kind != "c" for x in leaves):
            raise TypeError("fad.grad(..., holomorphic=True) needs complex inputs")
        aux_box: list = []

        def flat_fun(*flat: Any) -> list:
            dyn = tree_unflatten(in_tree, flat)
            out = fun(*substitute(args, diff, tuple(dyn)), **kwargs)
            if has_aux:
                out, aux = _split_aux(out)
                aux_box.append(aux)
            return [_check_scalar_output(out, holomorphic)]

        (out,), pull = vjp_flat(flat_fun, leaves, label=call_label("grad", fun),
                                aux_box=aux_box)
        cts = pull([ones_like(out)], consume=True)
        grads = [zeros_like(x) if g is None else g for g, x in zip(cts, leaves)]
        g = per_argnum(tree_unflatten(in_tree, grads), diff, nums, argnums)
        return ((out, aux_box[0]), g) if has_aux else (out, g)

    return value_and_grad_f


def _check_scalar_output(out: Any, holomorphic: bool = False) -> Any:
    leaves, tree = tree_flatten(out)
    if len(leaves) != 1 or tree.node is not None:
        raise TypeError(f"fad.grad requires a function returning one scalar array, but it "
                        f"returned a {tree!r} of {len(leaves)} leaves. Use fad.vjp or "
                        "fad.jacrev for other outputs, or has_aux=True to return extras.")
    out = leaf_array(leaves[0])
    _check_scalar_aval(aval_of(out), holomorphic)
    return out


def _check_scalar_aval(aval: ShapedArray, holomorphic: bool = False) -> None:
    if aval.shape != ():
        raise TypeError(f"fad.grad requires a scalar output, but the function returned "
                        f"an array of shape {aval.shape}. Reduce it (e.g. .sum()), or use "
                        "fad.vjp / fad.jacrev for a non-scalar output.")
    if aval.dtype.kind not in "fc":
        raise TypeError(f"fad.grad requires a real- or complex-valued (float) output, "
                        f"but the function returned dtype {aval.dtype}: an integer or "
                        "boolean output has no derivative.")
    if aval.dtype.kind == "c" and not holomorphic:
        raise TypeError(f"fad.grad requires a real-valued output, but the function "
                        f"returned {aval.dtype}. For a holomorphic function pass "
                        "holomorphic=True; otherwise differentiate a real quantity "
                        "(e.g. fnp.abs(z) ** 2) or use fad.vjp.")


def grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, *, argnum: int | Sequence[int] | None = None) -> Callable:
    """The gradient of a scalar-valued ``fun`` with respect to ``argnums``
    (``argnum``: HIPS autograd's spelling of it).

    >>> import fad, fad.numpy as fnp
    >>> fad.grad(lambda x: fnp.sum(x ** 2))(fnp.array([1.0, 2.0])).tolist()
    [2.0, 4.0]
    >>> float(fad.grad(fad.grad(fnp.sin))(0.0))
    -0.0
    >>> complex(fad.grad(lambda z: z ** 2, holomorphic=True)(1j))   # f'(z) = 2z
    2j
    """
    require_callable(fun, "fad.grad")
    vg = value_and_grad(fun, argnums if argnum is None else argnum, has_aux, holomorphic)

    @functools.wraps(fun)
    def grad_f(*args: Any, **kwargs: Any) -> Any:
        value, g = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return grad_f


# ---------------------------------------------------------------- forward mode
def jvp(fun: Callable, primals: Sequence, tangents: Sequence, has_aux: bool = False
        ) -> tuple:
    """``(fun(*primals), J @ tangents)`` in one forward pass.

    >>> import fad, fad.numpy as fnp
    >>> y, t = fad.jvp(fnp.sin, (0.0,), (2.0,))
    >>> float(y), float(t)
    (0.0, 2.0)
    """
    require_callable(fun, "fad.jvp")
    if not isinstance(primals, tuple | list) or not isinstance(tangents, tuple | list):
        raise TypeError("fad.jvp(f, primals, tangents): primals and tangents must be "
                        "tuples (or lists) with one entry per argument of f")
    require_inputs(fun, primals, range(len(primals)), "fad.jvp")
    p_leaves, p_tree = flatten_leaves(list(primals))
    t_leaves = _checked_tangents(tangents, p_leaves, p_tree, primals, "fad.jvp")
    t_leaves = [t if is_float(p) else None for p, t in zip(p_leaves, t_leaves)]
    flat_fun, out_tree, aux_box = _flat_function(fun, p_tree, has_aux)
    outs, out_ts = jvp_flat(flat_fun, p_leaves, t_leaves, label=call_label("jvp", fun),
                            aux_box=aux_box)
    out_ts = [zeros_like(o) if t is None else t for o, t in zip(outs, out_ts)]
    res = (tree_unflatten(out_tree[0], outs), tree_unflatten(out_tree[0], out_ts))
    return res + (aux_box[0],) if has_aux else res


def _checked_tangents(tangents: Sequence, p_leaves: list, p_tree: Any, primals: Sequence,
                      who: str) -> list:
    """The leaves of ``tangents``, checked against the primals' (``check_like``)."""
    t_leaves, t_tree = tree_flatten(list(tangents))
    if t_tree != p_tree:
        raise TypeError(f"{who}: the tangents must have the structure of the primals, "
                        f"{p_tree!r}, but have the structure {t_tree!r}")
    return check_like(t_leaves, [aval_of(p) for p in p_leaves],
                      lambda: tree_leaf_paths(list(primals), "primals"), f"{who} got a",
                      "tangent")


def linearize(fun: Callable, *primals: Any) -> tuple:
    """``(fun(*primals), f_jvp)`` where ``f_jvp(*tangents)`` evaluates the linear map.

    >>> import fad
    >>> y, f_jvp = fad.linearize(lambda x: x ** 2, 3.0)
    >>> float(f_jvp(1.0))
    6.0
    """
    require_callable(fun, "fad.linearize")
    leaves, in_tree = differentiated(fun, primals, range(len(primals)), "fad.linearize")
    out_tree: list = []

    def flat_fun(*flat: Any) -> list:
        out_leaves, tree = tree_flatten(fun(*tree_unflatten(in_tree, flat)))
        out_tree.append(tree)
        return out_leaves

    outs, lin, is_zero = linearize_flat(flat_fun, leaves, label=call_label("linearize", fun),
                                        later=True)
    if current_state().empty and any(isinstance(o, Tracer) for o in outs):
        # a jitted call stages its primal outputs with its tangents (one call computes
        # both), so they come out of the linear program's trace as tracers: compute
        # the values with a plain call
        outs = flat_fun(*leaves)

    def f_jvp(*tangents: Any) -> Any:
        t_leaves = _checked_tangents(tangents, leaves, in_tree, primals,
                                     "f_jvp (of fad.linearize)")
        live = iter(eval_jaxpr(lin.jaxpr, lin.consts, *t_leaves))
        out_ts = [zeros_like(o) if z else next(live) for o, z in zip(outs, is_zero)]
        return tree_unflatten(out_tree[0], out_ts)

    return tree_unflatten(out_tree[0], outs), f_jvp


# ---------------------------------------------------------------- constants
def stop_gradient(x: Any) -> Any:
    """The identity, with a zero derivative in every differentiation mode.

    >>> import fad
    >>> float(fad.grad(lambda x: x * fad.stop_gradient(x))(3.0))
    3.0
    """
    return tree_map(lambda leaf: bind(stop_gradient_p, as_array(leaf)), x)


class no_grad:
    """Everything computed inside is a constant to the differentiations around it.

    Use as ``with fad.no_grad():``, as a decorator ``@fad.no_grad``, or as a
    function transformation ``fad.no_grad(f)``. Differentiation started *inside*
    the block still works.

    >>> import fad
    >>> def f(x):
    ...     with fad.no_grad():
    ...         scale = x * 2.0          # a constant to fad.grad
    ...     return scale * x
    >>> float(fad.grad(f)(3.0))
    6.0
    """

    def __init__(self, fun: Callable | None = None):
        self._fun = fun
        self._scopes: list = []
        if fun is not None:
            functools.update_wrapper(self, fun, updated=())  # never copy fun.__dict__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._fun is None:  # @fad.no_grad() used as a decorator
            (fun,) = args
            return no_grad(fun)
        with no_grad_scope():
            return self._fun(*args, **kwargs)

    def __enter__(self) -> "no_grad":
        return enter_onto(self._scopes, no_grad_scope(), self)

    def __exit__(self, *exc: Any) -> None:
        self._scopes.pop().__exit__(*exc)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)
