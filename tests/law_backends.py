"""The backends ``tests/backends/test_backend_laws.py`` runs the operator table's
laws on, and the rows each one opts out of (with the reason), in one table.

The environment variable ``FAD_TEST_BACKEND`` chooses one:
``array_api_strict`` (the default, and CI's run) or ``cupy``. Any other value is
a usage error of the whole pytest run. A backend that cannot run here (CuPy
without a GPU...) makes the law module skip with ``load``'s one-sentence reason.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

ENV = "FAD_TEST_BACKEND"
DEFAULT = "array_api_strict"


@dataclass(frozen=True)
class LawBackend:
    """``name``: the value of ``FAD_TEST_BACKEND`` and fad's backend name;
    ``load()``: ``(namespace, None)``, or ``(None, why it cannot run here)``;
    ``not_on``: the table's rows that do not run there, each with its reason (a
    reason starting ``"complex128:"`` drops the row's complex run only)."""

    name: str
    load: Callable[[], tuple[Any, str | None]]
    not_on: dict[str, str]

    def skipped(self) -> set[str]:
        """The rows that do not run at all."""
        return {n for n, why in self.not_on.items() if not why.startswith("complex128:")}

    def real_only(self) -> set[str]:
        """The rows that run in real dtypes only."""
        return {n for n, why in self.not_on.items() if why.startswith("complex128:")}


def _load_strict() -> tuple[Any, str | None]:
    try:
        import array_api_strict
    except ImportError:
        return None, 'array_api_strict is not installed (pip install "fad[test]")'
    return array_api_strict, None


def _load_cupy() -> tuple[Any, str | None]:
    from fad.backends.cupy_backend import probe_cupy
    return probe_cupy()


# Reasons of array_api_strict: the standard and nothing more, no implicit conversion.
_SPECIAL = "special functions are not in the standard (fad raises NotImplementedError)"
_ARRAY_INDEX = ("the row indexes with NumPy index arrays; on a concrete input that is "
                "array_api_strict's own __getitem__, which takes its own arrays only")
_ORDER = "complex128: the standard orders real numbers only (max, min, sort, >)"

NOT_ON_STRICT: dict[str, str] = {
    "cbrt": "not in the standard (fad raises NotImplementedError: no cbrt)",
    "logaddexp2": "not in the standard (fad raises NotImplementedError: no logaddexp2)",
    **dict.fromkeys(["erf", "erfc", "erfcx", "erfinv", "gammaln", "digamma", "polygamma",
                     "gamma", "i0", "i1", "i0e", "i1e", "ndtr", "ndtri", "log_ndtr", "beta",
                     "betaln", "gammainc", "gammaincc", "gammaincinv", "gammainccinv", "betainc",
                     "betaincinv", "betainccinv", "zeta",
                     "multigammaln"], _SPECIAL),
    **dict.fromkeys(["getitem_int_array", "getitem_mask"], _ARRAY_INDEX),
    "median": "complex128: the standard orders real numbers only (median sorts)",
    **dict.fromkeys(["lu", "lu_solve", "sqrtm"], "computed by scipy.linalg on NumPy arrays "
                    "(fad raises NotImplementedError on other backends)"),
    "methods": "the row uses x.T on 1-d and 0-d arrays; the standard defines .T for 2-d only",
    **dict.fromkeys(["maximum", "minimum", "sort", "partition", "ptp", "clip",
                     "clip_arrays", "where"], _ORDER),
    **dict.fromkeys(["conv_general_dilated", "reduce_window_sum", "reduce_window_max",
                     "signal_convolve_axes", "conv_transpose"],
                    "the standard has no sliding_window_view (fad raises NotImplementedError)"),
    **dict.fromkeys(["norm_cdf", "norm_logcdf", "norm_ppf", "t_logpdf", "t_pdf", "t_cdf",
                     "t_logcdf", "t_ppf", "gamma_logpdf", "gamma_pdf", "gamma_cdf",
                     "gamma_logcdf", "gamma_ppf", "beta_logpdf", "beta_pdf", "beta_cdf",
                     "beta_logcdf", "beta_ppf", "poisson_logpmf", "poisson_pmf", "poisson_cdf",
                     "poisson_logcdf", "poisson_ppf", "gelu_exact",
                     "random_truncated_normal"], _SPECIAL),
    **dict.fromkeys(["random_multivariate_normal", "random_dirichlet"],
                    "fad.random.key makes a NumPy key whatever the default backend, and the "
                    "counters follow the default backend: the draws mix namespaces there"),
}

# CuPy goes beyond the standard (cbrt, logaddexp2, einsum, FFTs, cupyx.scipy.special,
# NumPy's methods and indexing): every row runs there.
NOT_ON_CUPY: dict[str, str] = {}

LAW_BACKENDS: dict[str, LawBackend] = {
    "array_api_strict": LawBackend("array_api_strict", _load_strict, NOT_ON_STRICT),
    "cupy": LawBackend("cupy", _load_cupy, NOT_ON_CUPY),
}


def chosen() -> LawBackend:
    """The backend ``FAD_TEST_BACKEND`` names (``array_api_strict`` when unset or
    empty); a ``pytest.UsageError`` naming the choices for any other value.

    >>> import os
    >>> chosen().name == (os.environ.get("FAD_TEST_BACKEND") or "array_api_strict")
    True
    """
    name = os.environ.get(ENV) or DEFAULT
    if name not in LAW_BACKENDS:
        raise pytest.UsageError(
            f"{ENV}={name!r} is not a backend of the law tests; use one of: "
            + ", ".join(f"{n} (the default)" if n == DEFAULT else n for n in LAW_BACKENDS))
    return LAW_BACKENDS[name]
