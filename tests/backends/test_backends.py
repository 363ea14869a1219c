"""Backends: ``fad.device_put``, lookup by identity, NumPy scalars beside
another backend's arrays, and the errors for what a backend cannot run."""

import types
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fad
import fad.numpy as fnp
import fad.scipy.special as special
from fad.backends import Backend, backend_for, get_backend, namespace_of

strict = pytest.importorskip("array_api_strict")


def test_device_put_to_and_from_array_api_strict():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    y = fad.device_put(x, "array_api_strict")
    assert namespace_of([y]) is strict and y.dtype == strict.float32
    back = fad.device_put(y, get_backend("numpy"))
    assert type(back) is np.ndarray and back.dtype == np.float32
    np.testing.assert_array_equal(back, x)


def test_device_put_keeps_an_array_already_there():
    y = strict.ones(3)
    assert fad.device_put(y, "array_api_strict") is y
    x = np.ones(3)
    assert fad.device_put(x, "numpy") is x


def test_device_put_of_python_scalars_and_unknown_names():
    assert namespace_of([fad.device_put(2.5, "array_api_strict")]) is strict
    with pytest.raises(ValueError, match="unknown backend"):
        fad.device_put(np.ones(2), "no_such_backend")


def test_device_put_goes_through_the_host_without_dlpack():
    class NoDlpack:  # an array-like with __array__ only
        def __array__(self, dtype=None, copy=None):
            return np.arange(3.0)
    y = fad.device_put(NoDlpack(), "array_api_strict")
    assert namespace_of([y]) is strict
    assert np.asarray(y).tolist() == [0.0, 1.0, 2.0]


def test_a_namespace_named_numpy_does_not_replace_numpy():
    fake = types.ModuleType("numpy")
    fake.asarray = np.asarray
    b = backend_for(fake)
    assert b.name != "numpy" and b.xp is fake
    assert get_backend("numpy").xp is np and backend_for(np).xp is np


def test_numpy_scalars_are_weak_beside_another_backend():
    x = strict.asarray([1.0, 2.0])
    for s in (np.float64(0.5), 0.5):
        y = fnp.multiply(x, s)
        assert namespace_of([y]) is strict
        assert np.asarray(y).tolist() == [0.5, 1.0]
    with pytest.raises(TypeError, match="two backends"):
        fnp.multiply(x, np.ones(2))


def test_gradients_stay_on_array_api_strict():
    x = strict.asarray([0.3, 1.2])
    g = fad.grad(lambda x: fnp.sum(fnp.sin(x) * x))(x)
    assert namespace_of([g]) is strict
    np.testing.assert_allclose(np.asarray(g), np.sin([0.3, 1.2]) + [0.3, 1.2] *
                               np.cos([0.3, 1.2]))


def test_second_derivatives_on_array_api_strict_without_set_backend():
    # the inner tangent v is a concrete array: its rule computes v * cos(tracer)
    x, v = strict.asarray([0.3, 1.2]), strict.asarray([1.0, 2.0])
    inner = lambda a: fad.jvp(fnp.sin, (a,), (v,))[1]
    _, t = fad.jvp(inner, (x,), (v,))
    assert namespace_of([t]) is strict
    np.testing.assert_allclose(np.asarray(t), -np.sin([0.3, 1.2]) * [1.0, 4.0], atol=1e-12)


def test_what_a_backend_lacks_names_the_primitive_and_the_backend():
    with pytest.raises(NotImplementedError, match="erf.*array_api_strict"):
        special.erf(strict.asarray([0.5]))
    with pytest.raises(NotImplementedError, match="cbrt primitive.*array_api_strict backend"):
        fnp.cbrt(strict.asarray([8.0]))
    bare = types.ModuleType("bare")  # no fft extension, no linalg
    with pytest.raises(NotImplementedError, match="inv primitive.*bare backend"):
        Backend("bare", bare).function("inv", "linalg.inv")
    err = Backend("bare", bare).unsupported("fft", "no fft extension")
    assert str(err) == "the fft primitive has no implementation on the bare backend: " \
        "no fft extension"
    with pytest.raises(NotImplementedError, match="fft primitive.*bare backend"):
        Backend("bare", bare).fft("fft", strict.ones(2), 2, 0, np.dtype("complex128"))
    from fad.primitives.cumulative import cumsum_p  # neither cumulative_sum nor cumsum
    with pytest.raises(NotImplementedError, match="cumsum primitive.*array_api backend"):
        cumsum_p._impl(types.SimpleNamespace(flip=np.flip), np.ones(3), axis=0, reverse=False)


def test_array_api_strict_fft_through_the_backend():
    x = strict.asarray([1.0, 2.0, 3.0])
    y = get_backend("array_api_strict").fft("fft", x, 3, 0, np.dtype("complex128"))
    np.testing.assert_allclose(np.asarray(y), np.fft.fft([1.0, 2.0, 3.0]))


def test_predicates_keep_their_operand_dtype_on_array_api_strict():
    # isnan / isfinite test values of any dtype: the operand is not cast to bool
    x = strict.asarray([1.0, float("nan"), float("inf")])
    assert np.asarray(fnp.isnan(x)).tolist() == [False, True, False]
    assert np.asarray(fnp.isfinite(x)).tolist() == [True, False, False]
    assert np.asarray(fnp.isfinite(strict.asarray([1, 2]))).tolist() == [True, True]


@st.composite
def _one_array_indices(draw: Any) -> tuple:
    """An array of up to 4 axes and an index of slices, one ``...`` at most and one
    integer array, at any place."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4))
    x = np.arange(float(np.prod(shape))).reshape(shape)
    n_items = draw(st.integers(1, len(shape)))
    at = draw(st.integers(0, n_items - 1))
    dots = draw(st.none() | st.integers(0, n_items))  # where ``...`` goes, if anywhere
    axes = list(range(n_items))
    if dots is not None:  # the items after ``...`` index the last axes
        axes = axes[:dots] + list(range(len(shape) - (n_items - dots), len(shape)))
    items: list = []
    for k in range(n_items):
        size = shape[axes[k]]
        if k == at:
            cells = draw(st.lists(st.integers(-size, size - 1), max_size=3))
            items.append(np.array(cells, dtype=draw(st.sampled_from([np.int64, np.int32]))))
        else:
            start = draw(st.integers(0, size))
            items.append(draw(st.sampled_from([slice(None), slice(start, None),
                                                slice(None, None, 2)])))
    if dots is not None:
        items.insert(dots, Ellipsis)
    return x, tuple(items)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(_one_array_indices())
def test_numpy_getitem_is_numpy_indexing_laid_out_row_major(case):
    """NumPy's backend indexes with one integer array among slices as NumPy does (same
    values, shape and errors) with the result laid out row-major, as PyTorch's (NumPy's
    own puts the indexed axis outermost when slices come first)."""
    from fad.backends.base import NUMPY
    x, index = case
    got = NUMPY.getitem(x, index)
    np.testing.assert_array_equal(got, x[index])
    assert got.shape == x[index].shape
    assert got.flags.c_contiguous
