"""The eigendecomposition of a general (non-symmetric) square matrix.

``eig(A) = (w, V)`` with ``A V = V diag(w)``; both are complex (as JAX's, and
unlike NumPy's, whose dtype depends on the values: a traced program needs its
dtype before the values). Each column of ``V`` has unit 2-norm, as LAPACK
returns it; it is defined up to a phase ``e^{i theta}``.

Derivatives (JAX's rule): with ``C = V^-1 dA V``,

* ``dw = diag(C)`` (first-order perturbation of a simple eigenvalue,
  ``u_i^H dA v_i / u_i^H v_i`` with the left eigenvectors ``u_i``, the rows of
  ``V^-1``);
* ``dV = V (F o C)`` with ``F_ij = 1 / (w_j - w_i)`` off the diagonal and 0 on
  it, plus ``V diag(c)``: each ``v_j`` is fixed up to a complex factor by the
  eigenvalue equation, and LAPACK's normalisation (unit 2-norm, the
  largest-magnitude component ``k_j`` real) fixes it, so that
  ``c_j = -Re(v_j^H u_j) - i Im(u_kj) / Re(v_kj)`` with ``u = V (F o C)``.
  These are the derivatives of the vectors NumPy returns (finite differences
  agree wherever the largest component does not change).

Only simple (separated) eigenvalues have derivatives; at repeated ones the
``1 / (w_j - w_i)`` terms are taken as 0, as for ``eigh``.
"""

from __future__ import annotations

from typing import Any

from ..backends.base import numpy_dtype
from ..core.ir import ShapedArray
from ..core.trace import aval_of, bind, shape_of
from .complex import complex_dtype, complex_p, imag_p
from .contractions import matmul
from .elementwise import eq
from .linalg import _la, _prim, _square, col, conj, diag_part, inv, re, recip_or_zero, row
from .reductions import reduce_max_p, reduce_sum_p
from .structural import _convert_impl, convert_element_type


def _eig_impl(xp: Any, a: Any) -> list:
    w, v = _la(xp, "eig")(a)
    want = complex_dtype(numpy_dtype(a.dtype))
    return [_convert_impl(xp, w, new_dtype=want), _convert_impl(xp, v, new_dtype=want)]


def _eig_aval(a: ShapedArray) -> list:
    _square(a, "eig")
    want = complex_dtype(a.dtype)
    return [ShapedArray(a.shape[:-1], want), ShapedArray(a.shape, want)]


def _eig_jvp(primals: list, tangents: list) -> tuple:
    (a,), (g,) = primals, tangents
    w, v = bind(eig_p, a)
    g = convert_element_type(g, complex_dtype(aval_of(a).dtype))
    c = matmul(inv(v), matmul(g, v))
    u = matmul(v, recip_or_zero(row(w) - col(w)) * c)
    rows = (len(shape_of(v)) - 2,)
    magnitude = re(v * conj(v))
    largest = convert_element_type(
        eq(magnitude, row(bind(reduce_max_p, magnitude, axes=rows))), aval_of(v).dtype)
    stretch = re(bind(reduce_sum_p, conj(v) * u, axes=rows))
    turn = bind(imag_p, bind(reduce_sum_p, largest * u, axes=rows)) / \
        re(bind(reduce_sum_p, largest * v, axes=rows))
    return [w, v], [diag_part(c), u - v * row(bind(complex_p, stretch, turn))]


eig_p = _prim("eig", _eig_impl, _eig_aval, multiple_results=True)
eig_p.jvp = _eig_jvp


__all__ = ["eig_p"]
