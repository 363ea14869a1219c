"""``fad.vmap``: in_axes / out_axes, nested vmap, a batching rule for every
primitive of the registry (checked against a Python loop), per-example
gradients, Jacobians, and the errors users meet.
"""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from operator_table import OPS, examples

import fad
import fad.numpy as fnp
from fad import lax
from fad.core.primitive import REGISTRY
from fad.core.trace import bind
from fad.primitives.convolution import ConvDimensionNumbers
from fad.primitives.indexing import ARRAY, Indexer

SETTINGS = settings(derandomize=True, deadline=None, max_examples=2)


def assert_same(got, want, **tol):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, equal_nan=True, **(tol or {"rtol": 1e-12}))


# ============================================================ in_axes / out_axes
X23 = np.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize("axis", [0, 1, -1, -2])
def test_in_axes_int_and_negative(axis):
    got = fad.vmap(lambda r: r * fnp.sum(r), in_axes=axis)(X23)
    rows = np.moveaxis(X23, axis, 0)
    assert_same(got, np.stack([r * r.sum() for r in rows]))


@pytest.mark.parametrize("out_axis", [0, 1, -1])
def test_out_axes_int_and_negative(out_axis):
    x = np.arange(24.0).reshape(4, 2, 3)
    got = fad.vmap(lambda a: fnp.sin(a) @ np.ones((3, 5)), out_axes=out_axis)(x)
    want = np.stack([np.sin(a) @ np.ones((3, 5)) for a in x])
    assert_same(got, np.moveaxis(want, 0, out_axis))


def test_in_axes_none_broadcasts_an_argument():
    w = np.array([1.0, -2.0, 0.5])
    got = fad.vmap(lambda x, w: x @ w, in_axes=(0, None))(np.ones((4, 3)) * 2, w)
    assert_same(got, np.full(4, 2 * w.sum()))


def test_in_axes_list_is_accepted_like_a_tuple():
    got = fad.vmap(lambda a, b: a + b, in_axes=[1, None])(X23, np.array([10.0, 20.0]))
    assert_same(got, X23.T + [10.0, 20.0])


def test_out_axes_none_for_an_unbatched_output():
    c, y = fad.vmap(lambda x: (np.float64(3.0), x * 2), out_axes=(None, 0))(X23)
    assert float(c) == 3.0 and np.shape(c) == ()
    assert_same(y, X23 * 2)


def test_unbatched_output_is_broadcast_with_out_axes_int():
    got = fad.vmap(lambda x: fnp.ones(2) * 7.0)(np.zeros(5))
    assert_same(got, np.full((5, 2), 7.0))


def test_in_axes_pytree_dict_and_tuple():
    rng = np.random.default_rng(0)
    params = {"w": rng.normal(size=(3, 2)), "b": rng.normal(size=(4, 2))}   # b batched
    xs = (rng.normal(size=(3, 4)), rng.normal(size=(3,)))                  # axis 1 / None

    def f(p, pair):
        x, s = pair
        return fnp.tanh(x @ p["w"] + p["b"]) * s[0]

    got = fad.vmap(f, in_axes=({"w": None, "b": 0}, (1, None)))(params, xs)
    want = np.stack([np.tanh(xs[0][:, i] @ params["w"] + params["b"][i]) * xs[1][0]
                     for i in range(4)])
    assert_same(got, want)


def test_in_axes_prefix_applies_to_a_whole_subtree():
    tree = {"a": np.ones((3, 2)), "b": (np.arange(3.0), np.arange(6.0).reshape(3, 2))}
    got = fad.vmap(lambda t: t["a"] * t["b"][0] + t["b"][1], in_axes=(0,))(tree)
    assert_same(got, np.ones((3, 2)) * np.arange(3.0)[:, None] + tree["b"][1])


def test_out_axes_pytree():
    x = np.arange(24.0).reshape(4, 2, 3)
    out = fad.vmap(lambda a: {"s": fnp.sum(a), "m": a * 2, "t": (a[0], a)},
                   out_axes={"s": 0, "m": 2, "t": (0, -1)})(x)
    assert_same(out["s"], x.sum(axis=(1, 2)))
    assert_same(out["m"], np.moveaxis(x * 2, 0, 2))
    assert_same(out["t"][0], x[:, 0])
    assert_same(out["t"][1], np.moveaxis(x, 0, -1))


def test_batch_of_size_one_and_zero():
    assert_same(fad.vmap(lambda a: a.sum())(np.ones((1, 3))), np.array([3.0]))
    assert fad.vmap(lambda a: a * 2)(np.zeros((0, 3))).shape == (0, 3)


# ============================================================ nested vmap
def test_nested_vmap_outer_product():
    a, b = np.arange(3.0), np.arange(4.0) + 1
    inner = fad.vmap(lambda x, y: x * y, in_axes=(None, 0))
    got = fad.vmap(inner, in_axes=(0, None))(a, b)
    assert_same(got, np.outer(a, b))


