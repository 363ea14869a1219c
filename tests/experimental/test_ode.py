"""``fad.experimental.ode.odeint`` (JAX's, Dormand-Prince): against closed forms
and ``scipy.integrate.solve_ivp``, under ``jit``, with pytrees; its
adjoint-method gradients against finite differences and against differentiating
a fixed-step RK4 solver written in fad; against JAX's own ``odeint``."""

import numpy as np
import pytest
import scipy.integrate as si

import fad
import fad.numpy as fnp
from fad.experimental.ode import odeint

rng = np.random.default_rng(0)
T = np.linspace(0.0, 2.0, 5)


def decay(y, t, k):
    return -k * y


def oscillator(y, t, w):
    return fnp.stack([y[1], -w ** 2 * y[0]])


def van_der_pol(y, t, mu):
    return fnp.stack([y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]])


def test_odeint_closed_forms():
    np.testing.assert_allclose(odeint(decay, np.array([1.0, 2.0]), T, 1.5),
                               np.exp(-1.5 * T)[:, None] * [1.0, 2.0], rtol=1e-7)
    ys = odeint(oscillator, np.array([1.0, 0.0]), T, 2.0)
    np.testing.assert_allclose(ys, np.stack([np.cos(2 * T), -2 * np.sin(2 * T)], 1), atol=1e-7)
    # explicit time dependence: y' = t, y = t^2 / 2
    np.testing.assert_allclose(odeint(lambda y, t: t + 0 * y, 0.0, T), T ** 2 / 2, atol=1e-10)


def test_odeint_matches_solve_ivp_and_jit():
    y0 = np.array([2.0, 0.0])
    ys = odeint(van_der_pol, y0, T, 1.0)
    want = si.solve_ivp(lambda t, y: van_der_pol(y, t, 1.0), (0, 2), y0, t_eval=T,
                        rtol=1e-12, atol=1e-12).y.T
    np.testing.assert_allclose(ys, want, atol=1e-6)
    np.testing.assert_allclose(fad.jit(lambda y0, t: odeint(van_der_pol, y0, t, 1.0))(y0, T),
                               ys, atol=1e-12)
    coarse = odeint(van_der_pol, y0, T, 1.0, rtol=1e-4, atol=1e-4)
    assert 1e-9 < np.abs(coarse - want).max() < 1e-2


def test_odeint_pytrees_and_dtypes():
    y0 = {"x": np.array(1.0), "v": np.zeros(2)}
    ys = odeint(lambda y, t: {"x": -y["x"], "v": y["v"] + 1.0}, y0, T)
    assert ys["x"].shape == (5,) and ys["v"].shape == (5, 2)
    np.testing.assert_allclose(ys["x"], np.exp(-T), rtol=1e-7)
    np.testing.assert_allclose(ys["v"][:, 0], np.exp(T) - 1, rtol=1e-7)
    y32 = odeint(decay, np.ones(2, np.float32), T.astype(np.float32), np.float32(1.0),
                 rtol=1e-5, atol=1e-5)
    assert y32.dtype == np.float32
    np.testing.assert_allclose(y32[:, 0], np.exp(-T), rtol=1e-4)


def _loss(y0, t, mu):
    return fnp.sum(odeint(van_der_pol, y0, t, mu) ** 2)


def _finite_difference(f, args, i, eps=1e-6):
    a = np.asarray(args[i], float)
    out = np.zeros(a.shape)
    for j in np.ndindex(a.shape):
        d = np.zeros(a.shape)
        d[j] = eps
        hi, lo = list(args), list(args)
        hi[i], lo[i] = a + d, a - d
        out[j] = (f(*hi) - f(*lo)) / (2 * eps)
    return out


def test_odeint_gradients_against_finite_differences():
    args = (np.array([2.0, 0.0]), T, 1.0)
    grads = fad.grad(_loss, argnums=(0, 1, 2))(*args)
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g, _finite_difference(_loss, args, i), rtol=1e-4, atol=1e-5)
    jitted = fad.jit(fad.grad(_loss, argnums=(0, 1, 2)))(*args)
    for g, h in zip(grads, jitted):
        np.testing.assert_allclose(g, h, rtol=1e-9)


def rk4(func, y0, t, *args, steps=100):
    """A fixed-step RK4 solver in fad operations (differentiated directly)."""
    ys, y = [y0], y0
    for i in range(len(t) - 1):
        h = (t[i + 1] - t[i]) / steps
        s = t[i]
        for _ in range(steps):
            k1 = func(y, s, *args)
            k2 = func(y + h / 2 * k1, s + h / 2, *args)
            k3 = func(y + h / 2 * k2, s + h / 2, *args)
            k4 = func(y + h * k3, s + h, *args)
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            s = s + h
        ys.append(y)
    return fnp.stack(ys)


