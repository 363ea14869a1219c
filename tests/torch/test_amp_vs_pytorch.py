"""``torch.amp.GradScaler`` and ``torch.autocast`` against PyTorch (skipped without
it): scaling, unscaling, steps skipped on non-finite gradients, scale growth and
back-off, ``state_dict``, the disabled CUDA scaler and its warning, and
``is_autocast_enabled`` inside a region."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402


def run(t: Any) -> list:
    out = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        s = t.amp.GradScaler("cuda")
        out.append((s.is_enabled(), [str(x.message) for x in w if "GradScaler" in str(x.message)]))
        out.append(t.cuda.amp.GradScaler().is_enabled())
    s = t.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
    t.manual_seed(0)
    m = t.nn.Linear(2, 1)
    with t.no_grad():
        m.weight.copy_(t.tensor([[0.5, -1.0]]))
        m.bias.fill_(0.25)
    opt = t.optim.SGD(m.parameters(), lr=0.1)
    for i in range(3):
        opt.zero_grad()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with t.autocast("cpu", enabled=False):
                loss = m(t.ones(1, 2)).sum()
        sl = s.scale(loss)
        out.append(sl.item() / loss.item())
        sl.backward()
        out.append(s.step(opt))
        s.update()
        out.append(s.get_scale())
    out.append([p.tolist() for p in m.parameters()])
    m.weight.grad = t.tensor([[float("inf"), 1.0]])
    out.append((s.step(opt), s.update(), s.get_scale(), [p.tolist() for p in m.parameters()]))
    out.append(s.state_dict())
    s2 = t.amp.GradScaler("cpu")
    s2.load_state_dict(s.state_dict())
    out.append(s2.get_scale())
    opt.zero_grad()
    s.scale(m(t.ones(1, 2)).sum()).backward()
    s.unscale_(opt)
    try:
        s.unscale_(opt)
    except RuntimeError as e:
        out.append(str(e))
    out.append((t.is_autocast_enabled("cpu"),))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with t.autocast("cpu"):
            out.append(t.is_autocast_enabled("cpu"))
    return out


def test_as_pytorch():
    assert run(ftorch) == run(real_torch)


def test_autocast_says_it_keeps_the_precision():
    import fad.torch.amp as amp

    amp._WARNED[0] = False
    with pytest.warns(UserWarning, match="own precision"):
        with ftorch.autocast("cpu"):
            y = ftorch.ones(2, 2) @ ftorch.ones(2, 2)
    assert y.dtype == ftorch.float32