def test_nested_vmap_different_axes_against_double_loop():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 5, 3, 4))   # map axis 1 outside, then axis 2 of what remains
    f = lambda m: fnp.sum(fnp.sin(m) * m, axis=0)
    got = fad.vmap(fad.vmap(f, in_axes=2, out_axes=0), in_axes=1, out_axes=1)(x)
    want = np.empty((4, 5, 3))  # [k, i, :] then outer out_axes=1 puts i second
    for i in range(5):
        for k in range(4):
            want[k, i] = np.sum(np.sin(x[:, i, :, k]) * x[:, i, :, k], axis=0)
    assert_same(got, want, rtol=1e-12)


def test_triple_vmap_matmul_is_batched_matmul():
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 3, 5, 6))
    f = fad.vmap(fad.vmap(fad.vmap(lambda r, m: r @ m)))       # rows of a times b
    got = f(a, np.broadcast_to(b[:, :, None], (2, 3, 4, 5, 6)))
    assert_same(got, a @ b, rtol=1e-12)


def test_vmap_of_jit_and_jit_of_vmap():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 3))
    f = lambda r: fnp.sum(fnp.tanh(r) * r[::-1])
    want = np.array([np.sum(np.tanh(r) * r[::-1]) for r in x])
    jf = fad.jit(f)
    assert_same(fad.vmap(jf)(x), want)
    jv = fad.jit(fad.vmap(f))
    assert_same(jv(x), want)
    assert_same(jv(x + 1), np.array([np.sum(np.tanh(r) * r[::-1]) for r in x + 1]))
    assert jv.trace_count == 1


# ============================================================ every primitive
def _s(*operands, **params):
    """A case: operands as (kind, per-example shape[, int bound]); params static."""
    return operands, params


_F23 = ("f", (2, 3))


def _conv(strides, padding, lhs_dilation, rhs_dilation, groups=1, batches=1,
          specs=((0, 1, 2),) * 3):
    return dict(window_strides=strides, padding=padding, lhs_dilation=lhs_dilation,
                rhs_dilation=rhs_dilation, dimension_numbers=ConvDimensionNumbers(*specs),
                feature_group_count=groups, batch_group_count=batches)


_RW = dict(window_dimensions=(2, 2), window_strides=(1, 2), padding=((1, 0), (0, 1)),
           base_dilation=(1, 2), window_dilation=(2, 1))
_RW6 = {**_RW, "window_dimensions": (2, 3)}
_POOL = dict(window_dimensions=(3, 2), window_strides=(3, 2), padding=((0, 0), (0, 0)),
             base_dilation=(1, 1), window_dilation=(1, 1))
_BIN = [_s(_F23, _F23), _s(("f", (3,)), _F23), _s(("f", ()), _F23)]
_BOOL_BIN = [_s(("b", (2, 3)), ("b", (2, 3))), _s(("b", (3,)), ("b", (2, 3)))]
_RED = [_s(("f", (2, 3, 4)), axes=a) for a in [(0,), (1, 2), (), (0, 1, 2)]]
_BRED = [_s(("b", (2, 3, 4)), axes=a) for a in [(0,), (1, 2), (0, 1, 2)]]

