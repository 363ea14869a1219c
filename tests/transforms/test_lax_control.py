"""fad.lax control flow: ``switch`` against Python indexing, ``select``/``select_n``,
``map`` against a loop, ``scan``'s ``reverse`` and ``unroll``, and ``fori_loop``
in reverse mode, under grad/jvp/vmap/jit."""

from __future__ import annotations

import numpy as np
import pytest

import fad
import fad.numpy as fnp
from fad import lax


def assert_allclose(got, want, rtol=1e-7, atol=1e-10):
    """Every leaf of ``got`` close to the matching one of ``want`` (a list of
    numbers is one array when ``got`` is one)."""
    if not isinstance(got, list | tuple | dict):
        want = np.asarray(want)
    got, want = fad.tree.tree_leaves(got), fad.tree.tree_leaves(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol)

BRANCHES = (lambda x: fnp.sin(x) * 2.0, lambda x: x * x * x, lambda x: fnp.exp(x), lambda x: -x)


def by_index(i: int, x):
    """What switch means: Python indexing with the index clamped."""
    return BRANCHES[min(max(i, 0), len(BRANCHES) - 1)](x)


def loss(f):
    return lambda x, *a: fnp.sum(f(x, *a) ** 2)


X = np.array([0.3, -0.7, 1.1])


# ---------------------------------------------------------------- switch
@pytest.mark.parametrize("i", [-3, 0, 1, 2, 3, 10])
def test_switch_is_clamped_indexing_in_every_mode(i):
    f = loss(lambda x, i: lax.switch(i, BRANCHES, x))
    ref = loss(lambda x: by_index(i, x))
    assert_allclose(lax.switch(i, BRANCHES, X), by_index(i, X))
    assert_allclose(fad.jit(f)(X, i), ref(X))
    assert_allclose(fad.grad(f)(X, i), fad.grad(ref)(X))
    assert_allclose(fad.jit(fad.grad(f))(X, i), fad.grad(ref)(X))
    assert_allclose(fad.jit(fad.hessian(f))(X, i), fad.hessian(ref)(X))
    t = np.array([1.0, 0.5, -2.0])
    assert_allclose(fad.jvp(lambda x: fad.jit(f)(x, i), (X,), (t,))[1],
                    fad.jvp(ref, (X,), (t,))[1])
    f_lin = fad.linearize(lambda x: fad.jit(f)(x, i), X)[1]
    assert_allclose(f_lin(t), fad.jvp(ref, (X,), (t,))[1])
    assert_allclose(fad.vjp(lambda x: fad.jit(f)(x, i), X)[1](1.0), fad.grad(ref)(X))


def test_switch_is_one_primitive_holding_every_branch():
    jaxpr = fad.make_jaxpr(lambda i, x: lax.switch(i, BRANCHES, x))(1, 2.0)
    assert str(jaxpr).count("cond[") == 1
    eqn = [e for e in jaxpr.jaxpr.eqns if e.primitive.name == "cond"][0]
    assert len(eqn.params["branches"]) == 4


def test_switch_with_a_batched_index_selects_each_examples_branch():
    idx = np.array([0, 1, 2, 3, 7, -2])
    xs = np.linspace(-1.0, 1.0, 6)
    want = np.array([by_index(int(i), x) for i, x in zip(idx, xs)])
    f = lambda i, x: lax.switch(i, BRANCHES, x)  # noqa: E731
    assert_allclose(fad.vmap(f)(idx, xs), want)
    assert_allclose(fad.jit(fad.vmap(f))(idx, xs), want)
    grads = np.array([float(fad.grad(lambda x: by_index(int(i), x))(x)) for i, x in zip(idx, xs)])
    assert_allclose(fad.vmap(fad.grad(f, argnums=1))(idx, xs), grads)
    assert_allclose(fad.jit(fad.vmap(fad.grad(f, argnums=1)))(idx, xs), grads)
    # batched index, shared operand
    assert_allclose(fad.vmap(f, in_axes=(0, None))(idx, 0.5),
                    [by_index(int(i), 0.5) for i in idx])


