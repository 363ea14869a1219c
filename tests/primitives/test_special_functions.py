"""``fad.scipy.special`` beyond the operator table (whose rows check values
against SciPy, derivatives against finite differences, forward against reverse,
jit against eager and vmap against a loop): values at 0, ±inf and NaN, poles
and negative arguments, derivatives of higher order against closed forms,
dtypes, the IR, the backends, and agreement with PyTorch."""

import math

import numpy as np
import pytest
import scipy.special as sp

import fad
import fad.numpy as fnp
import fad.scipy.special as fsp

INF, NAN = np.inf, np.nan
EULER = 0.5772156649015329
UNARY = ["erf", "erfc", "erfinv", "gammaln", "digamma"]


def close(got, want, **kw):
    np.testing.assert_allclose(np.asarray(got, np.float64), want, **kw)


# ---------------------------------------------------------------- values
@pytest.mark.parametrize("name, x, want", [
    ("erf", [0.0, -0.0, INF, -INF, NAN], [0.0, -0.0, 1.0, -1.0, NAN]),
    ("erfc", [0.0, INF, -INF, NAN], [1.0, 0.0, 2.0, NAN]),
    ("erfinv", [0.0, 1.0, -1.0, 1.5, -2.0, NAN], [0.0, INF, -INF, NAN, NAN, NAN]),
    ("gammaln", [1.0, 2.0, 0.0, INF, NAN], [0.0, 0.0, INF, INF, NAN]),
    # log |Gamma(x)| at negative non-integers: Gamma(-1/2) = -2 sqrt(pi),
    # Gamma(-3/2) = 4 sqrt(pi) / 3; at the poles (0, -1, -2...) +inf
    ("gammaln", [-0.5, -1.5, -1.0, -2.0],
     [math.log(2 * math.sqrt(math.pi)), math.log(4 * math.sqrt(math.pi) / 3), INF, INF]),
    ("digamma", [1.0, 0.5, INF, NAN, -1.0], [-EULER, -EULER - 2 * math.log(2), INF, NAN, NAN]),
])
def test_values_at_special_points(name, x, want):
    got = getattr(fsp, name)(np.array(x))
    close(got, want, rtol=1e-14, atol=0)
    num = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got)[num], np.signbit(want)[num])
    np.testing.assert_array_equal(got, getattr(sp, name)(np.array(x)))


def test_polygamma_values_and_broadcasting():
    x = np.array([0.5, 1.0, 2.5])
    close(fsp.polygamma(0, x), sp.digamma(x), rtol=1e-15)
    close(fsp.polygamma(1, 1.0), math.pi ** 2 / 6, rtol=1e-14)
    n = np.array([[0], [1], [2]])
    got = fsp.polygamma(n, x)
    assert got.shape == (3, 3)
    close(got, sp.polygamma(n, x), rtol=1e-14)
    close(fsp.polygamma(2.0, x), sp.polygamma(2, x), rtol=1e-14)  # an integral float
    with pytest.raises(TypeError, match="order n must be integers"):
        fsp.polygamma(0.5, x)


# ---------------------------------------------------------------- derivatives
def nth(f, n):
    for _ in range(n):
        f = fad.grad(f)
    return f


@pytest.mark.parametrize("x", [-1.3, 0.0, 0.4, 2.0])
def test_erf_and_erfc_derivatives_of_every_order(x):
    d1 = 2 / math.sqrt(math.pi) * math.exp(-x * x)
    for name, sign in (("erf", 1), ("erfc", -1)):
        f = getattr(fsp, name)
        close(nth(f, 1)(x), sign * d1, rtol=1e-14)
        close(nth(f, 2)(x), sign * -2 * x * d1, rtol=1e-14, atol=1e-300)
        close(nth(f, 3)(x), sign * (4 * x * x - 2) * d1, rtol=1e-13)


@pytest.mark.parametrize("x", [-0.7, 0.0, 0.5])
def test_erfinv_derivatives(x):
    y = float(sp.erfinv(x))
    d1 = math.sqrt(math.pi) / 2 * math.exp(y * y)
    close(nth(fsp.erfinv, 1)(x), d1, rtol=1e-14)
    close(nth(fsp.erfinv, 2)(x), 2 * y * d1 * d1, rtol=1e-13, atol=1e-300)
    assert float(fad.grad(fsp.erfinv)(1.0)) == INF


