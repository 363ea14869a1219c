"""``check_grads``: every differentiation mode against central finite differences."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..tree import tree_flatten, tree_unflatten
from .autodiff import jvp, vjp

# keyed by the real dtype of the widest input (complex64 counts as float32)
_DEFAULT_EPS = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-2,
                np.dtype(np.float64): 1e-4}
_DEFAULT_TOL = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 2e-2,
                np.dtype(np.float64): 1e-5}


def _real_dtype(dtype: np.dtype) -> np.dtype:
    return np.finfo(dtype).dtype  # complex64 -> float32, complex128 -> float64


def random_like(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """A random direction like ``x``: ``a + ib`` (both parts standard normal) for a
    complex ``x``, so that real and imaginary perturbations are both checked; zeros
    for integer ``x``.

    >>> import numpy as np
    >>> random_like(np.random.default_rng(0), np.zeros(2, np.complex64)).dtype
    dtype('complex64')
    """
    if x.dtype.kind == "c":
        return (rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape)).astype(
            x.dtype)
    if x.dtype.kind == "f":
        return rng.standard_normal(x.shape).astype(x.dtype)
    return np.zeros_like(x)


def _host(tree: Any) -> list[np.ndarray]:
    return [np.asarray(x) for x in tree_flatten(tree)[0]]


def _assert_close(what: str, got: list, want: list, atol: float, rtol: float) -> None:
    for k, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g, dtype=np.result_type(g, np.float64))
        w = np.asarray(w, dtype=np.result_type(w, np.float64))
        if g.shape != w.shape:
            raise AssertionError(f"{what}: output {k} has shape {g.shape}, expected {w.shape}")
        err = np.abs(g - w) - (atol + rtol * np.abs(w))
        bad = ~(err <= 0) & ~(np.isnan(g) & np.isnan(w))
        if bad.any():
            idx = np.unravel_index(int(np.nanargmax(np.where(bad, err, -np.inf))
                                       if not np.isnan(err).all() else 0), g.shape)
            raise AssertionError(
                f"{what}: mismatch in output {k} at index {tuple(int(i) for i in idx)}: "
                f"got {g[idx]!r}, expected {w[idx]!r} "
                f"(|diff| = {abs(g[idx] - w[idx])!r}, atol={atol}, rtol={rtol}; "
                f"{int(bad.sum())} of {bad.size} elements differ)")


def _inner(a: list, b: list) -> float:
    # the bilinear pairing Re(sum(u * v)) (JAX's convention for complex values)
    return float(sum(np.real(np.sum(np.asarray(x) * np.asarray(y))) for x, y in zip(a, b)))


def check_grads(f: Callable, args: Sequence, order: int = 1,
                modes: Sequence[str] = ("fwd", "rev"), atol: float | None = None,
                rtol: float | None = None, eps: float | None = None) -> None:
    """Check ``f``'s derivatives at ``args`` up to ``order`` against finite differences.

    ``"fwd"`` compares ``jvp`` along a random direction ``v`` with a central
    difference; ``"rev"`` compares ``<vjp(u), v>`` with ``<u, central difference>``
    (as ``jax.test_util.check_vjp`` does). Higher orders apply the same checks to the derivative
    functions. Raises ``AssertionError`` naming the worst element.

    Complex inputs and outputs as in JAX: directions ``v`` and ``u`` of a complex
    array are ``a + ib`` with random real and imaginary parts (so a rule that is
    wrong along ``i`` only is caught), and ``<u, w>`` is the bilinear pairing
    ``Re(sum(u * w))``. Default ``eps``/tolerances follow the real dtype
    (complex64 as float32, complex128 as float64).

    >>> import fad, fad.numpy as fnp
    >>> fad.check_grads(fnp.sin, (fnp.array([0.3, 1.2]),), order=2)
    """
    args = tuple(args)
    leaves, tree = tree_flatten(args)
    leaves = [np.asarray(x) for x in leaves]
    dtypes = [_real_dtype(x.dtype) for x in leaves if x.dtype.kind in "fc"]
    if not dtypes:
        raise TypeError("check_grads needs at least one float argument")
    widest = max(dtypes, key=lambda d: d.itemsize)
    eps = eps if eps is not None else _DEFAULT_EPS.get(widest, 1e-4)
    atol = atol if atol is not None else _DEFAULT_TOL.get(widest, 1e-5)
    rtol = rtol if rtol is not None else _DEFAULT_TOL.get(widest, 1e-5)
    rng = np.random.default_rng(0)

    def rand_like(xs: list) -> list:
        return [random_like(rng, x) for x in xs]

    args = tree_unflatten(tree, leaves)
    v = tree_unflatten(tree, rand_like(leaves))
    shifted = [tree_unflatten(tree, [x + s * eps * d if x.dtype.kind in "fc" else x
                                     for x, d in zip(leaves, tree_flatten(v)[0])])
               for s in (1, -1)]
    plus, minus = (_host(f(*a)) for a in shifted)
    numeric = [(p - m) / (2 * eps) for p, m in zip(plus, minus)]  # J v, numerically
    if "fwd" in modes:
        _, t_out = jvp(f, args, v)
        _assert_close("forward-mode (jvp) derivative vs finite differences",
                      _host(t_out), numeric, atol, rtol)
    if "rev" in modes:
        out, f_vjp = vjp(f, *args)
        out_leaves, out_tree = tree_flatten(out)
        u_leaves = rand_like([np.asarray(o) for o in out_leaves])
        ct = f_vjp(tree_unflatten(out_tree, u_leaves))
        lhs = _inner(_host(ct), tree_flatten(v)[0])  # <J^T u, v> from reverse mode
        rhs = _inner(u_leaves, numeric)              # <u, J v> from finite differences
        scale = max(1.0, sum(float(np.sum(np.abs(u))) for u in u_leaves))
        _assert_close("reverse-mode (vjp) <u, J v> vs finite differences", [lhs], [rhs],
                      atol * scale, rtol)
    if order > 1:
        if "fwd" in modes:
            check_grads(lambda *a: jvp(f, a, v)[1], args, order - 1, modes, atol, rtol, eps)
        if "rev" in modes:
            out, _ = vjp(f, *args)
            out_leaves, out_tree = tree_flatten(out)
            u = tree_unflatten(out_tree, rand_like([np.asarray(o) for o in out_leaves]))
            check_grads(lambda *a: vjp(f, *a)[1](u), args, order - 1, modes, atol, rtol, eps)
