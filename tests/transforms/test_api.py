"""The public transformations' contracts: argnums, has_aux, pytrees,
Jacobian layouts as in JAX, stop_gradient / no_grad, fad.tree, check_grads."""

from collections import namedtuple

import numpy as np
import pytest

import fad
import fad.numpy as fnp
from fad.tree import register_pytree_node, tree_flatten, tree_leaves, tree_map, tree_unflatten

X = np.array([0.5, -1.0, 2.0])
Y = np.array([[1.0, 2.0], [3.0, 4.0]])


def f2(x, y):
    return fnp.sum(fnp.sin(x)) * fnp.sum(y ** 2)


def df2(x, y):  # closed forms of f2's partial derivatives
    return np.cos(x) * np.sum(y ** 2), np.sum(np.sin(x)) * 2 * y


# ---------------------------------------------------------------- grad & value_and_grad
@pytest.mark.parametrize("argnums, pick", [
    (0, lambda g: g[0]), (1, lambda g: g[1]), (-1, lambda g: g[1]),
    ((0, 1), lambda g: g), ((1,), lambda g: (g[1],)), ((1, 0), lambda g: (g[1], g[0])),
])
def test_value_and_grad_argnums(argnums, pick):
    value, g = fad.value_and_grad(f2, argnums=argnums)(X, Y)
    assert float(value) == pytest.approx(np.sum(np.sin(X)) * np.sum(Y ** 2))
    want = pick(df2(X, Y))
    assert type(g) is type(want)  # an array for an int argnums, a tuple for a tuple
    for a, b, c in zip(tree_leaves(g), tree_leaves(want),
                       tree_leaves(fad.grad(f2, argnums=argnums)(X, Y))):
        np.testing.assert_allclose(a, b, rtol=1e-12)
        np.testing.assert_array_equal(a, c)


def test_has_aux_returns_aux_untraced():
    def loss(x):
        y = fnp.tanh(x)
        return fnp.sum(y ** 2), {"y": y, "n": 3}

    (value, aux), g = fad.value_and_grad(loss, has_aux=True)(X)
    g2, aux2 = fad.grad(loss, has_aux=True)(X)
    for a in (aux, aux2):
        assert a["n"] == 3 and type(a["y"]) is np.ndarray
        np.testing.assert_allclose(a["y"], np.tanh(X))
    np.testing.assert_allclose(g, 2 * np.tanh(X) * (1 - np.tanh(X) ** 2), rtol=1e-12)
    np.testing.assert_array_equal(g, g2)
    out, f_vjp, aux3 = fad.vjp(loss, X, has_aux=True)
    np.testing.assert_allclose(f_vjp(1.0)[0], g)
    np.testing.assert_allclose(aux3["y"], np.tanh(X))


def test_grad_of_pytree_input_returns_same_structure():
    Params = namedtuple("Params", "w b")
    params = {"layer": Params(w=np.ones((2, 3)), b=np.zeros(3)), "scale": 2.0}

    def loss(p, x):
        layer = p["layer"]
        return p["scale"] * fnp.sum((x @ layer.w + layer.b) ** 2)

    x = np.array([[1.0, -1.0], [0.5, 2.0]])
    g = fad.grad(loss)(params, x)
    assert isinstance(g["layer"], Params) and sorted(g) == ["layer", "scale"]
    h = x @ params["layer"].w + params["layer"].b
    np.testing.assert_allclose(g["layer"].w, 2 * 2 * x.T @ h)
    np.testing.assert_allclose(g["layer"].b, 2 * 2 * h.sum(0))
    np.testing.assert_allclose(g["scale"], np.sum(h ** 2))


# ---------------------------------------------------------------- jvp, vjp, linearize
def test_vjp_fn_returns_one_cotangent_per_primal_and_is_reusable():
    out, f_vjp = fad.vjp(lambda x, y: fnp.sin(x) * fnp.sum(y), X, Y)
    for u in (np.ones(3), np.array([1.0, 0.0, -2.0])):
        gx, gy = f_vjp(u)
        np.testing.assert_allclose(gx, u * np.cos(X) * Y.sum())
        np.testing.assert_allclose(gy, np.full((2, 2), np.sum(u * np.sin(X))))


def test_linearize_matches_jvp_and_is_linear():
    def f(x, d):
        return {"a": fnp.exp(x) * d["s"], "b": fnp.sum(d["m"] @ d["m"])}

    d = {"s": np.array(2.0), "m": Y}
    out, f_jvp = fad.linearize(f, X, d)
    np.testing.assert_allclose(out["a"], np.exp(X) * 2.0)
    rng = np.random.default_rng(0)
    t1 = (rng.standard_normal(3), {"s": np.array(0.3), "m": rng.standard_normal((2, 2))})
    t2 = (rng.standard_normal(3), {"s": np.array(-1.0), "m": rng.standard_normal((2, 2))})
    for t in (t1, t2):
        want = fad.jvp(f, (X, d), t)[1]
        got = f_jvp(*t)
        for k in "ab":
            np.testing.assert_allclose(got[k], want[k], rtol=1e-12)
    combo = tree_map(lambda a, b: 2 * a - 3 * b, t1, t2)
    lin = tree_map(lambda a, b: 2 * a - 3 * b, f_jvp(*t1), f_jvp(*t2))
    for k in "ab":
        np.testing.assert_allclose(f_jvp(*combo)[k], lin[k], rtol=1e-12)


