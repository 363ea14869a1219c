"""``fad.pure_callback``: a host function on concrete NumPy arrays, eagerly, in
jit's generated code (called at every run, never while tracing), under each
``vmap_method`` (against a loop), inside a ``custom_vjp`` (gradients against
finite differences), on another backend; and the errors: differentiation,
``vmap`` without a method, results of the wrong shape, dtype or structure."""

import numpy as np
import pytest

import fad
import fad.numpy as fnp

X = np.array([0.5, -1.25, 2.0])
F3 = fad.ShapedArray((3,), "float64")


def host_scale(x, k):
    """NumPy only: broadcasts ``k`` against the last axis of ``x``."""
    assert type(x) is np.ndarray and type(k) is np.ndarray
    return np.sin(x) * k[..., None]


def test_eager_and_pytrees():
    got = fad.pure_callback(lambda d: {"s": np.sum(d["x"]), "p": d["x"] * 2},
                            {"s": fad.ShapedArray((), "float64"), "p": F3}, {"x": X})
    assert float(got["s"]) == X.sum()
    np.testing.assert_array_equal(got["p"], 2 * X)
    # keyword arguments and Python scalars reach the callback as NumPy arrays
    got = fad.pure_callback(lambda x, k: host_scale(x, k), F3, X, k=2.0)
    np.testing.assert_array_equal(got, np.sin(X) * 2.0)


def test_jit_calls_it_at_run_time_only():
    calls = []

    def host(x):
        calls.append(x.copy())
        return np.cumsum(x)
    f = fad.jit(lambda x: fad.pure_callback(host, F3, x * 2.0) + 1.0)
    closed = fad.make_jaxpr(lambda x: fad.pure_callback(host, F3, x))(X)
    assert "pure_callback" in str(closed) and calls == []
    np.testing.assert_array_equal(f(X), np.cumsum(2 * X) + 1)
    np.testing.assert_array_equal(f(X + 1), np.cumsum(2 * X + 2) + 1)
    assert len(calls) == 2 and f.trace_count == 1
    assert fad.eval_shape(lambda x: fad.pure_callback(host, F3, x), X) == F3
    assert len(calls) == 2


@pytest.mark.parametrize("method", ["sequential", "expand_dims", "broadcast_all"])
@pytest.mark.parametrize("jit", [False, True])
def test_vmap_methods_match_a_loop(method, jit):
    seen = []

    def host(x, k):
        seen.append((x.shape, k.shape))
        return host_scale(x, k)
    xs, k = np.arange(6.0).reshape(2, 3), np.float64(3.0)
    f = fad.vmap(lambda x, k: fad.pure_callback(host, F3, x, k, vmap_method=method),
                 in_axes=(0, None))
    got = (fad.jit(f) if jit else f)(xs, k)
    np.testing.assert_array_equal(got, np.stack([np.sin(x) * k for x in xs]))
    want = {"sequential": [((3,), ())] * 2, "expand_dims": [((2, 3), (1,))],
            "broadcast_all": [((2, 3), (2,))]}[method]
    assert seen == want
    # nested vmap, both arguments batched
    ks = np.array([1.0, 2.0])
    got = fad.vmap(fad.vmap(lambda x, k: fad.pure_callback(host, F3, x, k, vmap_method=method)),
                   in_axes=(None, 0))(xs, np.stack([ks, -ks]))
    want = np.stack([[np.sin(x) * s * kk for x, kk in zip(xs, ks)] for s in (1, -1)])
    np.testing.assert_allclose(got, want, rtol=1e-15)


def test_differentiable_through_a_custom_vjp():
    @fad.custom_vjp
    def host_cube(x):
        return fad.pure_callback(lambda x: x ** 3, fad.ShapedArray(x.shape, x.dtype), x,
                                 vmap_method="sequential")
    host_cube.defvjp(lambda x: (host_cube(x), x), lambda x, g: (3 * x ** 2 * g,))
    fad.check_grads(lambda x: fnp.sum(fnp.sin(host_cube(x))), (X,), order=1, modes=("rev",))
    g = fad.jit(fad.grad(lambda x: fnp.sum(host_cube(x))))(X)
    np.testing.assert_allclose(g, 3 * X ** 2)
    per = fad.vmap(fad.grad(lambda x: fnp.sum(host_cube(x))))(np.stack([X, 2 * X]))
    np.testing.assert_allclose(per, [3 * X ** 2, 12 * X ** 2])


def test_the_callback_may_use_fad_on_its_arrays():
    # under grad and jit alike, the callback sees plain arrays and no transformation
    def host(x):
        g = fad.grad(lambda y: fnp.sum(fnp.tanh(y)))(x)
        assert type(g) is np.ndarray
        return g
    f = lambda x: fnp.sum(fad.stop_gradient(fad.pure_callback(host, F3, x)) * x)
    want = np.sum((1 - np.tanh(X) ** 2) * X)
    assert np.isclose(float(fad.jit(f)(X)), want)
    np.testing.assert_allclose(fad.grad(f)(X), 1 - np.tanh(X) ** 2)


def test_other_backend_is_copied_to_the_host_and_back():
    xp = pytest.importorskip("array_api_strict")
    got = fad.pure_callback(np.cumsum, F3, xp.asarray(X))
    assert isinstance(got, type(xp.asarray(X)))
    np.testing.assert_array_equal(np.asarray(got), np.cumsum(X))


def test_errors():
    with pytest.raises(TypeError, match="cannot be differentiated.*custom_jvp or fad.custom_vjp"):
        fad.grad(lambda x: fnp.sum(fad.pure_callback(np.sin, F3, x)))(X)
    with pytest.raises(TypeError, match="cannot be differentiated"):
        fad.jvp(lambda x: fad.pure_callback(np.sin, F3, x), (X,), (X,))
    with pytest.raises(NotImplementedError, match="vmap_method='sequential'"):
        fad.vmap(lambda x: fad.pure_callback(np.sin, F3, x))(np.ones((2, 3)))
    with pytest.raises(ValueError, match="vmap_method must be one of"):
        fad.pure_callback(np.sin, F3, X, vmap_method="loop")
    with pytest.raises(TypeError, match=r"shape \(3,\) and dtype float64, expected shape "
                                        r"\(4,\) and dtype float64"):
        fad.pure_callback(np.sin, fad.ShapedArray((4,), "float64"), X)
    with pytest.raises(TypeError, match="dtype float64, expected shape .* dtype float32"):
        fad.jit(lambda x: fad.pure_callback(np.sin, fad.ShapedArray((3,), "float32"), x))(X)
    with pytest.raises(TypeError, match="structured as"):
        fad.pure_callback(np.sin, (F3,), X)
    with pytest.raises(TypeError, match="shape and a dtype"):
        fad.pure_callback(np.sin, (3,), X)
    with pytest.raises(TypeError, match="callback must be callable"):
        fad.pure_callback(None, F3, X)


def test_a_traced_value_closed_over_is_an_error():
    def f(k):
        return fnp.sum(fad.pure_callback(lambda x: x * k, F3, X))
    with pytest.raises(TypeError, match="traced value"):
        fad.jvp(f, (2.0,), (1.0,))
