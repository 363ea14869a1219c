"""``torch.testing.assert_close`` against PyTorch's (skipped without it): passes,
failures and their messages, for tensors, numbers, NumPy arrays and containers."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402


def cases(t: Any) -> list[Callable[[], None]]:
    ac = t.testing.assert_close
    nan = float("nan")
    return [
        lambda: ac(t.tensor([1.0, 2.0, 3.0]), t.tensor([1.0, 2.0, 3.5])),
        lambda: ac(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0, 3.0])),
        lambda: ac(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0], dtype=t.float64)),
        lambda: ac(1.0, 1.5),
        lambda: ac(t.tensor([[1, 2], [3, 4]]), t.tensor([[1, 2], [3, 5]])),
        lambda: ac(t.tensor([nan]), t.tensor([nan])),
        lambda: ac(t.tensor([nan]), t.tensor([nan]), equal_nan=True),
        lambda: ac([t.tensor(1.0), t.tensor(2.0)], [t.tensor(1.0), t.tensor(2.5)]),
        lambda: ac({"a": t.tensor(1.0)}, {"a": t.tensor(1.1)}),
        lambda: ac(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.1]), rtol=0.1, atol=0),
        lambda: ac(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.1]), rtol=0.1),
        lambda: ac(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.1]), msg="custom"),
        lambda: ac(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0], dtype=t.float64), check_dtype=False),
        lambda: ac(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0 + 1e-7])),
        lambda: ac(t.tensor([1, 2]), t.tensor([1, 2])),
        lambda: ac(t.tensor([1.5, nan, 2.0]), t.tensor([1.0, 1.0, 2.0])),
        lambda: ac(t.tensor([1.5, 3.0, 2.0]), t.tensor([1.0, 0.0, 2.0])),
        lambda: ac(np.array([1.0, 2.0]), np.array([1.0, 2.5])),
        lambda: ac([1, 2], [1, 3]),
        lambda: ac(t.tensor(1.0), t.tensor(1.2)),
        lambda: ac(t.zeros(0), t.zeros(0)),
        lambda: ac(t.tensor([True, False]), t.tensor([True, True])),
        lambda: ac(t.tensor([1.0 + 1j]), t.tensor([1.0 + 2j])),
        lambda: ac((t.tensor(1.0),), [t.tensor(1.0)]),
        lambda: ac(
            t.tensor([1.0, 2.0]), t.tensor([1.0, 2.1]), msg=lambda m: "X" + m.splitlines()[0]
        ),
    ]


def result(call: Callable[[], None]) -> str:
    try:
        call()
    except Exception as e:  # noqa: BLE001  (the exception is the result compared)
        return type(e).__name__ + ": " + str(e).replace("fad.torch.Tensor", "torch.Tensor")
    return "passed"


@pytest.mark.parametrize("k", range(len(cases(ftorch))))
def test_as_pytorch(k):
    assert result(cases(ftorch)[k]) == result(cases(real_torch)[k])
