"""Edge dtypes and shapes against the installed PyTorch (skipped without it):
complex to bool (nonzero, the imaginary part too), the sign of booleans, runs of a
single element, statistics of integers (in the default floating dtype) and the
complex log-determinant, with their gradients where they have one."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402


def _values(r: Any) -> Any:
    """A result as nested lists and dtype names, comparable across the libraries."""
    if isinstance(r, tuple | list):
        return [_values(e) for e in r]
    return np.asarray(r.detach().tolist()).tolist(), str(r.dtype).split(".")[-1]


CASES: dict[str, Callable] = {
    "complex_to_bool": lambda T: T.tensor([0.5j, 0, 1 + 0j, -2j]).bool(),
    "complex_to_bool_to": lambda T: T.tensor([[0.5j, 0]]).to(T.bool),
    "sign_of_bool": lambda T: T.tensor([True, False]).sign(),
    "sgn_of_bool": lambda T: T.sgn(T.tensor([True, False])),
    "sign_of_bool_inplace": lambda T: T.tensor([True, False]).sign_(),
    "unique_consecutive_0d": lambda T: T.tensor(1.5).unique_consecutive(
        return_inverse=True, return_counts=True),
    "unique_consecutive_one": lambda T: T.tensor([[2, 2]]).unique_consecutive(
        return_counts=True, dim=0),
    "cov_of_ints": lambda T: T.cov(T.tensor([[1, 2, 4], [2, 1, 0]])),
    "corrcoef_of_ints": lambda T: T.corrcoef(T.tensor([[1, 2, 4], [2, 1, 0]])),
    "cov_of_bools": lambda T: T.cov(T.tensor([True, False, True])),
    "float_power_complex": lambda T: T.float_power(T.tensor([1 + 2j, 0.5j]), 2.0),
    "float_power_complex_exponent": lambda T: T.float_power(T.tensor([2.0]), T.tensor([1j])),
    "float_power_complex_scalar": lambda T: T.float_power(T.tensor([2.0]), 1j),
    "float_power_both": lambda T: T.float_power(T.tensor([1 + 2j]), T.tensor([0.5 - 1j])),
    "fmod_bool_float": lambda T: T.fmod(T.tensor([True, False]), T.tensor([0.5, 2.0])),
    "fmod_bool_int": lambda T: T.fmod(T.tensor([True, False]), 2),
    "fmod_bools": lambda T: T.fmod(T.tensor([True]), T.tensor([True])),
    "fmod_complex": lambda T: T.fmod(T.tensor([1j]), 2.0),
    "maximum_complex": lambda T: T.maximum(T.tensor([1j]), T.tensor([1.0])),
    "minimum_complex": lambda T: T.minimum(T.tensor([1.0]), T.tensor([1j])),
    "fmax_complex": lambda T: T.fmax(T.tensor([1j]), T.tensor([1.0])),
    "fmin_complex": lambda T: T.fmin(T.tensor([1j]), T.tensor([1j])),
    "heaviside_complex": lambda T: T.heaviside(T.tensor([1j]), T.tensor([1j])),
    "heaviside_mixed": lambda T: T.heaviside(T.tensor([1.0]), T.tensor([1j])),
    "lerp_end_dtype": lambda T: T.lerp(T.ones(2), T.ones(2, dtype=T.float64), 0.5),
    "lerp_end_complex": lambda T: T.lerp(T.ones(2, dtype=T.int64), T.tensor([1j, 1j]), 0.5),
    "trace_uint8": lambda T: T.ones(2, 2, dtype=T.uint8).trace(),
    "trace_int32": lambda T: T.ones(2, 2, dtype=T.int32).trace(),
    "trace_bool": lambda T: T.ones(2, 2, dtype=T.bool).trace(),
    "int_pow_negative": lambda T: T.tensor([-3, -2, -1, 0, 1, 2, 3]) ** T.tensor(
        [-1, -2, -3, -1, -2, 3, 2]),
    "int_pow_int32": lambda T: T.tensor([2, -1], dtype=T.int32) ** T.tensor(
        [-1, -3], dtype=T.int32),
    "int_rpow_negative": lambda T: 2 ** T.tensor([-1, 0, 3]),
    "int_rpow_minus_one": lambda T: (-1) ** T.tensor([-1, -2, 3]),
    "bool_pow_int": lambda T: T.tensor([True, False]) ** T.tensor([2, -1]),
    "int_pow_negative_scalar": lambda T: T.tensor([2, 3]) ** -1,
    "int_pow_negative_scalar_pow": lambda T: T.pow(T.tensor([2], dtype=T.int32), -2),
}


def _run(fn: Callable, T: Any) -> Any:
    try:
        return _values(fn(T))
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("name", sorted(CASES))
def test_edge_cases_as_pytorchs(name: str) -> None:
    want, got = (_run(CASES[name], T) for T in (real_torch, ftorch))
    if name.startswith(("cov_of_ints", "corrcoef")):  # (rounding)
        assert got[1] == want[1]
        np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    else:
        assert got == want


def test_complex_logdet_and_its_gradient() -> None:
    """``logdet`` of a complex matrix is ``log|det| + i angle(det)``."""
    m = np.array([[1 + 2j, 3 - 1j], [0.5j, 2.0 - 0.5j]])
    out = []
    for T in (real_torch, ftorch):
        x = T.tensor(m, requires_grad=True)
        y = T.logdet(x)
        (y.real + 0.3 * y.imag).backward()
        out.append((complex(y.item()), x.grad.numpy()))
    assert out[1][0] == pytest.approx(out[0][0], rel=1e-12)
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-10)
