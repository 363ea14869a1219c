"""The tools around the transformations: ``fad.debug.print``, ``eval_shape``,
``disable_jit``, ``fnp.vectorize``, ``custom_jvp.defjvps`` and ``@fad.jit`` on
methods."""

import collections
import dataclasses

import numpy as np
import pytest

import fad
import fad.numpy as fnp
from fad.interpreters.optimize import optimize

X = np.array([0.5, -1.0])


# ---------------------------------------------------------------- debug.print
def f_printing(x):
    fad.debug.print("x={} y={y}", x, y=x * 2)
    return fnp.sum(x ** 2)


def lines(capsys):
    return capsys.readouterr().out.splitlines()


def test_print_eager_jit_grad(capsys):
    f_printing(X)
    assert lines(capsys) == ["x=[ 0.5 -1. ] y=[ 1. -2.]"]
    jf = fad.jit(f_printing)
    for _ in range(2):  # printed at every call, not only when traced
        assert float(jf(X)) == 1.25
    assert lines(capsys) == ["x=[ 0.5 -1. ] y=[ 1. -2.]"] * 2
    for g in (fad.grad(f_printing), fad.jit(fad.grad(f_printing)),
              fad.grad(fad.jit(f_printing))):
        np.testing.assert_array_equal(g(X), 2 * X)
        assert lines(capsys) == ["x=[ 0.5 -1. ] y=[ 1. -2.]"]
    fad.hessian(f_printing)(X)
    assert len(lines(capsys)) == 1


def test_print_under_vmap_once_per_example(capsys):
    xs = np.arange(4.0).reshape(2, 2)
    for f in (fad.vmap(f_printing), fad.jit(fad.vmap(f_printing)),
              fad.vmap(fad.jit(f_printing))):
        f(xs)
        assert lines(capsys) == ["x=[0. 1.] y=[0. 2.]", "x=[2. 3.] y=[4. 6.]"]


def test_print_survives_the_optimiser(capsys):
    def f(x):
        fad.debug.print("{}", x + 1.0)
        fad.debug.print("{}", x + 1.0)  # identical: not merged
        fad.debug.print("constant {}", 3)  # no traced operand: kept, not folded
        return x
    closed = optimize(fad.make_jaxpr(f)(1.0))
    assert [e.primitive.name for e in closed.eqns].count("debug_callback") == 3
    fad.jit(f)(np.float64(1.0))
    assert lines(capsys) == ["2.0", "2.0", "constant 3"]
    assert "debug_callback" in str(fad.make_jaxpr(f)(1.0))


def test_print_errors_and_callback(capsys):
    with pytest.raises(TypeError, match="format"):
        fad.debug.print(3)
    seen = []
    fad.jit(lambda x: fad.debug.callback(lambda d: seen.append(d["a"]), {"a": x}) or x)(X)
    np.testing.assert_array_equal(seen[0], X)


# ---------------------------------------------------------------- eval_shape
def test_eval_shape_computes_nothing():
    calls = []

    def f(x, params):
        calls.append(type(x).__name__)
        return {"y": fnp.tanh(x @ params["w"]), "n": fnp.sum(x, axis=0).astype("int32")}
    out = fad.eval_shape(f, fad.ShapedArray((1000, 784), np.float32),
                         {"w": np.ones((784, 10), np.float32)})
    assert out == {"y": fad.ShapedArray((1000, 10), np.float32),
                   "n": fad.ShapedArray((784,), np.int32)}
    assert calls == ["JaxprTracer"] or calls[0] != "ndarray"
    struct = type("ShapeDtypeStruct", (), {"shape": (3, 2), "dtype": np.dtype("float64")})()
    assert fad.eval_shape(lambda a: a[0], struct) == \
        fad.ShapedArray((2,), np.float64)
    assert fad.eval_shape(lambda a, k=2: a * k, 1.0, k=3) == fad.ShapedArray((), np.float64)
    with pytest.raises(TypeError):
        fad.eval_shape(3, 1.0)


# ---------------------------------------------------------------- disable_jit
def test_disable_jit_runs_eagerly_and_nests():
    seen = []

    @fad.jit
    def f(x):
        seen.append(type(x))
        return x + 1

    f(X)
    assert seen[-1] is not np.ndarray
    with fad.disable_jit():
        with fad.disable_jit():
            np.testing.assert_array_equal(f(X), X + 1)
        assert seen[-1] is np.ndarray
        f(X)
        assert seen[-1] is np.ndarray
    n = len(seen)
    f(X)  # compiled again (cached: no trace)
    assert len(seen) == n and f.trace_count == 1


