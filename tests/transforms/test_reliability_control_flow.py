"""fad.lax checks its programs alike in every mode: eagerly, under jit, under grad
and under vmap a malformed loop or branch is the same error (type and message)
and an edge case the same result."""

import re

import numpy as np
import pytest

import fad
import fad.numpy as fnp
from fad import lax
from fad.tree import tree_leaves, tree_map, tree_structure

MODES = ["eager", "jit", "grad", "vmap"]
X = np.array([1.0, 2.0, 0.5])


def _total(out):
    """The sum of an output's floating-point leaves (a scalar loss for grad)."""
    floats = [fnp.sum(v) for v in tree_leaves(out) if np.dtype(v.dtype).kind == "f"]
    return sum(floats[1:], floats[0])


def run(mode, f, x=X):
    """``f(x)`` eagerly, jitted, through grad of its total, or vmapped over two
    copies of ``x``."""
    if mode == "eager":
        return f(x)
    if mode == "jit":
        return fad.jit(f)(x)
    if mode == "grad":
        return fad.grad(lambda x: _total(f(x)))(x)
    stack = np.ma.stack if isinstance(x, np.ma.MaskedArray) else np.stack
    return fad.vmap(f)(stack([x, x]))


def _cumulative(c, x):
    return c + x, c * x


