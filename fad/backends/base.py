"""The ``Backend`` object: an Array API namespace plus the few extras it lacks."""

from __future__ import annotations

from typing import Any

import numpy as np

# NumPy's names of primitives -> the Array API standard's, tried when a namespace
# lacks the former
_STANDARD_NAMES = {"left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift",
                   "invert": "bitwise_invert"}


class Backend:
    """An array namespace ``xp`` and the operations the Array API standard lacks.

    The generic fallbacks route through NumPy (``np.asarray`` / ``xp.asarray``),
    which is correct for any conforming namespace on the host; backends with a
    native version (NumPy, CuPy) override them.
    """

    def __init__(self, name: str, xp: Any):
        self.name = name
        self.xp = xp
        self._functions: dict[str, Any] = {}

    def function(self, primitive: str, path: str) -> Any:
        """The namespace's function at ``path`` (``'sin'``, ``'linalg.eigh'``...), or
        ``NotImplementedError`` naming ``primitive`` and this backend when it has none.

        >>> import numpy as np
        >>> Backend("plain", np).function("eigh", "linalg.eigh") is np.linalg.eigh
        True
        """
        f = self._functions.get(path)
        if f is None:
            f = self.xp
            for part in path.split("."):
                f = getattr(f, part, None)
                if f is None:
                    if path in _STANDARD_NAMES:
                        return self.function(primitive, _STANDARD_NAMES[path])
                    raise self.unsupported(primitive, f"the namespace has no {path}")
            self._functions[path] = f
        return f

    def index_add(self, shape: tuple, dtype: Any, index: tuple, values: Any) -> Any:
        """``out = zeros(shape); out[index] += values`` with repeated indices summed:
        on the backend for basic indexing (which never repeats an element), through
        the host for index arrays (the standard has no scatter-add)."""
        if _basic(index):
            xp = self.xp
            out = xp.zeros(shape, dtype=getattr(xp, numpy_dtype(dtype).name))
            try:
                out[index if any(i is Ellipsis for i in index) else index + (Ellipsis,)] = \
                    values
                return out
            except (IndexError, TypeError, ValueError):
                pass  # (None in the index...): through the host
        out = np.zeros(shape, dtype=np.dtype(str(dtype).split(".")[-1]))
        np.add.at(out, tuple(_host(i) for i in index), _host(values))
        return self.xp.asarray(out)

    def add_at(self, x: Any, index: tuple, values: Any, out: Any = None,
               sign: int = 1) -> Any:
        """``x ± index_add(x.shape, x.dtype, index, values)`` (the sign of ``sign``);
        NumPy adds in place into ``out`` (which may be ``x`` itself) instead."""
        scattered = self.index_add(x.shape, x.dtype, index, values)
        return x + scattered if sign > 0 else x - scattered

    def scatter(self, mode: str, x: Any, index: tuple, values: Any, out: Any = None) -> Any:
        """``x`` with ``values`` (``x[index]``'s shape and dtype) written at ``index``
        (``mode`` ``'set'``: the last of repeated places wins, as NumPy's assignment)
        or combined there (``'mul'``, ``'min'``, ``'max'``: every value, as
        ``np.multiply.at``...), as a new array (NumPy writes into ``out``, which may be
        ``x``). Basic indexing, which never writes a place twice, runs on the
        namespace (``x[index]`` read, combined and assigned); index arrays, which the
        standard cannot scatter, go through the host.

        >>> import numpy as np
        >>> from fad.backends import get_backend
        >>> at = (np.array([0, 0]),)
        >>> get_backend("numpy").scatter("min", np.ones(3), at, np.array([5.0, -1.0]))
        array([-1.,  1.,  1.])
        """
        if _basic(index):
            xp = self.xp
            full = index if any(i is Ellipsis for i in index) else index + (Ellipsis,)
            res = xp.asarray(x, copy=True)
            try:
                res[full] = values if mode == "set" else \
                    getattr(xp, _COMBINE[mode].__name__)(res[full], values)
                return res
            except (IndexError, TypeError, ValueError):
                pass  # (None in the index...): through the host
        res = np.array(_host(x))
        NUMPY.scatter(mode, res, tuple(_host(i) for i in index), _host(values), out=res)
        return self.xp.asarray(res)

    def getitem(self, x: Any, index: tuple) -> Any:
        """``x[index]``; NumPy index arrays become this namespace's, and advanced
        indexing beyond the standard goes through the host."""
        if not any(i is Ellipsis for i in index):
            index = index + (Ellipsis,)  # the standard wants every axis indexed
        try:
            return x[tuple(self.xp.asarray(i) if isinstance(i, np.ndarray) else i
                           for i in index)]
        except (IndexError, TypeError):  # advanced indexing beyond the standard
            return self.xp.asarray(_host(x)[tuple(_host(i) for i in index)])

    def einsum(self, spec: str, *operands: Any) -> Any:
        return self.xp.asarray(np.einsum(spec, *[_host(o) for o in operands]))

    def fft(self, kind: str, x: Any, n: int, axis: int, dtype: Any) -> Any:
        """``xp.fft.<kind>`` (``fft ifft rfft irfft``) along ``axis``, length ``n``,
        the result in ``dtype`` (a NumPy dtype). The standard's FFTs take complex
        input (real for ``rfft``): real input is made complex first.

        >>> import numpy as np, array_api_strict as xp
        >>> from fad.backends import get_backend
        >>> get_backend("array_api_strict").fft("fft", xp.ones(2), 2, 0, np.dtype("complex128"))
        Array([2.+0.j, 0.+0.j], dtype=array_api_strict.complex128)
        """
        module = getattr(self.xp, "fft", None)
        if module is None:
            raise self.unsupported("fft", "the namespace has no fft extension")
        xp, have = self.xp, numpy_dtype(x.dtype)
        if kind != "rfft" and have.kind != "c":
            x = xp.astype(x, xp.complex64 if have == np.float32 else xp.complex128)
        out = getattr(module, kind)(x, n=n, axis=axis)
        want = getattr(xp, np.dtype(dtype).name)
        return out if out.dtype == want else xp.astype(out, want)

    special_library: str | None = None  # the module holding its special functions
    absorbs_numpy = False  # whether NumPy arrays join this backend's operations (Dask)

    def elementwise(self, impl: Any, args: tuple) -> Any:
        """``impl(xp, *args)``, an elementwise implementation written against a
        namespace, run on this backend's arrays (a chunked backend runs it chunk
        by chunk on the chunks' own namespace instead).

        >>> from fad.backends import get_backend
        >>> get_backend("numpy").elementwise(lambda xp, x: xp.exp(x), (0.0,))
        np.float64(1.0)
        """
        return impl(self.xp, *args)

    def special(self, primitive: str) -> Any:
        """The special function ``primitive`` (``erf``, ``gammaln``...) of this
        backend's SciPy-like library (imported on first use), or
        ``NotImplementedError`` naming the primitive and the backend.

        >>> from fad.backends import get_backend
        >>> get_backend("numpy").special("erf").__name__
        'erf'
        """
        if self.special_library is None:
            raise self.unsupported(primitive, "special functions come from scipy.special "
                                   "(NumPy arrays) or cupyx.scipy.special (CuPy arrays)")
        import importlib
        return getattr(importlib.import_module(self.special_library), primitive)

    def unsupported(self, primitive: str, why: str = "") -> NotImplementedError:
        """The error for a primitive this backend cannot run (raise it).

        >>> from fad.backends import get_backend
        >>> str(get_backend("numpy").unsupported("erf", "no SciPy"))
        'the erf primitive has no implementation on the numpy backend: no SciPy'
        """
        return NotImplementedError(f"the {primitive} primitive has no implementation on the "
                                   f"{self.name} backend" + (f": {why}" if why else ""))

    def __repr__(self) -> str:
        return f"Backend({self.name})"


