"""NumPy's smaller namespaces in ``fad.numpy``: ``r_``/``c_``, ``einsum``'s
sublist form, ``std`` at zero spread, the legacy polynomial functions,
``unwrap``, histograms, set routines (eager, and with ``size=`` under
``jit``), the error-state functions, and the complex predicates. Values against
NumPy; derivatives against finite differences."""

import numpy as np
import pytest

import fad
import fad.numpy as fnp

RNG = np.random.default_rng(0)


# ---------------------------------------------------------------- r_, c_, einsum
A3, M23 = np.arange(3.0), np.arange(6.0).reshape(2, 3)
R_CASES = [lambda R: R[A3, 0, 1:4], lambda R: R[0:1:5j, A3], lambda R: R["0,2", A3, A3],
           lambda R: R["1,2,0", A3, A3], lambda R: R["-1", M23, M23],
           lambda R: R["0,2,1", A3, [4, 5, 6]], lambda R: R[-1:1:6j, [0] * 3, 5, 6],
           lambda R: R["1", M23, np.ones((2, 3))], lambda R: R[3:0:-1]]
C_CASES = [lambda C: C[A3, A3], lambda C: C[M23, M23], lambda C: C[A3, 1:4],
           lambda C: C[M23.T, A3]]


@pytest.mark.parametrize("build", range(len(R_CASES)))
def test_r_matches_numpy(build):
    got, want = R_CASES[build](fnp.r_), R_CASES[build](np.r_)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("build", range(len(C_CASES)))
def test_c_matches_numpy(build):
    got, want = C_CASES[build](fnp.c_), C_CASES[build](np.c_)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want)


def test_r_is_differentiable_and_refuses_matrix_directives():
    g = fad.grad(lambda x: fnp.sum(fnp.r_[x, 2 * x, 0.0] ** 2))(A3)
    np.testing.assert_allclose(g, 10 * A3)
    np.testing.assert_allclose(fad.jit(lambda x: fnp.c_[x, x])(A3), np.c_[A3, A3])
    with pytest.raises(NotImplementedError, match="matrix"):
        fnp.r_["r", A3]
    with pytest.raises(ValueError, match="first entry"):
        fnp.r_[A3, "0"]


def test_einsum_sublist_form():
    a, b = RNG.normal(size=(2, 3)), RNG.normal(size=(3, 4))
    for args in [(a, [0, 1], b, [1, 2], [0, 2]), (a, [0, 1], b, [1, 2]),
                 (a, [Ellipsis, 1], [1, Ellipsis]), (a, [0, 0 + 1], [])]:
        np.testing.assert_allclose(fnp.einsum(*args), np.einsum(*args), atol=1e-12)
    fad.check_grads(lambda a, b: fnp.einsum(a, [0, 1], b, [1, 2], [2, 0]), (a, b), order=2)
    with pytest.raises(ValueError, match="sublist"):
        fnp.einsum(a, [0, 99])


# ---------------------------------------------------------------- integer conversions
def test_integer_conversions_of_a_concrete_differentiated_value():
    """An integer part is piecewise constant (derivative exactly 0), so int(x),
    operator.index and np.int64(x) of a concrete value are allowed under grad;
    float(x) would drop a nonzero derivative and stays an error; under jit the
    value is unknown (ConcretizationError)."""
    for conv in (int, np.int64, np.int32, np.uint8):
        assert fad.grad(lambda x: x * conv(x))(2.5) == 2.0
        assert fad.jacfwd(lambda x: x * conv(x))(2.5) == 2.0
        with pytest.raises(fad.ConcretizationError):
            fad.jit(lambda x: x * conv(x))(2.5)
    g = fad.grad(lambda x: fnp.sum(x[: int(x[0])]))(np.array([2.0, 1.0, 1.0]))
    assert g.tolist() == [1.0, 1.0, 0.0]
    with pytest.raises(fad.ConcretizationError, match="silently be zero"):
        fad.grad(lambda x: x * float(x))(2.5)
    with pytest.raises(fad.ConcretizationError, match="silently be zero"):
        fad.grad(lambda x: x * np.float64(x))(2.5)


