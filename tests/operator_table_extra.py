"""More entries for the operator table (``operator_table.py``'s format): the rest
of ``fad.numpy`` and ``fad.numpy.linalg``. ``OPS_EXTRA`` is a list of
``Op``; every new primitive is covered by at least one entry.

Functions returning several arrays (``split``, ``qr``, ``svd``...) are wrapped
to return one array (the pieces raveled and concatenated), and decompositions
whose outputs are defined up to signs (eigenvectors, singular vectors; phases
``e^{i theta}`` for complex matrices) are wrapped in sign- and phase-invariant
products (``v_i conj(v_j)``), so that finite differences and NumPy's values are
comparable.

Complex128 (see ``operator_table``): ``real_only`` says why an entry has no
complex run; ``cdomain`` gives complex inputs where ``x + iy`` would not do
(Hermitian positive-definite matrices, separated singular values...).
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import scipy.special
from hypothesis import strategies as st
from operator_table import (
    DISTINCT,
    MAX_SIDE,
    NONZERO,
    POS,
    REAL,
    UNIT,
    Case,
    Domain,
    Op,
    _axes,
    _finish,
    away,
    cplx,
    elementwise,
    plain,
    reduction,
    shape_st,
    uniform,
)

_CHAIN: dict = {}


# ---------------------------------------------------------------- domains
def _batched(sample_one: Any, dtype: Any = np.float64) -> Any:
    """A domain sampler that fills each matrix of a stack with ``sample_one``."""
    def sample(rng: np.random.Generator, shape: tuple) -> np.ndarray:
        out = np.empty(shape, dtype)
        for idx in np.ndindex(*shape[:-2]):
            out[idx] = sample_one(rng, shape[-2:])
        return out
    return sample


def _orth(rng: np.random.Generator, n: int) -> np.ndarray:
    q, r = np.linalg.qr(rng.standard_normal((n, n)))
    return q * np.sign(np.diag(r))


def _well(rng: np.random.Generator, mn: tuple) -> np.ndarray:
    m, n = mn
    a = rng.uniform(-0.5, 0.5, mn)
    k = min(m, n)
    a[np.arange(k), np.arange(k)] += 2.0 * np.sign(rng.uniform(-1, 1, k) + 0.1)
    return a


def _spd(rng: np.random.Generator, mn: tuple) -> np.ndarray:
    """Symmetric, eigenvalues 1, 2.5, 4, ... (separated: eigenvectors are smooth)."""
    n = mn[0]
    q = _orth(rng, n)
    d = 1.0 + 1.5 * np.arange(n) + rng.uniform(0, 0.3, n)
    return (q * d) @ q.T


def _separated(rng: np.random.Generator, mn: tuple) -> np.ndarray:
    """Singular values 1, 2.5, 4, ... (separated)."""
    m, n = mn
    k = min(m, n)
    s = 1.0 + 1.5 * np.arange(k)[::-1] + rng.uniform(0, 0.3, k)
    return _orth(rng, m)[:, :k] * s @ _orth(rng, n)[:, :k].T


def _unitary(rng: np.random.Generator, n: int) -> np.ndarray:
    q, r = np.linalg.qr(rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n)))
    d = np.diag(r)
    return q * (d / np.abs(d))


def _hpd(rng: np.random.Generator, mn: tuple) -> np.ndarray:
    """Hermitian, eigenvalues 1, 2.5, 4, ... (separated)."""
    n = mn[0]
    q = _unitary(rng, n)
    d = 1.0 + 1.5 * np.arange(n) + rng.uniform(0, 0.3, n)
    return (q * d) @ q.conj().T


def _separated_complex(rng: np.random.Generator, mn: tuple) -> np.ndarray:
    m, n = mn
    k = min(m, n)
    s = 1.0 + 1.5 * np.arange(k)[::-1] + rng.uniform(0, 0.3, k)
    return _unitary(rng, m)[:, :k] * s @ _unitary(rng, n)[:, :k].conj().T


WELL = Domain("well-conditioned", _batched(_well))
SPD = Domain("spd", _batched(_spd))
SEPARATED = Domain("separated singular values", _batched(_separated))
# complex matrices (x + iy would not be Hermitian, nor keep singular values apart)
HPD = Domain("hermitian positive definite", _batched(_hpd, np.complex128))
SEPARATED_C = Domain("complex, separated singular values",
                     _batched(_separated_complex, np.complex128))


def _distinct_nonzero(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    n = math.prod(shape)
    mag = 0.3 + 0.25 * rng.permutation(n) + rng.uniform(0, 0.05, n)
    return (mag * rng.choice([-1.0, 1.0], n)).reshape(shape)


DISTINCT_NONZERO = Domain("distinct, away from 0", _distinct_nonzero)
DISTINCT_MODULI = Domain("complex, distinct moduli", lambda rng, shape: np.abs(
    _distinct_nonzero(rng, shape)) * np.exp(1j * rng.uniform(-np.pi, np.pi, shape)))
INTEGERS_AWAY = away(-2.4, 2.4, -2, -1, 0, 1, 2, gap=0.15)  # floor/ceil/trunc: no jumps
HALVES_AWAY = Domain("near integers", lambda rng, shape: (
    rng.integers(-3, 4, shape) + rng.uniform(-0.2, 0.2, shape)))  # rint: jumps at k + 1/2
FMOD_X = uniform(2.1, 2.4)
FMOD_Y = uniform(1.3, 1.5)  # x / y in (1.4, 1.85): trunc and floor are constant


# ---------------------------------------------------------------- cases
def one_axis(min_dims: int = 1, none: bool = True, min_side: int | None = None) -> Any:
    """One array and an ``axis`` (an int, maybe negative, or None)."""
    def cases(kind: str) -> Any:
        if kind == "scalar":
            return None

        @st.composite
        def draw(draw: Any) -> Case:
            shape = draw(shape_st(kind, min_dims=min_dims))
            if min_side is not None and kind != "empty":
                shape = tuple(max(n, min_side) for n in shape)
            nd = len(shape)
            axis = draw(st.integers(-nd, nd - 1) | (st.none() if none else st.nothing()))
            return Case((shape,), {"axis": axis})
        return _finish(draw(), kind)
    return cases


def with_params(base: Any, **params: st.SearchStrategy) -> Any:
    """``base``'s cases with more params drawn independently."""
    def cases(kind: str) -> Any:
        s = base(kind)
        if s is None:
            return None
        return s.flatmap(lambda c: st.fixed_dictionaries(params).map(
            lambda p: Case(c.shapes, {**c.params, **p})))
    return cases


