"""``fad.custom_jvp``, ``fad.custom_vjp`` and ``fad.checkpoint``: the user's rule is
honoured by grad, jvp, vjp, jit, vmap and their compositions; nondiff_argnums;
the documented examples (a stable log1pexp, gradient clipping); errors of a
malformed backward rule; rematerialisation visible in the gradient's IR.
"""

import functools

import numpy as np
import pytest

import fad
import fad.numpy as fnp

X = np.linspace(-1.5, 2.0, 5)


def assert_close(got, want, rtol=1e-12, atol=1e-14):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def prims(closed):
    return [e.primitive.name for e in closed.eqns]


# ============================================================ custom_jvp
@fad.custom_jvp
def log1pexp(x):
    return fnp.log(1.0 + fnp.exp(x))


@log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * (1.0 - 1.0 / (1.0 + fnp.exp(x)))


def naive_log1pexp(x):
    return fnp.log(1.0 + fnp.exp(x))


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@np.errstate(over="ignore", invalid="ignore", divide="ignore")
def test_stable_log1pexp_has_a_finite_gradient_where_the_naive_one_is_nan():
    assert np.isnan(float(fad.grad(naive_log1pexp)(1000.0)))
    assert float(fad.grad(log1pexp)(1000.0)) == 1.0
    _, t = fad.jvp(log1pexp, (1000.0,), (1.0,))
    assert float(t) == 1.0
    _, pull = fad.vjp(log1pexp, 1000.0)
    assert float(pull(1.0)[0]) == 1.0
    assert float(fad.jit(lambda x: fad.grad(log1pexp)(x))(1000.0)) == 1.0
    assert_close(fad.vmap(fad.grad(log1pexp))(np.array([0.0, 1000.0])), [0.5, 1.0])


def test_log1pexp_values_and_derivatives_agree_with_the_formula():
    assert_close(log1pexp(X), np.log1p(np.exp(X)))
    assert_close(fad.vmap(fad.grad(log1pexp))(X), _sigmoid(X))
    s = _sigmoid(0.7)
    assert float(fad.grad(fad.grad(log1pexp))(0.7)) == pytest.approx(s * (1 - s), rel=1e-12)
    h = fad.hessian(lambda x: fnp.sum(log1pexp(x)))(X)
    assert_close(h, np.diag(_sigmoid(X) * (1 - _sigmoid(X))))


def test_make_jaxpr_records_one_custom_jvp_call():
    closed = fad.make_jaxpr(log1pexp)(1.0)
    assert prims(closed) == ["custom_jvp_call"]


# A rule that is deliberately not the derivative of the function: if any
# transformation differentiated sin itself, the numbers would show cos.
@fad.custom_jvp
def fake_sin(x):
    return fnp.sin(x)


@fake_sin.defjvp
def _fake_sin_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return fake_sin(x), t * 10.0 * x      # "d/dx" = 10 x


def test_custom_jvp_rule_is_used_by_every_transformation():
    x = 0.7
    assert float(fad.grad(fake_sin)(x)) == pytest.approx(7.0)
    y, t = fad.jvp(fake_sin, (x,), (2.0,))
    assert float(y) == pytest.approx(np.sin(x)) and float(t) == pytest.approx(14.0)
    assert float(fad.vjp(fake_sin, x)[1](1.0)[0]) == pytest.approx(7.0)
    assert float(fad.grad(lambda x: fake_sin(x) * 2.0)(x)) == pytest.approx(14.0)
    assert float(fad.grad(fad.grad(fake_sin))(x)) == pytest.approx(10.0)   # the rule's own
    assert_close(fad.vmap(fake_sin)(X), np.sin(X))
    assert_close(fad.vmap(fad.grad(fake_sin))(X), 10.0 * X)
    assert_close(fad.jacfwd(lambda v: fake_sin(v))(X), np.diag(10.0 * X))
    assert_close(fad.jacrev(lambda v: fake_sin(v))(X), np.diag(10.0 * X))
    assert_close(fad.hessian(lambda v: fnp.sum(fake_sin(v)))(X), np.eye(5) * 10.0)


