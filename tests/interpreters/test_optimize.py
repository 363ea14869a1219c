"""The IR optimisation passes run by ``fad.jit``, one at a time, on hand-built
and traced jaxprs: dead-code elimination, common-subexpression elimination,
constant folding, algebraic simplification; and ``optimize`` as a whole keeps
every program's meaning (evaluated before and after with ``eval_jaxpr``).
"""

import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from operator_table import CHAIN_OPS

import fad
import fad.numpy as fnp
from fad.core.ir import ClosedJaxpr, Eqn, Jaxpr, Literal, ShapedArray, Var
from fad.core.primitive import REGISTRY
from fad.interpreters import optimize as O
from fad.interpreters.evaluate import eval_jaxpr

F64 = np.dtype(np.float64)
F32 = np.dtype(np.float32)


# ---------------------------------------------------------------- building IR by hand
def aval(*shape, dtype=F64):
    return ShapedArray(shape, dtype)


def lit(value, dtype=F64):
    return Literal(value, ShapedArray((), dtype))


class Builder:
    """Appends equations; each call returns the new equation's output variable."""

    def __init__(self):
        self.eqns = []

    def __call__(self, name, *ins, **params):
        prim = REGISTRY[name]
        out = Var(prim.abstract_eval(*[a.aval for a in ins], **params))
        self.eqns.append(Eqn(prim, list(ins), params, [out]))
        return out

    def close(self, invars, outvars, constvars=(), consts=()):
        return ClosedJaxpr(Jaxpr(list(constvars), list(invars), self.eqns, list(outvars)),
                           list(consts))


def prims(closed):
    return [e.primitive.name for e in closed.eqns]


def run(closed, *args):
    return [np.asarray(o) for o in eval_jaxpr(closed.jaxpr, closed.consts, *args)]


def assert_same_program(before, after, *args, rtol=1e-13):
    want, got = run(before, *args), run(after, *args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-15)
    assert [v.aval for v in after.jaxpr.outvars] == [v.aval for v in before.jaxpr.outvars]


X3 = np.array([0.5, -1.25, 2.0])


# ============================================================ dead code
def test_dce_removes_unused_equations_transitively():
    b = Builder()
    x = Var(aval(3))
    s = b("sin", x)
    dead1 = b("cos", x)
    b("exp", dead1)          # only feeds nothing
    b("mul", s, dead1)       # unused result
    out = b("neg", s)
    closed = b.close([x], [out])
    got = O.dce(closed)
    assert prims(got) == ["sin", "neg"]
    assert_same_program(closed, got, X3)


def test_dce_keeps_every_output_and_drops_unused_constants():
    b = Builder()
    x, c_used, c_dead = Var(aval(3)), Var(aval(3)), Var(aval(3))
    y = b("add", x, c_used)
    b("mul", x, c_dead)
    closed = b.close([x], [y, x], constvars=[c_used, c_dead],
                     consts=[np.ones(3), np.full(3, 2.0)])
    got = O.dce(closed)
    assert prims(got) == ["add"]
    assert got.jaxpr.constvars == [c_used] and len(got.consts) == 1
    assert got.jaxpr.invars == [x]
    assert_same_program(closed, got, X3)


def test_dce_on_a_traced_gradient_drops_the_unused_forward_value():
    closed = fad.make_jaxpr(fad.grad(lambda x: fnp.sum(fnp.sin(x))))(X3)
    assert "reduce_sum" in prims(closed)      # the primal output, never returned
    got = O.dce(closed)
    assert "reduce_sum" not in prims(got) and "sin" not in prims(got)
    assert_same_program(closed, got, X3)


# ============================================================ common subexpressions
def test_cse_merges_duplicates_and_their_consumers():
    b = Builder()
    x = Var(aval(3))
    s1, s2 = b("sin", x), b("sin", x)
    c1, c2 = b("cos", s1), b("cos", s2)     # equal once s1 == s2
    out = b("add", c1, c2)
    closed = b.close([x], [out, s2])
    got = O.cse(closed)
    assert prims(got) == ["sin", "cos", "add"]
    add = got.eqns[-1]
    assert add.invars[0] is add.invars[1]
    assert got.jaxpr.outvars[1] is got.eqns[0].outvars[0]
    assert_same_program(closed, got, X3)


