"""``fad.nn``'s activations against ``jax.nn``: values, and derivatives at the kinks
(where the convention is a choice). The derivative laws away from the kinks are
the operator table's (``tests/operator_table.py``)."""

import numpy as np
import pytest

import fad
import fad.nn as nn
import fad.numpy as fnp

X = np.array([-7.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0, 8.0])
UNARY = ["relu", "selu", "celu", "elu", "hard_tanh", "relu6", "hard_sigmoid", "hard_silu",
         "hard_swish", "soft_sign", "squareplus", "mish", "silu", "sigmoid", "softplus",
         "log_sigmoid"]  # (leaky_relu: PyTorch's derivative at 0, the facade's convention)


@pytest.fixture(scope="module")
def jnn():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


@pytest.mark.parametrize("name", UNARY)
def test_values_and_kink_derivatives_match_jax(jnn, name):
    f, g = getattr(nn, name), getattr(jnn.nn, name)
    np.testing.assert_allclose(f(X), np.asarray(g(X)), rtol=1e-12, atol=1e-14)
    df = fad.vmap(fad.grad(f))(X)
    dg = jnn.vmap(jnn.grad(g))(X)
    np.testing.assert_allclose(df, np.asarray(dg), rtol=1e-12, atol=1e-14)


def test_glu_standardize_one_hot_match_jax(jnn):
    x = np.arange(24.0).reshape(2, 3, 4) / 7 - 1
    for axis in (-1, 0):
        np.testing.assert_allclose(nn.glu(x, axis=2 * axis + 2 if axis == 0 else -1),
                                   np.asarray(jnn.nn.glu(x, axis=2 * axis + 2 if axis == 0
                                                          else -1)), rtol=1e-12)
    for axis in (-1, 0, (0, 2), None):
        np.testing.assert_allclose(nn.standardize(x, axis), np.asarray(
            jnn.nn.standardize(x, axis)), rtol=1e-10, atol=1e-12)
    mask = x > -0.6
    np.testing.assert_allclose(nn.standardize(x, -1, where=mask), np.asarray(
        jnn.nn.standardize(x, -1, where=mask)), rtol=1e-10, atol=1e-12)
    labels = np.array([[0, 3], [2, -1]])
    for axis in (-1, 0, 1):
        np.testing.assert_array_equal(nn.one_hot(labels, 3, axis=axis),
                                      np.asarray(jnn.nn.one_hot(labels, 3, axis=axis)))


def test_conventions_at_kinks():
    assert float(fad.grad(nn.relu6)(0.0)) == 0.0 and float(fad.grad(nn.relu6)(6.0)) == 0.0
    assert float(fad.grad(nn.hard_tanh)(1.0)) == 1.0
    assert float(fad.grad(nn.relu)(0.0)) == 0.0


def test_dtypes_and_edges():
    x32 = np.array([-1.0, 2.0], np.float32)
    for name in UNARY + ["standardize", "glu"]:
        assert getattr(nn, name)(x32).dtype == np.float32, name
        assert getattr(nn, name)(np.zeros((3, 0))).shape[0] == 3, name
    assert nn.selu(np.float64(1.0)).shape == ()
    assert nn.relu6(np.array([1, 7])).tolist() == [1.0, 6.0]  # integers: float out
    assert np.isnan(nn.relu6(np.nan)) and np.isnan(nn.hard_tanh(np.nan))
    assert nn.one_hot(np.array([1]), 2, dtype=np.int32).dtype == np.int32
    with pytest.raises(ValueError, match="glu"):
        nn.glu(np.ones(3))
    with pytest.raises(TypeError, match="num_classes"):
        nn.one_hot(np.array([1]), 2.5)


def test_jit_and_vmap_agree():
    x = np.linspace(-4, 8, 12).reshape(3, 4)
    for name in UNARY + ["standardize", "glu"]:
        f = getattr(nn, name)
        np.testing.assert_allclose(fad.jit(f)(x), f(x), rtol=1e-14)
        np.testing.assert_allclose(fad.vmap(f)(x), np.stack([f(r) for r in x]), rtol=1e-14)


def test_dir_shows_the_public_names():
    assert dir(nn) == sorted(nn.__all__)
    assert all(callable(getattr(nn, n)) for n in nn.__all__ if n != "initializers")
    assert fnp is not None


def test_relu_is_one_primitive_with_the_usual_conventions():
    """``relu`` binds one primitive (one NumPy kernel); its derivative is 0 at 0
    and its partial reads the output. Integers and float32 keep their dtype, NaN
    stays NaN and passes the cotangent on (as ``where(x <= 0, 0, x)`` and
    PyTorch's ``threshold_backward``), jit, forward and reverse mode agree."""
    assert [e.primitive.name for e in fad.make_jaxpr(nn.relu)(1.0).eqns] == ["relu"]
    x = np.array([-1.0, 0.0, 2.0, np.nan, -np.inf, np.inf])
    assert np.array_equal(nn.relu(x), [0.0, 0.0, 2.0, np.nan, 0.0, np.inf], equal_nan=True)
    g = fad.grad(lambda x: fnp.sum(nn.relu(x)))(x)
    assert g.tolist() == [0.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    np.testing.assert_array_equal(fad.jvp(nn.relu, (x,), (np.ones(6),))[1], g)
    np.testing.assert_array_equal(fad.jit(fad.grad(lambda x: fnp.sum(nn.relu(x))))(x), g)
    assert float(fad.grad(fad.grad(lambda x: nn.relu(x) ** 2))(3.0)) == 2.0
    assert nn.relu(np.array([-2, 3], np.int32)).dtype == np.int32
    assert nn.relu(np.ones(2, np.float32)).dtype == np.float32
    assert nn.relu(np.array([True, False])).tolist() == [1, 0]  # (bool: NumPy's where)
