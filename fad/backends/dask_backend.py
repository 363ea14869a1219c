"""The Dask backend (``pip install fad[dask]``): ``dask.array`` arrays, computed lazily.

Every primitive applied to a Dask array returns a Dask array: nothing is
computed until the caller asks (``.compute()``, or a ``distributed.Client``).
NumPy arrays mix with Dask arrays as in Dask itself (a NumPy operand becomes a
single-chunk Dask array), so a gradient with respect to NumPy weights of a loss
over chunked Dask data is a lazy Dask array.

``dask.array`` follows NumPy's names rather than the Array API standard's; the
namespace here (``DaskNamespace``) supplies the standard's names fad's
primitives call (``asin``, ``atan2``, ``pow``, ``concat``, ``permute_dims``,
``astype``...) on top of ``dask.array``. Indexing with several NumPy index
arrays and scatter-add at NumPy index arrays (the gradient of such indexing)
stay lazy: the flat positions are worked out on the host from the index alone,
and the values never leave Dask. What Dask cannot do lazily (sorting, index
arrays that are themselves Dask arrays, ``unique_values``, ``linalg.det`` and
``eigh``...) raises ``NotImplementedError`` naming the primitive and the
backend; no data goes through the host.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from .base import Backend, _basic, numpy_dtype

# the standard's name -> dask.array's
_RENAMED = {
    "asin": "arcsin", "acos": "arccos", "atan": "arctan", "atan2": "arctan2",
    "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh", "pow": "power",
    "bitwise_left_shift": "left_shift", "bitwise_right_shift": "right_shift",
    "bitwise_invert": "invert", "concat": "concatenate", "permute_dims": "transpose",
}
# what dask.array cannot do lazily: the primitive's name -> why. These names
# raise NotImplementedError naming the primitive and the backend when called.
_NOT_LAZY = {
    "sort": "dask.array has no sort (only topk, which needs k)",
    "argsort": "dask.array has no argsort",
    "take_along_axis": "dask.array has no take_along_axis",
    "from_dlpack": "a Dask array is a graph of chunks, not one buffer",
    **dict.fromkeys(["unique_values", "unique_counts", "unique_inverse", "unique_all",
                     "nonzero"], "the result's shape depends on the values"),
}
_ABSENT = frozenset({"unique", "argwhere", "flatnonzero", *_NOT_LAZY})


def _not_lazy(name: str) -> Any:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"the {name} primitive has no implementation on the "
                                  f"dask backend: {_NOT_LAZY[name]}")
    refuse.__name__ = name
    return refuse


def _lifting(f: Any) -> Any:
    """``f`` with its NumPy array arguments made Dask arrays first (``jit``'s
    generated code hands the namespace's functions NumPy inputs as they come,
    and some of dask.array's functions take Dask arrays only)."""
    import dask.array as da

    def call(*args: Any, **kwargs: Any) -> Any:
        return f(*[da.asarray(a) if type(a) is np.ndarray else a for a in args], **kwargs)
    call.__name__ = getattr(f, "__name__", "call")
    call.__doc__ = getattr(f, "__doc__", None)
    return call


class _DaskLinalg(types.ModuleType):
    """``dask.array.linalg`` with the standard's ``svdvals``."""

    def __init__(self, linalg: Any) -> None:
        super().__init__("dask.array.linalg")
        self._linalg = linalg

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._linalg, name)

    def svdvals(self, x: Any, /) -> Any:
        return self._linalg.svd(x)[1]


