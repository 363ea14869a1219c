"""``fad.scipy.stats.t`` at ``df = inf`` is the normal distribution, as SciPy's,
with the normal's derivative in ``x`` and 0 in ``df``."""

import warnings

import numpy as np
import pytest
import scipy.stats as st

import fad
import fad.scipy.stats as fst

X = np.array([-2.0, 0.0, 1.0, 3.5])


@pytest.mark.parametrize("name", ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"])
def test_infinite_df_is_the_normal(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = getattr(fst.t, name)(X, np.inf, 0.5, 2.0)
        grads = fad.vmap(fad.grad(getattr(fst.t, name), argnums=(0, 1)),
                         in_axes=(0, None, None, None))(X, np.inf, 0.5, 2.0)
    np.testing.assert_allclose(got, getattr(st.t, name)(X, np.inf, 0.5, 2.0), rtol=1e-14)
    np.testing.assert_allclose(got, getattr(st.norm, name)(X, 0.5, 2.0), rtol=1e-14)
    normal = fad.vmap(fad.grad(getattr(fst.norm, name)), in_axes=(0, None, None))(X, 0.5, 2.0)
    np.testing.assert_allclose(grads[0], normal, rtol=1e-12)
    np.testing.assert_array_equal(grads[1], 0.0)
    # finite df unchanged
    np.testing.assert_allclose(getattr(fst.t, name)(X, 3.0), getattr(st.t, name)(X, 3.0),
                               rtol=1e-12)
