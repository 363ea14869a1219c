"""``fad.scipy.integrate``: the trapezoidal rules against SciPy; ``odeint``
against closed forms and ``scipy.integrate.solve_ivp``, under ``jit``, with
pytrees; its adjoint-method gradients against finite differences and against
differentiating a fixed-step RK4 solver written in fad."""

import numpy as np
import pytest
import scipy.integrate as si

import fad
import fad.numpy as fnp
from fad.scipy.integrate import cumulative_trapezoid, odeint, trapezoid

rng = np.random.default_rng(0)
T = np.linspace(0.0, 2.0, 5)


def test_trapezoid_rules_match_scipy():
    y, x = rng.standard_normal((3, 6)), np.sort(rng.uniform(0, 3, 6))
    np.testing.assert_allclose(trapezoid(y, x), si.trapezoid(y, x))
    np.testing.assert_allclose(trapezoid(y, dx=0.5, axis=0), si.trapezoid(y, dx=0.5, axis=0))
    for kw in ({"x": x}, {"dx": 0.3}, {"x": x, "initial": 0.0}):
        np.testing.assert_allclose(cumulative_trapezoid(y, **kw),
                                   si.cumulative_trapezoid(y, **kw))
    np.testing.assert_allclose(cumulative_trapezoid(y, axis=0),
                               si.cumulative_trapezoid(y, axis=0))
    fad.check_grads(lambda y, x: cumulative_trapezoid(y, x), (y, x), order=2,
                    modes=("fwd", "rev"))




# ------------------------------------------------------------------ odeint (SciPy's LSODA)
def decay(y, t, k):
    return -k * y


def van_der_pol(y, t, mu):
    return fnp.stack([y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]])


def van_der_pol_np(y, t, mu):
    return np.stack([y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]])


def test_odeint_is_scipys():
    y0 = np.array([2.0, 0.0])
    for kw in ({}, {"rtol": 1e-3}, {"rtol": 1e-10, "atol": 1e-12, "hmax": 0.1},
               {"mxstep": 200, "h0": 1e-3, "mxordn": 3}, {"rtol": [1e-6, 1e-8]}):
        np.testing.assert_array_equal(odeint(van_der_pol, y0, T, (1.5,), **kw),
                                      si.odeint(van_der_pol_np, y0, T, (1.5,), **kw))
    # tfirst, a non-tuple args, a scalar y0 (a 1-vector), times downwards
    np.testing.assert_array_equal(
        odeint(lambda t, y, k: -k * y * t, 1.0, T, 2.0, tfirst=True),
        si.odeint(lambda t, y, k: -k * y * t, 1.0, T, args=(2.0,), tfirst=True))
    y2 = np.arange(1.0, 5.0, dtype=np.float32)
    ys = odeint(decay, y2, T[::-1], (0.5,))
    assert ys.shape == (5, 4) and ys.dtype == np.float64
    np.testing.assert_array_equal(ys, si.odeint(decay, y2, T[::-1], (0.5,)))
    assert odeint(decay, 1.0, T, (1.0,)).shape == (5, 1)


def test_odeint_under_jit_and_vmap():
    y0 = np.array([2.0, 0.0])
    want = si.odeint(van_der_pol_np, y0, T, (1.5,))
    f = fad.jit(lambda y0, mu: odeint(van_der_pol, y0, T, (mu,)))
    np.testing.assert_array_equal(f(y0, 1.5), want)
    mus = np.array([0.5, 1.5])
    got = fad.vmap(lambda mu: odeint(van_der_pol, y0, T, (mu,)))(mus)
    np.testing.assert_array_equal(got[1], want)
    np.testing.assert_array_equal(got[0], si.odeint(van_der_pol_np, y0, T, (0.5,)))


def _tight(func, y0, t, args):
    return odeint(func, y0, t, args, rtol=1e-11, atol=1e-11)


def test_odeint_gradients_against_finite_differences():
    def loss(y0, t, mu, scale):
        ys = _tight(lambda y, t, p: van_der_pol(y, t, p["mu"]) * p["scale"][0], y0, t,
                    ({"mu": mu, "scale": scale},))
        return fnp.sum(fnp.sin(ys))
    args = (np.array([2.0, 0.5]), np.array([0.0, 0.3, 0.8]), 1.2, np.array([0.9]))
    fad.check_grads(loss, args, order=1, modes=("rev",), eps=1e-5, atol=1e-6, rtol=1e-5)
    g = fad.grad(loss, argnums=(0, 1, 2, 3))(*args)
    gj = fad.jit(fad.grad(loss, argnums=(0, 1, 2, 3)))(*args)
    for a, b in zip(g, gj):
        np.testing.assert_array_equal(a, b)
    # per-example gradients: one adjoint solve per example
    mus = np.array([0.8, 1.2])
    per = fad.vmap(fad.grad(loss, argnums=2), in_axes=(None, None, 0, None))(args[0], args[1],
                                                                         mus, args[3])
    assert per[1] == g[2]
    # an integer leaf of args (not differentiated), and a t cotangent of every time
    g_int = fad.grad(lambda k: fnp.sum(odeint(lambda y, t, k, n: -k * y ** n, 1.0, T,
                                              (k, 2)) ** 2))(0.7)
    fd = (np.sum(si.odeint(lambda y, t: -0.7001 * y ** 2, 1.0, T) ** 2)
          - np.sum(si.odeint(lambda y, t: -0.6999 * y ** 2, 1.0, T) ** 2)) / 2e-4
    assert abs(g_int - fd) < 1e-5