CASES = {
    "not": [_s(("b", (2, 3)))],
    "and": _BOOL_BIN, "or": _BOOL_BIN, "xor": _BOOL_BIN,
    "select": [_s(("b", (2, 3)), _F23, _F23), _s(("b", (3,)), _F23, ("f", ()))],
    "polygamma": [_s(("n", (2, 3)), _F23), _s(("n", (3,)), _F23), _s(("n", ()), _F23)],
    "betainc": [_s(_F23, _F23, _F23), _s(("f", (3,)), ("f", ()), _F23)],
    "betaincinv": [_s(_F23, _F23, _F23), _s(("f", (3,)), ("f", ()), _F23)],
    "betainccinv": [_s(_F23, _F23, _F23), _s(("f", (3,)), ("f", ()), _F23)],
    "reduce_sum": _RED, "reduce_max": _RED, "reduce_min": _RED,
    "reduce_or": _BRED, "reduce_and": _BRED,
    "argmax": [_s(_F23, axis=0), _s(_F23, axis=1)],
    "argmin": [_s(_F23, axis=0), _s(_F23, axis=1)],
    "reshape": [_s(_F23, new_sizes=s) for s in [(3, 2), (6,), (1, 6, 1)]],
    "transpose": [_s(("f", (2, 3, 4)), permutation=(2, 0, 1)), _s(_F23, permutation=(1, 0))],
    "broadcast_to": [_s(("f", (3,)), shape=(2, 3)), _s(("f", ()), shape=(2, 3)),
                     _s(("f", (2, 1)), shape=(4, 2, 3))],
    "convert_element_type": [_s(_F23, new_dtype=np.dtype(np.float32)),
                             _s(_F23, new_dtype=np.dtype(np.int64))],
    "concatenate": [_s(_F23, ("f", (2, 1)), axis=1),
                    _s(_F23, ("f", (1, 3)), ("f", (3, 3)), axis=0)],
    "matmul": [_s(_F23, ("f", (3, 4))), _s(("f", (5, 2, 3)), ("f", (3, 4)))],
    "einsum": [_s(_F23, ("f", (3, 4)), spec="ij,jk->ik"), _s(("f", (3, 3)), spec="ii->i"),
               _s(_F23, spec="ij->"), _s(("f", (2,)), ("f", (3,)), spec="i,j->ij"),
               _s(("f", (2, 2, 3)), ("f", (2, 3, 2)), spec="bij,bjk->bik"),
               _s(_F23, _F23, spec="ij,ij->i")],
    "gather": [_s(("f", (4, 3)), indexer=Indexer((1,))),
               _s(("f", (4, 3)), indexer=Indexer((slice(None, None, -1), None, 2))),
               _s(("f", (4, 3)), indexer=Indexer((Ellipsis, slice(0, 2)))),
               _s(("f", (4, 3)), ("i", (2,), 4), indexer=Indexer((ARRAY,))),
               _s(("f", (4, 3)), ("i", (2, 2), 3), indexer=Indexer((slice(None), ARRAY))),
               _s(("f", (4, 3)), ("i", (2,), 4), ("i", (2,), 3),
                  indexer=Indexer((ARRAY, ARRAY))),
               _s(("f", (4, 3, 2)), ("i", (2,), 4), indexer=Indexer((ARRAY, slice(None), 1)))],
    "add_at": [_s(("f", (4, 3)), _F23, ("i", (2,), 4), indexer=Indexer((ARRAY,))),
               _s(("f", (4, 3)), ("f", (3,)), indexer=Indexer((1,))),
               _s(("f", (5,)), ("f", (4,)), indexer=Indexer((slice(1, None),))),
               _s(("f", (4, 3)), _F23, ("i", (2,), 4), indexer=Indexer((ARRAY,)), sign=-1),
               _s(("f", (5,)), ("f", (4,)), indexer=Indexer((slice(None, -1),)), sign=-1)],
    # x.at[index] updates (repeated, negative indices) and fad.lax's dynamic slices
    **{name: [_s(("f", (4, 3)), _F23, ("i", (2,), 4), indexer=Indexer((ARRAY,)), **kw),
              _s(("f", (4, 3)), ("f", (4, 3, 2)), ("i", (3, 2), 3),
                 indexer=Indexer((slice(None), ARRAY)), **kw),
              _s(("f", (4, 3)), ("f", (3,)), indexer=Indexer((1,)), **kw)]
       for name, kw in [("scatter", {}), ("scatter_mul", {"unique": False}),
                        ("scatter_min", {}), ("scatter_max", {})]},
    "scatter_winners": [_s(_F23, ("i", (2,), 4), indexer=Indexer((ARRAY,)), shape=(4, 3))],
    "dynamic_slice": [_s(("f", (4, 3)), ("i", (), 5), ("i", (), 4), sizes=(2, 2))],
    "dynamic_update_slice": [_s(("f", (4, 3)), ("f", (2, 2)), ("i", (), 5), ("i", (), 4))],
    "eye_like": [_s(_F23, n=3), _s(("f", ()), n=1)],
    "scatter_add": [_s(_F23, ("i", (2,), 4), indexer=Indexer((ARRAY,)), shape=(4, 3)),
                    _s(("f", (3,)), indexer=Indexer((1,)), shape=(4, 3))],
    # complex numbers and FFTs
    "real": [_s(("c", (2, 3)))], "imag": [_s(("c", (2, 3)))], "conj": [_s(("c", (2, 3)))],
    "fft": [_s(("c", (2, 4)), kind="fft", n=4, axis=1), _s(("c", (2, 4)), kind="ifft", n=3, axis=0),
            _s(("f", (2, 4)), kind="rfft", n=4, axis=1),
            _s(("c", (2, 3)), kind="irfft", n=4, axis=1)],
    # sorting, scans, padding
    "sort": [_s(_F23, axis=0), _s(_F23, axis=1)],
    "argsort": [_s(_F23, axis=0), _s(_F23, axis=1)],
    "searchsorted": [_s(("sorted", (5,)), _F23, side="left"),
                     _s(("sorted", (5,)), ("f", (4,)), side="right")],
    "cumsum": [_s(_F23, axis=a, reverse=r) for a in (0, 1) for r in (False, True)],
    "cumprod": [_s(_F23, axis=a, reverse=r) for a in (0, 1) for r in (False, True)],
    **{name: [_s(_F23, axis=a, reverse=r) for a in (0, 1) for r in (False, True)]
       for name in ("cummax", "cummin", "cumlogsumexp")},
    "reduce_prod": _RED,
    "pad": [_s(_F23, ("f", ()), widths=((1, 0), (0, 2)))],
    # linear algebra (square matrices; symmetric positive definite where required)
    "inv": [_s(("f", (3, 3)))], "det": [_s(("f", (3, 3)))], "adjugate": [_s(("f", (3, 3)))],
    "slogdet": [_s(("f", (3, 3)))], "svdvals": [_s(("f", (3, 3)))],
    "qr": [_s(("f", (3, 3)))], "svd": [_s(("f", (3, 3)))],
    "cholesky": [_s(("spd", (3, 3)))], "eigh": [_s(("spd", (3, 3)))],
    "eig": [_s(("f", (3, 3)))],
    "solve": [_s(("spd", (3, 3)), ("f", (3, 2)))],
    # convolutions and windowed reductions
    "conv_general_dilated": [
        _s(("f", (2, 3, 5)), ("f", (4, 3, 2)), **_conv((1,), ((0, 1),), (1,), (2,))),
        _s(("f", (2, 4, 5)), ("f", (6, 2, 3)), **_conv((2,), ((1, 0),), (2,), (1,), groups=2)),
        _s(("f", (4, 5, 3)), ("f", (4, 3, 2)), **_conv((1,), ((1, 1),), (1,), (1,), batches=2,
                                                       specs=((0, 2, 1), (0, 1, 2), (2, 0, 1))))],
    **{f"reduce_window_{k}": [_s(("f", (3, 5)), **_RW)] for k in
       ("sum", "max", "min", "argmax", "argmin")},
    # (chosen taps: "n" draws 0..4, within these windows of 6 taps)
    "as_real": [_s(("c", (3, 2)))],
    "as_complex": [_s(("f", (3, 2))), _s(("f", (2, 4, 2)))],
    "diagonal": [_s(("f", (3, 4)), offset=1, axis1=0, axis2=1),
                 _s(("f", (2, 3, 4)), offset=-1, axis1=2, axis2=0)],
    "as_strided": [_s(("f", (2, 3)), shape=(3, 2), strides=(1, 2), offset=1),
                   _s(("f", (4,)), shape=(2, 0), strides=(1, 1), offset=0)],
    "windows": [_s(("f", (3, 5)), axis=1, size=2, step=2),
                _s(("f", (4, 2)), axis=0, size=3, step=1),
                _s(("f", (2, 3)), axis=1, size=0, step=1)],
    "window_gather": [_s(("f", (3, 5)), ("n", (2, 4)), **_RW6),
                      _s(("f", (6, 4)), ("n", (2, 2)), **_POOL)],
    "window_scatter": [_s(("f", (2, 4)), ("n", (2, 4)), operand_shape=(3, 5), **_RW6),
                       _s(("f", (2, 2)), ("n", (2, 2)), operand_shape=(6, 4), **_POOL)],
    "solve_triangular": [_s(("spd", (3, 3)), ("f", (3, 2)), lower=lo, trans=t,
                            unit_diagonal=u) for lo, t, u in [(True, 0, False), (False, 2, True)]],
    "lu": [_s(("f", (3, 3)))], "sqrtm": [_s(("spd", (3, 3)))],
    "device_put": [_s(("f", (2, 3)), backend="array_api_strict", source="numpy")],
}


