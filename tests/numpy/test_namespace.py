"""Every public NumPy name is either provided by ``fad.numpy`` or raises
``NotImplementedError`` naming itself; and each public module of fad shows, in
``dir()``, exactly its ``__all__`` (no private names, no imported helpers)."""

import importlib

import numpy as np
import pytest

import fad
import fad.numpy as fnp

PUBLIC_NUMPY = sorted(n for n in dir(np) if not n.startswith("_"))
PROVIDED = set(dir(fnp))


@pytest.mark.parametrize("name", PUBLIC_NUMPY)
def test_each_public_numpy_name_is_provided_or_names_itself(name):
    if name in PROVIDED:
        assert getattr(fnp, name) is not None or name == "newaxis"
        return
    with pytest.raises(NotImplementedError, match=rf"fad\.numpy\.{name} is not provided"):
        getattr(fnp, name)
    assert not hasattr(fnp, name)  # also an AttributeError: feature detection says "absent"


def test_random_is_numpys_own_module():
    # as autograd.numpy.random: draws are plain arrays (constants to fad); fad.random has keys
    import fad.numpy.random as npr
    assert fnp.random is np.random and npr is np.random
    assert "random" in dir(fnp)
    x = npr.RandomState(0).randn(3)
    assert isinstance(x, np.ndarray)
    np.testing.assert_array_equal(fad.grad(lambda a: fnp.sum(a * x))(np.ones(3)), x)


def test_submodules_point_to_their_replacements():
    with pytest.raises(NotImplementedError, match="masked arrays"):
        fnp.ma
    with pytest.raises(AttributeError, match="no attribute 'no_such_function'") as info:
        fnp.no_such_function
    assert not isinstance(info.value, NotImplementedError)
    assert getattr(fnp, "polydiv", None) is None


def test_newly_provided_names_are_no_longer_stubs():
    for name in ("polyval", "polyfit", "roots", "unwrap", "histogram", "intersect1d",
                 "union1d", "setdiff1d", "setxor1d", "r_", "c_", "seterr", "geterr",
                 "seterrcall", "geterrcall", "errstate", "iscomplex", "isreal",
                 "isrealobj", "real_if_close"):
        assert name in fnp.__all__, name
    for name in ("fftn", "ifftn", "rfftn", "irfftn", "rfft2", "irfft2", "hfft", "ihfft",
                 "fftshift", "ifftshift", "fftfreq", "rfftfreq"):
        assert name in fnp.fft.__all__ and hasattr(np.fft, name), name
    assert {"eig", "eigvals"} <= set(fnp.linalg.__all__)


PUBLIC_MODULES = ["fad", "fad.numpy", "fad.numpy.fft", "fad.numpy.linalg", "fad.lax",
                  "fad.nn", "fad.scipy", "fad.scipy.special", "fad.random", "fad.optim",
                  "fad.debug", "fad.tree", "fad.config", "fad.misc", "fad.scipy.stats",
                  "fad.scipy.linalg", "fad.scipy.signal", "fad.scipy.integrate",
                  "fad.nn.initializers", "fad.flatten_util", "fad.experimental",
                  "fad.experimental.ode", "fad.testing", "fad.viz"]
PUBLIC_MODULES += [f"fad.scipy.stats.{d}"
                   for d in importlib.import_module("fad.scipy.stats").__all__]
LAZY = {"fad": {"viz", "torch", "testing", "scipy"}}  # submodules loaded on first use


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_dir_shows_exactly_the_public_names(module):
    mod = importlib.import_module(module)
    names = set(mod.__all__)
    assert len(names) == len(mod.__all__), "__all__ has duplicates"
    missing = [n for n in mod.__all__ if not hasattr(mod, n)]
    assert not missing, f"{module}.__all__ names what it lacks: {missing}"
    shown = {n for n in dir(mod) if not n.startswith("__")}
    private = sorted(n for n in shown if n.startswith("_"))
    assert not private, f"dir({module}) shows private names {private}"
    extra = sorted(shown - names - LAZY.get(module, set()))
    assert not extra, f"dir({module}) shows names outside __all__: {extra}"
    for helper in ("Any", "np", "annotations"):
        assert helper not in shown


def test_fad_lazy_submodules_are_listed_and_load():
    assert {"numpy", "lax", "nn", "scipy", "viz"} <= set(dir(fad))
    assert fad.scipy.special.erf is not None
