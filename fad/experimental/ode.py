"""``fad.experimental.ode``: ``odeint`` as ``jax.experimental.ode.odeint``, an
adaptive Dormand-Prince solver of ``dy/dt = func(y, t, *args)`` written in fad
operations (its loops are ``fad.lax.while_loop``, so ``jit`` stages it), whose
gradient is the adjoint method.

>>> import fad, fad.numpy as fnp
>>> from fad.experimental.ode import odeint
>>> t = fnp.array([0.0, 1.0])
>>> y = odeint(lambda y, t, k: -k * y, 1.0, t, 2.0)
>>> round(float(y[1]), 6)  # e^-2
0.135335
>>> round(float(fad.grad(lambda k: odeint(lambda y, t, k: -k * y, 1.0, t, k)[1])(2.0)), 5)
-0.13534
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import lax
from .. import numpy as fnp
from ..backends import namespace_of
from ..core.trace import concrete_or_none
from ..flatten_util import ravel_pytree
from ..numpy._base import dtype_of
from ..transforms.autodiff import stop_gradient, vjp
from ..transforms.custom import custom_vjp
from ..tree import tree_flatten, tree_map, tree_unflatten

__all__ = ["odeint"]


# Dormand-Prince 5(4): nodes c, the coupling rows, the 5th-order weights and the
# difference to the embedded 4th-order ones (Hairer, Norsett & Wanner, table 5.2),
# and the weights of y(t + h/2) for dense output (Shampine 1986)
_C = (1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0)
_A = ((1 / 5,), (3 / 40, 9 / 40), (44 / 45, -56 / 15, 32 / 9),
      (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729),
      (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656),
      (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84))
_B = (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0.0)
_B_ERR = (35 / 384 - 1951 / 21600, 0.0, 500 / 1113 - 22642 / 50085, 125 / 192 - 451 / 720,
          -2187 / 6784 + 12231 / 42400, 11 / 84 - 649 / 6300, -1 / 60)
_B_MID = (6025192743 / 30085553152 / 2, 0.0, 51252292925 / 65400821598 / 2,
          -2691868925 / 45128329728 / 2, 187940372067 / 1594534317056 / 2,
          -1776094331 / 19743644256 / 2, 11237099 / 235043384 / 2)


def _combine(w: tuple, ks: list) -> Any:
    return sum(c * k for c, k in zip(w, ks) if c != 0.0)


def _dopri_step(fun: Callable, y: Any, f: Any, t: Any, h: Any) -> tuple:
    """One step: ``(y1, f1, error estimate, quartic coefficients)``; the quartic
    ``p(s)``, ``s`` in [0, 1], matches y and y' at both ends and y at the midpoint."""
    ks = [f]
    hy = fnp.asarray(h, dtype_of(y))  # (times may be wider than the state)
    for c, row in zip(_C, _A):
        ks.append(fun(y + hy * _combine(row, ks), t + c * h))
    y1 = y + hy * _combine(_B, ks)
    f1 = ks[-1]  # (the last node is the end point: first same as last)
    err = hy * _combine(_B_ERR, ks)
    ym = y + hy * _combine(_B_MID, ks)
    d0, d1 = hy * f, hy * f1
    coeffs = fnp.stack([-2 * d0 + 2 * d1 - 8 * y - 8 * y1 + 16 * ym,
                        5 * d0 - 3 * d1 + 18 * y + 14 * y1 - 32 * ym,
                        -4 * d0 + d1 - 11 * y - 5 * y1 + 16 * ym, d0, y])
    return y1, f1, err, coeffs


def _rms(x: Any) -> Any:
    return fnp.sqrt(fnp.mean(x * x)) if x.shape[0] else fnp.zeros((), dtype_of(x))


