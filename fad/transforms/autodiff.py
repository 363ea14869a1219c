"""The public transformations: thin compositions of trace -> rewrite -> evaluate."""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable, Sequence

import numpy as np

from ..backends import default_xp, namespace_of
from ..core.errors import _FAD_DIR
from ..core.ir import ClosedJaxpr, ShapedArray
from ..core.trace import Tracer, aval_of, bind, concrete_or_none, enter_onto, no_grad_scope
from ..interpreters.evaluate import eval_jaxpr
from ..interpreters.jvp import jvp_flat
from ..interpreters.linearize import linearize_flat
from ..interpreters.staging import trace_to_jaxpr
from ..interpreters.tape import vjp_flat
from ..numpy._base import asarray
from ..primitives.structural import stop_gradient_p
from ..tree import tree_flatten, tree_leaf_paths, tree_map, tree_unflatten
from .arguments import describe_argument, function_name, require_callable


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
        return (f"fad.{self.name} of {function_name(self.fun)} "
                f"(called at {self.code.co_filename}:{self.line})")

    def __bool__(self) -> bool:
        return True


def _label(name: str, f: Callable) -> _Label:
    return _Label(name, f, depth=3)


def _leaf_array(x: Any) -> Any:
    """An input of a transformation as an array (or tracer)."""
    if type(x) is np.ndarray or isinstance(x, Tracer | ShapedArray | np.generic):
        return x
    if hasattr(x, "__array_namespace__"):
        reject_masked(x)
        return x
    conv = getattr(x, "__fad_array__", None)
    if conv is not None:
        return conv()
    return asarray(x)


def reject_masked(x: Any) -> None:
    """A ``numpy.ma.MaskedArray`` input is a TypeError: fad computes on its data and
    would silently drop the mask. (Every transformation converts its inputs
    through here, and ``jit``'s calls too.)

    >>> import fad, numpy as np
    >>> fad.grad(lambda x: (x * x).sum())(np.ma.array([1.0, 2.0], mask=[0, 1]))
    Traceback (most recent call last):
    ...
    TypeError: fad got a numpy.ma.MaskedArray (f64[2]) ...
    """
    ma = sys.modules.get("numpy.ma")  # (no masked array exists unless it is imported)
    if ma is not None and isinstance(x, ma.MaskedArray):
        raise TypeError(
            f"fad got a numpy.ma.MaskedArray ({aval_of(x).str_short()}) as an input: fad "
            "computes on the data of an array and would silently ignore its mask. Pass "
            "x.filled(value) to replace the masked entries, or np.asarray(x) to use the "
            "data as it is, and express the mask with fnp.where if it matters.")


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


def _check_argnums(argnums: Any) -> int | tuple[int, ...]:
    """``argnums`` as an int or a tuple of ints (from any sequence of them)."""
    def is_int(i: Any) -> bool:
        return isinstance(i, int | np.integer) and not isinstance(i, bool)
    if is_int(argnums):
        return int(argnums)
    if isinstance(argnums, tuple | list) and all(is_int(i) for i in argnums):
        return tuple(int(i) for i in argnums)
    raise TypeError(f"argnums must be an int or a tuple of ints, got "
                    f"{type(argnums).__name__}: {argnums!r}")


def _argnums_tuple(argnums: int | tuple[int, ...], nargs: int, what: str, fun: Callable
                   ) -> tuple[int, ...]:
    """The positions ``argnums`` names in a call with ``nargs`` positional
    arguments, negative ones counted from the end."""
    nums = (argnums,) if isinstance(argnums, int) else argnums
    for i in nums:
        if not -nargs <= i < nargs:
            raise ValueError(
                f"argnums={argnums!r} is out of range: {what} of {function_name(fun)} "
                f"was called with {nargs} positional argument(s), so argnums must be "
                f"between {-nargs} and {nargs - 1} (keyword arguments are not "
                "differentiated)")
    return tuple(i % nargs for i in nums)


def _distinct(nums: tuple[int, ...]) -> tuple[int, ...]:
    """Each position once: one asked for twice is one input to differentiate."""
    return nums if len(nums) == 1 else tuple(dict.fromkeys(nums))


def _per_argnum(per_arg: list, diff: tuple, nums: tuple, argnums: Any) -> Any:
    """The values for the positions ``argnums`` asks for, from one value per
    distinct position ``diff``: a repeated position gets the same value."""
    if isinstance(argnums, int):
        return per_arg[0]
    if diff == nums:
        return tuple(per_arg)
    by_position = dict(zip(diff, per_arg))
    return tuple(by_position[i] for i in nums)


def _require_inputs(fun: Callable, args: Sequence, positions: Sequence[int], what: str
                    ) -> None:
    """A differentiated argument that is ``None`` (an empty pytree) is a mistake."""
    for i in positions:
        if args[i] is None:
            raise TypeError(
                f"{what} of {function_name(fun)}: {describe_argument(fun, i)} is None, "
                f"but {what} differentiates with respect to float arrays (or pytrees of "
                "them). Pass an array (e.g. fnp.asarray(1.0)), or differentiate with "
                "respect to the other arguments only (argnums, or a function that "
                "closes over this one).")