ERRORS = {
    # a carry that changes type: the leaf's path and both types
    "scan carry dtype": (
        lambda x: lax.scan(lambda c, xi: ((c[0] + xi, {"w": (c[1]["w"] * xi).astype(np.float32)}),
                                          xi), (x[0], {"w": x[:2]}), x),
        TypeError, r"but c\[1\]\['w'\] goes in as f64\[2\] and comes out as f32\[2\] "
                   r"\(the dtypes differ\)"),
    "scan carry shape": (
        lambda x: lax.scan(lambda acc, xi: (fnp.concatenate([acc, acc]) * xi, xi), x[:2], x),
        TypeError, r"acc goes in as f64\[2\] and comes out as f64\[4\] \(the shapes differ\)"),
    "scan carry structure": (
        lambda x: lax.scan(lambda c, xi: ((c, c), xi), x[0], x),
        TypeError, r"c is an array in the input but a tuple of 2 in the output"),
    "scan bool init (a bool is not weakly typed)": (
        lambda x: lax.scan(lambda c, xi: (c + 1, xi), True, x),
        TypeError, r"c goes in as bool\[\] and comes out as i64\[\] \(the dtypes differ\)"),
    "scan body not a pair": (
        lambda x: lax.scan(lambda c, xi: c + xi, x[0], x),
        TypeError, r"fad.lax.scan's body f must return a pair \(new carry, y\)"),
    "while body dtype": (
        lambda x: lax.while_loop(lambda v: v[0] < 3.0, lambda v: (v + 1.0).astype(np.float32), x),
        TypeError, r"while_loop's body_fun .* v goes in as f64\[3\] and comes out as f32\[3\]"),
    "while body dtype, zero steps": (
        lambda x: lax.while_loop(lambda v: v[0] > 100.0, lambda v: v.astype(np.float32), x),
        TypeError, r"v goes in as f64\[3\] and comes out as f32\[3\]"),
    "while body structure": (
        lambda x: lax.while_loop(lambda v: v[0][0] < 3.0, lambda v: (v[0] + 1.0,), (x, x)),
        TypeError, r"v is a tuple of 2 in the input but a tuple of 1 in the output"),
    "fori body dtype": (
        lambda x: lax.fori_loop(0, 3, lambda i, val: (val * 2.0).astype(np.float32), x),
        TypeError, r"fori_loop's body_fun .* val goes in as f64\[3\] and comes out as f32\[3\]"),
    "fori body dtype, zero steps": (
        lambda x: lax.fori_loop(2, 2, lambda i, val: {"a": val["a"].astype(np.float32)},
                                {"a": x}),
        TypeError, r"val\['a'\] goes in as f64\[3\] and comes out as f32\[3\]"),
    "fori body dtype, bounds traced under jit and vmap": (
        lambda x: lax.fori_loop(0, fnp.sum(x > 0), lambda i, val: {"a": val["a"] > 0},
                                {"a": x}),
        TypeError, r"val\['a'\] goes in as f64\[3\] and comes out as bool\[3\]"),
    "fori body structure, bounds traced under jit and vmap": (
        lambda x: lax.fori_loop(0, fnp.sum(x > 0), lambda i, val: (val["a"],), {"a": x}),
        TypeError, r"val is a dict with keys \['a'\] in the input but a tuple of 1 in the "
                   r"output"),
    # xs and length
    "scan xs lengths differ": (
        lambda x: lax.scan(lambda c, ab: (c, ab[0] + ab[1][0]), 0.0,
                           (x, fnp.stack([x, x, x, x], axis=1)[:2])),
        ValueError, r"xs\[0\] has 3, xs\[1\] has 2"),
    "scan length > len(xs)": (
        lambda x: lax.scan(_cumulative, 0.0, x, length=5),
        ValueError, r"scan got length=5 but xs has leading length 3"),
    "scan length < len(xs)": (
        lambda x: lax.scan(_cumulative, 0.0, x, length=2),
        ValueError, r"scan got length=2 but xs has leading length 3"),
    "scan 0-d xs": (
        lambda x: lax.scan(_cumulative, 0.0, {"a": x, "b": x[0]}),
        ValueError, r"xs\['b'\] is a 0-d value \(f64\[\]\) with no leading axis"),
    "scan without xs or length": (
        lambda x: lax.scan(lambda c, _: (c + 1.0, c), x, None),
        ValueError, r"scan needs xs or length: with no arrays to scan over \(xs=None\), pass "
                    r"length="),
    "scan float length": (
        lambda x: lax.scan(lambda c, _: (c + 1.0, c), x, None, length=2.0),
        TypeError, r"scan's length must be an int, got float 2.0"),
    # cond: the predicate, the branches' types
    "cond predicate str": (
        lambda x: lax.cond("yes", lambda v: v, lambda v: -v, x),
        TypeError, r"cond's predicate must be a scalar boolean or number, got str 'yes'"),
    "cond predicate None": (
        lambda x: lax.cond(None, lambda v: v, lambda v: -v, x),
        TypeError, r"cond's predicate must be a scalar boolean or number, got NoneType"),
    "cond predicate array": (
        lambda x: lax.cond(x > 0, lambda v: v, lambda v: -v, x),
        TypeError, r"cond's predicate must be a scalar boolean or number, got bool\[3\]"),
    "cond predicate complex": (
        lambda x: lax.cond(x[0] * 1j, lambda v: v, lambda v: -v, x),
        TypeError, r"cond's predicate must be a scalar boolean or number, got c128\[\]"),
    "cond branch dtypes": (
        lambda x: lax.cond(x[0] > 0, lambda v: v, lambda v: v.astype(np.float32), x),
        TypeError, r"the output is f64\[3\] from true_fun but f32\[3\] from false_fun "
                   r"\(the dtypes differ\)"),
    "cond branch shapes, nested": (
        lambda x: lax.cond(x[0] < 0, lambda v: {"a": v, "b": (v, v)},
                           lambda v: {"a": v, "b": (v, v[:2])}, x),
        TypeError, r"the output\['b'\]\[1\] is f64\[3\] from true_fun but f64\[2\] from "
                   r"false_fun \(the shapes differ\)"),
    "cond branch structures": (
        lambda x: lax.cond(x[0] > 0, lambda v: v, lambda v: (v, v), x),
        TypeError, r"same structure.*the output is an array from true_fun but a tuple of 2 "
                   r"from false_fun"),
    # fori_loop bounds
    "fori float bounds": (
        lambda x: lax.fori_loop(0.0, 3.5, lambda i, v: v * 2.0, x),
        TypeError, r"fori_loop's lower bound must be an integer scalar, got f64\[\]"),
    "fori NumPy float bound": (
        lambda x: lax.fori_loop(0, np.float32(3.0), lambda i, v: v * 2.0, x),
        TypeError, r"fori_loop's upper bound must be an integer scalar, got f32\[\]"),
    "fori traced float bound": (
        lambda x: lax.fori_loop(0, x[0] + 2.0, lambda i, v: v * 2.0, x),
        TypeError, r"fori_loop's upper bound must be an integer scalar, got f64\[\]"),
    # while_loop's predicate
    "while predicate array": (
        lambda x: lax.while_loop(lambda v: v < 3.0, lambda v: v + 1.0, x),
        TypeError, r"while_loop's cond_fun must return a boolean scalar, got bool\[3\]"),
    "while predicate float": (
        lambda x: lax.while_loop(lambda v: v[0], lambda v: v - 1.0, x),
        TypeError, r"while_loop's cond_fun must return a boolean scalar, got f64\[\]"),
    # masked arrays: the mask would be dropped silently
    "masked cond operand": (
        lambda x: lax.cond(x[0] > 0, lambda v, m: v + m, lambda v, m: v, x,
                           np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0])),
        TypeError, r"numpy.ma.MaskedArray \(f64\[3\]\).*would silently ignore its mask"),
    "masked scan xs": (
        lambda x: lax.scan(_cumulative, x[0], np.ma.array([1.0, 2.0], mask=[0, 1])),
        TypeError, r"numpy.ma.MaskedArray"),
    "masked while init": (
        lambda x: lax.while_loop(lambda v: v[0] < x[0], lambda v: v + 1.0,
                                 np.ma.array([1.0, 2.0], mask=[0, 1])),
        TypeError, r"numpy.ma.MaskedArray"),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_the_same_error_in_every_mode(case):
    f, kind, message = ERRORS[case]
    for mode in MODES:
        try:
            run(mode, f)
        except Exception as e:  # the type itself, not a subclass (ConcretizationError)
            assert type(e) is kind and re.search(message, str(e)), \
                f"{mode}: {type(e).__name__}: {e}"
        else:
            pytest.fail(f"{mode}: no error")