@pytest.mark.parametrize("x", [0.3, 1.0, 4.5, -0.5, -2.5])
def test_gammaln_derivatives_are_polygammas(x):
    """gammaln' = digamma, '' = polygamma(1), ''' = polygamma(2), '''' = polygamma(3),
    on both sides of 0 (log |Gamma| has the same derivatives)."""
    for k in range(1, 5):
        close(nth(fsp.gammaln, k)(x), sp.polygamma(k - 1, x), rtol=1e-12)
    close(nth(fsp.digamma, 3)(x), sp.polygamma(3, x), rtol=1e-12)
    close(nth(lambda x: fsp.polygamma(1, x), 2)(x), sp.polygamma(3, x), rtol=1e-12)


def test_closed_forms_at_one():
    close(nth(fsp.gammaln, 2)(1.0), math.pi ** 2 / 6, rtol=1e-14)
    close(nth(fsp.gammaln, 3)(1.0), -2 * 1.2020569031595942, rtol=1e-13)  # -2 zeta(3)
    close(nth(fsp.digamma, 3)(1.0), math.pi ** 4 / 15, rtol=1e-13)  # 6 zeta(4)


def test_hessian_is_diagonal_of_trigamma():
    x = np.array([0.5, 1.0, 3.0])
    h = fad.hessian(lambda x: fnp.sum(fsp.gammaln(x)))(x)
    close(h, np.diag(sp.polygamma(1, x)), rtol=1e-13)
    close(fad.jacfwd(fad.grad(lambda x: fnp.sum(fsp.erf(x))))(x),
          fad.jacrev(fad.grad(lambda x: fnp.sum(fsp.erf(x))))(x), rtol=1e-14)


def test_polygamma_has_no_derivative_in_its_order_and_batches_over_it():
    x = np.array([0.5, 2.0])
    n = np.array([1, 2])
    close(fad.grad(lambda x: fnp.sum(fsp.polygamma(n, x)))(x), sp.polygamma(n + 1, x),
          rtol=1e-13)
    got = fad.vmap(lambda n: fsp.polygamma(n, x))(np.array([0, 1, 3]))
    close(got, sp.polygamma(np.array([[0], [1], [3]]), x), rtol=1e-14)


# ---------------------------------------------------------------- dtypes
@pytest.mark.parametrize("name", UNARY)
def test_float32_stays_float32(name):
    f = getattr(fsp, name)
    x = np.array([0.25, 0.5], np.float32)
    assert f(x).dtype == np.float32
    assert fad.grad(lambda x: fnp.sum(f(x)))(x).dtype == np.float32
    assert nth(f, 2)(np.float32(0.25)).dtype == np.float32
    assert fad.jit(f)(x).dtype == np.float32
    assert fsp.polygamma(2, x).dtype == np.float32


@pytest.mark.parametrize("name", UNARY)
def test_integers_become_the_default_float_and_float16_stays(name):
    """As jax.scipy.special: integers and booleans are promoted to the default
    float (float64 here); float16 stays float16 (SciPy computes it in float32)."""
    f = getattr(fsp, name)
    for x in (np.array([0, 1], np.int8), np.array([0, 1]), np.array([False, True]), 1):
        assert np.asarray(f(x)).dtype == np.float64
        close(f(x), getattr(sp, name)(np.asarray(x, np.float64)), rtol=1e-15)
    h = np.array([0.25, 0.5], np.float16)
    assert f(h).dtype == np.float16
    jitted = fad.jit(lambda x: f(fnp.sin(x)))  # writes into sin's buffer (out=)
    assert jitted(h).dtype == np.float16
    np.testing.assert_array_equal(jitted(h), f(fnp.sin(h)))


def test_complex_arguments_are_rejected():
    with pytest.raises(TypeError, match="real numbers"):
        fsp.erf(np.array([1 + 1j]))


# ---------------------------------------------------------------- the IR, jit, backends
def test_make_jaxpr_shows_one_erf_equation():
    closed = fad.make_jaxpr(fsp.erf)(np.ones(3))
    assert [e.primitive.name for e in closed.jaxpr.eqns] == ["erf"]
    assert "erf a" in str(closed)


def test_jit_generated_code_calls_the_kernels():
    f = lambda x: fsp.gammaln(fnp.exp(x)) + fsp.erfinv(fnp.tanh(x))
    x = np.linspace(-1, 1, 5)
    jitted = fad.jit(f)
    close(jitted(x), f(x), rtol=1e-15)
    assert "out=" in jitted.source(x)
    g = fad.jit(fad.grad(lambda x: fnp.sum(f(x))))
    close(g(x), fad.grad(lambda x: fnp.sum(f(x)))(x), rtol=1e-15)