def _traced_case(fn, *args, kinds):
    """A case of the control-flow primitive that ``fn`` traces to last: its params
    (bodies as jaxprs) from ``make_jaxpr``, its operands of the given kinds and
    the traced per-example shapes."""
    eqn = fad.make_jaxpr(fn)(*args).jaxpr.eqns[-1]
    return tuple((k, tuple(v.aval.shape)) for k, v in zip(kinds, eqn.invars)), dict(eqn.params)


CASES["scan"] = [_traced_case(
    lambda c, xs: lax.scan(lambda c, x: (c * x + 1.0, c + x), c, xs), 0.5, np.ones(4),
    kinds="ff")]
CASES["cond"] = [_traced_case(  # (five branches: the "n" operands draw 0 to 4)
    lambda i, x: lax.switch(i, [fnp.sin, fnp.cos, fnp.exp, lambda x: x * x, fnp.tanh], x),
    1, np.ones(3), kinds="nf")]
CASES["while"] = [_traced_case(  # (a batched counter: a different trip count per example)
    lambda n, x: lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 1.5), (n, x)),
    0, np.ones(3), kinds="nf")]
CASES["debug_callback"] = [_traced_case(  # (no outputs: runs once per example, printing)
    lambda x: (fad.debug.print("x = {}", x), x)[1], np.ones(3), kinds="f")]
CASES["pure_callback"] = [_traced_case(  # (a host function that broadcasts a leading axis)
    lambda x, k: fad.pure_callback(lambda x, k: np.sin(x) * k[..., None],
                                   fad.ShapedArray((3,), "float64"), x, k, vmap_method=m),
    np.ones(3), 2.0, kinds="ff") for m in ("sequential", "expand_dims", "broadcast_all")]


