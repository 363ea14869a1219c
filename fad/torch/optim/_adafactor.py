"""``Adafactor``: Adam-like steps whose second moment of a matrix gradient is kept
as one running mean per row and one per column (their outer product, divided by
the rows' mean, estimates it: memory ``m + n`` instead of ``m n``), with a
relative step size (the parameter's RMS times ``min(lr, 1/sqrt(t))``) and the
update's RMS clipped to ``d``; PyTorch's formulas, step by step.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

import numpy as np

from ._base import Optimizer, _counted

__all__ = ["Adafactor"]


def _rms(a: Any) -> float:
    return float(np.linalg.norm(a.ravel())) / math.sqrt(max(a.size, 1))


class Adafactor(Optimizer):
    """Adafactor (PyTorch's variant: ``beta2_t = 1 - t^beta2_decay``, the step
    ``max(eps2, RMS(p)) min(lr, 1/sqrt(t))``).

    >>> import fad.torch as torch
    >>> torch.optim.Adafactor([torch.zeros(1, requires_grad=True)]).defaults["eps"]
    (None, 0.001)
    """

    def __init__(self, params: Iterable, lr: float = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple = (None, 1e-3), d: float = 1.0, weight_decay: float = 0.0, *,
                 foreach: Any = None, maximize: bool = False):
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize))

    def _update(self, group: dict, p: Any, g: Any) -> Any:
        if p.is_complex():
            raise RuntimeError("Adafactor does not support complex parameters")
        v = p._value
        st, t = _counted(self.state, p)
        eps1, eps2 = group["eps"]
        eps1 = float(np.finfo(v.dtype).eps) if eps1 is None else eps1
        lr = group["lr"]
        w = float(t) ** group["beta2_decay"]  # (1 - beta2_t: the weight of the new term)
        alpha = max(eps2, _rms(v)) * min(lr, 1 / math.sqrt(t))
        if group["weight_decay"]:
            v = v * (1 - lr * group["weight_decay"])
        dt = v.dtype.type
        if g.ndim > 1:
            rows = st.setdefault("row_var", np.zeros(g.shape[:-1] + (1,), g.dtype))
            cols = st.setdefault("col_var", np.zeros(g.shape[:-2] + (1, g.shape[-1]), g.dtype))
            row_mean = np.square(np.sqrt(np.sum(g * g, axis=-1, keepdims=True))) / dt(g.shape[-1])
            col_mean = np.square(np.sqrt(np.sum(g * g, axis=-2, keepdims=True))) / dt(g.shape[-2])
            rows = st["row_var"] = rows + dt(w) * (row_mean - rows)
            cols = st["col_var"] = cols + dt(w) * (col_mean - cols)
            estimate = (rows @ cols) / np.maximum(rows.mean(axis=-2, keepdims=True), dt(eps1))
        else:
            var = st.setdefault("variance", np.zeros_like(g))
            estimate = st["variance"] = var + dt(w) * (g * g - var)
        update = g / np.sqrt(np.maximum(estimate, dt(eps1 * eps1)))
        denom = max(1.0, _rms(update) / group["d"])
        return v - dt(alpha / denom) * update
