"""Integration, traced and differentiable: ``trapezoid`` and
``cumulative_trapezoid``, and ``odeint``, as ``scipy.integrate``: ``odeint`` is
SciPy's own LSODA solver of ``dy/dt = func(y, t, *args)`` called through
``fad.pure_callback``, and its gradient is the adjoint method (an augmented
system integrated backwards by LSODA), as HIPS autograd's.

>>> import fad, fad.numpy as fnp
>>> from fad.scipy.integrate import odeint
>>> t = fnp.array([0.0, 1.0])
>>> y = odeint(lambda y, t, k: -k * y, 1.0, t, args=(2.0,))
>>> y.shape, round(float(y[1, 0]), 6)  # e^-2
((2, 1), 0.135335)
>>> round(float(fad.grad(lambda k: odeint(lambda y, t, k: -k * y, 1.0, t, (k,))[1, 0])(2.0)), 5)
-0.13534
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import numpy as fnp
from ..core.ir import ShapedArray
from ..core.trace import Tracer
from ..flatten_util import ravel_pytree
from ..numpy._base import dtype_of
from ..primitives.callback import pure_callback
from ..transforms.autodiff import vjp
from ..transforms.custom import custom_vjp
from ..tree import tree_flatten, tree_unflatten

__all__ = ["cumulative_trapezoid", "odeint", "trapezoid"]


# ------------------------------------------------------------------ quadrature
def trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> Any:
    """The trapezoidal rule along ``axis`` (``fad.numpy.trapezoid``), at the
    samples ``x`` or with the spacing ``dx``.

    >>> import fad.numpy as fnp
    >>> from fad.scipy.integrate import trapezoid
    >>> float(trapezoid(fnp.array([1.0, 2.0, 3.0]), dx=0.5))
    2.0
    """
    return fnp.trapezoid(y, x=x, dx=dx, axis=axis)


def cumulative_trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1,
                         initial: Any = None) -> Any:
    """The running trapezoidal integral along ``axis`` (one value fewer than ``y``,
    or ``initial`` first).

    >>> import fad.numpy as fnp
    >>> from fad.scipy.integrate import cumulative_trapezoid
    >>> cumulative_trapezoid(fnp.array([1.0, 2.0, 3.0]), initial=0.0).tolist()
    [0.0, 1.5, 4.0]
    """
    y = fnp.moveaxis(fnp.asarray(y), axis, -1)
    if x is None:
        d = dx
    else:
        x = fnp.asarray(x)
        d = fnp.diff(x if x.ndim == 1 else fnp.moveaxis(x, axis, -1), axis=-1)
    out = fnp.cumsum(d * (y[..., 1:] + y[..., :-1]) * 0.5, axis=-1)
    if initial is not None:
        if np.ndim(initial) != 0:
            raise ValueError("cumulative_trapezoid: initial must be a scalar")
        first = fnp.full(out.shape[:-1] + (1,), initial, dtype=dtype_of(out))
        out = fnp.concatenate([first, out], axis=-1)
    return fnp.moveaxis(out, -1, axis)



# ------------------------------------------------------------------ odeint
# The forward solve is scipy.integrate.odeint itself, on the host; the backward
# pass is the adjoint method as autograd computes it (Froehlich, Loos & Hasenauer
# 2017, sec. 2.4.2): from each output time t[i] back to t[i-1], LSODA integrates
# the augmented state [y, a, a_t, a_args] (a = dL/dy, a_t the running time
# cotangent of t[0], a_args the flattened float args' cotangent) along
# [f, -a f_y, -a f_t, -a f_args], with the same options as the forward solve
# (LSODA's error test weighs every component of this state). The cotangent of
# y(t[i]) joins a at t[i]; moving t[i] (i > 0) moves y(t[i]) along f.
def _field(func: Callable, tfirst: bool, args: tuple) -> Callable:
    """``(y, t) -> dy/dt`` on host arrays, as SciPy calls it."""
    def f(y: Any, t: Any) -> Any:
        out = func(t, y, *args) if tfirst else func(y, t, *args)
        if any(isinstance(x, Tracer) for x in tree_flatten(out)[0]):
            raise TypeError("fad.scipy.integrate.odeint: func returned a traced value: it "
                            "runs on concrete arrays, so it must not close over a traced "
                            "value (a parameter being differentiated); pass such values "
                            "through args=(...)")
        return out
    return f


def _as_vector(out: Any) -> Any:
    if isinstance(out, list | tuple):
        out = fnp.stack([fnp.asarray(x) for x in out])
    return fnp.ravel(fnp.asarray(out))


def _float_leaf(x: Any) -> bool:
    return dtype_of(fnp.asarray(x)).kind in "fc"


def _scipy_odeint(*args: Any, **kwargs: Any) -> Any:
    from scipy import integrate  # (SciPy's integrate loads on first use)
    return integrate.odeint(*args, **kwargs)


def _solve(func: Callable, opts: tuple, tfirst: bool, y0: Any, t: Any, args: tuple) -> Any:
    leaves, tree = tree_flatten(args)

    def forward(y0: Any, t: Any, *leaves: Any) -> Any:
        f = _field(func, tfirst, tree_unflatten(tree, list(leaves)))
        return _scipy_odeint(f, y0, t, **dict(opts))
    out = ShapedArray((t.shape[0], y0.shape[0]), np.float64)
    return pure_callback(forward, out, y0, t, *leaves, vmap_method="sequential")


_odeint = custom_vjp(_solve, nondiff_argnums=(0, 1, 2))


def _solve_fwd(func: Callable, opts: tuple, tfirst: bool, y0: Any, t: Any,
               args: tuple) -> tuple:
    ys = _solve(func, opts, tfirst, y0, t, args)
    return ys, (ys, t, args)


def _adjoint(func: Callable, opts: dict, tfirst: bool, tree: Any, is_float: list) -> Callable:
    """The backward pass on host arrays: ``(ys, t, g, *args' leaves)`` to the
    cotangents of ``y0``, of ``t`` and of each float leaf of ``args``."""
    def backward(ys: Any, t: Any, g: Any, *leaves: Any) -> tuple:
        args = tree_unflatten(tree, list(leaves))
        f = _field(func, tfirst, args)
        flat_args, unravel = ravel_pytree([x for x, fl in zip(leaves, is_float) if fl])
        n_t, d = ys.shape

        def with_floats(floats: list) -> Any:
            it = iter(floats)
            return tree_unflatten(tree, [next(it) if fl else x
                                         for x, fl in zip(leaves, is_float)])

        def flat_field(y: Any, s: Any, p: Any) -> Any:
            a = with_floats(unravel(p))
            return _as_vector(func(s, y, *a) if tfirst else func(y, s, *a))

        def augmented(state: Any, s: Any) -> Any:
            y, a = state[:d], state[d:2 * d]
            dy, pull = vjp(flat_field, y, s, flat_args)
            a_y, a_t, a_p = pull(-a)
            return np.hstack((dy, a_y, a_t, a_p))

        a, a_t0, a_args = g[-1, :], 0.0, np.zeros(flat_args.shape[0])
        t_bars = []
        for i in range(n_t - 1, 0, -1):
            t_bar = np.dot(f(ys[i, :], t[i]), g[i, :])
            t_bars.append(t_bar)
            a_t0 = a_t0 - t_bar
            state = np.hstack((ys[i, :], a, a_t0, a_args))
            state = _scipy_odeint(augmented, state, np.array([t[i], t[i - 1]]), **opts)[1]
            a, a_t0, a_args = state[d:2 * d] + g[i - 1, :], state[2 * d], state[2 * d + 1:]
        t_bars.append(a_t0)
        return a, np.hstack(t_bars)[::-1].astype(np.float64), unravel(a_args)
    backward.__qualname__ = ("fad.scipy.integrate.odeint's adjoint method (it has reverse "
                             "mode only; fad.experimental.ode.odeint has both modes)")
    return backward


def _solve_bwd(func: Callable, opts: tuple, tfirst: bool, res: tuple, g: Any) -> tuple:
    ys, t, args = res
    options = dict(opts)
    for name in ("rtol", "atol"):
        if np.ndim(options.get(name)) != 0:
            raise NotImplementedError(
                f"fad.scipy.integrate.odeint: reverse mode needs a scalar {name} (the "
                "adjoint system has more components than y)")
    leaves, tree = tree_flatten(args)
    is_float = [_float_leaf(x) for x in leaves]
    shapes = (ShapedArray(ys.shape[1:], np.float64), ShapedArray(t.shape, np.float64),
              [ShapedArray(np.shape(x), dtype_of(fnp.asarray(x)))
               for x, fl in zip(leaves, is_float) if fl])
    y0_bar, t_bar, floats = pure_callback(_adjoint(func, options, tfirst, tree, is_float),
                                          shapes, ys, t, g, *leaves, vmap_method="sequential")
    it = iter(floats)
    args_bar = tree_unflatten(tree, [next(it) if fl else np.zeros(np.shape(x), dtype_of(
        fnp.asarray(x))) for x, fl in zip(leaves, is_float)])
    return y0_bar, t_bar, args_bar


_odeint.defvjp(_solve_fwd, _solve_bwd)


def _static(name: str, value: Any) -> Any:
    if value is None or isinstance(value, int | float | bool):
        return value
    if isinstance(value, Tracer):
        raise TypeError(f"fad.scipy.integrate.odeint: {name} must be concrete (SciPy reads "
                        "it when the solver starts), got a traced value")
    return tuple(np.asarray(value, float).ravel().tolist())


def odeint(func: Callable, y0: Any, t: Any, args: Any = (), Dfun: Callable | None = None,
           col_deriv: int = 0, full_output: int = 0, ml: int | None = None,
           mu: int | None = None, rtol: Any = None, atol: Any = None, tcrit: Any = None,
           h0: float = 0.0, hmax: float = 0.0, hmin: float = 0.0, ixpr: int = 0,
           mxstep: int = 0, mxhnil: int = 0, mxordn: int = 12, mxords: int = 5,
           printmessg: int = 0, tfirst: bool = False) -> Any:
    """Integrate ``dy/dt = func(y, t, *args)`` (``func(t, y, *args)`` when
    ``tfirst``) from ``y(t[0]) = y0``: ``scipy.integrate.odeint``'s signature and
    solver (ODEPACK's LSODA, switching between Adams and BDF steps), whose
    options pass through to it unchanged. ``y0`` is a vector (a scalar becomes one)
    and the result, float64, has shape ``(len(t), len(y0))``, as SciPy's; ``t`` is a 1-d
    sequence of times (increasing or decreasing); ``args`` a tuple (anything else
    becomes a 1-tuple, as in SciPy) of arrays or pytrees of arrays.

    The solve runs on the host through ``fad.pure_callback``: ``func`` gets
    concrete NumPy arrays (it may use ``fad.numpy``, or NumPy), so ``odeint``
    works eagerly, under ``jit`` (the compiled program calls LSODA) and under
    ``vmap`` (one solve per example). Reverse mode (``grad``, ``vjp``) is the
    adjoint method computed as HIPS autograd's ``odeint`` computes it (LSODA
    integrates the state, its adjoint, the time cotangent and the flattened float
    args' cotangent backwards over each interval, with the same options), for
    ``y0``, ``t`` and every float leaf of ``args``; ``func``'s derivatives come
    from fad's reverse mode on the host. Parameters must pass through ``args``
    (``func`` must not close over a value being differentiated), forward mode
    and second derivatives are not supported, and ``Dfun`` and ``full_output``
    raise ``NotImplementedError``. ``fad.experimental.ode.odeint`` is JAX's
    solver (Dormand-Prince in fad operations: both modes, any order).

    >>> import fad, fad.numpy as fnp
    >>> from fad.scipy.integrate import odeint
    >>> def decay(y, t, k):
    ...     return -k * y
    >>> t = fnp.linspace(0.0, 1.0, 3)
    >>> odeint(decay, [1.0, 2.0], t, args=(0.5,)).round(6).tolist()
    [[1.0, 2.0], [0.778801, 1.557602], [0.606531, 1.213061]]
    >>> loss = lambda k: fnp.sum(odeint(decay, [1.0, 2.0], t, (k,))[-1])
    >>> round(float(fad.jit(fad.grad(loss))(0.5)), 5)  # -3 e^-1/2
    -1.81959
    """
    if not callable(func):
        raise TypeError(f"odeint: func must be callable, got {type(func).__name__}")
    if Dfun is not None:
        raise NotImplementedError("fad.scipy.integrate.odeint: Dfun (the Jacobian of func) "
                                  "is not supported; LSODA estimates it by differences")
    if full_output:
        raise NotImplementedError("fad.scipy.integrate.odeint: full_output (SciPy's "
                                  "diagnostics dictionary) is not supported")
    args = args if isinstance(args, tuple) else (args,)
    for x in tree_flatten(args)[0]:
        if not (isinstance(x, Tracer | int | float | complex) or hasattr(x, "shape")):
            raise TypeError("odeint: args must be arrays (or pytrees of arrays), got "
                            f"{x!r}; close over it in func instead")
    opts = (("col_deriv", col_deriv), ("ml", ml), ("mu", mu), ("rtol", _static("rtol", rtol)),
            ("atol", _static("atol", atol)), ("tcrit", _static("tcrit", tcrit)), ("h0", h0),
            ("hmax", hmax), ("hmin", hmin), ("ixpr", ixpr), ("mxstep", mxstep),
            ("mxhnil", mxhnil), ("mxordn", mxordn), ("mxords", mxords),
            ("printmessg", printmessg))
    y0 = fnp.asarray(y0, float)  # (float64; float32 in fad's 32-bit mode)
    if y0.ndim > 1:
        raise ValueError(f"odeint: y0 must be one-dimensional (or a scalar), as SciPy's, got "
                         f"shape {y0.shape}")
    y0 = fnp.ravel(y0)
    t = fnp.asarray(t, float)
    if t.ndim != 1:
        raise ValueError(f"odeint: t must be a 1-d sequence of times, got shape {t.shape}")
    return _odeint(func, opts, bool(tfirst), y0, t, args)


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
