"""The IR: JAX's printed form, literals, constants, pytrees, walking it, the gradient
program; abstract tracing refuses Python control flow on values while concrete
tracing (grad / jvp / vjp) runs it."""

import numpy as np
import pytest

import fad
import fad.numpy as fnp
from fad.tree import tree_flatten, tree_unflatten

F32 = np.ones(3, np.float32)


def jaxpr_str(f, *args, **kw):
    return str(fad.make_jaxpr(f, **kw)(*args))


# ---------------------------------------------------------------- printing
def test_api_md_example_character_for_character():
    expected = ("{ lambda ; a:f32[3]. let\n"
                "    b:f32[3] = sin a\n"
                "    c:f32[3] = mul b a\n"
                "    d:f32[] = reduce_sum[axes=(0,)] c\n"
                "  in (d,) }")
    closed = fad.make_jaxpr(lambda x: fnp.sum(fnp.sin(x) * x))(F32)
    assert str(closed) == expected
    assert repr(closed) == expected


@pytest.mark.parametrize("f, args, expected", [
    # weak Python scalars become literals of the array's dtype
    (lambda x: (x * 2.0 + 1) / fnp.sum(x, axis=(0, 1)) - fnp.max(x, 0), (np.ones((2, 2)),),
     "{ lambda ; a:f64[2,2]. let\n"
     "    b:f64[2,2] = mul a 2.0:f64[]\n"
     "    c:f64[2,2] = add b 1.0:f64[]\n"
     "    d:f64[] = reduce_sum[axes=(0, 1)] a\n"
     "    e:f64[2,2] = div c d\n"
     "    f:f64[2] = reduce_max[axes=(0,)] a\n"
     "    g:f64[2,2] = sub e f\n"
     "  in (g,) }"),
    # several outputs (no trailing comma), an input returned as is, an int literal
    (lambda x, n: (x + x, n > 0, x), (F32, np.int32(2)),
     "{ lambda ; a:f32[3] b:i32[]. let\n"
     "    c:f32[3] = add a a\n"
     "    d:bool[] = gt b 0:i32[]\n"
     "  in (c, d, a) }"),
], ids=["literals-params", "outputs"])
def test_printing(f, args, expected):
    assert jaxpr_str(f, *args) == expected


def test_variable_names_continue_like_jax_after_z():
    def chain(x):
        for _ in range(28):
            x = fnp.sin(x)
        return x
    lines = jaxpr_str(chain, 1.0).splitlines()
    assert lines[1] == "    b:f64[] = sin a"
    assert lines[25:29] == ["    z:f64[] = sin y", "    ba:f64[] = sin z",
                            "    bb:f64[] = sin ba", "    bc:f64[] = sin bb"]
    assert lines[-1] == "  in (bc,) }"


def test_closure_constants_print_like_jax():
    c = np.arange(3.0)
    expected = ("{ lambda a:f64[3]; b:f64[3]. let\n"
                "    c:f64[3] = mul b a\n"
                "    d:f64[3] = sin c\n"
                "    e:f64[3] = add d a\n"
                "    f:f64[] = reduce_sum[axes=(0,)] e\n"
                "  in (f,) }")
    assert jaxpr_str(lambda x: fnp.sum(fnp.sin(x * c) + c), np.ones(3)) == expected


def test_short_jaxpr_on_one_line_like_jax():
    # the example of jax.make_jaxpr's docstring
    assert jaxpr_str(lambda x: fnp.sin(fnp.cos(x)), np.float32(3.0)) == \
        "{ lambda ; a:f32[]. let b:f32[] = cos a; c:f32[] = sin b in (c,) }"


# ---------------------------------------------------------------- constants, pytrees
def test_closure_constants_are_constvars():
    c = np.arange(3.0)
    closed = fad.make_jaxpr(lambda x: x * c + 2.0)(np.ones(3))
    assert len(closed.jaxpr.constvars) == 1
    assert closed.consts[0] is not c and closed.consts[0].tolist() == c.tolist()  # a copy
    (mul, add) = closed.eqns
    assert mul.invars == [closed.invars[0], closed.jaxpr.constvars[0]]
    assert add.invars[1].val == 2.0  # a literal, not a constvar
    np.testing.assert_array_equal(run(closed, np.ones(3))[0], c + 2.0)


