"""``fad.tree``'s additions (``jax.tree_util`` / ``jax.tree`` names), ``Partial``
and ``fad.flatten_util.ravel_pytree``."""

import collections
import functools
import operator

import numpy as np
import pytest

import fad
import fad.numpy as fnp
from fad import tree
from fad.flatten_util import ravel_pytree

Point = collections.namedtuple("Point", "x y")


def test_short_names_are_the_tree_functions():
    for short in ("map", "leaves", "flatten", "unflatten", "reduce", "structure", "all",
                  "transpose"):
        assert getattr(tree, short) is getattr(tree, "tree_" + short)
    assert set(dir(tree)) >= set(tree.__all__)


def test_none_leaves_and_namedtuples():
    t = {"p": Point(1, None), "q": [None, 2]}
    assert tree.leaves(t) == [1, 2]
    assert tree.map(lambda v: v * 10, t) == {"p": Point(10, None), "q": [None, 20]}
    assert tree.map(lambda v: v is None, t, is_leaf=lambda v: v is None) == \
        {"p": Point(False, True), "q": [True, False]}
    leaves, td = tree.flatten(t, is_leaf=lambda v: v is None)
    assert leaves == [1, None, None, 2] and tree.unflatten(td, leaves) == t
    assert isinstance(tree.map(lambda v: v, Point(1, 2)), Point)


def test_tree_map_up_to_the_first_tree():
    assert tree.map(lambda a, b: (a, b), [1, 2], [(3, 4), {"k": 5}]) == \
        [(1, (3, 4)), (2, {"k": 5})]
    with pytest.raises(ValueError, match="structures differ"):
        tree.map(lambda a, b: a, [1, 2], (1, 2))
    with pytest.raises(ValueError, match="structures differ"):
        tree.map(lambda a, b: a, {"a": 1}, {"b": 1})
    deep = 0
    for _ in range(3000):
        deep = [deep]
    assert tree.leaves(tree.map(lambda a, b: a + 1, deep, deep)) == [1]


def test_reduce_all_transpose():
    assert tree.reduce(operator.add, {"a": 1, "b": (2, 3)}) == 6
    assert tree.reduce(operator.add, {"a": None}, 5) == 5
    with pytest.raises(TypeError, match="initializer"):
        tree.reduce(operator.add, [])
    assert tree.all([True, {"a": 1}]) and not tree.all([True, (0,)]) and tree.all([])
    outer = tree.structure([0, 0, 0])
    inner = tree.structure({"a": 0, "b": 0})
    t = [{"a": i, "b": -i} for i in range(3)]
    assert tree.transpose(outer, inner, t) == {"a": [0, 1, 2], "b": [0, -1, -2]}
    assert tree.transpose(outer, None, t) == {"a": [0, 1, 2], "b": [0, -1, -2]}


def test_partial_is_a_pytree_through_jit_and_vmap():
    f = tree.Partial(fnp.multiply, np.array([1.0, 2.0]))
    assert tree.leaves(f)[0].tolist() == [1.0, 2.0]
    g = fad.jit(lambda p, x: p(x))
    np.testing.assert_array_equal(g(f, np.array([3.0, 4.0])), [3.0, 8.0])
    h = tree.Partial(tree.Partial(operator.add), 1)
    assert h.func is operator.add and h(2) == 3
    assert tree.map(lambda v: v * 2, tree.Partial(operator.add, 1, 2))() == 6
    k = tree.Partial(lambda a, *, b: a + b, b=np.ones(2))
    out = fad.vmap(lambda p, x: p(x), in_axes=(None, 0))(k, np.arange(4.0).reshape(2, 2))
    np.testing.assert_array_equal(out, [[1, 2], [3, 4]])
    assert isinstance(h, functools.partial)


def test_ravel_pytree_round_trip_and_transforms():
    params = {"w": np.arange(6.0).reshape(2, 3), "b": np.float32(1.5), "n": None,
              "i": np.array([1, 2])}
    flat, unravel = ravel_pytree(params)
    assert flat.shape == (9,) and flat.dtype == np.float64
    back = unravel(flat)
    assert back["n"] is None and back["b"].dtype == np.float32 and back["i"].dtype == np.int64
    np.testing.assert_array_equal(back["w"], params["w"])

    def loss(v):
        p = unravel(v)
        return fnp.sum(p["w"] ** 2) + p["b"]
    g = fad.grad(loss)(flat)
    np.testing.assert_allclose(g, np.concatenate([[1.0], [0, 0], 2 * np.arange(6.0)]))
    np.testing.assert_allclose(fad.jit(fad.grad(loss))(flat), g)
    empty, unravel_empty = ravel_pytree({})
    assert empty.shape == (0,) and unravel_empty(empty) == {}
    with pytest.raises(ValueError, match="shape"):
        unravel(np.zeros(3))
