"""``torch.utils.benchmark`` against PyTorch (skipped without it): a
``Measurement``'s printed form line by line (the time itself aside), its
attributes (``times``, ``raw_times``, ``number_per_run``, ``title``, ``median``
and ``mean`` of the times), ``blocked_autorange``'s blocks, the tutorial's use
(``Timer(stmt=..., globals=globals()).timeit(n)``, then ``.times[0]``), and
``torch.utils.hooks.RemovableHandle``."""

from __future__ import annotations

import re
from typing import Any

import pytest

real_torch = pytest.importorskip("torch")
import torch.utils.benchmark  # noqa: E402,F401

import fad.torch as ftorch  # noqa: E402


def shape_of(text: str) -> list:
    """The printed measurement with its numbers and the object address blanked."""
    text = re.sub(r"0x[0-9a-f]+", "ADDR", text)
    text = re.sub(r"\d+\.\d+ (ns|us|ms|s)\b", "T", text)
    text = re.sub(r"\(T to T\)", "(T to T)", text)
    text = text.replace("torch.utils.benchmark.utils.common.Measurement",
                        "fad.torch.utils.benchmark.Measurement")
    return [line for line in text.splitlines() if "WARNING" not in line
            and "environmental" not in line]


@pytest.mark.parametrize("kwargs", [
    {}, {"label": "mul"}, {"label": "mul", "sub_label": "n=8"},
    {"sub_label": "8", "description": "float"}, {"setup": "y = 1\nz = 2"},
    {"stmt": "y = x * 2\nz = y", "description": "two lines"}])
def test_timeit_measurement(kwargs: dict):
    def run(t: Any) -> tuple:
        x = t.ones(8)
        kw = {"stmt": "x * 2", **kwargs}
        m = t.utils.benchmark.Timer(globals={"x": x}, **kw).timeit(50)
        return (shape_of(repr(m)), m.number_per_run, len(m.times), len(m.raw_times), m.title,
                m.median == m.times[0] == m.mean, abs(m.raw_times[0] / 50 - m.times[0]) < 1e-15)
    assert run(ftorch) == run(real_torch)


def test_blocked_autorange_and_setup():
    for t in (ftorch, real_torch):
        x = t.ones(4)
        m = t.utils.benchmark.Timer("y + x", setup="y = x * 3", globals={"x": x},
                                    label="add").blocked_autorange(min_run_time=0.02)
        assert len(m.times) >= 1 and sum(m.raw_times) >= 0.02
        assert m.number_per_run >= 1 and m.median > 0
        lines = shape_of(repr(m))
        assert lines[1:3] == ["add", "setup: y = x * 3"]
        assert lines[3].startswith("  Median: T" if len(m.times) > 1 else "  T")


def test_tutorial_use_and_removable_handle():
    from fad.torch.utils.hooks import RemovableHandle

    def compute(n: int) -> Any:
        return ftorch.ones(n).sum()
    first = ftorch.utils.benchmark.Timer(stmt="compute(4)", globals={"compute": compute})
    second = ftorch.utils.benchmark.Timer(stmt="compute(8)", globals={"compute": compute})
    a, b = first.timeit(20), second.timeit(20)
    assert a.times[0] > 0 and b.times[0] > 0
    handle = ftorch.nn.Linear(1, 1).register_forward_pre_hook(lambda m, x: None)
    assert isinstance(handle, RemovableHandle)
