"""``pure_callback``: a host Python function called inside fad programs, as
``jax.pure_callback``.

The callback gets its operands as NumPy arrays (an explicit host transfer:
arrays of another backend are copied to the host, and its results copied back
to the operands' backend) and returns arrays of the shapes and dtypes declared
up front, so that abstract tracing (``jit``, ``make_jaxpr``, ``eval_shape``)
never calls it. It is pure: ``jit`` may drop a call whose results are unused,
merge two identical calls or run a call on constants once when it compiles.
It has no derivative: wrap it in ``fad.custom_jvp`` or ``fad.custom_vjp``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..backends import asarray, backend_for, device_put, x64
from ..backends.base import numpy_dtype
from ..core.ir import ShapedArray
from ..core.primitive import Primitive
from ..core.trace import Tracer, bind, outside_traces, shape_of
from ..tree import tree_flatten, tree_unflatten
from .builders import _ops, loop_batch_rule, to_front

_VMAP_METHODS = (None, "sequential", "sequential_unrolled", "expand_dims", "broadcast_all")


# ------------------------------------------------------------------ pure_callback
# ``callback(*numpy arrays) -> list of arrays`` (flat; ``pure_callback`` below
# builds it from the user's function on pytrees) whose results must match
# ``result_avals``. Under ``vmap``: ``vmap_method`` says how (a loop of calls,
# or one call on arrays with a leading batch axis); differentiation is an error.
def _pure_callback(xp: Any, *args: Any, callback: Callable, result_avals: tuple,
                   vmap_method: str | None) -> list:
    host = [a if type(a) is np.ndarray else np.asarray(device_put(a, "numpy")) for a in args]
    with outside_traces():  # (the callback may use fad on its arrays, untransformed)
        outs = callback(*host)
    checked = []
    for i, (o, want) in enumerate(zip(outs, result_avals)):
        if isinstance(o, Tracer):
            raise TypeError("pure_callback: the callback returned a traced value: it runs on "
                            "concrete arrays, outside every transformation; does it close "
                            "over a traced value? Pass that value as an argument instead")
        got = np.asarray(o)
        if got.dtype != want.dtype and not x64.ENABLED \
                and x64.narrow_dtype(got.dtype) == want.dtype:
            got = got.astype(want.dtype)
        if got.shape != want.shape or got.dtype != want.dtype:
            raise TypeError(
                f"pure_callback: result {i} of the callback has shape {got.shape} and "
                f"dtype {got.dtype}, expected shape {want.shape} and dtype {want.dtype} "
                "(as declared by result_shape_dtypes)")
        checked.append(got if xp is np else device_put(got, backend_for(xp)))
    return checked


def _pure_callback_jvp(primals: list, tangents: list, *, callback: Callable, **_: Any) -> None:
    name = getattr(callback, "__qualname__", repr(callback))
    raise TypeError(
        f"fad.pure_callback ({name}) cannot be differentiated: fad cannot see inside the "
        "host function. Give the function that calls it a derivative rule with "
        "fad.custom_jvp or fad.custom_vjp (the rule may call pure_callback too)")


def _pure_callback_batch(size: int, vals: list, dims: list, *, callback: Callable,
                         result_avals: tuple, vmap_method: str | None) -> tuple:
    params = {"callback": callback, "result_avals": result_avals, "vmap_method": vmap_method}
    if vmap_method is None:
        raise NotImplementedError(
            "vmap of fad.pure_callback needs to know how to batch the host function: pass "
            "vmap_method='sequential' (one call per example), 'expand_dims' (one call, the "
            "unbatched arguments with a leading axis of size 1) or 'broadcast_all' (one "
            "call, every argument broadcast to the batch size)")
    if vmap_method.startswith("sequential"):
        return loop_batch_rule(pure_callback_p)(size, vals, dims, **params)
    ops = _ops()
    args = [to_front(v, d, size) if d is not None or vmap_method == "broadcast_all"
            else ops.reshape(v, (1,) + tuple(shape_of(v)))
            for v, d in zip(vals, dims)]
    batched = tuple(ShapedArray((size,) + a.shape, a.dtype) for a in result_avals)
    outs = bind(pure_callback_p, *args, callback=callback, result_avals=batched,
                vmap_method=vmap_method)
    return outs, [0] * len(outs)


pure_callback_p = Primitive("pure_callback", _pure_callback,
                            lambda *avals, result_avals, **_: list(result_avals),
                            multiple_results=True)
pure_callback_p.jvp = _pure_callback_jvp
pure_callback_p.batch = _pure_callback_batch


def pure_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any,
                  vmap_method: str | None = None, **kwargs: Any) -> Any:
    """Call the host function ``callback(*args, **kwargs)`` on concrete NumPy arrays
    whenever the program runs (eagerly, or in ``jit``'s generated code), as
    ``jax.pure_callback``. ``args`` and ``kwargs`` are pytrees of arrays (copied
    to the host first when they live on another backend); ``result_shape_dtypes``
    is a pytree of objects with a ``shape`` and a ``dtype`` (``fad.ShapedArray``,
    ``jax.ShapeDtypeStruct``, arrays) that the callback's results must match
    exactly: they are the results' shapes under abstract tracing, and each result
    is checked (shape and dtype) and copied to the arguments' backend.

    The callback must be pure (``jit`` may drop, merge or constant-fold calls).
    Under ``vmap``, ``vmap_method`` says how to batch it: ``"sequential"`` calls it
    once per example; ``"expand_dims"`` once, with a leading batch axis on the
    batched arguments and one of size 1 on the others; ``"broadcast_all"`` once,
    every argument broadcast to the batch size (both return results with the
    leading batch axis); ``None`` (the default) makes ``vmap`` an error.
    Differentiating it is an error: give a derivative with ``fad.custom_jvp`` or
    ``fad.custom_vjp``.

    >>> import fad, fad.numpy as fnp, numpy as np
    >>> def host_sort(x):
    ...     return np.sort(x)
    >>> f = fad.jit(lambda x: fad.pure_callback(host_sort, fad.ShapedArray(x.shape, x.dtype),
    ...                                         x * 2))
    >>> f(fnp.array([3.0, 1.0, 2.0])).tolist()
    [2.0, 4.0, 6.0]
    >>> fad.vmap(lambda x: fad.pure_callback(host_sort, fad.ShapedArray((2,), "float64"), x,
    ...                                      vmap_method="sequential"))(
    ...     fnp.array([[2.0, 1.0], [0.0, 5.0]])).tolist()
    [[1.0, 2.0], [0.0, 5.0]]
    """
    if not callable(callback):
        raise TypeError(f"fad.pure_callback: the callback must be callable, got "
                        f"{type(callback).__name__}")
    if vmap_method not in _VMAP_METHODS:
        raise ValueError(f"fad.pure_callback: vmap_method must be one of {_VMAP_METHODS}, "
                         f"got {vmap_method!r}")
    specs, out_tree = tree_flatten(result_shape_dtypes)
    avals = []
    for s in specs:
        if not hasattr(s, "shape") or not hasattr(s, "dtype"):
            raise TypeError("fad.pure_callback: result_shape_dtypes must be a pytree of "
                            "objects with a shape and a dtype (fad.ShapedArray, arrays), got "
                            f"{type(s).__name__}")
        avals.append(ShapedArray(tuple(s.shape), x64.narrow_dtype(numpy_dtype(s.dtype))))
    leaves, in_tree = tree_flatten((args, kwargs))
    operands = [x if isinstance(x, Tracer | int | float | complex) or hasattr(x, "shape")
                else asarray(x) for x in leaves]  # (Python scalars stay weak)

    def flat_callback(*arrays: Any) -> list:
        a, k = tree_unflatten(in_tree, list(arrays))
        out_leaves, tree = tree_flatten(callback(*a, **k))
        if tree != out_tree:
            raise TypeError(f"pure_callback: the callback returned a result structured as "
                            f"{tree}, expected {out_tree} (as result_shape_dtypes)")
        return out_leaves
    flat_callback.__qualname__ = getattr(callback, "__qualname__", repr(callback))
    outs = bind(pure_callback_p, *operands, callback=flat_callback, result_avals=tuple(avals),
                vmap_method=vmap_method)
    return tree_unflatten(out_tree, list(outs))


__all__ = ["pure_callback", "pure_callback_p"]
