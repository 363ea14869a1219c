"""``vectorize``: a function of scalars (or of core arrays, with a gufunc
``signature``) applied over broadcast leading axes, by nested ``vmap``."""

from __future__ import annotations

import functools
import re
from typing import Any, Callable, Collection

import numpy as np

from ..transforms.vmap import vmap
from . import _shape as S
from ._base import asarray

_DIMS = r"\((?:\w+(?:,\s*\w+)*)?\)"
_SIGNATURE = re.compile(rf"^\s*{_DIMS}(?:\s*,\s*{_DIMS})*\s*->\s*{_DIMS}(?:\s*,\s*{_DIMS})*\s*$")


def _parse_signature(signature: str) -> tuple[list[tuple], list[tuple]]:
    """``"(m,n),(n)->(m)"`` -> ``([("m", "n"), ("n",)], [("m",)])``."""
    if not _SIGNATURE.match(signature):
        raise ValueError(f"vectorize: not a valid gufunc signature: {signature!r} "
                         "(for example '(n),(n)->()')")
    ins, outs = signature.split("->")
    parse = lambda side: [tuple(re.findall(r"\w+", g)) for g in re.findall(_DIMS, side)]
    return parse(ins), parse(outs)


def _core_sizes(shapes: list, core: list, sizes: dict, where: str) -> None:
    """Record (and check) the size of each named core dimension."""
    for shape, dims in zip(shapes, core):
        if len(shape) < len(dims):
            raise ValueError(f"vectorize: {where} of shape {shape} has fewer dimensions than "
                             f"its core dimensions {dims}")
        for name, size in zip(dims, shape[len(shape) - len(dims):]):
            if sizes.setdefault(name, size) != size:
                raise ValueError(f"vectorize: core dimension {name!r} is {sizes[name]} in one "
                                 f"place and {size} in another ({where})")


def vectorize(pyfunc: Callable, *, excluded: Collection[int | str] = frozenset(),
              signature: str | None = None) -> Callable:
    """``pyfunc`` made to map over the leading (loop) axes of its arguments,
    broadcast together as NumPy's ``vectorize`` does, by ``vmap`` (so it traces
    once, and composes with ``grad`` and ``jit``). Without ``signature``
    ``pyfunc`` sees scalars; with a gufunc ``signature`` such as ``"(n),(n)->()"``
    it sees arrays with those core dimensions (last axes). ``excluded``: positions
    or keyword names passed through unchanged; other keyword arguments are refused.

    >>> import fad.numpy as fnp
    >>> dot = fnp.vectorize(lambda a, b: fnp.sum(a * b), signature="(n),(n)->()")
    >>> dot(fnp.ones((2, 3)), fnp.arange(3.0)).tolist()
    [3.0, 3.0]
    >>> fnp.vectorize(lambda x, y: x if x > 0 else y)  # doctest: +ELLIPSIS
    <function <lambda> at ...>
    >>> fnp.vectorize(lambda x, p: x ** p, excluded={1})(fnp.array([1.0, 2.0]), 3).tolist()
    [1.0, 8.0]
    """
    core_in, core_out = _parse_signature(signature) if signature is not None else (None, None)

    @functools.wraps(pyfunc)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        static_kw = {k: v for k, v in kwargs.items() if k in excluded}
        if len(static_kw) != len(kwargs):
            bad = sorted(set(kwargs) - set(static_kw))
            raise TypeError(f"vectorize: keyword argument(s) {bad} are not in excluded: pass "
                            "them positionally, or name them in excluded to pass them as is")
        fixed = [(i, a) for i, a in enumerate(args) if i in excluded]
        dyn = [asarray(a) for i, a in enumerate(args) if i not in excluded]

        def func(*xs: Any) -> Any:
            full = list(xs)
            for i, a in fixed:
                full.insert(i, a)
            return pyfunc(*full, **static_kw)

        core = core_in if core_in is not None else [()] * len(dyn)
        if len(core) != len(dyn):
            raise TypeError(f"vectorize: the signature {signature!r} has {len(core)} "
                            f"input(s); the function got {len(dyn)} vectorized argument(s)")
        sizes: dict = {}
        _core_sizes([x.shape for x in dyn], core, sizes, "an input")
        loops = [x.shape[:x.ndim - len(c)] for x, c in zip(dyn, core)]
        shape = np.broadcast_shapes(*loops)
        if core_out is not None:
            func = _checked(func, core_out, sizes)
        # one vmap per loop axis, innermost the last; an argument whose axis is 1
        # (or missing) is squeezed and not mapped there
        filled = [(1,) * (len(shape) - len(s)) + s for s in loops]
        squeezed = [S.squeeze(x, axis=tuple(i for i, n in enumerate(s) if n == 1))
                    if 1 in s else x for x, s in zip(dyn, loops)]
        f, expand = func, []
        for axis in reversed(range(len(shape))):
            in_axes = tuple(None if s[axis] == 1 else 0 for s in filled)
            if all(a is None for a in in_axes):
                expand.append(axis)
            else:
                f = vmap(f, in_axes=in_axes)
        out = f(*squeezed)
        if not expand:
            return out
        grow = lambda r: S.expand_dims(r, tuple(sorted(expand)))
        return tuple(grow(r) for r in out) if isinstance(out, tuple) else grow(out)
    return wrapped


def _checked(func: Callable, core_out: list, sizes: dict) -> Callable:
    """``func``, its outputs checked against the signature's output core dims."""
    def check(*xs: Any) -> Any:
        out = func(*xs)
        outs = out if isinstance(out, tuple) else (out,)
        if len(core_out) > 1 and not isinstance(out, tuple):
            raise TypeError(f"vectorize: the signature has {len(core_out)} outputs; the "
                            f"function must return a tuple, got {type(out).__name__}")
        if len(outs) != len(core_out):
            raise TypeError(f"vectorize: the signature has {len(core_out)} output(s); the "
                            f"function returned {len(outs)}")
        shapes = [tuple(np.shape(o)) if not hasattr(o, "shape") else tuple(o.shape)
                  for o in outs]
        for s, dims in zip(shapes, core_out):
            if len(s) != len(dims):
                raise ValueError(f"vectorize: an output of shape {s} does not have the "
                                 f"signature's core dimensions {dims}")
        _core_sizes(shapes, core_out, dict(sizes), "an output")
        return out
    return check


__all__ = ["vectorize"]