def _default_cases(prim):
    """Cases for a primitive this table does not know: try it as a unary or binary
    elementwise primitive on floats, small non-negative integers or booleans."""
    rng = np.random.default_rng(0)
    for arity in (1, 2):
        for kind in ("f", "n", "b"):
            probe = [_value(rng, kind, (2, 3)) for _ in range(arity)]
            try:
                with np.errstate(all="ignore"):
                    prim.impl(*probe)
            except Exception:
                continue
            if arity == 1:
                return [_s((kind, (2, 3)))]
            return [_s((kind, (2, 3)), (kind, (2, 3))), _s((kind, (3,)), (kind, (2, 3))),
                    _s((kind, ()), (kind, (2, 3)))]
    return None


def _value(rng, kind, shape, bound=None):
    if kind == "f":
        return rng.uniform(0.1, 0.9, shape)   # in the domain of log, sqrt, arcsin, pow...
    if kind == "c":
        return rng.uniform(0.1, 0.9, shape) + 1j * rng.uniform(-1, 1, shape)
    if kind == "b":
        return rng.uniform(size=shape) > 0.5
    if kind == "n":
        return rng.integers(0, 5, shape)
    if kind == "sorted":
        return np.sort(rng.uniform(0, 1, shape), axis=-1)
    if kind == "spd":
        a = rng.uniform(-1, 1, shape)
        return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
    return rng.integers(-bound, bound, shape)


def _axes_choices(operands):
    """Each operand batched at the front, at the back, or not at all."""
    opts = [sorted({0, len(o[1]), None}, key=lambda d: (d is None, d)) for o in operands]
    return [c for c in itertools.product(*opts) if any(d is not None for d in c)]


@np.errstate(all="ignore")
def _check_batched(prim, operands, params, dims, size=3, seed=0):
    rng = np.random.default_rng(seed)
    vals = []
    for (kind, shape, *bound), d in zip(operands, dims):
        if d is None:
            vals.append(_value(rng, kind, shape, *bound))
        else:
            vals.append(np.moveaxis(_value(rng, kind, (size,) + shape, *bound), 0, d))
    multi = prim.multiple_results
    got = fad.vmap(lambda *xs: bind(prim, *xs, **params), in_axes=tuple(dims))(*vals)
    per_example = [prim.impl(*[v if d is None else np.take(v, i, axis=d)
                               for v, d in zip(vals, dims)], **params) for i in range(size)]
    want = [np.stack(o) for o in zip(*per_example)] if multi else [np.stack(per_example)]
    got = list(got) if multi else [got]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_same(g, w, rtol=1e-10, atol=1e-12)
    if all(d is not None for d in dims):  # nested: two batch axes, double loop
        vals2 = [np.stack([np.moveaxis(v, d, 0)] * 2) for v, d in zip(vals, dims)]
        got2 = fad.vmap(fad.vmap(lambda *xs: bind(prim, *xs, **params)))(*vals2)
        got2 = list(got2) if multi else [got2]
        for g, w in zip(got2, want):
            assert_same(g, np.stack([w, w]), rtol=1e-10, atol=1e-12)


_CALLS = {"custom_jvp_call", "custom_vjp_call", "checkpoint"}  # params hold functions
_NON_CALL = sorted(n for n, p in REGISTRY.items() if p.inline is None and n not in _CALLS)


@pytest.mark.parametrize("name", _NON_CALL)
def test_batching_rule_matches_loop(name):
    """Every (non-call) primitive of the registry, every operand batched at the
    front / back / not at all, against a Python loop; plus nested vmap."""
    prim = REGISTRY[name]
    cases = CASES.get(name) or _default_cases(prim)
    if cases is None:
        pytest.skip(f"no input builder for primitive {name!r}: add it to CASES")
    checked = 0
    for operands, params in cases:
        for dims in _axes_choices(operands):
            try:
                _check_batched(prim, operands, params, dims)
            except AssertionError as e:
                raise AssertionError(f"{name} shapes={[o[1] for o in operands]} "
                                     f"params={params} in_axes={dims}: {e}") from None
            checked += 1
    assert checked >= len(cases)


_NO_RULE = {  # known gaps: vmap falls back to one bind per example (correct, slow)
}


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=_NO_RULE[n]))
    if n in _NO_RULE else n for n in _NON_CALL])
def test_every_primitive_has_a_batching_rule(name):
    assert REGISTRY[name].batch is not None


def test_call_primitives_batch_their_bodies():
    """jit, custom_jvp, custom_vjp and checkpoint under vmap (their own rules)."""
    x = np.linspace(-1, 1, 6).reshape(3, 2)
    f = lambda r: fnp.sum(fnp.sin(r) * r[::-1])
    want = np.array([np.sum(np.sin(r) * r[::-1]) for r in x])
    assert_same(fad.vmap(fad.jit(f))(x), want)
    assert_same(fad.vmap(fad.checkpoint(f))(x), want)

    @fad.custom_jvp
    def cj(r):
        return f(r)
    cj.defjvp(lambda p, t: (cj(*p), fnp.sum(t[0])))
    assert_same(fad.vmap(cj)(x), want)

    @fad.custom_vjp
    def cv(r):
        return f(r)
    cv.defvjp(lambda r: (cv(r), None), lambda res, g: (g * fnp.ones(2),))
    assert_same(fad.vmap(cv)(x), want)


