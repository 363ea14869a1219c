"""Primitives that move data without arithmetic: reshape, transpose, broadcast,
concatenate, dtype conversion, and the identity ``stop_gradient``. All are linear,
so each has a ``transpose`` rule and its jvp is itself.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..core.errors import ShapeError
from ..core.ir import ShapedArray
from ..core.linear import is_undefined
from ..core.primitive import Primitive
from ..core.trace import _np_dtype, aval_of, bind, is_float, register_stop_gradient, shape_of
from . import shapes
from .builders import (
    align,
    defjvp,
    deflinear,
    to_front,
    unary_batch,
    unbroadcast,
    zeros_where_none,
)


# ------------------------------------------------------------------ reshape
def _reshape_aval(x: ShapedArray, *, new_sizes: tuple) -> ShapedArray:
    if math.prod(new_sizes) != math.prod(x.shape):
        raise ShapeError(f"cannot reshape an array of shape {x.shape} "
                         f"(size {math.prod(x.shape)}) into shape {new_sizes}")
    return ShapedArray(new_sizes, x.dtype)


reshape_p = Primitive("reshape", lambda xp, x, *, new_sizes: xp.reshape(x, new_sizes),
                      _reshape_aval)
deflinear(reshape_p, lambda ct, x, *, new_sizes: [reshape(ct, x.aval.shape)])
# for jit's generated code: NumPy's method is several times cheaper than np.reshape
reshape_p.kernel = lambda xp, *, new_sizes: (
    (lambda x: x.reshape(new_sizes)) if xp.__name__ == "numpy" else
    (lambda x: xp.reshape(x, new_sizes)))


def _reshape_batch(size: int, vals: list, dims: list, *, new_sizes: tuple) -> tuple:
    return reshape(to_front(vals[0], dims[0]), (size,) + tuple(new_sizes)), 0


reshape_p.batch = _reshape_batch


def reshape(x: Any, new_sizes: tuple) -> Any:
    new_sizes = tuple(int(n) for n in new_sizes)
    if aval_of(x).shape == new_sizes:
        return x
    return bind(reshape_p, x, new_sizes=new_sizes)


# ------------------------------------------------------------------ transpose
def _transpose_aval(x: ShapedArray, *, permutation: tuple) -> ShapedArray:
    if sorted(permutation) != list(range(x.ndim)):
        raise ShapeError(f"permutation {permutation} does not fit shape {x.shape}")
    return ShapedArray(tuple(x.shape[i] for i in permutation), x.dtype)


transpose_p = Primitive(
    "transpose", lambda xp, x, *, permutation: xp.permute_dims(x, permutation),
    _transpose_aval)
deflinear(transpose_p, lambda ct, x, *, permutation: [
    transpose(ct, tuple(int(i) for i in np.argsort(permutation)))])


def _transpose_batch(size: int, vals: list, dims: list, *, permutation: tuple) -> tuple:
    x = to_front(vals[0], dims[0])
    return transpose(x, (0,) + tuple(p + 1 for p in permutation)), 0


transpose_p.batch = _transpose_batch


def lax_transpose(operand: Any, permutation: Sequence[int]) -> Any:
    """``jax.lax.transpose``: the axes of ``operand`` permuted by the transpose
    primitive itself, a view of a NumPy array with NumPy's strides. ``transpose``
    below (the one every rule uses) turns a permutation that moves only length-1
    axes into a reshape: the same values, other strides.

    >>> import numpy as np, fad
    >>> fad.lax.transpose(np.zeros((3, 1)), (1, 0)).strides
    (8, 8)
    """
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(len(permutation))):
        return operand
    return bind(transpose_p, operand, permutation=permutation)


def transpose(x: Any, permutation: tuple) -> Any:
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(len(permutation))):
        return x
    shape = aval_of(x).shape
    moved = [p for p in permutation if shape[p] != 1]
    if moved == sorted(moved):  # only length-1 axes move: the same data, reshaped
        return reshape(x, tuple(shape[p] for p in permutation))
    return bind(transpose_p, x, permutation=permutation)


# ------------------------------------------------------------------ broadcast_to
def _broadcast_aval(x: ShapedArray, *, shape: tuple) -> ShapedArray:
    if shapes.broadcast_shapes(x.shape, shape) != tuple(shape):
        raise ShapeError(f"cannot broadcast shape {x.shape} to {shape}")
    return ShapedArray(shape, x.dtype)


def _broadcast_impl(xp: Any, x: Any, *, shape: tuple) -> Any:
    if isinstance(x, bool | int | float | complex):
        return xp.full(shape, x)
    if getattr(x, "ndim", None) == 0 and math.prod(shape) <= 65536 and xp.__name__ == "numpy":
        return xp.full(shape, x, dtype=x.dtype)  # small: filling beats NumPy's view set-up
    return xp.broadcast_to(x, shape)


broadcast_to_p = Primitive("broadcast_to", _broadcast_impl, _broadcast_aval)
deflinear(broadcast_to_p, lambda ct, x, *, shape: [unbroadcast(ct, x.aval.shape)])


def _broadcast_batch(size: int, vals: list, dims: list, *, shape: tuple) -> tuple:
    (x,) = align(vals, dims)
    xs = shape_of(x)
    x = reshape(x, xs[:1] + (1,) * (len(shape) - (len(xs) - 1)) + xs[1:])
    return broadcast_to(x, (size,) + tuple(shape)), 0


broadcast_to_p.batch = _broadcast_batch


def broadcast_to(x: Any, shape: tuple) -> Any:
    shape = tuple(int(n) for n in shape)
    if aval_of(x).shape == shape:
        return x
    return bind(broadcast_to_p, x, shape=shape)


# ------------------------------------------------------------------ dtypes
def _convert_impl(xp: Any, x: Any, *, new_dtype: np.dtype) -> Any:
    if new_dtype.kind != "c" and getattr(x, "dtype", None) is not None and \
            np.dtype(str(x.dtype).split(".")[-1]).kind == "c":
        if new_dtype.kind == "b":  # complex -> bool: nonzero, the imaginary part too
            return x != 0
        x = xp.real(x)  # complex -> real keeps the real part (no ComplexWarning)
    if hasattr(x, "astype"):
        return x.astype(new_dtype)
    return xp.astype(x, getattr(xp, new_dtype.name))


def _convert_jvp(primals: list, tangents: list, *, new_dtype: np.dtype) -> tuple:
    (x,), (g,) = primals, tangents
    ans = bind(convert_element_type_p, x, new_dtype=new_dtype)
    if g is None or not is_float(new_dtype):
        return ans, None
    return ans, bind(convert_element_type_p, g, new_dtype=new_dtype)


def _convert_transpose(ct: Any, x: Any, *, new_dtype: np.dtype) -> list:
    return [convert_element_type(ct, x.aval.dtype)]


convert_element_type_p = Primitive(
    "convert_element_type", _convert_impl,
    lambda x, *, new_dtype: ShapedArray(x.shape, new_dtype))
convert_element_type_p.jvp = _convert_jvp
convert_element_type_p.transpose = _convert_transpose
convert_element_type_p.batch = unary_batch(convert_element_type_p)


def convert_element_type(x: Any, dtype: Any) -> Any:
    dtype = _np_dtype(dtype)  # (a NumPy dtype, its name, or another namespace's dtype)
    if aval_of(x).dtype == dtype:
        return x
    return bind(convert_element_type_p, x, new_dtype=dtype)


zeros_like_p = Primitive("zeros_like", lambda xp, x: xp.zeros_like(x), shapes.same)
deflinear(zeros_like_p, lambda ct, x: [None])
zeros_like_p.batch = unary_batch(zeros_like_p)


# ------------------------------------------------------------------ eye_like
# The n x n identity in x's backend and dtype (x's value is not read): the basis
# jacfwd/jacrev push through a function. An equation rather than a constant, so
# that jit's optimiser knows it is the identity (fad/primitives/identities.py).
eye_like_p = Primitive("eye_like", lambda xp, x, *, n: xp.eye(n, dtype=x.dtype),
                       lambda x, *, n: ShapedArray((n, n), x.dtype))
defjvp(eye_like_p, None)  # a constant of its operand
eye_like_p.batch = lambda size, vals, dims, *, n: (eye_like(vals[0], n), None)


def eye_like(x: Any, n: int) -> Any:
    """``eye(n)`` with ``x``'s dtype, on ``x``'s backend."""
    return bind(eye_like_p, x, n=n)


# ------------------------------------------------------------------ concatenate
def _concat_aval(*xs: ShapedArray, axis: int) -> ShapedArray:
    first = xs[0]
    for x in xs[1:]:
        if x.ndim != first.ndim or any(a != b for i, (a, b) in
                                       enumerate(zip(x.shape, first.shape)) if i != axis):
            raise ShapeError("cannot concatenate shapes " +
                             ", ".join(str(x.shape) for x in xs) + f" along axis {axis}")
        if x.dtype != first.dtype:
            raise ShapeError("concatenate of different dtypes (promote first)")
    shape = list(first.shape)
    shape[axis] = sum(x.shape[axis] for x in xs)
    return ShapedArray(tuple(shape), first.dtype)


def _concat_transpose(ct: Any, *xs: Any, axis: int) -> list:
    from .indexing import slice_axis  # here: indexing imports this module
    out, start = [], 0
    for x in xs:
        n = aval_of(x).shape[axis] if not hasattr(x, "aval") else x.aval.shape[axis]
        out.append(slice_axis(ct, axis, start, start + n) if is_undefined(x) else None)
        start += n
    return out


concatenate_p = Primitive(
    "concatenate", lambda xp, *xs, axis: xp.concat(xs, axis=axis), _concat_aval)


def _concat_jvp(primals: list, tangents: list, *, axis: int) -> tuple:
    ans = bind(concatenate_p, *primals, axis=axis)
    if all(t is None for t in tangents):
        return ans, None
    return ans, bind(concatenate_p, *zeros_where_none(tangents, primals), axis=axis)


concatenate_p.jvp = _concat_jvp
concatenate_p.transpose = _concat_transpose


def _concat_batch(size: int, vals: list, dims: list, *, axis: int) -> tuple:
    xs = [to_front(v, d, size) for v, d in zip(vals, dims)]
    return bind(concatenate_p, *xs, axis=axis + 1), 0


concatenate_p.batch = _concat_batch


# ------------------------------------------------------------------ copy
# ``fnp.array(x, copy=True)`` of a traced value. Arrays are immutable inside fad,
# but the values a trace stands for need not be: the facade's ``clone`` must own
# its memory whichever path evaluates it (as JAX's ``jnp.array(copy=True)`` binds
# a copy). Linear: its jvp and its transpose are the identity.
def copy_of(xp: Any, x: Any) -> Any:
    """A copy of ``x`` in ``xp``: in the layout of ``x`` (NumPy's order "K"), but
    row by row for a broadcast (zero strides), whose "K" order would be arbitrary."""
    if xp is np and type(x) is np.ndarray and any(
            s == 0 and n > 1 for n, s in zip(x.shape, x.strides)):
        return np.array(x, order="C")
    return xp.asarray(x, copy=True)


copy_p = Primitive("copy", copy_of, shapes.same)
deflinear(copy_p, lambda ct, x: [ct])
copy_p.batch = unary_batch(copy_p)


# ------------------------------------------------------------------ stop_gradient
stop_gradient_p = Primitive("stop_gradient", lambda xp, x: x, shapes.same)
defjvp(stop_gradient_p, None)
register_stop_gradient(stop_gradient_p)  # no_grad's lowering (core)
stop_gradient_p.batch = unary_batch(stop_gradient_p)


# ------------------------------------------------------------------ optimization_barrier
# The identity, opaque to jit's optimiser: a value computed from its output is
# never merged with the same computation on its input (common subexpressions).
# ``checkpoint``'s backward pass recomputes from barriers, so that under jit the
# recomputation is not folded back into the stored forward values (JAX's
# ``lax.optimization_barrier``).
optimization_barrier_p = Primitive("optimization_barrier", lambda xp, x: x, shapes.same)
deflinear(optimization_barrier_p, lambda ct, x: [bind(optimization_barrier_p, ct)])
optimization_barrier_p.kernel = lambda xp: _identity
optimization_barrier_p.batch = unary_batch(optimization_barrier_p)


def _identity(x: Any) -> Any:
    return x
