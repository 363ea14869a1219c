"""The ``torch.special`` functions PyTorch does not differentiate: the Bessel
functions of the first and second kinds, the modified ones (and the scaled
``k0``, ``k1``), the Airy function ``Ai``, the spherical Bessel function ``j0``,
and the orthogonal polynomials (Chebyshev of the four kinds, also shifted to
[0, 1]; Hermite, both conventions; Laguerre; Legendre). SciPy computes them on
the host; the results are tensors without a gradient, as PyTorch's are. Integer
inputs give the default float dtype; a polynomial's degree ``n`` is truncated to
an integer and a negative one gives 0, as in PyTorch. (Imported into
``fad.torch.special``.)
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import _dtype
from ._creation import _place
from ._graph import host
from .tensor import Tensor, wrap

__all__ = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
           "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "airy_ai",
           "spherical_bessel_j0", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
           "chebyshev_polynomial_v", "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p"]


def _special() -> Any:
    import scipy.special  # (on first use: importing it costs more than importing fad)

    return scipy.special


def _values(*args: Any) -> tuple[list, np.dtype, Any]:
    """The arguments as host arrays, the floating dtype of the result (the promoted
    one, or the default for integers) and the device of the first tensor."""
    arrays = [np.asarray(host(a.detach()._value)) if isinstance(a, Tensor) else np.asarray(a)
              for a in args]
    tensors = [a for a in arrays[:1]] + [a for a, x in zip(arrays[1:], args[1:])
                                          if isinstance(x, Tensor)]
    dt = np.result_type(*tensors)
    if dt.kind not in "f":
        dt = _dtype.get_default_dtype().np
    device = next((a.device for a in args if isinstance(a, Tensor)), None)
    return arrays, dt, device


def _result(values: Any, dt: np.dtype, device: Any) -> Tensor:
    return wrap(_place(np.asarray(values).astype(dt, copy=False), device))


def _function(name: str, compute: Callable, doc: str) -> Callable:
    def f(input: Tensor) -> Tensor:
        (x,), dt, device = _values(input)
        with np.errstate(all="ignore"):
            return _result(compute(_special(), x.astype(dt)), dt, device)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


_FUNCTIONS = (  # (name, SciPy's computation, summary)
    ("bessel_j0", lambda S, x: S.j0(x), "The Bessel function of the first kind of order 0."),
    ("bessel_j1", lambda S, x: S.j1(x), "The Bessel function of the first kind of order 1."),
    ("bessel_y0", lambda S, x: S.y0(x), "The Bessel function of the second kind of order 0."),
    ("bessel_y1", lambda S, x: S.y1(x), "The Bessel function of the second kind of order 1."),
    ("modified_bessel_i0", lambda S, x: S.i0(x),
     "The modified Bessel function of the first kind of order 0."),
    ("modified_bessel_i1", lambda S, x: S.i1(x),
     "The modified Bessel function of the first kind of order 1."),
    ("modified_bessel_k0", lambda S, x: S.k0(x),
     "The modified Bessel function of the second kind of order 0."),
    ("modified_bessel_k1", lambda S, x: S.k1(x),
     "The modified Bessel function of the second kind of order 1."),
    ("scaled_modified_bessel_k0", lambda S, x: S.k0e(x), "``exp(x) k0(x)``."),
    ("scaled_modified_bessel_k1", lambda S, x: S.k1e(x), "``exp(x) k1(x)``."),
    ("airy_ai", lambda S, x: S.airy(x)[0], "The Airy function ``Ai``."),
    ("spherical_bessel_j0", lambda S, x: S.spherical_jn(0, x),
     "The spherical Bessel function of order 0, ``sin(x) / x``."),
)
(bessel_j0, bessel_j1, bessel_y0, bessel_y1, modified_bessel_i0, modified_bessel_i1,
 modified_bessel_k0, modified_bessel_k1, scaled_modified_bessel_k0, scaled_modified_bessel_k1,
 airy_ai, spherical_bessel_j0) = (_function(*row) for row in _FUNCTIONS)


def _chebyshev_vw(sign: int) -> Callable:
    """The third (``sign`` -1) and fourth (+1) kinds: ``U_n(x) + sign U_{n-1}(x)``."""
    def compute(S: Any, n: Any, x: Any) -> Any:
        previous = np.where(n >= 1, S.eval_chebyu(np.maximum(n - 1, 0), x), 0.0)
        return S.eval_chebyu(n, x) + sign * previous
    return compute


_KINDS = {"t": lambda S, n, x: S.eval_chebyt(n, x), "u": lambda S, n, x: S.eval_chebyu(n, x),
          "v": _chebyshev_vw(-1), "w": _chebyshev_vw(1)}


def _polynomial(name: str, compute: Callable, doc: str) -> Callable:
    def f(input: Tensor, n: Any) -> Tensor:
        (x, k), dt, device = _values(input, n)
        k = np.trunc(k).astype(np.int64)  # (as PyTorch: n read as an integer)
        with np.errstate(all="ignore"):
            out = compute(_special(), np.maximum(k, 0), x.astype(dt))
        return _result(np.where(k < 0, 0.0, out), dt, device)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"{doc}\n\n>>> import fad.torch as torch\n>>> torch.special.{name}("
                 "torch.tensor([0.5]), 0)\ntensor([1.])\n")
    return f


(chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v,
 chebyshev_polynomial_w) = (
    _polynomial(f"chebyshev_polynomial_{k}", _KINDS[k],
                f"The Chebyshev polynomial of the {kind} kind of degree ``n``.")
    for k, kind in zip("tuvw", ("first", "second", "third", "fourth")))
(shifted_chebyshev_polynomial_t, shifted_chebyshev_polynomial_u,
 shifted_chebyshev_polynomial_v, shifted_chebyshev_polynomial_w) = (
    _polynomial(f"shifted_chebyshev_polynomial_{k}",
                lambda S, n, x, k=k: _KINDS[k](S, n, 2 * x - 1),
                f"The Chebyshev polynomial of the {kind} kind of degree ``n`` at ``2x - 1``.")
    for k, kind in zip("tuvw", ("first", "second", "third", "fourth")))
(hermite_polynomial_h, hermite_polynomial_he, laguerre_polynomial_l,
 legendre_polynomial_p) = (_polynomial(*row) for row in (
    ("hermite_polynomial_h", lambda S, n, x: S.eval_hermite(n, x),
     "The (physicists') Hermite polynomial of degree ``n``."),
    ("hermite_polynomial_he", lambda S, n, x: S.eval_hermitenorm(n, x),
     "The (probabilists') Hermite polynomial of degree ``n``."),
    ("laguerre_polynomial_l", lambda S, n, x: S.eval_laguerre(n, x),
     "The Laguerre polynomial of degree ``n``."),
    ("legendre_polynomial_p", lambda S, n, x: S.eval_legendre(n, x),
     "The Legendre polynomial of degree ``n``.")))