_WEAK_SCALARS = (int, float, complex)


def _check_like(values: list, avals: list, names: Callable[[], list], context: str,
                what: str, ints: bool = True, cast: bool = False) -> list:
    """Tangents or cotangents ``values`` checked, leaf by leaf, against the values
    they belong to (``avals``; ``names()`` names them): the same shape, and the
    same dtype for a float or complex value. An integer or boolean value has no
    derivative: with ``ints``, its tangent must be zero, of an integer, boolean
    or float0 (JAX's) dtype; without, only its shape is checked. A Python scalar
    is weakly typed (it takes the value's dtype); ``cast``: a float value of
    another dtype is converted rather than refused. Returns the arrays.
    """
    out = []
    for k, (v, a) in enumerate(zip(values, avals)):
        inexact = a.dtype.kind in "fc"
        if type(v) in _WEAK_SCALARS and inexact and (type(v) is not complex or
                                                       a.dtype.kind == "c"):
            xp = default_xp()
            v = xp.asarray(v, dtype=a.dtype if xp is np else getattr(xp, a.dtype.name))
        else:
            v = _leaf_array(v)
        va = aval_of(v)
        if va.shape == a.shape and va.dtype == a.dtype and (inexact or not ints):  # fast
            out.append(v)
            continue
        problem = None
        if va.shape != a.shape:
            problem = (f"shapes {tuple(va.shape)} and {tuple(a.shape)} differ; a {what} "
                       "has the shape and dtype of its value")
        elif inexact and va.dtype != a.dtype:
            complex_for_real = va.dtype.kind == "c" and a.dtype.kind != "c"
            if cast and va.dtype.kind in "biuf" + a.dtype.kind:
                v = v.astype(a.dtype)
            elif complex_for_real:
                problem = (f"a complex {what} for a real value would lose its imaginary "
                           f"part; a {what} has its value's dtype, {a.dtype}")
            else:
                problem = (f"a {what} has its value's dtype, {a.dtype}: cast it with "
                           f".astype({a.dtype.name!r})")
        elif ints and not inexact and (va.dtype.kind in "fc" or not _is_zero(v)):
            problem = (f"{a.dtype} values have no derivative, so their {what} must be "
                       "zero, of an integer or boolean dtype (fnp.zeros_like of the "
                       "value) or JAX's float0; to differentiate with respect to it, "
                       "make the value a float array")
        if problem:
            raise TypeError(f"{context} {what} {va.str_short()} for {names()[k]} "
                            f"{a.str_short()}: {problem}")
        out.append(v)
    return out


def _is_zero(x: Any) -> bool:
    """Whether ``x`` (of an integer or boolean dtype) is all zero, or not concrete."""
    c = concrete_or_none(x)
    if c is None or aval_of(c).dtype.kind not in "biu":
        return True
    return not bool(namespace_of([c]).any(c != 0))


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
    require_callable(fun, "fad.make_jaxpr")
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
    require_callable(fun, "fad.vjp")
    return _vjp(fun, primals, has_aux, later=True)


