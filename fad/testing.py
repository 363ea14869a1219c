"""Property testing for code written with fad: the strategies and laws fad's own
test suite uses, so that you can test your functions the same way.

Strategies (``hypothesis``): ``shapes``, ``broadcastable_shapes``, ``arrays``,
``pytrees``. Laws (plain assertions, usable with or without hypothesis):

* ``assert_grad_matches_finite_differences(f, args, order=...)``: every
  derivative mode against central differences (``fad.check_grads``);
* ``assert_jvp_matches_vjp(f, args)``: ``<u, J v> == <J^T u, v>``;
* ``assert_jit_matches_eager(f, args)``: ``fad.jit(f)`` computes ``f``;
* ``assert_vmap_matches_loop(f, batched_args, in_axes=...)``: ``fad.vmap(f)``
  equals a Python loop over the batch.

``import fad`` does not import this module (nor hypothesis); import it
explicitly. A typical test::

    from hypothesis import given
    import fad.numpy as fnp
    from fad.testing import arrays, assert_grad_matches_finite_differences

    @given(arrays((3, 2), elements=dict(min_value=0.5, max_value=2.0)))
    def test_my_loss(x):
        assert_grad_matches_finite_differences(my_loss, (x,), order=2)

>>> import fad.numpy as fnp
>>> from hypothesis import given, settings
>>> @settings(max_examples=5, derandomize=True, deadline=None)
... @given(arrays((3,)))
... def test_sin(x):
...     assert_grad_matches_finite_differences(fnp.sin, (x,), order=2)
...     assert_jvp_matches_vjp(fnp.sin, (x,))
>>> test_sin()
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import hypothesis.extra.numpy as hnp
import numpy as np
from hypothesis import strategies as st

from .transforms.autodiff import jvp, vjp
from .transforms.check import check_grads, random_like
from .transforms.jit import jit
from .transforms.vmap import vmap
from .tree import tree_flatten, tree_unflatten

__all__ = ["shapes", "broadcastable_shapes", "arrays", "pytrees",
           "assert_grad_matches_finite_differences", "assert_jvp_matches_vjp",
           "assert_jit_matches_eager", "assert_vmap_matches_loop", "assert_trees_close",
           "default_tolerance"]


# ---------------------------------------------------------------- strategies
def shapes(min_dims: int = 0, max_dims: int = 3, min_side: int = 1, max_side: int = 4
           ) -> st.SearchStrategy:
    """Array shapes (tuples of ints).

    >>> from hypothesis import given, settings
    >>> @settings(max_examples=5, derandomize=True)
    ... @given(shapes(min_dims=1, max_dims=2))
    ... def test(s): assert 1 <= len(s) <= 2
    >>> test()
    """
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def broadcastable_shapes(num_shapes: int = 2, min_dims: int = 0, max_dims: int = 3,
                         min_side: int = 1, max_side: int = 4) -> st.SearchStrategy:
    """Tuples of ``num_shapes`` shapes that broadcast together (NumPy's rules).

    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> @settings(max_examples=5, derandomize=True)
    ... @given(broadcastable_shapes(2))
    ... def test(pair): np.broadcast_shapes(*pair)
    >>> test()
    """
    return hnp.mutually_broadcastable_shapes(
        num_shapes=num_shapes, min_dims=min_dims, max_dims=max_dims, min_side=min_side,
        max_side=max_side).map(lambda b: tuple(b.input_shapes))


def _elements(dtype: np.dtype, elements: Any) -> st.SearchStrategy:
    if isinstance(elements, st.SearchStrategy):
        return elements
    opts = dict(min_value=-2.0, max_value=2.0)
    opts.update(elements or {})
    if dtype.kind == "f":
        return st.floats(allow_nan=False, allow_infinity=False, width=8 * dtype.itemsize,
                         **opts)
    if dtype.kind in "iu":
        return st.integers(int(opts["min_value"]), int(opts["max_value"]))
    if dtype.kind == "b":
        return st.booleans()
    raise TypeError(f"arrays: unsupported dtype {dtype}")


def arrays(shape: Any, dtype: Any = np.float64, elements: Any = None) -> st.SearchStrategy:
    """NumPy arrays of ``shape`` (a tuple, or a strategy of shapes) and ``dtype``.

    ``elements`` is a hypothesis strategy for the values, or a dict of options of
    ``hypothesis.strategies.floats`` / ``integers`` (default: finite values in
    ``[-2, 2]``, a range where finite differences are well-behaved).

    >>> from hypothesis import given, settings
    >>> @settings(max_examples=5, derandomize=True)
    ... @given(arrays((2, 3), "float32", elements=dict(min_value=0.5, max_value=1.0)))
    ... def test(x): assert x.dtype == "float32" and (x >= 0.5).all()
    >>> test()
    """
    dtype = np.dtype(dtype)
    return hnp.arrays(dtype, shape, elements=_elements(dtype, elements))


def pytrees(leaves: st.SearchStrategy | None = None, max_leaves: int = 4
            ) -> st.SearchStrategy:
    """Nested tuples, lists and dicts (string keys) of array leaves.

    >>> import fad
    >>> from hypothesis import given, settings
    >>> @settings(max_examples=5, derandomize=True)
    ... @given(pytrees(arrays(shapes(max_dims=2))))
    ... def test(tree): assert len(fad.tree.tree_leaves(tree)) >= 1
    >>> test()
    """
    leaves = leaves if leaves is not None else arrays(shapes(max_dims=2))

    def extend(children: st.SearchStrategy) -> st.SearchStrategy:
        return st.one_of(
            st.lists(children, min_size=1, max_size=3),
            st.lists(children, min_size=1, max_size=3).map(tuple),
            st.dictionaries(st.sampled_from("abcd"), children, min_size=1, max_size=3))
    return st.recursive(leaves, extend, max_leaves=max_leaves)


# ---------------------------------------------------------------- laws
def default_tolerance(*trees: Any) -> float:
    """A tolerance for comparing results of the widest float dtype in ``trees``:
    ``2e-5`` for float32 (and narrower), ``1e-10`` for float64.

    >>> import numpy as np
    >>> default_tolerance(np.ones(2, np.float32))
    2e-05
    """
    leaves = [np.asarray(x) for t in trees for x in tree_flatten(t)[0]]
    floats = [x.dtype for x in leaves if x.dtype.kind in "fc"]
    if not floats:
        return 0.0
    widest = max(floats, key=lambda d: d.itemsize if d.kind == "f" else d.itemsize // 2)
    return 1e-10 if (widest.itemsize if widest.kind == "f" else widest.itemsize // 2) >= 8 \
        else 2e-5


def assert_trees_close(got: Any, want: Any, rtol: float | None = None,
                       atol: float | None = None, what: str = "value") -> None:
    """Same pytree structure, shapes, dtypes and (nearly) the same values.

    >>> import numpy as np
    >>> assert_trees_close({"a": np.ones(2)}, {"a": np.ones(2) + 1e-12})
    """
    g_leaves, g_tree = tree_flatten(got)
    w_leaves, w_tree = tree_flatten(want)
    if g_tree != w_tree:
        raise AssertionError(f"{what}: pytree structure {g_tree} differs from {w_tree}")
    tol = default_tolerance(want)
    rtol = tol if rtol is None else rtol
    atol = tol if atol is None else atol
    for k, (g, w) in enumerate(zip(g_leaves, w_leaves)):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape or g.dtype != w.dtype:
            raise AssertionError(f"{what}: leaf {k} is {g.dtype}{list(g.shape)}, expected "
                                 f"{w.dtype}{list(w.shape)}")
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol,
                                   err_msg=f"{what}: leaf {k} differs")


def assert_grad_matches_finite_differences(
        f: Callable, args: Sequence, order: int = 1, modes: Sequence[str] = ("fwd", "rev"),
        atol: float | None = None, rtol: float | None = None, eps: float | None = None
) -> None:
    """Derivatives of ``f`` at ``args`` up to ``order``, forward and reverse,
    against central finite differences (``fad.check_grads``). Pick points away
    from kinks (``abs`` at 0...), where finite differences are meaningless.

    >>> import numpy as np, fad.numpy as fnp
    >>> assert_grad_matches_finite_differences(lambda x: fnp.sum(x ** 3), (np.ones(3),),
    ...                                        order=2)
    """
    check_grads(f, tuple(args), order=order, modes=modes, atol=atol, rtol=rtol, eps=eps)


def _rand_like(rng: np.random.Generator, tree: Any) -> Any:
    """Standard normal leaves like ``tree``'s (``a + ib`` for complex leaves)."""
    leaves, treedef = tree_flatten(tree)
    return tree_unflatten(treedef, [random_like(rng, np.asarray(x)) for x in leaves])


def _wide(x: Any) -> np.ndarray:
    x = np.asarray(x)
    return np.asarray(x, np.result_type(x.dtype, np.float64))  # float64 or complex128


def _inner(a: Any, b: Any) -> float:
    # the bilinear pairing Re(sum(x * y)) (JAX's convention for complex values)
    return float(sum(np.real(np.sum(_wide(x) * _wide(y)))
                     for x, y in zip(tree_flatten(a)[0], tree_flatten(b)[0])))


def _abs_inner(a: Any, b: Any) -> float:
    return float(sum(np.sum(np.abs(_wide(x) * _wide(y)))
                     for x, y in zip(tree_flatten(a)[0], tree_flatten(b)[0])))


def assert_jvp_matches_vjp(f: Callable, args: Sequence, rtol: float | None = None,
                           seed: int = 0) -> None:
    """Forward and reverse mode are transposes of each other:
    ``<u, J v> == <J^T u, v>`` for random ``u`` and ``v`` (to rounding, relative
    to ``sum |u J v|``). Complex leaves: ``u``, ``v`` have random real and
    imaginary parts and ``<a, b> = Re(sum(a * b))`` (JAX's bilinear pairing).

    >>> import numpy as np, fad.numpy as fnp
    >>> assert_jvp_matches_vjp(lambda x, y: fnp.tanh(x) @ y, (np.ones((2, 3)), np.ones(3)))
    """
    args = tuple(args)
    rng = np.random.default_rng(seed)
    v = _rand_like(rng, args)
    out, jv = jvp(f, args, v)
    out2, f_vjp = vjp(f, *args)
    assert_trees_close(out2, out, what="vjp's primal output vs jvp's")
    u = _rand_like(rng, out)
    ju = f_vjp(u)
    lhs, rhs = _inner(u, jv), _inner(ju, v)
    scale = _abs_inner(u, jv) + _abs_inner(ju, v) + 1.0
    tol = rtol if rtol is not None else 50 * (1.2e-7 if default_tolerance(args) > 1e-6
                                              else 2.3e-16)
    if not abs(lhs - rhs) <= tol * scale:
        raise AssertionError(f"<u, J v> = {lhs!r} (jvp) but <J^T u, v> = {rhs!r} (vjp); "
                             f"|diff| {abs(lhs - rhs)!r} > {tol} * {scale!r}")


def assert_jit_matches_eager(f: Callable, args: Sequence, rtol: float | None = None,
                             atol: float | None = None, static_argnums: Any = ()) -> None:
    """``fad.jit(f)(*args)`` equals ``f(*args)`` (values, dtypes, shapes, structure).

    >>> import numpy as np, fad.numpy as fnp
    >>> assert_jit_matches_eager(lambda x: fnp.cumsum(fnp.sin(x)), (np.ones(4),))
    """
    args = tuple(args)
    assert_trees_close(jit(f, static_argnums=static_argnums)(*args), f(*args), rtol,
                       atol, what="jit vs eager")


def assert_vmap_matches_loop(f: Callable, batched_args: Sequence, in_axes: Any = 0,
                             out_axes: int = 0, rtol: float | None = None,
                             atol: float | None = None) -> None:
    """``vmap(f, in_axes)`` equals stacking ``f`` over the examples one by one.
    ``in_axes``: an int or ``None`` for all arguments, or one entry per argument
    (arguments only; pytree prefixes inside an argument are not supported here).

    >>> import numpy as np, fad.numpy as fnp
    >>> assert_vmap_matches_loop(lambda w, x: fnp.tanh(x @ w), (np.ones((3, 2)),
    ...                          np.ones((5, 3))), in_axes=(None, 0))
    """
    args = tuple(batched_args)
    axes = in_axes if isinstance(in_axes, tuple | list) else (in_axes,) * len(args)
    sizes = {np.shape(tree_flatten(a)[0][0])[ax] for a, ax in zip(args, axes)
             if ax is not None}
    if len(sizes) != 1:
        raise ValueError(f"batched arguments have different batch sizes {sizes}")
    (n,) = sizes
    got = vmap(f, in_axes=in_axes, out_axes=out_axes)(*args)

    def example(i: int) -> list:
        return [a if ax is None else _index_tree(a, ax, i) for a, ax in zip(args, axes)]
    outs = [f(*example(i)) for i in range(n)]
    leaves0, treedef = tree_flatten(outs[0])
    stacked = [np.stack([np.asarray(tree_flatten(o)[0][k]) for o in outs], axis=out_axes)
               for k in range(len(leaves0))]
    assert_trees_close(got, tree_unflatten(treedef, stacked), rtol, atol,
                       what="vmap vs a loop")


def _index_tree(tree: Any, axis: int, i: int) -> Any:
    leaves, treedef = tree_flatten(tree)
    # each example stays on its backend: indexed as it is, not through NumPy
    return tree_unflatten(treedef, [
        x[(slice(None),) * axis + (i, Ellipsis)] if hasattr(x, "__array_namespace__")
        else np.take(np.asarray(x), i, axis=axis) for x in leaves])


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