def _first_step(fun: Callable, y0: Any, f0: Any, t0: Any, rtol: float, atol: float) -> Any:
    # Hairer, Norsett & Wanner, "Solving ODEs I", II.4: a step whose explicit
    # Euler error is about 1% of the tolerance. The step sizes are constants to
    # every derivative (as in JAX, whose adjoint is another solve): the
    # discretisation is not differentiated (nor |0|'s kink in the RMS norm)
    y0, f0, t0 = stop_gradient(y0), stop_gradient(f0), stop_gradient(t0)
    scale = atol + fnp.abs(y0) * rtol
    d0, d1 = _rms(y0 / scale), _rms(f0 / scale)
    h0 = fnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / fnp.maximum(d1, 1e-30))
    f1 = stop_gradient(fun(y0 + h0 * f0, t0 + h0))
    d2 = _rms((f1 - f0) / scale) / h0
    top = fnp.maximum(d1, d2)
    h1 = fnp.where(top <= 1e-15, fnp.maximum(1e-6, h0 * 1e-3),
                   (0.01 / fnp.maximum(top, 1e-15)) ** (1 / 5))
    return fnp.minimum(100 * h0, h1)


def _solve(fun: Callable, y0: Any, ts: Any, rtol: float, atol: float, mxstep: float,
           hmax: float) -> Any:
    """``y`` at each time of ``ts`` (increasing), ``y(ts[0]) = y0`` (a vector)."""
    t0 = ts[0]
    f0 = fun(y0, t0)
    h = fnp.asarray(fnp.minimum(_first_step(fun, y0, f0, t0, rtol, atol), hmax), dtype_of(ts))
    # (the constant quartic y0 until the first step: a first interval of length 0
    # reads y0)
    coeffs = fnp.concatenate([fnp.zeros((4,) + y0.shape, dtype_of(y0)), y0[None, ...]])
    state = (y0, f0, t0, h, t0, coeffs)
    out = [y0]
    for i in range(1, ts.shape[0]):
        target = ts[i]

        def cond(s: tuple, target: Any = target) -> Any:
            n, _, _, t, h, _, _ = s
            going = (t < target) & (h > 0)
            return going if math.isinf(mxstep) else going & (n < int(mxstep))

        def body(s: tuple) -> tuple:
            n, y, f, t, h, t_prev, cs = s
            y1, f1, err, cs1 = _dopri_step(fun, y, f, t, h)
            ratio = _rms(stop_gradient(err / (atol + rtol * fnp.maximum(fnp.abs(y),
                                                                         fnp.abs(y1)))))
            ok = ratio <= 1
            # the next step: 0.9 (1 / ratio)^(1/5) times this one, within [0.2, 10]
            # (at most 1 after a rejection)
            grow = 0.9 * fnp.maximum(ratio, 1e-10) ** -0.2
            factor = fnp.where(ok, fnp.clip(grow, 0.2, 10.0), fnp.clip(grow, 0.2, 1.0))
            h_new = fnp.minimum(h * factor, hmax)
            h_new = fnp.asarray(h_new, dtype_of(h))
            new = (y1, f1, t + h, t, cs1)
            old = (y, f, t, t_prev, cs)
            y, f, t, t_prev, cs = (fnp.where(ok, a, b) for a, b in zip(new, old))
            return n + 1, y, f, t, h_new, t_prev, cs

        _, *rest = lax.while_loop(cond, body, (0,) + state)
        state = tuple(rest)
        _, _, t, _, t_prev, cs = state
        span = t - t_prev
        s = fnp.where(span > 0, (target - t_prev) / fnp.where(span > 0, span, 1.0), 1.0)
        s = fnp.asarray(s, dtype_of(y0))
        # (the quartic by Horner's rule)
        poly = cs[0, ...]
        for k in range(1, 5):
            poly = poly * s + cs[k, ...]
        # a time before the previous one (traced times, unchecked): NaN, as JAX's
        out.append(fnp.where(target >= ts[i - 1], poly, np.nan))
    return fnp.stack(out)


def _float_leaf(x: Any) -> bool:
    return dtype_of(fnp.asarray(x)).kind in "fc"


