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
import json
import os
import time
import types
from typing import Any, Callable

from .. import _recorder
from ..tensor import Tensor

__all__ = ["profile", "record_function", "ProfilerActivity", "EventList", "FunctionEventAvg",
           "ProfilerAction", "schedule", "tensorboard_trace_handler"]


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
        self.cpu_memory_usage = 0  # (bytes of the outputs, with ``profile_memory``)
        self.self_cpu_memory_usage = 0
        self.device_memory_usage = self.self_device_memory_usage = 0

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


def _bytes(n: float) -> str:
    """PyTorch's way of printing a memory size."""
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if abs(n) >= size:
            return f"{n / size:.2f} {unit}"
    return f"{int(n)} B"


_SORT_KEYS = {"cpu_time_total": "cpu_time_total", "self_cpu_time_total": "self_cpu_time_total",
              "cpu_time": "cpu_time", "count": "count", "cpu_memory_usage": "cpu_memory_usage",
              "self_cpu_memory_usage": "self_cpu_memory_usage"}


class EventList(list):
    """The rows of ``key_averages()``, with PyTorch's ``table``."""

    def __init__(self, rows: Any = (), memory: bool = False):
        super().__init__(rows)
        self.memory = memory

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
        heads = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"] + (
            ["CPU Mem", "Self CPU Mem"] if self.memory else []) + ["# of Calls"]
        line = "-" * width + "  " + "  ".join(["-" * 12] * len(heads)) + "  "
        out = [line, "Name".rjust(width) + "  " + "  ".join(h.rjust(12) for h in heads) + "  ",
               line]
        for e in rows:
            cells = [f"{100 * e.self_cpu_time_total / total:.2f}%",
                     _us(e.self_cpu_time_total), f"{100 * e.cpu_time_total / total:.2f}%",
                     _us(e.cpu_time_total), _us(e.cpu_time)] + (
                [_bytes(e.cpu_memory_usage), _bytes(e.self_cpu_memory_usage)]
                if self.memory else []) + [str(e.count)]
            out.append(e.key.rjust(width) + "  " + "  ".join(c.rjust(12) for c in cells) + "  ")
        out += [line, f"Self CPU time total: {_us(sum(e.self_cpu_time_total for e in self))}",
                ""]
        return "\n".join(out)

    def __str__(self) -> str:
        return self.table()


class _Recording:
    """The events of the active profile: per key, calls and times; a stack of the
    open events' child time, for the self times."""

    def __init__(self, memory: bool = False) -> None:
        self.rows: dict[str, FunctionEventAvg] = {}
        self.stack: list = []  # per open event: [child time, child memory]
        self.events: list = []  # (key, start, duration) in microseconds, for a trace
        self.memory = memory

    def begin(self) -> None:
        self.stack.append([0.0, 0])

    def end(self, key: str, elapsed: float, start: float, result: Any = None) -> None:
        child_time, child_mem = self.stack.pop()
        mem = child_mem + (_nbytes(result) if self.memory else 0)
        if self.stack:
            self.stack[-1][0] += elapsed
            self.stack[-1][1] += mem
        row = self.rows.get(key)
        if row is None:
            row = self.rows[key] = FunctionEventAvg(key)
        row.count += 1
        row.cpu_time_total += elapsed
        row.self_cpu_time_total += elapsed - child_time
        row.cpu_memory_usage += mem
        row.self_cpu_memory_usage += mem - child_mem
        self.events.append((key, start * 1e6, elapsed))


def _nbytes(result: Any) -> int:
    """The bytes of the tensors an operation returned."""
    if isinstance(result, Tensor):
        return int(getattr(result._value, "nbytes", 0))
    if isinstance(result, list | tuple):
        return sum(_nbytes(r) for r in result)
    return 0


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
    result = None
    try:
        result = _ORIGINAL_APPLY(op, args, params)
        return result
    finally:
        rec.end("fad::" + op.name, (time.perf_counter() - start) * 1e6, start, result)


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


