"""``torch.profiler`` / ``torch.autograd.profiler``: time the facade's operations.

Inside ``with profile() as prof:`` every operation of the facade's table (and
each ``record_function`` block) becomes an event; ``prof.key_averages().table()``
prints PyTorch's table of counts and CPU times. Outside a profile nothing is
measured: entering one swaps the recorder's entry point for a timed one, and
leaving puts it back, so the recording path costs nothing extra otherwise.

>>> import fad.torch as torch
>>> with torch.profiler.profile() as prof:
...     with torch.profiler.record_function("step"):
...         y = (torch.ones(3, 3) @ torch.ones(3, 3)).sum()
>>> sorted(e.key for e in prof.key_averages())
['fad::matmul', 'fad::sum', 'step']
>>> "# of Calls" in prof.key_averages().table(sort_by="cpu_time_total")
True
"""

from __future__ import annotations

import enum
import time
import types
from typing import Any

from .. import _recorder

__all__ = ["profile", "record_function", "ProfilerActivity", "EventList", "FunctionEventAvg"]


class ProfilerActivity(enum.Enum):
    """The devices a profile may watch (only the CPU is measured)."""

    CPU = 0
    CUDA = 1


class FunctionEventAvg:
    """One row of ``key_averages()``: an operation's (or block's) number of calls
    and CPU times in microseconds (``self``: without the events inside it)."""

    def __init__(self, key: str):
        self.key = key
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / max(self.count, 1)

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_us(self.self_cpu_time_total)}"
                f" cpu_time={_us(self.cpu_time)} count={self.count}>")


def _us(t: float) -> str:
    """PyTorch's way of printing a time given in microseconds."""
    if t >= 1e6:
        return f"{t / 1e6:.3f}s"
    if t >= 1e3:
        return f"{t / 1e3:.3f}ms"
    return f"{t:.3f}us"


_SORT_KEYS = {"cpu_time_total": "cpu_time_total", "self_cpu_time_total": "self_cpu_time_total",
              "cpu_time": "cpu_time", "count": "count"}


class EventList(list):
    """The rows of ``key_averages()``, with PyTorch's ``table``."""

    def table(self, sort_by: str | None = None, row_limit: int = 100, **_: Any) -> str:
        rows = list(self)
        if sort_by is not None:
            attr = _SORT_KEYS.get(sort_by.replace("cuda", "cpu").replace("device", "cpu"))
            if attr is None:
                raise AttributeError(f"'FunctionEventAvg' object has no attribute '{sort_by}'")
            rows.sort(key=lambda e: getattr(e, attr), reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        total = sum(e.self_cpu_time_total for e in self) or 1.0
        width = max([len("Name")] + [len(e.key) for e in rows]) + 2
        heads = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
                 "# of Calls"]
        line = "-" * width + "  " + "  ".join(["-" * 12] * len(heads)) + "  "
        out = [line, "Name".rjust(width) + "  " + "  ".join(h.rjust(12) for h in heads) + "  ",
               line]
        for e in rows:
            cells = [f"{100 * e.self_cpu_time_total / total:.2f}%",
                     _us(e.self_cpu_time_total), f"{100 * e.cpu_time_total / total:.2f}%",
                     _us(e.cpu_time_total), _us(e.cpu_time), str(e.count)]
            out.append(e.key.rjust(width) + "  " + "  ".join(c.rjust(12) for c in cells) + "  ")
        out += [line, f"Self CPU time total: {_us(sum(e.self_cpu_time_total for e in self))}",
                ""]
        return "\n".join(out)

    def __str__(self) -> str:
        return self.table()


class _Recording:
    """The events of the active profile: per key, calls and times; a stack of the
    open events' child time, for the self times."""

    def __init__(self) -> None:
        self.rows: dict[str, FunctionEventAvg] = {}
        self.stack: list = []

    def begin(self) -> None:
        self.stack.append(0.0)

    def end(self, key: str, elapsed: float) -> None:
        children = self.stack.pop()
        if self.stack:
            self.stack[-1] += elapsed
        row = self.rows.get(key)
        if row is None:
            row = self.rows[key] = FunctionEventAvg(key)
        row.count += 1
        row.cpu_time_total += elapsed
        row.self_cpu_time_total += elapsed - children


_ACTIVE: list = []  # the recordings of the open profiles (innermost last)
_ORIGINAL_APPLY = types.FunctionType(_recorder.apply.__code__, _recorder.apply.__globals__,
                                     "apply", _recorder.apply.__defaults__)
_PLAIN_CODE = _recorder.apply.__code__


def _timed(op: Any, args: tuple, params: dict) -> Any:
    if not _ACTIVE:  # (another thread closed the last profile meanwhile)
        return _ORIGINAL_APPLY(op, args, params)
    rec = _ACTIVE[-1]
    rec.begin()
    start = time.perf_counter()
    try:
        return _ORIGINAL_APPLY(op, args, params)
    finally:
        rec.end("fad::" + op.name, (time.perf_counter() - start) * 1e6)


def _timed_apply(op: Any, args: tuple, params: Any) -> Any:
    # (this code replaces the recorder's ``apply`` body while profiling; it runs
    # with that module's globals, where ``_fad_profiler_timed`` is set)
    return _fad_profiler_timed(op, args, params)  # noqa: F821


def _switch(on: bool) -> None:
    """Swap the code of the recorder's ``apply`` (every caller holds that very
    function object) for the timed one, or back."""
    if on:
        _recorder.__dict__["_fad_profiler_timed"] = _timed
        _recorder.apply.__code__ = _timed_apply.__code__
    else:
        _recorder.apply.__code__ = _PLAIN_CODE


class profile:
    """``with profile() as prof:`` times the facade's operations inside the block;
    ``prof.key_averages()`` lists them. The arguments PyTorch takes (activities,
    record_shapes, profile_memory, with_stack, use_cuda...) are accepted; only CPU
    time is measured."""

    def __init__(self, enabled: bool = True, *args: Any, **kwargs: Any) -> None:
        if isinstance(enabled, list | tuple | set):  # (torch.profiler.profile(activities))
            enabled = True
        self.enabled = bool(enabled)
        self._rec = _Recording()

    def __enter__(self) -> "profile":
        if self.enabled:
            if not _ACTIVE:
                _switch(True)
            _ACTIVE.append(self._rec)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.enabled and self._rec in _ACTIVE:
            _ACTIVE.remove(self._rec)
            if not _ACTIVE:
                _switch(False)

    def start(self) -> None:
        self.__enter__()

    def stop(self) -> None:
        self.__exit__(None, None, None)

    def step(self) -> None:
        """Accepted (schedules are not modelled)."""

    def key_averages(self, group_by_input_shape: bool = False, **_: Any) -> EventList:
        return EventList(self._rec.rows.values())

    def table(self, **kwargs: Any) -> str:
        return self.key_averages().table(**kwargs)

    def __str__(self) -> str:
        return self.table()


class record_function:
    """``with record_function("name"):`` makes the block one event of the active
    profile (its operations count as its children); nothing without a profile."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self._start: float | None = None

    def __enter__(self) -> "record_function":
        if _ACTIVE:
            _ACTIVE[-1].begin()
            self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._start is not None and _ACTIVE:
            _ACTIVE[-1].end(self.name, (time.perf_counter() - self._start) * 1e6)
        self._start = None

    def __call__(self, fn: Any) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name):
                return fn(*args, **kwargs)
        wrapped.__name__ = getattr(fn, "__name__", "wrapped")
        return wrapped