# ---------------------------------------------------------------- std, var
@pytest.mark.parametrize("fn", [fnp.std, fnp.nanstd], ids=["std", "nanstd"])
def test_std_derivative_at_zero_spread_is_zero(fn):
    x = np.full(3, 1.5)
    for derivative in (fad.grad(fn), fad.jacfwd(fn), fad.hessian(fn)):
        out = np.asarray(derivative(x))
        assert np.all(out == 0), out
    assert fad.grad(lambda x: fn(x, ddof=1))(x).tolist() == [0.0] * 3
    assert np.all(fad.grad(fnp.var)(x) == 0)
    x32 = np.ones(2, np.float32)
    assert fn(x32).dtype == np.float32 and fad.grad(fn)(x32).dtype == np.float32
    fad.check_grads(fn, (np.array([0.5, 1.0, 3.0]),), order=2)  # unchanged elsewhere


# ---------------------------------------------------------------- polynomials
P4, P6 = RNG.normal(size=4), RNG.normal(size=6)


def test_polynomial_arithmetic_matches_numpy():
    x = RNG.normal(size=(2, 3))
    np.testing.assert_allclose(fnp.polyval(P4, x), np.polyval(P4, x))
    assert float(fnp.polyval([], 2.0)) == np.polyval([], 2.0)
    for name in ("polyadd", "polysub", "polymul"):
        np.testing.assert_allclose(getattr(fnp, name)(P4, P6), getattr(np, name)(P4, P6))
    for m in (1, 2, 6):
        np.testing.assert_allclose(fnp.polyder(P6, m), np.polyder(P6, m))
    np.testing.assert_allclose(fnp.polyint(P4, 2, [1.0, 2.0]), np.polyint(P4, 2, [1.0, 2.0]))
    np.testing.assert_allclose(fnp.polyint(P4, 1, 3.0), np.polyint(P4, 1, 3.0))
    np.testing.assert_allclose(fnp.poly([1.0, 2.0, 3.0]), np.poly([1.0, 2.0, 3.0]))
    square = np.eye(3) + 1
    assert fnp.poly(square).dtype == np.float64
    np.testing.assert_allclose(fnp.poly(square), np.poly(square), atol=1e-12)


def test_polyfit_and_roots_match_numpy():
    x, y, w = np.linspace(0, 1, 7), RNG.normal(size=7), RNG.uniform(1, 2, 7)
    np.testing.assert_allclose(fnp.polyfit(x, y, 3), np.polyfit(x, y, 3), atol=1e-10)
    ys = np.stack([y, 2 * y], 1)
    np.testing.assert_allclose(fnp.polyfit(x, ys, 2, w=w), np.polyfit(x, ys, 2, w=w),
                               atol=1e-10)
    with_zeros = np.array([0.0, 1.0, -3.0, 2.0, 0.0, 0.0])
    np.testing.assert_allclose(np.sort_complex(fnp.roots(with_zeros)),
                               np.sort_complex(np.roots(with_zeros)), atol=1e-12)
    np.testing.assert_allclose(np.sort_complex(fnp.roots(P6)), np.sort_complex(np.roots(P6)),
                               atol=1e-10)
    assert fnp.roots(np.zeros(3)).shape == (0,)


def test_polynomial_derivatives():
    x = RNG.normal(size=(2, 3))
    fad.check_grads(fnp.polyval, (P4, x), order=2)
    xs = np.linspace(0, 1, 6)
    fad.check_grads(lambda x, y: fnp.polyfit(x, y, 2), (xs, RNG.normal(size=6)), order=1)
    # roots under jit (strip_zeros=False), through the companion matrix's eigenvalues
    f = lambda p: fnp.real(fnp.sum(fnp.roots(p, strip_zeros=False) ** 2))
    fad.check_grads(f, (P6,), order=1)
    np.testing.assert_allclose(fad.jit(f)(P6), f(P6))
    with pytest.raises(ValueError, match="strip_zeros=False"):
        fad.jit(fnp.roots)(P6)


