"""``fad.device_put`` is a primitive: values move between backends under every
transformation, and a derivative comes back on the backend its input came from."""

from __future__ import annotations

import numpy as np
import pytest

import fad
import fad.numpy as fnp
from fad.backends import namespace_of

strict = pytest.importorskip("array_api_strict")


def loss_on(backend):
    return lambda x: fnp.sum(fnp.sin(fad.device_put(x, backend)) * 2.0)


@pytest.mark.parametrize("x, to, home", [
    (np.array([0.3, -1.2, 2.0]), "array_api_strict", np),
    (strict.asarray([0.3, -1.2, 2.0]), "numpy", strict),
])
def test_the_gradient_comes_back_on_the_input_backend(x, to, home):
    g = fad.grad(loss_on(to))(x)
    assert namespace_of([g]) is home
    np.testing.assert_allclose(np.asarray(g), 2.0 * np.cos([0.3, -1.2, 2.0]), rtol=1e-15)


def test_forward_mode_moves_the_tangent_with_the_value():
    y, t = fad.jvp(lambda x: fad.device_put(x, "array_api_strict"),
                   (np.array([1.0, 2.0]),), (np.array([0.5, -1.0]),))
    assert namespace_of([y]) is strict and namespace_of([t]) is strict
    np.testing.assert_array_equal(np.asarray(t), [0.5, -1.0])


def test_second_derivatives_and_jit_and_vmap_agree_with_numpy():
    x = np.array([0.3, -1.2, 2.0])
    hess = fad.hessian(loss_on("array_api_strict"))(x)
    np.testing.assert_allclose(np.asarray(hess), np.diag(-2.0 * np.sin(x)), atol=1e-15)
    jitted = fad.jit(fad.grad(loss_on("array_api_strict")))(x)
    assert type(jitted) is np.ndarray  # under jit the cotangent goes to the default backend
    np.testing.assert_allclose(jitted, 2.0 * np.cos(x), rtol=1e-15)
    rows = fad.vmap(lambda r: fad.device_put(r, "array_api_strict"))(np.ones((2, 3)))
    assert namespace_of([rows]) is strict and rows.shape == (2, 3)


def test_an_array_already_there_is_returned_as_it_is():
    x = np.ones(3)
    assert fad.device_put(x, "numpy") is x
    assert fad.make_jaxpr(lambda v: fad.device_put(v, "numpy"))(x).jaxpr.eqns[0] \
        .primitive.name == "device_put"  # traced, it is recorded
