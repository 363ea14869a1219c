"""The operator table: one row per differentiable ``fad.numpy`` function (or
operator, method, indexing form), and the laws every row is checked by.

The laws (no hand-written per-function test needed):

* ``tests/primitives/test_properties.py``, in float32, float64 and complex128:
  derivatives to second order, forward and reverse, against finite differences;
  ``jvp`` against ``vjp``; symmetric Hessians; dtypes kept; values equal to
  NumPy's; 0-d and empty inputs; ``vmap`` against a loop (float64 and
  complex128) and ``jit`` against eager (complex128);
* ``tests/transforms/test_jit.py``: ``jit`` (and the optimised gradient
  program) against eager, in float32 and float64;
* ``tests/transforms/test_vmap.py``: ``jacfwd`` against ``jacrev``;
* ``tests/backends/test_backend_laws.py``: the same law functions (defined
  at the end of this file) with the inputs on ``array_api_strict``, or on the
  backend ``FAD_TEST_BACKEND`` names (``tests/law_backends.py``);
* rows with ``chain``: random compositions of transformations
  (``tests/transforms/test_compositions.py``) and of the optimiser's passes
  (``tests/interpreters/test_optimize.py``).

A row is an ``Op``:

* ``name``: unique; the test ids show it.
* ``fn(xp, *arrays, **params)``: the function, written once against a
  NumPy-like namespace ``xp``, so that ``fn(fnp, ...)`` is fad and
  ``fn(np, ...)`` NumPy's reference (or give ``ref``, a NumPy function of the
  same arguments). Arrays are positional (they are differentiated); params are
  keyword-only (static: axes, indices, specs...). A function returning several
  arrays (``split``, ``qr``, ``svd``...) is wrapped to return one (the pieces
  raveled and concatenated, ``_cat``); outputs defined up to a sign or a phase
  (eigenvectors, singular vectors) are wrapped in sign- and phase-invariant
  products (``v_i conj(v_j)``), so that finite differences and NumPy agree.
* ``cases(kind)``: a hypothesis strategy of ``Case(shapes, params)`` for
  ``kind`` in ``"any"`` (random, broadcasting shapes), ``"scalar"`` (0-d
  inputs) and ``"empty"`` (some input has a zero-length axis), or ``None`` when
  that kind makes no sense for the row (then the row has no 0-d or empty run).
  ``empty=False`` also skips the empty run (``mean`` of nothing...).
* ``domain``: how to sample each array (one ``Domain``, or one per array):
  positive for ``log``, away from kinks for ``abs`` / ``maximum``, distinct
  values for ``max``, well-conditioned matrices for ``inv``..., so that central
  finite differences are valid.
* ``tol``: ``check_grads`` tolerance (atol = rtol) for float32 and float64
  (``None``: ``check_grads``' defaults).
* complex128: every row also runs on complex inputs ``x + iy``, both parts
  drawn from ``domain``, or from ``cdomain`` (a complex-valued domain) where
  ``x + iy`` would cross a branch cut or a pole or leave a decomposition's
  domain (Hermitian positive-definite matrices, separated singular values),
  unless the row says ``real_only="why"``: functions that NumPy / JAX define on
  real numbers only (orderings, rounding, ``arctan2``...).
  ``test_properties`` lists the opted-out names, so that nothing drops out
  silently.
* ``no_fd="why"``: the row's derivative is by definition not the finite
  difference of its values (a sampler's implicit reparameterisation); the laws
  against finite differences skip it (``test_properties`` lists these names).
* ``value_tol32``: the values' tolerance in float32 (default 2e-6), wider where
  fad computes a special function in float32 (as JAX) and the reference in float64.
* ``chain``: params with which the row maps ``(2, 2)`` arrays to ``(2, 2)``
  arrays with bounded derivatives of every order (so that nested finite
  differences stay accurate); such rows are drawn into random compositions.

To add a function: add one row to ``OPS``, in its chapter, usually with
``unary`` / ``binary`` and a domain that keeps off poles and kinks::

    unary("arccosh", uniform(1.2, 3))                    # fnp.arccosh vs np.arccosh
    unary("erf", uniform(-2, 2), ref=scipy.special.erf)  # a reference outside NumPy
    binary("hypot", (NONZERO, NONZERO), real_only=NO_COMPLEX_LOOP)

then pick or write a case builder if the row takes params, and add its name to
``REQUIRED`` in ``test_properties.py`` (and to ``REAL_ONLY`` there if it opts
out of complex128). Every law above then covers it.
"""

from __future__ import annotations

import functools
import inspect
import math
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable

import hypothesis.extra.numpy as hnp
import numpy as np
import scipy.special
import scipy.stats
from hypothesis import assume
from hypothesis import strategies as st

import fad
import fad.nn
import fad.scipy.special as fad_special
from fad.backends.base import numpy_dtype
from fad.primitives.complex import as_complex, as_real
from fad.primitives.strided import as_strided, windows

MAX_SIDE = 3
MAX_SIZE = 32  # elements per input: keeps Hessians (one jvp per element) cheap


# ---------------------------------------------------------------- domains
@dataclass(frozen=True)
class Domain:
    """Samples float64 values of a given shape from a ``np.random.Generator``."""

    label: str
    sample: Callable[[np.random.Generator, tuple], np.ndarray] = field(repr=False)

    def __repr__(self) -> str:
        return self.label


def uniform(lo: float, hi: float) -> Domain:
    return Domain(f"uniform({lo}, {hi})", lambda rng, shape: rng.uniform(lo, hi, shape))


def away(lo: float, hi: float, *kinks: float, gap: float = 0.25) -> Domain:
    """Uniform on [lo, hi], with values within ``gap`` of a kink pushed out by ``gap``."""
    def sample(rng: np.random.Generator, shape: tuple) -> np.ndarray:
        x = rng.uniform(lo, hi, shape)
        for k in kinks:
            d = x - k
            x = np.where(np.abs(d) < gap, k + np.copysign(gap, d) + d, x)
        return x
    return Domain(f"away({lo}, {hi}, kinks={kinks})", sample)


def grid(phase: float) -> Domain:
    """Values ``(k + phase) / 2`` for integer k: two grids of different phase
    never tie (used for maximum/minimum/clip: no finite difference across a kink)."""
    return Domain(f"grid({phase})",
                  lambda rng, shape: (rng.integers(-4, 5, shape) + phase) / 2)


def _distinct(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    n = math.prod(shape)
    return ((rng.permutation(n) - n / 2) * 0.25 + rng.uniform(0, 0.05, n)).reshape(shape)


def cplx(re: Domain, im: Domain | None = None) -> Domain:
    """Complex values ``x + iy``: ``x`` from ``re``, ``y`` from ``im`` (default ``re``)."""
    im = re if im is None else im
    return Domain(f"{re!r} + i {im!r}",
                  lambda rng, shape: re.sample(rng, shape) + 1j * im.sample(rng, shape))


REAL = uniform(-2, 2)
POS = uniform(0.3, 3)
UNIT = uniform(-0.8, 0.8)
NONZERO = away(-2, 2, 0.0, gap=0.3)
DISTINCT = Domain("distinct", _distinct)  # all values differ by >= 0.2: no max ties


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


def random_unitary(rng: np.random.Generator, n: int) -> np.ndarray:
    q, r = np.linalg.qr(rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n)))
    d = np.diag(r)
    return q * (d / np.abs(d))


def hermitian_pd(rng: np.random.Generator, mn: tuple) -> np.ndarray:
    """Hermitian, eigenvalues 1, 2.5, 4, ... (separated)."""
    n = mn[0]
    q = random_unitary(rng, n)
    d = 1.0 + 1.5 * np.arange(n) + rng.uniform(0, 0.3, n)
    return (q * d) @ q.conj().T


def separated_complex(rng: np.random.Generator, mn: tuple) -> np.ndarray:
    """Complex, singular values 1, 2.5, 4, ... (separated)."""
    m, n = mn
    k = min(m, n)
    s = 1.0 + 1.5 * np.arange(k)[::-1] + rng.uniform(0, 0.3, k)
    return random_unitary(rng, m)[:, :k] * s @ random_unitary(rng, n)[:, :k].conj().T


WELL = Domain("well-conditioned", _batched(_well))
SPD = Domain("spd", _batched(_spd))
SEPARATED = Domain("separated singular values", _batched(_separated))
# complex matrices (x + iy would not be Hermitian, nor keep singular values apart)
HPD = Domain("hermitian positive definite", _batched(hermitian_pd, np.complex128))
SEPARATED_C = Domain("complex, separated singular values",
                     _batched(separated_complex, np.complex128))


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


def _eig_separated(complex_: bool) -> Any:
    """General (non-symmetric) square matrices whose eigenvalues are >= 0.5
    apart and whose eigenvector matrix is well-conditioned (drawn until so)."""
    def one(rng: np.random.Generator, mn: tuple) -> np.ndarray:
        while True:
            a = rng.uniform(-2, 2, mn)
            if complex_:
                a = a + 1j * rng.uniform(-2, 2, mn)
            w, v = np.linalg.eig(a)
            gaps = np.abs(w[:, None] - w[None, :]) + np.eye(len(w)) * 9
            if gaps.min() > 0.5 and np.linalg.cond(v) < 10:
                return a
    return _batched(one, np.complex128 if complex_ else np.float64)


EIG = Domain("separated eigenvalues", _eig_separated(False))
EIG_C = Domain("complex, separated eigenvalues", _eig_separated(True))
# integers plus a little noise: unwrap's jumps stay away from its thresholds (odd
# multiples of pi), where the correction jumps by 2 pi
PHASES = Domain("integers + noise", lambda rng, shape: (
    rng.integers(-6, 7, shape) + rng.uniform(-0.03, 0.03, shape)))


# ---------------------------------------------------------------- cases
@dataclass(frozen=True)
class Case:
    shapes: tuple[tuple[int, ...], ...]
    params: dict = field(default_factory=dict)

    @property
    def is_empty(self) -> bool:
        """Some input, or some index array, has no element."""
        index = self.params.get("index", self.params.get("indices"))
        index = index if isinstance(index, tuple) else (index,)
        return any(0 in s for s in self.shapes) or any(
            isinstance(i, np.ndarray) and i.size == 0 for i in index)

    @property
    def small(self) -> bool:
        return all(math.prod(s) <= MAX_SIZE for s in self.shapes)


Cases = Callable[[str], "st.SearchStrategy[Case] | None"]


def _finish(strategy: st.SearchStrategy, kind: str) -> st.SearchStrategy:
    strategy = strategy.filter(lambda c: c.small)
    return strategy.filter(lambda c: c.is_empty) if kind == "empty" else strategy


def _side(kind: str) -> int:
    return 0 if kind == "empty" else 1


def shape_st(kind: str, min_dims: int = 0, max_dims: int = 3) -> st.SearchStrategy:
    if kind == "scalar":
        return st.just(())
    min_dims = max(min_dims, 1) if kind == "empty" else min_dims
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=_side(kind),
                            max_side=MAX_SIDE)


def plain(min_dims: int = 0, max_dims: int = 3, min_size: int = 0) -> Cases:
    """One array of any shape (no params)."""
    def cases(kind: str) -> st.SearchStrategy | None:
        if kind == "scalar" and (min_dims or min_size > 1):
            return None
        shapes = shape_st(kind, min_dims, max_dims).filter(lambda s: math.prod(s) >= min_size)
        return _finish(shapes.map(lambda s: Case((s,))), kind)
    return cases


def elementwise(arity: int) -> Cases:
    """Shapes drawn to broadcast together (NumPy's rules), 0-d included."""
    def cases(kind: str) -> st.SearchStrategy:
        if kind == "scalar":
            return st.just(Case(((),) * arity))
        shapes = hnp.mutually_broadcastable_shapes(
            num_shapes=arity, max_dims=3, min_side=_side(kind), max_side=MAX_SIDE)
        return _finish(shapes.map(lambda b: Case(tuple(b.input_shapes))), kind)
    return cases


def _axes(ndim: int) -> st.SearchStrategy:
    """``axis`` as NumPy takes it: None, an int (maybe negative), or a tuple."""
    if ndim == 0:
        return st.sampled_from([None, ()])
    one = st.integers(-ndim, ndim - 1)
    return st.one_of(st.none(), one,
                     st.lists(one, unique_by=lambda a: a % ndim, max_size=ndim).map(tuple))


def reduction(min_count: int = 1, scalar_axes: tuple = (None, ())) -> Cases:
    """One array, ``axis`` and ``keepdims``; ``min_count`` elements are reduced."""
    def count(c: Case) -> int:
        (shape,), axis = c.shapes, c.params["axis"]
        axes = range(len(shape)) if axis is None else np.atleast_1d(axis).tolist()
        return math.prod(shape[a] for a in axes) if shape else 1

    def cases(kind: str) -> st.SearchStrategy | None:
        if kind == "scalar" and min_count > 1:
            return None

        @st.composite
        def draw(draw: Any) -> Case:
            shape = draw(shape_st(kind))
            axis = draw(st.sampled_from(scalar_axes) if kind == "scalar" else _axes(len(shape)))
            return Case((shape,), {"axis": axis, "keepdims": draw(st.booleans())})
        strategy = draw()
        return _finish(strategy.filter(lambda c: count(c) >= min_count)
                       if kind != "empty" else strategy, kind)
    return cases


def dot_cases(kind: str) -> st.SearchStrategy | None:
    """``numpy.dot``'s cases: scalars, vectors, matrices and N-d."""
    patterns = ["n,n", "mn,n", "n,nk", "mn,nk", ",n", "mn,", "bmn,nk", "bmn,cnk"]

    @st.composite
    def draw(draw: Any) -> Case:
        size = {c: draw(st.integers(1, MAX_SIDE)) for c in "bcmk"}
        size["n"] = draw(st.integers(_side(kind), MAX_SIDE))
        a, b = draw(st.sampled_from(patterns if kind != "scalar" else [","])).split(",")
        return Case((tuple(size[c] for c in a), tuple(size[c] for c in b)))
    return _finish(draw(), kind)


def matmul_cases(kind: str) -> st.SearchStrategy | None:
    if kind == "scalar":
        return None
    shapes = hnp.mutually_broadcastable_shapes(
        signature="(m?,n),(n,p?)->(m?,p?)", max_dims=2, min_side=_side(kind),
        max_side=MAX_SIDE)
    return _finish(shapes.map(lambda b: Case(tuple(b.input_shapes))), kind)


