"""``nn.SyncBatchNorm`` (one process), ``SyncBatchNorm.convert_sync_batchnorm``,
``torch.func.replace_all_batch_norm_modules_`` and ``torch.func.functionalize``
against PyTorch (skipped without it)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import outcome, raises_alike  # noqa: E402

import fad.torch as ftorch  # noqa: E402


def batch(t: Any, shape: tuple) -> Any:
    return t.tensor(np.sin(np.arange(np.prod(shape))).reshape(shape))


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 2, 2)])
def test_sync_batch_norm_in_one_process(shape: tuple):
    def run(t: Any) -> tuple:
        bn = t.nn.SyncBatchNorm(3, momentum=0.3).double()
        x = batch(t, shape).requires_grad_()
        y = bn(x)
        (y * y.detach()).sum().backward()
        bn.eval()
        return (repr(bn), y, x.grad, bn.running_mean, bn.running_var, bn(batch(t, shape)),
                list(bn.state_dict()))
    assert outcome(run, ftorch) == outcome(run, real_torch)


def test_convert_sync_batchnorm():
    def run(t: Any) -> tuple:
        net = t.nn.Sequential(t.nn.Conv2d(1, 2, 1), t.nn.BatchNorm2d(2),
                              t.nn.Sequential(t.nn.BatchNorm1d(4), t.nn.InstanceNorm1d(4)))
        net[1].eval()
        params = [id(p) for p in net.parameters()]
        new = t.nn.SyncBatchNorm.convert_sync_batchnorm(net)
        top = t.nn.SyncBatchNorm.convert_sync_batchnorm(t.nn.BatchNorm1d(3))
        return (repr(new), [id(p) for p in new.parameters()] == params, new is net,
                new[1].training, type(top).__name__)
    assert run(ftorch) == run(real_torch)


def test_replace_all_batch_norm_modules_and_functionalize():
    def run(t: Any) -> tuple:
        net = t.nn.Sequential(t.nn.Linear(2, 3), t.nn.BatchNorm1d(3))
        out = t.func.replace_all_batch_norm_modules_(net)
        bn = net[1]
        y = t.func.functionalize(lambda x: x.mul_(2).add_(1))(t.ones(2))
        return (out is net, bn.running_mean is None, bn.running_var is None,
                bn.num_batches_tracked is None, bn.track_running_stats, list(net.state_dict()),
                tuple(net(t.ones(4, 2)).shape), y.tolist())
    assert run(ftorch) == run(real_torch)


def test_errors_are_pytorchs():
    raises_alike(lambda t: t.nn.SyncBatchNorm(3)(t.ones(3)), (real_torch, ftorch))
    raises_alike(lambda t: t.func.functionalize(lambda x: x, remove="views"),
                 (real_torch, ftorch))
