"""``fad.nn.binary_cross_entropy`` at and near saturated probabilities: PyTorch's
value (each logarithm clamped at -100) and PyTorch's gradient
``(p - t) / max(p (1 - p), 1e-12)``, finite where ``p`` is exactly 0 or 1 (a
float32 sigmoid rounds to 1 from 17 on), with no warning from a logarithm of 0."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import fad
import fad.nn as nn

EDGES = [0.0, 1.0, 1e-30, 1e-13, 1e-12, 1e-6, 0.5, 1 - 1e-6, 1 - 1e-13]


def reference(p: np.ndarray, t: np.ndarray) -> tuple:
    """The loss per element and its derivative in p, as PyTorch computes them."""
    with np.errstate(divide="ignore"):
        value = -(t * np.maximum(np.log(p), -100) + (1 - t) * np.maximum(np.log1p(-p), -100))
    return value, (p - t) / np.maximum(p * (1 - p), float(np.float32(1e-12)))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(p=st.lists(st.one_of(st.sampled_from(EDGES), st.floats(0, 1)), min_size=1, max_size=6),
       seed=st.integers(0, 2**16), dtype=st.sampled_from(["float32", "float64"]))
def test_value_and_gradient_are_pytorchs(p: list, seed: int, dtype: str) -> None:
    p = np.asarray(p, dtype)
    t = np.random.default_rng(seed).uniform(0, 1, p.shape).astype(dtype)
    t[::2] = np.round(t[::2])  # hard labels too
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no logarithm of 0 is taken)
        loss, grad = fad.value_and_grad(
            lambda q: nn.binary_cross_entropy(q, t, reduction="sum"))(p)
        per = nn.binary_cross_entropy(p, t, reduction="none")
    value, slope = reference(p.astype(np.float64), t.astype(np.float64))
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(np.asarray(per), value, rtol=tol, atol=tol)
    np.testing.assert_allclose(float(loss), value.sum(), rtol=tol, atol=tol)
    assert np.all(np.isfinite(grad))
    # (p - t) loses digits when p and t are close: the error is relative to the terms
    p64, t64 = p.astype(np.float64), t.astype(np.float64)
    scale = (np.abs(p64) + np.abs(t64)) / np.maximum(p64 * (1 - p64), 1e-12)
    assert np.all(np.abs(np.asarray(grad, np.float64) - slope) <= 10 * tol * scale + tol)


def test_second_derivative_inside_and_at_the_bound() -> None:
    """Where ``p (1 - p) >= 1e-12`` the second derivative is the cross entropy's,
    ``t / p^2 + (1 - t) / (1 - p)^2``; beyond, the gradient is linear in p with
    slope ``1 / 1e-12``; the derivative in ``t`` is the clamped logarithms'
    difference, and finite everywhere."""
    p = np.array([0.3, 0.9, 0.0, 1.0])
    t = np.array([0.2, 1.0, 1.0, 0.0])
    slope = fad.grad(lambda r: nn.binary_cross_entropy(r, t, "sum"))
    second = fad.grad(lambda q: slope(q).sum())(p)
    np.testing.assert_allclose(second[:2], t[:2] / p[:2] ** 2 + (1 - t[:2]) / (1 - p[:2]) ** 2,
                               rtol=1e-12)
    np.testing.assert_allclose(second[2:], [1e12, 1e12], rtol=1e-8)
    dt = fad.grad(lambda s: nn.binary_cross_entropy(p, s, "sum"))(t)
    np.testing.assert_allclose(dt, [np.log(0.7) - np.log(0.3), np.log(0.1) - np.log(0.9),
                                    100.0, -100.0], rtol=1e-12)