# ---------------------------------------------------------------- unwrap
def test_unwrap_matches_numpy_and_has_identity_derivative():
    phase = np.cumsum(RNG.normal(size=(3, 10)) * 2, 1)
    wrapped = np.angle(np.exp(1j * phase))
    np.testing.assert_allclose(fnp.unwrap(wrapped), np.unwrap(wrapped))
    np.testing.assert_allclose(fnp.unwrap(wrapped.T, axis=0), np.unwrap(wrapped.T, axis=0))
    np.testing.assert_allclose(fnp.unwrap(wrapped, discont=4, period=5),
                               np.unwrap(wrapped, discont=4, period=5))
    g = fad.grad(lambda p: fnp.sum(fnp.unwrap(p) * np.arange(10)))(wrapped)
    np.testing.assert_allclose(g, np.broadcast_to(np.arange(10.0), (3, 10)))


# ---------------------------------------------------------------- histograms
X, Y, W = RNG.normal(size=50), RNG.normal(size=50), RNG.uniform(size=50)


@pytest.mark.parametrize("kw", [{}, {"bins": 7}, {"bins": np.array([-1, 0, 0.5, 2])},
                                {"range": (-1, 1)}, {"density": True},
                                {"weights": W, "bins": 4}, {"bins": "auto"}],
                         ids=lambda kw: ",".join(kw) or "default")
def test_histogram_matches_numpy(kw):
    (h, e), (h0, e0) = fnp.histogram(X, **kw), np.histogram(X, **kw)
    np.testing.assert_allclose(h, h0)
    np.testing.assert_allclose(e, e0)
    np.testing.assert_allclose(fnp.histogram_bin_edges(X, kw.get("bins", 10)),
                               np.histogram_bin_edges(X, kw.get("bins", 10)))


def test_histogram2d_histogramdd_and_edge_cases():
    h, ex, ey = fnp.histogram2d(X, Y, bins=(3, 4), weights=W, density=True)
    h0, ex0, ey0 = np.histogram2d(X, Y, bins=(3, 4), weights=W, density=True)
    np.testing.assert_allclose(h, h0)
    np.testing.assert_allclose(ey, ey0)
    sample = RNG.normal(size=(20, 3))
    hd, edges = fnp.histogramdd(sample, bins=(2, 3, 4))
    np.testing.assert_allclose(hd, np.histogramdd(sample, bins=(2, 3, 4))[0])
    np.testing.assert_allclose(fnp.histogram(np.ones(3))[0], np.histogram(np.ones(3))[0])
    assert fnp.histogram(np.array([]))[0].shape == (10,)


def test_histogram_under_jit_and_its_derivatives():
    np.testing.assert_allclose(fad.jit(lambda x: fnp.histogram(x, bins=5)[0])(X),
                               np.histogram(X, bins=5)[0])
    # no derivative in the samples (as JAX); the weights' derivative is the bin indicator
    assert np.all(fad.grad(lambda x: fnp.sum(fnp.histogram(x, bins=5)[0] ** 2))(X) == 0)
    fad.check_grads(lambda w: fnp.histogram(X, bins=5, weights=w)[0], (W,), order=1)
    with pytest.raises(fad.ConcretizationError, match="auto"):
        fad.jit(lambda x: fnp.histogram(x, bins="auto")[0])(X)


# ---------------------------------------------------------------- set routines
S1, S2 = np.array([3.0, 1.0, 2.0, 1.0, 5.0]), np.array([2.0, 3.0, 7.0])
SETS = ["union1d", "intersect1d", "setdiff1d", "setxor1d"]


@pytest.mark.parametrize("name", SETS)
def test_set_routines_match_numpy_eagerly_and_with_size_under_jit(name):
    want = getattr(np, name)(S1, S2)
    np.testing.assert_array_equal(getattr(fnp, name)(S1, S2), want)
    size = len(want) + 2
    padded = fad.jit(lambda a, b: getattr(fnp, name)(a, b, size=size, fill_value=-1.0))(S1, S2)
    np.testing.assert_array_equal(padded, np.r_[want, -1.0, -1.0])
    cut = fad.jit(lambda a, b: getattr(fnp, name)(a, b, size=1))(S1, S2)
    np.testing.assert_array_equal(cut, want[:1])
    with pytest.raises(fad.ConcretizationError, match="size="):
        fad.jit(lambda a, b: getattr(fnp, name)(a, b))(S1, S2)


