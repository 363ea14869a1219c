"""The Dask backend: chunked ``dask.array`` data, NumPy weights, lazy gradients.

Every gradient here is built under a scheduler that refuses to run, so building
it computes nothing; it is then computed (locally, or on a ``distributed``
cluster started in the test) and compared with NumPy's to 1e-10. The operator
table's rows run on inputs in chunks of two (values, ``jvp`` against ``vjp``,
``jit`` against eager); those Dask cannot run are in ``NOT_ON_DASK`` with reasons.
"""

import os
from unittest import mock

import numpy as np
import pytest

import fad
import fad.numpy as fnp
from fad.backends import BackendMismatchError, get_backend, namespace_of

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")


def _refuse(*args, **kwargs):
    raise AssertionError("a Dask graph was computed while only being built")


@pytest.fixture
def lazy_only():
    """Within the test, computing any Dask graph fails."""
    with dask.config.set(scheduler=_refuse):
        yield


def _data(n=120, d=5, chunk=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (rng.random(n) > 0.5).astype(np.float64)
    w = rng.normal(size=d)
    return w, X, y, da.from_array(X, chunks=(chunk, d)), da.from_array(y, chunks=chunk)


def logistic_loss(w, X, y):
    """Mean logistic loss: softplus(z) - y z, with z = X w."""
    z = X @ w
    return fnp.mean(fnp.logaddexp(0.0, z) - y * z)


def mlp_loss(p, X, y):
    h = fnp.tanh(X @ p["W1"] + p["b1"])
    r = h @ p["W2"] + p["b2"] - y
    return fnp.mean(r ** 2) + 1e-3 * fnp.sum(p["W1"] ** 2)


def _mlp_params(d=5, hidden=8, seed=1):
    rng = np.random.default_rng(seed)
    return {"W1": rng.normal(size=(d, hidden)), "b1": rng.normal(size=hidden),
            "W2": rng.normal(size=hidden), "b2": np.asarray(0.3)}


def _is_dask(x):
    return isinstance(x, da.Array)


# ---------------------------------------------------------------- recognition
def test_dask_arrays_are_recognised_and_numpy_joins_them():
    x = da.ones((4, 2), chunks=(2, 2))
    xp = namespace_of([x])
    assert xp is get_backend("dask").xp
    assert namespace_of([np.ones(2), x]) is xp  # Dask's own rule: NumPy operands join
    assert namespace_of([x, np.ones(2)]) is xp


def test_dask_beside_another_backend_is_a_mismatch():
    strict = pytest.importorskip("array_api_strict")
    with pytest.raises(BackendMismatchError, match="dask"):
        namespace_of([da.ones(2, chunks=1), strict.ones(2)])


@pytest.mark.parametrize("name, ref", [
    ("asin", np.arcsin), ("acos", np.arccos), ("atan", np.arctan), ("asinh", np.arcsinh),
    ("atanh", np.arctanh), ("expm1", np.expm1), ("log1p", np.log1p)])
def test_the_standard_s_unary_names(name, ref):
    xn = np.linspace(-0.9, 0.9, 7)
    out = getattr(get_backend("dask").xp, name)(da.from_array(xn, chunks=3))
    assert _is_dask(out)
    np.testing.assert_allclose(out.compute(), ref(xn), rtol=1e-14)


def test_the_standard_s_other_names():
    xp = get_backend("dask").xp
    a = np.arange(6.0).reshape(2, 3) + 1
    x = da.from_array(a, chunks=(1, 3))
    np.testing.assert_allclose(xp.atan2(x, 2.0).compute(), np.arctan2(a, 2.0))
    np.testing.assert_allclose(xp.pow(x, 2).compute(), a ** 2)
    np.testing.assert_array_equal(xp.concat([x, x], axis=0).compute(), np.concatenate([a, a]))
    np.testing.assert_array_equal(xp.permute_dims(x, (1, 0)).compute(), a.T)
    np.testing.assert_array_equal(xp.matrix_transpose(x).compute(), a.T)
    assert xp.astype(x, xp.float32).dtype == np.float32
    np.testing.assert_allclose(xp.vecdot(x, x).compute(), (a * a).sum(-1))
    np.testing.assert_array_equal(
        xp.cumulative_sum(x, axis=1, include_initial=True).compute(),
        np.concatenate([np.zeros((2, 1)), np.cumsum(a, axis=1)], axis=1))
    np.testing.assert_array_equal(xp.cumulative_prod(x, axis=0).compute(),
                                  np.cumprod(a, axis=0))
    assert xp.isdtype(xp.float64, "real floating")


def test_set_backend_dask_makes_fad_s_arrays_dask_arrays():
    fad.set_backend("dask")
    try:
        made = [fnp.zeros(3), fnp.ones((2, 2)), fnp.eye(3, 2, k=1), fnp.linspace(0, 1, 3),
                fnp.arange(3.0), fnp.full((2,), 3.0), fnp.asarray([1.0, 2.0])]
    finally:
        fad.set_backend("numpy")
    assert all(_is_dask(a) for a in made)
    with dask.config.set(scheduler="sync"):
        np.testing.assert_array_equal(made[2].compute(), np.eye(3, 2, k=1))


def test_device_put_to_and_from_dask():
    y = fad.device_put(np.arange(4.0), "dask")
    assert _is_dask(y) and fad.device_put(y, "dask") is y
    with dask.config.set(scheduler="sync"):
        back = fad.device_put(y, "numpy")  # asked for: computed
    assert type(back) is np.ndarray
    np.testing.assert_array_equal(back, np.arange(4.0))


def test_per_example_gradients_with_vmap_are_lazy():
    w, Xn, yn, X, y = _data(n=40, chunk=10, seed=9)
    loss = lambda w, x, t: (fnp.dot(x, w) - t) ** 2
    per_example = fad.vmap(fad.grad(loss), in_axes=(None, 0, 0))
    with dask.config.set(scheduler=_refuse):
        g = per_example(w, X, y)
    assert _is_dask(g) and g.shape == (40, w.size)
    with dask.config.set(scheduler="sync"):
        np.testing.assert_allclose(g.compute(), per_example(w, Xn, yn), rtol=0, atol=1e-10)


# ---------------------------------------------------------------- what Dask cannot do lazily
def test_scatter_add_at_dask_index_arrays_is_refused_not_computed(lazy_only):
    b = get_backend("dask")
    with pytest.raises(NotImplementedError, match="scatter_add.*dask backend"):
        b.index_add((4,), np.float64, (da.zeros(2, dtype=int, chunks=1),),
                    da.ones(2, chunks=1))


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_scatter_add_at_numpy_index_arrays_is_lazy_and_sums_repeats(dtype, lazy_only):
    b = get_backend("dask")
    values = np.arange(1.0, 7.0).reshape(3, 2).astype(dtype) * (1 + 1j if dtype == np.complex128
                                                               else 1)
    index = (np.array([0, 2, 0]), slice(1, 3))
    out = b.index_add((3, 4), dtype, index, da.from_array(values, chunks=1))
    assert _is_dask(out) and out.dtype == dtype
    want = np.zeros((3, 4), dtype)
    np.add.at(want, index, values)
    with dask.config.set(scheduler="sync"):
        np.testing.assert_array_equal(out.compute(), want)


def test_gather_with_several_index_arrays_and_its_gradient_are_lazy():
    A = np.arange(12.0).reshape(3, 4)
    i, j = np.array([0, 2, 2]), np.array([1, 3, 3])
    f = lambda x: fnp.sum(x[i, j] ** 2)
    with dask.config.set(scheduler=_refuse):
        X = da.from_array(A, chunks=(1, 2))
        picked = fad.jit(lambda x: x[i, j])(X)
        g = fad.grad(f)(X)
    assert _is_dask(picked) and _is_dask(g)
    with dask.config.set(scheduler="sync"):
        np.testing.assert_array_equal(picked.compute(), A[i, j])
        np.testing.assert_array_equal(g.compute(), fad.grad(f)(A))


def test_special_functions_map_over_chunks_lazily(lazy_only):
    import fad.scipy.special as special
    scipy_special = pytest.importorskip("scipy.special")
    xn = np.linspace(0.5, 3.0, 6)
    x = da.from_array(xn, chunks=2)
    out = special.polygamma(1, x)  # not a ufunc in SciPy
    g = fad.grad(lambda x: fnp.sum(special.gammaln(x)))(x)
    assert _is_dask(out) and _is_dask(g)
    with dask.config.set(scheduler="sync"):
        np.testing.assert_allclose(out.compute(), scipy_special.polygamma(1, xn), rtol=1e-13)
        np.testing.assert_allclose(g.compute(), scipy_special.digamma(xn), rtol=1e-13)


def test_sort_is_refused_naming_the_primitive_and_backend(lazy_only):
    x = da.ones(4, chunks=2)
    with pytest.raises(NotImplementedError, match="sort primitive.*dask backend"):
        fnp.sort(x)


def test_basic_index_add_is_lazy(lazy_only):
    b = get_backend("dask")
    out = b.index_add((2, 4), np.float64, (slice(None), slice(1, 3)),
                      da.ones((2, 2), chunks=1))
    assert _is_dask(out)
    with dask.config.set(scheduler="sync"):
        np.testing.assert_array_equal(out.compute(), [[0, 1, 1, 0], [0, 1, 1, 0]])


# ---------------------------------------------------------------- lazy gradients
def test_logistic_regression_gradient_is_lazy_and_matches_numpy():
    w, Xn, yn, X, y = _data()
    want = fad.grad(logistic_loss)(w, Xn, yn)
    with dask.config.set(scheduler=_refuse):
        g = fad.grad(logistic_loss)(w, X, y)
        value = logistic_loss(w, X, y)
    assert _is_dask(g) and _is_dask(value) and g.shape == w.shape
    with dask.config.set(scheduler="sync"):
        np.testing.assert_allclose(g.compute(), want, rtol=0, atol=1e-10)
        np.testing.assert_allclose(value.compute(), logistic_loss(w, Xn, yn), atol=1e-10)


def test_jit_of_the_gradient_is_lazy_and_matches_numpy():
    w, Xn, yn, X, y = _data(seed=3)
    want = fad.grad(logistic_loss)(w, Xn, yn)
    f = fad.jit(fad.grad(logistic_loss))
    with dask.config.set(scheduler=_refuse):
        g1 = f(w, X, y)
        g2 = f(w + 1.0, X, y)
    assert _is_dask(g1) and _is_dask(g2) and f.trace_count == 1
    with dask.config.set(scheduler="sync"):
        np.testing.assert_allclose(g1.compute(), want, rtol=0, atol=1e-10)
        np.testing.assert_allclose(g2.compute(), fad.grad(logistic_loss)(w + 1.0, Xn, yn),
                                   rtol=0, atol=1e-10)


@pytest.mark.parametrize("jit", [False, True])
def test_mlp_gradient_is_lazy_and_matches_numpy(jit):
    _, Xn, _, X, _ = _data(seed=5)
    yn = np.sin(Xn[:, 0])
    y = da.from_array(yn, chunks=30)
    p = _mlp_params()
    want = fad.grad(mlp_loss)(p, Xn, yn)
    f = fad.jit(fad.grad(mlp_loss)) if jit else fad.grad(mlp_loss)
    with dask.config.set(scheduler=_refuse):
        g = f(p, X, y)
    assert all(_is_dask(v) for v in g.values())
    with dask.config.set(scheduler="sync"):
        (got,) = dask.compute(g)
    for k in p:
        np.testing.assert_allclose(got[k], want[k], rtol=0, atol=1e-10)


# ---------------------------------------------------------------- on a cluster
def test_gradient_computed_on_a_local_distributed_cluster():
    distributed = pytest.importorskip("distributed")
    w, Xn, yn, X, y = _data(n=200, chunk=50, seed=7)
    want = fad.grad(logistic_loss)(w, Xn, yn)
    with dask.config.set(scheduler=_refuse):
        g = fad.grad(logistic_loss)(w, X, y)
    # (distributed's nanny writes MALLOC_TRIM_THRESHOLD_ into this process's
    # environment for its workers, which would leave fad's malloc tuning to "the
    # user" in the tests after this one: the environment is restored on exit)
    with mock.patch.dict(os.environ), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                     processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        got = client.compute(g).result()
        assert len(client.scheduler_info()["workers"]) == 2
    assert type(got) is np.ndarray
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-10)