def test_cse_respects_params_and_literals():
    b = Builder()
    x = Var(aval(2, 3))
    r0, r0b, r1 = b("reduce_sum", x, axes=(0,)), b("reduce_sum", x, axes=(0,)), \
        b("reduce_sum", x, axes=(1,))
    m2, m2b, m3 = b("mul", x, lit(2.0)), b("mul", x, lit(2.0)), b("mul", x, lit(3.0))
    closed = b.close([x], [r0, r0b, r1, m2, m2b, m3])
    got = O.cse(closed)
    assert prims(got) == ["reduce_sum", "reduce_sum", "mul", "mul"]
    assert {e.params.get("axes") for e in got.eqns[:2]} == {(0,), (1,)}
    assert sorted(float(e.invars[1].val) for e in got.eqns[2:]) == [2.0, 3.0]
    assert_same_program(closed, got, np.arange(6.0).reshape(2, 3))


def test_cse_does_not_merge_different_inputs():
    b = Builder()
    x, y = Var(aval(3)), Var(aval(3))
    closed = b.close([x, y], [b("sin", x), b("sin", y)])
    assert prims(O.cse(closed)) == ["sin", "sin"]


def test_cse_on_a_traced_function():
    f = lambda x: fnp.sin(x) * fnp.exp(fnp.sin(x)) + fnp.exp(fnp.sin(x))
    closed = fad.make_jaxpr(f)(X3)
    got = O.cse(closed)
    assert prims(got).count("sin") == 1 and prims(got).count("exp") == 1
    assert_same_program(closed, got, X3)


# ============================================================ constant folding
def test_fold_literal_arithmetic_to_a_literal():
    b = Builder()
    x = Var(aval(3))
    c = b("mul", lit(2.0), lit(3.0))
    d = b("add", c, lit(1.0))
    out = b("mul", x, d)
    closed = b.close([x], [out])
    got = O.fold_constants(closed)
    assert prims(got) == ["mul"]
    (operand,) = [a for a in got.eqns[0].invars if a is not x]
    assert type(operand) is Literal and float(operand.val) == 7.0
    assert_same_program(closed, got, X3)


def test_fold_small_constant_subexpressions():
    b = Builder()
    x, c = Var(aval(3)), Var(aval(3))
    s = b("sin", c)
    e = b("exp", s)
    out = b("mul", x, e)
    closed = b.close([x], [out], constvars=[c], consts=[np.array([0.1, 0.2, 0.3])])
    got = O.fold_constants(closed)
    assert prims(got) == ["mul"]
    assert len(got.consts) == 1
    np.testing.assert_allclose(got.consts[0], np.exp(np.sin([0.1, 0.2, 0.3])), rtol=1e-15)
    assert_same_program(closed, got, X3)


def test_fold_small_broadcasts_but_not_large_ones():
    b = Builder()
    x = Var(aval(3))
    small = b("broadcast_to", lit(2.0), shape=(4,))
    small_e = b("exp", small)
    big = b("broadcast_to", lit(1.0), shape=(100, 100))
    big_s = b("sin", big)
    out = b("mul", x, lit(1.5))
    closed = b.close([x], [small_e, big_s, out])
    got = O.fold_constants(closed)
    names = prims(got)
    assert "exp" not in names                      # small: computed at compile time
    assert names.count("broadcast_to") == 1 and "sin" in names  # large: left to run time
    assert all(np.size(c) <= O.FOLD_LIMIT for c in got.consts)
    assert "mul" in names                          # depends on the input
    assert_same_program(closed, got, X3)


