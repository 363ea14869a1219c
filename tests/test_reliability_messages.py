"""Reliability of the edges: backends found by identity, the allocator switch,
pytree messages and depth, shape hints under ``jit``, hints naming real functions."""

from __future__ import annotations

import types

import numpy as np
import pytest

import fad
import fad.numpy as fnp
from fad import backends


# ---------------------------------------------------------------- backends by identity
class _FakeArray:
    """An array whose namespace is a module that calls itself ``numpy``."""

    def __init__(self, data: object):
        self.data = np.asarray(data)

    def __array_namespace__(self, api_version: object = None) -> types.ModuleType:
        return _FAKE

    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        return self.data if dtype is None else self.data.astype(dtype)

    shape = property(lambda self: self.data.shape)
    dtype = property(lambda self: self.data.dtype)
    ndim = property(lambda self: self.data.ndim)


_FAKE = types.ModuleType("numpy")
_FAKE.asarray = lambda x, **kw: _FakeArray(np.asarray(x))
_FAKE.zeros = lambda shape, **kw: _FakeArray(np.zeros(shape, **kw))
_FAKE.sin = lambda x: _FakeArray(np.sin(x.data))


@pytest.fixture
def clean_registry(monkeypatch):
    monkeypatch.setattr(backends, "_BACKENDS", dict(backends._BACKENDS))
    monkeypatch.setattr(backends, "_BY_NAMESPACE", dict(backends._BY_NAMESPACE))
    monkeypatch.setattr(backends, "_BY_TYPE", dict(backends._BY_TYPE))


def test_a_namespace_named_numpy_does_not_replace_numpy(clean_registry):
    numpy_backend = backends.get_backend("numpy")
    a = _FakeArray([1.0, 2.0, 3.0])
    out = fnp.einsum("i,i->", a, a)  # a primitive that asks for the backend's extras
    assert isinstance(out, _FakeArray) and float(np.asarray(out)) == 14.0
    fake = backends.backend_for(_FAKE)
    assert fake.xp is _FAKE and fake.name != "numpy" and fake is not numpy_backend
    assert backends.get_backend("numpy") is numpy_backend
    assert backends.backend_for(np) is numpy_backend and numpy_backend.xp is np
    fad.set_backend("numpy")
    assert backends.default_xp() is np
    assert type(fnp.zeros(3)) is np.ndarray
    g = fad.grad(lambda x: fnp.sum(fnp.sin(x) * fnp.ones(3)))(np.ones(3))
    assert type(g) is np.ndarray
    np.testing.assert_allclose(g, np.cos(np.ones(3)))


def test_two_namespaces_with_one_name_get_two_backends(clean_registry):
    other = types.ModuleType("numpy")
    first, second = backends.backend_for(_FAKE), backends.backend_for(other)
    assert first is not second and first.xp is _FAKE and second.xp is other
    assert len({"numpy", first.name, second.name}) == 3
    assert backends.get_backend(first.name) is first
    assert backends.backend_for(_FAKE) is first  # found again by identity