def test_custom_jvp_under_jit_in_every_order():
    jg = fad.jit(lambda x: fad.grad(fake_sin)(x))
    assert float(jg(0.7)) == pytest.approx(7.0)
    assert float(fad.grad(fad.jit(lambda x: fake_sin(x)))(0.7)) == pytest.approx(7.0)
    assert_close(fad.jit(lambda v: fad.vmap(fad.grad(fake_sin))(v))(X), 10.0 * X)
    assert_close(fad.vmap(fad.jit(lambda v: fad.grad(fake_sin)(v)))(X), 10.0 * X)
    assert_close(fad.grad(lambda v: fnp.sum(fad.jit(fad.vmap(lambda u: fake_sin(u)))(v)))(X),
                 10.0 * X)
    closed = fad.jit(lambda x: fake_sin(x) * 2.0).lower(0.7)
    assert "custom_jvp_call" in prims(closed)


def test_grad_of_jit_applied_directly_to_a_custom_jvp_function():
    assert float(fad.grad(fad.jit(fake_sin))(0.7)) == pytest.approx(7.0)


def test_jit_of_grad_applied_directly_to_a_custom_jvp_function():
    assert float(fad.jit(fad.grad(fake_sin))(0.7)) == pytest.approx(7.0)


def test_custom_jvp_nondiff_argnums():
    @functools.partial(fad.custom_jvp, nondiff_argnums=(0, 2))
    def apply(g, x, power):
        return g(x) ** power

    @apply.defjvp
    def _apply_jvp(g, power, primals, tangents):   # nondiff arguments come first
        (x,), (t,) = primals, tangents
        return apply(g, x, power), t * power * 100.0

    assert float(apply(fnp.sin, 0.5, 2)) == pytest.approx(np.sin(0.5) ** 2)
    assert float(fad.grad(lambda x: apply(fnp.sin, x, 3))(0.5)) == pytest.approx(300.0)
    assert float(fad.jvp(lambda x: apply(fnp.cos, x, 2), (0.5,), (1.0,))[1]) == 200.0
    assert_close(fad.vmap(fad.grad(lambda x: apply(fnp.exp, x, 2)))(X), np.full(5, 200.0))
    assert float(fad.jit(lambda x: fad.grad(lambda y: apply(fnp.sin, y, 3))(x))(0.5)) == 300.0


def test_custom_jvp_with_pytrees():
    @fad.custom_jvp
    def f(d):
        return d["a"] * d["b"], fnp.sum(d["a"])

    @f.defjvp
    def _f_jvp(primals, tangents):
        (d,), (t,) = primals, tangents
        return f(d), (t["a"] * d["b"] + d["a"] * t["b"], fnp.sum(t["a"]) * 3.0)

    d = {"a": np.array([1.0, 2.0]), "b": np.array([3.0, -1.0])}
    (p, s), (tp, ts) = fad.jvp(f, (d,), ({"a": np.ones(2), "b": np.zeros(2)},))
    assert_close(p, [3.0, -2.0])
    assert_close(tp, [3.0, -1.0])
    assert float(ts) == 6.0
    g = fad.grad(lambda d: f(d)[1])(d)
    assert_close(g["a"], [3.0, 3.0])
    assert_close(g["b"], [0.0, 0.0])


@fad.custom_jvp
def _times_total(x):
    return x * fnp.sum(x)


_times_total.defjvp(lambda p, t: (_times_total(p[0]),
                                  t[0] * fnp.sum(p[0]) + p[0] * fnp.sum(t[0])))


@fad.custom_jvp
def _sin_times(x, y):
    return fnp.sin(x) * y


_sin_times.defjvp(lambda p, t: (_sin_times(*p),
                                fnp.cos(p[0]) * t[0] * p[1] + fnp.sin(p[0]) * t[1]))


def _columns_and_loop(in_axes):
    """(vmapped function of a (2, 3) array, the same as a Python loop)."""
    if isinstance(in_axes, int):  # over the columns of the array
        return (lambda a: fad.vmap(_times_total, in_axes=in_axes)(a),
                lambda a: fnp.stack([_times_total(a[:, j]) for j in range(3)]))
    k = in_axes.index(0)  # over its six entries, the other argument fixed at 2
    args = lambda x: (x, 2.0) if k == 0 else (2.0, x)
    return (lambda a: fad.vmap(_sin_times, in_axes=in_axes)(*args(a.ravel())),
            lambda a: fnp.stack([_sin_times(*args(a.ravel()[i])) for i in range(6)]))