def matrices(square: bool = True, batch: bool = True, min_n: int = 1, wide: bool = True,
             tall: bool = True, extra: Any = None) -> Any:
    """Stacks of matrices ``(*batch, m, n)``; ``extra(draw, m, n, lead)`` may add
    more operands (shapes) and params."""
    def cases(kind: str) -> Any:
        if kind != "any":
            return None

        @st.composite
        def draw(draw: Any) -> Case:
            lead = draw(hnp.array_shapes(min_dims=0, max_dims=1, max_side=2)) if batch else ()
            m = draw(st.integers(min_n, MAX_SIDE))
            if square:
                n = m
            else:
                lo = 1 if wide else m
                hi = MAX_SIDE if tall else m
                n = draw(st.integers(min(lo, hi), max(lo, hi)))
                if not wide:
                    n = min(n, m)
                if not tall:
                    n = max(n, m)
            shapes: tuple = (lead + (m, n),)
            params: dict = {}
            if extra is not None:
                more, params = extra(draw, m, n, lead)
                shapes += more
            return Case(shapes, params)
        return _finish(draw(), kind)
    return cases


def _solve_extra(draw: Any, m: int, n: int, lead: tuple) -> tuple:
    if draw(st.booleans()) and not lead:
        return ((n,),), {}
    return ((lead + (n, draw(st.integers(1, MAX_SIDE)))),), {}


