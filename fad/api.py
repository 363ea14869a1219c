"""The public transformations: thin compositions of trace -> rewrite -> evaluate."""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable, Sequence

import numpy as np

from .backends import default_xp, namespace_of
from .core.errors import _FAD_DIR
from .core.ir import ClosedJaxpr, ShapedArray
from .core.trace import Tracer, aval_of, bind, concrete_or_none, enter_onto, no_grad_scope
from .interpreters.evaluate import eval_jaxpr
from .interpreters.jvp import jvp_flat
from .interpreters.reverse import linearize_flat
from .interpreters.staging import trace_to_jaxpr
from .interpreters.vjp import vjp_flat
from .numpy._base import asarray
from .primitives.structural import stop_gradient_p
from .tree import tree_flatten, tree_map, tree_unflatten


# ---------------------------------------------------------------- helpers
class _Label:
    """``fad.grad of f (called at file:line)``, built only if an error needs it: a
    transformation call records just its caller's code object and line."""

    __slots__ = ("name", "fun", "code", "line")

    def __init__(self, name: str, fun: Callable, depth: int = 2):
        frame = sys._getframe(depth)
        while frame.f_back is not None and frame.f_code.co_filename.startswith(_FAD_DIR):
            frame = frame.f_back  # the first frame outside fad: the user's call
        self.name, self.fun, self.code, self.line = name, fun, frame.f_code, frame.f_lineno

    def __str__(self) -> str:
        f = self.fun
        fname = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)
        return f"fad.{self.name} of {fname} (called at {self.code.co_filename}:{self.line})"

    def __bool__(self) -> bool:
        return True


def _label(name: str, f: Callable) -> _Label:
    return _Label(name, f, depth=3)


def _leaf_array(x: Any) -> Any:
    if isinstance(x, Tracer | ShapedArray | np.generic) or hasattr(x, "__array_namespace__"):
        return x
    conv = getattr(x, "__fad_array__", None)
    if conv is not None:
        return conv()
    return asarray(x)


def _flatten_leaves(tree: Any) -> tuple[list, Any]:
    leaves, treedef = tree_flatten(tree)
    return [_leaf_array(x) for x in leaves], treedef


def _is_float(x: Any) -> bool:
    return aval_of(x).dtype.kind in "fc"


def _check_differentiable(leaves: list, what: str) -> None:
    for x in leaves:
        dt = aval_of(x).dtype
        if dt.kind not in "fc":
            raise TypeError(
                f"{what} requires real- or complex-valued inputs (float32, float64...), "
                f"but got an input of dtype {dt}. Integer and boolean inputs are not "
                "differentiable: convert with x.astype(float), or exclude the argument "
                "with argnums.")


def _zeros_like(x: Any) -> Any:
    return _filled_like(x, 0)


def _ones_like(x: Any) -> Any:
    return _filled_like(x, 1)


def _filled_like(x: Any, value: int) -> Any:
    c = concrete_or_none(x)
    if type(c) is np.ndarray or isinstance(c, np.generic):  # the common case, fast
        return np.full(c.shape, value, c.dtype)
    aval = aval_of(x)
    xp = _xp_of(x)
    return xp.full(aval.shape, value, dtype=getattr(xp, aval.dtype.name))


def _xp_of(x: Any) -> Any:
    c = concrete_or_none(x)
    return namespace_of([c]) if c is not None else default_xp()


def _argnums_tuple(argnums: int | Sequence[int], nargs: int) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for i in nums:
        if not -nargs <= i < nargs:
            raise ValueError(f"argnums={argnums} but the function was called with "
                             f"{nargs} positional argument(s)")
    return tuple(i % nargs for i in nums)