@pytest.mark.parametrize("in_axes", [1, -1, (0, None), (None, 0)])
def test_custom_jvp_under_vmap_with_any_in_axes_then_differentiated(in_axes):
    """The batched rule sees the arguments where the batched call put them
    (batch axis moved to the front, unbatched ones left alone): jvp and grad of
    vmap agree with a Python loop over the examples."""
    f, loop = _columns_and_loop(in_axes)
    X, t = np.arange(6.0).reshape(2, 3) / 5, np.linspace(0.5, 1.5, 6).reshape(2, 3)
    np.testing.assert_allclose(fad.jvp(f, (X,), (t,))[1], fad.jvp(loop, (X,), (t,))[1],
                               rtol=1e-12)
    w = np.linspace(-1, 1, np.size(loop(X))).reshape(np.shape(loop(X)))
    np.testing.assert_allclose(fad.grad(lambda a: fnp.sum(f(a) * w))(X),
                               fad.grad(lambda a: fnp.sum(loop(a) * w))(X), rtol=1e-12)


def test_custom_jvp_without_a_rule_is_a_clear_error():
    f = fad.custom_jvp(lambda x: x)
    with pytest.raises(AttributeError, match="defjvp"):
        f(1.0)


# ============================================================ custom_vjp
@functools.partial(fad.custom_vjp, nondiff_argnums=(0, 1))
def clip_gradient(lo, hi, x):
    return x


def _clip_fwd(lo, hi, x):
    return x, None


def _clip_bwd(lo, hi, res, g):
    return (fnp.clip(g, lo, hi),)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def test_gradient_clipping():
    assert float(clip_gradient(-1.0, 1.0, 3.0)) == 3.0
    assert float(fad.grad(lambda x: 5.0 * clip_gradient(-1.0, 1.0, x))(2.0)) == 1.0
    assert float(fad.grad(lambda x: 0.5 * clip_gradient(-1.0, 1.0, x))(2.0)) == 0.5
    assert float(fad.grad(lambda x: -5.0 * clip_gradient(-2.0, 1.0, x))(2.0)) == -2.0
    scales = np.array([-3.0, -0.5, 0.25, 4.0])
    g = fad.grad(lambda x: fnp.sum(scales * clip_gradient(-1.0, 1.0, x)))(np.ones(4))
    assert_close(g, np.clip(scales, -1.0, 1.0))
    per_example = fad.vmap(fad.grad(lambda x, s: s * clip_gradient(-1.0, 1.0, x)))
    assert_close(per_example(np.ones(4), scales), np.clip(scales, -1.0, 1.0))
    jg = fad.jit(lambda x: fad.grad(lambda y: 5.0 * clip_gradient(-1.0, 1.0, y))(x))
    assert float(jg(2.0)) == 1.0


def test_gradient_clipping_documented_form():
    @fad.custom_vjp
    def clip(x):
        return x
    clip.defvjp(lambda x: (x, None), lambda res, g: (fnp.clip(g, -1.0, 1.0),))
    assert float(fad.grad(lambda x: 5.0 * clip(x))(2.0)) == 1.0


# a backward rule that is deliberately not the derivative: 10 cos(x) for sin(x)
@fad.custom_vjp
def loud_sin(x):
    return fnp.sin(x)


loud_sin.defvjp(lambda x: (fnp.sin(x), x), lambda x, g: (10.0 * g * fnp.cos(x),))


def test_custom_vjp_rule_is_used_by_every_transformation():
    x = 0.7
    assert float(loud_sin(x)) == pytest.approx(np.sin(x))
    assert float(fad.grad(loud_sin)(x)) == pytest.approx(10 * np.cos(x))
    _, pull = fad.vjp(loud_sin, x)
    assert float(pull(2.0)[0]) == pytest.approx(20 * np.cos(x))
    assert float(pull(1.0)[0]) == pytest.approx(10 * np.cos(x))     # callable again
    # forward mode transposes the (linear in g) backward rule
    assert float(fad.jvp(loud_sin, (x,), (3.0,))[1]) == pytest.approx(30 * np.cos(x))
    # the backward rule is written in fad operations: it is differentiable
    assert float(fad.grad(fad.grad(loud_sin))(x)) == pytest.approx(-10 * np.sin(x))
    assert_close(fad.vmap(loud_sin)(X), np.sin(X))
    assert_close(fad.vmap(fad.grad(loud_sin))(X), 10 * np.cos(X))
    assert_close(fad.jacrev(lambda v: loud_sin(v))(X), np.diag(10 * np.cos(X)))
    assert_close(fad.jacfwd(lambda v: loud_sin(v))(X), np.diag(10 * np.cos(X)))


