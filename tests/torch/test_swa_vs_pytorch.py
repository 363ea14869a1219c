"""``torch.optim.swa_utils`` against PyTorch (skipped without it): ``AveragedModel``
(running mean and EMA) over a few SGD steps, ``SWALR`` (cosine and linear
annealing), ``update_bn``, the averaged model's ``state_dict`` and output."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import runs_alike  # noqa: E402

import fad.torch as ftorch  # noqa: E402


def run(t: Any) -> list:
    S = t.optim.swa_utils
    out = []
    t.manual_seed(0)
    m = t.nn.Sequential(t.nn.Linear(2, 3), t.nn.BatchNorm1d(3), t.nn.Linear(3, 1))
    with t.no_grad():
        for k, p in enumerate(m.parameters()):
            p.copy_(
                t.tensor(
                    np.linspace(-1, 1, p.numel()).reshape(tuple(p.shape)) * (k + 1), dtype=p.dtype
                )
            )
    sw = S.AveragedModel(m)
    out.append((repr(sw).splitlines()[0], list(sw.state_dict())))
    ema = S.AveragedModel(m, multi_avg_fn=S.get_ema_multi_avg_fn(0.9))
    opt = t.optim.SGD(m.parameters(), lr=0.02)
    sched = S.SWALR(opt, swa_lr=0.005, anneal_epochs=3)
    lin = S.SWALR(
        t.optim.SGD([t.zeros(1, requires_grad=True)], lr=1.0),
        swa_lr=0.1,
        anneal_epochs=2,
        anneal_strategy="linear",
    )
    x = t.tensor(np.linspace(-2, 2, 16).reshape(8, 2), dtype=t.float32)
    for step in range(4):
        opt.zero_grad()
        m(x).pow(2).mean().backward()
        opt.step()
        sched.step()
        lin.optimizer.step()
        lin.step()
        sw.update_parameters(m)
        ema.update_parameters(m)
        out.append((sched.get_last_lr(), lin.get_last_lr(), int(sw.n_averaged)))
    out.append([np.round(p.detach().numpy(), 6).tolist() for p in sw.parameters()])
    out.append([np.round(p.detach().numpy(), 6).tolist() for p in ema.parameters()])
    S.update_bn([x, x * 2], sw)
    bn = sw.module[1]
    out.append(
        (
            np.round(bn.running_mean.numpy(), 5).tolist(),
            np.round(bn.running_var.numpy(), 5).tolist(),
            int(bn.num_batches_tracked),
            bn.momentum,
        )
    )
    out.append(np.round(sw(x).detach().numpy(), 5).tolist())
    return out


def _close(got: Any, want: Any) -> None:
    """``got`` equals ``want``, numbers within float32 rounding, nested lists matched
    item by item."""
    try:
        numbers = np.asarray(want, dtype=float)
    except (TypeError, ValueError):  # (ragged, or not numbers)
        numbers = None
    if numbers is not None:
        np.testing.assert_allclose(np.asarray(got, dtype=float), numbers, rtol=1e-5, atol=1e-5)
    elif isinstance(want, list | tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
    else:
        assert got == want


def test_as_pytorch():
    runs_alike(run, ftorch, real_torch, _close)