EINSUM_SPECS = ["ij,jk->ik", "ij,jk", "i,i->", "i,j->ij", "ij->ji", "ijk->", "ij,j->i",
                "bij,bjk->bik", "ij,ij->i", "ijk,kj->ki", "ii->i", "ii", "ij,ik,il->jkl",
                "...ij,...jk->...ik", "...i,...i", "i...->...", "...ii->...i"]


def einsum_cases(kind: str) -> st.SearchStrategy | None:
    """A spec and shapes fitting it; ``...`` stands for broadcasting batch axes."""
    if kind == "scalar":
        return None

    @st.composite
    def draw(draw: Any) -> Case:
        spec = draw(st.sampled_from(EINSUM_SPECS))
        size = {c: draw(st.integers(_side(kind), MAX_SIDE)) for c in "bijkl"}
        ins = spec.split("->")[0].split(",")
        batch = iter(draw(hnp.mutually_broadcastable_shapes(
            num_shapes=max(1, sum("..." in s for s in ins)), max_dims=2,
            min_side=_side(kind), max_side=MAX_SIDE)).input_shapes)
        shapes = []
        for s in ins:
            pre, ell, post = s.partition("...")
            shapes.append(tuple(size[c] for c in pre) + (next(batch) if ell else ()) +
                          tuple(size[c] for c in post))
        return Case(tuple(shapes), {"spec": spec})
    return _finish(draw(), kind)


def transpose_cases(kind: str) -> st.SearchStrategy:
    @st.composite
    def draw(draw: Any) -> Case:
        shape = draw(shape_st(kind, max_dims=4))
        axes = draw(st.none() | st.permutations(range(len(shape))).map(tuple))
        if axes is not None and draw(st.booleans()):
            axes = tuple(a - len(shape) for a in axes)  # negative axes
        return Case((shape,), {"axes": axes})
    return _finish(draw(), kind)


def reshape_cases(kind: str) -> st.SearchStrategy:
    """Regroup the (shuffled) sides of a shape, with 1s inserted and maybe a -1."""
    @st.composite
    def draw(draw: Any) -> Case:
        shape = draw(shape_st(kind))
        sides = draw(st.permutations(list(shape)))
        cuts = draw(st.lists(st.booleans(), min_size=len(sides), max_size=len(sides)))
        new: list[int] = []
        for side, cut in zip(sides, cuts):
            if cut and new:
                new[-1] *= side
            else:
                new.append(side)
        if draw(st.booleans()):
            new.insert(draw(st.integers(0, len(new))), 1)
        if new and 0 not in new and draw(st.booleans()):
            new[draw(st.integers(0, len(new) - 1))] = -1
        return Case((shape,), {"newshape": tuple(new)})
    return _finish(draw(), kind)


def broadcast_to_cases(kind: str) -> st.SearchStrategy:
    @st.composite
    def draw(draw: Any) -> Case:
        target = draw(shape_st(kind if kind != "scalar" else "any"))
        shape = () if kind == "scalar" else draw(hnp.broadcastable_shapes(
            target, max_dims=len(target), min_side=_side(kind), max_side=MAX_SIDE))
        return Case((shape,), {"shape": target})
    return _finish(draw(), kind).filter(
        lambda c: np.broadcast_shapes(c.shapes[0], c.params["shape"]) == c.params["shape"]
        and math.prod(c.params["shape"]) <= MAX_SIZE)


def expand_dims_cases(kind: str) -> st.SearchStrategy:
    @st.composite
    def draw(draw: Any) -> Case:
        shape = draw(shape_st(kind))
        n = len(shape) + 1
        axis = draw(st.integers(-n, n - 1) | st.lists(
            st.integers(-n - 1, n), unique_by=lambda a: a % (n + 1), min_size=2,
            max_size=2).map(tuple))
        return Case((shape,), {"axis": axis})
    return _finish(draw(), kind)


def squeeze_cases(kind: str) -> st.SearchStrategy:
    @st.composite
    def draw(draw: Any) -> Case:
        shape = list(draw(shape_st(kind)))
        for _ in range(draw(st.integers(0, 2 * (kind != "scalar")))):
            shape.insert(draw(st.integers(0, len(shape))), 1)
        ones = [i for i, n in enumerate(shape) if n == 1]
        axis = draw(st.none() | st.sampled_from(ones).flatmap(
            lambda a: st.sampled_from([a, a - len(shape)]))) if ones else None
        return Case((tuple(shape),), {"axis": axis})
    return _finish(draw(), kind)


def join_cases(stack: bool) -> Cases:
    """``concatenate`` (sides along the axis vary; ``axis=None`` flattens) or ``stack``."""
    def cases(kind: str) -> st.SearchStrategy | None:
        if kind == "scalar" and not stack:
            return None

        @st.composite
        def draw(draw: Any) -> Case:
            shape = draw(shape_st(kind, min_dims=0 if stack else 1))
            k = draw(st.integers(1, 3))
            nd = len(shape) + stack
            axis = draw(st.integers(-nd, nd - 1) | (st.none() if not stack else st.nothing()))
            if stack or axis is None:
                return Case((shape,) * k, {"axis": axis})
            sides = draw(st.lists(st.integers(_side(kind), MAX_SIDE), min_size=k, max_size=k))
            return Case(tuple(shape[:axis % nd] + (n,) + shape[axis % nd + 1:] for n in sides),
                        {"axis": axis})
        return _finish(draw(), kind)
    return cases


def swapaxes_cases(kind: str) -> st.SearchStrategy | None:
    if kind == "scalar":
        return None

    @st.composite
    def draw(draw: Any) -> Case:
        shape = draw(shape_st(kind, min_dims=1))
        ax = st.integers(-len(shape), len(shape) - 1)
        return Case((shape,), {"a": draw(ax), "b": draw(ax)})
    return _finish(draw(), kind)


def basic_index_cases(kind: str) -> st.SearchStrategy:
    """ints (maybe negative), slices (any step), ``None`` and ``...``."""
    @st.composite
    def draw(draw: Any) -> Case:
        shape = draw(shape_st(kind))
        index = draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
        return Case((shape,), {"index": index})
    return _finish(draw(), kind)


def int_array_index_cases(kind: str) -> st.SearchStrategy | None:
    """Integer arrays (repeats and negatives included), alone or after a reversing
    slice, ``None`` or ``...``: reverse mode must scatter-add repeated indices."""
    if kind == "scalar":
        return None

    @st.composite
    def draw(draw: Any) -> Case:
        shape = draw(shape_st("any", min_dims=1))  # "empty": empty index arrays
        lead = draw(st.sampled_from([(), (None,), (Ellipsis,)] +
                                    [(slice(None, None, -1),)] * (len(shape) > 1)))
        if lead == (Ellipsis,):
            indexed = shape[-1:]
        elif lead == (slice(None, None, -1),):
            indexed = shape[1:]
        else:
            indexed = shape
        arrays = draw(hnp.integer_array_indices(
            indexed, result_shape=hnp.array_shapes(min_dims=kind == "empty", max_dims=2,
                                                   min_side=_side(kind), max_side=4)))
        return Case((shape,), {"index": lead + tuple(arrays)})
    return _finish(draw(), kind)


def mask_index_cases(kind: str) -> st.SearchStrategy:
    """A boolean mask over some leading axes (maybe after a slice)."""
    @st.composite
    def draw(draw: Any) -> Case:
        shape = draw(shape_st(kind, min_dims=1))
        skip = draw(st.integers(0, max(0, min(1, len(shape) - 1))))
        k = draw(st.integers(min(1, len(shape)), len(shape) - skip))  # 0-d: a 0-d mask
        mask = draw(hnp.arrays(np.bool_, shape[skip:skip + k]))
        return Case((shape,), {"index": (slice(None),) * skip + (mask,)})
    return _finish(draw(), kind)


def take_cases(along: bool) -> Cases:
    """``take(x, idx, axis)`` (``axis=None`` flattens) or ``take_along_axis``."""
    def cases(kind: str) -> st.SearchStrategy | None:
        if kind == "scalar":
            return None

        @st.composite
        def draw(draw: Any) -> Case:
            shape = draw(shape_st("any", min_dims=1))
            nd = len(shape)
            axis = draw(st.integers(-nd, nd - 1) | (st.none() if not along else st.nothing()))
            n = math.prod(shape) if axis is None else shape[axis]
            lo = 0 if kind == "empty" else 1
            if along:
                idx_shape = tuple(draw(st.integers(lo, MAX_SIDE)) if d == axis % nd else s
                                  for d, s in enumerate(shape))
            else:
                idx_shape = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=lo,
                                                  max_side=MAX_SIDE))
            idx = draw(hnp.arrays(np.int64, idx_shape, elements=st.integers(-n, n - 1)))
            return Case((shape,), {"indices": idx, "axis": axis})
        return _finish(draw(), kind)
    return cases


def at_cases(unique: bool = False) -> Cases:
    """``x.at[index]``: a basic index, integer arrays (repeats and negatives, unless
    ``unique``) or a mask, and values of ``x[index]``'s shape or one broadcasting
    to it (leading axes dropped, some sides 1)."""
    def cases(kind: str) -> st.SearchStrategy:
        @st.composite
        def draw(draw: Any) -> Case:
            shape = draw(shape_st(kind))
            forms = ["basic"] + ["mask"] * (len(shape) > 0) + ["array"] * (
                len(shape) > 0 and 0 not in shape)
            form = draw(st.sampled_from(forms))
            if form == "basic":
                index = draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
            elif form == "mask":
                index = (draw(hnp.arrays(np.bool_, shape[:1])),)
            else:
                index = draw(hnp.integer_array_indices(
                    shape, result_shape=hnp.array_shapes(min_dims=kind == "empty", max_dims=2,
                                                         min_side=_side(kind), max_side=4)))
            if unique and form == "array":
                count = np.zeros(shape, np.int64)
                np.add.at(count, index, 1)
                assume(count.size == 0 or count.max() <= 1)
            target = np.empty(shape)[index].shape
            lead = len(target) if kind == "scalar" else draw(st.integers(0, len(target)))
            v = tuple(1 if draw(st.booleans()) else n for n in target[lead:])
            return Case((shape, v), {"index": index})
        return _finish(draw(), kind)
    return cases


def dynamic_slice_cases(update: bool) -> Cases:
    """Start indices (some out of range: clamped) and sizes, or an update's shape."""
    def cases(kind: str) -> st.SearchStrategy:
        @st.composite
        def draw(draw: Any) -> Case:
            shape = draw(shape_st(kind))
            sizes = tuple(draw(st.integers(0 if kind == "empty" else min(n, 1), n))
                          for n in shape)
            starts = tuple(draw(st.integers(-2, n + 1)) for n in shape)
            if update:
                return Case((shape, sizes), {"starts": starts})
            return Case((shape,), {"starts": starts, "sizes": sizes})
        return _finish(draw(), kind)
    return cases


def _window(shape: tuple, starts: tuple, sizes: tuple) -> tuple:
    """``jax.lax``'s window: a negative start counted from the end, then each
    start moved into ``[0, n - size]``."""
    starts = [s + n if s < 0 else s for s, n in zip(starts, shape)]
    return tuple(slice(min(max(s, 0), n - k), min(max(s, 0), n - k) + k)
                 for s, n, k in zip(starts, shape, sizes))


def _np_update(ufunc: Any) -> Callable:
    """NumPy's in-place update (``ufunc.at``, or assignment for ``None``) on a copy."""
    def ref(x: np.ndarray, v: np.ndarray, *, index: Any) -> np.ndarray:
        y = np.array(x)  # (a copy; an ndarray even for a NumPy scalar)
        if ufunc is None:
            y[index] = v
        else:
            ufunc.at(y, index, v)
        return y
    return ref


def _np_dynamic_update_slice(x: np.ndarray, u: np.ndarray, *, starts: tuple) -> np.ndarray:
    y = np.array(x)
    y[_window(x.shape, starts, u.shape)] = u
    return y


def _at(method: str, ufunc: Any) -> dict:
    return {"fn": lambda xp, x, v, *, index: getattr(xp.at(x)[index], method)(v),
            "ref": _np_update(ufunc)}


# ``x.at[...]``'s values: x on the half-integers, values a quarter off them and
# all different: no tie between x and a value, nor between two values
OFF_GRID = Domain("distinct, off grid(0)", lambda rng, shape: (
    (rng.permutation(math.prod(shape)) - math.prod(shape) // 2) * 0.5 + 0.25).reshape(shape))


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


# ---------------------------------------------------------------- the table
@dataclass(frozen=True, eq=False)  # hashed by identity: rows key strategy caches
class Op:
    name: str
    fn: Callable = field(repr=False)
    cases: Cases = field(repr=False)
    domain: Domain | tuple[Domain, ...] = REAL
    tol: tuple[float | None, float | None] = (None, None)
    ref: Callable | None = field(default=None, repr=False)
    chain: dict | None = None
    empty: bool = True
    real_only: str = ""  # why the row has no complex128 run ("": it has one)
    cdomain: Domain | tuple[Domain, ...] | None = None  # complex values (default: x + iy)
    no_fd: str = ""  # why the row's derivative is not its finite difference ("": it is)
    value_tol32: float = 2e-6  # values against the reference in float32 (rtol = atol)

    def __repr__(self) -> str:
        return self.name

    @functools.cached_property
    def arity(self) -> int:
        """Number of array arguments after ``xp`` (0 for ``*arrays``)."""
        kinds = [p.kind for p in inspect.signature(self.fn).parameters.values()]
        return kinds.count(inspect.Parameter.POSITIONAL_OR_KEYWORD) - 1

    def domains(self, n: int, dtype: Any = np.float64) -> tuple[Domain, ...]:
        if np.dtype(dtype).kind == "c":
            if self.cdomain is not None:
                return self.cdomain if isinstance(self.cdomain, tuple) else \
                    (self.cdomain,) * n
            return tuple(cplx(d) for d in self.domains(n))
        return self.domain if isinstance(self.domain, tuple) else (self.domain,) * n

    def numpy(self, *arrays: np.ndarray, **params: Any) -> Any:
        return self.ref(*arrays, **params) if self.ref else self.fn(np, *arrays, **params)

    def check_tol(self, dtype: Any) -> float | None:
        return self.tol[0] if np.dtype(dtype) in (np.float32, np.complex64) else self.tol[1]


def unary(name: str, domain: Domain = REAL, **kw: Any) -> Op:
    return Op(name, lambda xp, x: getattr(xp, name)(x), elementwise(1), domain, **kw)


def binary(name: str, domain: Domain | tuple = REAL, **kw: Any) -> Op:
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
    "erf", "erfc", "erfcx", "erfinv", "gammaln", "digamma", "polygamma", "gamma", "i0", "i0e",
    "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "beta", "betaln", "gammainc", "gammaincc",
    "gammaincinv", "gammainccinv", "betainc", "betaincinv", "betainccinv", "zeta", "entr",
    "rel_entr", "kl_div", "xlogy", "xlog1py", "expit", "logit")})


