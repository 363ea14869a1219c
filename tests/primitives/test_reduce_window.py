"""``fad.lax.reduce_window``: pooling against PyTorch, the other cases against
JAX, the tie rule of max's derivative, which computations it recognises, vmap and
jit. (Finite differences to second order: the operator table's
``reduce_window_sum`` and ``reduce_window_max`` rows.)"""

import operator

import numpy as np
import pytest

import fad
import fad.lax as lax
import fad.numpy as fnp

torch = pytest.importorskip("torch")
F = torch.nn.functional
RNG = np.random.default_rng(1)


def distinct(*shape, dtype=np.float64):
    return (RNG.permutation(int(np.prod(shape))).reshape(shape) / 7.0).astype(dtype)


def max_pool(x, k, s, p=0, d=1):
    return lax.reduce_window(x, -np.inf, fnp.maximum, (1, 1, k, k), (1, 1, s, s),
                             ((0, 0), (0, 0), (p, p), (p, p)), window_dilation=(1, 1, d, d))


def avg_pool(x, k, s, p=0):
    return lax.reduce_window(x, 0.0, fnp.add, (1, 1, k, k), (1, 1, s, s),
                             ((0, 0), (0, 0), (p, p), (p, p))) / (k * k)


@pytest.mark.parametrize("k, s, p, d", [(2, 2, 0, 1), (3, 2, 1, 1), (3, 1, 1, 2)])
def test_max_pool_matches_torch_values_and_gradients(k, s, p, d):
    x = distinct(2, 3, 7, 8)
    xt = torch.tensor(x, requires_grad=True)
    yt = F.max_pool2d(xt, k, s, p, dilation=d)
    np.testing.assert_array_equal(max_pool(x, k, s, p, d), yt.detach().numpy())
    ct = RNG.standard_normal(yt.shape)
    yt.backward(torch.tensor(ct))
    g = fad.vjp(lambda x: max_pool(x, k, s, p, d), x)[1](ct)[0]
    np.testing.assert_allclose(g, xt.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("k, s, p", [(2, 2, 0), (3, 2, 1)])
def test_avg_pool_matches_torch_values_and_gradients(k, s, p):
    x = RNG.standard_normal((2, 3, 7, 8))
    xt = torch.tensor(x, requires_grad=True)
    yt = F.avg_pool2d(xt, k, s, p, count_include_pad=True)
    np.testing.assert_allclose(avg_pool(x, k, s, p), yt.detach().numpy(), rtol=1e-12)
    ct = RNG.standard_normal(yt.shape)
    yt.backward(torch.tensor(ct))
    g = fad.vjp(lambda x: avg_pool(x, k, s, p), x)[1](ct)[0]
    np.testing.assert_allclose(g, xt.grad.numpy(), rtol=1e-12)


def test_float32_max_pool_keeps_its_dtype():
    x = distinct(4, 2, 28, 28, dtype=np.float32)
    y = max_pool(x, 2, 2)
    assert y.dtype == np.float32 and y.shape == (4, 2, 14, 14)
    np.testing.assert_array_equal(y, F.max_pool2d(torch.tensor(x), 2).numpy())
    assert fad.grad(lambda x: max_pool(x, 2, 2).sum())(x).dtype == np.float32


def test_integers_pool_from_their_own_identity():
    x = RNG.integers(-50, 50, (1, 1, 4, 5)).astype(np.int32)
    y = lax.reduce_window(x, np.iinfo(np.int32).min, max, (1, 1, 2, 2), (1, 1, 1, 1), "SAME")
    assert y.dtype == np.int32
    want = F.max_pool2d(torch.tensor(np.pad(x, ((0, 0), (0, 0), (0, 1), (0, 1)),
                                            constant_values=-100).astype(float)), 2, 1)
    np.testing.assert_array_equal(y, want.numpy())
    s = lax.reduce_window(x.astype(np.int8), 0, operator.add, (1, 1, 2, 2), (1, 1, 2, 2),
                          "VALID")
    assert s.dtype == np.int8


def test_max_derivative_goes_to_the_first_tie():
    x = np.array([[1.0, 3.0, 3.0, 2.0, 3.0]])
    g = fad.grad(lambda x: lax.reduce_window(x, -np.inf, max, (1, 3), (1, 1), "VALID").sum())(x)
    np.testing.assert_array_equal(g, [[0.0, 2.0, 1.0, 0.0, 0.0]])  # windows' first maxima
    g = fad.grad(lambda x: lax.reduce_window(x, np.inf, min, (1, 2), (1, 1), "VALID").sum())(
        np.array([[2.0, 2.0, 2.0]]))
    np.testing.assert_array_equal(g, [[1.0, 1.0, 0.0]])


@pytest.mark.parametrize("computation, kind", [
    (operator.add, "sum"), (np.add, "sum"), (fnp.add, "sum"), (lambda a, b: a + b, "sum"),
    (operator.mul, "prod"), (fnp.multiply, "prod"), (max, "max"), (fnp.maximum, "max"),
    (np.minimum, "min"), (min, "min")])
def test_computations_are_recognised(computation, kind):
    from fad.primitives.windows import monoid_of
    assert monoid_of(computation) == kind


def test_unknown_computation_is_refused_kindly():
    with pytest.raises(NotImplementedError, match="add, mul, max or min"):
        lax.reduce_window(np.ones(3), 0.0, operator.sub, (2,), (1,), "VALID")
    with pytest.raises(ValueError, match="window_strides"):
        lax.reduce_window(np.ones(3), 0.0, operator.add, (2,), (1, 1), "VALID")


def test_matches_jax_with_dilations_other_inits_and_products():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jl = jax.lax
    x = distinct(2, 5, 6) - 2.0
    geometry = dict(window_dimensions=(1, 2, 3), window_strides=(1, 2, 1),
                    padding=((0, 0), (1, 0), (2, 1)), base_dilation=(1, 2, 1),
                    window_dilation=(1, 1, 2))
    for mine, theirs, init in [(max, jl.max, -np.inf), (min, jl.min, np.inf),
                               (operator.add, jl.add, 0.0), (operator.add, jl.add, 1.5),
                               (max, jl.max, 0.25), (operator.mul, jl.mul, 1.0),
                               (operator.mul, jl.mul, 2.0)]:
        got = lax.reduce_window(x, init, mine, **geometry)
        want = jl.reduce_window(x, init, theirs, **geometry)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    sum_geometry = dict(geometry, padding="SAME")
    g = fad.grad(lambda x: (lax.reduce_window(x, 0.0, operator.add, **sum_geometry) ** 2).sum())
    gj = jax.grad(lambda x: (jl.reduce_window(x, 0.0, jl.add, **sum_geometry) ** 2).sum())
    np.testing.assert_allclose(g(x), gj(x), rtol=1e-12)
    fad.check_grads(lambda x: lax.reduce_window(x, 2.0, operator.mul, **geometry), (x,),
                    order=2)


def test_vmap_and_jit():
    x = distinct(3, 2, 6, 5)

    def f(x):
        return lax.reduce_window(x, -np.inf, max, (2, 3, 2), (1, 2, 2), "SAME")
    np.testing.assert_array_equal(fad.vmap(f)(x), np.stack([f(v) for v in x]))
    np.testing.assert_array_equal(fad.jit(f)(x[0]), f(x[0]))
    g = fad.vmap(fad.grad(lambda v: (f(v) ** 2).sum()))(x)
    np.testing.assert_array_equal(g, np.stack([fad.grad(lambda v: (f(v) ** 2).sum())(v)
                                               for v in x]))
    jg = fad.jit(fad.grad(lambda v: (f(v) ** 2).sum()))(x[0])
    np.testing.assert_array_equal(jg, g[0])


def test_large_windows_and_holes_differentiate_too():
    # more taps than the per-tap loop takes (a global pool), and base dilation:
    # the gather-by-table path
    x = distinct(2, 3, 9, 9)
    xt = torch.tensor(x, requires_grad=True)
    F.max_pool2d(xt, 9).sum().backward()
    g = fad.grad(lambda x: max_pool(x, 9, 9).sum())(x)
    np.testing.assert_array_equal(g, xt.grad.numpy())
    fad.check_grads(lambda x: lax.reduce_window(x, -np.inf, max, (1, 2, 3), (1, 1, 2),
                                                "SAME", base_dilation=(1, 2, 1)),
                    (distinct(2, 3, 5),), order=2)
