"""Full Jacobians (``jacfwd``, ``jacrev``, ``hessian``): ``vmap`` of ``jvp`` or
``vjp`` over a basis of one-hot tangents or cotangents."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..core.ir import ShapedArray
from ..core.trace import aval_of
from ..primitives.structural import eye_like, reshape, transpose
from ..tree import tree_flatten, tree_unflatten
from .arguments import (
    argnums_tuple,
    check_argnums,
    distinct_argnums,
    per_argnum,
    require_callable,
    substitute,
)
from .autodiff import jvp, vjp_of
from .leaves import differentiated, leaf_array, zeros_like
from .vmap import vmap


def _basis(x: Any) -> Any:
    """The identity, shaped ``(x.size,) + x.shape``: one one-hot tangent per row."""
    aval = aval_of(x)
    return reshape(eye_like(x, aval.size), (aval.size,) + aval.shape)


def _basis_axis_last(x: Any) -> Any:
    """``x`` with its leading axis (the basis') moved last."""
    n = len(aval_of(x).shape)
    return transpose(x, tuple(range(1, n)) + (0,))


def _jacobian(fun: Callable, argnums: int | Sequence[int], mode: str) -> Callable:
    """Jacobians by ``vmap`` over a basis: of ``jvp`` (columns) or ``vjp`` (rows)."""
    require_callable(fun, f"fad.jac{mode}")
    argnums = check_argnums(argnums)

    def jac(*args: Any) -> Any:
        nums = argnums_tuple(argnums, len(args), f"fad.jac{mode}", fun)
        diff = distinct_argnums(nums)
        in_leaves, in_tree = differentiated(fun, args, diff, f"fad.jac{mode}")
        in_avals = [aval_of(x) for x in in_leaves]
        out_tree: list = []

        def flat_fun(*flat: Any) -> list:
            out = fun(*substitute(args, diff, tuple(tree_unflatten(in_tree, flat))))
            leaves, tree = tree_flatten(out)
            out_tree.append(tree)
            return [leaf_array(o) for o in leaves]

        blocks: list[list] = []  # blocks[j][i]: d out_j / d in_i, shape out + in
        if mode == "fwd":
            outs = None
            cols = []
            for i, x in enumerate(in_leaves):
                def column(t: Any, i: int = i) -> list:
                    ts = [zeros_like(y) for y in in_leaves]
                    ts[i] = t
                    return jvp(flat_fun, tuple(in_leaves), tuple(ts))[1]
                cols.append(vmap(column)(_basis(x)))
            outs = flat_fun(*in_leaves) if not cols else None
            out_avals = [aval_of(c[0]) for c in zip(*cols)] if cols else \
                [aval_of(o) for o in outs]
            out_avals = [ShapedArray(a.shape[1:], a.dtype) for a in out_avals] if cols \
                else out_avals
            for j, oa in enumerate(out_avals):
                blocks.append([reshape(_basis_axis_last(cols[i][j]), oa.shape + ia.shape)
                               for i, ia in enumerate(in_avals)])
        else:
            outs, f_vjp = vjp_of(flat_fun, tuple(in_leaves), False, later=False)
            if any(aval_of(o).dtype.kind == "c" for o in outs) and \
                    not all(a.dtype.kind == "c" for a in in_avals):
                raise TypeError(  # one real cotangent per output cannot see Im(out)
                    "fad.jacrev needs real outputs for real inputs: a complex output's "
                    "Jacobian with respect to a real input has complex entries that "
                    "reverse mode cannot recover from real cotangents. Use fad.jacfwd, "
                    "or differentiate the real and imaginary parts separately.")
            for j, o in enumerate(outs):
                def row(ct: Any, j: int = j) -> tuple:
                    cts = [zeros_like(p) for p in outs]
                    cts[j] = ct
                    return f_vjp(cts)
                rows = vmap(row)(_basis(o))
                oa = aval_of(o)
                blocks.append([reshape(r, oa.shape + ia.shape)
                               for r, ia in zip(rows, in_avals)])
        per_out = [per_argnum(tree_unflatten(in_tree, b), diff, nums, argnums)
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