def test_custom_vjp_under_jit_in_every_order():
    assert float(fad.jit(lambda x: fad.grad(loud_sin)(x))(0.7)) == pytest.approx(
        10 * np.cos(0.7))
    assert float(fad.grad(fad.jit(lambda x: loud_sin(x)))(0.7)) == pytest.approx(
        10 * np.cos(0.7))
    assert_close(fad.jit(lambda v: fad.vmap(fad.grad(loud_sin))(v))(X), 10 * np.cos(X))
    assert_close(fad.grad(lambda v: fnp.sum(fad.vmap(fad.jit(lambda u: loud_sin(u)))(v)))(X),
                 10 * np.cos(X))
    assert "custom_vjp_call" in prims(fad.make_jaxpr(loud_sin)(0.7))


def test_grad_of_jit_applied_directly_to_a_custom_vjp_function():
    assert float(fad.grad(fad.jit(loud_sin))(0.7)) == pytest.approx(10 * np.cos(0.7))


def test_custom_vjp_with_pytrees_and_several_arguments():
    @fad.custom_vjp
    def f(p, x):
        return {"y": p["w"] * x + p["b"], "z": fnp.sum(x)}

    def fwd(p, x):
        return f(p, x), {"p": p, "x": x}

    def bwd(res, ct):
        p, x = res["p"], res["x"]
        gw = fnp.sum(ct["y"] * x) * 2.0        # doubled on purpose
        return {"w": gw, "b": fnp.sum(ct["y"])}, ct["y"] * p["w"] + ct["z"]

    f.defvjp(fwd, bwd)
    p, x = {"w": np.float64(3.0), "b": np.float64(1.0)}, np.array([1.0, 2.0])
    gp, gx = fad.grad(lambda p, x: fnp.sum(f(p, x)["y"]) + f(p, x)["z"], argnums=(0, 1))(p, x)
    assert float(gp["w"]) == 6.0 and float(gp["b"]) == 2.0
    assert_close(gx, [4.0, 4.0])


def test_custom_vjp_nondiff_argnums_under_vmap_and_jit():
    @functools.partial(fad.custom_vjp, nondiff_argnums=(1,))
    def scale(x, k):
        return x * k

    scale.defvjp(lambda x, k: (x * k, None), lambda k, res, g: (g * k * 2.0,))
    assert float(fad.grad(lambda x: scale(x, 3.0))(1.0)) == 6.0
    assert_close(fad.vmap(fad.grad(lambda x: scale(x, 3.0)))(X), np.full(5, 6.0))
    assert float(fad.jit(lambda x: fad.grad(lambda y: scale(y, 4.0))(x))(1.0)) == 8.0


# ---------------------------------------------------------------- malformed backward rules
def _with_bwd(bwd, nargs=2):
    if nargs == 2:
        @fad.custom_vjp
        def f(x, y):
            return x * y
        f.defvjp(lambda x, y: (x * y, (x, y)), bwd)
    else:
        @fad.custom_vjp
        def f(d):
            return d["a"] * d["b"]
        f.defvjp(lambda d: (f(d), d), bwd)
    return f


def test_backward_returning_too_few_cotangents_names_the_expected_count():
    f = _with_bwd(lambda res, g: (g * res[1],))
    with pytest.raises(TypeError) as info:
        fad.grad(f)(1.0, 2.0)
    msg = str(info.value)
    assert "2" in msg and "length 1" in msg and "f" in msg


def test_backward_returning_a_list_names_the_expected_tuple():
    f = _with_bwd(lambda res, g: [g * res[1], g * res[0]])
    with pytest.raises(TypeError, match="tuple"):
        fad.grad(f)(1.0, 2.0)


def test_backward_returning_the_wrong_structure_names_the_expected_one():
    f = _with_bwd(lambda res, g: ((g, g),), nargs=1)
    with pytest.raises(TypeError) as info:
        fad.grad(f)({"a": 1.0, "b": 2.0})
    msg = str(info.value)
    assert "expected" in msg and "'a'" in msg and "'b'" in msg