def test_fold_through_a_traced_function():
    f = lambda x: x * fnp.sum(fnp.exp(fnp.ones(3) * 2.0)) + fnp.zeros((300, 300)).sum()
    closed = fad.make_jaxpr(f)(X3)
    got = O.optimize(closed)
    assert "exp" not in prims(got)
    assert len(got.eqns) <= 2
    assert all(np.size(c) <= O.FOLD_LIMIT for c in got.consts)
    assert_same_program(closed, got, X3)


# ============================================================ algebraic simplification
def _simplified_to_identity(build, dtype=F64, shape=(3,)):
    b = Builder()
    x = Var(aval(*shape, dtype=dtype))
    out = build(b, x)
    closed = b.close([x], [out])
    got = O.simplify(O.simplify(closed))  # a rewritten equation is simplified next pass
    assert got.eqns == [], str(got)
    assert got.jaxpr.outvars == [x]
    return closed, got


@pytest.mark.parametrize("build", [
    lambda b, x: b("mul", x, lit(1.0)),
    lambda b, x: b("mul", lit(1.0), x),
    lambda b, x: b("add", x, lit(0.0)),
    lambda b, x: b("add", lit(0.0), x),
    lambda b, x: b("sub", x, lit(0.0)),
    lambda b, x: b("div", x, lit(1.0)),
    lambda b, x: b("neg", b("neg", x)),
    lambda b, x: b("mul", x, b("broadcast_to", lit(1.0), shape=(3,))),   # the grad seed
    lambda b, x: b("add", b("broadcast_to", lit(0.0), shape=(3,)), x),
    lambda b, x: b("convert_element_type", x, new_dtype=F64),
    lambda b, x: b("reshape", x, new_sizes=(3,)),
    lambda b, x: b("broadcast_to", x, shape=(3,)),
    lambda b, x: b("reshape", b("reshape", x, new_sizes=(1, 3)), new_sizes=(3,)),
    lambda b, x: b("mul", b("mul", x, lit(1.0)), b("add", lit(1.0), lit(0.0))),
], ids=["x*1", "1*x", "x+0", "0+x", "x-0", "x/1", "--x", "x*ones", "zeros+x",
        "convert_same", "reshape_same", "broadcast_same", "reshape_reshape", "nested"])
def test_simplify_identities(build):
    closed, got = _simplified_to_identity(build)
    assert_same_program(closed, got, X3)


def test_simplify_transpose_of_transpose():
    _simplified_to_identity(
        lambda b, x: b("transpose", b("transpose", x, permutation=(1, 2, 0)),
                       permutation=(2, 0, 1)), shape=(2, 3, 4))
    b = Builder()
    x = Var(aval(2, 3, 4))
    out = b("transpose", b("transpose", x, permutation=(1, 0, 2)), permutation=(0, 2, 1))
    closed = b.close([x], [out])
    got = O.simplify(closed)
    assert prims(got) == ["transpose"]          # composed into one permutation
    assert_same_program(closed, got, np.arange(24.0).reshape(2, 3, 4))


def test_simplify_reshape_of_reshape_keeps_one_reshape():
    b = Builder()
    x = Var(aval(2, 3))
    out = b("reshape", b("reshape", x, new_sizes=(6,)), new_sizes=(3, 2))
    closed = b.close([x], [out])
    got = O.simplify(closed)
    assert prims(got) == ["reshape"]
    assert got.eqns[0].invars == [x] and got.eqns[0].params["new_sizes"] == (3, 2)
    assert_same_program(closed, got, np.arange(6.0).reshape(2, 3))


@pytest.mark.parametrize("build, shape, dtype", [
    (lambda b, x: b("mul", x, lit(2.0)), (3,), F64),
    (lambda b, x: b("mul", x, b("broadcast_to", lit(1.0), shape=(4, 3))), (3,), F64),
    (lambda b, x: b("add", x, b("broadcast_to", lit(0.0), shape=(2, 3))), (1, 3), F64),
    (lambda b, x: b("convert_element_type", x, new_dtype=F32), (3,), F64),
    (lambda b, x: b("reshape", x, new_sizes=(3, 1)), (3,), F64),
    (lambda b, x: b("sub", lit(0.0), x), (3,), F64),
    (lambda b, x: b("div", lit(1.0), x), (3,), F64),
], ids=["x*2", "x*ones_broadcasting", "x+zeros_broadcasting", "convert_other",
        "reshape_other", "0-x", "1/x"])
