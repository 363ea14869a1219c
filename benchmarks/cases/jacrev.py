"""Full Jacobian of a tanh layer by ``jacrev`` under ``jit`` (``jacrev_jit``)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from harness import (
    Contender,
    Problem,
    case,
    fad_contender,
    jit_contender,
    ratio_bar,
    torch_func_contender,
)
from harness.libs import torch

import fad
import fad.numpy as fnp


def tanh_layer_jacobian_numpy(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Jacobian of ``tanh(A @ x)``: row i is (1 - t_i^2) A[i]."""
    t = np.tanh(A @ x)
    return (1 - t**2)[:, None] * A


def torch_jacrev(A: np.ndarray, x: np.ndarray) -> Callable[[], Any]:
    """``torch.func.jacrev(lambda x: torch.tanh(A @ x))(x)``."""
    from torch.func import jacrev

    tA, tx = torch.tensor(A), torch.tensor(x)
    j = jacrev(lambda x: torch.tanh(tA @ x))
    return lambda: j(tx)


@case("jacrev_jit", bars=lambda res: [ratio_bar(res, "fad jit", 6.7)])
def jacrev_jit_case(size: str) -> list[Problem]:
    """Full 200x200 Jacobian of ``f(x) = tanh(A @ x)`` (A a fixed 200x200
    float64 matrix) by ``fad.jit(fad.jacrev(f))(x)``, against the hand-written
    ``(1 - t**2)[:, None] * A``; un-jitted ``fad.jacrev(f)`` and
    ``torch.func.jacrev`` for reference."""
    n = 6 if size == "tiny" else 200
    rng = np.random.default_rng(4)
    A, x = rng.standard_normal((n, n)) / np.sqrt(n), rng.standard_normal(n)
    f = lambda x: fnp.tanh(A @ x)
    contenders = [
        Contender("numpy", lambda: tanh_layer_jacobian_numpy(A, x)),
        jit_contender("fad jit", fad.jacrev(f), x),
        fad_contender("fad", fad.jacrev(f), x),
        torch_func_contender(lambda: torch_jacrev(A, x)),
    ]
    return [Problem(f"{n}x{n}, float64", contenders, rtol=1e-8)]
