"""``torch.utils.benchmark``: ``Timer`` (a statement timed with ``timeit``'s clock
in a namespace of the caller's ``globals``), its ``Measurement`` (printed as
PyTorch prints it: the median, the interquartile range when there are four
measurements or more, the number of runs) and ``Compare`` (a table of
measurements by label, row ``sub_label`` and column ``description``).

>>> import fad.torch as torch
>>> from fad.torch.utils.benchmark import Timer
>>> m = Timer("x * 2", globals={"x": torch.ones(3)}, label="mul").timeit(100)
>>> m.number_per_run, len(m.times), m.title
(100, 1, 'mul')
"""

from __future__ import annotations

import math
import statistics
import textwrap
import timeit as _timeit
from typing import Any, Callable

__all__ = ["Timer", "Measurement", "Compare", "select_unit"]

timer = _timeit.default_timer


def select_unit(t: float) -> tuple[str, float]:
    """The unit a time of ``t`` seconds is shown in, and its scale."""
    exponent = math.floor(math.log10(t) / 3) if t > 0 else -3
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(exponent, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


class Measurement:
    """Times of a statement: ``raw_times`` are the times of blocks of
    ``number_per_run`` runs; ``times`` per run."""

    def __init__(self, number_per_run: int, raw_times: list, task_spec: "Timer",
                 metadata: dict | None = None):
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.metadata = metadata

    # what the measurement describes
    stmt = property(lambda self: self.task_spec.stmt)
    label = property(lambda self: self.task_spec.label)
    sub_label = property(lambda self: self.task_spec.sub_label)
    description = property(lambda self: self.task_spec.description)
    env = property(lambda self: self.task_spec.env)
    num_threads = property(lambda self: self.task_spec.num_threads)

    @property
    def title(self) -> str:
        t = self.task_spec
        sub = f": {t.sub_label}" if t.sub_label else ""
        if t.label is not None:
            return t.label + sub
        if "\n" not in t.stmt:
            return t.stmt + sub
        return f"stmt:{f' ({t.sub_label})' if t.sub_label else ''}\n{textwrap.indent(t.stmt, '  ')}"

    @property
    def as_row_name(self) -> str:
        return self.sub_label or self.stmt or "[Unknown]"

    @property
    def times(self) -> list:
        return [t / self.number_per_run for t in self.raw_times]

    def _quantile(self, q: float) -> float:
        ts = sorted(self.times)
        pos = q * (len(ts) - 1)  # (linear interpolation, as torch.quantile)
        lo = math.floor(pos)
        hi = min(lo + 1, len(ts) - 1)
        return ts[lo] + (ts[hi] - ts[lo]) * (pos - lo)

    median = property(lambda self: self._quantile(0.5))
    mean = property(lambda self: statistics.fmean(self.times))
    iqr = property(lambda self: self._quantile(0.75) - self._quantile(0.25))

    @property
    def significant_figures(self) -> int:
        """The figures of the median the spread of the measurements supports (1 to 4)."""
        n = len(self.times)
        if n < 2 or self.median == 0:
            return 4
        stdev = statistics.stdev(self.times) / math.sqrt(n)
        interval = 1.645 * stdev / self.median  # (a 90% one-sided interval, relative)
        if interval <= 0:
            return 4
        return max(min(-math.floor(math.log10(interval)), 4), 1)

    @property
    def has_warnings(self) -> bool:
        return bool(self._warnings())

    def _warnings(self) -> list:
        n, median = len(self.times), self.median
        if n < 4 or median == 0:
            return []
        share = self.iqr / median
        if share <= 0.1:
            return []
        return [f"  WARNING: Interquartile range is {share * 100:.1f}% of the median "
                "measurement.\n           This suggests significant environmental influence."]

    def meets_confidence(self, threshold: float = 0.1) -> bool:
        return self.iqr / self.median < threshold if self.median else True

    def __repr__(self) -> str:
        n = len(self.times)
        unit, scale = select_unit(self.median)
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self.median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} "
                         f"({self._quantile(0.25) / scale:.2f} to "
                         f"{self._quantile(0.75) / scale:.2f})")
        threads = self.num_threads
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {threads} "
                     f"thread{'s' if threads > 1 else ''}")
        lines += self._warnings()
        return "\n".join(lines).strip()

    __str__ = __repr__


