"""fad.lax control flow: concrete and abstract paths agree, in every mode."""

import numpy as np
import pytest

import fad
import fad.numpy as fnp
from fad import lax


def _branchy(x):
    return lax.cond(fnp.sum(x) > 0, lambda x: fnp.sin(x) * 2.0, lambda x: fnp.cos(x) * x, x)


def _scanned(xs, w):
    return lax.scan(lambda c, x: (fnp.tanh(c * w + x), c * x), 0.5, xs)


XS = np.array([0.3, -0.7, 1.1, 0.2])


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cond_every_mode_matches_python_branch(sign):
    x = sign * np.array([0.5, 1.0])
    loss = lambda x: fnp.sum(_branchy(x))
    want = fad.grad(loss)(x)  # concrete: an ordinary Python branch
    np.testing.assert_allclose(fad.jit(fad.grad(loss))(x), want)
    np.testing.assert_allclose(fad.grad(fad.jit(loss))(x), want)
    t = np.array([1.0, -2.0])
    np.testing.assert_allclose(fad.jvp(fad.jit(_branchy), (x,), (t,))[1],
                               fad.jvp(_branchy, (x,), (t,))[1])
    assert "cond" in str(fad.make_jaxpr(_branchy)(x))


def test_cond_under_vmap_with_per_example_predicate():
    f = fad.jit(lambda x: lax.cond(x > 0, lambda x: x * 2.0, lambda x: -x, x))
    np.testing.assert_allclose(fad.vmap(f)(np.array([-1.0, 2.0, 0.5])), [1.0, 4.0, 1.0])


def test_cond_closure_over_differentiated_value():
    x = np.array([0.5, 1.0])

    def f(w):
        g = fad.jit(lambda x: fnp.sum(lax.cond(x[0] > 0, lambda x: x * w, lambda x: x, x)))
        return g(x)
    assert float(fad.grad(f)(3.0)) == pytest.approx(1.5)


def test_cond_branch_mismatch_is_a_clear_error():
    with pytest.raises(TypeError, match="same structure"):
        fad.jit(lambda x: lax.cond(x > 0, lambda x: x, lambda x: (x, x), x))(1.0)


def test_scan_abstract_matches_concrete_in_every_mode():
    eager = _scanned(XS, 0.8)
    jitted = fad.jit(_scanned)(XS, 0.8)
    np.testing.assert_allclose(jitted[0], eager[0])
    np.testing.assert_allclose(jitted[1], eager[1])
    loss = lambda xs, w: _scanned(xs, w)[0] + fnp.sum(_scanned(xs, w)[1])
    for argnum in (0, 1):
        want = fad.grad(loss, argnum)(XS, 0.8)
        np.testing.assert_allclose(fad.jit(fad.grad(loss, argnum))(XS, 0.8), want, rtol=1e-12)
    jv = fad.jvp(lambda w: fad.jit(_scanned)(XS, w)[0], (0.8,), (1.0,))[1]
    np.testing.assert_allclose(jv, fad.grad(lambda w: _scanned(XS, w)[0])(0.8))
    fad.check_grads(lambda w: fad.jit(_scanned)(XS, w)[0], (0.8,), order=2)


def test_scan_reverse_and_vmap():
    cumsum = lambda xs: lax.scan(lambda c, x: (c + x, c + x), 0.0, xs, reverse=True)[1]
    np.testing.assert_allclose(fad.jit(cumsum)(np.arange(4.0)), [6.0, 6.0, 5.0, 3.0])
    batch = np.stack([XS, 2 * XS])
    got = fad.vmap(fad.jit(lambda xs: _scanned(xs, 0.8)[0]))(batch)
    np.testing.assert_allclose(got, [_scanned(b, 0.8)[0] for b in batch])


def test_while_loop_forward_mode_and_concrete_reverse_mode():
    f = lambda w: lax.while_loop(lambda v: v < 100.0 * w, lambda v: v * w, 3.0)
    assert float(fad.jit(f)(2.0)) == 384.0  # 3 * 2**7
    assert float(fad.jvp(fad.jit(f), (2.0,), (1.0,))[1]) == pytest.approx(21 * 2.0 ** 6)
    assert float(fad.grad(f)(2.0)) == pytest.approx(21 * 2.0 ** 6)  # concrete: a Python loop


def test_fori_loop_is_differentiable_both_ways():
    f = lambda x: lax.fori_loop(0, 3, lambda i, v: v * x + i, 1.0)
    # v3 = x^3 + x + 2  ->  f'(x) = 3 x^2 + 1
    assert float(fad.grad(f)(2.0)) == pytest.approx(13.0)
    assert float(fad.jit(fad.grad(f))(2.0)) == pytest.approx(13.0)


def test_concretization_error_names_lax():
    with pytest.raises(fad.ConcretizationError, match="fad.lax.cond"):
        fad.jit(lambda x: x if x > 0 else -x)(1.0)