def test_neural_ode_gradient_matches_rk4():
    params = {"w": rng.standard_normal((3, 3)) * 0.5, "b": rng.standard_normal(3) * 0.1}
    y0 = rng.standard_normal(3)
    t = np.linspace(0.0, 1.0, 3)

    def field(y, t, p):
        return fnp.tanh(p["w"] @ y + p["b"]) * fnp.cos(t)

    def loss(solver, p, y0):
        return fnp.sum(solver(field, y0, t, p)[1:] ** 2)

    tight = lambda *a: odeint(*a, rtol=1e-10, atol=1e-10)
    ours = fad.grad(lambda p, y0: loss(tight, p, y0), argnums=(0, 1))(params, y0)
    theirs = fad.grad(lambda p, y0: loss(rk4, p, y0), argnums=(0, 1))(params, y0)
    for a, b in zip(fad.tree.tree_leaves(ours), fad.tree.tree_leaves(theirs)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


def test_odeint_errors():
    with pytest.raises(TypeError, match="func must be callable"):
        odeint(1.0, 1.0, T)
    with pytest.raises(TypeError, match="args must be arrays"):
        odeint(decay, 1.0, T, np.sin)
    with pytest.raises(ValueError, match="1-d array of times"):
        odeint(decay, 1.0, 1.0, 1.0)


def test_odeint_matches_jax():
    ode = pytest.importorskip("jax.experimental.ode")
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    y0 = np.array([2.0, 0.0])
    want = ode.odeint(lambda y, t, mu: jnp.stack([y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]]),
                      y0, T, 1.0)
    np.testing.assert_allclose(odeint(van_der_pol, y0, T, 1.0), np.asarray(want), atol=1e-7)


def test_odeint_on_array_api_strict():
    xp = pytest.importorskip("array_api_strict")
    fad.set_backend("array_api_strict")
    try:
        t, k = xp.asarray(T), xp.asarray(1.5)
        ys = odeint(decay, xp.asarray([1.0]), t, k)
        g = fad.grad(lambda k: fnp.sum(odeint(decay, xp.asarray([1.0]), t, k)))(k)
    finally:
        fad.set_backend("numpy")
    assert isinstance(ys, type(t)) and isinstance(g, type(t))
    np.testing.assert_allclose(np.asarray(ys)[:, 0], np.exp(-1.5 * T), rtol=1e-7)
    np.testing.assert_allclose(float(g), np.sum(-T * np.exp(-1.5 * T)), rtol=1e-6)


def test_odeint_vmap_and_forward_mode():
    def f(y0, k):
        return odeint(decay, y0, T, k)
    ys = fad.vmap(f)(np.array([1.0, 2.0]), np.array([1.0, 2.0]))
    np.testing.assert_allclose(ys, [np.exp(-T), 2 * np.exp(-2 * T)], rtol=1e-7)
    _, tangent = fad.jvp(lambda k: f(1.0, k), (1.0,), (1.0,))
    np.testing.assert_allclose(tangent, -T * np.exp(-T), rtol=1e-6, atol=1e-9)


def test_odeint_times_must_increase_as_jax():
    """Decreasing times are a ``ValueError``; traced under ``jit``, the values at
    them are NaN (as JAX's, at the end of a decreasing pair); repeated times are
    allowed (also as the first interval), with the closed form's adjoint gradient."""
    ode = pytest.importorskip("jax.experimental.ode")
    import jax
    jax.config.update("jax_enable_x64", True)
    for t in (np.array([1.0, 0.0]), np.array([0.0, 1.0, 0.5])):
        with pytest.raises(ValueError, match="must be increasing"):
            odeint(lambda y, t: -y, 1.0, t)
        ours = np.asarray(fad.jit(lambda t: odeint(lambda y, t: -y, 1.0, t))(t))
        back = np.concatenate([[False], np.diff(t) < 0])
        assert np.isnan(ours[back]).all()
        np.testing.assert_allclose(ours[~back], np.exp(-(t[~back] - t[0])), rtol=1e-7)
    want = np.asarray(ode.odeint(lambda y, t: -y, 1.0, np.array([1.0, 0.0])))
    np.testing.assert_array_equal(np.isnan(want), [False, True])
    for t in (np.array([0.0, 1.0, 1.0, 2.0]), np.array([0.0, 0.0, 1.0, 2.0])):
        np.testing.assert_allclose(odeint(lambda y, t: -y, 1.0, t), np.exp(-t), rtol=1e-7)
        g = fad.grad(lambda t: odeint(lambda y, t: -y, 1.0, t)[-1])(t)
        np.testing.assert_allclose(g, [np.exp(-2.0), 0.0, 0.0, -np.exp(-2.0)], atol=1e-7)


def test_second_derivatives_where_the_error_norm_is_zero():
    """The step sizes are constants to every derivative: at y0 = 0 (the RMS norm of
    the first step's estimate is |0|, whose derivative is undefined) second
    derivatives are finite, in every mode. y' = -y^2: y(1) = y0 / (1 + y0)."""
    def f(y0):
        return odeint(lambda y, t: -y * y, y0, np.array([0.0, 1.0]))[1]
    for d2 in (fad.grad(fad.grad(f)), fad.jacfwd(fad.jacfwd(f)), fad.jacfwd(fad.grad(f))):
        np.testing.assert_allclose(d2(0.0), -2.0, rtol=1e-6)
        np.testing.assert_allclose(d2(0.5), -2.0 / 1.5 ** 3, rtol=1e-6)