def _substitute(args: tuple, argnums: tuple, values: tuple) -> list:
    new = list(args)
    for i, v in zip(argnums, values):
        new[i] = v
    return new


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
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def traced(*args: Any, **kwargs: Any) -> ClosedJaxpr:
        dyn_idx = [i for i in range(len(args)) if i not in static]
        leaves, in_tree = _flatten_leaves([args[i] for i in dyn_idx])
        avals = [x if isinstance(x, ShapedArray) else aval_of(x) for x in leaves]
        out_tree = []

        def flat_fun(*flat: Any) -> list:
            dyn = tree_unflatten(in_tree, flat)
            out = fun(*_substitute(args, tuple(dyn_idx), tuple(dyn)), **kwargs)
            out_leaves, tree = tree_flatten(out)
            out_tree.append(tree)
            return [asarray(o) if not isinstance(o, Tracer) else o for o in out_leaves]

        closed, _ = trace_to_jaxpr(flat_fun, avals, label=_label("make_jaxpr", fun))
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
    leaves, in_tree = _flatten_leaves(list(primals))
    _check_differentiable(leaves, "fad.vjp")
    flat_fun, out_tree, aux_box = _flat_function(fun, in_tree, has_aux)
    out_primals, pull = vjp_flat(flat_fun, leaves, label=_label("vjp", fun),
                                 aux_box=aux_box)
    out_avals = [aval_of(o) for o in out_primals]

    def vjp_fn(ct: Any) -> tuple:
        ct_leaves, ct_tree = tree_flatten(ct)
        if ct_tree != out_tree[0]:
            raise TypeError(f"vjp_fn expects a cotangent with the structure of the "
                            f"output {out_tree[0]!r}, got {ct_tree!r}")
        # a Python scalar cotangent is weakly typed: it takes the output's dtype
        ct_leaves = [asarray(c, a.dtype) if type(c) in (int, float, complex) else asarray(c)
                     for c, a in zip(ct_leaves, out_avals)]
        for c, a in zip(ct_leaves, out_avals):
            ca = aval_of(c)
            if ca.shape != a.shape:
                raise TypeError(f"vjp_fn: cotangent of shape {ca.shape} for an "
                                f"output of shape {a.shape} ({a.str_short()})")
            if ca.dtype != a.dtype:
                raise TypeError(f"vjp_fn: cotangent of dtype {ca.dtype} for an output of "
                                f"dtype {a.dtype} ({a.str_short()}); cast it with "
                                f".astype({a.dtype.name!r})")
        cts = pull(ct_leaves)
        grads = [_zeros_like(x) if g is None else g for g, x in zip(cts, leaves)]
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
                   has_aux: bool = False, holomorphic: bool = False) -> Callable:
    """``f(x)`` and its gradient, in one pass.

    >>> import fad
    >>> v, g = fad.value_and_grad(lambda x: x ** 3)(2.0)
    >>> float(v), float(g)
    (8.0, 12.0)
    """
    @functools.wraps(fun)
    def value_and_grad_f(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums_tuple(argnums, len(args))
        leaves, in_tree = _flatten_leaves([args[i] for i in nums])
        _check_differentiable(leaves, "fad.grad")
        if holomorphic and any(aval_of(x).dtype.kind != "c" for x in leaves):
            raise TypeError("fad.grad(..., holomorphic=True) needs complex inputs")
        aux_box: list = []

        def flat_fun(*flat: Any) -> list:
            dyn = tree_unflatten(in_tree, flat)
            out = fun(*_substitute(args, nums, tuple(dyn)), **kwargs)
            if has_aux:
                out, aux = _split_aux(out)
                aux_box.append(aux)
            return [_check_scalar_output(out, holomorphic)]

        (out,), pull = vjp_flat(flat_fun, leaves, label=_label("grad", fun),
                                aux_box=aux_box)
        cts = pull([_ones_like(out)], consume=True)
        grads = [_zeros_like(x) if g is None else g for g, x in zip(cts, leaves)]
        grad_tree = tree_unflatten(in_tree, grads)
        g = grad_tree[0] if isinstance(argnums, int) else tuple(grad_tree)
        return ((out, aux_box[0]), g) if has_aux else (out, g)

    return value_and_grad_f


def _check_scalar_output(out: Any, holomorphic: bool = False) -> Any:
    leaves, tree = tree_flatten(out)
    if len(leaves) != 1 or tree.node is not None:
        raise TypeError(f"fad.grad requires a function returning one scalar array, but it "
                        f"returned a {tree!r} of {len(leaves)} leaves. Use fad.vjp or "
                        "fad.jacrev for other outputs, or has_aux=True to return extras.")
    out = _leaf_array(leaves[0])
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
         holomorphic: bool = False) -> Callable:
    """The gradient of a scalar-valued ``fun`` with respect to ``argnums``.

    >>> import fad, fad.numpy as fnp
    >>> fad.grad(lambda x: fnp.sum(x ** 2))(fnp.array([1.0, 2.0])).tolist()
    [2.0, 4.0]
    >>> float(fad.grad(fad.grad(fnp.sin))(0.0))
    -0.0
    >>> complex(fad.grad(lambda z: z ** 2, holomorphic=True)(1j))   # f'(z) = 2z
    2j
    """
    vg = value_and_grad(fun, argnums, has_aux, holomorphic)

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
    if not isinstance(primals, tuple | list) or not isinstance(tangents, tuple | list):
        raise TypeError("fad.jvp(f, primals, tangents): primals and tangents must be "
                        "tuples (or lists) with one entry per argument of f")
    p_leaves, p_tree = _flatten_leaves(list(primals))
    t_leaves, t_tree = _flatten_leaves(list(tangents))
    if p_tree != t_tree:
        raise TypeError(f"primal and tangent structures differ: {p_tree!r} vs {t_tree!r}")
    for p, t in zip(p_leaves, t_leaves):
        pa, ta = aval_of(p), aval_of(t)
        if pa.shape != ta.shape:
            raise TypeError(f"tangent of shape {ta.shape} for a primal of shape {pa.shape}")
    t_leaves = [t if _is_float(p) else None for p, t in zip(p_leaves, t_leaves)]
    flat_fun, out_tree, aux_box = _flat_function(fun, p_tree, has_aux)
    outs, out_ts = jvp_flat(flat_fun, p_leaves, t_leaves, label=_label("jvp", fun),
                            aux_box=aux_box)
    out_ts = [_zeros_like(o) if t is None else t for o, t in zip(outs, out_ts)]
    res = (tree_unflatten(out_tree[0], outs), tree_unflatten(out_tree[0], out_ts))
    return res + (aux_box[0],) if has_aux else res