def _vjp(fun: Callable, primals: tuple, has_aux: bool, later: bool) -> tuple:
    """``fad.vjp``; ``later``: ``vjp_fn`` may run after the caller has written into
    its arrays, so it keeps the call's values (``jacrev`` pulls back at once)."""
    _require_inputs(fun, primals, range(len(primals)), "fad.vjp")
    leaves, in_tree = _flatten_leaves(list(primals))
    _check_differentiable(leaves, "fad.vjp")
    flat_fun, out_tree, aux_box = _flat_function(fun, in_tree, has_aux)
    out_primals, pull = vjp_flat(flat_fun, leaves, label=_label("vjp", fun),
                                 aux_box=aux_box, later=later)
    out_avals = [aval_of(o) for o in out_primals]

    def vjp_fn(ct: Any) -> tuple:
        ct_leaves, ct_tree = tree_flatten(ct)
        if ct_tree != out_tree[0]:
            raise TypeError(f"vjp_fn expects a cotangent with the structure of the "
                            f"output {out_tree[0]!r}, got {ct_tree!r}")
        ct_leaves = _check_like(
            ct_leaves, out_avals, lambda: tree_leaf_paths(out, "the output"),
            "vjp_fn got a", "cotangent")
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
    require_callable(fun, "fad.value_and_grad")
    argnums = _check_argnums(argnums)

    @functools.wraps(fun)
    def value_and_grad_f(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums_tuple(argnums, len(args), "fad.grad", fun)
        diff = _distinct(nums)
        _require_inputs(fun, args, diff, "fad.grad")
        leaves, in_tree = _flatten_leaves([args[i] for i in diff])
        _check_differentiable(leaves, "fad.grad")
        if holomorphic and any(aval_of(x).dtype.kind != "c" for x in leaves):
            raise TypeError("fad.grad(..., holomorphic=True) needs complex inputs")
        aux_box: list = []

        def flat_fun(*flat: Any) -> list:
            dyn = tree_unflatten(in_tree, flat)
            out = fun(*_substitute(args, diff, tuple(dyn)), **kwargs)
            if has_aux:
                out, aux = _split_aux(out)
                aux_box.append(aux)
            return [_check_scalar_output(out, holomorphic)]

        (out,), pull = vjp_flat(flat_fun, leaves, label=_label("grad", fun),
                                aux_box=aux_box)
        cts = pull([_ones_like(out)], consume=True)
        grads = [_zeros_like(x) if g is None else g for g, x in zip(cts, leaves)]
        g = _per_argnum(tree_unflatten(in_tree, grads), diff, nums, argnums)
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
    require_callable(fun, "fad.grad")
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
    require_callable(fun, "fad.jvp")
    if not isinstance(primals, tuple | list) or not isinstance(tangents, tuple | list):
        raise TypeError("fad.jvp(f, primals, tangents): primals and tangents must be "
                        "tuples (or lists) with one entry per argument of f")
    _require_inputs(fun, primals, range(len(primals)), "fad.jvp")
    p_leaves, p_tree = _flatten_leaves(list(primals))
    t_leaves = _checked_tangents(tangents, p_leaves, p_tree, primals, "fad.jvp")
    t_leaves = [t if _is_float(p) else None for p, t in zip(p_leaves, t_leaves)]
    flat_fun, out_tree, aux_box = _flat_function(fun, p_tree, has_aux)
    outs, out_ts = jvp_flat(flat_fun, p_leaves, t_leaves, label=_label("jvp", fun),
                            aux_box=aux_box)
    out_ts = [_zeros_like(o) if t is None else t for o, t in zip(outs, out_ts)]
    res = (tree_unflatten(out_tree[0], outs), tree_unflatten(out_tree[0], out_ts))
    return res + (aux_box[0],) if has_aux else res


def _checked_tangents(tangents: Sequence, p_leaves: list, p_tree: Any, primals: Sequence,
                      who: str) -> list:
    """The leaves of ``tangents``, checked against the primals' (``_check_like``)."""
    t_leaves, t_tree = tree_flatten(list(tangents))
    if t_tree != p_tree:
        raise TypeError(f"{who}: the tangents must have the structure of the primals, "
                        f"{p_tree!r}, but have the structure {t_tree!r}")
    return _check_like(t_leaves, [aval_of(p) for p in p_leaves],
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
    _require_inputs(fun, primals, range(len(primals)), "fad.linearize")
    leaves, in_tree = _flatten_leaves(list(primals))
    _check_differentiable(leaves, "fad.linearize")
    out_tree: list = []

    def flat_fun(*flat: Any) -> list:
        out_leaves, tree = tree_flatten(fun(*tree_unflatten(in_tree, flat)))
        out_tree.append(tree)
        return out_leaves

    outs, lin, is_zero = linearize_flat(flat_fun, leaves, label=_label("linearize", fun),
                                        later=True)

    def f_jvp(*tangents: Any) -> Any:
        t_leaves = _checked_tangents(tangents, leaves, in_tree, primals,
                                     "f_jvp (of fad.linearize)")
        live = iter(eval_jaxpr(lin.jaxpr, lin.consts, *t_leaves))
        out_ts = [_zeros_like(o) if z else next(live) for o, z in zip(outs, is_zero)]
        return tree_unflatten(out_tree[0], out_ts)

    return tree_unflatten(out_tree[0], outs), f_jvp


# ---------------------------------------------------------------- Jacobians
def _basis(x: Any) -> Any:
    """The identity, shaped ``(x.size,) + x.shape``: one one-hot tangent per row."""
    from ..primitives.structural import eye_like, reshape
    aval = aval_of(x)
    return reshape(eye_like(x, aval.size), (aval.size,) + aval.shape)


def _jacobian(fun: Callable, argnums: int | Sequence[int], mode: str) -> Callable:
    """Jacobians by ``vmap`` over a basis: of ``jvp`` (columns) or ``vjp`` (rows)."""
    from ..numpy import moveaxis, reshape
    from .vmap import vmap

    require_callable(fun, f"fad.jac{mode}")
    argnums = _check_argnums(argnums)

    def jac(*args: Any) -> Any:
        nums = _argnums_tuple(argnums, len(args), f"fad.jac{mode}", fun)
        diff = _distinct(nums)
        _require_inputs(fun, args, diff, f"fad.jac{mode}")
        in_leaves, in_tree = _flatten_leaves([args[i] for i in diff])
        _check_differentiable(in_leaves, f"fad.jac{mode}")
        in_avals = [aval_of(x) for x in in_leaves]
        out_tree: list = []

        def flat_fun(*flat: Any) -> list:
            out = fun(*_substitute(args, diff, tuple(tree_unflatten(in_tree, flat))))
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
            outs, f_vjp = _vjp(flat_fun, tuple(in_leaves), False, later=False)
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
        per_out = [_per_argnum(tree_unflatten(in_tree, b), diff, nums, argnums)
                   for b in blocks]
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
    require_callable(fun, "fad.hessian")
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
