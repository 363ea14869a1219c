"""``x.at[index]`` against NumPy's in-place updates (assignment, ``np.add.at``,
``np.multiply.at``, ``np.minimum.at``, ``np.maximum.at``), its derivatives
against JAX's rules, ``vmap`` against a loop and ``jit``'s in-place kernels.
(Finite-difference checks of every row: ``at_*`` in ``tests/operator_table.py``.)"""

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vmap_loops import check_every_batching

import fad
import fad.numpy as fnp

UFUNCS = {"set": None, "add": np.add, "multiply": np.multiply, "min": np.minimum,
          "max": np.maximum}


def numpy_update(method, x, index, v):
    y = np.array(x)
    if UFUNCS[method] is None:
        y[index] = v
    else:
        # values broadcast to x[index]'s shape first: NumPy 2.4's ufunc.at, left to
        # broadcast them itself under an index with a leading Ellipsis, can read
        # uninitialised memory (fad passes full-shape values and is not affected)
        UFUNCS[method].at(y, index, np.broadcast_to(v, y[index].shape))
    return y


@st.composite
def updates(draw):
    """x, an index (integer arrays with repeats and negatives, maybe empty, maybe
    with a slice, None or ... beside them) and values of x[index]'s shape or
    broadcasting to it."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    lead = draw(st.sampled_from([(), (Ellipsis,), (None,)] + [(slice(None),)] * (len(shape) > 1)))
    indexed = shape[-1:] if lead == (Ellipsis,) else shape[1:] if lead == (slice(None),) \
        else shape
    arrays = draw(hnp.integer_array_indices(
        indexed, result_shape=hnp.array_shapes(min_dims=1, max_dims=2, min_side=0,
                                               max_side=5)))
    index = lead + tuple(arrays)
    target = np.empty(shape)[index].shape
    vshape = target[draw(st.integers(0, len(target))):]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = rng.integers(-4, 5, shape).astype(np.float64)
    v = rng.integers(-4, 5, vshape).astype(np.float64)
    return x, index, v


@pytest.mark.parametrize("method", sorted(UFUNCS))
@settings(max_examples=25)
@given(case=updates())
def test_values_match_numpy_in_place_update(method, case):
    x, index, v = case
    want = numpy_update(method, x, index, v)
    x0 = x.copy()
    got = getattr(fnp.at(x)[index], method)(v)  # a NumPy array: the function form
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(x, x0)  # x itself is left alone
    traced = fad.jit(lambda x, v: getattr(x.at[index], method)(v))(x, v)  # on a tracer
    np.testing.assert_array_equal(traced, want)
    np.testing.assert_array_equal(x, x0)


def test_repeated_indices_last_set_wins_and_add_accumulates():
    x = np.zeros(4)
    i = np.array([1, 3, 1, -1])
    assert fnp.at(x)[i].set(np.array([1.0, 2.0, 3.0, 4.0])).tolist() == [0, 3, 0, 4]
    assert fnp.at(x)[i].add(1.0).tolist() == [0, 2, 0, 2]


def test_basic_mask_and_zero_dim_indices():
    x = np.arange(12.0).reshape(3, 4)
    for index in [(1,), (slice(None), 2), (Ellipsis, -1), (None, 0, slice(1, 3)),
                  (x > 5,), (np.array([True, False, True]),), (True,), ()]:
        want = x.copy()
        want[index] = -1.0
        np.testing.assert_array_equal(fnp.at(x)[index].set(-1.0), want)
        np.testing.assert_array_equal(fnp.at(x)[index].get(), x[index])
    assert fnp.at(np.float64(2.0))[()].add(1.0) == 3.0


def test_divide_and_power_as_jax():
    x = np.array([8.0, 2.0, 3.0])
    assert fnp.at(x)[np.array([0, 0])].divide(2.0).tolist() == [2.0, 2.0, 3.0]
    assert fnp.at(x)[1].power(3.0).tolist() == [8.0, 8.0, 3.0]


def test_values_are_cast_to_x_dtype_and_float32_kept():
    assert fnp.at(np.arange(4))[0].add(1.7).tolist() == [1, 1, 2, 3]  # JAX: 1.7 -> 1
    out = fnp.at(np.ones(3, np.float32))[1].set(np.float64(2.0))
    assert out.dtype == np.float32
    g = fad.grad(lambda x: fnp.sum(x.at[0].mul(3.0)))(np.ones(3, np.float32))
    assert g.dtype == np.float32 and g.tolist() == [3.0, 1.0, 1.0]
    z = fnp.at(np.zeros(2, complex))[1].add(1j)
    assert z.tolist() == [0, 1j]


def test_modes():
    x = np.arange(4.0)
    i = np.array([-1, 5, 1])
    assert fnp.at(x)[i].get(mode="clip").tolist() == [3.0, 3.0, 1.0]
    assert fnp.at(x)[i].get(mode="fill", fill_value=-9.0).tolist() == [3.0, -9.0, 1.0]
    assert np.isnan(fnp.at(x)[7].get(mode="fill"))
    assert fnp.at(x)[i].add(10.0, mode="drop").tolist() == [0.0, 11.0, 2.0, 13.0]
    assert fnp.at(x)[i].set(10.0, mode="clip").tolist() == [0.0, 10.0, 2.0, 10.0]
    assert fnp.at(x)[9].set(10.0, mode="drop").tolist() == x.tolist()
    assert fnp.at(x)[1].set(5.0, mode="promise_in_bounds", indices_are_sorted=True,
                            unique_indices=True).tolist() == [0.0, 5.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="mode='wrap' is not one of"):
        fnp.at(x)[0].set(1.0, mode="wrap")
    with pytest.raises(IndexError):
        fnp.at(x)[i].set(1.0)
    # a static out-of-range index: NumPy's IndexError eagerly, under jit and grad
    with pytest.raises(IndexError):
        x.copy()[5] = 1.0
    for f in (lambda x: fnp.at(x)[5].set(1.0), lambda x: fnp.at(x)[-5].add(1.0),
              lambda x: x[5], fad.jit(lambda x: x.at[5].set(1.0)),
              fad.grad(lambda x: x.at[5].get() * 2.0)):
        with pytest.raises(IndexError, match="out of bounds"):
            f(x)
    # traced indices under jit: out-of-range updates dropped
    f = fad.jit(lambda x, i: x.at[i].add(10.0, mode="drop"))
    assert f(x, i).tolist() == [0.0, 11.0, 2.0, 13.0]
    g = fad.grad(lambda x: fnp.sum(x.at[i].mul(2.0, mode="drop") ** 2))(x)
    np.testing.assert_allclose(g, [0.0, 8.0, 4.0, 24.0])


def test_values_must_broadcast():
    with pytest.raises(ValueError):
        fnp.at(np.zeros(3))[np.array([0, 1])].set(np.ones(3))


def test_unsupported_mutators_point_to_at():
    for fn in (fnp.put, fnp.put_along_axis, fnp.fill_diagonal, fnp.place, fnp.putmask,
               fnp.copyto):
        with pytest.raises(NotImplementedError, match=r"x\.at\[idx\]\.set\(v\)"):
            fn(np.zeros(3), 0, 1.0)


# ---------------------------------------------------------------- derivatives
X = np.array([1.0, -2.0, 3.0, 0.5])
I_REP = np.array([0, 2, 0])
V = np.array([2.0, 5.0, -1.0])


def loss(method, x, v, index=I_REP, **kw):
    return fnp.sum(getattr(fnp.at(x)[index], method)(v, **kw) * np.arange(1.0, 5.0))


def test_set_derivatives_follow_the_last_write():
    gx, gv = fad.grad(lambda x, v: loss("set", x, v), (0, 1))(X, V)
    assert gx.tolist() == [0.0, 2.0, 0.0, 4.0]
    assert gv.tolist() == [0.0, 3.0, 1.0]  # v[0] is overwritten by v[2]
    fad.check_grads(lambda x, v: loss("set", x, v) ** 2, (X, V), order=2)


def test_add_multiply_min_max_derivatives_to_second_order():
    for method in ("add", "min", "max"):
        fad.check_grads(lambda x, v: loss(method, x, v) ** 2, (X, V), order=2)
    fad.check_grads(lambda x: loss("multiply", x, V) ** 2, (X,), order=2)
    fad.check_grads(lambda x, v: loss("multiply", x, v, np.array([3, 1])) ** 2,
                    (X, V[:2]), order=2)
    fad.check_grads(lambda x, v: loss("divide", x, v, np.array([3, 1])) ** 2,
                    (X, V[:2]), order=2)


def test_multiply_derivative_in_values_with_repeats_raises_as_jax():
    with pytest.raises(NotImplementedError, match="unique_indices=True"):
        fad.jit(fad.grad(lambda v, i: fnp.sum(fnp.at(X)[i].multiply(v))))(V, I_REP)
    # concrete indices that repeat: the same message
    with pytest.raises(NotImplementedError, match="unique_indices=True"):
        fad.grad(lambda v: loss("multiply", X, v))(V)
    g = fad.jit(fad.grad(lambda v, i: fnp.sum(fnp.at(X)[i].multiply(v, unique_indices=True))))(
        V[:2], np.array([3, 1]))
    assert g.tolist() == [0.5, -2.0]


def test_min_max_ties_share_the_derivative():
    x = np.array([1.0, 2.0])
    g = fad.grad(lambda v: fnp.sum(fnp.at(x)[np.array([0, 0, 1])].max(v)))(
        np.array([1.0, 0.0, 5.0]))
    assert g.tolist() == [0.5, 0.0, 1.0]  # v[0] ties x[0]: half each
    g = fad.grad(lambda v: fnp.sum(fnp.at(x)[np.array([1, 1])].min(v)))(np.array([0.0, 0.0]))
    assert g.tolist() == [0.5, 0.5]


@pytest.mark.parametrize("method", ["set", "add", "multiply", "min", "max"])
def test_derivatives_match_jax(method):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    index = np.array([3, 1]) if method == "multiply" else I_REP
    v = V[:len(index)]
    w = np.arange(1.0, 5.0)
    kw = {"unique_indices": True} if method == "multiply" else {}

    def jloss(x, v):
        return jnp.sum(getattr(x.at[index], method)(v, **kw) ** 2 * w)

    def floss(x, v):
        return fnp.sum(getattr(x.at[index], method)(v, **kw) ** 2 * w)
    want = jax.grad(jloss, (0, 1))(jnp.asarray(X), jnp.asarray(v))
    got = fad.grad(floss, (0, 1))(X, v)
    for g, j in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(j), rtol=1e-12)
    ones = (np.ones_like(X), np.ones_like(v))
    _, t = fad.jvp(floss, (X, v), ones)
    _, tj = jax.jvp(jloss, (jnp.asarray(X), jnp.asarray(v)), tuple(map(jnp.asarray, ones)))
    np.testing.assert_allclose(t, float(tj), rtol=1e-12)


# ---------------------------------------------------------------- vmap
@pytest.mark.parametrize("method", ["set", "add", "multiply", "min", "max", "get"])
def test_vmap_every_combination_of_batched_operands(method):
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(3, 4, 2))
    idx = np.array([[0, 2, 0], [3, -1, 1], [1, 1, 2]])
    vs = rng.normal(size=(3, 3, 2))

    def f(x, i, v):
        ref = fnp.at(x)[i, :]
        return ref.get() + 0 * fnp.sum(v) if method == "get" else getattr(ref, method)(v)
    check_every_batching(f, (xs, idx, vs))


def test_vmap_of_grad_through_set():
    idx = np.array([[0, 0], [1, 3]])
    g = fad.vmap(fad.grad(lambda v, i: fnp.sum(fnp.at(np.arange(4.0))[i].set(v) ** 2)))(
        np.ones((2, 2)), idx)
    assert g.tolist() == [[0.0, 2.0], [2.0, 2.0]]


# ---------------------------------------------------------------- jit
@pytest.mark.parametrize("method", ["set", "add", "multiply", "min", "max"])
def test_jit_updates_a_dead_buffer_in_place(method):
    i = np.array([0, 2, 0])
    inner = fad.jit(lambda x: getattr(fnp.sin(x).at[i], method)(1.0))
    src = inner.source(X)
    assert "out=v0_0" in src, src  # sin(x)'s buffer is written, not copied
    np.testing.assert_allclose(inner(X), numpy_update(method, np.sin(X), i, 1.0))
    # an argument is never written: the kernel copies it
    outer = fad.jit(lambda x: getattr(x.at[i], method)(1.0))
    assert "out=a0" not in outer.source(X)
    x = X.copy()
    outer(x)
    np.testing.assert_array_equal(x, X)


def test_jit_keeps_a_buffer_that_is_read_later():
    f = fad.jit(lambda x: (lambda y: y.at[0].set(9.0) + y)(fnp.sin(x)))
    assert "out=v0_0" not in f.source(X).splitlines()[1]
    np.testing.assert_allclose(f(X), numpy_update("set", np.sin(X), 0, 9.0) + np.sin(X))