class ProfilerAction(enum.Enum):
    """What a profile does at a step of its ``schedule``."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """The action of each step (``prof.step()`` advances): ``skip_first`` steps,
    then cycles of ``wait`` idle, ``warmup`` and ``active`` recorded steps (the last
    one saves: ``on_trace_ready``), ``repeat`` times (0: forever).

    >>> import fad.torch as torch
    >>> s = torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
    >>> [s(i).name for i in range(5)]
    ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """
    cycle = wait + warmup + active

    def action(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        k = step % cycle
        if k < wait:
            return ProfilerAction.NONE
        if k < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if k < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return action


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False) -> Callable[["profile"], None]:
    """An ``on_trace_ready`` that writes each trace into ``dir_name`` (Chrome's
    JSON format, one file per trace)."""
    def handler(prof: "profile") -> None:
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{os.uname().nodename}_{os.getpid()}"
        prof.export_chrome_trace(os.path.join(
            dir_name, f"{name}.{time.time_ns()}.pt.trace.json"))
    return handler


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class profile:
    """``with profile() as prof:`` times the facade's operations inside the block;
    ``prof.key_averages()`` lists them (with ``profile_memory=True``, also the bytes
    of the tensors each returns). With a ``schedule``, ``prof.step()`` moves through
    its steps and only the active ones are recorded; ``on_trace_ready(prof)`` runs
    at the end of each active cycle. ``export_chrome_trace(path)`` writes the
    events in Chrome's trace format. The other arguments PyTorch takes
    (activities, record_shapes, with_stack, use_cuda...) are accepted; only the
    CPU is measured.

    >>> import fad.torch as torch
    >>> with torch.profiler.profile(profile_memory=True) as prof:
    ...     y = torch.ones(4, 4) @ torch.ones(4, 4)
    >>> [(e.key, e.cpu_memory_usage) for e in prof.key_averages()]
    [('fad::matmul', 64)]
    """

    def __init__(self, enabled: bool = True, *args: Any, schedule: Callable | None = None,
                 on_trace_ready: Callable | None = None, profile_memory: bool = False,
                 **kwargs: Any) -> None:
        if isinstance(enabled, list | tuple | set):  # (torch.profiler.profile(activities))
            enabled = True
        self.enabled = bool(enabled)
        self.profile_memory = bool(profile_memory)
        self.schedule = schedule
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self._rec = _Recording(self.profile_memory)
        self._action = ProfilerAction.RECORD if schedule is None else schedule(0)

    def _record(self, on: bool) -> None:
        if on and self._rec not in _ACTIVE:
            if not _ACTIVE:
                _switch(True)
            _ACTIVE.append(self._rec)
        elif not on and self._rec in _ACTIVE:
            _ACTIVE.remove(self._rec)
            if not _ACTIVE:
                _switch(False)

    def __enter__(self) -> "profile":
        if self.enabled:
            self._record(self._action in _RECORDING)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.enabled:
            recording = self._rec in _ACTIVE
            self._record(False)
            if recording and self.schedule is not None and self.on_trace_ready is not None:
                self.on_trace_ready(self)
            elif self.schedule is None and self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def start(self) -> None:
        self.__enter__()

    def stop(self) -> None:
        self.__exit__(None, None, None)

    def step(self) -> None:
        """Advance the ``schedule`` by one step."""
        if self.schedule is None or not self.enabled:
            return
        before = self._action
        self.step_num += 1
        self._action = self.schedule(self.step_num)
        if before == ProfilerAction.RECORD_AND_SAVE:
            self._record(False)
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        if self._action in _RECORDING or self._action == ProfilerAction.WARMUP:
            if before not in _RECORDING and before != ProfilerAction.WARMUP or \
                    before == ProfilerAction.RECORD_AND_SAVE:
                self._rec = _Recording(self.profile_memory)  # (a new cycle)
        self._record(self._action in _RECORDING)

    def key_averages(self, group_by_input_shape: bool = False, **_: Any) -> EventList:
        return EventList(self._rec.rows.values(), self.profile_memory)

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace (``chrome://tracing``, Perfetto)."""
        events = [{"name": k, "ph": "X", "cat": "cpu_op", "ts": ts, "dur": dur, "pid": os.getpid(),
                   "tid": 0} for k, ts, dur in self._rec.events]
        with open(path, "w") as f:
            json.dump({"traceEvents": events}, f)

    def events(self) -> list:
        """The recorded events ``(name, start, duration)``, in microseconds."""
        return list(self._rec.events)

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
            _ACTIVE[-1].end(self.name, (time.perf_counter() - self._start) * 1e6, self._start)
        self._start = None

    def __call__(self, fn: Any) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name):
                return fn(*args, **kwargs)
        wrapped.__name__ = getattr(fn, "__name__", "wrapped")
        return wrapped
