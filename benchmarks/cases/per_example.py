"""Per-example gradients of logistic regression by ``vmap(grad)`` (``per_example``)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from harness import (
    Bar,
    Contender,
    Problem,
    case,
    fad_contender,
    find,
    guarded,
    jit_contender,
    missing,
    ratio_bar,
    relative_bar,
    torch_func_contender,
)
from harness.libs import jax, jnp, torch

import fad


def logistic_loss(w: Any, x: Any, y: Any) -> Any:
    """Binary cross-entropy with logits of one example (x a feature vector)."""
    return fad.nn.binary_cross_entropy_with_logits(x @ w, y)


def per_example_grads_numpy(w: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Closed form: d/dw [softplus(x·w) - y x·w] = (sigmoid(x·w) - y) x, per row."""
    return (1.0 / (1.0 + np.exp(-(X @ w))) - y)[:, None] * X


def torch_per_example(w: np.ndarray, X: np.ndarray, y: np.ndarray) -> Callable[[], Any]:
    """``torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0, 0))``."""
    from torch.func import grad, vmap

    bce = torch.nn.functional.binary_cross_entropy_with_logits
    g = vmap(grad(lambda w, x, y: bce(x @ w, y)), in_dims=(None, 0, 0))
    tw, tX, ty = (torch.tensor(a) for a in (w, X, y))
    return lambda: g(tw, tX, ty)


def jax_per_example(w: np.ndarray, X: np.ndarray, y: np.ndarray,
                    compiled: bool) -> Callable[[], Any]:
    """``jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))``, optionally under ``jax.jit``
    (the loss written with the stable softplus ``fad.nn`` uses)."""
    def loss(w: Any, x: Any, y: Any) -> Any:
        z = x @ w
        return jnp.maximum(z, 0) - z * y + jnp.log1p(jnp.exp(-jnp.abs(z)))
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))
    g = jax.jit(g) if compiled else g
    args = [jnp.asarray(a) for a in (w, X, y)]
    return lambda: g(*args).block_until_ready()


def jax_contenders(build: Callable[[bool], Callable[[], Any]]) -> list[Contender]:
    """JAX without and with ``jax.jit`` (only if jax is installed; it is not a
    dependency of fad or of its benchmarks)."""
    if jax is None:
        return [Contender(n, None, tracemalloc=False, skip=missing(jax, "jax"))
                for n in ("jax", "jax jit")]
    return [guarded("jax", lambda: build(False), tracemalloc=False),
            guarded("jax jit", lambda: build(True), tracemalloc=False, compiles=True)]


def per_example_bars(results: list[dict]) -> list[Bar]:
    """The per-example bar, 1.5x, is on ``jit(vmap(grad))``: every library that traces
    per call pays per primitive per call, so un-jitted ``vmap(grad)`` is held to
    the fastest un-jitted alternative instead (``torch.func``; eager JAX is
    some 200x, see benchmarks/README.md)."""
    return [ratio_bar(results, "fad jit", 1.5),
            relative_bar("fad (un-jitted) ratio ≤ torch.func ratio", find(results, 0, "fad"),
                         find(results, 0, "torch.func"))]


@case("per_example", bars=per_example_bars)
def per_example_case(size: str) -> list[Problem]:
    """Per-example gradients of logistic regression, 256 examples x 100
    features, float64: ``fad.vmap(fad.grad(loss), in_axes=(None, 0, 0))(w, X, y)``
    with ``loss = fad.nn.binary_cross_entropy_with_logits(x @ w, y)``, against
    the hand-written closed form ``(sigmoid(X @ w) - y)[:, None] * X``; the same
    under ``fad.jit`` and torch's ``torch.func.vmap(torch.func.grad(...))`` for
    reference, and JAX's ``jax.vmap(jax.grad(...))`` with and without ``jax.jit``
    when jax is installed.  The 1.5x bar is on the jitted vmap; the un-jitted one
    is held to torch.func."""
    m, d = (8, 5) if size == "tiny" else (256, 100)
    rng = np.random.default_rng(3)
    X, w = rng.standard_normal((m, d)), 0.1 * rng.standard_normal(d)
    y = (rng.random(m) < 0.5).astype(np.float64)
    per_example = fad.vmap(fad.grad(logistic_loss), in_axes=(None, 0, 0))
    contenders = [
        Contender("numpy", lambda: per_example_grads_numpy(w, X, y)),
        fad_contender("fad", per_example, w, X, y),
        jit_contender("fad jit", per_example, w, X, y),
        torch_func_contender(lambda: torch_per_example(w, X, y)),
        *jax_contenders(lambda compiled: jax_per_example(w, X, y, compiled)),
    ]
    return [Problem(f"{m} x {d}, float64", contenders, rtol=1e-8)]
