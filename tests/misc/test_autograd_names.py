"""HIPS autograd's helpers under their names in fad: ``fad.misc`` (optimisers,
``flatten``, ``fixed_point``, ``extend``, ``test_util``) and the differential
operators ``elementwise_grad``, ``jacobian``, ``hessian_vector_product``,
``multigrad_dict``; values against autograd's own (when installed), against
finite differences and against fad's other transformations."""

import numpy as np
import pytest

import fad
import fad.numpy as fnp
from fad.misc import fixed_points, optimizers
from fad.misc.extend import defvjp, primitive
from fad.misc.flatten import flatten, flatten_func
from fad.misc.test_util import check_grads

rng = np.random.default_rng(0)
PARAMS = {"w": rng.normal(size=(3, 2)), "b": [rng.normal(size=2), 0.5]}
TARGET = {"w": rng.normal(size=(3, 2)), "b": [rng.normal(size=2), -1.0]}


def loss(p, i):
    flat, _ = flatten(p)
    want, _ = flatten(TARGET)
    return fnp.sum((flat - want) ** 4) + 0.1 * i * fnp.sum(flat ** 2)


def test_flatten_round_trip_and_order():
    flat, unflatten = flatten(PARAMS)
    assert flat.shape == (9,)
    np.testing.assert_array_equal(flat[:3], [PARAMS["b"][0][0], PARAMS["b"][0][1], 0.5])
    back = unflatten(flat)
    np.testing.assert_array_equal(back["w"], PARAMS["w"])
    assert back["b"][1].shape == ()
    # the vector's dtype wins (autograd's unflatten is a vjp): floats into an int leaf
    assert flatten([np.arange(2)])[1](np.array([0.5, 1.5]))[0].tolist() == [0.5, 1.5]
    f, unflatten, x = flatten_func(lambda p, k: {"s": p["w"].sum(0) * k}, PARAMS)
    np.testing.assert_allclose(f(x, 2.0), PARAMS["w"].sum(0) * 2.0)
    g = fad.grad(lambda p: fnp.sum(flatten(p)[0] ** 2))(PARAMS)
    np.testing.assert_allclose(g["w"], 2 * PARAMS["w"])


@pytest.mark.parametrize("name, kwargs", [("adam", {"step_size": 0.05}),
                                          ("sgd", {"step_size": 0.05, "mass": 0.8}),
                                          ("rmsprop", {"step_size": 0.01, "gamma": 0.8})])
def test_optimizers_give_autograds_numbers(name, kwargs):
    ag = pytest.importorskip("autograd")
    import autograd.numpy as anp
    from autograd.misc import optimizers as ag_optimizers
    from autograd.misc.flatten import flatten as ag_flatten

    def ag_loss(p, i):
        return anp.sum((ag_flatten(p)[0] - ag_flatten(TARGET)[0]) ** 4) + \
            0.1 * i * anp.sum(ag_flatten(p)[0] ** 2)
    seen, ag_seen = [], []
    ours = getattr(optimizers, name)(fad.grad(loss), PARAMS, num_iters=25,
                                     callback=lambda x, i, g: seen.append(g["w"]), **kwargs)
    theirs = getattr(ag_optimizers, name)(ag.grad(ag_loss), PARAMS, num_iters=25,
                                          callback=lambda x, i, g: ag_seen.append(g["w"]),
                                          **kwargs)
    np.testing.assert_allclose(flatten(ours)[0], ag_flatten(theirs)[0], rtol=1e-12)
    np.testing.assert_allclose(np.array(seen), np.array(ag_seen), rtol=1e-12)
    assert set(ours) == {"w", "b"} and ours["w"].shape == (3, 2)


def test_optimizers_descend_and_differentiate():
    quadratic = lambda p, i: sum(fnp.sum((a - b) ** 2) for a, b in
                                 zip(flatten(p)[0], flatten(TARGET)[0]))
    for name in ("adam", "sgd", "rmsprop"):
        final = getattr(optimizers, name)(fad.grad(quadratic), PARAMS, num_iters=300,
                                          step_size=0.05)
        assert float(quadratic(final, 0)) < 0.01 * float(quadratic(PARAMS, 0)), name

    def after_sgd(step):   # meta-gradient: the loop itself is differentiable
        x = optimizers.sgd(lambda x, i: 2 * x, fnp.array([1.0, -2.0]), num_iters=3,
                           step_size=step)
        return fnp.sum(x ** 2)
    fad.check_grads(after_sgd, (0.3,), order=1, modes=("rev",))