def test_switch_with_batched_operands_and_one_index():
    xs = np.linspace(-1.0, 1.0, 5)
    for i in (0, 2, 5):
        want = by_index(i, xs)
        assert_allclose(fad.vmap(lambda x: lax.switch(i, BRANCHES, x))(xs), want)
        assert_allclose(fad.jit(fad.vmap(lambda x, i: lax.switch(i, BRANCHES, x),
                                         in_axes=(0, None)))(xs, i), want)


def test_switch_closing_over_traced_values_and_pytrees():
    def f(x, y, i):
        branches = [lambda p: {"a": p[0] * y, "b": p[1]},
                    lambda p: {"a": p[0] + y, "b": p[1] * 2.0},
                    lambda p: {"a": fnp.sin(y) * p[0], "b": -p[1]}]
        out = lax.switch(i, branches, (x, x + 1.0))
        return out["a"] + out["b"]

    for i in range(3):
        assert_allclose(fad.jit(f)(1.5, 0.5, i), f(1.5, 0.5, i))
        assert_allclose(fad.jit(fad.grad(f, argnums=(0, 1)))(1.5, 0.5, i),
                        fad.grad(f, argnums=(0, 1))(1.5, 0.5, i))


def test_switch_single_branch():
    assert float(lax.switch(5, [lambda x: x + 1.0], 1.0)) == 2.0
    assert float(fad.jit(lambda i: lax.switch(i, [lambda x: x + 1.0], 1.0))(-3)) == 2.0


def test_switch_errors_name_the_function_and_the_fix():
    with pytest.raises(TypeError, match=r"switch's branches must return the same .*"
                                        r"from branches\[0\] but f32\[\] from branches\[1\]"):
        lax.switch(0, [lambda x: x, lambda x: x.astype(np.float32)], 1.0)
    with pytest.raises(TypeError, match="switch's branches must return the same"):
        fad.jit(lambda i: lax.switch(i, [lambda: 1.0, lambda: (1.0, 2.0)]))(0)
    with pytest.raises(ValueError, match="at least one branch"):
        lax.switch(0, [], 1.0)
    with pytest.raises(TypeError, match="sequence of functions"):
        lax.switch(0, lambda x: x, 1.0)
    with pytest.raises(TypeError, match="index must be an integer scalar"):
        lax.switch(1.0, BRANCHES, 1.0)
    with pytest.raises(TypeError, match="index must be an integer scalar"):
        lax.switch(np.array([0, 1]), BRANCHES, 1.0)
    with pytest.raises(TypeError, match="index must be an integer scalar.*use fad.lax.cond"):
        lax.switch(True, BRANCHES, 1.0)


def test_cond_keeps_its_messages():
    with pytest.raises(TypeError, match="from true_fun but f32"):
        lax.cond(True, lambda x: x, lambda x: x.astype(np.float32), 1.0)


# ---------------------------------------------------------------- select
def test_select_and_select_n():
    x = np.array([1.0, -2.0, 3.0])
    assert_allclose(lax.select(x > 0, x, -x), np.abs(x))
    assert_allclose(lax.select(np.bool_(False), x, -x), -x)
    assert_allclose(fad.grad(lambda x: fnp.sum(lax.select(x > 0, x * x, -x)))(x),
                    [2.0, -1.0, 6.0])
    cases = [np.zeros(3), np.ones(3), np.full(3, 2.0)]
    which = np.array([2, 0, 1])
    assert_allclose(lax.select_n(which, *cases), [2.0, 0.0, 1.0])
    assert_allclose(lax.select_n(np.int32(1), *cases), cases[1])
    assert_allclose(lax.select_n(x > 0, -x, x), [1.0, 2.0, 3.0])
    assert_allclose(fad.jit(lax.select_n)(which, *cases), [2.0, 0.0, 1.0])
    many = [np.full(2, float(k)) for k in range(7)]
    for k in range(7):
        assert_allclose(lax.select_n(np.array([k, 6 - k]), *many), [k, 6 - k])
    w = np.array([[0, 1, 2], [2, 2, 0]])
    assert_allclose(fad.vmap(lax.select_n)(w, *[np.stack([c, c]) for c in cases]),
                    [[0.0, 1.0, 2.0], [2.0, 2.0, 0.0]])


