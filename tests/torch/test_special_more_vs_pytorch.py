"""The rest of ``torch.special`` against PyTorch (skipped without it): the Bessel
functions, the Airy function and the orthogonal polynomials (values at float32 and
float64 and integer inputs, degrees negative, fractional and given as tensors, no
gradient, as PyTorch's; SciPy's and PyTorch's approximations of the Bessel
functions differ by 1e-8 relatively), and ``erfcx`` with its gradient."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")

import fad.torch as ftorch  # noqa: E402

X = [-3.5, -1.0, -0.5, 0.0, 0.3, 1.0, 2.0, 7.5, 40.0]
FUNCTIONS = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
             "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
             "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "airy_ai",
             "spherical_bessel_j0"]
POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p"]


def same(got: Any, want: Any, rtol: float) -> None:
    assert str(got.dtype) == str(want.dtype) and got.requires_grad == want.requires_grad
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=rtol, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_bessel_and_airy(name: str, dtype: str):
    xs = [int(x) for x in X] if dtype == "int64" else X

    def run(t: Any) -> Any:
        x = t.tensor(xs, dtype=getattr(t, dtype))
        if dtype != "int64":
            x.requires_grad_()
        return getattr(t.special, name)(x)
    same(run(ftorch), run(real_torch), 1e-5 if dtype != "float64" else 1e-7)


@pytest.mark.parametrize("n", [0, 1, 3, 6, -1, 2.7, "tensor"])
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_orthogonal_polynomials(name: str, n: Any):
    def run(t: Any) -> Any:
        x = t.tensor(np.array(X[:7]) / 2, dtype=t.float64, requires_grad=True)
        degree = t.tensor([0, 1, 2, 3, 4, 5, 9]) if n == "tensor" else n
        return getattr(t.special, name)(x, degree)
    same(run(ftorch), run(real_torch), 1e-9)


def test_erfcx_and_its_gradient():
    def run(t: Any) -> tuple:
        x = t.tensor([-2.0, 0.0, 0.5, 30.0, 1e4], dtype=t.float64, requires_grad=True)
        y = t.special.erfcx(x)
        y.sum().backward()
        return y, x.grad
    for a, b in zip(run(ftorch), run(real_torch)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10)
    assert ftorch.special.erfcx(ftorch.tensor([1.0], requires_grad=True)).grad_fn.name() == \
        real_torch.special.erfcx(real_torch.tensor([1.0], requires_grad=True)).grad_fn.name()
