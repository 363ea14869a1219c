"""No implicit trip through the host: fad on a namespace whose arrays refuse
every conversion to NumPy (``__array__``, ``__array_interface__``,
``np.asarray``, ``float()`` of a non-0-d array, no ``__dlpack__``).

The namespace wraps ``array_api_strict``: each function unwraps its arguments,
calls the standard's function and wraps the results. ``grad``, ``jit(grad)``,
``vmap(grad)``, ``lax.scan`` and ``jacrev`` of a small MLP loss run end to end
on it and match NumPy.
"""

import types

import numpy as np
import pytest

import fad
import fad.numpy as fnp
from fad.backends import backend_for

strict = pytest.importorskip("array_api_strict")


class HostRefused(AssertionError):
    """A conversion of a guarded array to NumPy."""


def _unwrap(v):
    if isinstance(v, Guarded):
        return v._a
    if isinstance(v, tuple | list):
        return type(v)(_unwrap(u) for u in v)
    return v


def _wrap(v):
    if isinstance(v, strict.__dict__["asarray"](0).__class__):
        return Guarded(v)
    if isinstance(v, tuple):  # (named tuples of linalg too)
        return tuple(_wrap(u) for u in v)
    if isinstance(v, list):
        return [_wrap(u) for u in v]
    return v


def _forward(fn):
    def call(*args, **kwargs):
        return _wrap(fn(*_unwrap(args), **{k: _unwrap(a) for k, a in kwargs.items()}))
    call.__name__ = getattr(fn, "__name__", "fn")
    return call


def _namespace(name, source):
    ns = types.ModuleType(name)

    def attr(key):
        value = getattr(source, key)
        if isinstance(value, types.ModuleType):
            return _namespace(f"{name}.{key}", value)
        return _forward(value) if callable(value) and not isinstance(value, type) else value
    ns.__getattr__ = attr
    return ns


guarded = _namespace("guarded", strict)

_OPERATORS = ("add sub mul truediv floordiv mod pow matmul and or xor lt le gt ge eq ne "
              "radd rsub rmul rtruediv rfloordiv rmod rpow rmatmul rand ror rxor").split()


class Guarded:
    """An ``array_api_strict`` array that refuses to become a NumPy array."""

    __slots__ = ("_a",)

    def __init__(self, a):
        self._a = a

    def __array_namespace__(self, api_version=None):
        return guarded

    shape = property(lambda self: self._a.shape)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    dtype = property(lambda self: self._a.dtype)
    device = property(lambda self: self._a.device)
    T = property(lambda self: Guarded(self._a.T))
    mT = property(lambda self: Guarded(self._a.mT))

    def __array__(self, *args, **kwargs):
        raise HostRefused("__array__ of a guarded array")

    @property
    def __array_interface__(self):
        raise HostRefused("__array_interface__ of a guarded array")

    def __float__(self):
        if self._a.ndim:
            raise HostRefused("float() of a guarded array that is not 0-d")
        return float(self._a)

    def __bool__(self):
        return bool(self._a)

    def __int__(self):
        return int(self._a)

    def __index__(self):
        return self._a.__index__()

    def __len__(self):
        return len(self._a)

    def __neg__(self):
        return Guarded(-self._a)

    def __pos__(self):
        return self

    def __abs__(self):
        return Guarded(abs(self._a))

    def __getitem__(self, key):
        return Guarded(self._a[_unwrap(key)])

    def __setitem__(self, key, value):
        self._a[_unwrap(key)] = _unwrap(value)

    def __repr__(self):
        return f"Guarded({self._a!r})"


def _operator(name):
    def op(self, other):
        if not isinstance(other, Guarded | bool | int | float | complex):
            return NotImplemented
        return _wrap(getattr(self._a, f"__{name}__")(_unwrap(other)))
    return op


for _name in _OPERATORS:
    setattr(Guarded, f"__{_name}__", _operator(_name))


def put(x):
    return Guarded(strict.asarray(np.asarray(x)))


def take(x):
    """The host copy the test itself makes, by the back door."""
    return np.asarray(x._a) if isinstance(x, Guarded) else np.asarray(x)