def pad_cases(kind: str) -> Any:
    if kind == "scalar":
        return None

    @st.composite
    def draw(draw: Any) -> Case:
        shape = draw(shape_st(kind, min_dims=1, max_dims=2))
        mode = draw(st.sampled_from(["constant", "edge", "reflect", "symmetric", "wrap"]))
        if kind == "empty" and mode != "constant":
            mode = "constant"
        widths = draw(st.sampled_from([1, (1, 2), ((0, 1),) * len(shape), (2,)]))
        return Case((shape,), {"pad_width": widths, "mode": mode})
    return _finish(draw(), kind)


def split_cases(even: bool) -> Any:
    def cases(kind: str) -> Any:
        if kind == "scalar":
            return None

        @st.composite
        def draw(draw: Any) -> Case:
            shape = draw(shape_st(kind, min_dims=1))
            nd = len(shape)
            axis = draw(st.integers(-nd, nd - 1))
            n = shape[axis]
            divisors = [k for k in range(1, 4) if n % k == 0] if even else [1, 2, 3]
            sections = draw(st.sampled_from(divisors) | st.lists(
                st.integers(0, n), max_size=2).map(sorted))
            return Case((shape,), {"sections": sections, "axis": axis})
        return _finish(draw(), kind)
    return cases


def tile_cases(kind: str) -> Any:
    @st.composite
    def draw(draw: Any) -> Case:
        shape = draw(shape_st(kind))
        reps = draw(st.integers(1, 2) | st.lists(st.integers(1, 2), min_size=1,
                                                  max_size=3).map(tuple))
        return Case((shape,), {"reps": reps})
    return _finish(draw(), kind).filter(lambda c: math.prod(c.shapes[0]) * 8 <= 64)


def repeat_cases(kind: str) -> Any:
    if kind == "scalar":
        return None

    @st.composite
    def draw(draw: Any) -> Case:
        shape = draw(shape_st(kind, min_dims=1))
        nd = len(shape)
        axis = draw(st.none() | st.integers(-nd, nd - 1))
        n = math.prod(shape) if axis is None else shape[axis]
        repeats = draw(st.integers(0, 2) | hnp.arrays(np.int64, (n,),
                                                      elements=st.integers(0, 2)))
        return Case((shape,), {"repeats": repeats, "axis": axis})
    return _finish(draw(), kind)


def roll_cases(kind: str) -> Any:
    @st.composite
    def draw(draw: Any) -> Case:
        shape = draw(shape_st(kind))
        nd = len(shape)
        axis = draw(st.none() | st.integers(-nd, nd - 1)) if nd else None
        return Case((shape,), {"shift": draw(st.integers(-4, 4)), "axis": axis})
    return _finish(draw(), kind)


def flip_cases(kind: str) -> Any:
    @st.composite
    def draw(draw: Any) -> Case:
        shape = draw(shape_st(kind))
        return Case((shape,), {"axis": draw(_axes(len(shape)))})
    return _finish(draw(), kind)


def diagonal_cases(kind: str) -> Any:
    if kind == "scalar":
        return None

    @st.composite
    def draw(draw: Any) -> Case:
        shape = draw(shape_st(kind, min_dims=2))
        nd = len(shape)
        a1, a2 = draw(st.permutations(range(nd)))[:2]
        return Case((shape,), {"offset": draw(st.integers(-2, 2)), "axis1": a1, "axis2": a2})
    return _finish(draw(), kind)


def tri_cases(kind: str) -> Any:
    if kind == "scalar":
        return None
    return with_params(plain(1, 3), k=st.integers(-2, 2))(kind)


def diag_cases(kind: str) -> Any:
    if kind == "scalar":
        return None
    return with_params(plain(1, 2), k=st.integers(-2, 2))(kind)


