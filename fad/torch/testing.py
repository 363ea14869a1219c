"""``torch.testing.assert_close``: tensors (and numbers, NumPy arrays, and lists,
tuples and dicts of them) equal within tolerances chosen by dtype, with PyTorch's
messages. The comparison reads the values on the host; it records nothing.

>>> import fad.torch as torch
>>> torch.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-7]))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Callable

import numpy as np

from ._graph import host
from .tensor import Tensor

__all__ = ["assert_close"]

# (rtol, atol) by dtype, PyTorch's: the integers and booleans compare exactly
_TOLERANCES = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
               "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True,
                 rtol: float | None = None, atol: float | None = None,
                 equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True,
                 check_stride: bool = False, msg: str | Callable | None = None) -> None:
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` have the same shape
    (and dtype, with ``check_dtype``) and every element satisfies ``|actual -
    expected| <= atol + rtol * |expected|`` (NaN equal to NaN with ``equal_nan``);
    ``rtol`` and ``atol`` default to the dtype's (exact for integers).

    >>> import fad.torch as torch
    >>> try:
    ...     torch.testing.assert_close(torch.tensor([1.0, 3.0]), torch.tensor([1.0, 3.5]))
    ... except AssertionError as e:
    ...     print(str(e).splitlines()[0])
    Tensor-likes are not close!
    """
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but "
                         f"got no {'atol' if atol is None else 'rtol'}.")
    _compare(actual, expected, "", rtol, atol, equal_nan, check_dtype, msg)


def _compare(actual: Any, expected: Any, where: str, rtol: float | None, atol: float | None,
             equal_nan: bool, check_dtype: bool, msg: Any) -> None:
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        _same("keys", sorted(actual, key=repr), sorted(expected, key=repr), where, msg)
        for k in actual:
            _compare(actual[k], expected[k], f"{where}[{k!r}]", rtol, atol, equal_nan,
                     check_dtype, msg)
        return
    if _is_sequence(actual) and _is_sequence(expected):
        _same("length", len(actual), len(expected), where, msg)
        for k, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, f"{where}[{k}]", rtol, atol, equal_nan, check_dtype, msg)
        return
    kinds = (_kind(actual), _kind(expected))
    if None in kinds or kinds[0] != kinds[1]:
        raise TypeError(f"No comparison pair was able to handle inputs of type "
                        f"{type(actual)} and {type(expected)}.")
    a, e = _values(actual), _values(expected)
    if kinds[0] == "tensor":
        _same("shape", actual.shape, expected.shape, where, msg)
        if check_dtype:
            _same("dtype", actual.dtype, expected.dtype, where, msg)
    elif a.shape != e.shape:
        _same("shape", a.shape, e.shape, where, msg)
    if rtol is None:
        rtol, atol = _default_tolerances(a.dtype, e.dtype)
    scalar = kinds[0] == "number" or a.ndim == 0
    _close(a, e, float(rtol), float(atol), equal_nan, scalar, where, msg)


def _is_sequence(x: Any) -> bool:
    return isinstance(x, Sequence) and not isinstance(x, str)


def _kind(x: Any) -> str | None:
    if isinstance(x, Tensor):
        return "tensor"
    if isinstance(x, np.ndarray):
        return "array"
    if isinstance(x, bool | int | float | complex):
        return "number"
    return None


def _values(x: Any) -> np.ndarray:
    return np.asarray(host(x._value) if isinstance(x, Tensor) else x)


def _default_tolerances(*dtypes: np.dtype) -> tuple[float, float]:
    """The loosest of the dtypes' tolerances (exact for integers and booleans)."""
    pairs = [_TOLERANCES.get(np.dtype(d).name, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _same(what: str, got: Any, want: Any, where: str, msg: Any) -> None:
    if got != want:
        _fail(f"The values for attribute '{what}' do not match: {got} != {want}.", where, msg)


def _fail(text: str, where: str, msg: Any) -> None:
    if where:
        text += f"\n\nThe failure occurred for item {where}"
    if msg is not None:
        text = msg(text) if callable(msg) else msg
    raise AssertionError(text)


def _close(a: np.ndarray, e: np.ndarray, rtol: float, atol: float, equal_nan: bool,
           scalar: bool, where: str, msg: Any) -> None:
    exact = rtol == 0 and atol == 0
    with np.errstate(invalid="ignore", over="ignore"):
        ok = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan) if a.size else \
            np.ones(a.shape, bool)
    if ok.all():
        return
    allowed = (lambda t: "") if exact else (lambda t: f" (up to {t} allowed)")
    verb = "equal" if exact else "close"
    if scalar:
        got, want = a.item(), e.item()
        diff = abs(got - want)
        relative = diff / abs(want) if want else float("inf") if diff else 0.0
        _fail(f"Scalars are not {verb}!\n\nExpected {want} but got {got}.\n"
              f"Absolute difference: {diff}{allowed(atol)}\n"
              f"Relative difference: {relative}{allowed(rtol)}", where, msg)
    # the differences in the compared dtype (integers' relative ones in float32, as
    # PyTorch's default float)
    kind = np.result_type(a, e)
    work = kind if kind.kind in "fc" else np.dtype(np.float32)
    with np.errstate(all="ignore"):
        diff = np.abs(a.astype(work) - e.astype(work))
        relative = diff / np.abs(e.astype(work))
        if kind.kind not in "fc":
            diff = np.abs(a.astype(np.int64) - e.astype(np.int64))
    bad = int((~ok).sum())
    lines = [f"Tensor-likes are not {verb}!", "",
             f"Mismatched elements: {bad} / {ok.size} ({100 * bad / ok.size:.1f}%)"]
    for label, values, tol in (("absolute", diff, atol), ("relative", relative, rtol)):
        flat = np.where(ok, 0, values).ravel()
        at = int(np.argmax(np.isnan(flat))) if np.isnan(flat).any() else int(np.argmax(flat))
        index = tuple(int(i) for i in np.unravel_index(at, values.shape))
        lines.append(f"Greatest {label} difference: {flat[at].item()} at index {index}"
                     f"{allowed(tol)}")
    _fail("\n".join(lines), where, msg)