def _multigammaln(a: Any, d: int) -> Any:
    if np.iscomplexobj(a):
        raise TypeError("multigammaln takes real numbers only")
    return np.asarray(scipy.special.multigammaln(a, d)).astype(np.asarray(a).dtype)


SCIPY_SPECIAL.multigammaln = _multigammaln


def _special(xp: Any) -> Any:
    """``fad.scipy.special`` for ``fad.numpy``, SciPy's (as above) for NumPy."""
    return SCIPY_SPECIAL if xp is np else fad_special


def special_unary(name: str, domain: Domain = REAL, **kw: Any) -> Op:
    return Op(name, lambda xp, x: getattr(_special(xp), name)(x), elementwise(1), domain,
              real_only=REAL_SPECIAL, **kw)


def special_binary(name: str, domain: tuple, **kw: Any) -> Op:
    return Op(name, lambda xp, x, y: getattr(_special(xp), name)(x, y), elementwise(2), domain,
              real_only=REAL_SPECIAL, **kw)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def _cat(xp: Any, parts: Any) -> Any:
    return xp.concatenate([xp.ravel(p) for p in parts])


def phase_free(xp: Any, v: Any) -> Any:
    """Products ``v_ij conj(v_0j)``: each column's sign or phase e^{i theta} cancels."""
    return v * xp.conj(v[..., :1, :])


def svd_invariants(xp: Any, u: Any, s: Any, vh: Any) -> tuple:
    """``s`` and products in which each singular vector's sign or phase cancels
    (``u_k vh_k`` is gauge-free: ``A = sum_k s_k u_k vh_k``)."""
    return (s, u * xp.swapaxes(vh[..., :, :1], -1, -2),
            vh * xp.swapaxes(u[..., :1, :], -1, -2))


def _eigh_invariants(xp: Any, a: Any) -> Any:
    w, v = xp.linalg.eigh(a)
    return _cat(xp, [w, phase_free(xp, v)])


def _qr(xp: Any, a: Any) -> Any:
    q, r = xp.linalg.qr(a)
    return _cat(xp, [q, r])


def _svd(xp: Any, a: Any) -> Any:
    return _cat(xp, svd_invariants(xp, *xp.linalg.svd(a, full_matrices=False)))


def _slogdet(xp: Any, a: Any) -> Any:
    sign, logabsdet = xp.linalg.slogdet(a)
    return _cat(xp, [sign, logabsdet])  # sign: constant if real, e^{i arg det} if complex


def _spectrum(kind: str) -> Any:
    """``xp.fft.<kind>``; a complex result of a real input is returned as its real
    and imaginary parts side by side, so that the float runs (whose laws take
    real-valued outputs) cover it too. Complex inputs: the complex result."""
    def fn(xp: Any, x: Any, **params: Any) -> Any:
        y = getattr(xp.fft, kind)(x, **params)
        if numpy_dtype(x.dtype).kind == "c" or numpy_dtype(y.dtype).kind != "c":
            return y
        return _cat(xp, [xp.real(y), xp.imag(y)])
    return fn


def _parts(xp: Any, x: Any, y: Any) -> Any:
    """``y`` itself for a complex input ``x``; else its real and imaginary parts
    side by side (a real-valued output for the float runs; NumPy's ``eig`` is
    real when every eigenvalue happens to be)."""
    if numpy_dtype(x.dtype).kind == "c":
        return y
    return _cat(xp, [xp.real(y), xp.imag(y)])


def _eig(xp: Any, a: Any) -> Any:
    w, v = xp.linalg.eig(a)
    return _parts(xp, a, _cat(xp, [w, phase_free(xp, v)]))


def _fftn_cases(kind: str) -> Any:
    if kind != "any":
        return None
    return st.sampled_from([
        Case(((2, 3),), {"s": None, "axes": None, "norm": None}),
        Case(((2, 3, 2),), {"s": (3, 2), "axes": (0, 2), "norm": "ortho"}),
        Case(((3, 2),), {"s": None, "axes": (0,), "norm": "forward"}),
        Case(((2, 2, 2),), {"s": (2, 3), "axes": (-1, 0), "norm": None})])


def _lstsq(xp: Any, a: Any, b: Any) -> Any:
    return xp.linalg.lstsq(a, b, rcond=None)[0]


def _tensordot_cases(kind: str) -> Any:
    if kind != "any":
        return None
    return st.sampled_from([
        Case(((2, 3), (3, 2)), {"axes": 1}), Case(((2, 3, 2), (3, 2)), {"axes": 2}),
        Case(((2, 3), (2, 3)), {"axes": ([0, 1], [0, 1])}),
        Case(((3, 2), (2, 3)), {"axes": ([1], [0])})])


# ---- convolutions and windowed reductions (fad.lax): references by a loop over
# the window's taps (NumPy, independent of fad's strided views)
def _dilated_padded(x: np.ndarray, axes: tuple, dilation: tuple, padding: tuple,
                    fill: Any) -> np.ndarray:
    shape = list(x.shape)
    for a, d in zip(axes, dilation):
        shape[a] = (shape[a] - 1) * d + 1 if shape[a] else 0
    out = np.full(shape, fill, x.dtype)
    index = [slice(None)] * x.ndim
    for a, d in zip(axes, dilation):
        index[a] = slice(None, None, d)
    out[tuple(index)] = x
    widths = [(0, 0)] * x.ndim
    for a, p in zip(axes, padding):
        widths[a] = p
    return np.pad(out, widths, constant_values=fill)


def _taps(padded: np.ndarray, axes: tuple, window: tuple, strides: tuple,
          dilation: tuple) -> Any:
    """Yield (tap, the padded operand read at that tap of every window)."""
    counts = [(padded.shape[a] - (k - 1) * d - 1) // s + 1
              for a, k, s, d in zip(axes, window, strides, dilation)]
    for tap in np.ndindex(*window):
        index = [slice(None)] * padded.ndim
        for a, t, d, s, c in zip(axes, tap, dilation, strides, counts):
            index[a] = slice(t * d, t * d + (c - 1) * s + 1, s) if c > 0 else slice(0, 0)
        yield tap, padded[tuple(index)]


def conv_reference(x: np.ndarray, w: np.ndarray, *, strides: tuple, padding: tuple,
                   lhs_dilation: tuple, rhs_dilation: tuple, groups: int) -> np.ndarray:
    """``lax.conv_general_dilated`` on (N, C, ...) and (O, I, ...) arrays."""
    spatial = tuple(range(2, x.ndim))
    padded = _dilated_padded(x, spatial, lhs_dilation, padding, 0)
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    out = None
    for tap, patch in _taps(padded, spatial, w.shape[2:], strides, rhs_dilation):
        for g in range(groups):
            part = np.einsum("nc...,oc->no...", patch[:, g * cg:(g + 1) * cg],
                             w[(slice(g * og, (g + 1) * og), slice(None)) + tap])
            if out is None:
                out = np.zeros((x.shape[0], w.shape[0]) + part.shape[2:],
                               np.result_type(x, w))
            out[:, g * og:(g + 1) * og] += part
    return out


def _conv_row(xp: Any, x: Any, w: Any, **p: Any) -> Any:
    return fad.lax.conv_general_dilated(
        x, w, p["strides"], p["padding"], p["lhs_dilation"], p["rhs_dilation"],
        feature_group_count=p["groups"])


def conv_cases(kind: str) -> st.SearchStrategy | None:
    """1-d and 2-d convolutions: strides, padding, both dilations, feature groups
    (``empty``: no example in the batch)."""
    def body(draw: Any, ints: Callable, n: int) -> Case:
        groups = draw(st.integers(1, 2))
        cg, og = draw(st.integers(1, 2)), draw(st.integers(1, 2))
        size, k = ints(1, 4), ints(1, 3)
        p = {"strides": ints(1, 2), "padding": tuple(zip(ints(0, 2), ints(0, 2))),
             "lhs_dilation": ints(1, 2), "rhs_dilation": ints(1, 2), "groups": groups}
        return Case(((n, groups * cg) + size, (groups * og, cg) + k), p)

    return _conv_like_cases(kind, body, _window_fits("lhs_dilation"))


def _window_fits(input_dilation: str) -> Callable:
    """Whether a case's dilated kernel fits in its input, dilated by the parameter
    ``input_dilation`` and padded."""
    def fits(case: Case) -> bool:
        x, w = case.shapes
        p = case.params
        return all((m - 1) * ld + 1 + lo + hi >= (kk - 1) * rd + 1 for m, kk, ld, rd, (lo, hi)
                   in zip(x[2:], w[2:], p[input_dilation], p["rhs_dilation"], p["padding"]))
    return fits


def _conv_like_cases(kind: str, body: Callable, fits: Callable) -> st.SearchStrategy | None:
    """Cases of a 1-d or 2-d convolution-like row: the number of spatial axes, a
    drawer of one integer per axis, the batch size (0 for ``empty``), then
    ``body(draw, ints, n)`` draws the rest; kept where ``fits``."""
    if kind == "scalar":
        return None

    @st.composite
    def draw(draw: Any) -> Case:
        nsp = draw(st.integers(1, 2))
        ints = lambda lo, hi: tuple(draw(st.integers(lo, hi)) for _ in range(nsp))  # noqa: E731
        n = 0 if kind == "empty" else draw(st.integers(1, 2))
        return body(draw, ints, n)
    return _finish(draw().filter(fits), kind)


def reduce_window_reference(x: np.ndarray, *, kind: str, window: tuple, strides: tuple,
                            padding: tuple, base_dilation: tuple,
                            window_dilation: tuple) -> np.ndarray:
    """``lax.reduce_window`` with add (``kind="sum"``) or max from its identity."""
    if kind == "max" and np.iscomplexobj(x):
        raise TypeError("max pooling orders real numbers only")
    axes = tuple(range(x.ndim))
    fill = 0 if kind == "sum" else -np.inf
    padded = _dilated_padded(x, axes, base_dilation, padding, fill)
    parts = [v for _, v in _taps(padded, axes, window, strides, window_dilation)]
    return np.sum(parts, axis=0) if kind == "sum" else np.max(parts, axis=0)


def _reduce_window_row(kind: str) -> Callable:
    def fn(xp: Any, x: Any, **p: Any) -> Any:
        comp, init = (xp.add, 0.0) if kind == "sum" else (xp.maximum, -np.inf)
        return fad.lax.reduce_window(x, init, comp, p["window"], p["strides"], p["padding"],
                                     p["base_dilation"], p["window_dilation"])
    return fn


def reduce_window_cases(kind: str, holes: bool) -> st.SearchStrategy | None:
    """Windows over 1 to 3 axes; ``holes``: base dilation and any padding (else
    every window holds some input cell: padding less than the window, no holes)."""
    if kind == "scalar":
        return None

    @st.composite
    def draw(draw: Any) -> Case:
        shape = draw(shape_st(kind, 1, 3))
        nd = len(shape)
        ints = lambda lo, hi: tuple(draw(st.integers(lo, hi)) for _ in range(nd))  # noqa: E731
        window, dilation = ints(1, 3), ints(1, 2)
        if holes:
            base, pads = ints(1, 2), tuple(zip(ints(0, 2), ints(0, 2)))
        else:
            base = (1,) * nd
            dilation = dilation if draw(st.booleans()) else (1,) * nd
            pads = tuple((0, 0) if d > 1 else (draw(st.integers(0, k - 1)),
                                                draw(st.integers(0, k - 1)))
                         for k, d in zip(window, dilation))
        p = {"window": window, "strides": ints(1, 2), "padding": pads, "base_dilation": base,
             "window_dilation": dilation}
        return Case((shape,), p)

    def fits(c: Case) -> bool:
        p = c.params
        return all((n - 1) * b + 1 + lo + hi >= (k - 1) * d + 1 for n, k, b, d, (lo, hi) in
                   zip(c.shapes[0], p["window"], p["base_dilation"], p["window_dilation"],
                       p["padding"])) or kind == "empty"
    return _finish(draw().filter(fits), kind)


def _reduce_window_ref(kind: str) -> Callable:
    def ref(x: np.ndarray, **p: Any) -> np.ndarray:
        return reduce_window_reference(x, kind=kind, window=p["window"], strides=p["strides"],
                                       padding=p["padding"], base_dilation=p["base_dilation"],
                                       window_dilation=p["window_dilation"])
    return ref


def windows_cases(kind: str) -> st.SearchStrategy | None:
    """One array, an axis, a window size that fits it (0 included) and a step."""
    if kind == "scalar":
        return None

    @st.composite
    def draw(draw: Any) -> Case:
        shape = draw(shape_st(kind, 1, 3))
        axis = draw(st.integers(0, len(shape) - 1))
        return Case((shape,), {"axis": axis, "size": draw(st.integers(0, shape[axis])),
                               "step": draw(st.integers(1, 3))})
    return _finish(draw(), kind)


def as_strided_cases(kind: str) -> st.SearchStrategy:
    """One array and a shape, strides (0 included: elements read more than once) and an
    offset whose positions fall within its elements."""
    @st.composite
    def draw(draw: Any) -> Case:
        shape = draw(shape_st(kind))
        size = math.prod(shape)
        out = tuple(draw(st.lists(st.integers(0 if size == 0 else 1, 3), max_size=3)))
        if size == 0 and 0 not in out:
            out += (0,)
        strides = tuple(draw(st.integers(0, 3)) for _ in out)
        reach = sum((n - 1) * s for n, s in zip(out, strides)) if math.prod(out) else 0
        offset = draw(st.integers(0, max(size - 1 - reach, 0)))
        return Case((shape,), {"shape": out, "strides": strides, "offset": offset})
    return _finish(draw().filter(lambda c: c.params["offset"] + sum(
        (n - 1) * s for n, s in zip(c.params["shape"], c.params["strides"])) <
        max(math.prod(c.shapes[0]), 1) or 0 in c.params["shape"]), kind)


