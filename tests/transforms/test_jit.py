"""``fad.jit``: tracing once per signature, the cache and ``trace_count``,
``static_argnums``, the optimised IR (``lower``), the generated code
(``source``), equality with eager evaluation, and composition with the other
transformations.
"""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from operator_table import FLOATS, OPS, examples

import fad
import fad.numpy as fnp


def assert_same(got, want, rtol=1e-12, atol=0.0):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def prims(closed):
    return [e.primitive.name for e in closed.eqns]


# ============================================================ caching
def test_traces_once_and_reruns_the_cached_program():
    calls = []

    def f(x):
        calls.append(1)  # a Python side effect runs at trace time only
        return fnp.sum(fnp.sin(x) ** 2)

    jf = fad.jit(f)
    assert jf.trace_count == 0
    for k in range(4):
        x = np.linspace(0, 1, 3) + k
        assert_same(jf(x), np.sum(np.sin(x) ** 2))
    assert jf.trace_count == 1
    assert len(calls) == 1


def test_retraces_on_shape_change_only():
    jf = fad.jit(lambda x: x * 2.0)
    jf(np.ones(3))
    jf(np.zeros(3))
    assert jf.trace_count == 1
    jf(np.ones(4))
    assert jf.trace_count == 2
    jf(np.ones((4, 1)))
    assert jf.trace_count == 3
    jf(np.ones(3))  # back to the first signature: cached
    assert jf.trace_count == 3


def test_retraces_on_dtype_change_and_keeps_dtypes():
    jf = fad.jit(lambda x: fnp.exp(x) * 2.0 + 1.0)
    assert jf(np.ones(3, np.float64)).dtype == np.float64
    assert jf(np.ones(3, np.float32)).dtype == np.float32
    assert jf.trace_count == 2
    jf(np.ones(3, np.float32) * 5)
    assert jf.trace_count == 2
    assert jf(np.ones(3, np.int64)).dtype == np.float64
    assert jf.trace_count == 3


def test_python_scalars_of_one_type_share_a_signature():
    jf = fad.jit(lambda x, y: x * y)
    assert float(jf(2.0, 3.0)) == 6.0
    assert float(jf(4.0, 0.5)) == 2.0
    assert jf.trace_count == 1
    jf(2, 3.0)  # an int: another dtype, another trace
    assert jf.trace_count == 2


def test_retraces_on_pytree_structure_change():
    jf = fad.jit(lambda t: t["a"] * t["b"][0] + t["b"][-1])
    x = np.arange(3.0)
    assert_same(jf({"a": x, "b": (x, x)}), x * x + x)
    jf({"a": x + 1, "b": (x, x * 2)})
    assert jf.trace_count == 1
    assert_same(jf({"a": x, "b": [x, x]}), x * x + x)      # tuple -> list
    assert jf.trace_count == 2
    assert_same(jf({"a": x, "b": (x, x, x)}), x * x + x)   # one more leaf
    assert jf.trace_count == 3
    jf({"a": x, "b": [x, x]})
    assert jf.trace_count == 3


def test_pytree_outputs_keep_their_structure():
    jf = fad.jit(lambda x: {"s": fnp.sum(x), "p": (x * 2, [x[0], None])})
    out = jf(np.arange(3.0))
    assert set(out) == {"p", "s"}
    assert float(out["s"]) == 3.0
    assert_same(out["p"][0], np.arange(3.0) * 2)
    assert isinstance(out["p"][1], list) and out["p"][1][1] is None
    assert float(out["p"][1][0]) == 0.0


def test_static_argnums_int():
    def f(x, n):
        for _ in range(n):   # Python control flow on a static argument
            x = fnp.sin(x)
        return x

    jf = fad.jit(f, static_argnums=1)
    x = np.linspace(0, 1, 3)
    assert_same(jf(x, 2), np.sin(np.sin(x)))
    assert_same(jf(x + 1, 2), np.sin(np.sin(x + 1)))
    assert jf.trace_count == 1
    assert_same(jf(x, 3), np.sin(np.sin(np.sin(x))))
    assert jf.trace_count == 2
    assert len(jf.lower(x, 3).eqns) == 3
    jf(x, 2)
    assert jf.trace_count == 2


