"""``polyval`` keeps NumPy's result dtype (integers stay integers) and ``roots``
is real when every root is, as NumPy's (complex under ``jit``)."""

import numpy as np
import pytest

import fad
import fad.numpy as fnp


@pytest.mark.parametrize("p,x", [([1, 2, 3], 2), ([1.0, 2.0], 2), ([1, 2], 2.5),
                                 ([1, 2, 3], np.array([1, 2])),
                                 (np.array([1, 2], np.int32), np.int32(3)),
                                 (np.array([1.0, 2.0], np.float32), np.float32(0.5))])
def test_polyval_dtype_as_numpy(p, x):
    got, want = fnp.polyval(p, x), np.polyval(p, x)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("p", [[1, -3, 2], [1, 0, 1], [1, -2, 1, 0], [0, 1, -1], [2.0],
                               [1.0, -6.0, 11.0, -6.0]])
def test_roots_real_when_all_are(p):
    got, want = fnp.roots(np.array(p)), np.roots(p)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.sort_complex(got), np.sort_complex(want), atol=1e-12)


def test_roots_derivative_and_jit():
    g = fad.grad(lambda c: fnp.sum(fnp.roots(c)))(np.array([1.0, -3.0, 2.0]))
    np.testing.assert_allclose(g, [-3.0, -1.0, 0.0], atol=1e-12)  # sum = -c1 / c0
    r = fad.jit(lambda c: fnp.roots(c, strip_zeros=False))(np.array([1.0, -3.0, 2.0]))
    assert np.iscomplexobj(r)
    np.testing.assert_allclose(np.sort(r.real), [1.0, 2.0])
