"""The ``meta`` device against PyTorch (skipped without it): meta tensors made by
the factory functions, ``.to("meta")`` and ``with torch.device("meta")``; their
repr, device, strides, the shapes, dtypes and ``grad_fn`` of operations on them
(and a meta leaf's gradient); the errors for reading their values or moving them
off the device; ``Module.to("meta")`` and ``to_empty``."""

from __future__ import annotations

from typing import Any

import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import raises_alike  # noqa: E402

import fad.torch as ftorch  # noqa: E402


def describe(t: Any) -> tuple:
    return (repr(t), str(t.device), t.is_meta, tuple(t.shape), str(t.dtype), tuple(t.stride()),
            t.requires_grad)


def test_meta_tensors_and_operations():
    def run(t: Any) -> list:
        x = t.ones(2, 3, device="meta")
        w = t.empty(3, 4, device="meta", requires_grad=True)
        out = [x, w, t.zeros(5, dtype=t.int64, device="meta"), t.randn(2, device="meta"),
               t.full((2,), 3.0, device="meta"), t.empty_like(x), t.ones(2).to("meta"),
               x * 2, (x @ w).sum(0), x.t(), x[0], x.reshape(6), t.cat([x, x]), x.double(),
               t.nn.functional.relu(x @ w), (x > 0), t.nn.Parameter(t.empty(2, 2, device="meta"))]
        y = (x @ w).tanh().sum()
        y.backward()
        out += [y, w.grad]
        return [describe(o) for o in out]
    assert run(ftorch) == run(real_torch)


@pytest.mark.parametrize("case", ["item", "numpy", "tolist", "to_cpu", "bool", "module_to"])
def test_reading_or_moving_values_is_refused(case: str):
    def call(t: Any) -> Any:
        x = t.ones(2, 3, device="meta")
        if case == "item":
            x.sum().item()
        elif case == "numpy":
            x.numpy()
        elif case == "tolist":
            x.tolist()
        elif case == "to_cpu":
            x.to("cpu")
        elif case == "bool":
            bool(x.sum() > 0)
        else:
            t.nn.Linear(2, 2).to("meta").to("cpu")
    raises_alike(call, (real_torch, ftorch))


def test_modules_on_the_meta_device():
    def run(t: Any) -> list:
        with t.device("meta"):
            a = t.nn.Sequential(t.nn.Linear(3, 4), t.nn.BatchNorm1d(4))
        inside_default = str(t.ones(1).device)
        b = t.nn.Linear(3, 4).to("meta")
        out = [describe(p) for p in [*a.parameters(), *a.buffers(), *b.parameters()]]
        out.append(describe(a(t.ones(5, 3, device="meta"))))
        c = a.to_empty(device="cpu")
        out.append([str(p.device) for p in c.parameters()])
        out.append(inside_default)
        return out
    assert run(ftorch) == run(real_torch)