class Timer:
    """Times ``stmt`` (after ``setup``) in a namespace holding ``globals``.

    ``timeit(number)`` times one block of ``number`` runs; ``blocked_autorange``
    picks a block size whose timing overhead is negligible and times blocks until
    ``min_run_time`` seconds have passed; ``adaptive_autorange`` goes on until the
    interquartile range is within ``threshold`` of the median."""

    def __init__(self, stmt: str = "pass", setup: str = "pass", global_setup: str = "",
                 timer: Callable[[], float] = timer, globals: dict | None = None,
                 label: str | None = None, sub_label: str | None = None,
                 description: str | None = None, env: str | None = None,
                 num_threads: int = 1, language: Any = "python"):
        if str(language).lower().split(".")[-1] not in ("python", "0"):
            raise ValueError("fad.torch.utils.benchmark times Python statements only")
        self.stmt, self.setup, self.label, self.sub_label = stmt, setup, label, sub_label
        self.description, self.env, self.num_threads = description, env, num_threads
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer,
                                    globals=dict(globals or {}))

    def summarize(self) -> str:
        """The title, description and setup, as a measurement prints them."""
        t = Measurement(1, [0.0], self)
        setup = self.setup.strip()
        if setup == "pass":
            setup = ""
        elif "\n" in setup:
            setup = f"setup:\n{textwrap.indent(setup, '  ')}"
        else:
            setup = f"setup: {setup}"
        sections = [t.title, self.description or "", setup]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)

    def _block(self, number: int) -> float:
        return self._timer.timeit(number)

    def timeit(self, number: int = 1000000) -> Measurement:
        """One block of ``number`` runs (after one warm-up run)."""
        self._block(max(int(number // 100), 2))
        return Measurement(number, [self._block(number)], self)

    def repeat(self, repeat: int = -1, number: int = -1) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback: Callable | None = None) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _block_size(self, min_run_time: float) -> int:
        overhead = statistics.median(self._block(0) for _ in range(5))
        number = 1
        while True:
            taken = self._block(number)
            if overhead / max(taken, 1e-12) <= 1e-4 and taken >= min_run_time / 1000:
                break
            if taken > min_run_time or number * 10 > 2147483647:
                break
            number *= 10
        return number

    def _blocks(self, number: int, stop: Callable[[list], bool], callback: Callable | None,
                max_run_time: float | None = None) -> list:
        times: list = []
        total = 0.0
        while not stop(times) and (max_run_time is None or total < max_run_time):
            t = self._block(number)
            times.append(t)
            total += t
            if callback is not None:
                callback(number, t)
        return times

    def blocked_autorange(self, callback: Callable | None = None,
                          min_run_time: float = 0.2) -> Measurement:
        number = self._block_size(min_run_time)
        times = self._blocks(number, lambda ts: sum(ts) >= min_run_time, callback)
        return Measurement(number, times, self)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01,
                           max_run_time: float = 10.0, callback: Callable | None = None
                           ) -> Measurement:
        number = self._block_size(min_run_time=0.05)

        def confident(ts: list) -> bool:
            if len(ts) < 4 or sum(ts) < min_run_time:
                return False
            return Measurement(number, ts, self).meets_confidence(threshold)
        return Measurement(number, self._blocks(number, confident, callback, max_run_time),
                           self)


class Compare:
    """Measurements side by side: one table per label, a row per ``sub_label`` (or
    statement), a column per ``description``, times in one unit.

    >>> from fad.torch.utils.benchmark import Compare, Measurement, Timer
    >>> a = Measurement(10, [2e-5], Timer("f()", label="f", sub_label="n=1", description="A"))
    >>> b = Measurement(10, [4e-5], Timer("g()", label="f", sub_label="n=1", description="B"))
    >>> Compare([a, b]).print()
    [--- f ---]
             |  A  |  B
    1 threads: ---
        n=1  |  2.0  |  4.0
    <BLANKLINE>
    Times are in microseconds (us).
    <BLANKLINE>
    """

    def __init__(self, results: list):
        self._results = list(results)

    def extend_results(self, results: list) -> None:
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        pass

    def colorize(self, rowwise: bool = False) -> None:
        pass

    def highlight_warnings(self) -> None:
        pass

    def __str__(self) -> str:
        tables = []
        for label in dict.fromkeys(m.label for m in self._results):
            group = [m for m in self._results if m.label == label]
            tables.append(self._table(label, group))
        return "\n".join(tables)

    def _table(self, label: Any, group: list) -> str:
        columns = list(dict.fromkeys(m.description for m in group))
        rows = list(dict.fromkeys(m.as_row_name for m in group))
        unit, scale = select_unit(min(m.median for m in group))
        cell = {(m.as_row_name, m.description): f"{m.median / scale:.1f}" for m in group}
        heads = [str(c) if c is not None else "" for c in columns]
        width = max(len(r) for r in rows)
        body = [f"{r:>{width + 4}}  |  " + "  |  ".join(cell.get((r, c), "") for c in columns)
                for r in rows]
        head = " " * (width + 4) + "  |  " + "  |  ".join(heads)
        threads = {m.num_threads for m in group}
        lines = [f"[--- {label} ---]" if label is not None else "[---]", head]
        for n in sorted(threads):
            lines.append(f"{n} threads: ---")
            lines += [b for b, r in zip(body, rows)
                      if any(m.num_threads == n and m.as_row_name == r for m in group)]
        names = {"ns": "nanoseconds", "us": "microseconds", "ms": "milliseconds",
                 "s": "seconds"}
        lines += ["", f"Times are in {names[unit]} ({unit}).", ""]
        return "\n".join(lines)

    def print(self) -> None:
        print(str(self))