def linearize(fun: Callable, *primals: Any) -> tuple:
    """``(fun(*primals), f_jvp)`` where ``f_jvp(*tangents)`` evaluates the linear map.

    >>> import fad
    >>> y, f_jvp = fad.linearize(lambda x: x ** 2, 3.0)
    >>> float(f_jvp(1.0))
    6.0
    """
    leaves, in_tree = _flatten_leaves(list(primals))
    _check_differentiable(leaves, "fad.linearize")
    out_tree: list = []

    def flat_fun(*flat: Any) -> list:
        out_leaves, tree = tree_flatten(fun(*tree_unflatten(in_tree, flat)))
        out_tree.append(tree)
        return out_leaves

    outs, lin, is_zero = linearize_flat(flat_fun, leaves, label=_label("linearize", fun))

    def f_jvp(*tangents: Any) -> Any:
        t_leaves, t_tree = _flatten_leaves(list(tangents))
        if t_tree != in_tree:
            raise TypeError(f"f_jvp expects tangents structured as {in_tree!r}")
        live = iter(eval_jaxpr(lin.jaxpr, lin.consts, *t_leaves))
        out_ts = [_zeros_like(o) if z else next(live) for o, z in zip(outs, is_zero)]
        return tree_unflatten(out_tree[0], out_ts)

    return tree_unflatten(out_tree[0], outs), f_jvp


# ---------------------------------------------------------------- Jacobians
def _basis(x: Any) -> Any:
    """The identity, shaped ``(x.size,) + x.shape``: one one-hot tangent per row."""
    from .primitives.structural import eye_like, reshape
    aval = aval_of(x)
    return reshape(eye_like(x, aval.size), (aval.size,) + aval.shape)