def test_static_argnums_tuple_and_string_values():
    def f(mode, x, scale):
        return (fnp.sin(x) if mode == "sin" else fnp.cos(x)) * scale

    jf = fad.jit(f, static_argnums=(0, 2))
    x = np.linspace(0, 1, 4)
    assert_same(jf("sin", x, 2.0), np.sin(x) * 2.0)
    assert_same(jf("cos", x, 2.0), np.cos(x) * 2.0)
    assert_same(jf("cos", x, 3.0), np.cos(x) * 3.0)
    assert jf.trace_count == 3
    jf("sin", x * 2, 2.0)
    assert jf.trace_count == 3
    # a static scale is a compile-time constant: it appears in the IR, not as an input
    closed = jf.lower("cos", x, 3.0)
    assert len(closed.jaxpr.invars) == 1
    assert "3.0" in str(closed)


def test_lower_does_not_retrace_a_cached_signature():
    jf = fad.jit(lambda x: fnp.tanh(x))
    jf(np.ones(2))
    closed = jf.lower(np.zeros(2))
    assert jf.trace_count == 1
    assert isinstance(closed, fad.ClosedJaxpr)
    assert prims(closed) == ["tanh"]


# ============================================================ the optimised IR
def test_lower_shows_the_optimised_ir():
    f = lambda x: fnp.sum(-(-(x * 1.0 + 0.0)) * fnp.sin(x) + fnp.sin(x))
    raw = fad.make_jaxpr(f)(np.ones(3))
    low = fad.jit(f).lower(np.ones(3))
    assert len(raw.eqns) >= 8 and "neg" in prims(raw)
    # x * 1, x + 0 and -(-x) are gone, the two sin(x) are one
    assert sorted(prims(low)) == ["add", "mul", "reduce_sum", "sin"]
    text = str(low)
    assert "1.0" not in text and "0.0" not in text
    assert text.startswith("{ lambda ; a:f64[3]. let")


def test_lower_of_a_gradient_drops_what_differentiation_left_behind():
    f = lambda x: fnp.sum(fnp.sin(x))
    raw = fad.make_jaxpr(fad.grad(f))(np.ones(3))
    assert "broadcast_to" in prims(raw)          # the seed cotangent, ones
    low = fad.jit(fad.grad(f)).lower(np.ones(3))
    assert prims(low) == ["cos"]                 # d/dx sum(sin x) = cos x, nothing else


def test_user_can_walk_the_lowered_ir():
    low = fad.jit(lambda x, y: fnp.sum(x @ y)).lower(np.ones((2, 3)), np.ones(3))
    assert [v.aval.shape for v in low.jaxpr.invars] == [(2, 3), (3,)]
    eqn = low.eqns[-1]
    assert eqn.primitive.name == "reduce_sum" and eqn.params["axes"] == (0,)
    assert low.jaxpr.outvars[0] is eqn.outvars[0]


# ============================================================ the generated code
def _assigned_and_deleted(src):
    assigned, deleted = [], set()
    for line in src.splitlines():
        m = re.match(r"\s+(v\d+_\d+(?:, v\d+_\d+)*),? = ", line)
        if m:
            assigned += m.group(1).split(", ")
        m = re.match(r"\s+del (.*)", line)
        if m:
            deleted.update(m.group(1).split(", "))
    returned = set(re.findall(r"v\d+_\d+", src.splitlines()[-1]))
    return assigned, deleted, returned


@pytest.mark.parametrize("f", [
    lambda x: fnp.sum(fnp.exp(fnp.sin(x) * x) + fnp.cos(x)),
    lambda x: (fnp.tanh(x) * 3.0 - x, fnp.sum(x ** 3)),
    lambda x: fnp.sin(x)[::-1] @ fnp.cos(x).T,
    fad.grad(lambda x: fnp.sum(fnp.sin(x) * fnp.exp(x))),
], ids=["chain", "two_outputs", "index_matmul", "grad"])
def test_source_releases_every_intermediate(f):
    x = np.linspace(0.1, 1, 4)
    jf = fad.jit(f)
    src = jf.source(x)
    assert src.startswith("def compiled(")
    assigned, deleted, returned = _assigned_and_deleted(src)
    assert assigned
    for name in assigned:
        assert name in deleted or name in returned, (name, src)
    got = jf(x)
    for g, w in zip(fad.tree.tree_leaves(got), fad.tree.tree_leaves(f(x))):
        assert_same(g, w)


