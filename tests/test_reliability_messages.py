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


# ---------------------------------------------------------------- the allocator switch
_FAULTS = """
import json, resource, sys
import numpy as np
import fad

def faults():  # page faults per 1 MiB array allocated and freed
    for _ in range(20):
        np.ones(1 << 17)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(50):
        np.ones(1 << 17)
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 50

seen = [fad.config.fad_tune_malloc, faults()]
for value in json.loads(sys.argv[1]):
    fad.config.update("fad_tune_malloc", value)
    seen += [fad.config.fad_tune_malloc, faults()]
print(json.dumps(seen))
"""


def _switch(steps: list, **env: str) -> list:
    import json
    import os
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", _FAULTS, json.dumps(steps)], check=True,
                         capture_output=True, text=True, cwd=os.path.dirname(fad.__path__[0]),
                         env={**os.environ, "PYTHONPATH": os.path.dirname(fad.__path__[0]),
                              **env})
    return json.loads(out.stdout)


def _glibc() -> bool:
    import platform
    return platform.libc_ver()[0] == "glibc"


@pytest.mark.skipif(not _glibc(), reason="glibc's malloc only")
def test_the_allocator_switch_turns_tuning_off_and_on_at_run_time(monkeypatch):
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    on, f_on, off, f_off, again, f_again = _switch([False, True], FAD_TUNE_MALLOC="1")
    assert (on, off, again) == (True, False, True)
    # off: glibc's starting thresholds, its sliding threshold stays off (mallopt
    # turned it off): a 1 MiB array is mmap-ed and faulted in afresh (256 pages)
    assert f_on < 16 and f_off > 128 and f_again < 16, (f_on, f_off, f_again)


@pytest.mark.skipif(not _glibc(), reason="glibc's malloc only")
def test_fad_tune_malloc_0_starts_off_and_the_switch_turns_it_on(monkeypatch):
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    start, f_start, on, f_on = _switch([True], FAD_TUNE_MALLOC="0")
    assert (start, on) == (False, True) and f_on < 16, f_on


def test_the_users_malloc_variables_win_over_the_switch(monkeypatch):
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "131072")
    assert _switch([True, False])[::2] == [False, False, False]


def test_config_names_its_options():
    with pytest.raises(AttributeError, match="fad_tune_malloc"):
        fad.config.update("fad_tune_maloc", False)
    with pytest.raises(TypeError, match="bool"):
        fad.config.update("fad_tune_malloc", "no")