@pytest.mark.parametrize("transform", ["grad", "vjp", "jit_grad", "vmap_grad"])
def test_backward_returning_the_wrong_shape_names_both_shapes(transform):
    f = _with_bwd(lambda res, g: (g * res[1], fnp.ones(7)))
    x, y = np.ones(3), np.ones(3)
    scalar = lambda x, y: fnp.sum(f(x, y))
    run = {
        "grad": lambda: fad.grad(scalar, argnums=(0, 1))(x, y),
        "vjp": lambda: fad.vjp(f, x, y)[1](np.ones(3)),
        "jit_grad": lambda: fad.jit(lambda a, b: fad.grad(scalar, argnums=(0, 1))(a, b))(x, y),
        "vmap_grad": lambda: fad.vmap(fad.grad(f, argnums=(0, 1)))(x, y),
    }[transform]
    with pytest.raises(TypeError) as info:
        run()
    msg = str(info.value)
    assert "(7,)" in msg
    assert ("(3,)" in msg) if transform in ("grad", "vjp", "jit_grad") else ("()" in msg)


def test_custom_vjp_without_a_rule_is_a_clear_error():
    f = fad.custom_vjp(lambda x: x)
    with pytest.raises(AttributeError, match="defvjp"):
        f(1.0)


# ============================================================ checkpoint
def _chain(x):
    h = fnp.sin(x)
    h = fnp.tanh(h * x)
    h = fnp.exp(h) * h
    return fnp.sum(h)


def _residuals(grad_closed, n_forward):
    """Forward intermediates (outputs of the first ``n_forward`` equations) that the
    equations after the forward section read: what reverse mode keeps alive."""
    eqns = grad_closed.eqns
    produced = {v for e in eqns[:n_forward] for v in e.outvars}
    return {a for e in eqns[n_forward:] for a in e.invars if a in produced}


def test_checkpoint_keeps_gradients_and_recomputes_the_forward_pass():
    x = np.linspace(0.1, 1.0, 4)
    forward = fad.make_jaxpr(_chain)(x)
    n = len(forward.eqns)
    plain = fad.make_jaxpr(fad.grad(_chain))(x)
    remat = fad.make_jaxpr(fad.grad(fad.checkpoint(_chain)))(x)
    # both gradient programs start with the forward pass
    assert prims(plain)[:n] == prims(forward) == prims(remat)[:n]
    kept_plain, kept_remat = _residuals(plain, n), _residuals(remat, n)
    assert len(kept_plain) >= 3               # sin x, tanh(.), exp(.) are stored
    assert len(kept_remat) < len(kept_plain)
    assert kept_remat == set()                # only the input x crosses the boundary
    # ...because the backward part recomputes the forward operations
    assert prims(remat).count("sin") == 2 and prims(remat).count("tanh") == 2
    assert prims(plain).count("sin") == 1
    assert_close(fad.grad(fad.checkpoint(_chain))(x), fad.grad(_chain)(x))


def test_checkpoint_inside_a_larger_function():
    inner = lambda a: fnp.sum(fnp.sin(fnp.sin(a)))

    def f(x, remat):
        y = fnp.cos(x) * 2.0
        z = (fad.checkpoint(inner) if remat else inner)(y)
        return z * fnp.sum(y)

    x = np.linspace(0.1, 1.0, 4)
    n = len(fad.make_jaxpr(lambda x: f(x, False))(x).eqns)
    plain = fad.make_jaxpr(fad.grad(lambda x: f(x, False)))(x)
    remat = fad.make_jaxpr(fad.grad(lambda x: f(x, True)))(x)
    assert prims(plain)[:n] == prims(remat)[:n]
    sin_sin = {v for e in plain.eqns[:n] if e.primitive.name == "sin" for v in e.outvars}
    assert _residuals(plain, n) & sin_sin
    sin_sin_r = {v for e in remat.eqns[:n] if e.primitive.name == "sin" for v in e.outvars}
    assert not _residuals(remat, n) & sin_sin_r
    assert_close(fad.grad(lambda x: f(x, True))(x), fad.grad(lambda x: f(x, False))(x))


@pytest.mark.parametrize("transform", ["grad", "vjp_twice", "jvp", "vmap_grad", "jit_grad",
                                       "hessian", "grad_grad"])
