"""``fad.nn.initializers``: the variance of each initializer against its formula
(from JAX's fan rules), shapes, dtypes, orthogonality, and the errors."""

import math

import numpy as np
import pytest

import fad
import fad.nn.initializers as init
import fad.random as fr

KEY = fr.key(11)

# name -> (scale, mode, bounded): the variance is scale / fan
FAMILIES = {
    "glorot_uniform": (1.0, "fan_avg", True), "glorot_normal": (1.0, "fan_avg", False),
    "xavier_uniform": (1.0, "fan_avg", True), "xavier_normal": (1.0, "fan_avg", False),
    "lecun_uniform": (1.0, "fan_in", True), "lecun_normal": (1.0, "fan_in", False),
    "he_uniform": (2.0, "fan_in", True), "he_normal": (2.0, "fan_in", False),
    "kaiming_uniform": (2.0, "fan_in", True), "kaiming_normal": (2.0, "fan_in", False),
}


def _fan(shape, mode):
    receptive = math.prod(shape[:-2])
    fan_in, fan_out = shape[-2] * receptive, shape[-1] * receptive
    return {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[mode]


def _assert_variance(w, variance):
    """The sample variance within 5 standard errors (``var * sqrt(2 / n)`` for a
    normal; a uniform's is smaller)."""
    w = np.asarray(w, np.float64)
    assert abs(w.var() - variance) < 5 * variance * math.sqrt(2 / w.size)
    assert abs(w.mean()) < 5 * math.sqrt(variance / w.size)


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize("shape", [(300, 200), (3, 3, 40, 60)])
def test_variance_scaling_families(name, shape):
    scale, mode, bounded = FAMILIES[name]
    w = getattr(init, name)()(KEY, shape)
    assert w.shape == shape and w.dtype == np.float64
    variance = scale / _fan(shape, mode)
    _assert_variance(w, variance)
    limit = math.sqrt(3 * variance) if bounded else 2 * math.sqrt(variance) / 0.87962566103423978
    assert np.abs(w).max() <= limit


@pytest.mark.parametrize("distribution", ["truncated_normal", "normal", "uniform"])
@pytest.mark.parametrize("mode", ["fan_in", "fan_out", "fan_avg", "fan_geo_avg"])
def test_variance_scaling(distribution, mode):
    w = init.variance_scaling(0.5, mode, distribution)(KEY, (150, 400))
    fan = {"fan_in": 150, "fan_out": 400, "fan_avg": 275, "fan_geo_avg": math.sqrt(6e4)}[mode]
    _assert_variance(w, 0.5 / fan)


def test_fans_with_axes():
    assert init.compute_fans((3, 3, 16, 32)) == (144.0, 288.0)
    assert init.compute_fans((32, 16, 5), in_axis=1, out_axis=0) == (80.0, 160.0)
    assert init.compute_fans((8, 4, 6), batch_axis=0) == (4.0, 6.0)
    assert init.compute_fans((2, 3, 4, 5), in_axis=(0, 1), out_axis=-1) == (24.0, 20.0)
    assert init.compute_fans((7,), in_axis=0, out_axis=0) == (7.0, 7.0)
    with pytest.raises(ValueError, match="at least 2 axes"):
        init.glorot_normal()(KEY, (5,))


def test_simple_initializers():
    assert init.zeros(KEY, (2, 3)).tolist() == [[0.0] * 3] * 2
    assert init.ones(KEY, (2,), np.float32).dtype == np.float32
    assert init.constant(3.0, np.float32)(KEY, (2,)).tolist() == [3.0, 3.0]
    w = init.normal(0.1)(KEY, (400, 100))
    _assert_variance(w, 0.01)
    u = np.asarray(init.uniform(0.5)(KEY, (40000,)))
    assert u.min() >= 0 and u.max() < 0.5 and abs(u.mean() - 0.25) < 0.005
    t = np.asarray(init.truncated_normal(2.0)(KEY, (40000,)))
    assert np.abs(t).max() < 4.0
    # the standard deviation of a normal truncated to +-2, times 2
    assert abs(t.std() - 2 * 0.87962566103423978) < 0.02


def test_float32_kept_and_jit():
    f = init.he_uniform(dtype=np.float32)
    assert f(KEY, (4, 5)).dtype == np.float32
    assert init.he_uniform()(KEY, (4, 5), np.float32).dtype == np.float32
    assert np.array_equal(fad.jit(lambda k: init.glorot_normal()(k, (4, 5)))(KEY),
                          init.glorot_normal()(KEY, (4, 5)))
    with pytest.raises(ValueError, match="floating"):
        init.normal()(KEY, (2,), np.int32)


@pytest.mark.parametrize("shape,column_axis", [((5, 5), -1), ((6, 3), -1), ((3, 6), -1),
                                               ((4, 3, 5), 0), ((2, 3, 8), -1)])
def test_orthogonal(shape, column_axis):
    q = np.asarray(init.orthogonal(2.0, column_axis=column_axis)(KEY, shape))
    assert q.shape == shape
    m = np.moveaxis(q, column_axis, -1).reshape(-1, shape[column_axis]) / 2.0
    small = min(m.shape)
    gram = m.T @ m if m.shape[0] >= m.shape[1] else m @ m.T
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-12)
    assert init.orthogonal()(KEY, (0, 3)).shape == (0, 3)
    with pytest.raises(ValueError, match="at least 2"):
        init.orthogonal()(KEY, (3,))


def test_orthogonal_is_haar_distributed():
    """Sign-corrected QR: the first entry of a uniformly random orthogonal 2x2
    matrix is cos(theta) with theta uniform, so its mean is 0 and mean square 1/2."""
    qs = fad.vmap(lambda k: init.orthogonal()(k, (2, 2)))(fr.split(KEY, 4000))
    c = np.asarray(qs)[:, 0, 0]
    assert abs(c.mean()) < 0.05 and abs((c ** 2).mean() - 0.5) < 0.03