# ---------------------------------------------------------------- vectorize
def test_vectorize_against_numpy():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 1, 3)), rng.normal(size=(4, 3))
    dot = fnp.vectorize(lambda u, v: fnp.sum(u * v), signature="(n),(n)->()")
    ref = np.vectorize(lambda u, v: np.sum(u * v), signature="(n),(n)->()")(a, b)
    np.testing.assert_allclose(dot(a, b), ref, rtol=1e-14)
    mv = fnp.vectorize(fnp.matmul, signature="(m,n),(n)->(m)")
    np.testing.assert_allclose(mv(rng.normal(size=(5, 2, 3)), b[0]).shape, (5, 2))
    sq = fnp.vectorize(lambda x: x * x)
    np.testing.assert_array_equal(sq(np.ones((1, 3, 1))), np.ones((1, 3, 1)))
    assert sq(2.0) == 4.0 and sq(np.zeros((0, 2))).shape == (0, 2)
    two = fnp.vectorize(lambda x, y: (x + y, x * y), signature="(),()->(),()")
    s, p = two(np.arange(3.0), 2.0)
    assert s.tolist() == [2.0, 3.0, 4.0] and p.tolist() == [0.0, 2.0, 4.0]
    pw = fnp.vectorize(lambda x, n, *, mode: x ** n if mode else x, excluded={1, "mode"})
    assert pw(np.array([1.0, 2.0]), 3, mode=True).tolist() == [1.0, 8.0]


def test_vectorize_composes_and_errors():
    f = fnp.vectorize(lambda u, v: fnp.sum(u * v), signature="(n),(n)->()")
    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(fad.grad(lambda a: fnp.sum(f(a, a)))(a), 2 * a)
    np.testing.assert_allclose(fad.jit(f)(a, a), np.sum(a * a, axis=1))
    with pytest.raises(ValueError, match="core dimension"):
        f(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="signature"):
        fnp.vectorize(f, signature="(n)->")
    with pytest.raises(TypeError, match="output"):
        fnp.vectorize(lambda x: x, signature="()->(),()")(np.ones(2))
    with pytest.raises(ValueError, match="core dimensions"):
        fnp.vectorize(lambda x: x, signature="(n)->()")(np.ones(2))
    with pytest.raises(TypeError, match="excluded"):
        fnp.vectorize(lambda x, k=1: x)(np.ones(2), k=2)


# ---------------------------------------------------------------- defjvps
def test_defjvps_one_rule_per_argument():
    @fad.custom_jvp
    def f(x, y):
        return fnp.sin(x) * y

    f.defjvps(lambda t, ans, x, y: fnp.cos(x) * y * t, lambda t, ans, x, y: fnp.sin(x) * t)
    x, y = 0.3, 2.0
    assert float(fad.grad(f)(x, y)) == pytest.approx(np.cos(x) * y, rel=1e-15)
    assert float(fad.grad(f, argnums=1)(x, y)) == pytest.approx(np.sin(x), rel=1e-15)
    fad.check_grads(f, (x, y), order=2)

    @fad.custom_jvp
    def clip_grad(x, scale):
        return x * scale

    clip_grad.defjvps(lambda t, ans, x, s: t, None)  # no derivative in scale
    assert float(fad.grad(clip_grad, argnums=1)(3.0, 2.0)) == 0.0
    assert float(fad.grad(clip_grad)(3.0, 2.0)) == 1.0
    np.testing.assert_array_equal(fad.vmap(fad.grad(clip_grad), (0, None))(X, 2.0),
                                  np.ones(2))

    @fad.custom_jvp
    def g(x):
        return x

    g.defjvps(None, None)
    with pytest.raises(TypeError, match="rule"):
        fad.grad(g)(1.0)
    h = fad.custom_jvp(lambda x, n: x * n, nondiff_argnums=(1,))
    with pytest.raises(TypeError, match="nondiff_argnums"):
        h.defjvps(None, None)


# ---------------------------------------------------------------- jit on methods
class Scaler:
    def __init__(self, k):
        self.k = k

    @fad.jit
    def apply(self, x):
        return x * self.k


@dataclasses.dataclass
class Unhashable:
    k: float

    @fad.jit
    def apply(self, x):
        return x * self.k


class Pair(collections.namedtuple("Pair", "w b")):
    @fad.jit
    def apply(self, x):
        return x * self.w + self.b


def test_jit_on_methods():
    a, b = Scaler(2.0), Scaler(3.0)
    np.testing.assert_array_equal(a.apply(X), 2 * X)
    np.testing.assert_array_equal(b.apply(X), 3 * X)  # self static: its own trace
    np.testing.assert_array_equal(fad.grad(lambda x: fnp.sum(a.apply(x)))(X), [2.0, 2.0])
    with pytest.raises(TypeError, match="not hashable.*register"):
        Unhashable(2.0).apply(X)
    p = Pair(np.ones(2) * 2, np.ones(2))  # a pytree: self is a traced argument
    np.testing.assert_array_equal(p.apply(X), 2 * X + 1)
    q = Pair(np.ones(2) * 3, np.zeros(2))
    np.testing.assert_array_equal(q.apply(X), 3 * X)
    assert Pair.__dict__["apply"].trace_count == 1