class DaskNamespace(types.ModuleType):
    """``dask.array`` under the Array API standard's names.

    >>> import dask.array as da
    >>> from fad.backends.dask_backend import DaskNamespace
    >>> xp = DaskNamespace()
    >>> xp.atan2(da.ones(2, chunks=1), 1.0).compute().round(4).tolist()
    [0.7854, 0.7854]
    """

    def __init__(self) -> None:
        super().__init__("dask.array", "dask.array under the Array API standard's names")
        import dask.array as da
        self._da = da
        for name, theirs in _RENAMED.items():
            setattr(self, name, _lifting(getattr(da, theirs)))
        for name in _NOT_LAZY:
            setattr(self, name, _not_lazy(name))
        self.linalg = _DaskLinalg(da.linalg)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name in _ABSENT:
            raise AttributeError(name)
        f = getattr(self._da, name)
        if callable(f) and not isinstance(f, type):
            f = _lifting(f)
        setattr(self, name, f)  # looked up once
        return f

    @staticmethod
    def astype(x: Any, dtype: Any, /, *, copy: bool = True) -> Any:
        return x.astype(numpy_dtype(dtype))

    def asarray(self, obj: Any, /, *, dtype: Any = None, copy: bool | None = None,
                device: Any = None) -> Any:
        a = self._da.asarray(obj, dtype=None if dtype is None else numpy_dtype(dtype))
        return a.copy() if copy and a is obj else a

    def eye(self, n_rows: int, n_cols: int | None = None, /, *, k: int = 0,
            dtype: Any = None, device: Any = None) -> Any:
        return self._da.eye(n_rows, M=n_cols, k=k,
                            dtype=float if dtype is None else numpy_dtype(dtype))

    def matrix_transpose(self, x: Any, /) -> Any:
        return self._da.swapaxes(x, -1, -2)

    def vecdot(self, x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
        return self._da.sum(self._da.conj(x1) * x2, axis=axis)

    def cumulative_sum(self, x: Any, /, *, axis: int | None = None, dtype: Any = None,
                       include_initial: bool = False) -> Any:
        return self._cumulative(self._da.cumsum, 0, x, axis, dtype, include_initial)

    def cumulative_prod(self, x: Any, /, *, axis: int | None = None, dtype: Any = None,
                        include_initial: bool = False) -> Any:
        return self._cumulative(self._da.cumprod, 1, x, axis, dtype, include_initial)

    def _cumulative(self, f: Any, initial: int, x: Any, axis: int | None, dtype: Any,
                    include_initial: bool) -> Any:
        if axis is None:
            if x.ndim > 1:
                raise ValueError("axis is required for arrays of more than one dimension")
            axis = 0
        out = f(x, axis=axis, dtype=None if dtype is None else numpy_dtype(dtype))
        if include_initial:
            shape = list(out.shape)
            shape[axis] = 1
            first = self._da.full(tuple(shape), initial, dtype=out.dtype)
            out = self._da.concatenate([first, out], axis=axis)
        return out

    @staticmethod
    def isdtype(dtype: Any, kind: Any) -> bool:
        return np.isdtype(numpy_dtype(dtype), kind)

    finfo = staticmethod(np.finfo)
    iinfo = staticmethod(np.iinfo)


class DaskBackend(Backend):
    """``dask.array`` as a fad backend: lazy everywhere, never through the host.

    >>> import dask.array as da
    >>> from fad.backends import get_backend
    >>> b = get_backend("dask")
    >>> b.index_add((4,), "float64", (slice(1, 3),), da.ones(2, chunks=1)).compute().tolist()
    [0.0, 1.0, 1.0, 0.0]
    """

    special_library = "scipy.special"  # its ufuncs map over Dask arrays lazily
    absorbs_numpy = True  # NumPy operands join a Dask operation (Dask's own rule)

    def index_add(self, shape: tuple, dtype: Any, index: tuple, values: Any) -> Any:
        if not _basic(index):
            return self._scatter_add(shape, numpy_dtype(dtype), index, values)
        out = self.xp.zeros(shape, dtype=numpy_dtype(dtype))
        index = tuple(i for i in index if i is not None)  # setitem takes no new axes
        values = self.xp.asarray(values)
        target = out[index]
        out[index] = self.xp.reshape(values, target.shape) \
            if values.shape != target.shape and values.size == target.size else values
        return out

    def _scatter_add(self, shape: tuple, dtype: np.dtype, index: tuple, values: Any) -> Any:
        """Scatter-add at NumPy index arrays, lazily: the flat position of each
        element of ``zeros(shape)[index]`` is found on the host from the index
        alone (the values never leave Dask), then ``dask.array.bincount`` sums
        the values landing on each position (repeated indices summed)."""
        if any(self.is_dask(i) for i in index):
            raise self.unsupported(
                "scatter_add", "adding at Dask index arrays would compute them; index "
                "with NumPy arrays, slices and integers")
        da = self.xp._da
        size = int(np.prod(shape, dtype=np.int64))
        positions = np.arange(size, dtype=np.int64).reshape(shape)[index]
        values = da.broadcast_to(da.asarray(values), positions.shape).ravel()
        at = da.from_array(positions.ravel(), chunks=values.chunks)

        def summed(weights: Any) -> Any:
            return da.bincount(at, weights=weights, minlength=size)
        if dtype.kind == "c":
            out = summed(da.real(values)) + 1j * summed(da.imag(values))
        else:
            out = summed(values)
        return out.astype(dtype).reshape(shape)

    def scatter(self, mode: str, x: Any, index: tuple, values: Any, out: Any = None) -> Any:
        if not _basic(index):
            raise self.unsupported(f"scatter ({mode})", "writing at index arrays would "
                                   "compute the array; index with slices and integers")
        return super().scatter(mode, x, tuple(i for i in index if i is not None), values)

    @staticmethod
    def is_dask(x: Any) -> bool:
        """Whether ``x`` is a Dask array.

        >>> import numpy as np
        >>> DaskBackend.is_dask(np.ones(2))
        False
        """
        return is_dask_array(type(x))

    def special(self, primitive: str) -> Any:
        """The special function of ``scipy.special``, mapped over a Dask array's
        chunks lazily (broadcasting its operands, as a ufunc does).

        >>> import dask.array as da
        >>> from fad.backends import get_backend
        >>> f = get_backend("dask").special("polygamma")
        >>> float(f(0, da.ones(2, chunks=1)).sum().compute().round(4))
        -1.1544
        """
        f = super().special(primitive)
        if isinstance(f, np.ufunc):
            return f  # its __array_ufunc__ maps it over the chunks
        from dask.array.core import elemwise

        def mapped(*args: Any, **kwargs: Any) -> Any:
            return elemwise(f, *args, **kwargs)
        return mapped

    def elementwise(self, impl: Any, args: tuple) -> Any:
        """``impl`` run chunk by chunk on the chunks' namespace (NumPy, or CuPy on
        GPU clusters), as one blockwise Dask operation: Dask fuses a chain of
        them into one task per chunk, and each chunk gets NumPy's fast path
        (``logistic`` in place: four passes over memory instead of eight).

        >>> import dask.array as da
        >>> from fad.backends import get_backend
        >>> exp = lambda xp, x: xp.exp(x)
        >>> get_backend("dask").elementwise(exp, (da.zeros(4, chunks=2),)).sum().compute()
        np.float64(4.0)
        """
        from dask.array.core import elemwise

        from . import namespace_of
        chunk_xp = namespace_of([getattr(a, "_meta", a) for a in args])
        return elemwise(lambda *chunks: impl(chunk_xp, *chunks), *args)

    def getitem(self, x: Any, index: tuple) -> Any:
        try:
            return x[index]  # slices, integers, one NumPy index array: lazily
        except (IndexError, TypeError, ValueError, NotImplementedError, AssertionError) as e:
            if any(self.is_dask(i) for i in index):
                raise self.unsupported("gather", f"dask.array cannot index with {index!r}: "
                                       f"{e}") from e
        # several index arrays: the flat position of each picked element, found on
        # the host from the index alone, taken from the raveled array (lazily)
        positions = np.arange(x.size, dtype=np.int64).reshape(x.shape)[index]
        return self.xp.reshape(x, (-1,))[positions.ravel()].reshape(positions.shape)

    def einsum(self, spec: str, *operands: Any) -> Any:
        return self.xp.einsum(spec, *operands)

    def fft(self, kind: str, x: Any, n: int, axis: int, dtype: Any) -> Any:
        # dask.array's FFTs want the transformed axis in one chunk
        x = x.rechunk({axis % x.ndim: -1})
        return super().fft(kind, x, n, axis, dtype)


def make_dask_backend() -> Backend:
    """Import ``dask.array`` and return its backend (a clear error without Dask).

    >>> make_dask_backend().name
    'dask'
    """
    try:
        ns = DaskNamespace()
    except ImportError as e:
        raise RuntimeError(f"the Dask backend is unavailable here: {e}; pip install "
                           "'fad[dask]'") from e
    return DaskBackend("dask", ns)


def is_dask_array(tp: type) -> bool:
    """Whether ``tp`` is ``dask.array.Array`` (tested without importing Dask).

    >>> is_dask_array(float)
    False
    """
    return tp.__name__ == "Array" and tp.__module__ == "dask.array.core"
