"""``torch.optim.LBFGS``: limited-memory BFGS on the flattened parameters, with a
fixed step or the strong-Wolfe line search (cubic interpolation, then zoom)."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from .._grad_mode import enable_grad
from .._graph import host
from ._base import Optimizer, set_value


def _cubic_interpolate(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                       bounds: tuple | None = None) -> float:
    """The minimiser of the cubic through ``(x1, f1, g1)`` and ``(x2, f2, g2)``,
    clipped to ``bounds`` (Nocedal & Wright, eq. 3.59); the bounds' midpoint when
    the cubic has no minimiser."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (lo + hi) / 2.0
    d2 = d2_square ** 0.5
    if x1 <= x2:
        pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(pos, lo), hi)


def _strong_wolfe(obj: Callable, t: float, d: Any, f: float, g: Any, gtd: float,
                  c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                  max_ls: int = 25) -> tuple:
    """A step ``t`` along ``d`` meeting the strong Wolfe conditions (Nocedal &
    Wright, algorithms 3.5 and 3.6); returns ``(f, g, t, evaluations)``."""
    d_norm = float(np.max(np.abs(d)))
    f_new, g_new = obj(t)
    evals, gtd_new = 1, float(g_new @ d)
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done, it = False, 0
    while it < max_ls:
        wolfe = abs(gtd_new) <= -c2 * gtd
        if f_new > f + c1 * t * gtd or (it > 1 and f_new >= f_prev) or (
                not wolfe and gtd_new >= 0):
            br = [[t_prev, f_prev, g_prev, gtd_prev], [t, f_new, g_new, gtd_new]]
            break
        if wolfe:
            br, done = [[t, f_new, g_new, gtd_new]], True
            break
        nxt = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                 bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new, gtd_new
        t = nxt
        f_new, g_new = obj(t)
        evals, gtd_new, it = evals + 1, float(g_new @ d), it + 1
    if it == max_ls:
        br = [[0.0, f, g, gtd], [t, f_new, g_new, gtd_new]]
    # zoom: shrink the bracket [low, high] around a point meeting the conditions
    insuf_progress = False
    low, high = (0, 1) if br[0][1] <= br[-1][1] else (1, 0)
    while not done and it < max_ls:
        if abs(br[1][0] - br[0][0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(*br[0][:2], br[0][3], *br[1][:2], br[1][3])
        top, bot = max(br[0][0], br[1][0]), min(br[0][0], br[1][0])
        eps = 0.1 * (top - bot)
        if min(top - t, t - bot) < eps:
            if insuf_progress or t >= top or t <= bot:
                t = top - eps if abs(t - top) < abs(t - bot) else bot + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj(t)
        evals, gtd_new, it = evals + 1, float(g_new @ d), it + 1
        if f_new > f + c1 * t * gtd or f_new >= br[low][1]:
            br[high] = [t, f_new, g_new, gtd_new]
            low, high = (0, 1) if br[0][1] <= br[1][1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (br[high][0] - br[low][0]) >= 0:
                br[high] = br[low]
            br[low] = [t, f_new, g_new, gtd_new]
    t, f_new, g_new, _ = br[low]
    return f_new, g_new, t, evals


class LBFGS(Optimizer):
    """L-BFGS (one parameter group); ``step`` needs a ``closure`` that recomputes
    the loss and its gradients.

    >>> import fad.torch as torch
    >>> w = torch.tensor([3.0, -1.0], dtype=torch.float64, requires_grad=True)
    >>> opt = torch.optim.LBFGS([w], line_search_fn="strong_wolfe")
    >>> def closure():
    ...     opt.zero_grad()
    ...     loss = ((w - 1) ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> _ = opt.step(closure)
    >>> w.detach().round(decimals=6)
    tensor([1., 1.], dtype=torch.float64)
    """

    def __init__(self, params: Iterable, lr: float = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if line_search_fn not in (None, "strong_wolfe"):
            raise RuntimeError("only 'strong_wolfe' is supported")
        super().__init__(params, dict(
            lr=lr, max_iter=max_iter,
            max_eval=max_iter * 5 // 4 if max_eval is None else max_eval,
            tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
            history_size=history_size, line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self) -> np.ndarray:
        return np.concatenate([
            np.zeros(p.numel(), host(p._value).dtype) if p._grad is None
            else np.asarray(host(p._grad._value)).reshape(-1) for p in self._params])

    def _flat_params(self) -> list:
        return [np.array(host(p._value)) for p in self._params]

    def _move(self, t: float, d: np.ndarray) -> None:
        offset = 0
        for p in self._params:
            n = p.numel()
            v = host(p._value)
            set_value(p, v + t * d[offset:offset + n].reshape(v.shape))
            offset += n

    def _restore(self, xs: list) -> None:
        for p, x in zip(self._params, xs):
            set_value(p, x)

    def step(self, closure: Callable | None = None) -> Any:  # noqa: C901
        """Up to ``max_iter`` L-BFGS iterations; returns the closure's first loss."""
        if closure is None:
            raise RuntimeError("LBFGS.step requires a closure that reevaluates the model "
                               "and returns the loss")
        self._opt_called = True
        group = self.param_groups[0]
        lr, max_iter, tol_change = group["lr"], group["max_iter"], group["tolerance_change"]
        state = self.state.setdefault(self._params[0], {})
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        def evaluate() -> float:
            with enable_grad():
                return float(closure())

        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        g = self._flat_grad()
        if np.max(np.abs(g)) <= group["tolerance_grad"]:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_g, prev_loss = state.get("H_diag"), state.get("prev_flat_grad"), \
            state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, old_dirs, old_stps, ro, h_diag = -g, [], [], [], 1
            else:
                y, s = g - prev_g, d * t
                ys = float(y @ s)
                if ys > 1e-10:  # the curvature condition: keep the pair
                    if len(old_dirs) == group["history_size"]:
                        del old_dirs[0], old_stps[0], ro[0]
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(np.asarray(1.0 / ys))
                    h_diag = np.asarray(ys / float(y @ y))
                al = state.setdefault("al", [None] * group["history_size"])
                q = -g  # the two-loop recursion (Nocedal & Wright, algorithm 7.4)
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = np.asarray(float(old_stps[i] @ q) * ro[i])
                    q = q - al[i] * old_dirs[i]
                d = q * h_diag
                for i in range(len(old_dirs)):
                    be_i = float(old_dirs[i] @ d) * ro[i]
                    d = d + (al[i] - be_i) * old_stps[i]
            prev_g, prev_loss = g.copy(), loss
            t = min(1.0, 1.0 / float(np.sum(np.abs(g)))) * lr if state["n_iter"] == 1 else lr
            gtd = float(g @ d)
            if gtd > -tol_change:
                break
            ls_evals = 0
            if group["line_search_fn"] is not None:
                x0 = self._flat_params()

                def obj(step: float, x0: list = x0, d: np.ndarray = d) -> tuple:
                    self._move(step, d)
                    f = evaluate()
                    gr = self._flat_grad()
                    self._restore(x0)
                    return f, gr
                loss, g, t, ls_evals = _strong_wolfe(obj, t, d, loss, g, gtd,
                                                     tolerance_change=tol_change)
                self._move(t, d)
                opt_cond = np.max(np.abs(g)) <= group["tolerance_grad"]
            else:
                self._move(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = evaluate()
                    g = self._flat_grad()
                    opt_cond = np.max(np.abs(g)) <= group["tolerance_grad"]
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals
            if (n_iter == max_iter or evals >= group["max_eval"] or opt_cond
                    or np.max(np.abs(d * t)) <= tol_change or abs(loss - prev_loss) < tol_change):
                break
        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_g, prev_loss=prev_loss)
        return orig_loss