@pytest.mark.parametrize("mode", ["jit", "grad", "vmap", "make_jaxpr", "vmap unmapped"])
def test_a_masked_input_is_rejected_by_every_transformation(mode):
    """fad would compute on the data and drop the mask: every transformation
    rejects it (unmapped vmap arguments and jit's slow path included)."""
    masked = np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    f = lambda x: fnp.sum(x * x)
    with pytest.raises(TypeError, match=r"MaskedArray \(f64\[(2,)?3\]\).*x.filled\(value\)"):
        if mode == "make_jaxpr":
            fad.make_jaxpr(f)(masked)
        elif mode == "vmap unmapped":
            fad.vmap(lambda a, m: a * f(m), in_axes=(0, None))(X, masked)
        else:
            run(mode, f, masked)


def _expect(f, want, want_grad):
    """``f`` gives ``want`` eagerly and under jit, two copies of it under vmap and
    ``want_grad`` under grad: same structure, shapes, dtypes and values."""
    for mode in MODES:
        got = run(mode, f)
        if mode == "grad":
            np.testing.assert_allclose(got, want_grad)
            continue
        expected = want if mode != "vmap" else tree_map(lambda w: np.stack([w, w]), want)
        assert tree_structure(got) == tree_structure(expected), (mode, got)
        for g, w in zip(tree_leaves(got), tree_leaves(expected)):
            w = np.asarray(w)
            assert g.shape == w.shape and g.dtype == w.dtype, (mode, g, w)
            np.testing.assert_allclose(g, w)


def test_a_python_int_init_takes_the_float_dtype_of_the_body():
    """A Python scalar in a loop's initial value is weakly typed, as in JAX: the
    carry takes the dtype the body gives it, on every path."""
    def f(x):
        c, ys = lax.scan(lambda c, xi: (c + xi, c * xi), 0, x)
        total = lax.fori_loop(0, 3, lambda i, acc: acc + x[i], 0)
        n, w = lax.while_loop(lambda s: s[0] < 2, lambda s: (s[0] + 1, s[1] + x[0]), (0, 0))
        zero = lax.while_loop(lambda s: s > 100.0, lambda s: s + x[1], 0)
        return c, ys, total, n, w, zero
    want = (np.float64(3.5), np.array([0.0, 2.0, 1.5]), np.float64(3.5), np.int64(2),
            np.float64(2.0), np.float64(0.0))
    # d/dx of c + sum(ys) + total + w + zero, ys = (0, x0 x1, (x0 + x1) x2)
    _expect(f, want, [1.0 + 2.5 + 1 + 2, 1.0 + 1.5 + 1, 1.0 + 3.0 + 1])


def test_loops_of_zero_steps_stack_empty_ys():
    """ys of leading length 0 with the body's per-step shapes and dtypes (never
    None), and the carry unchanged; a fori_loop of no steps returns its initial
    value."""
    def f(x):
        xs = fnp.zeros((0, 2)) * x[0]
        c, ys = lax.scan(lambda c, xi: (c + xi[0], (xi * 2.0, xi[0] > 0)), x[0], xs)
        return c, ys, lax.fori_loop(3, 1, lambda i, v: v * 2.0, x)
    want = (np.float64(1.0), (np.zeros((0, 2)), np.zeros(0, dtype=bool)), X)
    _expect(f, want, [2.0, 1.0, 1.0])


def test_a_numeric_predicate_is_true_when_nonzero():
    """As in JAX (and Python's ``if``): 0.5, -0.25 and 2 choose the true branch, also
    when the predicate is traced."""
    for pred, scale in [(0.5, 2.0), (-0.25, 2.0), (0.0, -1.0), (2, 2.0), (0, -1.0)]:
        def f(x, pred=pred):
            p = pred * x[0] if isinstance(pred, float) else pred + 0 * x[0].astype(int)
            return lax.cond(p, lambda v: v * 2.0, lambda v: -v, x)
        _expect(f, scale * X, [scale] * 3)


def _unbounded(x):
    return lax.while_loop(lambda v: v[0] < 10.0, lambda v: v * 1.5, x)


def _traced_bounds(x):
    n = fnp.sum(x > 0)  # an integer known only at run time under jit
    return lax.fori_loop(0, n, lambda i, v: v * x[0], x)


@pytest.mark.parametrize("f", [_unbounded, _traced_bounds])
@pytest.mark.parametrize("compose", ["jit(grad)", "grad(jit)"])
def test_reverse_mode_through_an_unbounded_loop_names_the_bounded_ones(f, compose):
    loss = lambda x: fnp.sum(f(x))
    g = fad.jit(fad.grad(loss)) if compose == "jit(grad)" else fad.grad(fad.jit(loss))
    with pytest.raises(ValueError, match=r"cannot be differentiated in reverse mode.*"
                                         r"fori_loop with concrete \(Python int\) bounds, or "
                                         r"fad.lax.scan"):
        g(X)
    # without jit the loop runs in Python; forward mode works under jit
    want = fad.grad(loss)(X)
    jv = [fad.jvp(fad.jit(loss), (X,), (e,))[1] for e in np.eye(3)]
    np.testing.assert_allclose(jv, want)
