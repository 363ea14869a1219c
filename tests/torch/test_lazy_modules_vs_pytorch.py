"""Lazy modules against PyTorch (skipped without it): before and after the first
call, the repr, ``state_dict`` keys, class and ``isinstance``, parameter and
buffer shapes and dtypes, the output's shape; the parameters an optimizer was
given before that call are the ones filled; hooks registered before it still run;
PyTorch's errors for a wrong input rank and channels not divisible by groups.
(The drawn values differ: the two libraries' generators do.)"""

from __future__ import annotations

from typing import Any

import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import raises_alike  # noqa: E402

import fad.torch as ftorch  # noqa: E402

CASES = {  # name: (constructor, input shape)
    "linear": (lambda nn: nn.LazyLinear(3), (2, 5)),
    "linear_no_bias": (lambda nn: nn.LazyLinear(3, bias=False), (4, 2, 5)),
    "conv1d": (lambda nn: nn.LazyConv1d(4, 3, padding=1), (2, 3, 7)),
    "conv2d_groups": (lambda nn: nn.LazyConv2d(4, 2, groups=2), (1, 6, 5, 5)),
    "conv2d_unbatched": (lambda nn: nn.LazyConv2d(2, 3), (3, 5, 5)),
    "conv3d": (lambda nn: nn.LazyConv3d(2, 2, bias=False), (1, 2, 3, 3, 3)),
    "conv_transpose1d": (lambda nn: nn.LazyConvTranspose1d(4, 2, groups=2), (1, 6, 4)),
    "conv_transpose2d": (lambda nn: nn.LazyConvTranspose2d(3, 3, stride=2), (2, 2, 3, 3)),
    "conv_transpose3d": (lambda nn: nn.LazyConvTranspose3d(1, 2), (1, 2, 2, 2, 2)),
    "batchnorm1d": (lambda nn: nn.LazyBatchNorm1d(), (4, 3)),
    "batchnorm2d": (lambda nn: nn.LazyBatchNorm2d(affine=False), (2, 3, 4, 4)),
    "batchnorm3d": (lambda nn: nn.LazyBatchNorm3d(momentum=None), (2, 2, 2, 2, 2)),
    "instancenorm1d": (lambda nn: nn.LazyInstanceNorm1d(), (2, 3, 5)),
    "instancenorm2d": (lambda nn: nn.LazyInstanceNorm2d(track_running_stats=False), (2, 3, 4, 4)),
    "instancenorm3d": (lambda nn: nn.LazyInstanceNorm3d(affine=False), (1, 2, 3, 3, 3)),
}


def snapshot(m: Any) -> tuple:
    lazy = type(m).__module__.split(".")[0] == "fad"
    is_lazy = (ftorch if lazy else real_torch).nn.parameter.is_lazy
    return (repr(m), type(m).__name__, list(m.state_dict()),
            [(n, str(p.dtype), type(p).__name__, None if is_lazy(p) else tuple(p.shape))
             for n, p in [*m.named_parameters(), *m.named_buffers()]])


def run(t: Any, case: str) -> tuple:
    make, shape = CASES[case]
    m = make(t.nn)
    before = snapshot(m)
    kind = [isinstance(m, c) for c in (t.nn.Linear, t.nn.Conv1d, t.nn.Conv2d, t.nn.Conv3d,
                                       t.nn.ConvTranspose2d, t.nn.BatchNorm2d,
                                       t.nn.InstanceNorm1d)]
    params = list(m.parameters())
    calls = []
    m.register_forward_hook(lambda mod, args, out: calls.append(tuple(out.shape)))
    out = m(t.ones(*shape))
    same = [p is q for p, q in zip(params, m.parameters())]
    return before, kind, snapshot(m), tuple(out.shape), calls, same, len(params)


@pytest.mark.parametrize("case", list(CASES))
def test_lazy_module_before_and_after_its_first_call(case: str):
    assert run(ftorch, case) == run(real_torch, case)


def test_optimizer_made_before_the_first_call_trains_the_filled_parameters():
    for t in (ftorch, real_torch):
        t.manual_seed(0)
        m = t.nn.Sequential(t.nn.LazyConv2d(2, 3), t.nn.Flatten(), t.nn.LazyLinear(1))
        opt = t.optim.SGD(m.parameters(), lr=0.1)
        x = t.ones(2, 1, 4, 4)
        m(x)
        before = [p.detach().clone() for p in m.parameters()]
        m(x).sum().backward()
        opt.step()
        assert all(not t.equal(a, b) for a, b in zip(before, m.parameters()))
        assert [type(c).__name__ for c in m] == ["Conv2d", "Flatten", "Linear"]


@pytest.mark.parametrize("case", ["rank", "groups"])
def test_errors_are_pytorchs(case: str):
    def call(t: Any) -> Any:
        if case == "rank":
            t.nn.LazyConv2d(4, 3)(t.ones(2, 3))
        else:
            t.nn.LazyConv1d(4, 2, groups=2)(t.ones(1, 3, 5))
    raises_alike(call, (real_torch, ftorch))