def rot90_cases(kind: str) -> Any:
    if kind == "scalar":
        return None
    return with_params(plain(2, 3), k=st.integers(-1, 4))(kind)


def pair(shape_a: tuple, shape_b: tuple, **params: Any) -> Any:
    def cases(kind: str) -> Any:
        return st.just(Case((shape_a, shape_b), params)) if kind == "any" else None
    return cases


def one_of_cases(*builders: Any) -> Any:
    def cases(kind: str) -> Any:
        ss = [b(kind) for b in builders]
        ss = [s for s in ss if s is not None]
        return st.one_of(*ss) if ss else None
    return cases


def _unary(name: str, domain: Domain = REAL, **kw: Any) -> Op:
    return Op(name, lambda xp, x: getattr(xp, name)(x), elementwise(1), domain, **kw)


def _binary(name: str, domain: Any = REAL, **kw: Any) -> Op:
    return Op(name, lambda xp, x, y: getattr(xp, name)(x, y), elementwise(2), domain, **kw)


def _scipy(name: str) -> Any:
    """SciPy's function as ``jax.scipy.special`` defines it: real arguments only,
    the result in the (last) argument's dtype."""
    def fn(*args: Any) -> Any:
        if any(np.iscomplexobj(a) for a in args):
            raise TypeError(f"{name} takes real numbers only")
        return np.asarray(getattr(scipy.special, name)(*args)).astype(np.asarray(args[-1]).dtype)
    return fn


SCIPY_SPECIAL = SimpleNamespace(**{n: _scipy(n) for n in (
    "erf", "erfc", "erfinv", "gammaln", "digamma", "polygamma")})


def _special(xp: Any) -> Any:
    """``fad.scipy.special`` for ``fad.numpy``, SciPy's (as above) for NumPy."""
    if xp is np:
        return SCIPY_SPECIAL
    import fad.scipy.special
    return fad.scipy.special


def _special_unary(name: str, domain: Domain = REAL, **kw: Any) -> Op:
    return Op(name, lambda xp, x: getattr(_special(xp), name)(x), elementwise(1), domain,
              real_only=REAL_SPECIAL, **kw)


def _cat(xp: Any, parts: Any) -> Any:
    return xp.concatenate([xp.ravel(p) for p in parts])


def _svd_invariants(xp: Any, u: Any, s: Any, vh: Any) -> Any:
    """Products in which each singular vector's sign cancels."""
    return _cat(xp, [s, u * xp.swapaxes(vh[..., :, :1], -1, -2),
                     vh * xp.swapaxes(u[..., :1, :], -1, -2)])


def _eigh_invariants(xp: Any, a: Any) -> Any:
    w, v = xp.linalg.eigh(a)
    return _cat(xp, [w, v * xp.conj(v[..., :1, :])])


def _qr(xp: Any, a: Any) -> Any:
    q, r = xp.linalg.qr(a)
    return _cat(xp, [q, r])


def _svd(xp: Any, a: Any) -> Any:
    return _svd_invariants(xp, *xp.linalg.svd(a, full_matrices=False))


def _slogdet(xp: Any, a: Any) -> Any:
    sign, logabsdet = xp.linalg.slogdet(a)
    return _cat(xp, [sign, logabsdet])  # sign: constant if real, e^{i arg det} if complex


def _spectrum(kind: str) -> Any:
    """``xp.fft.<kind>``; a complex result of a real input is returned as its real
    and imaginary parts side by side, so that the float runs (whose laws take
    real-valued outputs) cover it too. Complex inputs: the complex result."""
    def fn(xp: Any, x: Any, **params: Any) -> Any:
        y = getattr(xp.fft, kind)(x, **params)
        if np.dtype(x.dtype).kind == "c" or np.dtype(y.dtype).kind != "c":
            return y
        return _cat(xp, [xp.real(y), xp.imag(y)])
    return fn


def _lstsq(xp: Any, a: Any, b: Any) -> Any:
    return xp.linalg.lstsq(a, b, rcond=None)[0]


