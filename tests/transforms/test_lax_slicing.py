"""``fad.lax.dynamic_slice`` and its family: values with JAX's clamping (against a
NumPy reference and JAX itself), traced starts under ``jit``, derivatives,
``vmap`` over every combination of batched operands, and the in-place update."""

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vmap_loops import check_every_batching

import fad
import fad.numpy as fnp
from fad import lax


def window(shape, starts, sizes):
    starts = [s + n if s < 0 else s for s, n in zip(starts, shape)]
    return tuple(slice(min(max(s, 0), n - k), min(max(s, 0), n - k) + k)
                 for s, n, k in zip(starts, shape, sizes))


@st.composite
def slices(draw):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    sizes = tuple(draw(st.integers(0, n)) for n in shape)
    starts = tuple(draw(st.integers(-3, n + 2)) for n in shape)
    return np.arange(float(np.prod(shape))).reshape(shape), starts, sizes


@settings(max_examples=40)
@given(case=slices())
def test_values_clamp_starts_as_jax(case):
    x, starts, sizes = case
    w = window(x.shape, starts, sizes)
    np.testing.assert_array_equal(lax.dynamic_slice(x, starts, sizes), x[w])
    u = -np.ones(sizes)
    want = x.copy()
    want[w] = u
    np.testing.assert_array_equal(lax.dynamic_update_slice(x, u, starts), want)
    # the same program for every start: starts are traced operands under jit
    f = fad.jit(lambda x, s: lax.dynamic_slice(x, s, sizes))
    np.testing.assert_array_equal(f(x, np.array(starts, np.int64).reshape(len(starts))),
                                  x[w])


def test_one_trace_serves_every_start():
    traces = []

    def f(x, i):
        traces.append(1)
        return lax.dynamic_slice_in_dim(x, i, 2)
    jf = fad.jit(f)
    x = np.arange(5.0)
    assert [jf(x, np.int64(i)).tolist() for i in (-1, -9, 0, 4, 9)] == [
        [3.0, 4.0], [0.0, 1.0], [0.0, 1.0], [3.0, 4.0], [3.0, 4.0]]
    assert len(traces) == 1


def test_in_dim_forms():
    x = np.arange(12.0).reshape(3, 4)
    assert lax.dynamic_slice_in_dim(x, 1, 2, axis=1).tolist() == x[:, 1:3].tolist()
    assert lax.dynamic_index_in_dim(x, 2).tolist() == x[2:3].tolist()
    assert lax.dynamic_index_in_dim(x, -1, axis=1, keepdims=False).tolist() == \
        x[:, 3].tolist()  # from the end
    assert lax.dynamic_index_in_dim(x, -7, axis=1, keepdims=False).tolist() == \
        x[:, 0].tolist()  # from the end, then clamped to 0
    want = x.copy()
    want[:, 3] = 0.0
    assert lax.dynamic_update_index_in_dim(x, np.zeros(3), 3, 1).tolist() == want.tolist()
    want = x.copy()
    want[1:3] = 0.0
    assert lax.dynamic_update_slice_in_dim(x, np.zeros((2, 4)), 5, 0).tolist() == \
        want.tolist()


def test_errors():
    x = np.zeros((2, 3))
    with pytest.raises(TypeError, match="one start index"):
        lax.dynamic_slice(x, (0,), (1, 1))
    with pytest.raises(TypeError, match="dtype"):
        lax.dynamic_update_slice(x, np.zeros((1, 1), np.float32), (0, 0))
    with pytest.raises(ValueError, match="slice_sizes"):
        lax.dynamic_slice(x, (0, 0), (3, 1))
    with pytest.raises(TypeError, match="integer"):
        lax.dynamic_slice(x, (0.5, 0), (1, 1))


def test_derivatives():
    x = np.linspace(-1.0, 2.0, 12).reshape(3, 4)
    u = np.linspace(0.5, 1.5, 4).reshape(2, 2)
    fad.check_grads(lambda x: fnp.sin(lax.dynamic_slice(x, (1, 5), (2, 2))), (x,), order=2)
    fad.check_grads(lambda x, u: fnp.sin(lax.dynamic_update_slice(x, u * u, (2, 1))),
                    (x, u), order=2)
    g = fad.jit(fad.grad(lambda x, i: fnp.sum(lax.dynamic_slice_in_dim(x, i, 2, 1) ** 2)))(
        x, np.int64(1))
    want = np.zeros_like(x)
    want[:, 1:3] = 2 * x[:, 1:3]
    np.testing.assert_allclose(g, want)


def test_matches_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    x = np.linspace(-1.0, 2.0, 12).reshape(3, 4)
    u = np.ones((2, 3))
    for starts in [(0, 0), (2, 3), (-1, 1), (5, -4)]:
        np.testing.assert_array_equal(lax.dynamic_slice(x, starts, (2, 3)),
                                      jax.lax.dynamic_slice(x, starts, (2, 3)))
        np.testing.assert_array_equal(lax.dynamic_update_slice(x, u, starts),
                                      jax.lax.dynamic_update_slice(x, u, starts))

    def jloss(x, u):
        return jax.numpy.sum(jax.lax.dynamic_update_slice(x, u, (1, 2)) ** 3)

    def floss(x, u):
        return fnp.sum(lax.dynamic_update_slice(x, u, (1, 2)) ** 3)
    for g, j in zip(fad.grad(floss, (0, 1))(x, u), jax.grad(jloss, (0, 1))(x, u)):
        np.testing.assert_allclose(g, np.asarray(j))


@pytest.mark.parametrize("update", [False, True])
def test_vmap_every_combination(update):
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(3, 4, 5))
    us = rng.normal(size=(3, 2, 2))
    ss = np.array([[0, 4], [2, 1], [-1, 3]])

    def f(x, s, u):
        if update:
            return lax.dynamic_update_slice(x, u, (s[0], s[1]))
        return lax.dynamic_slice(x, (s[0], s[1]), (2, 2)) + 0 * u
    check_every_batching(f, (xs, ss, us))


def test_update_in_place_under_jit():
    f = fad.jit(lambda x, u, i: lax.dynamic_update_slice(fnp.sin(x), u, (i,)))
    src = f.source(np.zeros(4), np.ones(2), np.int64(1))
    assert "out=v0_0" in src, src
    np.testing.assert_array_equal(f(np.zeros(4), np.ones(2), np.int64(3)), [0, 0, 1, 1])
    x = np.zeros(4)
    fad.jit(lambda x, u: lax.dynamic_update_slice(x, u, (0,)))(x, np.ones(2))
    assert x.tolist() == [0.0] * 4  # an argument is never written