def test_unique_with_size_and_set_derivatives():
    np.testing.assert_array_equal(fad.jit(lambda a: fnp.unique(a, size=6))(S1),
                                  [1.0, 2.0, 3.0, 5.0, 1.0, 1.0])  # filled with the minimum
    with pytest.raises(fad.ConcretizationError, match="size="):
        fad.jit(fnp.unique)(S1)
    g = fad.grad(lambda a: fnp.sum(fnp.union1d(a, S2) ** 2))(S1)
    np.testing.assert_allclose(g, [6.0, 2.0, 4.0, 0.0, 10.0])  # first of equal values
    vals, i, j = fnp.intersect1d(S1, S2, return_indices=True)
    for got, want in zip((vals, i, j), np.intersect1d(S1, S2, return_indices=True)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(fnp.isin(S1, S2), np.isin(S1, S2))


# ---------------------------------------------------------------- error state, predicates
def test_error_state_functions_are_numpys_and_govern_fad():
    assert fnp.geterr() == np.geterr()
    with fnp.errstate(divide="raise"):
        assert fnp.geterr()["divide"] == "raise"
        for run in (lambda f: f, fad.jit):
            with pytest.raises(FloatingPointError):
                run(lambda x: fnp.divide(1.0, x))(np.zeros(2))
    old = fnp.seterr(invalid="raise")
    try:
        with pytest.raises(FloatingPointError):
            fnp.sqrt(np.array(-1.0))
    finally:
        fnp.seterr(**old)
    calls = []
    old_call = fnp.seterrcall(lambda kind, flag: calls.append(kind))
    try:
        with fnp.errstate(divide="call"):
            fnp.log(np.zeros(1))
        assert calls and fnp.geterrcall() is not None
    finally:
        fnp.seterrcall(old_call)


def test_complex_predicates():
    z = np.array([1 + 1j, 2 + 0j])
    np.testing.assert_array_equal(fnp.iscomplex(z), np.iscomplex(z))
    np.testing.assert_array_equal(fnp.isreal(z), np.isreal(z))
    np.testing.assert_array_equal(fnp.iscomplex(np.ones(2)), np.iscomplex(np.ones(2)))
    assert fnp.isrealobj(np.ones(2)) and not fnp.isrealobj(z) and fnp.iscomplexobj(z)
    close = np.array([2.0 + 1e-16j])
    assert fnp.real_if_close(close).dtype == np.real_if_close(close).dtype == np.float64
    assert fnp.real_if_close(z).dtype == np.complex128


def test_array_copy_of_a_traced_value_is_a_copy_with_identity_derivatives() -> None:
    """``fnp.array(x, copy=True)`` of a traced value binds a copy: its result owns its
    memory under ``jit``, and ``grad``, ``jvp`` and ``vmap`` see the identity."""
    x = np.array([1.0, -2.0, 3.0])
    out = fad.jit(lambda v: fnp.array(v, copy=True))(x)
    assert not np.shares_memory(out, x) and out.tolist() == x.tolist()
    np.testing.assert_array_equal(fad.grad(lambda v: fnp.sum(fnp.array(v) ** 2))(x), 2 * x)
    np.testing.assert_array_equal(fad.jvp(lambda v: fnp.array(v), (x,), (x * 2,))[1], x * 2)
    np.testing.assert_array_equal(fad.vmap(lambda v: fnp.array(v) * 2)(x[:, None]), 2 * x[:, None])
    assert "copy" in str(fad.make_jaxpr(lambda v: fnp.array(v))(x))
    assert "copy" not in str(fad.make_jaxpr(lambda v: fnp.array(v, copy=False))(x))