def numpy_dtype(dtype: Any) -> np.dtype:
    """The NumPy dtype of any namespace's dtype (``array_api_strict.float32``...).

    >>> numpy_dtype("float32")
    dtype('float32')
    """
    try:
        return np.dtype(dtype)
    except TypeError:  # array_api_strict and friends wrap their dtypes
        return np.dtype(str(dtype).split(".")[-1].rstrip("'>"))


def _host(x: Any) -> Any:
    if isinstance(x, slice | type(None) | type(Ellipsis) | int):
        return x
    return np.asarray(x)


# the ufunc that combines a place's values in each mode of ``Backend.scatter``
_COMBINE = {"mul": np.multiply, "min": np.minimum, "max": np.maximum}

_BASIC_ITEMS = (slice, int, type(None), type(Ellipsis))


def _basic(index: tuple) -> bool:
    """Whether ``index`` is basic indexing (no arrays), which never repeats an element."""
    for i in index:
        if not isinstance(i, _BASIC_ITEMS):
            return False
    return True


def take_form(index: tuple, ndim: int) -> tuple | None:
    """``(basic, array, axis)`` when ``x[index]`` is ``x[basic].take(array, axis)``:
    one integer array, not first, among slices and one ``...`` only. NumPy lays such
    a result out with the indexed axis outermost (``x[:, array]``); slicing first,
    then ``take``, gives the row-major layout (PyTorch's), and is faster."""
    at = None
    for p, i in enumerate(index):  # (the common index has no array: out at once)
        ti = type(i)
        if ti is np.ndarray or ti is list:
            if at is not None:
                return None
            at = p
    if not at:  # (none, or first: NumPy's own layout is row-major then)
        return None
    ellipsis, partial = None, False
    for p, i in enumerate(index):
        if p == at:
            continue
        if type(i) is slice:
            partial = partial or i != _WHOLE
        elif i is Ellipsis and ellipsis is None:
            ellipsis = p
        else:
            return None
    array = index[at] if type(index[at]) is np.ndarray else np.asarray(index[at])
    if array.dtype.kind not in "iu":
        return None
    axis = at if ellipsis is None or ellipsis > at else ndim - (len(index) - at)
    if axis <= 0 or axis >= ndim:
        return None
    basic = index[:at] + (_WHOLE,) + index[at + 1:] if partial else None
    return basic, array, axis