def test_source_reuses_dead_buffers_with_out():
    f = lambda x: fnp.exp(fnp.sin(x) * x) + x
    jf = fad.jit(f)
    x = np.linspace(0, 1, 5)
    src = jf.source(x)
    assert "out=" in src and "del " in src
    # only a kernel's fresh intermediate is overwritten, never the caller's input
    for m in re.finditer(r"out=(\w+)", src):
        assert m.group(1).startswith("v"), src
    x0 = x.copy()
    r1 = jf(x)
    assert_same(x, x0)
    r1_copy = np.array(r1)
    r2 = jf(x + 1)                      # a second call does not clobber the first result
    assert_same(r1, r1_copy)
    assert_same(r1, np.exp(np.sin(x0) * x0) + x0)
    assert_same(r2, np.exp(np.sin(x0 + 1) * (x0 + 1)) + x0 + 1)


def test_out_is_not_used_for_outputs_or_for_different_shapes():
    # y is an output: later kernels must not write into it
    f = lambda x, s: (fnp.sin(x), fnp.sin(x) * 2.0 + fnp.sum(x * s))
    jf = fad.jit(f)
    x, s = np.linspace(0, 1, 3), np.float64(2.0)
    a, b = jf(x, s)
    assert_same(a, np.sin(x))
    assert_same(b, np.sin(x) * 2.0 + np.sum(x * 2.0))


def test_source_does_not_retrace():
    jf = fad.jit(lambda x: fnp.sin(x) + 1.0)
    jf(np.ones(3))
    jf.source(np.ones(3))
    assert jf.trace_count == 1


# ============================================================ jit == eager
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", OPS, ids=str)
@settings(derandomize=True, deadline=None, max_examples=1)
@given(data=st.data())
def test_jit_equals_eager_on_the_operator_table(op, dtype, data):
    """Every row of the operator table, in float32 and float64 (test_properties
    runs complex128): values, and the optimised gradient program."""
    ex = data.draw(examples(op, dtype))
    tol = 2e-6 if np.dtype(dtype) == np.float32 else 1e-12
    want = ex.fad(*ex.arrays)
    jf = fad.jit(ex.fad)
    got = jf(*ex.arrays)
    assert_same(got, want, rtol=tol, atol=tol)
    if not ex.arrays or np.size(want) == 0:
        return
    # and the gradient program, optimised, equals the eager gradient
    w = np.cos(np.arange(np.size(want))).reshape(np.shape(want)).astype(dtype)
    scalar = lambda *a: fnp.sum(ex.fad(*a) * w)
    nums = tuple(range(len(ex.arrays)))
    g_eager = fad.grad(scalar, argnums=nums)(*ex.arrays)
    g_jit = fad.jit(fad.grad(scalar, argnums=nums))(*ex.arrays)
    for a, b in zip(g_jit, g_eager):
        assert_same(a, b, rtol=10 * tol, atol=10 * tol)
    assert jf.trace_count == 1


@pytest.mark.parametrize("f", [
    lambda x: fnp.where(x > 0.5, x ** 2, -x) * 2.0,
    lambda x: fnp.max(x, axis=0) - fnp.min(x) + fnp.mean(x),
    lambda x: fnp.einsum("ij,kj->ik", x, x) + 0.0,
    lambda x: fnp.concatenate([x, x * 1.0], axis=0).T.reshape(-1),
    lambda x: fnp.sum(x[:, [0, 2, 2]] * x[1]) + x.astype(np.float32).sum(),
    lambda x: fad.nn.softmax(x, axis=-1) * fad.nn.logsumexp(x),
    lambda x: fnp.broadcast_to(fnp.sum(x), (3, 2)) + fnp.ones((3, 2)) * 0.0,
    lambda x: fnp.sqrt(fnp.sum(x * x)) / (fnp.abs(x) + 1.0),
], ids=["where", "reductions", "einsum", "concat_T_reshape", "int_index_astype",
        "softmax_lse", "broadcast_sum", "norm_abs"])