def test_control_flow_primitives_batch_like_a_loop():
    """cond / scan / while (params hold jaxprs: no generic input builder above)."""
    rng = np.random.default_rng(9)
    ps, xs = np.array([1.0, -1.0, 2.0, -0.5]), rng.normal(size=(4, 3))

    def branchy(p, x):
        return fad.lax.cond(p > 0, lambda v: fnp.sin(v) * p, lambda v: v ** 2 - p, x)

    assert_same(fad.vmap(branchy)(ps, xs),
                np.stack([np.sin(x) * p if p > 0 else x ** 2 - p for p, x in zip(ps, xs)]))
    assert_same(fad.vmap(branchy, in_axes=(None, 0))(-1.0, xs), xs ** 2 + 1.0)

    def cumulative(x):
        return fad.lax.scan(lambda c, v: (c * 0.5 + v, fnp.tanh(c + v)), 0.0, x)

    carry, ys = fad.vmap(cumulative)(xs)
    for k, x in enumerate(xs):
        c, want = 0.0, []
        for v in x:
            want.append(np.tanh(c + v))
            c = c * 0.5 + v
        assert float(carry[k]) == pytest.approx(c, rel=1e-12)
        np.testing.assert_allclose(ys[k], want, rtol=1e-12)

    def doubling(n, x):   # a batched trip count
        return fad.lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2.0),
                                  (0, x))[1]

    ns = np.array([0, 1, 3, 2])
    assert_same(fad.vmap(doubling)(ns, xs), xs * (2.0 ** ns)[:, None])


# ============================================================ through fad.numpy
@pytest.mark.parametrize("fn", [
    lambda r, i: r[i],
    lambda r, i: r[::-1][i] * r[0],
    lambda r, i: fnp.take(r, fnp.stack([i, i])),
    lambda r, i: fnp.where(r > r[i], r, -r),
    lambda r, i: fnp.einsum("i,j->ij", r, r)[i],
    lambda r, i: fnp.concatenate([r, fnp.expand_dims(r[i], 0)]),
    lambda r, i: fnp.max(fnp.reshape(fnp.stack([r, r * 2]), (2, 2, 2)), axis=1).T,
    lambda r, i: fnp.argmax(r * (1.0 + i)),
], ids=["int_array", "slice_then_int_array", "take", "where", "einsum", "concat",
        "stack_reshape_max_T", "argmax"])
def test_fad_numpy_functions_with_batched_indices(fn):
    rng = np.random.default_rng(4)
    x, idx = rng.normal(size=(5, 4)), np.array([3, 0, 1, 1, 2])
    got = fad.vmap(fn)(x, idx)
    want = np.stack([np.asarray(fn(fnp.asarray(r), i)) for r, i in zip(x, idx)])
    assert_same(got, want)


# ============================================================ per-example gradients
def _loss(w, x, y):
    return fnp.mean((fnp.tanh(x @ w["W"] + w["b"]) - y) ** 2) + 0.1 * fnp.sum(w["W"] ** 2)


def test_per_example_gradients_vmap_of_grad_vs_loop():
    rng = np.random.default_rng(5)
    w = {"W": rng.normal(size=(3, 2)), "b": rng.normal(size=(2,))}
    xs, ys = rng.normal(size=(6, 3)), rng.normal(size=(6, 2))
    got = fad.vmap(fad.grad(_loss), in_axes=(None, 0, 0))(w, xs, ys)
    for i in range(6):
        want = fad.grad(_loss)(w, xs[i], ys[i])
        assert_same(got["W"][i], want["W"])
        assert_same(got["b"][i], want["b"])
    # and against finite differences for one example
    eps, k = 1e-6, 4
    for idx in np.ndindex(3, 2):
        wp = {"W": w["W"].copy(), "b": w["b"]}
        wm = {"W": w["W"].copy(), "b": w["b"]}
        wp["W"][idx] += eps
        wm["W"][idx] -= eps
        fd = (float(_loss(wp, xs[k], ys[k])) - float(_loss(wm, xs[k], ys[k]))) / (2 * eps)
        assert abs(got["W"][k][idx] - fd) < 1e-6


def test_per_example_gradients_through_indexing():
    """vmap(grad) of a loss that indexes: the backward pass scatters."""
    rng = np.random.default_rng(6)
    emb, ids = rng.normal(size=(5, 3)), np.array([[0, 2], [4, 4], [1, 3]])
    f = lambda e, i: fnp.sum(fnp.sin(e[i]))
    got = fad.vmap(fad.grad(f), in_axes=(None, 0))(emb, ids)
    for k in range(3):
        want = np.zeros_like(emb)
        np.add.at(want, ids[k], np.cos(emb[ids[k]]))
        assert_same(got[k], want)


