"""``Backend.scatter``, the kernel of ``x.at[index].set/multiply/min/max``, on
every backend against NumPy's assignment and ``ufunc.at``: the generic
namespace path (basic indexing on the namespace itself, index arrays through
the host), CuPy's device path (run here on a stand-in: the CuPy class over
NumPy with ``cupyx``'s scatter functions written with ``ufunc.at``), Dask's
lazy path, and the guarded ``array_api_strict`` namespace that refuses every
trip to the host."""

import sys
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fad
import fad.numpy as fnp
from fad.backends import Backend, get_backend
from fad.backends.cupy_backend import CupyBackend

MODES = ("set", "mul", "min", "max")
UFUNC = {"mul": np.multiply, "min": np.minimum, "max": np.maximum}


def reference(mode, x, index, values):
    out = x.copy()
    if mode == "set":
        out[index] = values
    else:
        UFUNC[mode].at(out, index, values)
    return out


def _cases():
    """(x, index, values) with basic indexing and with repeated index arrays."""
    @st.composite
    def case(draw):
        n = draw(st.integers(1, 6))
        rng = np.random.default_rng(draw(st.integers(0, 2**16)))
        x = rng.standard_normal((n, 3)).round(1)  # (rounded: ties between values)
        if draw(st.booleans()):
            a = draw(st.integers(0, n - 1))
            index = (slice(a, None), 1)
        else:
            k = draw(st.integers(1, 8))
            index = (rng.integers(0, n, k), slice(None))
        values = rng.standard_normal(x[index].shape).round(1)
        return x, index, values
    return case()


@settings(max_examples=60, derandomize=True, deadline=None)
@given(_cases(), st.sampled_from(MODES))
def test_every_backend_scatters_as_numpy(case, mode):
    x, index, values = case
    want = reference(mode, x, index, values)
    np.testing.assert_array_equal(get_backend("numpy").scatter(mode, x, index, values), want)
    np.testing.assert_array_equal(Backend("plain", np).scatter(mode, x, index, values), want)
    strict = pytest.importorskip("array_api_strict")
    got = get_backend("array_api_strict").scatter(mode, strict.asarray(x), index,
                                                  strict.asarray(values))
    np.testing.assert_array_equal(np.asarray(got), want)


@settings(max_examples=60, derandomize=True, deadline=None)
@given(_cases(), st.sampled_from(MODES))
def test_cupy_device_path_gives_numpy_s_last_write_and_combinations(case, mode):
    fake = types.ModuleType("cupyx")
    fake.scatter_max = lambda a, index, v: np.maximum.at(a, index, v)
    fake.scatter_min = lambda a, index, v: np.minimum.at(a, index, v)
    saved = sys.modules.get("cupyx")
    sys.modules["cupyx"] = fake
    try:
        x, index, values = case
        got = CupyBackend("cupy-stand-in", np).scatter(mode, x, index, values)
    finally:
        if saved is None:
            del sys.modules["cupyx"]
        else:
            sys.modules["cupyx"] = saved
    np.testing.assert_array_equal(got, reference(mode, x, index, values))
    assert got is not x


def test_numpy_writes_into_out_and_never_into_an_operand():
    b = get_backend("numpy")
    x, v = np.zeros(4), np.ones(2)
    assert b.scatter("set", x, (slice(0, 2),), v, out=x) is x and x.tolist() == [1, 1, 0, 0]
    got = b.scatter("max", x, (slice(0, 2),), v, out=v)  # out is the values: a copy
    assert got is not v and v.tolist() == [1.0, 1.0]


def test_dask_scatters_lazily_and_refuses_index_arrays():
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    x = np.arange(6.0)
    dx = da.from_array(x, chunks=3)

    def refuse(*args, **kwargs):
        raise AssertionError("a Dask graph was computed while only being built")
    with dask.config.set(scheduler=refuse):
        outs = {m: getattr(fnp.at(dx)[1:4], m)(2.5) for m in ("set", "multiply", "min", "max")}
        for out in outs.values():
            assert isinstance(out, da.Array)
        with pytest.raises(NotImplementedError, match="scatter.*dask backend"):
            fnp.at(dx)[np.array([0, 0])].set(1.0)
    with dask.config.set(scheduler="sync"):
        np.testing.assert_array_equal(outs["set"].compute(), fnp.at(x)[1:4].set(2.5))
        np.testing.assert_array_equal(outs["multiply"].compute(), x * [1, 2.5, 2.5, 2.5, 1, 1])
        np.testing.assert_array_equal(outs["min"].compute(),
                                      np.minimum(x, [9, 2.5, 2.5, 2.5, 9, 9]))
        np.testing.assert_array_equal(outs["max"].compute(), fnp.at(x)[1:4].max(2.5))


def test_gradients_through_at_updates_on_array_api_strict_match_numpy():
    strict = pytest.importorskip("array_api_strict")

    def f(x):
        y = fnp.at(x)[1:3].multiply(x[0:2])
        y = fnp.at(y)[0].set(fnp.sin(x[3]))
        return fnp.sum(fnp.at(y)[2:].max(0.5) ** 2)
    x = np.array([0.3, -1.2, 0.7, 2.0])
    want = fad.grad(f)(x)
    got = fad.grad(f)(strict.asarray(x))  # (the Python number 0.5 joins x's backend)
    assert type(got) is type(strict.asarray(x))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-13)


def test_like_functions_allocate_beside_their_argument():
    strict = pytest.importorskip("array_api_strict")
    a = strict.ones((2, 3), dtype=strict.float32)
    for got, fill in ((fnp.zeros_like(a), 0.0), (fnp.ones_like(a), 1.0),
                      (fnp.empty_like(a), 0.0), (fnp.full_like(a, 2.5), 2.5)):
        assert type(got) is type(a) and got.dtype == strict.float32 and got.shape == (2, 3)
        np.testing.assert_array_equal(np.asarray(got), np.full((2, 3), fill, np.float32))
    assert type(fnp.zeros_like(np.ones(2))) is np.ndarray
    assert type(fad.jit(fnp.zeros_like)(np.ones(2))) is np.ndarray