def test_jit_equals_eager(f):
    x = np.random.default_rng(0).normal(size=(2, 3))
    want = f(x)
    jf = fad.jit(f)
    assert_same(jf(x), want)
    assert_same(jf(x), want)  # the cached program again
    assert jf.trace_count == 1


# ============================================================ make_jaxpr and errors
def test_make_jaxpr_of_jit_shows_the_call():
    jf = fad.jit(lambda x: fnp.sum(fnp.sin(x) * x))
    closed = fad.make_jaxpr(jf)(np.ones(3))
    assert prims(closed) == ["jit"]
    inner = closed.eqns[0].params["jaxpr"]
    assert isinstance(inner, fad.ClosedJaxpr)
    assert prims(inner) == ["sin", "mul", "reduce_sum"]
    text = str(closed)
    assert "jit[" in text and "sin" in text


def test_make_jaxpr_of_a_function_calling_jit():
    inner = fad.jit(lambda x: x * 2.0)
    closed = fad.make_jaxpr(lambda x: fnp.sin(inner(x)))(1.0)
    assert prims(closed) == ["jit", "sin"]


def test_branching_on_a_traced_value_names_lax_cond():
    def f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(fad.ConcretizationError) as info:
        fad.jit(f)(1.0)
    assert isinstance(info.value, TypeError)
    assert "fad.lax.cond" in str(info.value)
    assert "static_argnums" in str(info.value)
    # without jit, tracing is concrete: Python control flow works
    assert float(fad.grad(f)(-2.0)) == -1.0


def test_loops_and_conversions_on_traced_values_raise():
    def loop(x):
        while x < 10:
            x = x * 2
        return x

    with pytest.raises(fad.ConcretizationError, match="fad.lax.while_loop"):
        fad.jit(loop)(1.0)
    with pytest.raises(fad.ConcretizationError):
        fad.jit(lambda x: float(x) * 2)(1.0)
    with pytest.raises(fad.ConcretizationError):
        fad.make_jaxpr(lambda x: int(x))(1.0)


def test_static_argument_makes_branching_legal():
    jf = fad.jit(lambda x, flag: x * 2 if flag else -x, static_argnums=1)
    assert float(jf(3.0, True)) == 6.0
    assert float(jf(3.0, False)) == -3.0


# ============================================================ composition
def _f(x):
    return fnp.sum(fnp.sin(x) * fnp.exp(x * 0.5))


def _df(x):
    return np.cos(x) * np.exp(x * 0.5) + 0.5 * np.sin(x) * np.exp(x * 0.5)


X = np.linspace(-1, 1, 5)


def test_jit_of_grad():
    jg = fad.jit(fad.grad(_f))
    assert_same(jg(X), _df(X))
    assert_same(jg(X + 1), _df(X + 1))
    assert jg.trace_count == 1


def test_grad_of_jit():
    jf = fad.jit(_f)
    assert_same(fad.grad(jf)(X), _df(X))
    assert_same(fad.grad(jf)(X * 2), _df(X * 2))


def test_jvp_vjp_hessian_of_jit():
    jf = fad.jit(_f)
    _, t = fad.jvp(jf, (X,), (np.ones(5),))
    np.testing.assert_allclose(t, _df(X).sum(), rtol=1e-12)
    out, pull = fad.vjp(jf, X)
    assert_same(pull(np.float64(2.0))[0], 2 * _df(X))
    h = fad.hessian(jf)(X)
    np.testing.assert_allclose(h, fad.hessian(_f)(X), rtol=1e-12, atol=1e-14)
    assert_same(fad.jit(fad.hessian(_f))(X), fad.hessian(_f)(X), atol=1e-14)