def test_vmap_of_value_and_grad_and_of_jvp():
    x = np.linspace(-1, 1, 4)
    v, g = fad.vmap(fad.value_and_grad(lambda t: fnp.sin(t) * t))(x)
    assert_same(v, np.sin(x) * x)
    assert_same(g, np.cos(x) * x + np.sin(x))
    y, t = fad.vmap(lambda a: fad.jvp(fnp.exp, (a,), (2.0,)))(x)
    assert_same(y, np.exp(x))
    assert_same(t, 2 * np.exp(x))


# ============================================================ Jacobians
def _fd_jacobian(f, xs, argnum, eps=1e-6):
    x = np.asarray(xs[argnum], np.float64)
    out = np.asarray(f(*xs))
    jac = np.zeros(out.shape + x.shape)
    for idx in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        plus = list(xs)
        minus = list(xs)
        plus[argnum], minus[argnum] = x + d, x - d
        jac[(...,) + idx] = (np.asarray(f(*plus)) - np.asarray(f(*minus))) / (2 * eps)
    return jac


@pytest.mark.parametrize("op", OPS, ids=str)
@settings(derandomize=True, deadline=None, max_examples=1)
@given(data=st.data())
def test_jacfwd_equals_jacrev_on_the_operator_table(op, data):
    ex = data.draw(examples(op, np.float64))
    if not ex.arrays or any(a.size == 0 for a in ex.arrays):
        return
    nums = tuple(range(len(ex.arrays)))
    jf = fad.jacfwd(ex.fad, argnums=nums)(*ex.arrays)
    jr = fad.jacrev(ex.fad, argnums=nums)(*ex.arrays)
    out = np.asarray(ex.numpy())
    for k, x in enumerate(ex.arrays):
        assert np.shape(jf[k]) == out.shape + x.shape
        np.testing.assert_allclose(jf[k], jr[k], rtol=1e-10, atol=1e-10)
    if math.prod(out.shape) * ex.arrays[0].size <= 64:
        tol = op.check_tol(np.float64) or 1e-5
        fd = _fd_jacobian(lambda *a: op.numpy(*a, **ex.params), ex.arrays, 0)
        np.testing.assert_allclose(jf[0], fd, rtol=tol, atol=tol)


@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_jacfwd_jacrev_pytree_outputs_and_argnums(argnums):
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=3), rng.normal(size=(2, 2))
    f = lambda x, y: {"a": fnp.sin(x)[:, None] * fnp.sum(y), "b": fnp.tanh(y @ y)}
    jf = fad.jacfwd(f, argnums=argnums)(x, y)
    jr = fad.jacrev(f, argnums=argnums)(x, y)
    lf, tf = fad.tree.tree_flatten(jf)
    lr, tr = fad.tree.tree_flatten(jr)
    assert tf == tr
    for a, b in zip(lf, lr):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    if argnums == 1:
        want = _fd_jacobian(lambda x, y: np.tanh(y @ y), (x, y), 1)
        np.testing.assert_allclose(jf["b"], want, rtol=1e-6, atol=1e-8)


def test_hessian_is_symmetric_and_matches_jacfwd_of_grad():
    rng = np.random.default_rng(8)
    x = rng.normal(size=4)
    f = lambda x: fnp.sum(fnp.sin(x) * x[::-1]) + fnp.sum(x) ** 3
    h = fad.hessian(f)(x)
    assert h.shape == (4, 4)
    np.testing.assert_allclose(h, h.T, atol=1e-12)
    np.testing.assert_allclose(h, fad.jacrev(fad.grad(f))(x), atol=1e-12)


def test_vmap_of_jacrev():
    x = np.linspace(-1, 1, 6).reshape(2, 3)
    got = fad.vmap(fad.jacrev(lambda r: fnp.sin(r) * r[0]))(x)
    for k, r in enumerate(x):
        want = np.diag(np.cos(r) * r[0])
        want[:, 0] += np.sin(r)
        np.testing.assert_allclose(got[k], want, atol=1e-12)


# ============================================================ errors
def test_mismatched_sizes_name_both_sizes_and_the_arguments():
    with pytest.raises(ValueError) as info:
        fad.vmap(lambda a, b: a + b)(np.ones((2, 3)), np.ones((4, 3)))
    msg = str(info.value)
    assert "2" in msg and "4" in msg
    assert "argument" in msg and "0" in msg and "1" in msg


def test_mismatched_sizes_with_in_axes_name_the_axes_sizes():
    with pytest.raises(ValueError) as info:
        fad.vmap(lambda a, b: a + b.T, in_axes=(0, 1))(np.ones((5, 3)), np.ones((5, 3)))
    msg = str(info.value)
    assert "5" in msg and "3" in msg


def test_mismatched_sizes_inside_a_pytree_locate_the_leaf():
    with pytest.raises(ValueError) as info:
        fad.vmap(lambda a, d: a + d["u"] + d["v"])(
            np.ones(3), {"u": np.ones(3), "v": np.ones(7)})
    msg = str(info.value)
    assert "3" in msg and "7" in msg
    assert "'v'" in msg or "[1]" in msg