def _as_strided_ref(x: np.ndarray, *, shape: tuple, strides: tuple, offset: int) -> np.ndarray:
    """The positions ``offset + sum(i_k * strides_k)`` of ``x.ravel()``, by index arrays."""
    cells = np.full(shape, offset)
    for k, (n, s) in enumerate(zip(shape, strides)):
        cells = cells + (np.arange(n) * s).reshape((n,) + (1,) * (len(shape) - k - 1))
    return x.ravel()[cells]


def _windows_ref(x: np.ndarray, *, axis: int, size: int, step: int) -> np.ndarray:
    """The windows as copies: the cells ``k * step + j`` taken along ``axis``."""
    n = (x.shape[axis] - size) // step + 1
    cells = np.arange(n)[:, None] * step + np.arange(size)[None, :]
    return np.moveaxis(np.take(x, cells, axis=axis), axis + 1, -1)


# ---------------------------------------------------------------- fad.lax rows' helpers
def same_shapes(n: int, min_dims: int = 0) -> Cases:
    """``n`` arrays of one shape (lax takes no broadcasting)."""
    def cases(kind: str) -> st.SearchStrategy | None:
        if kind == "scalar" and min_dims:
            return None
        return _finish(shape_st(kind, min_dims).map(lambda s: Case((s,) * n)), kind)
    return cases


def scan_axis_cases(kind: str) -> st.SearchStrategy | None:
    """One array, an ``axis`` (an int) and ``reverse``."""
    return with_params(one_axis(none=False), reverse=st.booleans())(kind)


def top_k_cases(kind: str) -> st.SearchStrategy | None:
    if kind == "scalar":
        return None

    @st.composite
    def draw(draw: Any) -> Case:
        shape = draw(shape_st(kind, min_dims=1))
        return Case((shape,), {"k": draw(st.integers(0, shape[-1]))})
    return _finish(draw(), kind)


def _ordered(*arrays: np.ndarray) -> None:
    """The references of orderings take real numbers only, as ``jax.lax``."""
    if any(np.iscomplexobj(a) for a in arrays):
        raise TypeError("jax.lax orders real numbers only")


def _running(ufunc: Any, ordered: bool = False) -> Callable:
    """NumPy's reference of ``lax.cum*``: ``ufunc.accumulate``, from the end when
    ``reverse``."""
    def ref(x: np.ndarray, *, axis: int, reverse: bool) -> np.ndarray:
        if ordered:
            _ordered(x)
        flip = (lambda v: np.flip(v, axis)) if reverse else (lambda v: v)
        return flip(ufunc.accumulate(flip(x), axis=axis))
    return ref


def _index(xp: Any, i: Any) -> Any:
    """An integer index from a float array drawn away from the integers."""
    return xp.astype(xp.floor(xp.real(i)), np.int32)


_BRANCHES = (lambda xp: xp.sin, lambda xp: lambda v: v * v, lambda xp: xp.exp)


def _switch(xp: Any, i: Any, x: Any) -> Any:
    branches = [b(xp) for b in _BRANCHES]
    if xp is np:
        return branches[min(max(int(_index(np, i)), 0), 2)](x)
    return fad.lax.switch(_index(xp, i), branches, x)


def _select_n(xp: Any, w: Any, a: Any, b: Any, c: Any) -> Any:
    which = xp.clip(_index(xp, w), 0, 2)
    return np.choose(which, [a, b, c]) if xp is np else fad.lax.select_n(which, a, b, c)


def _linear_recurrence(xp: Any, a: Any, b: Any) -> Any:
    """h_t = a_t h_(t-1) + b_t from h = 0 along axis 0: the associative operator
    (a, b) . (a', b') = (a a', a' b + b'), or (NumPy) the loop."""
    if xp is np:
        h, hs = np.zeros_like(b[:1]), []
        for t in range(a.shape[0]):
            h = a[t:t + 1] * h + b[t:t + 1]
            hs.append(h)
        prod = np.cumprod(a, axis=0)
        return _cat(np, [prod, np.concatenate(hs, axis=0) if hs else b])
    out = fad.lax.associative_scan(lambda l, r: (l[0] * r[0], r[0] * l[1] + r[1]), (a, b))
    return _cat(xp, list(out))


def _assoc_add(xp: Any, x: Any, *, axis: int, reverse: bool) -> Any:
    return fad.lax.associative_scan(xp.add, x, reverse=reverse, axis=axis)


def _lax_map(xp: Any, x: Any) -> Any:
    f = (lambda v: xp.sin(v) * xp.sum(v))
    if xp is np:
        return np.stack([f(v) for v in x]) if len(x) else np.zeros_like(x)
    return fad.lax.map(f, x)


def _sort_multi(xp: Any, a: Any, b: Any, *, axis: int) -> Any:
    """Three operands in the lexicographic order of (floor(a), b)."""
    key = xp.floor(a)
    if xp is np:
        _ordered(a, b)
        order = np.argsort(b, axis=axis, kind="stable")
        order = np.take_along_axis(order, np.argsort(np.take_along_axis(key, order, axis),
                                                     axis=axis, kind="stable"), axis)
        return _cat(np, [np.take_along_axis(v, order, axis) for v in (key, b, a)])
    return _cat(xp, fad.lax.sort((key, b, a), dimension=axis, num_keys=2))


def _top_k(xp: Any, x: Any, *, k: int) -> Any:
    if xp is np:
        _ordered(x)
        return -np.sort(-x, axis=-1)[..., :k]
    return fad.lax.top_k(x, k)[0]


ORDERED_ONLY = "real numbers only: an ordering (jax.lax rejects complex operands)"


# ``real_only`` reasons
NO_COMPLEX_LOOP = "real numbers only: NumPy's ufunc has no complex loop (nor has JAX)"
REAL_SPECIAL = "real numbers only, as jax.scipy.special (SciPy's complex loops aside)"
REDUCE_WINDOW_REAL = "max pooling orders real numbers only (JAX's reduce_window max too)"
QUANTILE_REAL = "NumPy's quantile rejects complex input ('a must be an array of real numbers')"

VEC_ORDS = [None, 2, 1, np.inf, -np.inf, 3, 0.5, -1]
MAT_ORDS_SV = [None, "fro", "nuc", 2, -2]
MAT_ORDS_ABS = [1, -1, np.inf, -np.inf]


# ---- scipy.linalg, scipy.signal: fad.scipy's module for fad.numpy, SciPy's for NumPy
def _sci(xp: Any, module: str) -> Any:
    import importlib
    return importlib.import_module(("scipy." if xp is np else "fad.scipy.") + module)


def _solve_triangular(xp: Any, a: Any, b: Any, *, lower: bool, trans: int,
                      unit_diagonal: bool) -> Any:
    return _sci(xp, "linalg").solve_triangular(a, b, trans=trans, lower=lower,
                                               unit_diagonal=unit_diagonal)


def _op_a(a: np.ndarray, trans: int) -> np.ndarray:
    return a if trans == 0 else np.swapaxes(a, -1, -2) if trans == 1 else \
        np.conj(np.swapaxes(a, -1, -2))


def _lu(xp: Any, a: Any) -> Any:
    return _cat(xp, _sci(xp, "linalg").lu(a))


def _lu_solve(xp: Any, a: Any, b: Any, *, trans: int) -> Any:
    sl = _sci(xp, "linalg")
    return sl.lu_solve(sl.lu_factor(a), b, trans=trans)


def _cho_solve(xp: Any, a: Any, b: Any, *, lower: bool) -> Any:
    sl = _sci(xp, "linalg")
    return sl.cho_solve(sl.cho_factor(a, lower=lower), b)


def _conv_cases(ndim: int) -> Cases:
    pairs = {1: [((5,), (3,)), ((3,), (4,)), ((4,), (4,)), ((1,), (2,))],
             2: [((2, 3), (2, 2)), ((3, 2), (2, 3)), ((3, 3), (1, 2)), ((2, 2), (3, 3))]}[ndim]

    def valid(s1: tuple, s2: tuple) -> bool:
        return all(a >= b for a, b in zip(s1, s2)) or all(b >= a for a, b in zip(s1, s2))
    cases = [Case(p, {"mode": m}) for p in pairs for m in ("full", "same", "valid")
             if m != "valid" or valid(*p)]
    return lambda kind: st.sampled_from(cases) if kind == "any" else None


def _signal(name: str) -> Callable:
    return lambda xp, x, y, *, mode: getattr(_sci(xp, "signal"), name)(x, y, mode=mode)


def _convolve_axes(xp: Any, a: Any, b: Any, *, axes: Any, dot_axes: Any, mode: str) -> Any:
    return _sci(xp, "signal").convolve(a, b, axes=axes, dot_axes=dot_axes, mode=mode)


