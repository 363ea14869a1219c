"""``fad.nn``'s elementwise activations against ``jax.nn`` at their kinks and
around them: values, first and second derivatives (reverse and forward mode,
under ``jit`` and ``vmap``), so that the derivative chosen at each kink is JAX's."""

import warnings

import numpy as np
import pytest

import fad
import fad.nn as fnn

POINTS = np.array([0.0, 1.0, -1.0, 6.0, -6.0, 3.0, -3.0, 0.5, -0.5, 2.0])
ELEMENTWISE = ["celu", "elu", "gelu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
               "leaky_relu", "log_sigmoid", "mish", "relu", "relu6", "selu", "sigmoid",
               "silu", "soft_sign", "softplus", "squareplus", "tanh"]


@pytest.fixture
def jax(jax64):
    return jax64


def _derivatives(grad, vmap, f):
    d1 = grad(f)
    return [vmap(f), vmap(d1), vmap(grad(d1))]


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_kinks_match_jax(jax, name):
    if not hasattr(fnn, name) or not hasattr(jax.nn, name):
        pytest.skip(f"{name} is not in both namespaces")
    ours, theirs = getattr(fnn, name), getattr(jax.nn, name)
    want = [np.asarray(d(POINTS)) for d in _derivatives(jax.grad, jax.vmap, theirs)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        eager = [np.asarray(d(POINTS)) for d in _derivatives(fad.grad, fad.vmap, ours)]
        jitted = [np.asarray(fad.jit(d)(POINTS)) for d in _derivatives(fad.grad, fad.vmap, ours)]
        fwd = fad.vmap(lambda x: fad.jvp(lambda y: fad.jvp(ours, (y,), (1.0,))[1],
                                          (x,), (1.0,))[1])(POINTS)
    for got in (eager, jitted):
        for order, (g, w) in enumerate(zip(got, want)):
            np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12,
                                       err_msg=f"{name}, derivative of order {order}")
    np.testing.assert_allclose(fwd, want[2], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name,args", [("leaky_relu", (0.2,)), ("celu", (0.5,)),
                                       ("elu", (2.0,))])
def test_parameters_at_the_kink(jax, name, args):
    ours, theirs = getattr(fnn, name), getattr(jax.nn, name)
    for order in range(3):
        f, g = (lambda x: ours(x, *args)), (lambda x: theirs(x, *args))
        for _ in range(order):
            f, g = fad.grad(f), jax.grad(g)
        np.testing.assert_allclose(f(0.0), g(0.0), rtol=1e-12, err_msg=f"order {order}")
