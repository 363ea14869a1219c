"""``fnp.unique`` with every option, eagerly against NumPy and with a static
``size=`` under ``jit`` against ``jax.numpy.unique`` (JAX's padding: values with
``fill_value`` or the smallest value, indices with the first one, counts with
0); ``polyfit``'s ``full=`` and ``cov=`` against NumPy."""

import itertools

import numpy as np
import pytest

import fad
import fad.numpy as fnp

INPUTS = {
    "floats": np.array([3.0, 1.0, 2.0, 3.0, 1.0, 5.0]),
    "matrix": np.array([[3.0, 1.0], [2.0, 3.0], [1.0, 5.0]]),
    "ints": np.array([4, 4, -1, 0, 7, -1, 4]),
    "nan": np.array([1.0, np.nan, 2.0, np.nan, 1.0]),
    "single": np.array([2.5]),
}
ROWS = np.array([[1, 2], [3, 4], [1, 2], [0, 9], [3, 4]])
FLAGS = list(itertools.product([False, True], repeat=3))


@pytest.fixture(scope="module")
def jnp():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax.numpy


def assert_results_equal(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, (g.shape, w.shape)
        assert g.dtype.kind == w.dtype.kind, (g.dtype, w.dtype)
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("flags", FLAGS, ids=str)
@pytest.mark.parametrize("name", INPUTS)
def test_eager_unique_is_numpys(name, flags):
    x = INPUTS[name]
    assert_results_equal(fnp.unique(x, *flags), np.unique(x, *flags))
    if name == "nan":
        assert_results_equal(fnp.unique(x, *flags, equal_nan=False),
                             np.unique(x, *flags, equal_nan=False))


@pytest.mark.parametrize("flags", FLAGS, ids=str)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_eager_unique_along_an_axis_is_numpys(axis, flags):
    assert_results_equal(fnp.unique(ROWS, *flags, axis=axis), np.unique(ROWS, *flags, axis=axis))
    x = np.arange(24.0).reshape(2, 3, 4) % 5
    assert_results_equal(fnp.unique(x, *flags, axis=axis), np.unique(x, *flags, axis=axis))


@pytest.mark.parametrize("fill_value", [None, -1])
@pytest.mark.parametrize("size", [2, 9])
@pytest.mark.parametrize("flags", [(False, False, False), (True, True, True)], ids=str)
@pytest.mark.parametrize("name", INPUTS)
def test_unique_with_size_under_jit_is_jaxs(jnp, name, flags, size, fill_value):
    x = INPUTS[name]
    kw = {"size": size, "fill_value": fill_value}
    got = fad.jit(lambda a: fnp.unique(a, *flags, **kw))(x)
    assert_results_equal(got, jnp.unique(x, *flags, **kw))
    assert_results_equal(fnp.unique(x, *flags, **kw), got)  # eager == jit


@pytest.mark.parametrize("size", [2, 3, 6])
@pytest.mark.parametrize("axis", [0, 1])
def test_unique_along_an_axis_with_size_under_jit_is_jaxs(jnp, axis, size):
    kw = {"axis": axis, "size": size, "fill_value": 7}
    got = fad.jit(lambda a: fnp.unique(a, True, True, True, **kw))(ROWS)
    assert_results_equal(got, jnp.unique(ROWS, True, True, True, **kw))


def test_unique_of_an_empty_array():
    assert_results_equal(fnp.unique(np.zeros(0), True, True, True),
                         np.unique(np.zeros(0), True, True, True))
    values, index, counts = fad.jit(lambda a: fnp.unique(
        a, return_index=True, return_counts=True, size=2, fill_value=3.0))(np.zeros(0))
    assert values.tolist() == [3.0, 3.0] and index.tolist() == [0, 0]
    assert counts.tolist() == [0, 0]
    with pytest.raises(ValueError, match="fill_value"):
        fnp.unique(np.zeros(0), size=2)


def test_unique_values_carry_the_derivative():
    x = INPUTS["floats"]
    # each unique value is its first occurrence; the padding (the minimum) too
    g = fad.grad(lambda a: fnp.sum(fnp.unique(a, size=6) ** 2))(x)
    np.testing.assert_allclose(g, [6.0, 6.0, 4.0, 0.0, 0.0, 10.0])
    g = fad.grad(lambda a: fnp.sum(fnp.unique(a, axis=0)[:, 0]))(INPUTS["matrix"])
    np.testing.assert_allclose(g, [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])


def test_unique_without_size_under_jit_names_the_fix():
    with pytest.raises(fad.ConcretizationError, match="size="):
        fad.jit(lambda a: fnp.unique(a, return_counts=True))(INPUTS["floats"])


# ---------------------------------------------------------------- polyfit
RNG = np.random.default_rng(0)
X, Y, YS, W = (RNG.standard_normal(7), RNG.standard_normal(7), RNG.standard_normal((7, 2)),
               RNG.uniform(0.5, 2, 7))


@pytest.mark.filterwarnings("ignore::numpy.exceptions.RankWarning")
@pytest.mark.parametrize("args, kw", [
    ((X, Y, 2), {"full": True}), ((X, YS, 3), {"full": True}),
    ((X, Y, 2), {"full": True, "w": W, "rcond": 1e-3}),
    ((X[:3], Y[:3], 2), {"full": True}),  # as many points as coefficients: no residuals
    ((np.ones(4), Y[:4], 2), {"full": True}),  # rank 1: no residuals
    ((X, Y, 2), {"cov": True}), ((X, YS, 2), {"cov": True, "w": W}),
    ((X, Y, 1), {"cov": "unscaled"}), ((X, YS, 1), {"cov": "unscaled"}),
], ids=lambda v: "" if isinstance(v, tuple) else "-".join(f"{k}={v[k]}" for k in v))
def test_polyfit_full_and_cov_are_numpys(args, kw):
    got, want = fnp.polyfit(*args, **kw), np.polyfit(*args, **kw)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(np.asarray(g, float), np.asarray(w, float), rtol=1e-10,
                                   atol=1e-12)


def test_polyfit_cov_needs_more_points_than_coefficients():
    with pytest.raises(ValueError, match="number of data points"):
        fnp.polyfit(X[:3], Y[:3], 2, cov=True)
