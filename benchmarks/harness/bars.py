"""Helpers that turn the measured figures of a case into ``Bar``s (targets)."""

from __future__ import annotations

from .model import Bar
from .report import fmt_time


def ratio_bar(results: list[dict], contender: str, limit: float, what: str = "time",
              problem: int = 0) -> Bar:
    """``contender``'s time (or memory) ratio to NumPy is at most ``limit``."""
    key = "ratio" if what == "time" else "mem_ratio"
    text = f"{contender} {what} ≤ {limit}x NumPy"
    got = find(results, problem, contender)
    if got is None or got.get(key) is None:
        return Bar(text, got["status"] if got else "not measured", None)
    return Bar(text, f"{got[key]:.2f}x", got[key] <= limit)


def find(results: list[dict], problem: int, contender: str) -> dict | None:
    """The result row of ``contender`` in problem number ``problem`` (None if absent)."""
    if not results or problem >= len(results) or problem < -len(results):
        return None
    for c in results[problem]["contenders"]:
        if c["name"] == contender:
            return c
    return None


def relative_bar(text: str, mine: dict | None, other: dict | None, slack: float = 1.0) -> Bar:
    """``mine``'s ratio to NumPy is at most ``slack`` times ``other``'s."""
    if not mine or mine.get("ratio") is None or not other or other.get("ratio") is None:
        return Bar(text, "not measured", None)
    value = f"{mine['ratio']:.2f}x vs {other['ratio']:.2f}x"
    return Bar(text, value, mine["ratio"] <= slack * other["ratio"])


def jit_speedup_bar(results: list[dict], limit: float) -> Bar:
    """'fad jit' costs at most ``limit`` times 'fad' (the un-jitted call) per call."""
    return pair_bar(results, "fad jit", "fad", limit, f"fad jit time ≤ {limit}x un-jitted fad")


def pair_bar(results: list[dict], mine: str, other: str, limit: float, text: str = "",
             problem: int = 0) -> Bar:
    """Contender ``mine`` costs at most ``limit`` times contender ``other`` per call.

    The quotient of the two same-round ratios to NumPy, so that a change of load
    between rounds cancels."""
    text = text or f"{mine} time ≤ {limit}x {other} time"
    a, b = find(results, problem, mine), find(results, problem, other)
    if not a or a.get("ratio") is None or not b or b.get("ratio") is None:
        return Bar(text, "not measured", None)
    q = a["ratio"] / b["ratio"]
    return Bar(text, f"{q:.3f}x ({fmt_time(a['time_s'])} vs {fmt_time(b['time_s'])})",
               q <= limit)
