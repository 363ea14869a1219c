"""Hypothesis settings for the whole suite: derandomized (fixed seeds, so CI is
reproducible), no deadline, few examples per test (the suite must stay fast).

``HYPOTHESIS_PROFILE=thorough pytest ...`` runs many more examples locally;
``HYPOTHESIS_PROFILE=dev`` skips shrinking (fast feedback while debugging).
``FAD_TEST_BACKEND`` chooses the backend of ``tests/backends/test_backend_laws.py``
(``tests/law_backends.py``); an unknown value stops the run with a usage error.
"""

import os

import pytest
from hypothesis import HealthCheck, Phase, settings
from law_backends import chosen

_COMMON = dict(derandomize=True, deadline=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                      HealthCheck.data_too_large])
settings.register_profile("ci", max_examples=6, **_COMMON)
settings.register_profile("thorough", max_examples=200, **_COMMON)
settings.register_profile("dev", max_examples=6, phases=[Phase.explicit, Phase.reuse,
                                                         Phase.generate], **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config):
    chosen()  # a pytest.UsageError for an unknown FAD_TEST_BACKEND, before collecting


@pytest.fixture
def jax64():
    """``jax`` with 64-bit floats on for the test (skipped where JAX is absent)."""
    jax = pytest.importorskip("jax")
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", old)