def test_simplify_keeps_what_is_not_an_identity(build, shape, dtype):
    """A unit that broadcasts x to a bigger shape, or changes its dtype, stays."""
    b = Builder()
    x = Var(aval(*shape, dtype=dtype))
    out = build(b, x)
    closed = b.close([x], [out])
    got = O.simplify(closed)
    assert got.jaxpr.outvars[0] is not x
    arg = np.linspace(0.5, 2, int(np.prod(shape))).reshape(shape).astype(dtype)
    assert_same_program(closed, got, arg)


def test_simplify_what_differentiation_leaves_behind():
    f = lambda x: fnp.sum(fnp.sin(x) * 1.0 + 0.0)
    closed = fad.make_jaxpr(fad.grad(f))(X3)
    text = str(closed)
    assert "broadcast_to" in text and "1.0" in text
    got = O.optimize(closed)
    assert prims(got) == ["cos"]
    assert_same_program(closed, got, X3)


def test_simplify_sum_of_a_broadcast_scalar():
    closed = fad.make_jaxpr(lambda s: fnp.sum(fnp.broadcast_to(s, (4, 5)), axis=(0, 1)))(2.0)
    got = O.optimize(closed)
    assert "broadcast_to" not in prims(got) and "reduce_sum" not in prims(got)
    assert_same_program(closed, got, np.float64(2.5))


def test_simplify_unit_axes_round_trip_is_a_transpose():
    """reshape(transpose(reshape(x))) adding then dropping length-1 axes (vmap's
    leftovers around a batched matmul) is one transpose, or nothing."""
    b = Builder()
    x = Var(aval(2, 3))
    k = b("reshape", x, new_sizes=(2, 3, 1))
    out = b("reshape", b("transpose", k, permutation=(1, 2, 0)), new_sizes=(3, 2))
    same = b("reshape", b("transpose", k, permutation=(2, 0, 1)), new_sizes=(2, 3))
    closed = b.close([x], [out, same])
    got = O.simplify(closed)
    assert prims(got) == ["transpose"] and got.jaxpr.outvars[1] is x
    assert_same_program(closed, got, np.arange(6.0).reshape(2, 3))


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("s_shape", [(), (4,), (1, 4), (4, 1)])
def test_simplify_matmul_by_a_diagonal_matrix(side, s_shape):
    """x @ (eye * s) = x * s and (eye * s) @ x = s[:, None] * x: no matmul left."""
    b = Builder()
    x, s, ref = Var(aval(3, 4) if side == "left" else aval(4, 3)), Var(aval(*s_shape)), \
        Var(aval(2))
    d = b("mul", b("eye_like", ref, n=4), s)
    d = b("transpose", d, permutation=(1, 0))
    out = b("matmul", x, d) if side == "left" else b("matmul", d, x)
    closed = b.close([x, s, ref], [out])
    got = O.optimize(closed)
    assert "matmul" not in prims(got)
    rng = np.random.default_rng(0)
    args = rng.standard_normal(x.aval.shape), rng.standard_normal(s_shape), np.zeros(2)
    assert_same_program(closed, got, *args)


@pytest.mark.parametrize("a_shape, b_shape", [
    ((3, 1), (1, 4)), ((2, 3, 1), (2, 1, 4)), ((3, 1), (5, 1, 4)), ((2, 1, 3, 1), (4, 1, 2))])
def test_simplify_matmul_with_inner_dimension_one_is_a_multiply(a_shape, b_shape):
    """a[..., m, 1] @ b[..., 1, n] = a * b (broadcast): an outer product."""
    b = Builder()
    x, y = Var(aval(*a_shape)), Var(aval(*b_shape))
    closed = b.close([x, y], [b("matmul", x, y)])
    got = O.simplify(closed)
    assert prims(got) == ["mul"]
    rng = np.random.default_rng(1)
    assert_same_program(closed, got, rng.standard_normal(a_shape), rng.standard_normal(b_shape))


