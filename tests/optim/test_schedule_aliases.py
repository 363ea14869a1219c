"""The short schedule names (``constant``, ``exponential_decay``, ``cosine_decay``,
``warmup_cosine_decay``) are optax's ``*_schedule`` functions: same values."""

import numpy as np
import pytest

import fad
import fad.optim as optim


def test_short_names_are_the_schedules_and_match_optax():
    assert optim.constant is optim.constant_schedule
    assert optim.cosine_decay is optim.cosine_decay_schedule
    assert optim.warmup_cosine_decay is optim.warmup_cosine_decay_schedule
    optax = pytest.importorskip("optax")
    cases = [(optim.constant(0.3), optax.constant_schedule(0.3)),
             (optim.exponential_decay(1.0, 10, 0.5), optax.exponential_decay(1.0, 10, 0.5)),
             (optim.cosine_decay(1.0, 50, alpha=0.1), optax.cosine_decay_schedule(1.0, 50, 0.1)),
             (optim.warmup_cosine_decay(0.0, 1.0, 10, 100),
              optax.warmup_cosine_decay_schedule(0.0, 1.0, 10, 100))]
    for ours, theirs in cases:
        for step in (0, 1, 5, 10, 37, 100, 150):
            np.testing.assert_allclose(float(ours(step)), float(theirs(step)), rtol=1e-6)
            np.testing.assert_allclose(float(fad.jit(ours)(step)), float(theirs(step)), rtol=1e-6)
    opt = optim.adam(optim.warmup_cosine_decay(0.0, 0.1, 2, 10))
    state = opt.init({"w": np.zeros(2)})
    updates, _ = opt.update({"w": np.ones(2)}, state)
    assert np.all(np.isfinite(updates["w"]))