def test_checkpoint_gradients_are_unchanged(transform):
    x = np.linspace(0.1, 1.0, 4)
    f, cf = _chain, fad.checkpoint(_chain)
    run = {
        "grad": lambda g: fad.grad(g)(x),
        "vjp_twice": lambda g: [fad.vjp(g, x)[1](c)[0] for c in (1.0, -2.5)],
        "jvp": lambda g: fad.jvp(g, (x,), (np.cos(x),)),
        "vmap_grad": lambda g: fad.vmap(fad.grad(g))(np.stack([x, x * 2])),
        "jit_grad": lambda g: fad.jit(lambda a: fad.grad(g)(a))(x),
        "hessian": lambda g: fad.hessian(g)(x),
        "grad_grad": lambda g: fad.grad(lambda a: fnp.sum(fad.grad(g)(a) ** 2))(x),
    }[transform]
    for a, b in zip(fad.tree.tree_leaves(run(cf)), fad.tree.tree_leaves(run(f))):
        assert_close(a, b)


def test_checkpoint_with_pytrees_and_nesting():
    def block(p, x):
        return {"out": fnp.tanh(x @ p["w"]) + p["b"], "aux": fnp.sum(x)}

    def net(p, x, remat):
        blk = fad.checkpoint(block) if remat else block
        h = blk(p, x)
        h = blk(p, h["out"])
        inner = fad.checkpoint(lambda v: fnp.sum(fnp.sin(v) ** 2)) if remat else \
            (lambda v: fnp.sum(fnp.sin(v) ** 2))
        return inner(h["out"]) + h["aux"]

    rng = np.random.default_rng(0)
    p = {"w": rng.normal(size=(3, 3)), "b": rng.normal(size=3)}
    x = rng.normal(size=(2, 3))
    g1 = fad.grad(lambda p: net(p, x, True))(p)
    g0 = fad.grad(lambda p: net(p, x, False))(p)
    assert_close(g1["w"], g0["w"])
    assert_close(g1["b"], g0["b"])
    assert float(net(p, x, True)) == pytest.approx(float(net(p, x, False)), rel=1e-14)
    assert prims(fad.make_jaxpr(lambda x: net(p, x, True))(x)).count("checkpoint") == 3


def test_a_negated_cotangent_reaches_a_users_backward_with_its_sign():
    """Reverse mode keeps a subtraction's ``-ct`` unmaterialized through linear
    rules; a custom backward (not necessarily linear, here a clip) gets it
    negated. Asymmetric bounds tell the sign apart."""
    g = fad.grad(lambda x: 0.0 - 5.0 * clip_gradient(-2.0, 1.0, x))(2.0)
    assert float(g) == -2.0
    g = fad.grad(lambda x: 3.0 - clip_gradient(-0.5, 1.0, x) * 4.0)(2.0)
    assert float(g) == -0.5
    xs = np.array([1.0, 2.0, 3.0])
    g = fad.grad(lambda x: fnp.sum(1.0 - (2.0 - clip_gradient(-1.0, 0.5, x[1:]))))(xs)
    assert_close(g, np.array([0.0, 0.5, 0.5]))


# ============================================================ closures over traced values
def _layer_loss(remat):
    """A loss whose layer closes over the parameters ``w`` (the usual way to
    checkpoint a layer), with or without ``checkpoint``."""
    x = np.array([0.3, 1.2])

    def loss(w):
        layer = lambda a: fnp.tanh(a * w) * fnp.sin(w)
        h = (fad.checkpoint(layer) if remat else layer)(x)
        return fnp.sum(h ** 2)
    return loss


@pytest.mark.parametrize("transform", ["grad", "jit_grad", "jit_value_and_grad", "jit",
                                       "vmap_grad", "jvp_grad"])
def test_checkpoint_closing_over_parameters_in_every_transformation(transform):
    """The closed-over parameters become inputs of the checkpointed call: the
    gradient with respect to them is the plain one under every transformation
    (under jit too: neither zero nor an escaped tracer)."""
    w = np.array([0.5, -1.0])
    ws = np.stack([w, 2 * w, -w])
    run = {
        "grad": lambda f: fad.grad(f)(w),
        "jit_grad": lambda f: fad.jit(fad.grad(f))(w),
        "jit_value_and_grad": lambda f: fad.jit(fad.value_and_grad(f))(w)[1],
        "jit": lambda f: fad.jit(f)(w),
        "vmap_grad": lambda f: fad.vmap(fad.grad(f))(ws),
        "jvp_grad": lambda f: fad.jvp(fad.grad(f), (w,), (np.array([1.0, 2.0]),))[1],
    }[transform]
    assert_close(run(_layer_loss(True)), run(_layer_loss(False)))