def test_select_does_not_broadcast():
    x = np.ones((2, 3))
    with pytest.raises(TypeError, match="select's selector must be a scalar or have"):
        lax.select(np.array([True, False, True]), x, x)
    with pytest.raises(TypeError, match="one shape and dtype"):
        lax.select(True, x, np.ones(3))
    with pytest.raises(TypeError, match="one shape and dtype"):
        lax.select(True, x, x.astype(np.float32))
    with pytest.raises(TypeError, match="must be boolean"):
        lax.select(np.ones((2, 3)), x, x)
    with pytest.raises(TypeError, match="at most two cases"):
        lax.select_n(True, x, x, x)
    with pytest.raises(ValueError, match="at least one case"):
        lax.select_n(0)


def test_stop_gradient_is_reexported():
    assert lax.stop_gradient is fad.stop_gradient
    assert float(fad.grad(lambda x: x * lax.stop_gradient(x))(3.0)) == 3.0


# ---------------------------------------------------------------- map
def f_row(x):
    return {"s": fnp.sin(x) * fnp.sum(x), "n": fnp.sum(x * x)}


def loop_map(x):
    rows = [f_row(x[i]) for i in range(x.shape[0])]
    return {"s": fnp.stack([r["s"] for r in rows]), "n": fnp.stack([r["n"] for r in rows])}


@pytest.mark.parametrize("batch_size", [None, 1, 2, 3, 5, 9])
def test_map_equals_a_loop(batch_size):
    x = np.linspace(-1.0, 1.0, 15).reshape(5, 3)
    m = lambda x: lax.map(f_row, x, batch_size=batch_size)  # noqa: E731
    for got in (m(x), fad.jit(m)(x)):
        assert_allclose(got["s"], loop_map(x)["s"])
        assert_allclose(got["n"], loop_map(x)["n"])
    total = lambda f: lambda x: fnp.sum(f(x)["s"]) + fnp.sum(f(x)["n"])  # noqa: E731
    assert_allclose(fad.jit(fad.grad(total(m)))(x), fad.grad(total(loop_map))(x))
    assert_allclose(fad.vmap(lambda x: m(x)["n"])(np.stack([x, 2 * x])),
                    np.stack([loop_map(x)["n"], loop_map(2 * x)["n"]]))


def test_map_errors():
    with pytest.raises(ValueError, match="batch_size must be a positive int"):
        lax.map(fnp.sin, np.ones(3), batch_size=0)


# ---------------------------------------------------------------- scan
def body(c, x):
    c2 = fnp.sin(c) * x + c
    return c2, c2 * x


def loop_scan(c, xs, reverse):
    ys = [None] * xs.shape[0]
    for i in (range(xs.shape[0] - 1, -1, -1) if reverse else range(xs.shape[0])):
        c, ys[i] = body(c, xs[i])
    return c, fnp.stack(ys)


def scalar_out(r):
    return r[0] + fnp.sum(r[1] ** 2)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("unroll", [1, 2, 3, 7, 10, True])