def test_other_in_axes_errors():
    with pytest.raises(ValueError, match="out of range"):
        fad.vmap(lambda a: a, in_axes=2)(np.ones((2, 3)))
    with pytest.raises(ValueError, match="in_axes"):
        fad.vmap(lambda a, b: a, in_axes=(0,))(np.ones(2), np.ones(2))
    with pytest.raises(ValueError, match="at least one"):
        fad.vmap(lambda a: a, in_axes=None)(np.ones(2))
    with pytest.raises(ValueError, match="out_axes"):
        fad.vmap(lambda a: a, out_axes=None)(np.ones(2))


def test_branching_on_a_batched_value_is_a_concretization_error():
    def f(x):
        return x if x > 0 else -x
    with pytest.raises(fad.ConcretizationError):
        fad.vmap(f)(np.array([1.0, -1.0]))


# ============================================================ specs, keywords, empty batches
@pytest.mark.parametrize("out_axes, per_example", [(3, (3, 4)), (-4, (3, 4)), (1, ())])
def test_out_axes_out_of_range_is_an_error(out_axes, per_example):
    """Not wrapped around (out_axes=3 on a 3-d batched output does not act as 0)."""
    x = np.ones((2,) + per_example)
    with pytest.raises(ValueError, match=f"out_axes={out_axes} is out of range"):
        fad.vmap(lambda a: a * 2, out_axes=out_axes)(x)


def test_keyword_arguments_are_mapped_over_axis_0():
    X, Y = np.arange(6.0).reshape(2, 3), np.ones((2, 3))
    got = fad.vmap(lambda a, b: a @ b, in_axes=(0,))(X, b=Y)
    np.testing.assert_allclose(got, np.einsum("ij,ij->i", X, Y))


@pytest.mark.parametrize("f, args", [
    (lambda v, k: v[k], (np.ones((0, 3)), np.zeros(0, int))),
    (lambda v: fad.lax.while_loop(lambda c: c < 10.0, lambda c: c * 2 + 1, v), (np.ones(0),)),
])
def test_an_empty_batch_runs_through_per_example_rules(f, args):
    """Batch size 0 where a primitive is batched by a loop over examples: empty
    outputs of the per-example shape, as JAX gives."""
    got = fad.vmap(f)(*args)
    assert got.shape == (0,) and got.dtype == np.float64


def test_axis_specs_are_checked_against_the_values():
    X = {"a": np.ones((2, 3)), "b": np.ones((2, 3))}
    with pytest.raises(ValueError, match=r"dict keys \['a'\] where the value has \['a', 'b'\]"):
        fad.vmap(lambda d: d["a"] + d["b"], in_axes=({"a": 0},))(X)
    with pytest.raises(ValueError, match=r"'zzz'"):
        fad.vmap(lambda d: d["a"], in_axes=({"a": 0, "b": None, "zzz": 1},))(X)
    with pytest.raises(TypeError, match="ints, None or containers of them; got float"):
        fad.vmap(lambda a: a, in_axes=0.0)(np.ones(2))
    with pytest.raises(TypeError, match="got bool True"):
        fad.vmap(lambda a: a, in_axes=True)(np.ones((2, 2)))
    with pytest.raises(ValueError, match="a tuple of axes was given for a ndarray value"):
        fad.vmap(lambda a: a, out_axes=(0, 1))(np.ones((2, 2)))


def test_errors_name_the_batch_and_the_way_out():
    """A Python branch on a batched value says vmap (not jit); indexing a NumPy
    constant with a batched index names fnp.take; mismatched sizes name axes
    and shapes."""
    with pytest.raises(fad.ConcretizationError, match="under fad.vmap each example"):
        fad.vmap(lambda a: a if a.sum() > 0 else -a)(np.ones((3, 2)))
    table = np.array([10.0, 20.0, 30.0])
    with pytest.raises(fad.ConcretizationError, match=r"fnp.take\(array, index\)"):
        fad.vmap(lambda i: table[i])(np.array([0, 2]))
    np.testing.assert_allclose(fad.vmap(lambda i: fnp.take(table, i))(np.array([0, 2])),
                               [10.0, 30.0])
    with pytest.raises(ValueError, match=r"size 2 for argument 0 \(axis 0 of shape \(2, 3\)\)"
                                         r"; size 5 for argument 1 \(axis 0 of shape \(5,\)\)"):
        fad.vmap(lambda a, b: a)(np.ones((2, 3)), np.ones(5))


def test_a_shape_error_under_vmap_names_the_per_example_shapes():
    """The batching rule fails on batched shapes; the error reports the shapes
    the user wrote, one example's."""
    with pytest.raises(fad.ShapeError, match=r"'add' failed on operands \(f64\[3\], f64\[4\]\)"):
        fad.vmap(lambda a: a + fnp.ones(4))(np.ones((4, 3)))
