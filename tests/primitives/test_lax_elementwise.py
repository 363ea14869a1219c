"""``fad.lax``'s elementwise functions against ``jax.lax``: values, derivatives
(first and second order, forward and reverse), ``jit`` and ``vmap``; lax's
argument rules (no promotion, no broadcasting, Python scalars weakly typed);
``reduce_window`` with ``lax.max``/``lax.min``/``lax.add``/``lax.mul``."""

import numpy as np
import pytest

import fad
import fad.lax as lax
import fad.numpy as fnp

X = np.array([0.3, 0.7, 1.4, 2.5])
Y = np.array([1.1, 0.2, 1.4, 0.9])
UNARY = ["neg", "sign", "floor", "ceil", "exp", "expm1", "log", "log1p", "sin", "cos", "tan",
         "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "atanh", "logistic", "sqrt",
         "rsqrt", "cbrt", "abs", "erf", "erfc", "erf_inv", "lgamma", "digamma", "square"]
BINARY = ["add", "sub", "mul", "div", "rem", "pow", "max", "min", "atan2"]
DOMAIN = {"asin": X / 3, "acos": X / 3, "atanh": X / 3, "erf_inv": X / 3,
          "acosh": X + 1.0, "sign": X - 1.0, "abs": X - 1.0}


@pytest.fixture
def jax(jax64):
    return jax64


def _check(jax, ours, theirs, *args):
    np.testing.assert_allclose(ours(*args), theirs(*args), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(fad.jit(ours)(*args), theirs(*args), rtol=1e-12, atol=1e-14)
    for i in range(len(args)):
        d1 = fad.vmap(fad.grad(ours, argnums=i))(*args)
        np.testing.assert_allclose(d1, jax.vmap(jax.grad(theirs, argnums=i))(*args),
                                   rtol=1e-10, atol=1e-12)
        d2 = fad.vmap(fad.grad(fad.grad(ours, argnums=i), argnums=i))(*args)
        want = jax.vmap(jax.grad(jax.grad(theirs, argnums=i), argnums=i))(*args)
        np.testing.assert_allclose(d2, want, rtol=1e-9, atol=1e-12)
        fwd = fad.vmap(lambda *a: fad.jvp(lambda v: ours(*a[:i], v, *a[i + 1:]),
                                          (a[i],), (1.0,))[1])(*args)
        np.testing.assert_allclose(fwd, d1, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", UNARY + ["acosh"])
def test_unary_matches_jax(jax, name):
    x = DOMAIN.get(name, X)
    _check(jax, getattr(lax, name), getattr(jax.lax, name), x)


@pytest.mark.parametrize("name", BINARY)
def test_binary_matches_jax(jax, name):
    _check(jax, getattr(lax, name), getattr(jax.lax, name), X, Y)


def test_integer_and_comparison_semantics_match_jax(jax):
    a, b = np.array([-7, 7, -6, 5]), np.array([2, -2, 3, 5])
    for name in ("div", "rem", "max", "min", "add", "mul", "sub"):
        got, want = getattr(lax, name)(a, b), getattr(jax.lax, name)(a, b)
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)
    for name in ("eq", "ne", "lt", "le", "gt", "ge"):
        np.testing.assert_array_equal(getattr(lax, name)(X, Y), getattr(jax.lax, name)(X, Y))
    np.testing.assert_array_equal(lax.not_(X > 1), jax.lax.bitwise_not(X > 1))
    np.testing.assert_array_equal(lax.is_finite(np.array([1.0, np.inf, np.nan])),
                                  jax.lax.is_finite(np.array([1.0, np.inf, np.nan])))
    np.testing.assert_allclose(lax.integer_pow(X, -3), jax.lax.integer_pow(X, -3), rtol=1e-14)
    np.testing.assert_allclose(fad.grad(lambda x: lax.integer_pow(x, 3))(1.5),
                               jax.grad(lambda x: jax.lax.integer_pow(x, 3))(1.5))
    np.testing.assert_array_equal(lax.convert_element_type(X * 2, np.int32),
                                  jax.lax.convert_element_type(X * 2, np.int32))


def test_ties_of_max_and_min_split_as_jax(jax):
    for name in ("max", "min"):
        ours = fad.grad(getattr(lax, name), argnums=(0, 1))(1.0, 1.0)
        want = jax.grad(getattr(jax.lax, name), argnums=(0, 1))(1.0, 1.0)
        np.testing.assert_allclose(ours, want)


def test_argument_rules():
    with pytest.raises(TypeError, match="same dtypes"):
        lax.add(X, X.astype(np.float32))
    with pytest.raises(TypeError, match="same shape"):
        lax.mul(X, X[:2])
    with pytest.raises(TypeError, match="same shape"):
        lax.max(X, np.array(1.0))
    with pytest.raises(TypeError, match="lists"):
        lax.exp([1.0, 2.0])
    with pytest.raises(TypeError, match="Python int"):
        lax.integer_pow(X, 2.0)
    # a Python scalar takes the array's dtype
    assert lax.add(X.astype(np.float32), 1.0).dtype == np.float32
    assert lax.mul(np.arange(3), 2).dtype == np.arange(3).dtype


def test_reduce_window_recognises_the_lax_monoids(jax):
    x = np.arange(24.0).reshape(1, 1, 4, 6) % 7
    for ours, theirs, init in ((lax.max, jax.lax.max, -np.inf), (lax.min, jax.lax.min, np.inf),
                               (lax.add, jax.lax.add, 0.0), (lax.mul, jax.lax.mul, 1.0)):
        got = lax.reduce_window(x, init, ours, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        want = jax.lax.reduce_window(x, init, theirs, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        np.testing.assert_allclose(got, want)
    pool = lambda x: lax.reduce_window(x, -np.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2),  # noqa: E731
                                       "VALID")
    g = fad.grad(lambda x: fnp.sum(pool(x) ** 2))(x + 0.01 * np.arange(24.0).reshape(x.shape))
    assert g.shape == x.shape and np.count_nonzero(g) == 6