def test_grad_of_grad_of_jit_and_jit_of_grad_of_grad():
    f = lambda x: fnp.sin(x) * x
    want = -np.sin(0.3) * 0.3 + 2 * np.cos(0.3)
    assert float(fad.grad(fad.grad(fad.jit(f)))(0.3)) == pytest.approx(want, rel=1e-12)
    assert float(fad.jit(fad.grad(fad.grad(f)))(0.3)) == pytest.approx(want, rel=1e-12)


def test_jit_inside_jit():
    inner = fad.jit(lambda x: fnp.sin(x) * 2.0)
    outer = fad.jit(lambda x: inner(x) + inner(x * 3.0))
    assert_same(outer(X), np.sin(X) * 2 + np.sin(X * 3) * 2)
    assert outer.trace_count == 1 and inner.trace_count == 1
    low = outer.lower(X)
    assert "jit" not in prims(low)          # nested calls are inlined
    assert prims(low).count("sin") == 2
    outer(X + 1)
    assert outer.trace_count == 1 and inner.trace_count == 1
    assert_same(fad.grad(lambda x: fnp.sum(outer(x)))(X), 2 * np.cos(X) + 6 * np.cos(3 * X))


def test_closure_over_an_outer_tracer():
    x = 2.0
    g = fad.grad(lambda y: fad.jit(lambda x: x * y)(x))
    assert float(g(3.0)) == 2.0
    h = fad.grad(lambda y: fad.jit(lambda x: fnp.sin(x * y))(x))
    assert float(h(3.0)) == pytest.approx(2 * np.cos(6.0), rel=1e-12)
    assert float(h(0.5)) == pytest.approx(2 * np.cos(1.0), rel=1e-12)
    # under vmap and jvp too
    ys = np.array([1.0, 2.0, 3.0])
    assert_same(fad.vmap(lambda y: fad.jit(lambda x: x * y)(2.0))(ys), 2 * ys)
    _, t = fad.jvp(lambda y: fad.jit(lambda x: x * y * y)(2.0), (3.0,), (1.0,))
    assert float(t) == 12.0


def test_closure_over_an_outer_tracer_with_a_reused_jitted_function():
    box = {}
    jf = fad.jit(lambda x: x * box["y"])

    def g(y):
        box["y"] = y
        return jf(2.0)

    assert float(fad.grad(g)(3.0)) == 2.0
    assert float(fad.grad(fad.grad(lambda y: g(y) * y))(5.0)) == 4.0


def test_jit_under_no_grad_and_stop_gradient():
    jf = fad.jit(lambda x: x * fad.stop_gradient(x))
    assert float(fad.grad(jf)(3.0)) == 3.0
    assert float(fad.grad(lambda x: fad.no_grad(jf)(x) * x)(3.0)) == 9.0


def test_no_grad_inside_jit_stays_a_constant():
    f = lambda x: fnp.sum(fnp.sin(x))
    assert_same(fad.grad(fad.jit(fad.no_grad(f)))(X), np.zeros(5))
    _, t = fad.jvp(fad.jit(fad.no_grad(f)), (X,), (np.ones(5),))
    assert float(t) == 0.0
    g = fad.jit(lambda x: fad.no_grad(f)(x) * x)
    assert_same(fad.grad(lambda x: fnp.sum(g(x)))(X), np.full(5, np.sum(np.sin(X))))


# ============================================================ once-broken compositions
def test_jit_of_grad_of_jit():
    got = fad.jit(fad.grad(fad.jit(_f)))(X)
    assert_same(got, _df(X))


def test_jit_of_vmap_of_jit():
    xs = np.linspace(0, 1, 6).reshape(3, 2)
    f = lambda r: fnp.sum(r * np.array([1.0, -1.0]))
    got = fad.jit(fad.vmap(fad.jit(f)))(xs)
    assert_same(got, xs @ np.array([1.0, -1.0]))


def test_var_method_under_jit():
    x = np.array([1.0, 2.0, 4.0])
    assert_same(fad.jit(lambda x: x.var())(x), np.var(x))


def test_methods_under_jit():
    x = np.array([[1.0, 2.0], [4.0, -1.0]])
    f = lambda x: x.T.reshape(-1) * x.mean() - x.sum(axis=0).max() + x.min() * fnp.std(x)
    assert_same(fad.jit(f)(x), f(x))


