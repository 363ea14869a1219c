"""Gamma, beta and dirichlet numbers at invalid shape parameters: NaN (a negative
or NaN shape), 0 (shape 0), infinity (infinite shape), as JAX's samplers give,
eagerly, under ``jit`` and ``vmap``; the rejection loop always ends."""

import warnings

import numpy as np
import pytest

import fad
import fad.random as fr

KEY = fr.key(0)
SHAPES = [-1.0, -0.5, np.nan, 0.0, np.inf, 2.0]


@pytest.fixture
def jax(jax64):
    return jax64


def _quiet(f, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(f(*args))


@pytest.mark.parametrize("a", SHAPES)
def test_gamma_matches_jax_where_jax_is_defined(jax, a):
    jk = jax.random.key(0)
    ours = _quiet(lambda: fr.gamma(KEY, a, (3,)))
    ref = np.asarray(jax.random.gamma(jk, a, (3,)))
    if a < 0:  # JAX: NaN at -1; at -0.5 its boost step happens to end (not a gamma)
        assert np.isnan(ours).all()
    elif np.isnan(a) or a == 0 or np.isinf(a):
        np.testing.assert_array_equal(ours, ref)
    else:
        assert np.isfinite(ours).all() and (ours > 0).all()
    assert np.array_equal(np.isnan(_quiet(lambda: fr.loggamma(KEY, a, (3,)))), np.isnan(ours))


@pytest.mark.parametrize("a", [-1.0, np.nan, 0.0])
def test_beta_dirichlet_match_jax(jax, a):
    jk = jax.random.key(0)
    np.testing.assert_array_equal(_quiet(lambda: fr.beta(KEY, a, 2.0, (2,))),
                                  jax.random.beta(jk, a, 2.0, (2,)))
    alpha = np.array([1.0, a])
    ours = _quiet(lambda: fr.dirichlet(KEY, alpha))
    ref = np.asarray(jax.random.dirichlet(jk, alpha))
    if np.isnan(ref).any():
        assert np.isnan(ours).all()
    else:  # a = 0: the category of shape 0 gets nothing
        assert ours[1] == ref[1] == 0.0 and ours[0] == 1.0


def test_jit_vmap_and_gradient_at_invalid_shapes(jax):
    out = _quiet(fad.jit(lambda a: fr.gamma(KEY, a, (2,))), -1.0)
    assert np.isnan(out).all()
    batch = _quiet(fad.vmap(lambda a: fr.gamma(KEY, a)), np.array([-1.0, 2.0, np.nan]))
    assert np.isnan(batch[[0, 2]]).all() and batch[1] > 0
    # JAX's derivative is NaN at a negative shape; fad's too, and finite at valid ones
    jk = jax.random.key(0)
    assert np.isnan(jax.grad(lambda a: jax.random.gamma(jk, a))(-1.0))
    assert np.isnan(_quiet(fad.grad(lambda a: fr.gamma(KEY, a)), -1.0))
    assert np.isnan(_quiet(fad.grad(lambda a: fr.loggamma(KEY, a)), np.nan))
    assert np.isfinite(_quiet(fad.grad(lambda a: fr.gamma(KEY, a)), 2.0))