def test_checkpoint_recomputes_what_depends_on_closed_over_parameters():
    """Eager grad of a checkpointed layer that closes over its parameters stores
    only the inputs: the layer's operations run twice in the gradient program."""
    w = np.array([0.5, -1.0])
    closed = fad.make_jaxpr(fad.grad(_layer_loss(True)))(w)
    assert prims(closed).count("tanh") == 2, str(closed)
    assert prims(fad.make_jaxpr(fad.grad(_layer_loss(False)))(w)).count("tanh") == 1


def _closing_jvp(s):
    """A custom_jvp function closing over ``s``, whose rule deliberately
    doubles the tangent of its explicit argument (so the rule shows)."""
    @fad.custom_jvp
    def f(x):
        return fnp.sin(x * s)

    f.defjvp(lambda p, t: (f(*p), 2.0 * fnp.cos(p[0] * s) * s * t[0]))
    return f


def test_custom_jvp_closing_over_a_traced_value_under_jit():
    """Staged by jit, the closure runs on the call's explicit input: values agree
    with eager; the rule covers the explicit argument, the closed-over value is
    differentiated through the function itself."""
    def outer(s, x):
        return _closing_jvp(s)(x)
    s, x = 2.0, 0.7
    assert_close(fad.jit(outer)(s, x), np.sin(x * s))
    for argnums, want in ((0, np.cos(x * s) * x), (1, 2.0 * np.cos(x * s) * s)):
        g = fad.grad(outer, argnums=argnums)
        assert_close(fad.jit(g)(s, x), want)
        assert_close(g(s, x), want)
        assert_close(fad.grad(fad.jit(outer), argnums=argnums)(s, x), want)


def _closing_vjp(s):
    """A custom_vjp function closing over ``s``; its backward clips."""
    @fad.custom_vjp
    def f(x):
        return x * s

    f.defvjp(lambda x: (f(x), None), lambda _, g: (fnp.clip(g * s, -1.0, 1.0),))
    return f


def test_custom_vjp_closing_over_a_traced_value_under_jit():
    def outer(s, x):
        return fnp.sum(3.0 * _closing_vjp(s)(x))
    s, x = 2.0, np.array([0.5, -1.0])
    assert_close(fad.jit(outer)(s, x), 3.0 * np.sum(x * s))
    for g in (fad.jit(fad.grad(outer, argnums=1)), fad.grad(fad.jit(outer), argnums=1)):
        assert_close(g(s, x), [1.0, 1.0])              # the rule: clip(3 * 2)
    for g in (fad.jit(fad.grad(outer)), fad.grad(outer)):
        assert_close(g(s, x), 3.0 * np.sum(x))          # through the function itself


@pytest.mark.parametrize("kind", ["jvp", "vjp"])
def test_traced_nondiff_arguments_under_jit(kind):
    """A traced value in a nondiff_argnums position (a scale computed inside the
    jitted function) reaches the rule as a value, as in JAX."""
    if kind == "jvp":
        @functools.partial(fad.custom_jvp, nondiff_argnums=(1,))
        def scale(x, s):
            return x * s
        scale.defjvp(lambda s, p, t: (p[0] * s, t[0] * s))
    else:
        @functools.partial(fad.custom_vjp, nondiff_argnums=(1,))
        def scale(x, s):
            return x * s
        scale.defvjp(lambda x, s: (x * s, None), lambda s, _, g: (g * s,))
    x = np.array([0.3, 1.2])
    f = lambda a, s: fnp.sum(scale(a, s * 1.0) ** 2)
    assert_close(fad.jit(f)(x, 2.0), np.sum((2 * x) ** 2))
    assert_close(fad.jit(fad.grad(f))(x, 2.0), 8.0 * x)
    assert_close(fad.vmap(fad.jit(fad.grad(f)), in_axes=(0, None))(np.stack([x, x]), 2.0),
                 np.stack([8.0 * x] * 2))