@pytest.mark.parametrize("shape, new, dropped", [
    ((256, 100, 1), (256, 100), (2,)), ((1, 3, 1), (3, 1), (0,)), ((2, 1, 1), (2, 1), (1,)),
    ((1, 1), (), (0, 1)), ((1, 3), (1, 3), None), ((3,), (3, 1), None), ((6,), (2, 3), None),
    ((2, 3), (3, 2), None)])
def test_dropped_unit_axes(shape, new, dropped):
    from fad.primitives.identities import _dropped_unit_axes
    assert _dropped_unit_axes(shape, new) == dropped


def test_simplify_squeezes_an_elementwise_operands_not_its_result():
    """reshape(x3 * y3) dropping length-1 axes = x * y on the operands' squeezed
    shapes (what vmap leaves around a batched outer product); kept when the
    product has another reader (the multiply would be done twice)."""
    b = Builder()
    x, h = Var(aval(4, 5)), Var(aval(4))
    x3 = b("reshape", x, new_sizes=(4, 5, 1))
    prod = b("mul", x3, b("reshape", h, new_sizes=(4, 1, 1)))
    out = b("reshape", prod, new_sizes=(4, 5))
    closed = b.close([x, h], [out])
    got = O.simplify(closed)
    assert prims(got) == ["reshape", "mul"], str(got)
    assert [v.aval.shape for v in got.eqns[1].invars] == [(4, 5), (4, 1)]
    args = np.arange(20.0).reshape(4, 5), np.arange(4.0)
    assert_same_program(closed, got, *args)
    kept = b.close([x, h], [out, prod])
    assert prims(O.simplify(kept)).count("mul") == 1
    assert_same_program(kept, O.simplify(kept), *args)


def test_jit_per_example_gradients_are_a_matvec_and_a_scaling():
    """jit(vmap(grad(logistic loss))): X @ w, logistic, subtract, and one 2-D
    multiply by the rows of X (the closed form) - no batched 3-D products."""
    rng = np.random.default_rng(3)
    X, w, y = rng.standard_normal((16, 5)), rng.standard_normal(5), rng.random(16)
    loss = lambda w, x, y: fad.nn.binary_cross_entropy_with_logits(x @ w, y)
    per_example = fad.jit(fad.vmap(fad.grad(loss), in_axes=(None, 0, 0)))
    lowered = per_example.lower(w, X, y)
    assert all(v.aval.ndim <= 2 for e in lowered.eqns for v in e.outvars), str(lowered)
    assert [p for p in prims(lowered) if p != "reshape"] == \
        ["matmul", "logistic", "sub", "mul"], str(lowered)
    want = (1 / (1 + np.exp(-(X @ w))) - y)[:, None] * X
    np.testing.assert_allclose(per_example(w, X, y), want, rtol=1e-12)


def test_simplify_factors_a_common_scale_out_of_a_sum_of_products():
    """(c x) y + (c z) w = c (x y + z w): four multiplications become three; kept
    when a scaled factor has another reader, or the scales differ."""
    b = Builder()
    x, y, z, w = (Var(aval(4)) for _ in range(4))
    cx, cz = b("mul", lit(-200.0), x), b("mul", z, lit(-200.0))
    out = b("add", b("mul", cx, y), b("mul", w, cz))
    closed = b.close([x, y, z, w], [out])
    got = O.optimize(closed)
    assert prims(got).count("mul") == 3 and prims(got).count("add") == 1, str(got)
    args = [np.linspace(-1, 1, 4) * k for k in (1.0, 2.0, 3.0, 4.0)]
    assert_same_program(closed, got, *args)
    shared = b.close([x, y, z, w], [out, cx])
    assert prims(O.optimize(shared)).count("mul") == 4
    b2 = Builder()
    out2 = b2("add", b2("mul", b2("mul", lit(2.0), x), y), b2("mul", b2("mul", lit(3.0), z), w))
    assert prims(O.optimize(b2.close([x, y, z, w], [out2]))).count("mul") == 4