@pytest.fixture(autouse=True)
def guarded_default_backend():
    """Constants fad makes with no array to follow come from the default backend."""
    fad.set_backend(backend_for(guarded).name)
    yield
    fad.set_backend("numpy")


def on_numpy(fn, *args):
    """``fn(*args)`` with NumPy as the default backend: the reference run."""
    fad.set_backend("numpy")
    try:
        return fn(*args)
    finally:
        fad.set_backend(backend_for(guarded).name)


def loss(params, x, y):
    w1, b1, w2 = params
    h = fnp.tanh(x @ w1 + b1)
    return fnp.mean((h @ w2 - y) ** 2)


def problem():
    rng = np.random.default_rng(0)
    params = [rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal((4, 2))]
    x, y = rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    return params, x, y


def close(got, want):
    for g, w in zip(got, want):
        assert isinstance(g, Guarded), type(g)
        np.testing.assert_allclose(take(g), w, rtol=1e-12, atol=1e-12)


def test_the_guard_refuses_the_host():
    x = put([1.0, 2.0])
    for convert in (np.asarray, np.array, lambda v: float(v)):
        with pytest.raises(HostRefused):
            convert(x)
    assert not hasattr(x, "__dlpack__")


def test_grad_and_jit_grad():
    params, x, y = problem()
    want = on_numpy(fad.grad(loss), params, x, y)
    gp, gx, gy = [put(p) for p in params], put(x), put(y)
    close(fad.grad(loss)(gp, gx, gy), want)
    close(fad.jit(fad.grad(loss))(gp, gx, gy), want)


def test_vmap_grad_per_example():
    params, x, y = problem()
    per = lambda p, xi, yi: loss(p, xi[None], yi[None])
    want = on_numpy(fad.vmap(fad.grad(per), in_axes=(None, 0, 0)), params, x, y)
    got = fad.vmap(fad.grad(per), in_axes=(None, 0, 0))([put(p) for p in params], put(x),
                                                         put(y))
    close(got, want)


def test_scan_of_sgd_steps():
    params, x, y = problem()

    def step(p, _):
        g = fad.grad(loss)(p, x_, y_)
        return [w - 0.1 * d for w, d in zip(p, g)], loss(p, x_, y_)

    x_, y_ = x, y
    want_p, want_l = on_numpy(lambda: fad.lax.scan(step, params, None, length=3))
    x_, y_ = put(x), put(y)
    got_p, got_l = fad.lax.scan(step, [put(p) for p in params], None, length=3)
    close(got_p, want_p)
    close([got_l], [want_l])


def test_jacrev_of_the_outputs():
    params, x, y = problem()
    out = lambda w1, x: fnp.tanh(x @ w1 + params[1]) @ params[2]
    want = on_numpy(fad.jacrev(out), params[0], x)
    got = fad.jacrev(lambda w1, x: fnp.tanh(x @ w1 + put(params[1])) @ put(params[2]))(
        put(params[0]), put(x))
    close([got], [want])


def test_grad_through_slices_scatters_on_the_backend():
    x = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    f = lambda x: fnp.sum(fnp.sin(x[:, 1:]) * x[::-1, :2] + x[0, :2] ** 2)
    want = on_numpy(fad.grad(f), x)
    close([fad.grad(f)(put(x))], [want])


def test_indexed_updates_and_their_gradients_run_on_the_backend():
    """``x.at[slices].set/multiply/min/max``, eager, jitted and differentiated."""
    def f(x):
        y = fnp.at(x)[1:3].multiply(x[0:2])
        y = fnp.at(y)[0].set(fnp.sin(x[3]))
        y = fnp.at(y)[2:].max(0.5)
        return fnp.sum(fnp.at(y)[:2].min(x[2:]) ** 2)
    x = np.array([0.3, -1.2, 0.7, 2.0])
    close([f(put(x)), fad.jit(f)(put(x))], [on_numpy(f, x)] * 2)
    close([fad.grad(f)(put(x)), fad.jit(fad.grad(f))(put(x))], [on_numpy(fad.grad(f), x)] * 2)