_WHOLE = slice(None)


class NumpyBackend(Backend):
    special_library = "scipy.special"

    def index_add(self, shape, dtype, index, values):
        out = np.zeros(shape, dtype=dtype)
        if _basic(index):
            out[index] = values  # basic indexing never repeats an element
        else:
            np.add.at(out, index, values)
        return out

    def add_at(self, x, index, values, out=None, sign=1):
        if out is None or out is values:  # (values would be overwritten first)
            out = x.copy()
        elif out is not x:
            out[...] = x
        if not _basic(index):
            (np.add if sign > 0 else np.subtract).at(out, index, values)
        elif sign > 0:  # basic indexing never repeats an element
            out[index] += values
        else:
            out[index] -= values
        return out

    def scatter(self, mode, x, index, values, out=None):
        if out is None or out is values or any(out is i for i in index):
            out = np.array(x)  # (a copy; an ndarray even for a NumPy scalar)
        elif out is not x:
            out[...] = x
        if mode == "set":
            out[index] = values  # NumPy assigns in order: the last of repeated places wins
        else:
            _COMBINE[mode].at(out, index, values)
        return out

    def getitem(self, x, index):
        form = take_form(index, x.ndim)
        if form is None:
            return x[index]
        basic, array, axis = form
        return (x if basic is None else x[basic]).take(array, axis=axis)

    def einsum(self, spec, *operands):
        return np.einsum(spec, *operands, optimize=len(operands) > 2)

    def fft(self, kind, x, n, axis, dtype):
        out = getattr(np.fft, kind)(x, n=n, axis=axis)
        return out if out.dtype == dtype else out.astype(dtype)  # NumPy computes in 128 bits


NUMPY = NumpyBackend("numpy", np)