def _odeint_impl(func: Callable, rtol: float, atol: float, mxstep: float, hmax: float,
                 y0: Any, ts: Any, args: tuple) -> Any:
    v0, unravel = ravel_pytree(y0)

    def fun(v: Any, t: Any) -> Any:
        return ravel_pytree(func(unravel(v), t, *args))[0]
    ys = _solve(fun, v0, ts, rtol, atol, mxstep, hmax)
    return ys, unravel


def _odeint_fun(func: Callable, rtol: float, atol: float, mxstep: float, hmax: float,
                y0: Any, ts: Any, args: tuple) -> Any:
    ys, unravel = _odeint_impl(func, rtol, atol, mxstep, hmax, y0, ts, args)
    return _unravel_rows(ys, y0, unravel)


def _unravel_rows(ys: Any, y0: Any, unravel: Callable) -> Any:
    """The trajectory as ``y0``'s structure with a leading time axis."""
    rows = [unravel(ys[i, ...]) for i in range(ys.shape[0])]
    return tree_map(lambda *xs: fnp.stack(xs), *rows) if rows else y0


_odeint = custom_vjp(_odeint_fun, nondiff_argnums=(0, 1, 2, 3, 4))


def _odeint_fwd(func: Callable, rtol: float, atol: float, mxstep: float, hmax: float,
                y0: Any, ts: Any, args: tuple) -> tuple:
    ys, unravel = _odeint_impl(func, rtol, atol, mxstep, hmax, y0, ts, args)
    return _unravel_rows(ys, y0, unravel), (ys, ts, args)


def _odeint_bwd(func: Callable, rtol: float, atol: float, mxstep: float, hmax: float,
                res: tuple, ct: Any) -> tuple:
    # The adjoint method: a(t) = dL/dy(t) solves a' = -a f_y backwards from the
    # last time, and dL/dargs = int a f_args dt. Integrated in s = -t (so that
    # the solver runs forwards) with the state y (recomputed from the stored
    # y(t_i) on each interval), a and the running dL/dargs; the cotangent of each
    # y(t_i) joins a at t_i. dL/dt_i = ct_i . f(y_i, t_i) for i > 0 (the output
    # time moves along the trajectory), dL/dt_0 = -a(t_0) . f(y_0, t_0).
    ys, ts, args = res
    ct_v = fnp.stack([ravel_pytree(tree_map(lambda c: c[i, ...], ct))[0]
                      for i in range(ys.shape[0])])
    y_like = _template(ct)
    arg_vec, arg_unravel = ravel_pytree([x for x in tree_flatten(args)[0] if _float_leaf(x)])
    n, m = ys.shape[1], arg_vec.shape[0]

    def f_flat(yv: Any, t: Any, theta: Any) -> Any:
        return ravel_pytree(func(y_like(yv), t, *_with_floats(args, arg_unravel(theta))))[0]

    def aug(z: Any, s: Any) -> Any:
        y, a = z[:n], z[n:2 * n]
        f, pull = vjp(lambda y, theta: f_flat(y, -s, theta), y, arg_vec)
        a_y, a_theta = pull(a)
        return fnp.concatenate([-f, a_y, a_theta])

    a = ct_v[-1, ...]
    theta_bar = fnp.zeros((m,), dtype_of(ys))
    t_bars = []
    for i in range(ys.shape[0] - 1, 0, -1):
        t_bars.append(fnp.vdot(f_flat(ys[i, ...], ts[i], arg_vec), ct_v[i, ...]))
        z = _solve(aug, fnp.concatenate([ys[i, ...], a, theta_bar]),
                   fnp.stack([-ts[i], -ts[i - 1]]), rtol, atol, mxstep, hmax)[1, ...]
        a, theta_bar = z[n:2 * n] + ct_v[i - 1, ...], z[2 * n:]
    t0_bar = -fnp.vdot(f_flat(ys[0, ...], ts[0], arg_vec), a - ct_v[0, ...])
    ts_bar = fnp.asarray(fnp.stack([t0_bar] + t_bars[::-1]), dtype_of(ts))
    args_bar = _with_floats(args, arg_unravel(theta_bar), zeros=True)
    return y_like(a), ts_bar, args_bar