def test_fixed_point_values_and_derivatives():
    step = lambda a: lambda x: x - 0.05 * (x ** 2 - a)
    dist = lambda x, y: fnp.abs(x - y)
    root = lambda a: fixed_points.fixed_point(step, a, 10.0, dist, 1e-12)
    assert abs(root(2.0) - np.sqrt(2.0)) < 1e-9
    assert abs(fad.grad(root)(2.0) - 0.5 / np.sqrt(2.0)) < 1e-8
    assert abs(fad.grad(fad.grad(root))(2.0) + 0.25 * 2.0 ** -1.5) < 1e-7
    # vector-valued: x = tanh(A x + a), against the implicit-function derivative
    A = 0.3 * rng.normal(size=(3, 3))
    vstep = lambda a: lambda x: fnp.tanh(A @ x + a)
    vdist = lambda x, y: fnp.max(fnp.abs(x - y))
    a0 = rng.normal(size=3)
    f = lambda a: fnp.sum(fixed_points.fixed_point(vstep, a, fnp.zeros(3), vdist, 1e-13) ** 2)
    eps = 1e-6
    fd = [(f(a0 + eps * e) - f(a0 - eps * e)) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(fad.grad(f)(a0), fd, rtol=1e-6)


def test_fixed_point_gives_autograds_numbers():
    pytest.importorskip("autograd")
    import autograd
    import autograd.numpy as anp
    from autograd.misc.fixed_points import fixed_point as ag_fixed_point
    step = lambda a: lambda x: 0.5 * (x + a / x)
    ours = lambda a: fixed_points.fixed_point(step, a, 3.0, lambda x, y: fnp.abs(x - y), 1e-6)
    theirs = lambda a: ag_fixed_point(step, a, 3.0, lambda x, y: anp.abs(x - y), 1e-6)
    for fn, ag_fn in [(ours, theirs), (fad.grad(ours), autograd.grad(theirs)),
                      (fad.grad(fad.grad(ours)), autograd.grad(autograd.grad(theirs)))]:
        assert abs(fn(5.0) - ag_fn(5.0)) <= 1e-14 * abs(ag_fn(5.0))


def test_extend_primitive_and_defvjp():
    @primitive
    def logsumexp(x):
        m = fnp.max(x)
        return m + fnp.log(fnp.sum(fnp.exp(x - m)))
    x = rng.normal(size=4)
    defvjp(logsumexp, lambda ans, x: lambda g: g * fnp.exp(x - ans))
    np.testing.assert_allclose(fad.grad(logsumexp)(x), np.exp(x) / np.exp(x).sum(), rtol=1e-12)
    # the rule is itself differentiable: second derivatives
    h = fad.hessian(logsumexp)(x)
    p = np.exp(x) / np.exp(x).sum()
    np.testing.assert_allclose(h, np.diag(p) - np.outer(p, p), atol=1e-12)
    # several arguments, one without a rule (zero cotangent), keyword arguments passed on
    scale = primitive(lambda x, k, power=1: k * x ** power)
    defvjp(scale, lambda ans, x, k, power=1: lambda g: g * k * power * x ** (power - 1), None)
    gx, gk = fad.grad(lambda x, k: scale(x, k, power=2), (0, 1))(3.0, 2.0)
    assert (float(gx), float(gk)) == (12.0, 0.0)
    mul = primitive(lambda x, y: x * y)
    defvjp(mul, lambda ans, x, y: lambda g: g * x, argnums=[1])
    assert float(fad.grad(mul, 1)(4.0, 5.0)) == 4.0


def test_check_grads_in_autograds_convention():
    check_grads(lambda x: fnp.sum(fnp.sin(x) ** 2), modes=["fwd", "rev"])(rng.normal(size=3))
    check_grads(lambda x, y: x * fnp.exp(y), argnum=1, order=1)(2.0, 0.5)
    wrong = primitive(lambda x: x ** 2)
    defvjp(wrong, lambda ans, x: lambda g: g * 3 * x)   # a wrong rule is caught
    with pytest.raises(AssertionError):
        check_grads(wrong, modes=["rev"], order=1)(1.5)


def test_elementwise_grad_jacobian_hvp():
    x = rng.normal(size=(2, 3))
    np.testing.assert_allclose(fad.elementwise_grad(fnp.tanh)(x), 1 - np.tanh(x) ** 2,
                               rtol=1e-14)
    f = lambda a, y: fnp.sin(a) * y
    np.testing.assert_allclose(fad.elementwise_grad(f, 1)(x, 2.0), np.sin(x).sum())
    g = lambda v: fnp.stack([v[0] * v[1], fnp.exp(v[2])])
    v = rng.normal(size=3)
    np.testing.assert_allclose(fad.jacobian(g)(v), fad.jacfwd(g)(v), rtol=1e-14)
    s = lambda w, c: fnp.sum(fnp.sin(w) * w ** 2) * c
    u = rng.normal(size=3)
    np.testing.assert_allclose(fad.hessian_vector_product(s)(v, 1.5, u),
                               fad.hessian(s)(v, 1.5) @ u, rtol=1e-12)
    np.testing.assert_allclose(fad.hessian_vector_product(s, 1)(v, 1.5, 1.0), 0.0, atol=0)


def test_operators_give_autograds_numbers():
    ag = pytest.importorskip("autograd")
    import autograd.numpy as anp
    x = rng.normal(size=4)
    u = rng.normal(size=4)
    f = lambda x: fnp.sum(fnp.tanh(x) * x[::-1] ** 2)
    af = lambda x: anp.sum(anp.tanh(x) * x[::-1] ** 2)
    np.testing.assert_allclose(fad.hessian_vector_product(f)(x, u),
                               ag.hessian_vector_product(af)(x, u), rtol=1e-12)
    np.testing.assert_allclose(fad.elementwise_grad(lambda x: fnp.tanh(x) * x)(x),
                               ag.elementwise_grad(lambda x: anp.tanh(x) * x)(x), rtol=1e-14)
    np.testing.assert_allclose(fad.jacobian(lambda x: fnp.outer(x, x))(x),
                               ag.jacobian(lambda x: anp.outer(x, x))(x), rtol=1e-14)


def test_multigrad_dict():
    def f(x, y, *rest, scale=2.0, **extra):
        return scale * fnp.sum(x * y) + sum(rest) * extra["z"]
    g = fad.multigrad_dict(f)(fnp.array([1.0, 2.0]), fnp.array([3.0, 4.0]), 5.0, z=7.0)
    assert list(g) == ["x", "y", "rest", "scale", "extra"]
    assert g["x"].tolist() == [6.0, 8.0] and g["y"].tolist() == [2.0, 4.0]
    assert [float(r) for r in g["rest"]] == [7.0]
    assert float(g["scale"]) == 11.0 and float(g["extra"]["z"]) == 5.0


def test_grad_takes_autograds_argnum_spelling():
    f = lambda x, y: x * y ** 2
    assert [float(g) for g in fad.grad(f, argnum=(0, 1))(3.0, 2.0)] == [4.0, 12.0]
    assert float(fad.value_and_grad(f, argnum=1)(3.0, 2.0)[1]) == 12.0
    with pytest.raises(TypeError, match="scalar output"):   # still JAX's contract
        fad.grad(lambda x: x * fnp.ones(1))(1.0)


def test_flatten_func_keeps_a_scalar_result_scalar():
    f, unflatten, x = flatten_func(lambda p: fnp.sum(p["w"] ** 2), PARAMS)
    assert fnp.ndim(f(x)) == 0
    np.testing.assert_allclose(unflatten(fad.grad(f)(x))["w"], 2 * PARAMS["w"])
    g, _, _ = flatten_func(lambda p: [p["w"][0, 0]], PARAMS)
    assert g(x).shape == (1,)