def test_jvp_pytrees_in_and_out():
    out, t = fad.jvp(lambda p: (p["x"] * 2, {"s": fnp.sum(p["x"] ** 2)}),
                     ({"x": X},), ({"x": np.ones(3)},))
    np.testing.assert_allclose(out[0], 2 * X)
    np.testing.assert_allclose(t[0], 2.0)
    np.testing.assert_allclose(t[1]["s"], 2 * X.sum())


# ---------------------------------------------------------------- Jacobian layouts
def jac_shapes(tree):
    return tree_map(np.shape, tree)


@pytest.mark.parametrize("jac", [fad.jacfwd, fad.jacrev], ids=["jacfwd", "jacrev"])
@pytest.mark.parametrize("f, args, argnums, shapes", [
    (lambda x: x ** 2, (X,), 0, (3, 3)),
    (lambda x: fnp.sum(x), (X,), 0, (3,)),
    (lambda x: fnp.outer(x, x), (X,), 0, (3, 3, 3)),
    (lambda x, y: x[:2, None] * y, (X, Y), 1, (2, 2, 2, 2)),
    (lambda x, y: x[:2, None] * y, (X, Y), (0, 1), ((2, 2, 3), (2, 2, 2, 2))),
    (lambda d: {"y": d["a"] * fnp.sum(d["b"]), "z": d["a"][0]},
     ({"a": X, "b": Y},), 0, {"y": {"a": (3, 3), "b": (3, 2, 2)}, "z": {"a": (3,), "b": (2, 2)}}),
    (lambda x, y: (x * 2, fnp.sum(y)), (X, Y), (0, 1),
     (((3, 3), (3, 2, 2)), ((3,), (2, 2)))),
], ids=["square", "sum", "outer", "argnum1", "argnums", "dicts", "tuple-out"])
def test_jacobian_shapes_as_in_jax(jac, f, args, argnums, shapes):
    J = jac(f, argnums=argnums)(*args)
    assert jac_shapes(J) == shapes
    other = (fad.jacrev if jac is fad.jacfwd else fad.jacfwd)(f, argnums=argnums)(*args)
    for a, b in zip(tree_leaves(J), tree_leaves(other)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_hessian_layout_and_values():
    H = fad.hessian(f2, argnums=(0, 1))(X, Y)
    assert jac_shapes(H) == (((3, 3), (3, 2, 2)), ((2, 2, 3), (2, 2, 2, 2)))
    np.testing.assert_allclose(H[0][0], np.diag(-np.sin(X)) * np.sum(Y ** 2))
    np.testing.assert_allclose(H[0][1], np.cos(X)[:, None, None] * 2 * Y)
    np.testing.assert_allclose(H[1][1].reshape(4, 4), 2 * np.sum(np.sin(X)) * np.eye(4))
    h = fad.hessian(lambda d: fnp.sum(d["a"] ** 3))({"a": X})
    assert jac_shapes(h) == {"a": {"a": (3, 3)}}
    np.testing.assert_allclose(h["a"]["a"], np.diag(6 * X))


# ---------------------------------------------------------------- constants
def test_stop_gradient():
    np.testing.assert_allclose(fad.grad(lambda x: fnp.sum(x * fad.stop_gradient(x)))(X), X)
    assert float(fad.grad(fad.grad(lambda x: x ** 2 * fad.stop_gradient(x)))(3.0)) == 6.0
    _, t = fad.jvp(lambda x: fad.stop_gradient(x) * x, (X,), (np.ones(3),))
    np.testing.assert_allclose(t, X)
    tree = fad.stop_gradient({"a": X, "b": (Y,)})
    np.testing.assert_array_equal(tree["b"][0], Y)
    g = fad.grad(lambda d: fnp.sum(fad.stop_gradient(d)["a"] * d["a"]))({"a": X})
    np.testing.assert_allclose(g["a"], X)


def scale_by(x):
    return x * 3.0


class Model:
    @fad.no_grad
    def frozen(self, x):
        return x * 3.0


NO_GRAD_FORMS = {
    "context": lambda x: _in_context(x),
    "decorator": fad.no_grad(scale_by),
    "decorator-call": fad.no_grad()(scale_by),
    "method": lambda x: Model().frozen(x),
}


def _in_context(x):
    with fad.no_grad():
        return scale_by(x)


@pytest.mark.parametrize("form", list(NO_GRAD_FORMS))
def test_no_grad_forms(form):
    frozen = NO_GRAD_FORMS[form]
    f = lambda x: fnp.sum(frozen(x) * x)  # d/dx = 3x (the frozen factor is a constant)
    np.testing.assert_allclose(f(X), np.sum(3 * X * X))
    np.testing.assert_allclose(fad.grad(f)(X), 3 * X)
    np.testing.assert_allclose(fad.jvp(f, (X,), (np.ones(3),))[1], np.sum(3 * X))
    np.testing.assert_allclose(fad.vjp(f, X)[1](1.0)[0], 3 * X)
    np.testing.assert_allclose(fad.grad(lambda x: fnp.sum(frozen(x)))(X), 0)


def test_differentiation_started_inside_no_grad_works():
    with fad.no_grad():
        np.testing.assert_allclose(fad.grad(lambda x: fnp.sum(x ** 3))(X), 3 * X ** 2)
        np.testing.assert_allclose(fad.hessian(lambda x: fnp.sum(x ** 3))(X), np.diag(6 * X))

    def outer(x):  # a derivative computed under no_grad is itself a constant outside
        with fad.no_grad():
            slope = fad.grad(lambda y: fnp.sum(y ** 2))(x)
        return fnp.sum(slope * x)
    np.testing.assert_allclose(fad.grad(outer)(X), 2 * X)


# ---------------------------------------------------------------- fad.tree
class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


register_pytree_node(Point, lambda p: ((p.x, p.y), None), lambda _, ch: Point(*ch))
Pair = namedtuple("Pair", "first second")


def test_tree_flatten_unflatten_roundtrip():
    tree = {"b": (1, [2, None]), "a": Pair(3, {"z": 4, "y": 5}), "c": Point(6, 7)}
    leaves, treedef = tree_flatten(tree)
    assert leaves == [3, 5, 4, 1, 2, 6, 7]  # dicts by sorted key, None has no leaf
    back = tree_unflatten(treedef, leaves)
    assert type(back["a"]) is Pair and back["a"].second == {"y": 5, "z": 4}
    assert back["b"] == (1, [2, None]) and isinstance(back["c"], Point)
    assert (back["c"].x, back["c"].y) == (6, 7)
    assert tree_leaves(tree) == leaves
    assert tree_flatten({"y": 1, "x": 2})[1] == tree_flatten({"x": 0, "y": 0})[1]
    assert tree_flatten((1, 2))[1] != tree_flatten([1, 2])[1]


def test_tree_map():
    assert tree_map(lambda x: x * 10, (1, [2, {"k": 3}], None)) == (10, [20, {"k": 30}], None)
    assert tree_map(lambda a, b: a - b, {"x": 5, "y": (4,)}, {"y": (1,), "x": 2}) == \
        {"x": 3, "y": (3,)}
    with pytest.raises(ValueError, match="structure"):
        tree_map(lambda a, b: a + b, (1, 2), [1, 2])


def test_transformations_take_and_return_registered_nodes():
    p = Point(X, np.float64(2.0))
    g = fad.grad(lambda p: fnp.sum(p.x ** 2) * p.y)(p)
    assert isinstance(g, Point)
    np.testing.assert_allclose(g.x, 4 * X)
    np.testing.assert_allclose(g.y, np.sum(X ** 2))
    out, t = fad.jvp(lambda p: Pair(p.x * p.y, p.y), (p,), (Point(np.ones(3), 1.0),))
    assert isinstance(out, Pair) and isinstance(t, Pair)
    np.testing.assert_allclose(t.first, 2.0 + X)


# ---------------------------------------------------------------- check_grads
def wrong_at(k, n):
    bump = np.zeros(n)
    bump[k] = 2.0
    return bump


def test_check_grads_passes_on_correct_functions():
    fad.check_grads(lambda x, y: fnp.sin(x) * fnp.sum(y), (X, Y), order=3)
    fad.check_grads(lambda d: {"s": fnp.sum(d["a"] ** 2)}, ({"a": X},), order=2)


def test_check_grads_names_the_worst_element_of_a_wrong_custom_jvp():
    @fad.custom_jvp
    def f(x):
        return fnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return fnp.sin(x), fnp.cos(x) * t * (1 + wrong_at(2, 4))

    x = np.array([0.1, 0.5, -1.0, 0.3])
    with pytest.raises(AssertionError, match=r"index \(2,\).*1 of 4 elements"):
        fad.check_grads(f, (x,), modes=("fwd",))


def test_check_grads_mixed_up_stop_gradient():
    """A value of x**2 whose derivative is wrong only at element 1."""
    def f(x):
        return x ** 2 + (fad.stop_gradient(x) - x) * wrong_at(1, 3)

    with pytest.raises(AssertionError, match=r"index \(1,\)"):
        fad.check_grads(f, (X,))


def test_check_grads_rev_mode_catches_a_wrong_custom_vjp():
    @fad.custom_vjp
    def f(x):
        return fnp.sin(x)

    f.defvjp(lambda x: (fnp.sin(x), x),
             lambda x, ct: (ct * fnp.cos(x) * (1 + wrong_at(0, 3)),))
    np.testing.assert_allclose(fad.grad(lambda x: fnp.sum(f(x)))(X),
                               np.cos(X) * (1 + wrong_at(0, 3)))  # the rule is used
    with pytest.raises(AssertionError):
        fad.check_grads(f, (X,), modes=("rev",))