def test_simplify_shares_a_scaling_with_its_negated_twin():
    """(-2) d and 2 d (what d(b - a**2) leaves): the second becomes -(first), the
    negation moves out of a product and into the sum; one multiplication fewer
    and no negation left."""
    b = Builder()
    d, m, p = (Var(aval(4)) for _ in range(3))
    minus, plus = b("mul", lit(-2.0), d), b("mul", d, lit(2.0))
    out = b("add", minus, b("add", p, b("mul", m, plus)))
    closed = b.close([d, m, p], [out])
    got = O.optimize(closed)
    assert prims(got).count("mul") == 2 and "neg" not in prims(got), str(got)
    args = [np.linspace(-1, 1, 4) * k for k in (1.0, 2.0, 3.0)]
    assert_same_program(closed, got, *args)
    both = b.close([d, m, p], [out, plus])  # the twin is an output too: a negation
    assert_same_program(both, O.optimize(both), *args)


def test_negation_of_a_shared_scaling_is_not_undone():
    """-(c x) stays a negation when c x has another reader (one pass either way,
    and the negation may fold into an addition later)."""
    b = Builder()
    x, y = Var(aval(4)), Var(aval(4))
    cx = b("mul", lit(3.0), x)
    out = b("add", b("neg", cx), b("mul", cx, y))
    closed = b.close([x, y], [out])
    got = O.optimize(closed)
    assert prims(got).count("mul") == 2 and "neg" not in prims(got), str(got)
    assert_same_program(closed, got, np.linspace(-1, 1, 4), np.arange(4.0))


def test_jit_hvp_of_rosenbrock_is_twelve_passes_and_one_subtracting_scatter():
    """The 10,000-d Rosenbrock HVP benchmark's compiled program: twelve
    elementwise passes, one scatter and a subtracting ``add_at`` (the NumPy
    closed form makes sixteen passes)."""
    def rosen(x):
        a, b = x[:-1], x[1:]
        return fnp.sum(100.0 * (b - a ** 2) ** 2 + (1.0 - a) ** 2)
    hvp = fad.jit(lambda x, v: fad.jvp(fad.grad(rosen), (x,), (v,))[1])
    rng = np.random.default_rng(1)
    x, v = rng.uniform(-1.5, 1.5, 50), rng.standard_normal(50)
    lowered = hvp.lower(x, v)
    ps = prims(lowered)
    assert sum(p in ("mul", "add", "sub", "neg") for p in ps) == 12, str(lowered)
    assert ps[-2:] == ["scatter_add", "add_at"], str(lowered)
    assert lowered.eqns[-1].params["sign"] == -1
    a, b, va, vb = x[:-1], x[1:], v[:-1], v[1:]
    want = np.zeros_like(x)
    want[:-1] += (1200.0 * a * a - 400.0 * b + 2.0) * va - 400.0 * a * vb
    want[1:] += -400.0 * a * va + 200.0 * vb
    np.testing.assert_allclose(hvp(x, v), want, rtol=1e-12)


def test_jit_jacobians_do_not_multiply_by_the_identity():
    """jit(jacrev) / jit(jacfwd) of tanh(A @ x): the one-hot basis is an
    ``eye_like`` equation, and the optimiser turns the n x n x n product with it
    into a scaling of A (what the hand-written Jacobian computes)."""
    rng = np.random.default_rng(4)
    A, x = rng.standard_normal((50, 50)), rng.standard_normal(50)
    f = lambda x: fnp.tanh(A @ x)
    want = (1 - np.tanh(A @ x) ** 2)[:, None] * A
    for jac in (fad.jacrev, fad.jacfwd):
        jitted = fad.jit(jac(f))
        lowered = jitted.lower(x)
        assert prims(lowered).count("matmul") == 1, str(lowered)  # only A @ x
        np.testing.assert_allclose(jitted(x), want, rtol=1e-12)
        np.testing.assert_allclose(jac(f)(x), want, rtol=1e-12)