def test_odeint_gradients_match_autograds():
    """A neural ODE (parameters a list of (W, b) tuples, as in autograd's ode_net
    example) at rtol=0.01: the values are SciPy's and the gradients autograd's,
    for the parameters, y0 and the times."""
    pytest.importorskip("autograd")
    import autograd
    import autograd.numpy as anp
    from autograd.builtins import tuple as atuple
    from autograd.scipy.integrate import odeint as autograd_odeint

    def model(np_):
        def net(y, t, params):
            for w, b in params:
                out = np_.dot(y, w) + b
                y = np_.maximum(0, out)
            return out
        return net

    def loss(params, y0, t, ode, np_, tup):
        pred = ode(model(np_), y0, t, tup((params,)), rtol=0.01)
        return np_.mean(np_.abs(pred - np_.cos(t)[:, None]))

    r = np.random.RandomState(0)
    params = [(r.randn(2, 16) * 0.3, r.randn(16) * 0.3), (r.randn(16, 2) * 0.3, r.randn(2) * 0.3)]
    y0, t = np.array([2.0, 0.0]), np.linspace(0.0, 1.5, 10)
    ours = fad.value_and_grad(loss, argnums=(0, 1, 2))(params, y0, t, odeint, fnp, tuple)
    theirs = (loss(params, y0, t, autograd_odeint, anp, atuple),
              autograd.grad(loss, argnum=(0, 1, 2))(params, y0, t, autograd_odeint, anp, atuple))
    assert abs(float(ours[0]) - theirs[0]) <= 1e-12 * abs(theirs[0])
    for a, b in zip(fad.tree.tree_leaves(ours[1]), fad.tree.tree_leaves(theirs[1])):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12 * np.abs(b).max())


def test_odeint_on_array_api_strict():
    xp = pytest.importorskip("array_api_strict")
    t, k = xp.asarray(T), xp.asarray(1.5)
    ys = odeint(decay, xp.asarray([1.0]), t, (k,))
    g = fad.grad(lambda k: fnp.sum(odeint(decay, xp.asarray([1.0]), t, (k,))))(k)
    assert isinstance(ys, type(t)) and isinstance(g, type(t))
    np.testing.assert_array_equal(np.asarray(ys), si.odeint(decay, [1.0], T, (1.5,)))
    np.testing.assert_allclose(float(g), np.sum(-T * np.exp(-1.5 * T)), rtol=1e-5)


def test_odeint_errors():
    with pytest.raises(NotImplementedError, match="Dfun"):
        odeint(decay, 1.0, T, (1.0,), Dfun=lambda y, t, k: -k)
    with pytest.raises(NotImplementedError, match="full_output"):
        odeint(decay, 1.0, T, (1.0,), full_output=True)
    with pytest.raises(TypeError, match="func must be callable"):
        odeint(1.0, 1.0, T)
    with pytest.raises(TypeError, match="args must be arrays"):
        odeint(decay, 1.0, T, (np.sin,))
    with pytest.raises(ValueError, match="one-dimensional"):
        odeint(decay, np.ones((2, 2)), T, (1.0,))
    with pytest.raises(ValueError, match="1-d sequence of times"):
        odeint(decay, 1.0, 1.0, (1.0,))
    # a parameter func closes over instead of taking it through args
    with pytest.raises(TypeError, match="through args"):
        fad.grad(lambda k: fnp.sum(odeint(lambda y, t: -k * y, 1.0, T)))(1.0)
    with pytest.raises(TypeError, match="reverse mode only"):
        fad.jvp(lambda k: odeint(decay, 1.0, T, (k,)), (1.0,), (1.0,))
    with pytest.raises(NotImplementedError, match="scalar rtol"):
        fad.grad(lambda y0: fnp.sum(odeint(decay, y0, T, (1.0,), rtol=[1e-6, 1e-7])))(
            np.ones(2))
