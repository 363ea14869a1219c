"""``torch.profiler`` / ``torch.autograd.profiler``: events, counts, self times,
the table, and nothing recorded (nor patched) outside a profile."""

from __future__ import annotations

import fad.torch as torch
from fad.torch import _recorder


def _model_step():
    x = torch.ones(4, 4, requires_grad=True)
    y = torch.ones(4, 4)
    for _ in range(3):
        y = (x @ y).sin()
    y.sum().backward()


def test_counts_and_names():
    with torch.autograd.profiler.profile() as prof:
        with torch.autograd.profiler.record_function("step"):
            _model_step()
    rows = {e.key: e for e in prof.key_averages()}
    assert rows["fad::matmul"].count == 3 and rows["fad::sin"].count == 3
    assert rows["step"].count == 1
    inner = sum(e.cpu_time_total for k, e in rows.items() if k != "step")
    assert rows["step"].cpu_time_total >= inner
    assert abs(rows["step"].self_cpu_time_total - (rows["step"].cpu_time_total - inner)) < 1.0


def test_table_as_pytorch():
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        _model_step()
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=2)
    lines = table.splitlines()
    assert lines[1].split() == ["Name", "Self", "CPU", "%", "Self", "CPU", "CPU", "total", "%",
                                "CPU", "total", "CPU", "time", "avg", "#", "of", "Calls"]
    assert len(lines) == 3 + 2 + 1 + 1 and lines[-1].startswith("Self CPU time total: ")
    first = lines[3].split()
    assert first[0].startswith("fad::") and first[-1] in ("1", "3")


def test_no_recording_outside_a_profile():
    plain = _recorder.apply.__code__
    with torch.profiler.profile():
        assert _recorder.apply.__code__ is not plain
        with torch.profiler.profile() as inner:
            torch.ones(2).sin()
    assert _recorder.apply.__code__ is plain
    assert [e.key for e in inner.key_averages()] == ["fad::sin"]
    with torch.autograd.profiler.record_function("alone"):
        torch.ones(2).sin()  # (no profile: no event, no error)


def test_decorator_and_disabled():
    @torch.profiler.record_function("f")
    def f(x):
        return x.exp()
    with torch.profiler.profile(enabled=False) as off:
        f(torch.ones(2))
    assert list(off.key_averages()) == []
    with torch.profiler.profile() as on:
        f(torch.ones(2))
    assert {e.key for e in on.key_averages()} == {"f", "fad::exp"}