def _tensordot_cases(kind: str) -> Any:
    if kind != "any":
        return None
    return st.sampled_from([
        Case(((2, 3), (3, 2)), {"axes": 1}), Case(((2, 3, 2), (3, 2)), {"axes": 2}),
        Case(((2, 3), (2, 3)), {"axes": ([0, 1], [0, 1])}),
        Case(((3, 2), (2, 3)), {"axes": ([1], [0])})])


# ``real_only`` reasons
NO_COMPLEX_LOOP = "real numbers only: NumPy's ufunc has no complex loop (nor has JAX)"
REAL_SPECIAL = "real numbers only, as jax.scipy.special (SciPy's complex loops aside)"
QUANTILE_REAL = "NumPy's quantile rejects complex input ('a must be an array of real numbers')"

VEC_ORDS = [None, 2, 1, np.inf, -np.inf, 3, 0.5, -1]
MAT_ORDS_SV = [None, "fro", "nuc", 2, -2]
MAT_ORDS_ABS = [1, -1, np.inf, -np.inf]

OPS_EXTRA: list[Op] = [
    # ---- elementwise (new primitives and composites)
    # complex: |Im| < 0.8 keeps off the branch cuts (Re 0, |Im| > 1)
    _unary("arcsinh", cdomain=cplx(REAL, UNIT)),
    _unary("arccosh", uniform(1.2, 3)),
    _unary("arctanh", UNIT),
    _unary("cbrt", NONZERO, tol=(5e-2, None), real_only=NO_COMPLEX_LOOP),
    _unary("deg2rad", chain=_CHAIN, real_only=NO_COMPLEX_LOOP),
    _unary("rad2deg", real_only=NO_COMPLEX_LOOP),
    _unary("sinc", uniform(-2, 2)),
    _unary("exp2"),
    _unary("fabs", NONZERO, real_only=NO_COMPLEX_LOOP),
    _unary("absolute", NONZERO),
    _unary("positive"),
    _unary("floor", INTEGERS_AWAY, real_only=NO_COMPLEX_LOOP),
    _unary("ceil", INTEGERS_AWAY, real_only=NO_COMPLEX_LOOP),
    _unary("trunc", INTEGERS_AWAY, real_only=NO_COMPLEX_LOOP),
    _unary("rint", HALVES_AWAY),  # complex: each part rounded (NumPy): derivative 0
    Op("round", lambda xp, x: xp.round(x), elementwise(1), HALVES_AWAY),
    Op("round_decimals", lambda xp, x: xp.round(x, 1), elementwise(1),
       Domain("tenths", lambda rng, shape: rng.integers(-30, 30, shape) / 10)),
    _binary("hypot", (NONZERO, NONZERO), real_only=NO_COMPLEX_LOOP),
    _binary("logaddexp", real_only=NO_COMPLEX_LOOP),
    _binary("logaddexp2", real_only=NO_COMPLEX_LOOP),
    _binary("fmod", (FMOD_X, FMOD_Y), real_only=NO_COMPLEX_LOOP),
    _binary("remainder", (FMOD_X, FMOD_Y), real_only=NO_COMPLEX_LOOP),
    _binary("true_divide", (REAL, NONZERO), tol=(5e-2, None)),
    _binary("copysign", (NONZERO, NONZERO), real_only=NO_COMPLEX_LOOP),
    # ---- special functions (fad.scipy.special), away from the poles of gamma
    _special_unary("erf"),
    _special_unary("erfc"),
    _special_unary("erfinv", UNIT),
    _special_unary("gammaln", uniform(0.5, 4)),
    _special_unary("digamma", uniform(0.5, 4)),
    Op("polygamma", lambda xp, x, *, n: _special(xp).polygamma(n, x),
       with_params(elementwise(1), n=st.sampled_from([0, 1, 2, 3])), uniform(0.5, 4),
       real_only=REAL_SPECIAL),
    # ---- scans, products, statistics
    Op("cumsum", lambda xp, x, *, axis: xp.cumsum(x, axis=axis), one_axis()),
    Op("cumprod", lambda xp, x, *, axis: xp.cumprod(x, axis=axis), one_axis(),
       uniform(-1.5, 1.5)),
    Op("cumulative_sum", lambda xp, x, *, axis: xp.cumulative_sum(
        x, axis=axis, include_initial=True), one_axis(none=False)),
    Op("prod", lambda xp, x, *, axis, keepdims: xp.prod(x, axis=axis, keepdims=keepdims),
       reduction(0, scalar_axes=(None, (), 0, -1)), uniform(-1.5, 1.5)),
    Op("prod_with_zero", lambda xp, x: xp.prod(x * (xp.arange(x.size).reshape(x.shape) != 1),
                                               axis=-1), plain(1, 2), uniform(-1.5, 1.5)),
    Op("ptp", lambda xp, x, *, axis: xp.ptp(x, axis=axis), one_axis(), DISTINCT,
       empty=False),
    Op("median", lambda xp, x, *, axis: xp.median(x, axis=axis), one_axis(), DISTINCT,
       empty=False),
    Op("quantile", lambda xp, x, *, axis, q: xp.quantile(x, q, axis=axis),
       with_params(one_axis(), q=st.sampled_from([0.3, 0.5, [0.1, 0.9]])), DISTINCT,
       empty=False, real_only=QUANTILE_REAL),
    Op("average", lambda xp, x, w: xp.average(x, axis=-1, weights=w),
       one_of_cases(pair((3,), (3,)), pair((2, 3), (2, 3))), (REAL, POS)),
    Op("var_ddof", lambda xp, x, *, axis: xp.var(x, axis=axis, ddof=1),
       one_axis(min_side=2), empty=False),
    Op("std_ddof", lambda xp, x, *, axis: xp.std(x, axis=axis, ddof=1),
       one_axis(min_side=2), DISTINCT, tol=(5e-2, None), empty=False),
    Op("diff", lambda xp, x, *, axis: xp.diff(x, axis=axis if axis is not None else -1),
       one_axis()),
    Op("trapezoid", lambda xp, x: xp.trapezoid(x), plain(1, 2)),
    Op("sort", lambda xp, x, *, axis: xp.sort(x, axis=axis), one_axis(), DISTINCT),
    Op("partition", lambda xp, x: xp.sort(xp.partition(x, 1, axis=-1), axis=-1),
       lambda kind: st.just(Case(((2, 3),))) if kind == "any" else None, DISTINCT),
    # ---- products
    Op("tensordot", lambda xp, a, b, *, axes: xp.tensordot(a, b, axes), _tensordot_cases),
    Op("outer", lambda xp, a, b: xp.outer(a, b), pair((3,), (2,))),
    Op("inner", lambda xp, a, b: xp.inner(a, b),
       one_of_cases(pair((3,), (3,)), pair((2, 3), (4, 3)))),
    Op("vdot", lambda xp, a, b: xp.vdot(a, b), pair((2, 3), (2, 3))),
    Op("kron", lambda xp, a, b: xp.kron(a, b), one_of_cases(pair((2,), (3,)),
                                                            pair((2, 2), (1, 3)))),
    Op("cross", lambda xp, a, b: xp.cross(a, b), one_of_cases(pair((3,), (3,)),
                                                              pair((2, 3), (3,)))),
    Op("convolve", lambda xp, a, v, *, mode: xp.convolve(a, v, mode=mode),
       lambda kind: None if kind != "any" else st.sampled_from(
           [Case(((4,), (2,)), {"mode": m}) for m in ("full", "same", "valid")] +
           [Case(((2,), (3,)), {"mode": "full"})])),
    Op("correlate", lambda xp, a, v: xp.correlate(a, v, mode="full"), pair((4,), (3,))),
    Op("trace", lambda xp, x, *, offset, axis1, axis2: xp.trace(x, offset, axis1, axis2),
       diagonal_cases),
    # ---- FFTs (fad.numpy.fft: the ``fft`` primitive)
    Op("fft", lambda xp, x, *, axis, n, norm: _spectrum("fft")(xp, x, n=n, axis=axis,
                                                               norm=norm),
       with_params(one_axis(none=False), n=st.sampled_from([None, 2, 5]),
                   norm=st.sampled_from([None, "ortho", "forward"])), empty=False),
    Op("ifft", lambda xp, x, *, axis, n, norm: _spectrum("ifft")(xp, x, n=n, axis=axis,
                                                                 norm=norm),
       with_params(one_axis(none=False), n=st.sampled_from([None, 3]),
                   norm=st.sampled_from([None, "ortho"])), empty=False),
    Op("rfft", lambda xp, x, *, axis, n: _spectrum("rfft")(xp, x, n=n, axis=axis),
       with_params(one_axis(none=False), n=st.sampled_from([None, 1, 4, 5])), empty=False,
       real_only="the FFT of a real signal: NumPy rejects complex input (use fft)"),
    Op("irfft", lambda xp, x, *, axis, n, norm: xp.fft.irfft(x, n=n, axis=axis, norm=norm),
       with_params(one_axis(none=False), n=st.sampled_from([3, 4, 6]),
                   norm=st.sampled_from([None, "forward"])), empty=False),
    Op("fft2", lambda xp, x: _spectrum("fft2")(xp, x), plain(2, 3), empty=False),
    Op("ifft2", lambda xp, x, *, s: _spectrum("ifft2")(xp, x, s=s),
       with_params(plain(2, 2), s=st.sampled_from([None, (2, 3)])), empty=False),
    # ---- shapes
    Op("split", lambda xp, x, *, sections, axis: _cat(xp, xp.split(x, sections, axis)),
       split_cases(True)),
    Op("array_split", lambda xp, x, *, sections, axis: _cat(
        xp, xp.array_split(x, sections, axis)), split_cases(False)),
    Op("tile", lambda xp, x, *, reps: xp.tile(x, reps), tile_cases),
    Op("repeat", lambda xp, x, *, repeats, axis: xp.repeat(x, repeats, axis), repeat_cases),
    Op("flip", lambda xp, x, *, axis: xp.flip(x, axis), flip_cases, chain={"axis": None}),
    Op("roll", lambda xp, x, *, shift, axis: xp.roll(x, shift, axis), roll_cases,
       chain={"shift": 1, "axis": 0}),
    Op("rot90", lambda xp, x, *, k: xp.rot90(x, k), rot90_cases),
    Op("pad", lambda xp, x, *, pad_width, mode: xp.pad(x, pad_width, mode=mode), pad_cases),
    Op("pad_values", lambda xp, x: xp.pad(x, ((1, 2), (0, 1)), constant_values=((1, 2),
                                                                               (3, 4))),
       lambda kind: None if kind != "any" else st.just(Case(((2, 3),)))),
    Op("diag", lambda xp, x, *, k: xp.diag(x, k), diag_cases),
    Op("diagonal", lambda xp, x, *, offset, axis1, axis2: xp.diagonal(x, offset, axis1,
                                                                      axis2), diagonal_cases),
    Op("triu", lambda xp, x, *, k: xp.triu(x, k), tri_cases, chain={"k": 0}),
    Op("tril", lambda xp, x, *, k: xp.tril(x, k), tri_cases, chain={"k": 0}),
    # ---- linear algebra (batched leading axes)
    Op("inv", lambda xp, a: xp.linalg.inv(a), matrices(), WELL, tol=(5e-2, None)),
    Op("solve", lambda xp, a, b: xp.linalg.solve(a, b), matrices(extra=_solve_extra),
       (WELL, REAL), tol=(5e-2, None)),
    Op("det", lambda xp, a: xp.linalg.det(a), matrices(), WELL, tol=(5e-2, None)),
    Op("slogdet", _slogdet, matrices(), WELL, tol=(5e-2, None)),
    Op("cholesky", lambda xp, a: xp.linalg.cholesky(a), matrices(), SPD, tol=(5e-2, None),
       cdomain=HPD),
    Op("eigh", _eigh_invariants, matrices(), SPD, tol=(5e-2, 1e-4), cdomain=HPD),
    Op("eigvalsh", lambda xp, a: xp.linalg.eigvalsh(a), matrices(), SPD, tol=(5e-2, None),
       cdomain=HPD),
    Op("qr", _qr, matrices(square=False), WELL, tol=(5e-2, 1e-4)),
    Op("svd", _svd, matrices(square=False), SEPARATED, tol=(5e-2, 1e-4), cdomain=SEPARATED_C),
    Op("svdvals", lambda xp, a: xp.linalg.svd(a, compute_uv=False), matrices(square=False),
       SEPARATED, tol=(5e-2, None), cdomain=SEPARATED_C),
    Op("pinv", lambda xp, a: xp.linalg.pinv(a), matrices(square=False), SEPARATED,
       tol=(5e-2, 1e-4), cdomain=SEPARATED_C),
    Op("lstsq", _lstsq, matrices(square=False, wide=False, batch=False,
                                 extra=lambda draw, m, n, lead: (((m,),), {})),
       (SEPARATED, REAL), tol=(5e-2, 1e-4), cdomain=(SEPARATED_C, cplx(REAL))),
    Op("matrix_power", lambda xp, a, *, n: xp.linalg.matrix_power(a, n),
       with_params(matrices(), n=st.sampled_from([-2, 0, 1, 3])), WELL, tol=(5e-2, None)),
    Op("multi_dot", lambda xp, a, b, c: xp.linalg.multi_dot([a, b, c]),
       lambda kind: None if kind != "any" else st.sampled_from(
           [Case(((2, 3), (3, 2), (2, 2))), Case(((3,), (3, 2), (2,)))])),
    Op("cond", lambda xp, a: xp.linalg.cond(a), matrices(), SEPARATED, tol=(5e-2, 1e-4),
       cdomain=SEPARATED_C),
    Op("norm_vector", lambda xp, x, *, ord, axis: xp.linalg.norm(x, ord, axis),
       with_params(one_axis(none=False), ord=st.sampled_from(VEC_ORDS)), DISTINCT_NONZERO,
       tol=(5e-2, None), empty=False, cdomain=DISTINCT_MODULI),
    Op("norm_flat", lambda xp, x: xp.linalg.norm(x), plain(), NONZERO, empty=False),
    Op("norm_matrix_sv", lambda xp, a, *, ord: xp.linalg.norm(a, ord, axis=(-2, -1)),
       with_params(matrices(square=False), ord=st.sampled_from(MAT_ORDS_SV)), SEPARATED,
       tol=(5e-2, 1e-4), cdomain=SEPARATED_C),
    Op("norm_matrix_abs", lambda xp, a, *, ord: xp.linalg.norm(a, ord, axis=(-2, -1)),
       with_params(matrices(square=False), ord=st.sampled_from(MAT_ORDS_ABS)),
       DISTINCT_NONZERO, tol=(5e-2, None), cdomain=DISTINCT_MODULI),
    Op("vector_norm", lambda xp, x: xp.linalg.vector_norm(x, axis=-1), plain(1, 2),
       NONZERO, empty=False),
    Op("matrix_norm", lambda xp, a: xp.linalg.matrix_norm(a, ord="nuc"),
       matrices(square=False), SEPARATED, tol=(5e-2, 1e-4), cdomain=SEPARATED_C),
]

BY_NAME_EXTRA = {op.name: op for op in OPS_EXTRA}
assert len(BY_NAME_EXTRA) == len(OPS_EXTRA), "operator names must be unique"
