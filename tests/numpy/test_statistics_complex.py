"""``fad.numpy``'s covariance and correlation of complex variables against NumPy's
(``E[(x - mean) conj(y - mean)]``; correlations clipped part by part)."""

from __future__ import annotations

import numpy as np
import pytest

import fad.numpy as fnp


@pytest.mark.parametrize("kw", [{}, {"bias": True}, {"aweights": [1.0, 2.0, 3.0]},
                                {"fweights": [1, 2, 1]}, {"rowvar": False}])
def test_complex_cov_and_corrcoef_are_numpys(kw: dict) -> None:
    a = np.array([[1 + 2j, 3 - 1j, 0.5], [0.5j, 2.0 - 0.5j, 1j]])
    np.testing.assert_allclose(fnp.cov(a, **kw), np.cov(a, **kw), rtol=1e-12)
    corr_kw = {k: v for k, v in kw.items() if k == "rowvar"}
    np.testing.assert_allclose(fnp.corrcoef(a, **corr_kw), np.corrcoef(a, **corr_kw),
                               rtol=1e-12)