_odeint.defvjp(_odeint_fwd, _odeint_bwd)


def _template(ct: Any) -> Callable:
    """``vector -> y0's structure`` (from the cotangent's rows)."""
    return ravel_pytree(tree_map(lambda c: c[0, ...], ct))[1]


def _with_floats(args: tuple, floats: list, zeros: bool = False) -> tuple:
    """``args`` with its float leaves replaced by ``floats`` (in order), and its
    other leaves by zeros when ``zeros`` (their cotangents)."""
    leaves, treedef = tree_flatten(args)
    it = iter(floats)
    out = [next(it) if _float_leaf(x) else
           (np.zeros(np.shape(x), dtype_of(fnp.asarray(x))) if zeros else x) for x in leaves]
    return tree_unflatten(treedef, out)


def odeint(func: Callable, y0: Any, t: Any, *args: Any, rtol: float = 1.4e-8,
           atol: float = 1.4e-8, mxstep: float = np.inf, hmax: float = np.inf) -> Any:
    """Integrate ``dy/dt = func(y, t, *args)`` from ``y(t[0]) = y0``; ``y`` at each
    time of ``t`` (increasing), stacked along a new leading axis (``y0`` may be a
    pytree of arrays, and so may ``args``), as ``jax.experimental.ode.odeint``.

    Adaptive Dormand-Prince 5(4) steps (the error per step within ``atol + rtol
    |y|``, in RMS; at most ``mxstep`` steps per output interval, each at most
    ``hmax``), dense output by a quartic between steps. The loops are
    ``fad.lax.while_loop``, so ``jit`` stages them. Reverse mode is the adjoint
    method (the augmented system integrated backwards with the same tolerances:
    memory does not grow with the number of steps), for ``y0``, ``t`` and every
    float leaf of ``args``; pass parameters through ``args`` (values ``func``
    closes over are differentiated through the solver's steps instead, which
    ``jit`` cannot do). Times that decrease are a ``ValueError`` (under ``jit``,
    where ``t`` is traced, the values at such times are NaN, as JAX's). Forward
    mode transposes the adjoint pass (exact, but each ``jvp`` integrates backwards
    once); ``vmap`` batches the whole solve.
    (``fad.scipy.integrate.odeint`` is SciPy's LSODA, with SciPy's signature.)

    >>> import fad.numpy as fnp
    >>> from fad.experimental.ode import odeint
    >>> t = fnp.linspace(0.0, fnp.pi, 3)
    >>> ys = odeint(lambda y, t: (y[1], -y[0]), (fnp.array(1.0), fnp.array(0.0)), t)
    >>> (ys[0].round(6) + 0.0).tolist()  # cos t
    [1.0, 0.0, -1.0]
    """
    if not callable(func):
        raise TypeError(f"odeint: func must be callable, got {type(func).__name__}")
    for x in tree_flatten(args)[0]:
        if callable(x):
            raise TypeError("odeint: args must be arrays (or pytrees of arrays), got the "
                            f"callable {x!r}; close over it in func instead")
    y0 = tree_map(fnp.asarray, y0)
    t = fnp.asarray(t)
    if t.ndim != 1:
        raise ValueError(f"odeint: t must be a 1-d array of times, got shape {t.shape}")
    if dtype_of(t).kind not in "fc":
        t = fnp.asarray(t, np.result_type(*[dtype_of(x) for x in tree_flatten(y0)[0]], float))
    tc = concrete_or_none(t)  # checked with its own namespace: fad.numpy would stage it under jit
    if tc is not None and bool(namespace_of((tc,)).any(tc[1:] < tc[:-1])):
        raise ValueError("odeint: the times t must be increasing (the solver integrates "
                         f"forwards from t[0]), got {np.asarray(tc)!r}; integrate -func on -t "
                         "to go backwards in time")
    return _odeint(func, rtol, atol, mxstep, hmax, y0, t, tuple(args))


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