# ============================================================ JAX's calling conventions
def test_backward_may_return_none_for_an_argument():
    """None for a whole argument is a zero cotangent (JAX's idiom, e.g. for an
    integer argument)."""
    @fad.custom_vjp
    def scaled(x, n):
        return x * n
    scaled.defvjp(lambda x, n: (x * n, n), lambda n, g: (g * n, None))
    n = np.array([2, 3])
    assert_close(fad.grad(lambda a: fnp.sum(scaled(a, n)))(np.array([0.3, 1.2])), [2.0, 3.0])
    assert_close(fad.grad(lambda a, b: fnp.sum(scaled(a, b)), argnums=1)(
        np.array([0.3, 1.2]), np.array([2.0, 3.0])), [0.0, 0.0])


def _jvp_with(rule):
    f = fad.custom_jvp(lambda x: fnp.sin(x))
    f.defjvp(lambda p, t: rule(f, p, t))
    return f


@pytest.mark.parametrize("rule, message", [
    (lambda f, p, t: (f(*p), fnp.sum(t[0])), r"tangent f64\[\] for a primal output f64\[3\]"),
    (lambda f, p, t: (f(*p), t[0].astype(np.float32)), r"tangent f32\[3\] .* f64\[3\]"),
    (lambda f, p, t: (f(*p), (t[0], t[0])), r"structured as \(\*, \*\); the primal .* \*"),
    (lambda f, p, t: (f(*p), None), r"structured as None"),
    (lambda f, p, t: f(*p), r"must return a pair \(primal_out, tangent_out\), got"),
])
def test_a_malformed_jvp_rule_is_a_clear_error(rule, message):
    """The rule's tangent must match its primal output in structure, shape and
    dtype (JAX checks the same); a silent mismatch would give wrong gradients."""
    f = _jvp_with(rule)
    for run in (lambda: fad.jvp(f, (np.ones(3),), (np.ones(3),)),
                lambda: fad.grad(lambda a: fnp.sum(f(a)))(np.ones(3))):
        with pytest.raises(TypeError, match=message):
            run()


def test_custom_rules_and_checkpoint_take_keywords_and_defaults():
    """Keyword arguments and defaults reach the rule as positional arguments."""
    @fad.custom_jvp
    def times(x, y=2.0):
        return x * y
    times.defjvp(lambda p, t: (p[0] * p[1], t[0] * p[1] + p[0] * t[1]))

    @fad.custom_vjp
    def times_v(x, y=2.0):
        return x * y
    times_v.defvjp(lambda x, y: (x * y, (x, y)), lambda r, g: (g * r[1], g * r[0]))
    for f in (times, times_v):
        assert_close(fad.grad(lambda a: f(a, y=3.0))(1.0), 3.0)
        assert_close(fad.grad(lambda a: f(a))(1.0), 2.0)
        assert_close(fad.jit(lambda a: f(a, y=3.0))(1.0), 3.0)
    remat = fad.checkpoint(lambda a, n=2.0: fnp.sin(a) * n)
    assert_close(fad.grad(lambda a: remat(a, n=3.0))(1.0), 3.0 * np.cos(1.0))
    assert_close(fad.grad(lambda a: remat(a))(1.0), 2.0 * np.cos(1.0))
    keyword_only = fad.custom_jvp(lambda x, *, y: x * y)
    keyword_only.defjvp(lambda p, t: (p[0], t[0]))
    with pytest.raises(TypeError, match="keyword-only"):
        keyword_only(1.0, y=2.0)


def test_checkpoint_under_jit_is_not_undone_by_the_optimiser():
    """jit(value_and_grad(checkpoint(f))): the backward pass recomputes from an
    optimization barrier, so common-subexpression elimination cannot fold the
    recomputation back into the forward values (which would store them again)."""
    x = np.linspace(0.1, 1.0, 4)
    lowered = fad.jit(fad.value_and_grad(fad.checkpoint(_chain))).lower(x)
    names = prims(lowered)
    assert names.count("tanh") == 2 and "optimization_barrier" in names, str(lowered)
    forward = names.index("optimization_barrier")
    assert _residuals(lowered, forward) == set()  # nothing but x crosses over
    plain = prims(fad.jit(fad.value_and_grad(_chain)).lower(x))
    assert plain.count("tanh") == 1
    value, grad = fad.jit(fad.value_and_grad(fad.checkpoint(_chain)))(x)
    assert_close(value, _chain(x))
    assert_close(grad, fad.grad(_chain)(x))