def test_pytree_inputs_and_outputs():
    def f(params, batch):
        (x,) = batch
        return {"out": x @ params["w"] + params["b"], "aux": [params["b"]]}

    params = {"w": np.ones((3, 2), np.float32), "b": np.zeros(2, np.float32)}
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    closed = fad.make_jaxpr(f)(params, (x,))
    assert str(closed).splitlines()[0] == "{ lambda ; a:f32[2] b:f32[3,2] c:f32[2,3]. let"
    assert [(v.aval.shape, v.aval.dtype) for v in closed.invars] == [
        ((2,), np.float32), ((3, 2), np.float32), ((2, 3), np.float32)]
    leaves, in_tree = tree_flatten([params, (x,)])
    assert closed.in_tree == in_tree
    got = tree_unflatten(closed.out_tree, run(closed, *leaves))
    want = f(params, (x,))
    assert list(got) == ["aux", "out"] and isinstance(got["aux"], list)
    np.testing.assert_array_equal(got["out"], want["out"])


# ---------------------------------------------------------------- walking the IR
def run(closed, *args):
    """A tiny interpreter written against the IR's public surface."""
    env = dict(zip(closed.jaxpr.constvars, closed.consts))
    env.update(zip(closed.invars, args))

    def read(atom):
        return atom.val if hasattr(atom, "val") else env[atom]

    for eqn in closed.eqns:
        outs = eqn.primitive.impl(*map(read, eqn.invars), **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return [read(v) for v in closed.outvars]


def test_walk_the_ir():
    closed = fad.make_jaxpr(lambda x: fnp.sum(fnp.sin(x) * x, axis=0))(np.ones((2, 3)))
    sin, mul, red = closed.eqns
    assert [e.primitive.name for e in closed.eqns] == ["sin", "mul", "reduce_sum"]
    assert red.params == {"axes": (0,)} and sin.params == {}
    (a,) = closed.invars
    assert sin.invars == [a] and mul.invars == [sin.outvars[0], a]
    assert red.invars == mul.outvars and closed.outvars == red.outvars
    assert (a.aval.shape, a.aval.dtype) == ((2, 3), np.float64)
    assert red.outvars[0].aval.shape == (3,)
    x = np.random.default_rng(0).standard_normal((2, 3))
    np.testing.assert_allclose(run(closed, x)[0], np.sum(np.sin(x) * x, axis=0))


def test_make_jaxpr_of_grad_is_the_gradient_program():
    def f(x):
        return fnp.sum(fnp.sin(x) * x)

    closed = fad.make_jaxpr(fad.grad(f))(F32)
    text = str(closed)
    assert text.startswith("{ lambda ; a:f32[3]. let\n    b:f32[3] = sin a\n")
    assert "cos a" in text  # the derivative of sin appears in the program
    assert [v.aval.shape for v in closed.outvars] == [(3,)]
    x = np.array([0.1, -2.0, 3.0], np.float32)
    (g,) = run(closed, x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, fad.grad(f)(x), rtol=1e-6)
    np.testing.assert_allclose(g, np.sin(x) + x * np.cos(x), rtol=1e-6)


def test_gradient_program_has_no_negations_for_subtractions():
    """``x - y`` pulls ``-ct`` back to ``y`` lazily: the negation passes through
    linear rules and becomes a subtraction where cotangents meet."""
    f = lambda x: fnp.sum((x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
    x = np.array([0.3, -1.2, 0.8, 2.0])
    closed = fad.make_jaxpr(fad.grad(f))(x)
    assert "neg" not in str(closed), str(closed)
    a, b = x[:-1], x[1:]
    want = np.zeros_like(x)
    want[1:] += 2 * (b - a * a)
    want[:-1] += -4 * a * (b - a * a) - 2 * (1 - a)
    np.testing.assert_allclose(run(closed, x)[0], want, rtol=1e-13)
    np.testing.assert_allclose(fad.grad(f)(x), want, rtol=1e-13)
    # both negated, then a linear rule, then negated once more
    g = fad.grad(lambda x: fnp.sum(-(1.0 - x) - (2.0 - x)))(x)
    np.testing.assert_allclose(g, np.full(4, 2.0))


@pytest.mark.parametrize("transform", [
    lambda f: lambda x: fad.jvp(f, (x,), (fnp.ones_like(x),))[1],
    lambda f: lambda x: fad.vjp(f, x)[1](fnp.ones_like(x))[0],
    lambda f: fad.grad(lambda x: fnp.sum(fad.grad(lambda y: fnp.sum(f(y)))(x))),
], ids=["jvp", "vjp", "grad-grad"])
def test_make_jaxpr_of_transformations_runs_to_the_same_values(transform):
    def f(x):
        return fnp.tanh(x) * x ** 3

    x = np.array([0.5, -1.5])
    closed = fad.make_jaxpr(transform(f))(x)
    np.testing.assert_allclose(run(closed, x)[0], transform(f)(x), rtol=1e-12)


def test_static_argnums_are_baked_in():
    closed = fad.make_jaxpr(lambda x, n: x * n if n > 1 else -x, static_argnums=1)(F32, 3)
    assert len(closed.invars) == 1
    assert str(closed) == "{ lambda ; a:f32[3]. let b:f32[3] = mul a 3.0:f32[] in (b,) }"


def test_tracer_surface_under_abstract_tracing():
    """NumPy's operators and array methods, on an abstract tracer."""
    seen = {}

    def f(m):
        seen.update(shape=m.shape, ndim=m.ndim, size=m.size, dtype=m.dtype, len=len(m))
        ops = [m + 1, m - 1, m * 2, m / 2, m // 2, m % 2, m ** 2, -m, m.T.T, m[..., 1:2],
               m[None, 0], (m @ m.T)[:, :1], m.reshape(6).reshape(2, 3),
               m.transpose(1, 0).T, m.astype(np.float64), m.sum(0), m.mean(-1), m.max()]
        cmp = [m < 1, m <= 1, m > 1, m >= 1, m == 1, m != 1]
        return ops, cmp

    m = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    closed = fad.make_jaxpr(f)(m)
    assert seen == dict(shape=(2, 3), ndim=2, size=6, dtype=np.float32, len=2)
    ops, cmp = tree_unflatten(closed.out_tree, run(closed, m))
    want_ops, want_cmp = f(m)
    for got, want in zip(ops + cmp, want_ops + want_cmp):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)


# ---------------------------------------------------------------- control flow
def branchy(x):
    if x > 0:
        return x ** 2
    return -3 * x


def loopy(x):
    while x < 10:
        x = x * 2
    return x


@pytest.mark.parametrize("f", [branchy, loopy, lambda x: float(x), lambda x: int(x),
                               lambda x: x.item(), lambda x: np.asarray(x)],
                         ids=["if", "while", "float", "int", "item", "asarray"])
def test_abstract_tracing_refuses_python_control_flow(f):
    with pytest.raises(fad.ConcretizationError) as info:
        fad.make_jaxpr(f)(1.0)
    assert isinstance(info.value, TypeError)
    assert "fad.lax.cond" in str(info.value)


@pytest.mark.parametrize("derivative", [
    fad.grad,
    lambda f: lambda x: fad.jvp(f, (x,), (1.0,))[1],
    lambda f: lambda x: fad.vjp(f, x)[1](1.0)[0],
    lambda f: fad.jacfwd(f),
], ids=["grad", "jvp", "vjp", "jacfwd"])
@pytest.mark.parametrize("f, x, want", [
    (branchy, 1.5, 3.0), (branchy, -1.5, -3.0), (loopy, 3.0, 4.0), (loopy, 0.5, 32.0),
])
def test_concrete_tracing_runs_python_control_flow(derivative, f, x, want):
    assert float(derivative(f)(x)) == want


def test_control_flow_on_array_values_under_grad():
    def f(x):
        return fnp.sum(x ** 2) if fnp.max(x) > 1 else fnp.sum(x)

    np.testing.assert_array_equal(fad.grad(f)(np.array([0.5, 2.0])), [1.0, 4.0])
    np.testing.assert_array_equal(fad.grad(f)(np.array([0.5, 0.2])), [1.0, 1.0])
    np.testing.assert_array_equal(fad.grad(fad.grad(lambda x: branchy(x) * x))(2.0), 12.0)


def test_failed_trace_leaves_no_state_behind():
    with pytest.raises(fad.ConcretizationError):
        fad.make_jaxpr(branchy)(1.0)
    with pytest.raises(ZeroDivisionError):
        fad.grad(lambda x: x / 0 if 1 / 0 else x)(1.0)
    out = fnp.sin(np.float32(1.0))  # back to plain evaluation
    assert type(out) in (np.ndarray, np.float32) and out.dtype == np.float32
