"""``fad.numpy.fft``'s N-dimensional transforms and helpers, and
``fad.numpy.linalg.eig`` / ``eigvals``: values against NumPy, derivatives
against finite differences (and JAX's rule), ``jit`` and ``vmap``. The
operator table covers the laws of each row; these are the details."""

import numpy as np
import pytest

import fad
import fad.numpy as fnp

RNG = np.random.default_rng(0)
X = RNG.normal(size=(3, 4, 5))
Z = X + 1j * RNG.normal(size=X.shape)

FORWARD = [("fftn", {}), ("fftn", {"s": (3, 6), "axes": (1, 2)}),
           ("fftn", {"axes": (0, 2), "norm": "ortho"}),
           ("ifftn", {"s": (2, 4, 3), "axes": (0, 1, 2), "norm": "forward"}),
           ("rfftn", {}), ("rfftn", {"s": (4, 7), "axes": (0, 1)}),
           ("rfft2", {"norm": "ortho"}), ("fft2", {"axes": (0, 2)}),
           ("hfft", {"n": 7}), ("ihfft", {"norm": "ortho"}), ("ihfft", {"n": 4, "axis": 0}),
           ("fftshift", {}), ("fftshift", {"axes": 1}), ("ifftshift", {"axes": (0, 2)})]
INVERSE = [("irfftn", {}), ("irfftn", {"s": (3, 4, 6), "axes": (0, 1, 2)}),
           ("irfft2", {"s": (5, 5), "norm": "ortho"}), ("hfft", {"norm": "forward"}),
           ("ifftn", {}), ("ifft2", {"s": (2, 3)})]


@pytest.mark.parametrize("name, kw", FORWARD, ids=lambda v: str(v))
def test_fft_of_real_input_matches_numpy(name, kw):
    got, want = getattr(fnp.fft, name)(X, **kw), getattr(np.fft, name)(X, **kw)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=1e-12)


@pytest.mark.parametrize("name, kw", INVERSE, ids=lambda v: str(v))
def test_fft_of_complex_input_matches_numpy(name, kw):
    got, want = getattr(fnp.fft, name)(Z, **kw), getattr(np.fft, name)(Z, **kw)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_fft_float32_stays_single_precision_and_frequencies_match():
    assert fnp.fft.rfftn(X.astype(np.float32)).dtype == np.complex64
    assert fnp.fft.irfftn(Z.astype(np.complex64)).dtype == np.float32
    np.testing.assert_allclose(fnp.fft.fftfreq(5, 0.1), np.fft.fftfreq(5, 0.1))
    np.testing.assert_allclose(fnp.fft.rfftfreq(6), np.fft.rfftfreq(6))
    with pytest.raises(ValueError, match="same length"):
        fnp.fft.fftn(X, s=(2, 2), axes=(0,))
    with pytest.raises(ValueError, match="norm"):
        fnp.fft.hfft(X, norm="sideways")


def test_fft_derivatives_jit_and_vmap():
    def f(x):
        spec = fnp.fft.rfftn(x, s=(3, 6), axes=(0, 1))
        back = fnp.fft.irfftn(fnp.fft.fftshift(fnp.fft.fftn(x)), s=(2, 3), axes=(0, 1))
        return fnp.sum(fnp.abs(spec) ** 2) + fnp.sum(back * x[:2, :3])
    fad.check_grads(f, (X[0],), order=2)
    fad.check_grads(lambda z: fnp.sum(fnp.fft.hfft(z, 7) ** 2), (Z[0, 0],), order=2)
    fad.check_grads(lambda x: fnp.abs(fnp.fft.ihfft(x, 7)), (X[0, 0],), order=2)
    np.testing.assert_allclose(fad.jit(lambda x: fnp.fft.irfft2(fnp.fft.rfft2(x), s=(4, 5)))(X),
                               X, atol=1e-12)
    batched = fad.vmap(lambda x: fnp.fft.rfftn(x))(X)
    np.testing.assert_allclose(batched, np.stack([np.fft.rfftn(x) for x in X]), atol=1e-12)


# ---------------------------------------------------------------- eig
def _separated(n, complex_=False, seed=1):
    rng = np.random.default_rng(seed)
    while True:
        a = rng.normal(size=(n, n)) + (1j * rng.normal(size=(n, n)) if complex_ else 0)
        w, v = np.linalg.eig(a)
        if np.abs(w[:, None] - w).min(initial=9, where=~np.eye(n, dtype=bool)) > 0.5 and \
                np.linalg.cond(v) < 10:
            return a


@pytest.mark.parametrize("complex_", [False, True])
def test_eig_values_and_reconstruction(complex_):
    a = _separated(4, complex_)
    w, v = fnp.linalg.eig(a)
    assert w.dtype == v.dtype == np.complex128  # always complex (JAX's convention)
    np.testing.assert_allclose(w, np.linalg.eig(a)[0], atol=1e-12)
    np.testing.assert_allclose(a @ v, v * w, atol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(v, axis=0), 1.0)
    np.testing.assert_allclose(fnp.linalg.eigvals(a), np.linalg.eigvals(a), atol=1e-12)
    single = a.astype(np.complex64 if complex_ else np.float32)
    assert fnp.linalg.eig(single)[0].dtype == np.complex64


@pytest.mark.parametrize("complex_", [False, True])
def test_eig_derivatives_against_finite_differences(complex_):
    a = _separated(3, complex_)

    def matrix_function(a):  # V sin(W) V^-1: free of the eigenvectors' scale and order
        w, v = fnp.linalg.eig(a)
        return fnp.matmul(v * fnp.sin(w)[None, :], fnp.linalg.inv(v))
    fad.check_grads(matrix_function, (a,), order=2)
    fad.check_grads(lambda a: fnp.abs(fnp.linalg.eig(a)[1]), (a,), order=2)
    fad.check_grads(lambda a: fnp.linalg.eigvals(a), (a,), order=2)
    # the eigenvectors themselves (LAPACK's normalisation is differentiated)
    fad.check_grads(lambda a: fnp.linalg.eig(a)[1], (a,), order=1)


def test_eigvals_gradient_is_a_closed_form():
    # sum(w^2) = trace(A^2), whose gradient is 2 A^T
    a = _separated(3)
    g = fad.grad(lambda a: fnp.real(fnp.sum(fnp.linalg.eigvals(a) ** 2)))(a)
    np.testing.assert_allclose(g, 2 * a.T, atol=1e-10)


def test_eig_matches_jax_rule():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    a, da = _separated(3), np.random.default_rng(3).normal(size=(3, 3))
    (jw, jv), (djw, djv) = jax.jvp(lambda a: jax.lax.linalg.eig(
        a, compute_left_eigenvectors=False, enable_eigvec_derivs=True), (a,), (da,))
    (w, v), (dw, dv) = fad.jvp(lambda a: tuple(fnp.linalg.eig(a)), (a,), (da,))
    np.testing.assert_allclose(dw, djw, atol=1e-10)
    np.testing.assert_allclose(dv, djv, atol=1e-10)


def test_eig_jit_and_vmap():
    a = np.stack([_separated(3, seed=s) for s in (1, 2)])
    f = lambda a: fnp.real(fnp.sum(fnp.linalg.eigvals(a) ** 3))
    np.testing.assert_allclose(fad.vmap(f)(a), [f(x) for x in a])
    np.testing.assert_allclose(fad.jit(fad.grad(f))(a[0]), fad.grad(f)(a[0]), atol=1e-10)
    w, v = fad.vmap(fnp.linalg.eig)(a)
    np.testing.assert_allclose(w, np.linalg.eig(a)[0], atol=1e-12)