def _shifted_sum(x):
    """x[1:] + x[:-1] scattered back: its gradient adds two scatters."""
    return fnp.sum(fnp.sin(x[1:]) * x[:-1] ** 2)


def test_add_of_a_scatter_adds_in_place():
    """x + scatter(v) becomes add_at (x.at[i].add(v)): one buffer, no zeros."""
    x = np.linspace(-1, 1, 7)
    closed = fad.make_jaxpr(fad.grad(_shifted_sum))(x)
    got = O.optimize(closed)
    assert prims(got).count("scatter_add") == 1 and prims(got).count("add_at") == 1
    assert_same_program(closed, got, x)
    jitted = fad.jit(fad.grad(_shifted_sum))
    last = f"k{len(jitted.lower(x).eqns) - 1}("  # add_at: in place into the scatter's buffer
    assert any(last in line and "out=" in line for line in jitted.source(x).splitlines())


def test_add_at_is_differentiable_and_batchable():
    """jit's optimised program (with add_at) under grad, jvp and vmap."""
    g = fad.jit(fad.grad(_shifted_sum))
    x = np.linspace(-1, 1, 7)
    assert "add_at" in prims(g.lower(x))
    fad.check_grads(g, (x,), order=2, modes=("fwd", "rev"))
    xs = np.stack([x, 2 * x, -x])
    np.testing.assert_allclose(fad.vmap(g)(xs), np.stack([g(r) for r in xs]), rtol=1e-12)
    np.testing.assert_allclose(g(x), fad.grad(_shifted_sum)(x), rtol=1e-12)


def _differences(x):
    """sum((x[1:] - x[:-1])**2): its gradient subtracts one scatter from another."""
    return fnp.sum((x[1:] - x[:-1]) ** 2 * fnp.cos(x[1:]))


def test_sub_of_a_scatter_subtracts_in_place():
    """x - scatter(v) becomes add_at with sign -1 (x.at[i].add(-v)); it is
    differentiable in both modes, batchable, and agrees with un-jitted grad."""
    x = np.linspace(-1, 1, 7)
    g = fad.jit(fad.grad(_differences))
    lowered = g.lower(x)
    signs = [e.params["sign"] for e in lowered.eqns if e.primitive.name == "add_at"]
    assert sorted(signs) == [-1, 1] and prims(lowered).count("scatter_add") == 1, str(lowered)
    np.testing.assert_allclose(g(x), fad.grad(_differences)(x), rtol=1e-12)
    fad.check_grads(g, (x,), order=2, modes=("fwd", "rev"))
    xs = np.stack([x, 2 * x, -x])
    np.testing.assert_allclose(fad.vmap(g)(xs), np.stack([g(r) for r in xs]), rtol=1e-12)


@pytest.mark.parametrize("index", [(slice(1, None),), (np.array([0, 2, 2]),)])
def test_backend_add_at_subtracts_for_sign_minus_one(index):
    """NumPy's in-place kernel and the generic (array-API) fallback agree, with
    repeated indices summed."""
    import array_api_strict as xps

    from fad.backends import backend_for
    x, v = np.arange(4.0), np.array([1.0, 10.0, 100.0])
    want = x.copy()
    np.subtract.at(want, index, v)
    np.testing.assert_array_equal(backend_for(np).add_at(x, index, v, sign=-1), want)
    strict = backend_for(xps).add_at(xps.asarray(x), index, xps.asarray(v), sign=-1)
    np.testing.assert_array_equal(np.asarray(strict), want)
    np.testing.assert_array_equal(x, np.arange(4.0))  # no output buffer: x untouched


# ============================================================ inlining and the pipeline
def test_inline_calls_flattens_nested_jit():
    inner = fad.jit(lambda x: fnp.sin(x) * 2.0)
    closed = fad.make_jaxpr(lambda x: inner(inner(x)) + 1.0)(X3)
    assert prims(closed).count("jit") == 2
    got = O.inline_calls(closed)
    assert "jit" not in prims(got) and prims(got).count("sin") == 2
    assert_same_program(closed, got, X3)