def test_other_backends_raise_naming_the_primitive_and_backend():
    xps = pytest.importorskip("array_api_strict")
    with pytest.raises(NotImplementedError, match="erf primitive .* array_api_strict"):
        fsp.erf(xps.asarray([0.5]))


def test_importing_fad_does_not_import_scipy():
    import subprocess
    import sys
    code = "import sys, fad, fad.scipy.special; print('scipy.special' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------- the composites
def test_composites_match_scipy():
    x = np.array([-2.0, 0.0, 0.3, 5.0])
    p = np.array([0.0, 0.2, 0.5, 1.0])
    close(fsp.expit(x), sp.expit(x), rtol=1e-15)
    with np.errstate(divide="ignore"):
        close(fsp.logit(p), sp.logit(p), rtol=1e-15)
    close(fsp.logsumexp(x), sp.logsumexp(x), rtol=1e-15)
    b = np.array([1.0, 0.0, 2.0, 0.5])
    with np.errstate(divide="ignore"):
        close(fsp.logsumexp(x, b=b), sp.logsumexp(x, b=b), rtol=1e-15)
    m = x.reshape(2, 2)
    close(fsp.softmax(m), sp.softmax(m), rtol=1e-15)
    close(fsp.softmax(m, axis=1), sp.softmax(m, axis=1), rtol=1e-15)
    close(fsp.log_softmax(m, axis=0), sp.log_softmax(m, axis=0), rtol=1e-14, atol=1e-15)
    y = np.array([0.0, 2.0, 0.5, INF])
    z = np.array([0.0, 1.5, 0.0, 0.0])
    close(fsp.xlogy(z, y), sp.xlogy(z, y), rtol=1e-15)
    close(fsp.xlog1py(z, y - 1), sp.xlog1py(z, y - 1), rtol=1e-15)
    close(fsp.logsumexp(x, return_sign=True)[0], sp.logsumexp(x, return_sign=True)[0],
          rtol=1e-15)


def test_xlogy_derivatives_as_jax():
    """d/dx x log y = log y, also at x = 0 (where the value is taken as 0)."""
    gx, gy = fad.grad(fsp.xlogy, argnums=(0, 1))(0.0, 2.0)
    assert (float(gx), float(gy)) == (math.log(2.0), 0.0)
    gx, gy = fad.grad(fsp.xlog1py, argnums=(0, 1))(3.0, 1.0)
    close([gx, gy], [math.log(2.0), 1.5], rtol=1e-15)
    fad.check_grads(fsp.xlogy, (0.7, 1.3), order=2)
    fad.check_grads(fsp.logit, (0.3,), order=2)


# ---------------------------------------------------------------- PyTorch
TORCH = [("erf", "special.erf", (-2, 2)), ("erfc", "special.erfc", (-2, 2)),
         ("erfinv", "erfinv", (-0.9, 0.9)), ("gammaln", "lgamma", (0.2, 5)),
         ("digamma", "digamma", (0.2, 5))]


@pytest.mark.parametrize("name, torch_name, domain", TORCH, ids=[t[0] for t in TORCH])
def test_values_and_gradients_agree_with_pytorch(name, torch_name, domain):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).uniform(*domain, 7)
    fn = torch
    for part in torch_name.split("."):
        fn = getattr(fn, part)
    t = torch.tensor(x, requires_grad=True)
    out = fn(t)
    out.sum().backward()
    f = getattr(fsp, name)
    close(f(x), out.detach().numpy(), rtol=1e-12)
    # (PyTorch's trigamma, the derivative of digamma, is accurate to about 1e-9)
    close(fad.grad(lambda x: fnp.sum(f(x)))(x), t.grad.numpy(), rtol=1e-8)


def test_polygamma_agrees_with_pytorch():
    torch = pytest.importorskip("torch")
    x = np.array([0.3, 1.0, 4.0])
    for n in range(4):
        close(fsp.polygamma(n, x), torch.polygamma(n, torch.tensor(x)).numpy(), rtol=1e-8)


def test_jit_folds_a_special_function_of_a_python_literal():
    """jit's simplifier turns ``1.0 * c`` into a Python-float literal; folding the
    special function of it gives NumPy's float64 value, not an AttributeError."""
    f = fad.jit(lambda x: fsp.erf(fnp.multiply(fnp.asarray(1.0), 0.5)) + x)
    assert float(f(0.0)) == pytest.approx(sp.erf(0.5), rel=1e-15)