def _convolve_axes_ref(a: Any, b: Any, *, axes: Any, dot_axes: Any, mode: str) -> Any:
    """autograd's ``convolve(a, b, axes, dot_axes, mode)`` by its definition: one
    0/1 tensor ``[n, j, k] = (n == j + k)`` per convolved pair, then one einsum."""
    (ca, cb), (da, db) = axes, dot_axes
    la, lb = list(range(a.ndim)), list(range(a.ndim, a.ndim + b.ndim))
    for i, j in zip(da, db):
        lb[j] = la[i]
    nxt, keep, shifts, conv = a.ndim + b.ndim, [], [], []
    for i, j in zip(ca, cb):
        p, q = a.shape[i], b.shape[j]
        s = (np.arange(p + q - 1)[:, None, None] == np.arange(p)[:, None] + np.arange(q))
        shifts += [s.astype(np.result_type(a, b)), [nxt, la[i], lb[j]]]
        conv.append(nxt)
        nxt += 1
    keep = [x for i, x in enumerate(la) if i not in ca and i not in da] + \
        [x for j, x in enumerate(lb) if j not in cb and j not in db]
    full = np.einsum(a, la, b, lb, *shifts, keep + conv)
    index = [slice(None)] * len(keep)
    for i, j in zip(ca, cb):
        p, q = a.shape[i], b.shape[j]
        start, n = {"full": (0, p + q - 1), "same": ((q - 1) // 2, p),
                    "valid": (min(p, q) - 1, abs(p - q) + 1)}[mode]
        index.append(slice(start, start + n))
    return full[tuple(index)]


_CONVOLVE_AXES = [Case(((2, 3, 4, 4), (3, 2, 2, 2)), {"axes": ((2, 3), (2, 3)),
                                                      "dot_axes": ((1,), (0,))}),
                  Case(((3, 2, 4), (2, 2)), {"axes": ((0, 2), (1, 0)), "dot_axes": ((), ())}),
                  Case(((4, 2), (2, 3, 2)), {"axes": ((0,), (2,)), "dot_axes": ((1,), (0,))})]


def _block_diag(xp: Any, a: Any, b: Any, c: Any) -> Any:
    return _sci(xp, "linalg").block_diag(a, b, c)


_CHAIN: dict = {}  # shape-preserving on (2, 2) with no params

OPS: list[Op] = [
    # ---- elementwise, unary
    unary("negative", chain=_CHAIN),
    unary("square"),  # not chained: square o square o ... has derivatives too steep for FD
    unary("sqrt", POS),
    unary("exp"),
    unary("expm1"),
    unary("log", POS),
    unary("log1p", uniform(-0.5, 2)),
    unary("log2", POS),
    unary("log10", POS),
    unary("sin", uniform(-3, 3), chain=_CHAIN),
    unary("cos", uniform(-3, 3), chain=_CHAIN),
    unary("tan", uniform(-1.2, 1.2), tol=(5e-2, None)),
    unary("arcsin", UNIT),
    unary("arccos", UNIT),
    # complex: |Im| < 1 keeps off the branch cuts (Re 0, |Im| > 1)
    unary("arctan", uniform(-3, 3), chain=_CHAIN, cdomain=cplx(uniform(-3, 3), UNIT)),
    unary("sinh"),
    unary("cosh"),
    # complex: |Im| < 0.8 keeps away from the poles i pi (k + 1/2)
    unary("tanh", uniform(-3, 3), chain=_CHAIN, cdomain=cplx(uniform(-3, 3), UNIT)),
    unary("abs", NONZERO),
    unary("sign", NONZERO),
    unary("reciprocal", NONZERO, tol=(5e-2, None)),
    unary("sigmoid", uniform(-4, 4), ref=_sigmoid, chain=_CHAIN,
          cdomain=cplx(uniform(-4, 4), UNIT)),  # complex: away from the poles i pi (2k + 1)
    Op("clip", lambda xp, x: xp.clip(x, -0.5, 0.5), elementwise(1),
       away(-2, 2, -0.5, 0.5, gap=0.1)),
    Op("power_int", lambda xp, x, *, p: x ** p,
       lambda kind: elementwise(1)(kind).flatmap(
           lambda c: st.sampled_from([0, 1, 2, 3, -2]).map(lambda p: Case(c.shapes, {"p": p}))),
       NONZERO, tol=(5e-2, None)),
    Op("power_float", lambda xp, x, *, p: xp.power(x, p),
       lambda kind: elementwise(1)(kind).flatmap(
           lambda c: st.sampled_from([0.5, -1.5, 2.5]).map(lambda p: Case(c.shapes, {"p": p}))),
       POS),
    # complex: |Im| < 0.8 keeps off the branch cuts (Re 0, |Im| > 1)
    unary("arcsinh", cdomain=cplx(REAL, UNIT)),
    unary("arccosh", uniform(1.2, 3)),
    unary("arctanh", UNIT),
    unary("cbrt", NONZERO, tol=(5e-2, None), real_only=NO_COMPLEX_LOOP),
    unary("deg2rad", chain=_CHAIN, real_only=NO_COMPLEX_LOOP),
    unary("rad2deg", real_only=NO_COMPLEX_LOOP),
    unary("sinc", uniform(-2, 2)),
    unary("exp2"),
    unary("fabs", NONZERO, real_only=NO_COMPLEX_LOOP),
    unary("absolute", NONZERO),
    unary("positive"),
    unary("floor", INTEGERS_AWAY, real_only=NO_COMPLEX_LOOP),
    unary("ceil", INTEGERS_AWAY, real_only=NO_COMPLEX_LOOP),
    unary("trunc", INTEGERS_AWAY, real_only=NO_COMPLEX_LOOP),
    unary("rint", HALVES_AWAY),  # complex: each part rounded (NumPy): derivative 0
    Op("round", lambda xp, x: xp.round(x), elementwise(1), HALVES_AWAY),
    Op("round_decimals", lambda xp, x: xp.round(x, 1), elementwise(1),
       Domain("tenths", lambda rng, shape: rng.integers(-30, 30, shape) / 10)),
    # ---- special functions (fad.scipy.special), away from the poles of gamma
    special_unary("erf"),
    special_unary("erfc"),
    special_unary("erfcx"),
    special_unary("erfinv", UNIT),
    special_unary("gammaln", uniform(0.5, 4)),
    special_unary("digamma", uniform(0.5, 4)),
    Op("polygamma", lambda xp, x, *, n: _special(xp).polygamma(n, x),
       with_params(elementwise(1), n=st.sampled_from([0, 1, 2, 3])), uniform(0.5, 4),
       real_only=REAL_SPECIAL),
    # ---- scipy.special: Bessel, normal, gamma and beta families, entropies
    special_unary("gamma", uniform(0.5, 4)),
    special_unary("i0"),
    special_unary("i1"),
    special_unary("i0e", NONZERO),  # e^-|x|: a kink at 0
    special_unary("i1e", NONZERO),
    special_unary("ndtr", uniform(-4, 4)),
    special_unary("ndtri", uniform(0.05, 0.95)),
    special_unary("log_ndtr", uniform(-8, 3)),
    special_unary("entr", POS),
    special_binary("beta", (POS, POS)),
    special_binary("betaln", (POS, POS)),
    special_binary("gammainc", (POS, POS)),
    special_binary("gammaincc", (POS, POS)),
    special_binary("gammaincinv", (POS, uniform(0.1, 0.9))),
    special_binary("gammainccinv", (POS, uniform(0.1, 0.9))),
    special_binary("rel_entr", (POS, POS)),
    special_binary("kl_div", (POS, POS)),
    Op("betainc", lambda xp, a, b, x: _special(xp).betainc(a, b, x), elementwise(3),
       (uniform(0.5, 4), uniform(0.5, 4), uniform(0.1, 0.9)), real_only=REAL_SPECIAL),
    Op("betaincinv", lambda xp, a, b, y: _special(xp).betaincinv(a, b, y), elementwise(3),
       (uniform(0.5, 4), uniform(0.5, 4), uniform(0.1, 0.9)), real_only=REAL_SPECIAL),
    Op("betainccinv", lambda xp, a, b, y: _special(xp).betainccinv(a, b, y), elementwise(3),
       (uniform(0.5, 4), uniform(0.5, 4), uniform(0.1, 0.9)), real_only=REAL_SPECIAL),
    # differentiable in q only (x fixed): no closed form in x
    Op("zeta", lambda xp, q: _special(xp).zeta(3.0, q), elementwise(1), POS,
       real_only=REAL_SPECIAL),
    Op("multigammaln", lambda xp, a, *, d: _special(xp).multigammaln(a, d),
       with_params(elementwise(1), d=st.sampled_from([1, 2, 3])), uniform(1.5, 4),
       real_only=REAL_SPECIAL),
    # ---- elementwise, binary and ternary (broadcasting)
    binary("add", chain=_CHAIN),
    binary("subtract", chain=_CHAIN),
    binary("multiply", chain=_CHAIN),
    binary("divide", (REAL, NONZERO), tol=(5e-2, None)),
    binary("power", (POS, REAL), tol=(5e-2, None)),
    binary("maximum", (grid(0.5), grid(0.0))),
    binary("minimum", (grid(0.5), grid(0.0))),
    binary("arctan2", (NONZERO, REAL),  # y away from 0: no branch cut, no origin
           real_only="the angle of the point (x, y): real x, y only (NumPy, JAX)"),
    Op("where", lambda xp, c, x, y: xp.where(c > 0, x, y), elementwise(3),
       (NONZERO, REAL, REAL)),
    Op("clip_arrays", lambda xp, x, lo, hi: xp.clip(x, lo, hi), elementwise(3),
       (grid(0.5), grid(0.0), grid(0.25))),
    binary("hypot", (NONZERO, NONZERO), real_only=NO_COMPLEX_LOOP),
    binary("logaddexp", real_only=NO_COMPLEX_LOOP),
    binary("logaddexp2", real_only=NO_COMPLEX_LOOP),
    binary("fmod", (FMOD_X, FMOD_Y), real_only=NO_COMPLEX_LOOP),
    binary("remainder", (FMOD_X, FMOD_Y), real_only=NO_COMPLEX_LOOP),
    binary("true_divide", (REAL, NONZERO), tol=(5e-2, None)),
    binary("copysign", (NONZERO, NONZERO), real_only=NO_COMPLEX_LOOP),
    # ---- Python operators and array methods on tracers
    Op("operators", lambda xp, x, y: (x * y - x / 3.0 + 2.0) ** 2 - y ** 3 + (1.5 - x) * -y,
       elementwise(2)),
    Op("rtruediv", lambda xp, x: 2.0 / x, elementwise(1), NONZERO, tol=(5e-2, None)),
    Op("rpow", lambda xp, x: 2.0 ** x, elementwise(1)),
    Op("methods", lambda xp, x: x.T.reshape(-1) * x.mean() - x.max(axis=0).sum()
       + x.min() * x.std() + x.var(), plain(1, 2, min_size=2), DISTINCT, empty=False),
    # ---- reductions, scans and statistics
    Op("sum", lambda xp, x, *, axis, keepdims: xp.sum(x, axis=axis, keepdims=keepdims),
       reduction(0, scalar_axes=(None, (), 0, -1))),
    Op("mean", lambda xp, x, *, axis, keepdims: xp.mean(x, axis=axis, keepdims=keepdims),
       reduction(), empty=False),
    Op("max", lambda xp, x, *, axis, keepdims: xp.max(x, axis=axis, keepdims=keepdims),
       reduction(scalar_axes=(None, (), 0, -1)), DISTINCT, empty=False),
    Op("min", lambda xp, x, *, axis, keepdims: xp.min(x, axis=axis, keepdims=keepdims),
       reduction(scalar_axes=(None, (), 0, -1)), DISTINCT, empty=False),
    Op("var", lambda xp, x, *, axis, keepdims: xp.var(x, axis=axis, keepdims=keepdims),
       reduction(), empty=False),
    Op("std", lambda xp, x, *, axis, keepdims: xp.std(x, axis=axis, keepdims=keepdims),
       reduction(min_count=2), DISTINCT, tol=(5e-2, None), empty=False),
    Op("cumsum", lambda xp, x, *, axis: xp.cumsum(x, axis=axis), one_axis()),
    Op("cumprod", lambda xp, x, *, axis: xp.cumprod(x, axis=axis), one_axis(),
       uniform(-1.5, 1.5)),
    Op("cumulative_sum", lambda xp, x, *, axis: xp.cumulative_sum(
        x, axis=axis, include_initial=True), one_axis(none=False)),
    Op("prod", lambda xp, x, *, axis, keepdims: xp.prod(x, axis=axis, keepdims=keepdims),
       reduction(0, scalar_axes=(None, (), 0, -1)), uniform(-1.5, 1.5)),
    Op("prod_with_zero", lambda xp, x: xp.prod(xp.where(
        xp.reshape(xp.arange(x.size), x.shape) != 1, x, 0.0), axis=-1),
       plain(1, 2), uniform(-1.5, 1.5)),
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
    # ---- NumPy breadth: std at zero spread (derivative 0), polynomials, unwrap
    Op("std_zero_spread", lambda xp, x: x + xp.std(xp.stack([x, x]), axis=0), plain()),
    Op("polyval", lambda xp, p, x: xp.polyval(p, x),
       one_of_cases(pair((3,), (2, 2)), pair((1,), (3,)), pair((4,), ()))),
    Op("polyfit", lambda xp, x, y: xp.polyfit(x, y, 1), pair((4,), (4,)), (DISTINCT, REAL),
       ref=lambda x, y: np.polyfit(x, y, 1).astype(np.result_type(x, y))),  # NumPy: float64
    Op("unwrap", lambda xp, x, *, axis: xp.unwrap(x, axis=axis), one_axis(none=False),
       PHASES, empty=False, real_only="phase unwrapping of real angles (a remainder: "
       "NumPy's mod rejects complex)"),
    # ---- products
    Op("dot", lambda xp, a, b: xp.dot(a, b), dot_cases),
    Op("matmul", lambda xp, a, b: xp.matmul(a, b), matmul_cases, chain=_CHAIN),
    Op("matmul_operator", lambda xp, a, b: a @ b, matmul_cases),
    Op("einsum", lambda xp, *ops, spec: xp.einsum(spec, *ops), einsum_cases),
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
    # ---- convolutions and windowed reductions (fad.lax)
    Op("conv_general_dilated", _conv_row, conv_cases, tol=(5e-2, None),
       ref=lambda x, w, **p: conv_reference(x, w, **p)),
    Op("reduce_window_sum", _reduce_window_row("sum"),
       lambda kind: reduce_window_cases(kind, holes=True), ref=_reduce_window_ref("sum")),
    Op("reduce_window_max", _reduce_window_row("max"),
       lambda kind: reduce_window_cases(kind, holes=False), DISTINCT,
       ref=_reduce_window_ref("max"), real_only=REDUCE_WINDOW_REAL),
    Op("as_real", lambda xp, x: as_real(x * (1.0 + 0.5j)), plain()),
    Op("as_complex", lambda xp, x: as_real(as_complex(xp.stack([x, xp.sin(x)], -1)) * (0.5 + 1j)),
       plain(),
       real_only="pairs of reals: a complex operand is refused"),
    Op("windows", lambda xp, x, *, axis, size, step: windows(x, axis, size, step),
       windows_cases, ref=_windows_ref),
    Op("as_strided", lambda xp, x, *, shape, strides, offset: as_strided(x, shape, strides, offset),
       as_strided_cases, ref=_as_strided_ref),
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
    # ---- NumPy breadth: N-dimensional FFTs, fftshift
    Op("fftn", lambda xp, x, *, s, axes, norm: _spectrum("fftn")(xp, x, s=s, axes=axes,
                                                                 norm=norm), _fftn_cases),
    Op("ifftn", lambda xp, x, *, s, axes, norm: _spectrum("ifftn")(xp, x, s=s, axes=axes,
                                                                   norm=norm), _fftn_cases),
    Op("rfftn", lambda xp, x, *, s, axes, norm: _spectrum("rfftn")(xp, x, s=s, axes=axes,
                                                                   norm=norm), _fftn_cases,
       real_only="the FFT of a real signal: NumPy rejects complex input (use fftn)"),
    Op("irfftn", lambda xp, x, *, s, axes, norm: xp.fft.irfftn(x, s=s, axes=axes, norm=norm),
       _fftn_cases),
    Op("hfft", lambda xp, x, *, axis, n: xp.fft.hfft(x, n=n, axis=axis),
       with_params(one_axis(none=False), n=st.sampled_from([3, 4])), empty=False),
    Op("fftshift", lambda xp, x: xp.fft.fftshift(x), plain(1)),
    Op("ifftshift", lambda xp, x, *, axis: xp.fft.ifftshift(x, axes=axis), one_axis()),
    # ---- shapes
    Op("transpose", lambda xp, x, *, axes: xp.transpose(x, axes), transpose_cases,
       chain={"axes": None}),
    Op("reshape", lambda xp, x, *, newshape: xp.reshape(x, newshape), reshape_cases),
    Op("broadcast_to", lambda xp, x, *, shape: xp.broadcast_to(x, shape), broadcast_to_cases),
    Op("expand_dims", lambda xp, x, *, axis: xp.expand_dims(x, axis), expand_dims_cases),
    Op("squeeze", lambda xp, x, *, axis: xp.squeeze(x, axis), squeeze_cases),
    Op("swapaxes", lambda xp, x, *, a, b: xp.swapaxes(x, a, b), swapaxes_cases),
    Op("moveaxis", lambda xp, x, *, a, b: xp.moveaxis(x, a, b), swapaxes_cases),
    Op("ravel", lambda xp, x: xp.ravel(x), plain()),
    Op("concatenate", lambda xp, *xs, axis: xp.concatenate(xs, axis=axis), join_cases(False)),
    Op("stack", lambda xp, *xs, axis: xp.stack(xs, axis=axis), join_cases(True)),
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
    # ---- indexing (reverse mode is a scatter-add)
    Op("getitem_basic", lambda xp, x, *, index: x[index], basic_index_cases,
       chain={"index": (slice(None, None, -1),)}),
    Op("getitem_int_array", lambda xp, x, *, index: x[index], int_array_index_cases),
    Op("getitem_mask", lambda xp, x, *, index: x[index], mask_index_cases),
    Op("take", lambda xp, x, *, indices, axis: xp.take(x, indices, axis=axis),
       take_cases(along=False)),
    Op("take_along_axis",
       lambda xp, x, *, indices, axis: xp.take_along_axis(x, indices, axis=axis),
       take_cases(along=True)),
    # ---- functional indexed updates (x.at[index]) and dynamic slices (fad.lax)
    Op("at_set", cases=at_cases(), **_at("set", None)),
    Op("at_add", cases=at_cases(), **_at("add", np.add)),
    Op("at_mul", cases=at_cases(unique=True), **_at("multiply", np.multiply)),
    Op("at_min", cases=at_cases(), domain=(grid(0), OFF_GRID), **_at("min", np.minimum)),
    Op("at_max", cases=at_cases(), domain=(grid(0), OFF_GRID), **_at("max", np.maximum)),
    Op("dynamic_slice", lambda xp, x, *, starts, sizes: fad.lax.dynamic_slice(x, starts, sizes),
       dynamic_slice_cases(update=False),
       ref=lambda x, *, starts, sizes: x[_window(x.shape, starts, sizes)]),
    Op("dynamic_update_slice",
       lambda xp, x, u, *, starts: fad.lax.dynamic_update_slice(x, u, starts),
       dynamic_slice_cases(update=True), ref=_np_dynamic_update_slice),
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
    # ---- NumPy breadth: general eigenproblems (eigenvectors through phase-free products)
    Op("eig", _eig, matrices(), EIG, tol=(5e-2, 1e-4), cdomain=EIG_C),
    Op("eigvals", lambda xp, a: _parts(xp, a, xp.linalg.eigvals(a)), matrices(), EIG,
       tol=(5e-2, 1e-4), cdomain=EIG_C),
    # ---- scipy.linalg (fad.scipy.linalg), scipy.signal (fad.scipy.signal)
    Op("solve_triangular", _solve_triangular, with_params(
        matrices(extra=_solve_extra), lower=st.booleans(), trans=st.sampled_from([0, 1, 2]),
        unit_diagonal=st.booleans()), (WELL, REAL), tol=(5e-2, None)),
    Op("scipy_cholesky", lambda xp, a: _sci(xp, "linalg").cholesky(a), matrices(), SPD,
       tol=(5e-2, None), cdomain=HPD),
    Op("cho_solve", _cho_solve, with_params(matrices(extra=_solve_extra), lower=st.booleans()),
       (SPD, REAL), tol=(5e-2, None), cdomain=(HPD, cplx(REAL)),
       ref=lambda a, b, *, lower: np.linalg.solve(a, b)),
    Op("lu", _lu, matrices(), WELL, tol=(5e-2, 1e-4)),
    Op("lu_solve", _lu_solve, with_params(matrices(extra=_solve_extra),
                                          trans=st.sampled_from([0, 1, 2])),
       (WELL, REAL), tol=(5e-2, None),
       ref=lambda a, b, *, trans: np.linalg.solve(_op_a(a, trans), b)),
    Op("expm", lambda xp, a: _sci(xp, "linalg").expm(a), matrices(), REAL, tol=(5e-2, 1e-4)),
    Op("sqrtm", lambda xp, a: _sci(xp, "linalg").sqrtm(a), matrices(), SPD, tol=(5e-2, 1e-4),
       cdomain=HPD),
    Op("block_diag", _block_diag, lambda kind: st.just(Case(((2, 3), (1, 2), ()))) if
       kind == "any" else None),
    Op("signal_convolve", _signal("convolve"), _conv_cases(1)),
    Op("signal_convolve_axes", _convolve_axes, lambda kind: st.sampled_from(
        [Case(c.shapes, {**c.params, "mode": m}) for c in _CONVOLVE_AXES
         for m in ("full", "same", "valid")]) if kind == "any" else None,
       ref=_convolve_axes_ref),
    Op("signal_correlate", _signal("correlate"), _conv_cases(1)),
    Op("convolve2d", _signal("convolve2d"), _conv_cases(2)),
    Op("correlate2d", _signal("correlate2d"), _conv_cases(2)),
    # ---- fad.lax: control flow, running reductions, orderings
    Op("switch", _switch, one_of_cases(pair((), (2, 3)), pair((), ()), pair((), (0,))),
       (away(-1, 3, 0.0, 1.0, 2.0), REAL)),
    Op("select_n", _select_n, same_shapes(4), (away(-1, 3, 0.0, 1.0, 2.0), REAL, REAL, REAL)),
    Op("lax_map", _lax_map, plain(1, 2)),
    Op("associative_scan_add", _assoc_add, scan_axis_cases, ref=_running(np.add)),
    Op("associative_scan_linear", _linear_recurrence, same_shapes(2, min_dims=1),
       uniform(-1.2, 1.2)),
    Op("lax_cumsum", lambda xp, x, *, axis, reverse: fad.lax.cumsum(x, axis, reverse),
       scan_axis_cases, ref=_running(np.add)),
    Op("cummax", lambda xp, x, *, axis, reverse: fad.lax.cummax(x, axis, reverse),
       scan_axis_cases, DISTINCT, ref=_running(np.maximum, True), real_only=ORDERED_ONLY),
    Op("cummin", lambda xp, x, *, axis, reverse: fad.lax.cummin(x, axis, reverse),
       scan_axis_cases, DISTINCT, ref=_running(np.minimum, True), real_only=ORDERED_ONLY),
    Op("cumlogsumexp", lambda xp, x, *, axis, reverse: fad.lax.cumlogsumexp(x, axis, reverse),
       scan_axis_cases, ref=_running(np.logaddexp),
       real_only="real numbers only, as jax.lax.cumlogsumexp (NumPy's logaddexp too)"),
    Op("top_k", _top_k, top_k_cases, DISTINCT, real_only=ORDERED_ONLY),
    Op("lax_sort_multi", _sort_multi,
       lambda kind: with_params(same_shapes(2, min_dims=1), axis=st.just(-1))(kind),
       (grid(0.25), DISTINCT), real_only=ORDERED_ONLY),
]


# ---- fad.nn activations: NumPy references (jax.nn's definitions)
def _np_elu(x: Any, alpha: float, inner: float = 1.0) -> Any:
    return np.where(x > 0, x, alpha * np.expm1(np.where(x > 0, 0, x) * inner))


def _np_relu6(x: Any) -> Any:
    return np.minimum(np.maximum(x, 0), 6)


NN_REFS = {
    "selu": lambda x: 1.0507009873554805 * _np_elu(x, 1.6732632423543772),
    "celu": lambda x: _np_elu(x, 1.5, 1 / 1.5),
    "hard_tanh": lambda x: np.clip(x, -1, 1),
    "relu6": _np_relu6,
    "hard_sigmoid": lambda x: _np_relu6(x + 3) / 6,
    "hard_silu": lambda x: x * _np_relu6(x + 3) / 6,
    "soft_sign": lambda x: x / (np.abs(x) + 1),
    "squareplus": lambda x: (x + np.sqrt(x * x + 4)) / 2,
    "mish": lambda x: x * np.tanh(np.logaddexp(x, 0)),
    "glu": lambda x: np.split(x, 2, -1)[0] / (1 + np.exp(-np.split(x, 2, -1)[1])),
    "standardize": lambda x: (x - x.mean(-1, keepdims=True)) / np.sqrt(
        np.maximum((x * x).mean(-1, keepdims=True) - x.mean(-1, keepdims=True) ** 2, 0)
        + 1e-5),
}
NN_PARAMS = {"celu": {"alpha": 1.5}, "gelu_exact": {"approximate": False}}
NN_REAL = "real numbers only: jax.nn's activations compare with 0 or use |x| (not analytic)"


def nn_unary(name: str, domain: Domain = REAL, cases: Cases = elementwise(1), **kw: Any
             ) -> Op:
    params = NN_PARAMS.get(name, {})

    def ref(x: Any) -> Any:
        if np.iscomplexobj(x):
            raise TypeError(f"jax.nn.{name} takes real numbers only")
        return NN_REFS[name](x)
    fn = getattr(fad.nn, name.removesuffix("_exact"))
    return Op(name, lambda xp, x: fn(x, **params), cases, domain, ref=ref, real_only=NN_REAL,
              **kw)


def _glu_cases(kind: str) -> Any:
    if kind == "scalar":
        return None
    return _finish(shape_st(kind, 1).map(lambda s: Case((s[:-1] + (2 * s[-1],),))), kind)


OPS += [
    nn_unary("selu", NONZERO),
    nn_unary("celu", NONZERO),
    nn_unary("hard_tanh", away(-2, 2, -1, 1)),
    nn_unary("relu6", away(-2, 8, 0, 6)),
    nn_unary("hard_sigmoid", away(-5, 5, -3, 3)),
    nn_unary("hard_silu", away(-5, 5, -3, 3)),
    nn_unary("soft_sign", NONZERO),
    nn_unary("squareplus"),
    nn_unary("mish"),
    nn_unary("glu", cases=_glu_cases),
    nn_unary("standardize", DISTINCT, cases=plain(1, 3, min_size=2), empty=False),
]


# ---------------------------------------------------------------- the research toolbox
# scipy.special's remaining functions, scipy.stats' distributions (their continuous
# arguments), more of fad.lax and fad.numpy, fad.experimental.ode.odeint, fad.nn's
# activations, and fad.random's samplers as functions of their parameters (one key)
SCIPY_STATS_REAL = "real numbers only: scipy.stats' distributions (as jax.scipy.stats)"
RANDOM_REAL = "real numbers only: the parameters of a real distribution (as jax.random)"
DIRICHLET_NO_FD = (
    "gamma numbers (rejection sampling) have JAX's implicit reparameterisation "
    "derivative, which holds each number's CDF fixed, not the accepted proposal of the "
    "key: a finite difference of the sample path differs (tests/random/"
    "test_random_gradients.py checks the derivative's unbiasedness instead)")


def _scipy_softmax(name: str) -> Callable:
    def ref(x: np.ndarray, *, axis: Any) -> np.ndarray:
        if np.iscomplexobj(x):
            raise TypeError(f"{name} takes real numbers only")
        return np.asarray(getattr(scipy.special, name)(x, axis=axis)).astype(x.dtype)
    return ref


def _stats_module(xp: Any) -> Any:
    import importlib
    return importlib.import_module("scipy.stats" if xp is np else "fad.scipy.stats")


def _stats_args(arrays: tuple, params: dict) -> tuple:
    """A mass function's integer ``k`` leads; a fixed parameter (of a quantile
    function) follows the arrays."""
    return (params["k"], *arrays) if "k" in params else (*arrays, *params.values())


def _stats_ref(dist: str, fn: str) -> Callable:
    """SciPy's ``scipy.stats.<dist>.<fn>``, real arguments only, the result in the
    arguments' dtype (as ``jax.scipy.stats``)."""
    def ref(*args: np.ndarray, **params: Any) -> np.ndarray:
        if any(np.iscomplexobj(a) for a in args):
            raise TypeError(f"scipy.stats.{dist}.{fn} takes real numbers only")
        out = getattr(getattr(scipy.stats, dist), fn)(*_stats_args(args, params))
        return np.asarray(out).astype(np.result_type(*args))
    return ref


def stats_row(dist: str, fn: str, domains: tuple, params: Any = None, **kw: Any) -> Op:
    """``fad.scipy.stats.<dist>.<fn>`` of the arrays against SciPy's, broadcasting;
    ``params`` (a strategy of dicts): arguments held fixed (``_stats_args``)."""
    def call(xp: Any, *args: Any, **p: Any) -> Any:
        return getattr(getattr(_stats_module(xp), dist), fn)(*_stats_args(args, p))
    cases = elementwise(len(domains))
    if params is not None:
        base = cases
        cases = lambda kind: base(kind).flatmap(  # noqa: E731
            lambda c: params.map(lambda p: Case(c.shapes, {**c.params, **p})))
    return Op(f"{dist}_{fn}", call, cases, domains, ref=_stats_ref(dist, fn),
              real_only=SCIPY_STATS_REAL, **kw)


def _away_from_steps(steps: Any, lo: float = 0.03, hi: float = 0.97) -> Domain:
    """Probabilities in ``(lo, hi)`` at least 0.02 away from each of ``steps`` (the
    jumps of a discrete quantile function)."""
    return away(lo, hi, *[float(s) for s in steps if lo < s < hi], gap=0.02)


def _mvn_cases(kind: str) -> Any:
    if kind != "any":
        return None
    return st.sampled_from([Case(((n,), (n,), (n, n))) for n in (2, 3)] +
                           [Case(((2, n), (n,), (n, n))) for n in (2, 3)])


def _symmetric(xp: Any, c: Any) -> Any:
    """``(c + c^T) / 2``: the row's covariance depends on both triangles alike, so
    that a derivative in ``c`` is the same whichever triangle the factorisation reads."""
    return (c + xp.swapaxes(c, -1, -2)) / 2


def _mvn(fn: str) -> Callable:
    def row(xp: Any, x: Any, mean: Any, cov: Any) -> Any:
        return getattr(_stats_module(xp).multivariate_normal, fn)(x, mean, _symmetric(xp, cov))
    return row


def _mvn_ref(fn: str) -> Callable:
    def ref(x: np.ndarray, mean: np.ndarray, cov: np.ndarray) -> np.ndarray:
        if any(np.iscomplexobj(a) for a in (x, mean, cov)):
            raise TypeError("scipy.stats.multivariate_normal takes real numbers only")
        out = getattr(scipy.stats.multivariate_normal, fn)(x, mean, (cov + cov.T) / 2)
        return np.asarray(out).astype(np.result_type(x, mean, cov))
    return ref


def _dynamic_index_cases(kind: str) -> Any:
    """One array, an axis of nonzero length and an index in it (some out of range)."""
    base = one_axis(none=False)(kind)
    if base is None:
        return None

    def index(c: Case) -> st.SearchStrategy:
        n = c.shapes[0][c.params["axis"]]
        return st.fixed_dictionaries({"index": st.integers(-n - 1, n),
                                      "keepdims": st.booleans()}).map(
            lambda p: Case(c.shapes, {**c.params, **p}))
    return base.filter(lambda c: c.shapes[0][c.params["axis"]] > 0).flatmap(index)


def _np_dynamic_index(x: np.ndarray, *, index: int, axis: int, keepdims: bool) -> np.ndarray:
    """``lax.dynamic_index_in_dim``: a negative index counted from the end, then
    clamped into the axis."""
    n = x.shape[axis]
    i = min(max(index + n if index < 0 else index, 0), n - 1)
    return np.take(x, [i] if keepdims else i, axis=axis)


def conv_transpose_cases(kind: str) -> Any:
    """1-d and 2-d transposed convolutions: strides, explicit padding, kernel
    dilation, the kernel transposed or not."""
    def body(draw: Any, ints: Callable, n: int) -> Case:
        c, o = draw(st.integers(1, 2)), draw(st.integers(1, 2))
        flip = draw(st.booleans())
        size, k = ints(1, 3), ints(1, 3)
        p = {"strides": ints(1, 2), "padding": tuple(zip(ints(0, 2), ints(0, 2))),
             "rhs_dilation": ints(1, 2), "transpose_kernel": flip}
        return Case(((n, c) + size, ((c, o) if flip else (o, c)) + k), p)

    return _conv_like_cases(kind, body, _window_fits("strides"))


_CONV_DN = {3: ("NCH", "OIH", "NCH"), 4: ("NCHW", "OIHW", "NCHW")}


def _conv_transpose_row(xp: Any, x: Any, w: Any, **p: Any) -> Any:
    return fad.lax.conv_transpose(x, w, p["strides"], p["padding"], p["rhs_dilation"],
                                  _CONV_DN[x.ndim], p["transpose_kernel"])


def _conv_transpose_ref(x: np.ndarray, w: np.ndarray, **p: Any) -> np.ndarray:
    """A transposed convolution is the convolution of the input dilated by the
    strides; ``transpose_kernel`` swaps the kernel's two feature axes and flips it."""
    if p["transpose_kernel"]:
        w = np.flip(np.swapaxes(w, 0, 1), tuple(range(2, w.ndim)))
    return conv_reference(x, w, strides=(1,) * (x.ndim - 2), padding=p["padding"],
                          lhs_dilation=p["strides"], rhs_dilation=p["rhs_dilation"], groups=1)


def _real_roots(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Coefficients of polynomials whose roots are real and at least 0.5 apart."""
    (n,) = shape
    roots = (rng.permutation(n - 1) - (n - 1) / 2) * 0.7 + rng.uniform(0, 0.1, n - 1)
    return np.poly(roots) * rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 2)


def _roots_ref(p: np.ndarray) -> np.ndarray:
    if np.iscomplexobj(p):
        raise TypeError("the row sorts real roots (an ordering)")
    return _roots(np, p)


def _roots(xp: Any, p: Any) -> Any:
    """The roots, sorted (their order is LAPACK's); a leading coefficient is nonzero,
    so nothing is stripped (fad's ``strip_zeros=False``, which ``jit`` needs)."""
    r = np.roots(p) if xp is np else xp.roots(p, strip_zeros=False)
    return xp.sort(xp.real(r))


def _real_if_close(x: np.ndarray) -> np.ndarray:
    if np.iscomplexobj(x):
        raise TypeError("real_if_close: the result's dtype would depend on the values "
                        "(no jit); the row takes real numbers")
    return np.real_if_close(x)


# dy/dt = A(p) y, A strictly upper triangular (nilpotent): y(t) = expm(t A) y0 is a
# quadratic in t, which Dormand-Prince steps and their interpolation give exactly
_ODE_TIMES = np.array([0.0, 0.5, 1.3])


def _nilpotent(xp: Any, p: Any) -> Any:
    z = p[0] * 0
    return xp.stack([xp.stack([z, p[0], p[1]]), xp.stack([z, z, p[2]]), xp.stack([z, z, z])])


def _odeint(xp: Any, y0: Any, p: Any) -> Any:
    from fad.experimental.ode import odeint

    def field(y: Any, t: Any, p: Any) -> Any:
        return _nilpotent(fad.numpy, p) @ y
    times = fad.numpy.asarray(_ODE_TIMES.tolist(), numpy_dtype(y0.dtype))
    return odeint(field, y0, times, p, rtol=1e-6, atol=1e-6)


def _odeint_ref(y0: np.ndarray, p: np.ndarray) -> np.ndarray:
    if np.iscomplexobj(y0) or np.iscomplexobj(p):
        raise TypeError("odeint's step control compares real error norms")
    a = _nilpotent(np, p)
    return np.stack([y0 + t * a @ y0 + t * t / 2 * a @ a @ y0
                     for t in _ODE_TIMES.astype(y0.dtype)])


_KEY = 7  # the samplers' key: fad.random.key(_KEY)


def _truncated_normal(xp: Any, lower: Any, upper: Any) -> Any:
    import fad.random as fr
    return fr.truncated_normal(fr.key(_KEY), lower, upper, dtype=numpy_dtype(lower.dtype))


def _truncated_normal_ref(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """The inverse CDF of the same uniform numbers (JAX's stream), by SciPy."""
    import fad.random as fr
    if np.iscomplexobj(lower) or np.iscomplexobj(upper):
        raise TypeError("truncated_normal takes real bounds")
    dt = np.result_type(lower, upper)
    shape = np.broadcast_shapes(lower.shape, upper.shape)
    u = np.asarray(fr.uniform(fr.key(_KEY), shape, dt), np.float64)
    a, b = (scipy.special.erf(np.asarray(v, np.float64) / np.sqrt(2)) for v in (lower, upper))
    return (np.sqrt(2) * scipy.special.erfinv(a + (b - a) * u)).astype(dt)


def _random_mvn(xp: Any, mean: Any, cov: Any) -> Any:
    import fad.random as fr
    return fr.multivariate_normal(fr.key(_KEY), mean, _symmetric(xp, cov), (2,))


def _random_mvn_ref(mean: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """``mean + L z``, ``L`` NumPy's Cholesky factor, ``z`` the same normal numbers."""
    import fad.random as fr
    if np.iscomplexobj(mean) or np.iscomplexobj(cov):
        raise TypeError("multivariate_normal takes real parameters")
    dt = np.result_type(mean, cov)
    z = np.asarray(fr.normal(fr.key(_KEY), (2,) + mean.shape[-1:], dt), np.float64)
    chol = np.linalg.cholesky((cov + cov.T) / 2)
    return (mean + z @ chol.T).astype(dt)


def _dirichlet(xp: Any, alpha: Any) -> Any:
    import fad.random as fr
    return fr.dirichlet(fr.key(_KEY), alpha, dtype=numpy_dtype(alpha.dtype))


def _dirichlet_ref(alpha: np.ndarray) -> np.ndarray:
    """The same gamma numbers (``loggamma``, JAX's stream), normalised by NumPy."""
    import fad.random as fr
    if np.iscomplexobj(alpha):
        raise TypeError("dirichlet takes real concentrations")
    g = np.exp(np.asarray(fr.loggamma(fr.key(_KEY), alpha, dtype=alpha.dtype), np.float64))
    return (g / g.sum(-1, keepdims=True)).astype(alpha.dtype)


# the ``q`` of discrete quantile functions: away from the jumps of poisson(2.5) and
# bernoulli(0.3)
POISSON_Q = _away_from_steps(scipy.stats.poisson.cdf(np.arange(12), 2.5))
BERNOULLI_Q = _away_from_steps([0.7])
PROB = uniform(0.05, 0.95)
SHAPE = uniform(0.5, 4)  # gamma and beta shape parameters
DF = uniform(1.0, 6.0)  # Student's degrees of freedom
LOC = uniform(-1, 0.2)  # below POS: x - loc > 0 (the gamma distribution's support)
_K = st.fixed_dictionaries({"k": st.sampled_from([0, 1, 3])})
_K01 = st.fixed_dictionaries({"k": st.sampled_from([0, 1])})
STATS_TOL = (5e-2, 1e-5)
# float32: fad computes in float32, as JAX (SciPy's float32 loops of betainc and
# gammainc are good to about 1e-5); scipy.stats, the reference, in float64
TAIL_TOL32 = 3e-5

OPS += [
    # ---- scipy.special
    special_binary("xlogy", (REAL, POS)),
    special_binary("xlog1py", (REAL, uniform(-0.5, 2))),
    special_unary("expit", uniform(-4, 4)),
    special_unary("logit", PROB),
    Op("special_softmax", lambda xp, x, *, axis: _special(xp).softmax(x, axis=axis),
       one_axis(), ref=_scipy_softmax("softmax"), real_only=REAL_SPECIAL, empty=False),
    Op("special_log_softmax", lambda xp, x, *, axis: _special(xp).log_softmax(x, axis=axis),
       one_axis(), ref=_scipy_softmax("log_softmax"), real_only=REAL_SPECIAL, empty=False),
    # ---- scipy.stats: densities, distribution and quantile functions
    *[stats_row("norm", fn, (REAL, REAL, POS), tol=STATS_TOL)
      for fn in ("logpdf", "pdf", "cdf", "logcdf")],
    stats_row("norm", "ppf", (PROB, REAL, POS), tol=STATS_TOL),
    *[stats_row("t", fn, (REAL, DF, REAL, POS), tol=STATS_TOL, value_tol32=TAIL_TOL32)
      for fn in ("logpdf", "pdf", "cdf", "logcdf")],
    stats_row("t", "ppf", (PROB, DF, REAL, POS), tol=STATS_TOL, value_tol32=TAIL_TOL32),
    *[stats_row("gamma", fn, (POS, SHAPE, LOC, POS), tol=STATS_TOL, value_tol32=TAIL_TOL32)
      for fn in ("logpdf", "pdf", "cdf", "logcdf")],
    stats_row("gamma", "ppf", (PROB, SHAPE, LOC, POS), tol=STATS_TOL, value_tol32=TAIL_TOL32),
    *[stats_row("beta", fn, (PROB, SHAPE, SHAPE), tol=STATS_TOL, value_tol32=TAIL_TOL32)
      for fn in ("logpdf", "pdf", "cdf", "logcdf")],
    stats_row("beta", "ppf", (PROB, SHAPE, SHAPE), tol=STATS_TOL, value_tol32=TAIL_TOL32),
    *[stats_row("poisson", fn, (POS,), _K, tol=STATS_TOL)
      for fn in ("logpmf", "pmf", "cdf", "logcdf")],
    stats_row("poisson", "ppf", (POISSON_Q,), st.just({"mu": 2.5})),
    *[stats_row("bernoulli", fn, (PROB,), _K01, tol=STATS_TOL)
      for fn in ("logpmf", "pmf", "cdf", "logcdf")],
    stats_row("bernoulli", "ppf", (BERNOULLI_Q,), st.just({"p": 0.3})),
    *[Op(f"multivariate_normal_{fn}", _mvn(fn), _mvn_cases, (REAL, REAL, SPD),
         tol=STATS_TOL, ref=_mvn_ref(fn), real_only=SCIPY_STATS_REAL)
      for fn in ("logpdf", "pdf")],
    # ---- fad.lax
    Op("dynamic_index_in_dim", lambda xp, x, *, index, axis, keepdims:
       fad.lax.dynamic_index_in_dim(x, index, axis, keepdims), _dynamic_index_cases,
       ref=_np_dynamic_index),
    Op("conv_transpose", _conv_transpose_row, conv_transpose_cases, tol=(5e-2, None),
       ref=_conv_transpose_ref),
    # ---- fad.numpy: 2-d real FFTs, polynomials
    Op("rfft2", lambda xp, x, *, s: _spectrum("rfft2")(xp, x, s=s),
       with_params(plain(2, 3), s=st.sampled_from([None, (2, 4)])), empty=False,
       real_only="the FFT of a real signal: NumPy rejects complex input (use fft2)"),
    Op("irfft2", lambda xp, x, *, s: xp.fft.irfft2(x, s=s),
       with_params(plain(2, 3), s=st.sampled_from([(2, 4), (3, 3), (2, 2)])), empty=False),
    # (NumPy's integer factors promote float32 to float64; JAX and fad keep float32)
    Op("polyder", lambda xp, p, *, m: xp.polyder(p, m),
       with_params(plain(1, 1), m=st.sampled_from([0, 1, 2])), empty=False,
       ref=lambda p, *, m: np.polyder(p, m).astype(p.dtype)),
    Op("polyint", lambda xp, p, *, m, k: xp.polyint(p, m, k),
       with_params(plain(1, 1), m=st.sampled_from([1, 2]), k=st.sampled_from([None, 0.5])),
       empty=False, ref=lambda p, *, m, k: np.polyint(p, m, 0 if k is None else k).astype(
           p.dtype)),
    Op("roots", _roots, lambda kind: st.sampled_from([Case(((n,),)) for n in (2, 3, 4)])
       if kind == "any" else None, Domain("real, separated roots", _real_roots), ref=_roots_ref,
       tol=(5e-2, 1e-5), real_only="the row sorts the (real) roots: an ordering"),
    Op("real_if_close", lambda xp, x: xp.real_if_close(x), elementwise(1),
       ref=_real_if_close, real_only="complex input: the result's dtype depends on the "
       "values, which jit cannot stage (real input: the identity)"),
    # ---- fad.experimental.ode: JAX's odeint (adjoint reverse mode), in y0 and the field's p
    Op("odeint", _odeint, pair((3,), (3,)), (REAL, uniform(-1, 1)), ref=_odeint_ref,
       tol=(5e-2, 1e-5), real_only="real numbers only: the solver's step control "
       "compares error norms (as JAX's odeint)"),
    # ---- fad.random: samplers as functions of their parameters, one fixed key
    Op("random_truncated_normal", _truncated_normal, elementwise(2),
       (uniform(-2, -0.3), uniform(0.3, 2)), ref=_truncated_normal_ref, tol=(5e-2, 1e-5),
       real_only=RANDOM_REAL),
    Op("random_multivariate_normal", _random_mvn,
       lambda kind: st.sampled_from([Case(((n,), (n, n))) for n in (1, 2, 3)])
       if kind == "any" else None, (REAL, SPD), ref=_random_mvn_ref, tol=(5e-2, 1e-5),
       real_only=RANDOM_REAL),
    Op("random_dirichlet", _dirichlet, plain(1, 2), uniform(0.5, 3), ref=_dirichlet_ref,
       empty=False, real_only=RANDOM_REAL, no_fd=DIRICHLET_NO_FD),
]

NN_REFS.update({
    "gelu": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
    "gelu_exact": lambda x: x * scipy.special.ndtr(x),
    "leaky_relu": lambda x: np.where(x >= 0, x, 0.01 * x),
    "log_sigmoid": lambda x: -np.logaddexp(0, -x),
    "softplus": lambda x: np.logaddexp(x, 0),
    "silu": lambda x: x * _sigmoid(x),
    "elu": lambda x: _np_elu(x, 1.0),
})
OPS += [
    nn_unary("gelu"),
    nn_unary("gelu_exact"),
    nn_unary("leaky_relu", NONZERO),
    nn_unary("log_sigmoid", uniform(-4, 4)),
    nn_unary("softplus", uniform(-4, 4)),
    nn_unary("silu", uniform(-4, 4)),
    nn_unary("elu", NONZERO),
]

BY_NAME = {op.name: op for op in OPS}
assert len(BY_NAME) == len(OPS), "operator names must be unique"
CHAIN_OPS = [op for op in OPS if op.chain is not None]
FLOATS = (np.float32, np.float64)


# ---------------------------------------------------------------- drawing inputs
@dataclass
class Example:
    """Concrete inputs of one row: arrays (to differentiate) and static params.

    ``arrays`` live on the backend of ``xp`` (NumPy unless made with ``on``);
    ``put`` moves a NumPy array there, ``numpy()`` is the reference computed on
    host copies."""

    op: Op
    arrays: list
    params: dict
    xp: Any = field(default=np, repr=False)

    def __repr__(self) -> str:
        return (f"Example({self.op.name}, shapes={[a.shape for a in self.arrays]}, "
                f"dtype={self.arrays[0].dtype if self.arrays else None}, "
                f"params={self.params!r}, arrays={[host(a).tolist() for a in self.arrays]!r})")

    def on(self, xp: Any) -> "Example":
        """The same example with its arrays on the backend of namespace ``xp``."""
        return Example(self.op, [xp.asarray(a) for a in self.arrays], self.params, xp)

    def put(self, x: Any) -> Any:
        """``x`` (NumPy) as an array of this example's backend."""
        return x if self.xp is np else self.xp.asarray(np.asarray(x))

    def fad(self, *arrays: Any) -> Any:
        import fad.numpy as fnp
        return self.op.fn(fnp, *arrays, **self.params)

    def numpy(self) -> Any:
        return self.op.numpy(*[host(a) for a in self.arrays], **self.params)


def host(x: Any) -> Any:
    """A NumPy copy of an array of any backend (``__array__``, CuPy's ``.get()``, DLPack)."""
    if isinstance(x, np.ndarray | np.generic | int | float | complex | bool):
        return np.asarray(x)
    try:
        return np.asarray(x)
    except (TypeError, ValueError, RuntimeError):
        get = getattr(x, "get", None)  # CuPy: device memory comes to the host by .get()
        return get() if callable(get) else np.from_dlpack(x)


@functools.lru_cache(maxsize=None)
def examples(op: Op, dtype: Any, kind: str = "any") -> st.SearchStrategy[Example]:
    """Inputs for ``op`` in ``dtype``: shapes and params from the row's cases,
    values from its domain with a drawn seed (fast, and fixed under derandomize).
    Cached: building strategies afresh for every example is what costs most."""
    def build(case: Case, seed: int) -> Example:
        rng = np.random.default_rng(seed)
        doms = op.domains(len(case.shapes), dtype)
        arrays = [np.asarray(d.sample(rng, s)).astype(dtype) for d, s in zip(doms, case.shapes)]
        return Example(op, arrays, case.params)
    return st.builds(build, op.cases(kind), st.integers(0, 2**32 - 1))


def ops_with(kind: str) -> list[Op]:
    """Rows that have cases of ``kind`` (``empty`` also needs ``op.empty``)."""
    return [op for op in OPS if op.cases(kind) is not None and (kind != "empty" or op.empty)]



# ---------------------------------------------------------------- the laws
# Each law takes a drawn example (on NumPy, or moved to another backend with
# ``Example.on``) and its dtype; test_properties.py runs them on NumPy and
# tests/backends/ on other Array-API namespaces. Inputs and directions go to the
# example's backend (``ex.put``); results come back to the host (``host``) to be
# compared, after checking they stayed on the backend (``assert_native``).
def rand_like(rng: np.random.Generator, x: object, dtype: object) -> np.ndarray:
    """Standard normal values; ``a + ib`` for a complex dtype."""
    shape, dtype = tuple(np.shape(host(x))), np.dtype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def wide(x: object) -> np.ndarray:
    """``x`` in float64 / complex128 (for accurate sums)."""
    x = host(x)
    return np.asarray(x, np.result_type(x.dtype, np.float64))


def value_tol(dtype: object, tol32: float = 2e-6) -> dict:
    return {"rtol": tol32, "atol": tol32} if np.dtype(dtype) == np.float32 else \
        {"rtol": 1e-12, "atol": 1e-12}


def assert_native(ex: Example, *values: Any) -> None:
    """Every value is an array of the example's backend (no silent move to NumPy)."""
    from fad.backends import namespace_of
    for v in values:
        if ex.xp is not np:
            assert namespace_of([v]) is ex.xp, f"{ex.op.name} gave a {type(v).__name__}"


def assert_same_values(got: object, want: object, dtype: object, tol32: float = 2e-6) -> None:
    got, want = host(got), host(want)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    np.testing.assert_allclose(got, want, **value_tol(dtype, tol32))


def _fd_check(ex: Example, f: Callable, args: list, order: int, tol: float | None) -> None:
    """``fad.check_grads`` for arrays that stay on ``ex``'s backend: ``jvp`` and
    ``<vjp(u), v>`` against central differences, then the same on the
    derivative functions up to ``order``."""
    from fad.transforms.check import _DEFAULT_EPS, _DEFAULT_TOL, _assert_close
    real = np.finfo(host(args[0]).dtype).dtype
    eps, tol = _DEFAULT_EPS.get(real, 1e-4), tol if tol is not None else _DEFAULT_TOL[real]
    rng = np.random.default_rng(0)
    flat = lambda out: [host(o) for o in (out if isinstance(out, list | tuple) else [out])]
    v = [rand_like(rng, x, host(x).dtype) for x in args]
    moved = [[ex.put(host(x) + s * eps * d) for x, d in zip(args, v)] for s in (1, -1)]
    numeric = [(p - m) / (2 * eps) for p, m in zip(*(flat(f(*a)) for a in moved))]
    _, t = fad.jvp(f, list(args), [ex.put(d) for d in v])
    _assert_close("jvp vs finite differences", flat(t), numeric, tol, tol)
    out, f_vjp = fad.vjp(f, *args)
    outs = out if isinstance(out, list | tuple) else [out]
    u = [rand_like(rng, o, host(o).dtype) for o in outs]
    ct = f_vjp([ex.put(w) for w in u] if isinstance(out, list | tuple) else ex.put(u[0]))
    lhs = sum(np.real(np.sum(wide(c) * d)) for c, d in zip(flat(ct), v))
    rhs = sum(np.real(np.sum(w * n)) for w, n in zip(u, numeric))
    scale = max(1.0, sum(float(np.sum(np.abs(w))) for w in u))
    _assert_close("<u, J v> from vjp vs finite differences", [lhs], [rhs], tol * scale, tol)
    if order > 1:
        vs = [ex.put(d) for d in v]
        _fd_check(ex, lambda *a: fad.jvp(f, list(a), vs)[1], args, order - 1, tol)
        us = [ex.put(w) for w in u]
        _fd_check(ex, lambda *a: list(fad.vjp(f, *a)[1](
            us if isinstance(out, list | tuple) else us[0])), args, order - 1, tol)


def check_grads_law(ex: Example, dtype: Any) -> None:
    if ex.op.no_fd:  # (listed in test_properties.NO_FD; the other laws still run)
        return
    tol = ex.op.check_tol(dtype)
    if ex.xp is np:
        fad.check_grads(ex.fad, ex.arrays, order=2, modes=("fwd", "rev"), atol=tol, rtol=tol)
    else:  # (fad.check_grads perturbs host copies: it would run the row on NumPy)
        _fd_check(ex, ex.fad, ex.arrays, 2, tol)


def jvp_vjp_law(ex: Example, dtype: Any) -> None:
    rng = np.random.default_rng(1)
    v = [rand_like(rng, x, dtype) for x in ex.arrays]
    out, jv = fad.jvp(ex.fad, ex.arrays, [ex.put(d) for d in v])
    out2, f_vjp = fad.vjp(ex.fad, *ex.arrays)
    u = rand_like(rng, out, host(out).dtype)  # real for real outputs (abs...)
    ju = f_vjp(ex.put(u))
    assert_native(ex, out, jv, out2, *ju)
    np.testing.assert_array_equal(host(out), host(out2))
    assert len(ju) == len(ex.arrays)
    assert [np.shape(host(g)) for g in ju] == [tuple(x.shape) for x in ex.arrays]
    # the bilinear pairing Re(sum(u * w)) (plain sum(u * w) for real arrays)
    jv = host(jv)
    lhs = np.real(np.sum(u * wide(jv)))
    rhs = sum(np.real(np.sum(wide(g) * vi)) for g, vi in zip(ju, v))
    scale = np.sum(np.abs(u * jv)) + sum(np.sum(np.abs(host(g) * vi)) for g, vi in zip(ju, v))
    assert abs(lhs - rhs) <= 50 * np.finfo(dtype).eps * (scale + 1), (lhs, rhs)


def realified(ex: Example) -> tuple:
    """For complex inputs: ``(f, args)`` where ``args`` are the real and imaginary
    parts ``x_k, y_k`` of the inputs and ``f`` calls the entry at ``x_k + i y_k``."""
    if not any(host(x).dtype.kind == "c" for x in ex.arrays):
        return ex.fad, list(ex.arrays)
    args = [ex.put(p) for x in ex.arrays for p in (host(x).real.copy(), host(x).imag.copy())]
    return (lambda *ps: ex.fad(*[ps[2 * k] + 1j * ps[2 * k + 1]
                                 for k in range(len(ex.arrays))])), args


def hessian_symmetric_law(ex: Example, dtype: Any) -> None:
    import fad.numpy as fnp
    w = ex.put(rand_like(np.random.default_rng(2), ex.numpy(), dtype))
    f, args = realified(ex)
    real_dtype = np.finfo(dtype).dtype
    n = len(args)
    # fnp.real(...): the scalarised function is real-valued; Re(sum(w f)) if complex
    H = fad.hessian(lambda *xs: fnp.real(fnp.sum(f(*xs) * w)), argnums=tuple(range(n)))(*args)
    assert_native(ex, *[h for row in H for h in row])
    H = [[host(h) for h in row] for row in H]
    args = [host(a) for a in args]
    sizes = [x.size for x in args]
    for i in range(n):
        for j in range(n):
            assert np.shape(H[i][j]) == args[i].shape + args[j].shape
            assert H[i][j].dtype == real_dtype
    M = np.block([[np.reshape(H[i][j], (sizes[i], sizes[j])) for j in range(n)]
                  for i in range(n)]).astype(np.float64)
    tol = 1e-4 if np.dtype(dtype) == np.float32 else 1e-10
    np.testing.assert_allclose(M, M.T, rtol=tol, atol=tol * (1 + np.abs(M).max()))


def dtype_law(ex: Example, dtype: Any) -> None:
    import fad.numpy as fnp
    n = len(ex.arrays)
    out = ex.fad(*ex.arrays)
    # the output: the input's dtype for floats; NumPy's for complex (abs: float64)
    out_dtype = np.dtype(dtype) if np.dtype(dtype).kind == "f" else host(ex.numpy()).dtype
    assert out_dtype in (dtype, np.finfo(dtype).dtype)
    grads = fad.grad(lambda *xs: fnp.real(fnp.sum(ex.fad(*xs))),
                     argnums=tuple(range(n)))(*ex.arrays)
    ones = [ex.put(np.ones_like(host(x))) for x in ex.arrays]
    _, tangent = fad.jvp(ex.fad, ex.arrays, ones)
    _, f_vjp = fad.vjp(ex.fad, *ex.arrays)
    cts = f_vjp(ex.put(np.ones(np.shape(host(out)), out_dtype)))
    assert_native(ex, out, tangent, *grads, *cts)
    for name, value, want in [("output", out, out_dtype), ("tangent", tangent, out_dtype), *[
            ("gradient", g, dtype) for g in grads], *[("cotangent", c, dtype) for c in cts]]:
        assert host(value).dtype == want, f"{name} of {ex.op.name} is {value.dtype}"


def _loss_gradient(ex: Example) -> Callable:
    import fad.numpy as fnp
    return fad.grad(lambda *xs: fnp.sum(fnp.abs(ex.fad(*xs)) ** 2),
                    argnums=tuple(range(len(ex.arrays))))


def vmap_law(ex: Example, dtype: Any) -> None:
    """vmap equals a loop, for the row and for the gradient of a real loss."""
    from fad.testing import assert_vmap_matches_loop
    batched = [ex.put(np.stack([host(x), host(x) * 0.9 + 0.05])) for x in ex.arrays]
    assert_native(ex, fad.vmap(ex.fad)(*batched))
    assert_vmap_matches_loop(ex.fad, batched)
    assert_vmap_matches_loop(_loss_gradient(ex), batched, rtol=1e-8, atol=1e-8)


def jit_law(ex: Example, dtype: Any) -> None:
    """jit equals eager, for the row and for the gradient of a real loss (the
    float runs on NumPy are test_jit.py's ``test_jit_equals_eager_on_the_operator_table``)."""
    from fad.testing import assert_jit_matches_eager
    assert_native(ex, fad.jit(ex.fad)(*ex.arrays))
    assert_jit_matches_eager(ex.fad, ex.arrays)
    assert_jit_matches_eager(_loss_gradient(ex), ex.arrays, rtol=1e-8, atol=1e-8)


def values_law(ex: Example, dtype: Any) -> None:
    out = ex.fad(*ex.arrays)
    assert_native(ex, out)
    assert_same_values(out, ex.numpy(), dtype, ex.op.value_tol32)


def zero_dim_law(ex: Example, dtype: Any) -> None:
    import fad.numpy as fnp
    assert all(tuple(x.shape) == () for x in ex.arrays)
    assert_same_values(ex.fad(*ex.arrays), ex.numpy(), dtype, ex.op.value_tol32)
    check_grads_law(ex, dtype)
    g = fad.grad(lambda *xs: fnp.real(fnp.sum(ex.fad(*xs))))(*ex.arrays)
    assert_native(ex, g)
    assert (np.shape(host(g)), host(g).dtype) == ((), dtype)


def empty_law(ex: Example, dtype: Any) -> None:
    want = ex.numpy()
    assert_same_values(ex.fad(*ex.arrays), want, dtype, ex.op.value_tol32)
    ones = [ex.put(np.ones_like(host(x))) for x in ex.arrays]
    out, tangent = fad.jvp(ex.fad, ex.arrays, ones)
    assert np.shape(host(tangent)) == np.shape(want)
    cts = fad.vjp(ex.fad, *ex.arrays)[1](ex.put(np.ones(np.shape(want),
                                                        np.asarray(want).dtype)))
    assert_native(ex, out, tangent, *cts)
    for x, ct in zip(ex.arrays, cts):
        assert (np.shape(host(ct)), host(ct).dtype) == (tuple(x.shape), dtype)
        if math.prod(np.shape(want)) == 0:  # nothing flows back from an empty output
            assert not np.any(host(ct))
