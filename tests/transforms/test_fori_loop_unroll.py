"""``fad.lax.fori_loop``'s ``unroll`` (JAX's keyword): the same values and
derivatives as JAX's for every unrolling, eagerly and under ``jit``; with traced
bounds ``unroll`` is a ``ValueError``."""

import numpy as np
import pytest

import fad
import fad.numpy as fnp


@pytest.mark.parametrize("unroll", [None, 1, 2, 3, 7, True, False])
def test_unroll_matches_jax(unroll):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        def ours(x):
            return fad.lax.fori_loop(1, 6, lambda i, v: fnp.sin(v) * x + i, x, unroll=unroll)

        def theirs(x):
            return jax.lax.fori_loop(1, 6, lambda i, v: jnp.sin(v) * x + i, x, unroll=unroll)
        for f in (ours, fad.jit(ours)):
            np.testing.assert_allclose(f(0.7), theirs(0.7), rtol=1e-14)
        for d in (fad.grad(ours), fad.jit(fad.grad(ours))):
            np.testing.assert_allclose(d(0.7), jax.grad(theirs)(0.7), rtol=1e-12)
        np.testing.assert_allclose(fad.grad(fad.grad(ours))(0.7),
                                   jax.grad(jax.grad(theirs))(0.7), rtol=1e-11)
        np.testing.assert_allclose(fad.vmap(ours)(np.array([0.2, 0.7])),
                                   jax.vmap(theirs)(np.array([0.2, 0.7])), rtol=1e-14)
    finally:
        jax.config.update("jax_enable_x64", old)


def test_unroll_with_traced_bounds_is_an_error():
    with pytest.raises(ValueError, match="unroll applies only when the loop bounds"):
        fad.jit(lambda n: fad.lax.fori_loop(0, n, lambda i, v: v + 1.0, 0.0, unroll=2))(3)
    with pytest.raises(ValueError, match="unroll must be a positive int"):
        fad.lax.fori_loop(0, 3, lambda i, v: v + 1.0, 0.0, unroll=0)