def _jacobian(fun: Callable, argnums: int | Sequence[int], mode: str) -> Callable:
    """Jacobians by ``vmap`` over a basis: of ``jvp`` (columns) or ``vjp`` (rows)."""
    from .numpy import moveaxis, reshape
    from .vmap import vmap

    def jac(*args: Any) -> Any:
        nums = _argnums_tuple(argnums, len(args))
        in_leaves, in_tree = _flatten_leaves([args[i] for i in nums])
        _check_differentiable(in_leaves, f"fad.jac{mode}")
        in_avals = [aval_of(x) for x in in_leaves]
        out_tree: list = []

        def flat_fun(*flat: Any) -> list:
            out = fun(*_substitute(args, nums, tuple(tree_unflatten(in_tree, flat))))
            leaves, tree = tree_flatten(out)
            out_tree.append(tree)
            return [_leaf_array(o) for o in leaves]

        blocks: list[list] = []  # blocks[j][i]: d out_j / d in_i, shape out + in
        if mode == "fwd":
            outs = None
            cols = []
            for i, x in enumerate(in_leaves):
                def column(t: Any, i: int = i) -> list:
                    ts = [_zeros_like(y) for y in in_leaves]
                    ts[i] = t
                    return jvp(flat_fun, tuple(in_leaves), tuple(ts))[1]
                cols.append(vmap(column)(_basis(x)))
            outs = flat_fun(*in_leaves) if not cols else None
            out_avals = [aval_of(c[0]) for c in zip(*cols)] if cols else \
                [aval_of(o) for o in outs]
            out_avals = [ShapedArray(a.shape[1:], a.dtype) for a in out_avals] if cols \
                else out_avals
            for j, oa in enumerate(out_avals):
                blocks.append([reshape(moveaxis(cols[i][j], 0, -1), oa.shape + ia.shape)
                               for i, ia in enumerate(in_avals)])
        else:
            outs, f_vjp = vjp(flat_fun, *in_leaves)
            if any(aval_of(o).dtype.kind == "c" for o in outs) and \
                    not all(a.dtype.kind == "c" for a in in_avals):
                raise TypeError(  # one real cotangent per output cannot see Im(out)
                    "fad.jacrev needs real outputs for real inputs: a complex output's "
                    "Jacobian with respect to a real input has complex entries that "
                    "reverse mode cannot recover from real cotangents. Use fad.jacfwd, "
                    "or differentiate the real and imaginary parts separately.")
            for j, o in enumerate(outs):
                def row(ct: Any, j: int = j) -> tuple:
                    cts = [_zeros_like(p) for p in outs]
                    cts[j] = ct
                    return f_vjp(cts)
                rows = vmap(row)(_basis(o))
                oa = aval_of(o)
                blocks.append([reshape(r, oa.shape + ia.shape)
                               for r, ia in zip(rows, in_avals)])
        per_out = [tree_unflatten(in_tree, b) for b in blocks]
        per_out = [p[0] if isinstance(argnums, int) else tuple(p) for p in per_out]
        return tree_unflatten(out_tree[0], per_out)

    return jac


def jacfwd(fun: Callable, argnums: int | Sequence[int] = 0) -> Callable:
    """Jacobian by forward mode (one jvp per input element); shape ``out + in``.

    >>> import fad, fad.numpy as fnp
    >>> fad.jacfwd(lambda x: x ** 2)(fnp.array([1.0, 2.0])).tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    """
    return _jacobian(fun, argnums, "fwd")


def jacrev(fun: Callable, argnums: int | Sequence[int] = 0) -> Callable:
    """Jacobian by reverse mode (one vjp per output element); shape ``out + in``.

    >>> import fad, fad.numpy as fnp
    >>> fad.jacrev(lambda x: x ** 2)(fnp.array([1.0, 2.0])).tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    """
    return _jacobian(fun, argnums, "rev")


def hessian(fun: Callable, argnums: int | Sequence[int] = 0) -> Callable:
    """The Hessian, ``jacfwd(jacrev(fun))``.

    >>> import fad, fad.numpy as fnp
    >>> fad.hessian(lambda x: fnp.sum(x ** 3))(fnp.array([1.0, 2.0])).tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    return jacfwd(jacrev(fun, argnums), argnums)


# ---------------------------------------------------------------- constants
def stop_gradient(x: Any) -> Any:
    """The identity, with a zero derivative in every differentiation mode.

    >>> import fad
    >>> float(fad.grad(lambda x: x * fad.stop_gradient(x))(3.0))
    3.0
    """
    return tree_map(lambda leaf: bind(stop_gradient_p, asarray(leaf)), x)


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