# ---------------------------------------------------------------- the operator table
# Rows that do not run on Dask, each with its reason.
_NO_SORT = "dask.array has no sort (fad raises NotImplementedError naming sort and dask)"
_NO_LINALG = "dask.array.linalg has no {} (fad raises NotImplementedError naming it)"
NOT_ON_DASK = {
    "odeint": ("each eager solver step (and the adjoint's) adds its tasks to Dask's graph "
               "and slices it: one solve takes minutes (the other backends run it)"),
    **dict.fromkeys(["sort", "partition", "median", "quantile", "top_k", "lax_sort_multi"],
                    _NO_SORT),
    **dict.fromkeys(["eig", "eigvals", "roots"], _NO_LINALG.format("eig")),
    **dict.fromkeys(["multivariate_normal_logpdf", "multivariate_normal_pdf"],
                    "dask.array.linalg's cholesky takes square chunks only (the row's "
                    "covariance is chunked in 2 x 2 blocks of a 3 x 3 matrix)"),
    "polyfit": ("polyfit solves through pinv, whose svd dask.array.linalg takes only on "
                "arrays chunked along one axis (the row's square inputs are chunked along two)"),
    **dict.fromkeys(["lu", "lu_solve", "sqrtm"], "computed by scipy.linalg on NumPy arrays "
                    "(fad raises NotImplementedError on other backends)"),
    **dict.fromkeys(["cummax", "cummin"], "the derivative gathers at the running arg-max, "
                    "an index array computed from the data (a Dask array), which fad's "
                    "gather on Dask refuses rather than compute"),
    "det": _NO_LINALG.format("det"), "slogdet": _NO_LINALG.format("slogdet"),
    **dict.fromkeys(["eigh", "eigvalsh"], _NO_LINALG.format("eigh")),
    "getitem_int_array": ("the row indexes the input with several index arrays itself; "
                          "on a concrete input that is dask.array's own __getitem__, which "
                          "takes one index array only (fad's gather takes several)"),
}


def _dask_rows():
    from operator_table import OPS
    return [op for op in OPS if op.name not in NOT_ON_DASK]


@pytest.mark.parametrize("op", _dask_rows(), ids=str)
def test_operator_table_values_derivatives_and_jit_on_dask(op):
    """Each row on inputs in chunks of two: values against NumPy, ``jvp`` against
    ``vjp``, ``jit`` against eager; every result stays a Dask array."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from operator_table import Example, examples, jit_law, jvp_vjp_law, values_law
    xp = get_backend("dask").xp

    @settings(max_examples=1)
    @given(st.data())
    def run(data):
        ex = data.draw(examples(op, np.float64))
        ex = Example(op, [da.from_array(a, chunks=2) for a in ex.arrays], ex.params, xp)
        with dask.config.set(scheduler="sync"):
            values_law(ex, np.float64)
            jvp_vjp_law(ex, np.float64)
            jit_law(ex, np.float64)
    run()


def test_the_dask_opt_outs_are_rows_with_reasons():
    from operator_table import BY_NAME
    assert set(NOT_ON_DASK) <= set(BY_NAME)
    assert all(len(why) > 10 for why in NOT_ON_DASK.values())
