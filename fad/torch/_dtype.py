"""PyTorch's dtypes (``torch.float32``...) over NumPy dtypes, and PyTorch's type
promotion (which differs from NumPy's: ``int64 + float32 -> float32``,
dimensioned tensors win over 0-d tensors and Python scalars of the same kind)."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np


class dtype:
    """A PyTorch dtype; ``repr`` is ``torch.float32``."""

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize")

    def __init__(self, name: str, np_dtype: Any):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.is_complex = self.np.kind == "c"
        self.is_signed = self.np.kind in "fci"
        self.itemsize = self.np.itemsize

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> str:
        return self.name

    def to_real(self) -> "dtype":
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    def to_complex(self) -> "dtype":
        return {"float32": complex64, "float64": complex128}.get(self.name, self)



dtype.__module__ = "fad.torch"  # (PyTorch's prints as ``torch.dtype``)

float32 = float = dtype("float32", np.float32)
float64 = double = dtype("float64", np.float64)
float16 = half = dtype("float16", np.float16)
int64 = long = dtype("int64", np.int64)
int32 = int = dtype("int32", np.int32)
int16 = short = dtype("int16", np.int16)
int8 = dtype("int8", np.int8)
uint8 = dtype("uint8", np.uint8)
bool = dtype("bool", np.bool_)
complex64 = cfloat = dtype("complex64", np.complex64)
complex128 = cdouble = dtype("complex128", np.complex128)

ALL = (float32, float64, float16, int64, int32, int16, int8, uint8, bool, complex64,
       complex128)
# PyTorch's word for each dtype in its messages; its legacy type names add "Tensor"
TYPE_WORDS = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
              "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
              "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def type_word(d: dtype) -> str:
    """PyTorch's word for dtype ``d`` in its messages (``Float``, ``Long``...)."""
    return TYPE_WORDS.get(d.name, d.name)


# C++'s names of the dtypes, which some of PyTorch's messages print
CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
             "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
             "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
             "complex128": "c10::complex<double>"}


def cpp_name(d: dtype) -> str:
    """C++'s name of dtype ``d`` (``float``, ``long int``...), as some of PyTorch's
    messages print it."""
    return CPP_NAMES.get(d.name, d.name)


_FROM_NP: dict[np.dtype, dtype] = {d.np: d for d in ALL}
_PY_TYPES = {builtins.float: float64, builtins.int: int64, builtins.bool: bool,
             builtins.complex: complex128}

_default = [float32]


def get_default_dtype() -> dtype:
    """The dtype of floating tensors made from Python data (``torch.float32``)."""
    return _default[0]


def set_default_dtype(d: Any) -> None:
    """Set the default floating dtype (``torch.float32`` or ``torch.float64``)."""
    d = as_dtype(d)
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d


def default_np() -> np.dtype:
    return _default[0].np


def as_dtype(d: Any) -> dtype:
    """A torch dtype from a torch dtype, a NumPy dtype, a string or a Python type."""
    if type(d) is dtype:
        return d
    if d in _PY_TYPES:
        return _PY_TYPES[d]
    if isinstance(d, str) and d.startswith("torch."):
        d = d[6:]
    try:
        return _FROM_NP[np.dtype(d)]
    except (TypeError, KeyError):
        raise TypeError(f"unsupported dtype {d!r}") from None


def np_dtype(d: Any) -> np.dtype:
    """The NumPy dtype for anything ``as_dtype`` accepts."""
    return d.np if type(d) is dtype else as_dtype(d).np


def of_np(d: Any) -> dtype:
    """The torch dtype of a NumPy (or Array API) dtype."""
    if isinstance(d, np.dtype):
        return _FROM_NP[d]
    return _FROM_NP[np.dtype(str(d).split(".")[-1])]


def array_np_dtype(x: Any) -> np.dtype:
    """NumPy dtype of an array of any backend (or tracer)."""
    d = x.dtype
    return d if isinstance(d, np.dtype) else np.dtype(str(d).split(".")[-1])


# ------------------------------------------------------------------ promotion
_CAT = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def promote_types(a: np.dtype, b: np.dtype) -> np.dtype:
    """``torch.promote_types`` on NumPy dtypes: the higher category wins."""
    if a == b:
        return a
    ka, kb = _CAT[a.kind], _CAT[b.kind]
    if ka == kb:
        return np.promote_types(a, b)
    hi, lo = (a, b) if ka > kb else (b, a)
    if hi.kind == "c" and lo.kind == "f" and lo.itemsize * 2 > hi.itemsize:
        return np.dtype(np.complex128)
    return hi


def _combine(higher: np.dtype | None, lower: np.dtype | None) -> np.dtype | None:
    if higher is None:
        return lower
    if lower is None:
        return higher
    kh, kl = _CAT[higher.kind], _CAT[lower.kind]
    if kh >= kl:
        return higher if kh > kl else promote_types(higher, lower) if kh == 0 else higher
    if lower.kind == "c" and higher.kind == "f":
        return np.dtype(np.complex128) if higher.itemsize == 8 else lower
    if higher.kind == "b" or lower.kind == "f":
        return promote_types(higher, lower)
    return lower


_PY_SCALARS = (builtins.bool, builtins.int, builtins.float, builtins.complex)


def _wrapped_dtype(tp: type) -> np.dtype:
    if tp is builtins.float:
        return default_np()
    if tp is builtins.int:
        return np.dtype(np.int64)
    if tp is builtins.bool:
        return np.dtype(np.bool_)
    return np.dtype(np.complex128 if default_np() == np.float64 else np.complex64)


def result_type(vals: Any) -> np.dtype:
    """PyTorch's result dtype of an elementwise op on arrays and Python scalars."""
    dim = zero = wrapped = None
    for v in vals:
        tp = type(v)
        if tp in _PY_SCALARS:
            d = _wrapped_dtype(tp)
            wrapped = d if wrapped is None else promote_types(wrapped, d)
        elif v is None:
            continue
        else:
            d = array_np_dtype(v)
            if len(v.shape):
                dim = d if dim is None else promote_types(dim, d)
            else:
                zero = d if zero is None else promote_types(zero, d)
    return _combine(dim, _combine(zero, wrapped))


def is_float(d: np.dtype) -> builtins.bool:
    return d.kind in "fc"