def test_optimize_is_a_fixed_point():
    f = lambda x: fnp.sum(fnp.tanh(x) * fnp.tanh(x) * 1.0) + 0.0
    closed = fad.make_jaxpr(fad.grad(f))(X3)
    once = O.optimize(closed)
    twice = O.optimize(once)
    assert prims(twice) == prims(once)
    assert len(once.eqns) < len(closed.eqns)
    assert_same_program(closed, twice, X3)


def _random_program(seed, n_steps):
    """A random function of two (2, 2) inputs from the table's chainable rows."""
    rng = np.random.default_rng(seed)
    table = [(lambda xp, *a, op=op: op.fn(xp, *a, **op.chain), op.arity) for op in CHAIN_OPS]
    steps = [(table[rng.integers(len(table))], rng.integers(3)) for _ in range(n_steps)]

    def f(x, y):
        h = x
        for (fn, arity), pick in steps:
            h = fn(fnp, h) if arity == 1 else fn(fnp, h, (x, y, h)[pick])
        return h
    return f


@settings(derandomize=True, deadline=None, max_examples=25)
@given(seed=st.integers(0, 2**31 - 1), n_steps=st.integers(1, 5),
       which=st.sampled_from(["value", "grad", "jvp", "hessian_vector"]))
def test_optimize_keeps_semantics(seed, n_steps, which):
    f = _random_program(zlib.crc32(str(seed).encode()), n_steps)
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(-1, 1, (2, 2)), rng.uniform(-1, 1, (2, 2))
    w = rng.uniform(-1, 1, (2, 2))
    scalar = lambda x, y: fnp.sum(f(x, y) * w)
    program = {
        "value": f,
        "grad": fad.grad(scalar, argnums=(0, 1)),
        "jvp": lambda x, y: fad.jvp(f, (x, y), (w, w)),
        "hessian_vector": lambda x, y: fad.jvp(fad.grad(scalar), (x, y), (w, w)),
    }[which]
    closed = fad.make_jaxpr(program)(x, y)
    got = O.optimize(closed)
    assert len(got.eqns) <= len(closed.eqns)
    assert_same_program(closed, got, x, y, rtol=1e-12)
    for p in O.PASSES:      # and each pass alone
        assert_same_program(closed, p(closed), x, y, rtol=1e-12)


def test_add_at_in_place_never_overwrites_its_values():
    """Code generation may hand add_at its *values'* dead buffer as ``out=``
    (same shape under a full-slice index); the kernel must not clobber them."""
    from fad.interpreters.codegen import compile_jaxpr
    from fad.primitives.indexing import Indexer
    b = Builder()
    y, w = Var(aval(3)), Var(aval(3))
    out = b("add_at", y, b("sin", w), indexer=Indexer((slice(None),)))
    closed = b.close([y, w], [out])
    fn = compile_jaxpr(closed, np)
    assert "out=" in fn.source
    yy, ww = np.array([1.0, 2.0, 3.0]), np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(fn(yy, ww)[0], yy + np.sin(ww), rtol=1e-15)
    np.testing.assert_array_equal(yy, [1.0, 2.0, 3.0])  # inputs untouched


def test_add_of_a_broadcast_scatter_is_not_add_at():
    """x + scatter(v) where the scatter's result broadcasts against x: no add_at
    (its index is for the scatter's own shape)."""
    from fad.primitives.indexing import Indexer
    b = Builder()
    x, v = Var(aval(4, 3)), Var(aval(2))
    out = b("add", x, b("scatter_add", v, indexer=Indexer((slice(1, None),)), shape=(3,)))
    closed = b.close([x, v], [out])
    got = O.optimize(closed)
    assert "add_at" not in prims(got)
    assert_same_program(closed, got, np.arange(12.0).reshape(4, 3), np.array([5.0, 7.0]))
