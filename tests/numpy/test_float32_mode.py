"""Float32 mode (``fad.config.update("fad_enable_x64", False)``), as JAX without
x64: creation defaults, Python scalars and 64-bit inputs of transformations
become 32-bit; explicit 64-bit requests warn; the default mode is unchanged."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import fad
import fad.numpy as fnp
from fad.transforms.jit import Jitted


@pytest.fixture
def x32():
    with fad.config.enable_x64(False):
        yield
    assert fad.config.fad_enable_x64 and Jitted.__call__ is Jitted.call_compiled


def f(x):
    return fnp.sum(fnp.sin(x) * x)


def test_creation_defaults(x32):
    made = [fnp.array(1.0), fnp.zeros(2), fnp.ones((1, 2)), fnp.empty(2), fnp.full(2, 1.5),
            fnp.arange(3.0), fnp.linspace(0, 1, 3), fnp.eye(2), fnp.identity(2),
            fnp.asarray([1.0, 2.0]), fnp.asarray(np.ones(2)), fnp.zeros_like(np.ones(2)),
            fnp.logspace(0, 1, 3), fnp.tri(2), fnp.array(1 + 2j).real]
    assert [a.dtype for a in made] == [np.float32] * len(made)
    assert [a.dtype for a in (fnp.arange(3), fnp.array([1, 2]), fnp.full(2, 7),
                              fnp.indices((2,)))] == [np.int32] * 4
    assert fnp.array(1 + 2j).dtype == np.complex64
    assert fnp.exp(fnp.arange(3)).dtype == np.float32  # (NumPy: int32 -> float64)
    assert fnp.ones(2, "float16").dtype == np.float16 and fnp.array(True).dtype == bool


def test_random_samplers_default_to_32_bits(x32):
    import fad.random as fr
    key = fr.PRNGKey(0)
    assert fr.normal(key, (3,)).dtype == np.float32
    assert fr.uniform(key, (3,)).dtype == np.float32
    assert fr.randint(key, (3,), 0, 10).dtype == np.int32
    with warnings.catch_warnings():  # (an explicit float64 is narrowed too, as in JAX)
        warnings.simplefilter("ignore")
        assert fr.normal(key, (2,), dtype=np.float64).dtype == np.float32


def test_explicit_64_bit_requests_warn(x32):
    for make in (lambda: fnp.zeros(2, dtype="float64"), lambda: fnp.asarray([1], np.int64),
                 lambda: fnp.arange(3, dtype=np.float64)):
        with pytest.warns(UserWarning, match="Explicitly requested dtype .*64"):
            assert make().dtype.itemsize == 4


def test_transformations_narrow_their_inputs(x32):
    x = np.ones(3)
    for out in (fad.grad(f)(x), fad.grad(f)(1.0), fad.jit(f)(x), fad.jit(f)(2.0),
                fad.vmap(fnp.sin)(x), fad.jvp(f, (x,), (x,))[1],
                fad.jit(lambda d: d["a"] * 2)({"a": x})):
        assert out.dtype == np.float32
    g = fad.grad(f)(x)
    np.testing.assert_allclose(g, np.sin(1.0) + np.cos(1.0), rtol=1e-6)
    assert fad.jit(lambda n: n + 1)(np.arange(3)).dtype == np.int32
    with fad.disable_jit():
        assert fad.jit(f)(x).dtype == np.float32


# (name, function of the namespace ``m``): results whose dtype NumPy widens to 64 bits
DTYPE_CASES = [
    ("sum of ints", lambda m: m.sum(m.arange(3))),
    ("sum of bools", lambda m: m.sum(m.arange(3) > 0)),
    ("sum of uint8", lambda m: m.sum(m.ones(3, m.uint8))),
    ("prod of ints", lambda m: m.prod(m.arange(1, 4))),
    ("cumsum of ints", lambda m: m.cumsum(m.arange(3))),
    ("cumsum of bools", lambda m: m.cumsum(m.arange(3) > 0)),
    ("cumprod of ints", lambda m: m.cumprod(m.arange(1, 4))),
    ("nansum of ints", lambda m: m.nansum(m.arange(3))),
    ("trace of ints", lambda m: m.trace(m.eye(2, dtype=int))),
    ("count_nonzero", lambda m: m.count_nonzero(m.arange(3))),
    ("argmax", lambda m: m.argmax(m.arange(3.0))),
    ("argmin along an axis", lambda m: m.argmin(m.ones((2, 2)), axis=1)),
    ("argmin keepdims", lambda m: m.argmin(m.ones((2, 2)), keepdims=True)),
    ("nanargmax", lambda m: m.nanargmax(m.ones((2, 2)))),
    ("argsort", lambda m: m.argsort(m.arange(3.0))),
    ("lexsort", lambda m: m.lexsort([m.arange(3), m.arange(3)])),
    ("searchsorted", lambda m: m.searchsorted(m.arange(3.0), 1.0)),
    ("mean of ints", lambda m: m.mean(m.arange(3))),
    ("fft of a real array", lambda m: m.fft.fft(m.arange(4.0))),
    ("true_divide of ints", lambda m: m.true_divide(m.arange(3), 2)),
    ("ints times a complex", lambda m: m.multiply(m.arange(3), 1j)),
]
DTYPES_32 = {"sum of uint8": "uint32", "mean of ints": "float32", "true_divide of ints": "float32",
             "fft of a real array": "complex64", "ints times a complex": "complex64"}


@pytest.mark.parametrize("name, fn", DTYPE_CASES, ids=[c[0] for c in DTYPE_CASES])
def test_results_stay_32_bit(x32, name, fn):
    """Accumulators and index results that NumPy widens to 64 bits are 32-bit,
    as JAX's without x64, eagerly and under ``jit``; the values are NumPy's."""
    want = DTYPES_32.get(name, "int32")
    assert fn(fnp).dtype == want
    assert fad.jit(lambda: fn(fnp))().dtype == want
    np.testing.assert_allclose(fn(fnp), fn(np), rtol=1e-6)


@pytest.mark.parametrize("name, fn", DTYPE_CASES, ids=[c[0] for c in DTYPE_CASES])
def test_dtypes_match_jax_without_x64(x32, name, fn):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    if not hasattr(jax, "enable_x64"):
        pytest.skip("this JAX has no enable_x64 context")
    with jax.enable_x64(False):
        assert str(fn(fnp).dtype) == str(fn(jnp).dtype)


def test_default_mode_keeps_numpys_dtypes():
    for name, fn in DTYPE_CASES:
        assert fn(fnp).dtype == fn(np).dtype, name


def test_default_mode_is_unchanged_and_restored():
    assert fad.config.fad_enable_x64 and fad.config.jax_enable_x64
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fnp.zeros(2, "float64").dtype == np.float64
    fad.config.update("jax_enable_x64", False)
    try:
        assert fnp.array(1.0).dtype == np.float32 and not fad.config.fad_enable_x64
    finally:
        fad.config.update("fad_enable_x64", True)
    assert fnp.array(1.0).dtype == np.float64 and fad.jit(f)(np.ones(2)).dtype == np.float64
    with pytest.raises(AttributeError, match="options"):
        fad.config.update("fad_enable_x32", True)


def test_environment_variable():
    code = ("import fad, fad.numpy as fnp, numpy as np; "
            "print(fad.config.fad_enable_x64, fnp.zeros(1).dtype, fad.jit(lambda x: x)"
            "(np.ones(1)).dtype)")
    env = {**os.environ, "FAD_ENABLE_X64": "0"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["False", "float32", "float32"]
