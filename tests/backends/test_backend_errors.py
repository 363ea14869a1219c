"""What fad says about arrays it cannot use: a type no backend recognises is
named with the supported ones; arrays of two backends in one operation say how
to move one (``cupy.asarray(x)`` / ``x.get()`` between CuPy and NumPy)."""

import sys
import types

import numpy as np
import pytest

import fad
import fad.backends as backends
import fad.numpy as fnp
from fad.backends import Backend, BackendMismatchError, namespace_of


class Opaque:
    """An object that is no array of any kind."""


@pytest.mark.parametrize("call", [fnp.sin, fnp.sum, lambda x: fnp.add(x, 1.0),
                                  lambda x: fnp.add(np.ones(2), x), fnp.asarray])
def test_an_unknown_type_is_named_with_the_supported_ones(call):
    with pytest.raises(TypeError) as info:
        call(Opaque())
    msg = str(info.value)
    assert "test_backend_errors.Opaque" in msg and "no backend recognises it" in msg
    for supported in ("NumPy and CuPy arrays", "__array_namespace__", "__array__",
                      "Python numbers and nested lists", "numpy"):
        assert supported in msg


def test_an_unknown_type_inside_a_list_is_named():
    with pytest.raises(TypeError, match=r"object of type test_backend_errors\.Opaque"):
        fnp.array([1.0, Opaque()])
    with pytest.raises(TypeError, match=r"object of type builtins\.NoneType"):
        fnp.sin(None)


def test_an_unknown_type_under_a_transformation():
    with pytest.raises(TypeError, match=r"test_backend_errors\.Opaque .*no backend"):
        fad.grad(lambda x: fnp.sum(x * fnp.asarray(Opaque())))(np.ones(2))


def test_an_object_with_only_dlpack_is_pointed_to_from_dlpack():
    class OnlyDLPack:
        def __init__(self):
            self.a = np.arange(3.0)

        def __dlpack__(self, **kwargs):
            return self.a.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()
    x = OnlyDLPack()
    with pytest.raises(TypeError, match=r"OnlyDLPack as an array.*fnp\.from_dlpack\(x\)"):
        fnp.sin(x)
    np.testing.assert_allclose(fnp.sin(fnp.from_dlpack(x)), np.sin([0.0, 1.0, 2.0]))


def test_what_numpy_converts_still_works():
    class HasArray:
        def __array__(self, dtype=None, copy=None):
            return np.array([1.0, 2.0])
    np.testing.assert_allclose(fnp.sin(HasArray()), np.sin([1.0, 2.0]))
    assert fnp.sin([1.0, 2.0]).shape == (2,) and fnp.asarray(3).dtype == np.int64
    with pytest.raises(ValueError, match="inhomogeneous"):  # (NumPy's own message)
        fnp.asarray([[1.0], [2.0, 3.0]])


class _FakeCupyArray:
    """A stand-in for a CuPy array: its namespace is a module registered as the
    CuPy backend; it holds a NumPy array."""

    def __init__(self, data):
        self.data = np.asarray(data)
        self.shape, self.dtype, self.ndim = self.data.shape, self.data.dtype, self.data.ndim

    def __array_namespace__(self, api_version=None):
        return sys.modules["cupy"]


@pytest.fixture
def fake_cupy(monkeypatch):
    cupy = types.ModuleType("cupy")
    cupy.asarray = lambda x: _FakeCupyArray(x)
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setattr(backends, "_BY_TYPE", dict(backends._BY_TYPE))
    monkeypatch.setattr(backends, "_BY_NAMESPACE", dict(backends._BY_NAMESPACE))
    monkeypatch.setitem(backends._BACKENDS, "cupy", Backend("cupy", cupy))
    return cupy


def test_cupy_and_numpy_mixed_say_how_to_move(fake_cupy):
    with pytest.raises(BackendMismatchError) as info:
        namespace_of([_FakeCupyArray([1.0]), np.ones(1)])
    msg = str(info.value)
    assert "arrays from two backends (cupy and numpy)" in msg
    assert "cupy.asarray(x)" in msg and "x.get()" in msg


def test_cupy_and_numpy_mixed_in_a_fad_numpy_function(fake_cupy):
    with pytest.raises(BackendMismatchError) as info:  # (a TypeError)
        fnp.add(np.ones(2), _FakeCupyArray([1.0, 2.0]))
    msg = str(info.value)
    assert "primitive 'add'" in msg and "test_backend_errors.py" in msg
    assert "(numpy and cupy)" in msg and "cupy.asarray(x)" in msg and "x.get()" in msg
    assert isinstance(info.value, TypeError)


def test_other_backends_mixed_say_how_to_convert():
    xps = pytest.importorskip("array_api_strict")
    with pytest.raises(BackendMismatchError, match=r"\(array_api_strict and numpy\).*"
                                                   r"numpy\.from_dlpack\(x\)"):
        namespace_of([xps.ones(2), np.ones(2)])
