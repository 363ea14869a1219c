"""``fad.scipy.signal`` against ``scipy.signal``: every mode, 1-d to 3-d, complex
and integer inputs, both argument orders; derivatives in both inputs; jit and
vmap; errors. The operator table's rows (``signal_convolve convolve2d``...)
add the property laws."""

import numpy as np
import pytest
import scipy.signal as ss

import fad
import fad.numpy as fnp
import fad.scipy.signal as fss
from fad.testing import assert_jit_matches_eager, assert_vmap_matches_loop

rng = np.random.default_rng(0)
SHAPES = [((5,), (3,)), ((3,), (5,)), ((4,), (4,)), ((1,), (3,)), ((4, 5), (2, 3)),
          ((2, 3), (4, 5)), ((3, 2), (2, 3)), ((1, 3), (2, 3)), ((3, 3), (3, 3)),
          ((3, 2, 4), (2, 2, 2)), ((), ())]


def _inputs(s1, s2, complex_):
    x, y = rng.standard_normal(s1), rng.standard_normal(s2)
    if complex_:
        x, y = x + 1j * rng.standard_normal(s1), y + 1j * rng.standard_normal(s2)
    return x, y


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_matches_scipy(shapes, mode):
    for complex_ in (False, True):
        x, y = _inputs(*shapes, complex_)
        pairs = [(fss.convolve, ss.convolve), (fss.correlate, ss.correlate)]
        if len(shapes[0]) == 2:
            pairs += [(fss.convolve2d, ss.convolve2d), (fss.correlate2d, ss.correlate2d)]
        for ours, theirs in pairs:
            try:
                want = theirs(x, y, mode=mode)
            except ValueError:
                with pytest.raises(ValueError, match="valid"):
                    ours(x, y, mode=mode)
                continue
            np.testing.assert_allclose(ours(x, y, mode=mode), want, atol=1e-12)


def test_dtypes():
    i = np.arange(4)
    np.testing.assert_array_equal(fss.convolve(i, i), ss.convolve(i, i))
    assert fss.convolve(np.ones(3, np.float32), np.ones(2, np.float32)).dtype == np.float32
    assert fss.correlate(np.ones(3), np.ones(2, np.complex128)).dtype == np.complex128


def test_derivatives_in_both_inputs():
    x, k = rng.standard_normal((6,)), rng.standard_normal((3,))
    for mode in ("full", "same", "valid"):
        fad.check_grads(lambda x, k: fss.convolve(x, k, mode=mode), (x, k), order=2,
                        modes=("fwd", "rev"))
    img, ker = rng.standard_normal((5, 4)), rng.standard_normal((2, 3))
    fad.check_grads(lambda a, b: fss.correlate2d(a, b, mode="same"), (img, ker), order=1,
                    modes=("fwd", "rev"))
    # the gradient of sum(conv(x, k)) in x is sum(k) everywhere ('full')
    g = fad.grad(lambda x: fnp.sum(fss.convolve(x, k)))(x)
    np.testing.assert_allclose(g, np.full(6, k.sum()))


def test_jit_and_vmap():
    x, k = rng.standard_normal((3, 7)), rng.standard_normal((3,))
    f = lambda x: fss.convolve(x, k, mode="same")
    assert_vmap_matches_loop(f, [x])
    assert_jit_matches_eager(f, [x[0]])
    img, ker = rng.standard_normal((2, 5, 4)), rng.standard_normal((2, 3))
    assert_vmap_matches_loop(lambda a: fss.convolve2d(a, ker, mode="valid"), [img])
    assert_jit_matches_eager(fad.grad(lambda b: fnp.sum(fss.correlate2d(img[0], b) ** 2)),
                             [ker])


def test_errors():
    with pytest.raises(ValueError, match="convolve: mode"):
        fss.convolve(np.ones(3), np.ones(2), mode="wrap")
    with pytest.raises(ValueError, match="same dimensionality"):
        fss.convolve(np.ones(3), np.ones((2, 2)))
    with pytest.raises(ValueError, match="empty"):
        fss.correlate(np.ones(0), np.ones(2))
    with pytest.raises(NotImplementedError, match="boundary"):
        fss.convolve2d(np.ones((2, 2)), np.ones((2, 2)), boundary="wrap")
    with pytest.raises(ValueError, match="2-D"):
        fss.convolve2d(np.ones(3), np.ones(2))


def test_matches_jax():
    jss = pytest.importorskip("jax.scipy.signal")
    import jax
    jax.config.update("jax_enable_x64", True)
    x, y = rng.standard_normal((6, 5)), rng.standard_normal((3, 2))
    for mode in ("full", "same", "valid"):
        np.testing.assert_allclose(fss.convolve(x, y, mode=mode),
                                   np.asarray(jss.convolve(x, y, mode=mode)), atol=1e-12)
        np.testing.assert_allclose(fss.correlate2d(x, y, mode=mode),
                                   np.asarray(jss.correlate2d(x, y, mode=mode)), atol=1e-12)
