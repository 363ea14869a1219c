"""complex64/complex128 through primitives and transformations (JAX's convention:
cotangents pair with tangents through Re(sum(c * t)))."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fad
import fad.numpy as fnp

# functions of complex inputs: holomorphic ones, and the R-linear/non-holomorphic ones
COMPLEX_FUNS = {
    "sin": lambda z: fnp.sin(z),
    "exp_div": lambda z: fnp.exp(z) / (2.0 + z * z),
    "log": lambda z: fnp.log(z),
    "sqrt": lambda z: fnp.sqrt(z),
    "tanh": lambda z: fnp.tanh(z),
    "power": lambda z: z ** 3 - 2.0 * z,
    "real_imag": lambda z: fnp.real(z) * fnp.imag(z),
    "conj": lambda z: fnp.conj(z) * z + z,
    "abs": lambda z: fnp.abs(z),
    "angle": lambda z: fnp.angle(z),
    "sum_outer": lambda z: fnp.outer(z, z) @ fnp.conj(z),
    "cumsum": lambda z: fnp.cumsum(z * 1j),
    "fft": lambda z: fnp.fft.fft(z * z),
    "ifft": lambda z: fnp.fft.ifft(fnp.sin(z), n=7),
    "irfft": lambda z: fnp.fft.irfft(z),
    "where": lambda z: fnp.where(fnp.real(z) > 0, z * z, -z),
}
HOLOMORPHIC = ["sin", "exp_div", "log", "sqrt", "tanh", "power"]


def _z(seed, n=5, dtype=np.complex128):
    rng = np.random.default_rng(seed)
    z = rng.uniform(0.3, 1.5, n) * np.exp(1j * rng.uniform(-1.2, 1.2, n))
    return z.astype(dtype)


@pytest.mark.parametrize("name", sorted(COMPLEX_FUNS))
@settings(max_examples=3, derandomize=True, deadline=None)
@given(seed=st.integers(0, 2**16))
def test_complex128_second_order_both_modes(name, seed):
    fad.check_grads(COMPLEX_FUNS[name], (_z(seed),), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("name", ["sin", "power", "conj", "abs", "fft"])
def test_complex64_first_order_and_dtype(name):
    z = _z(0, dtype=np.complex64)
    fad.check_grads(COMPLEX_FUNS[name], (z,), order=1, atol=5e-2, rtol=5e-2)
    g = fad.grad(lambda z: fnp.sum(fnp.abs(COMPLEX_FUNS[name](z)) ** 2))(z)
    assert g.dtype == np.complex64


def test_grad_of_real_valued_function_is_conjugate_gradient():
    # f(x + iy) = x^2 + y^2  ->  grad = df/dx - i df/dy = 2x - 2iy
    z = np.array(3.0 + 4.0j)
    assert complex(fad.grad(lambda z: fnp.abs(z) ** 2)(z)) == pytest.approx(6 - 8j)
    assert complex(fad.grad(lambda z: fnp.real(z) ** 2 + fnp.imag(z) ** 2)(z)) == \
        pytest.approx(6 - 8j)


@pytest.mark.parametrize("name", HOLOMORPHIC)
def test_holomorphic_grad_is_the_complex_derivative(name):
    f = COMPLEX_FUNS[name]
    z = complex(_z(3, n=1)[0])
    h = 1e-6
    numeric = (complex(f(np.array(z + h))) - complex(f(np.array(z - h)))) / (2 * h)
    got = complex(fad.grad(f, holomorphic=True)(np.array(z)))
    assert got == pytest.approx(numeric, rel=1e-6, abs=1e-8)


def test_complex_output_needs_holomorphic_flag():
    with pytest.raises(TypeError, match="holomorphic=True"):
        fad.grad(lambda z: z * 2.0)(np.array(1j))


def test_abs_at_zero_has_zero_subgradient():
    assert complex(fad.grad(fnp.abs)(np.array(0j))) == 0


@pytest.mark.parametrize("name", ["sin", "conj", "fft", "real_imag"])
def test_complex_under_jit_and_vmap(name):
    f = COMPLEX_FUNS[name]
    zs = np.stack([_z(s) for s in range(3)])
    np.testing.assert_allclose(fad.jit(f)(zs[0]), f(zs[0]), rtol=1e-12)
    np.testing.assert_allclose(fad.vmap(f)(zs), np.stack([f(z) for z in zs]), rtol=1e-12)
    loss = lambda z: fnp.sum(fnp.abs(f(z)) ** 2)
    np.testing.assert_allclose(fad.jit(fad.grad(loss))(zs[0]), fad.grad(loss)(zs[0]),
                               rtol=1e-10)


def test_check_grads_perturbs_along_i_too():
    """A rule that is right along real directions only (here: conj's jvp taken as
    the identity) is caught: directions are a + ib, as in jax.test_util."""
    @fad.custom_jvp
    def wrong_conj(z):
        return fnp.conj(z)
    wrong_conj.defjvp(lambda primals, tangents: (fnp.conj(primals[0]), tangents[0]))
    for modes in (("fwd",), ("rev",)):
        with pytest.raises(AssertionError):
            fad.check_grads(wrong_conj, (_z(0),), order=1, modes=modes)
    fad.check_grads(fnp.conj, (_z(0),), order=2)


@pytest.mark.parametrize("name", ["vdot", "vecdot", "vecmat", "correlate", "var", "sign"])
def test_numpy_conventions_for_complex_arguments(name):
    """vdot, vecdot and vecmat conjugate their first argument, correlate its second
    (NumPy); var is real (mean |x - mean|^2); sign is z / |z|."""
    a, b = _z(1, n=4), _z(2, n=4) * 1j
    m = np.stack([_z(3, n=4), _z(4, n=4)], axis=1)
    call = {"vdot": lambda xp, a, b: xp.vdot(a, b), "vecdot": lambda xp, a, b: xp.vecdot(a, b),
            "vecmat": lambda xp, a, b: xp.vecmat(a, m), "var": lambda xp, a, b: xp.var(a * b),
            "correlate": lambda xp, a, b: xp.correlate(a, b[:3], mode="full"),
            "sign": lambda xp, a, b: xp.sign(a * b)}[name]
    got, want = np.asarray(call(fnp, a, b)), call(np, a, b)
    assert got.dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-12)
    fad.check_grads(lambda a, b: call(fnp, a, b), (a, b), order=2)