def test_scan_unroll_and_reverse_equal_a_loop_in_every_mode(reverse, unroll):
    xs, c0 = np.linspace(0.1, 1.0, 7), 0.5
    f = lambda c, xs: scalar_out(lax.scan(body, c, xs, reverse=reverse,  # noqa: E731
                                          unroll=unroll))
    ref = lambda c, xs: scalar_out(loop_scan(c, xs, reverse))  # noqa: E731
    assert_allclose(fad.jit(f)(c0, xs), ref(c0, xs))
    assert_allclose(fad.jit(fad.grad(f, (0, 1)))(c0, xs), fad.grad(ref, (0, 1))(c0, xs))
    ts = (1.0, np.ones(7))
    assert_allclose(fad.jvp(fad.jit(f), (c0, xs), ts)[1], fad.jvp(ref, (c0, xs), ts)[1])
    cs = np.array([0.5, 0.2])
    assert_allclose(fad.jit(fad.vmap(f, (0, None)))(cs, xs), [ref(c, xs) for c in cs])
    assert_allclose(fad.jit(fad.hessian(f))(c0, xs), fad.hessian(ref)(c0, xs))


def test_scan_unroll_shortens_the_staged_loop():
    xs = np.arange(7.0)
    jaxpr = str(fad.make_jaxpr(lambda xs: lax.scan(body, 0.5, xs, unroll=3))(xs))
    assert "length=2" in jaxpr and "length=1" in jaxpr
    full = str(fad.make_jaxpr(lambda xs: lax.scan(body, 0.5, xs, unroll=True))(xs))
    assert "length=1 " in full and full.count("scan[") == 1


def test_scan_unroll_with_no_xs_and_pytrees():
    def f(c):
        return lax.scan(lambda c, _: ((c[0] * 2.0, c[1] + 1), {"y": c[0]}), c, None,
                        length=5, unroll=2)
    (a, b), ys = fad.jit(f)((1.0, 0))
    assert float(a) == 32.0 and int(b) == 5
    assert_allclose(ys["y"], [1.0, 2.0, 4.0, 8.0, 16.0])


@pytest.mark.parametrize("unroll", [0, -1, 1.5, "2"])
def test_scan_unroll_must_be_positive(unroll):
    with pytest.raises(ValueError, match="unroll must be a positive int or a bool"):
        lax.scan(body, 0.0, np.ones(3), unroll=unroll)


# ---------------------------------------------------------------- fori_loop
def fori(x):
    return lax.fori_loop(0, 4, lambda i, v: fnp.sin(v) * x + i, x)


def fori_ref(x):
    v = x
    for i in range(4):
        v = fnp.sin(v) * x + i
    return v


def test_fori_loop_with_python_bounds_is_reverse_differentiable():
    want = fad.grad(fori_ref)(0.7)
    assert_allclose(fad.grad(fori)(0.7), want)
    assert_allclose(fad.jit(fad.grad(fori))(0.7), want)
    assert_allclose(fad.grad(fad.jit(fori))(0.7), want)
    assert_allclose(fad.jit(fad.hessian(fori))(0.7), fad.hessian(fori_ref)(0.7))
    assert_allclose(fad.vmap(fad.grad(fori))(np.array([0.7, 0.2])),
                    [fad.grad(fori_ref)(0.7), fad.grad(fori_ref)(0.2)])
    # bounds that are Python ints inside jit (static arguments)
    g = lambda x, n: lax.fori_loop(0, n, lambda i, v: v * x, 1.0)  # noqa: E731
    assert float(fad.jit(fad.grad(g), static_argnums=1)(2.0, 3)) == 12.0
    assert float(fad.grad(fad.jit(g, static_argnums=1))(2.0, 3)) == 12.0


def test_fori_loop_with_traced_bounds_names_the_fix_in_reverse_mode():
    g = lambda x, n: lax.fori_loop(0, n, lambda i, v: v * x, 1.0)  # noqa: E731
    with pytest.raises(ValueError, match=r"fori_loop with traced bounds.*reverse mode.*"
                                         r"static_argnums"):
        fad.grad(fad.jit(g))(2.0, 3)
    # forward mode works with traced bounds
    assert float(fad.jit(lambda x, n: fad.jvp(lambda x: g(x, n), (x,), (1.0,))[1])(2.0, 3)) \
        == 12.0
