"""Property tests driven by the operator table: every entry, float32 and float64.

(a) first and second derivatives, forward and reverse, against finite
differences (``fad.check_grads``); (b) ``<u, J v>`` from ``jvp`` equals
``<J^T u, v>`` from ``vjp``; (c) Hessians of scalarised functions are symmetric;
(d) float32 in gives float32 values and derivatives; (e) values (and dtypes)
equal NumPy's on the same inputs. Plus 0-d and empty-array inputs.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from operator_table import FLOATS, OPS, examples, ops_with

import fad
import fad.numpy as fnp

dtypes = pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)


def table(kind: str = "any") -> pytest.MarkDecorator:
    return pytest.mark.parametrize("op", ops_with(kind), ids=str)


def rand_like(rng: np.random.Generator, x: object, dtype: object) -> np.ndarray:
    return rng.standard_normal(np.shape(x)).astype(dtype)


def value_tol(dtype: object) -> dict:
    return {"rtol": 2e-6, "atol": 2e-6} if np.dtype(dtype) == np.float32 else \
        {"rtol": 1e-12, "atol": 1e-12}


def assert_same_values(got: object, want: object, dtype: object) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    np.testing.assert_allclose(got, want, **value_tol(dtype))


# ---------------------------------------------------------------- (a)
@dtypes
@table()
@given(data=st.data())
def test_check_grads_order_2(op, dtype, data):
    ex = data.draw(examples(op, dtype))
    tol = op.check_tol(dtype)
    fad.check_grads(ex.fad, ex.arrays, order=2, modes=("fwd", "rev"), atol=tol, rtol=tol)


# ---------------------------------------------------------------- (b)
@dtypes
@table()
@given(data=st.data())
def test_jvp_vjp_agree(op, dtype, data):
    ex = data.draw(examples(op, dtype))
    rng = np.random.default_rng(1)
    v = [rand_like(rng, x, dtype) for x in ex.arrays]
    out, jv = fad.jvp(ex.fad, ex.arrays, v)
    out2, f_vjp = fad.vjp(ex.fad, *ex.arrays)
    u = rand_like(rng, out, dtype)
    ju = f_vjp(u)
    np.testing.assert_array_equal(out, out2)
    assert len(ju) == len(ex.arrays)
    assert [np.shape(g) for g in ju] == [x.shape for x in ex.arrays]
    lhs = np.sum(u * np.asarray(jv, np.float64))
    rhs = sum(np.sum(np.asarray(g, np.float64) * vi) for g, vi in zip(ju, v))
    scale = np.sum(np.abs(u * jv)) + sum(np.sum(np.abs(g * vi)) for g, vi in zip(ju, v))
    assert abs(lhs - rhs) <= 50 * np.finfo(dtype).eps * (scale + 1), (lhs, rhs)


# ---------------------------------------------------------------- (c)
@dtypes
@table()
@given(data=st.data())
def test_hessian_symmetric(op, dtype, data):
    ex = data.draw(examples(op, dtype))
    w = rand_like(np.random.default_rng(2), ex.numpy(), dtype)
    n = len(ex.arrays)
    H = fad.hessian(lambda *xs: fnp.sum(ex.fad(*xs) * w), argnums=tuple(range(n)))(*ex.arrays)
    sizes = [x.size for x in ex.arrays]
    for i in range(n):
        for j in range(n):
            assert np.shape(H[i][j]) == ex.arrays[i].shape + ex.arrays[j].shape
            assert np.asarray(H[i][j]).dtype == dtype
    M = np.block([[np.reshape(H[i][j], (sizes[i], sizes[j])) for j in range(n)]
                  for i in range(n)]).astype(np.float64)
    tol = 1e-4 if np.dtype(dtype) == np.float32 else 1e-10
    np.testing.assert_allclose(M, M.T, rtol=tol, atol=tol * (1 + np.abs(M).max()))


# ---------------------------------------------------------------- (d)
@dtypes
@table()
@given(data=st.data())
def test_dtype_preserved(op, dtype, data):
    ex = data.draw(examples(op, dtype))
    n = len(ex.arrays)
    out = ex.fad(*ex.arrays)
    grads = fad.grad(lambda *xs: fnp.sum(ex.fad(*xs)), argnums=tuple(range(n)))(*ex.arrays)
    _, tangent = fad.jvp(ex.fad, ex.arrays, [np.ones_like(x) for x in ex.arrays])
    _, f_vjp = fad.vjp(ex.fad, *ex.arrays)
    cts = f_vjp(np.ones(np.shape(out), dtype))
    for name, value in [("output", out), ("tangent", tangent), *[
            ("gradient", g) for g in grads], *[("cotangent", c) for c in cts]]:
        assert np.asarray(value).dtype == dtype, f"{name} of {op.name} is {value.dtype}"


# ---------------------------------------------------------------- (e)
@dtypes
@table()
@given(data=st.data())
def test_values_match_numpy(op, dtype, data):
    ex = data.draw(examples(op, dtype))
    assert_same_values(ex.fad(*ex.arrays), ex.numpy(), dtype)


# ---------------------------------------------------------------- 0-d and empty
edge_cases = settings(max_examples=max(3, settings().max_examples // 2))


@dtypes
@table("scalar")
@edge_cases
@given(data=st.data())
def test_zero_dim(op, dtype, data):
    ex = data.draw(examples(op, dtype, "scalar"))
    assert all(x.shape == () for x in ex.arrays)
    assert_same_values(ex.fad(*ex.arrays), ex.numpy(), dtype)
    fad.check_grads(ex.fad, ex.arrays, order=2, atol=op.check_tol(dtype),
                    rtol=op.check_tol(dtype))
    g = fad.grad(lambda *xs: fnp.sum(ex.fad(*xs)))(*ex.arrays)
    assert (np.shape(g), np.asarray(g).dtype) == ((), dtype)


@dtypes
@table("empty")
@edge_cases
@given(data=st.data())
def test_empty(op, dtype, data):
    ex = data.draw(examples(op, dtype, "empty"))
    want = ex.numpy()
    assert_same_values(ex.fad(*ex.arrays), want, dtype)
    out, tangent = fad.jvp(ex.fad, ex.arrays, [np.ones_like(x) for x in ex.arrays])
    assert np.shape(tangent) == np.shape(want)
    cts = fad.vjp(ex.fad, *ex.arrays)[1](np.ones(np.shape(want), dtype))
    for x, ct in zip(ex.arrays, cts):
        assert (np.shape(ct), np.asarray(ct).dtype) == (x.shape, dtype)
        if math.prod(np.shape(want)) == 0:  # nothing flows back from an empty output
            assert not np.any(ct)


def test_table_covers_the_issue():
    """Every differentiable function named in the issue has an entry."""
    names = {op.name for op in OPS}
    required = set("""add subtract multiply divide negative power square sqrt exp log log1p
        expm1 sin cos tan arcsin arccos arctan arctan2 sinh cosh tanh abs sign maximum minimum
        where clip reciprocal sigmoid sum mean max min var std dot matmul einsum transpose
        reshape broadcast_to expand_dims squeeze concatenate stack take take_along_axis
        getitem_basic getitem_int_array getitem_mask""".split())
    assert required <= names, required - names


# ---------------------------------------------------------------- promotion
OPERANDS = {
    "f32": np.array([1.5, 2.0], np.float32), "f64": np.array([1.5, 2.0]),
    "i32": np.array([1, 2], np.int32), "i64": np.array([1, 2]),
    "bool": np.array([True, False]), "int": 2, "float": 2.5, "f32-0d": np.float32(1.5),
    "f64-0d": np.float64(0.5), "i64-0d": np.int64(3),
}
BINARY = ["add", "subtract", "multiply", "divide", "power", "maximum", "arctan2", "equal",
          "less", "logical_and"]


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
@pytest.mark.parametrize("b", list(OPERANDS))
@pytest.mark.parametrize("a", list(OPERANDS))
@pytest.mark.parametrize("name", BINARY)
def test_binary_promotion_like_numpy(name, a, b):
    x, y = OPERANDS[a], OPERANDS[b]
    try:
        want = getattr(np, name)(x, y)
    except Exception as e:  # NumPy refuses (e.g. bool - bool): so does fad
        with pytest.raises(type(e)):
            getattr(fnp, name)(x, y)
        return
    got = getattr(fnp, name)(x, y)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64))
    if np.asarray(x).dtype.kind == "f" and np.asarray(want).dtype.kind == "f":
        g = fad.grad(lambda x: fnp.sum(getattr(fnp, name)(x, y)))(x)
        assert np.asarray(g).dtype == np.asarray(x).dtype  # the input's dtype, as JAX