# ============================================================ JAX's calling conventions
def test_static_arguments_negative_keyword_typed_and_checked():
    """Negative static_argnums count from the end; a static argument given by
    keyword is still static; 1, 1.0 and True are different cache keys; an
    out-of-range index and an unhashable value are clear errors."""
    def f(x, flag):
        return x * 2 if flag else x
    x = np.ones(2)
    assert_allclose(fad.jit(f, static_argnums=-1)(x, True), 2 * x)
    g = fad.jit(f, static_argnums=1)
    assert_allclose(g(x, flag=True), 2 * x)
    assert_allclose(g(x, flag=False), x)
    scale = fad.jit(lambda x, n: x * n, static_argnums=1)
    xi = np.arange(3)
    assert scale(xi, 1).dtype == np.int64 and scale(xi, 1.0).dtype == np.float64
    assert scale.trace_count == 2
    with pytest.raises(ValueError, match=r"static_argnums=\(5,\) but was called with 1"):
        fad.jit(lambda x: x, static_argnums=5)(x)
    with pytest.raises(TypeError, match="static argument 1 .* list, which is not hashable"):
        fad.jit(lambda x, sizes: x * len(sizes), static_argnums=1)(x, [1, 2])


def test_vmap_passes_unmapped_python_values_through():
    """in_axes=None leaves reach the function as given: a jitted function's
    static argument stays hashable, a Python float stays weakly typed."""
    f = fad.jit(lambda y, n: y * n, static_argnums=1)
    assert_allclose(fad.vmap(f, in_axes=(0, None))(np.ones((2, 3)), 3), np.full((2, 3), 3.0))
    x32 = np.ones((2, 3), np.float32)
    assert fad.vmap(lambda a, s: a * s, in_axes=(0, None))(x32, 2.5).dtype == np.float32


def test_jit_of_a_function_without_arguments_and_source_with_keywords():
    assert_allclose(fad.jit(lambda: fnp.ones(2))(), np.ones(2))
    src = fad.jit(lambda x, y=1.0: x * y).source(np.ones(2), y=2.0)
    assert src.startswith("def compiled(a0, a1):")


def test_outputs_never_share_memory_with_the_cached_program_or_each_other():
    """A constant output (folded at compile time or closed over) is a copy, and
    so is an output that repeats another: writing into one changes nothing else."""
    c = np.ones(2)
    f = fad.jit(lambda x: (x + 1, c, fnp.arange(3.0) * 2, x * 2, x * 2))
    first = f(np.ones(2))
    for out in first[1:3]:
        out[0] = 99.0
    first[3][0] = -1.0
    assert first[4][0] == 2.0
    again = f(np.ones(2))
    assert_allclose(again[2], [0.0, 2.0, 4.0])
    assert_allclose(c, [1.0, 1.0])


def test_static_argnames_by_position_keyword_or_default():
    g = fad.jit(lambda x, n=2: x ** n if n > 1 else x, static_argnames="n")
    assert float(g(3.0)) == 9.0 and float(g(3.0, n=3)) == 27.0 and float(g(3.0, 3)) == 27.0
    assert float(g(3.0, n=1)) == 3.0
    assert g.trace_count == 3  # n = 2, 3, 1 (3 by position and by keyword: one entry)
    with pytest.raises(ValueError, match="'k' is not a positional parameter"):
        fad.jit(lambda x, *, k: x, static_argnames="k")


def test_linearize_of_a_jitted_function_gives_values_not_tracers():
    """A jitted call computes its primal outputs and tangents in one staged call;
    ``fad.linearize`` still returns the primal outputs as arrays."""
    x = np.array([0.3, 1.2])
    for f, scale in [(fad.jit(fnp.sin), 1.0), (lambda v: fad.jit(fnp.sin)(v) * 3.0, 3.0)]:
        y, f_jvp = fad.linearize(f, x)
        assert type(y) is np.ndarray
        np.testing.assert_allclose(y, scale * np.sin(x), rtol=1e-15)
        np.testing.assert_allclose(f_jvp(np.ones(2)), scale * np.cos(x), rtol=1e-15)
