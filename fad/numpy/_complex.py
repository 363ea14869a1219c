"""Complex-number functions of ``fad.numpy`` (conventions in fad/primitives/complex.py)."""

from __future__ import annotations

from typing import Any

from ..core.trace import bind
from ..primitives import complex as CX
from ..primitives.structural import convert_element_type
from ._base import asarray, dtype_of, promote
from ._creation import zeros_like
from ._math import arctan2, greater, multiply, sqrt, where


def _is_complex(x: Any) -> bool:
    return dtype_of(x).kind == "c"


def real(val: Any) -> Any:
    """Real part (the input itself for real arrays).

    >>> import fad.numpy as fnp
    >>> float(fnp.real(fnp.asarray(3 + 4j)))
    3.0
    """
    x = asarray(val)
    return bind(CX.real_p, x) if _is_complex(x) else x


def imag(val: Any) -> Any:
    """Imaginary part (zeros for real arrays).

    >>> import fad.numpy as fnp
    >>> fnp.imag(fnp.array([1 + 2j])).tolist(), fnp.imag(fnp.array([1.0])).tolist()
    ([2.0], [0.0])
    """
    x = asarray(val)
    if _is_complex(x):
        return bind(CX.imag_p, x)
    return zeros_like(x)


def conj(x: Any) -> Any:
    """Complex conjugate (the input itself for real arrays).

    >>> import fad.numpy as fnp
    >>> complex(fnp.conj(fnp.asarray(1 + 2j)))
    (1-2j)
    """
    x = asarray(x)
    return bind(CX.conj_p, x) if _is_complex(x) else x


conjugate = conj


def make_complex(re: Any, im: Any) -> Any:
    """``re + 1j * im`` from two real arrays (differentiable in both)."""
    re, im = asarray(re), asarray(im)
    _, (re, im) = promote("add", re, im)
    if dtype_of(re).kind not in "f":
        re, im = convert_element_type(re, "float64"), convert_element_type(im, "float64")
    return bind(CX.complex_p, re, im)


def angle(z: Any, deg: bool = False) -> Any:
    """The argument of ``z``, ``atan2(imag, real)``.

    >>> import fad.numpy as fnp
    >>> fnp.angle(fnp.array([1j, -1.0])).round(6).tolist()
    [1.570796, 3.141593]
    """
    z = asarray(z)
    out = arctan2(imag(z), real(z))
    return out * (180.0 / 3.141592653589793) if deg else out


def complex_abs(z: Any) -> Any:
    """``|z|`` for complex ``z``, with a zero subgradient at 0 (double ``where``)."""
    re, im = real(z), imag(z)
    r2 = multiply(re, re) + multiply(im, im)
    nonzero = greater(r2, 0)
    return where(nonzero, sqrt(where(nonzero, r2, 1.0)), 0.0)


def iscomplexobj(x: Any) -> bool:
    """Whether ``x`` has a complex dtype.

    >>> import fad.numpy as fnp
    >>> fnp.iscomplexobj(fnp.array([1j])), fnp.iscomplexobj(1.0)
    (True, False)
    """
    return _is_complex(asarray(x))

