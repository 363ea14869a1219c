"""Checking and timing: every contender's gradient is checked against the
reference, then the contenders are timed round-robin; peak memory by
``tracemalloc``; cProfile tables for ``--profile``."""

from __future__ import annotations

import cProfile
import datetime
import gc
import os
import pstats
import statistics
import time
import tracemalloc
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .contenders import leaves
from .model import CASES, MODES, Contender, Problem, Settings, describe


def to_numpy(x: Any) -> np.ndarray:
    """A gradient leaf of any contender (NumPy, torch, fad.torch tensor) as an ndarray."""
    if hasattr(x, "detach"):
        x = x.detach()
    if hasattr(x, "numpy") and not isinstance(x, np.ndarray):
        return np.asarray(x.numpy())
    return np.asarray(x)


def mismatch(ref: Any, got: Any, rtol: float) -> str:
    """'' when the two gradients agree, else a description of the worst difference."""
    r, g = leaves(ref), [to_numpy(x) for x in leaves(got)]
    if len(r) != len(g):
        return f"gradient has {len(g)} leaves, expected {len(r)}"
    for i, (a, b) in enumerate(zip(r, g)):
        if a.shape != b.shape:
            return f"leaf {i}: shape {b.shape}, expected {a.shape}"
        atol = rtol * float(np.max(np.abs(a))) if a.size else 0.0
        if not np.allclose(b, a, rtol=rtol, atol=atol):
            err = float(np.max(np.abs(b.astype(np.float64) - a)))
            return f"leaf {i}: max abs error {err:.3g} (rtol {rtol:g})"
    return ""


def verify(problem: Problem) -> dict[str, str]:
    """Status per contender: 'ok', 'skipped: ...', 'error: ...' or 'WRONG: ...'."""
    ref = first_call(problem.contenders[0])
    status = {problem.contenders[0].name: "ok"}
    for c in problem.contenders[1:]:
        if c.skip or c.error:
            status[c.name] = f"skipped: {c.skip}" if c.skip else c.error
            continue
        try:
            got = first_call(c)
        except Exception as exc:  # noqa: BLE001 - report the failure, keep benchmarking
            status[c.name] = describe(exc, "gradient call")
            continue
        bad = mismatch(ref, got, problem.rtol)
        status[c.name] = f"WRONG: {bad}" if bad else "ok"
    return status


def first_call(c: Contender) -> Any:
    """The contender's first call (for a jitted one: trace, optimise, compile, run),
    timed; it is also the first warm-up call."""
    t0 = time.perf_counter()
    out = c.fn()
    c.first_call_s = time.perf_counter() - t0
    return out


def time_calls(fn: Callable[[], Any], number: int) -> float:
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t0) / number


def calibrate(fn: Callable[[], Any], target: float) -> tuple[int, float]:
    """(calls per measurement, seconds per call): the fastest of the warm-up calls
    made in about ``target`` seconds (at least one, at most 100). A contender's
    first calls may still be filling its caches (the facade learns an operation's
    direct form, compiles a backward at its second call...): sized by one of them,
    a measurement would hold too few calls, each paying a larger share of the cold
    caches that the collection before every measurement leaves."""
    best = spent = time_calls(fn, 1)
    for _ in range(99):
        if spent >= target:
            break
        t = time_calls(fn, 1)
        best, spent = min(best, t), spent + t
    return max(1, int(target / max(best, 1e-9))), best


def measure_times(contenders: list[Contender], s: Settings) -> tuple[dict, int]:
    """Round-robin timing; returns {name: [seconds per call, one per round]}, rounds."""
    calib = {c.name: calibrate(c.fn, s.target) for c in contenders}
    round_cost = sum(max(n * t, t) for n, t in calib.values())
    rounds = int(min(s.max_rounds, max(s.min_rounds, s.budget // max(round_cost, 1e-9))))
    samples: dict[str, list[float]] = {c.name: [] for c in contenders}
    for r in range(rounds):
        k = r % len(contenders)
        for c in contenders[k:] + contenders[:k]:
            gc.collect()
            samples[c.name].append(time_calls(c.fn, calib[c.name][0]))
    return samples, rounds


def peak_bytes(fn: Callable[[], Any]) -> int:
    """Peak traced allocation above the starting level during one call of ``fn``."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        out = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del out
    return peak - base


def run_problem(problem: Problem, s: Settings) -> dict:
    status = verify(problem)
    live = [c for c in problem.contenders if status[c.name] == "ok"]
    samples, rounds = measure_times(live, s)
    ref = problem.contenders[0].name
    rows = []
    for c in problem.contenders:
        row: dict[str, Any] = {"name": c.name, "status": status[c.name]}
        if c.name in samples:
            row.update(time_figures(samples[c.name], samples[ref], problem.n_ops))
        if c.compiles and c.first_call_s is not None:
            row["first_call_s"] = c.first_call_s
        rows.append(row)
    if problem.memory:
        add_memory(rows, problem, live)
    return {"label": problem.label, "n_ops": problem.n_ops, "rounds": rounds,
            "contenders": rows}


def time_figures(mine: list[float], ref: list[float], n_ops: int | None) -> dict:
    t = statistics.median(mine)
    ratios = [a / b for a, b in zip(mine, ref)]
    lo, hi = quartiles(ratios)
    fig = {"time_s": t, "ratio": statistics.median(ratios), "ratio_q1": lo, "ratio_q3": hi}
    if n_ops:
        fig["us_per_op"] = t / n_ops * 1e6
    return fig


def quartiles(xs: list[float]) -> tuple[float, float]:
    """First and third quartiles (min and max below four samples)."""
    if len(xs) < 4:
        return min(xs), max(xs)
    q = statistics.quantiles(xs, n=4)
    return q[0], q[2]


def add_memory(rows: list[dict], problem: Problem, live: list[Contender]) -> None:
    by_name = {r["name"]: r for r in rows}
    ref_peak = None
    for c in live:
        if not c.tracemalloc:
            continue
        peak = peak_bytes(c.fn)
        by_name[c.name]["peak_bytes"] = peak
        if ref_peak is None:
            ref_peak = peak
        by_name[c.name]["mem_ratio"] = peak / ref_peak if ref_peak else None


def run_case(name: str, mode: str) -> dict:
    c = CASES[name]
    t0 = time.perf_counter()
    problems = [run_problem(p, MODES[mode]) for p in c.build(mode)]
    bars = c.bars(problems)
    return {"name": name, "mode": mode, "doc": c.doc, "problems": problems,
            "bars": [vars(b) for b in bars], "seconds": time.perf_counter() - t0,
            "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "loadavg_before": os.getloadavg()}


def profile_fad(name: str, mode: str, top: int = 25, seconds: float = 1.0) -> str:
    """cProfile of the fad contender(s) of case ``name``: top functions by own time.

    Each contender is warmed up, then profiled over as many calls as fit in
    about ``seconds``; figures are per gradient call (µs; profiling inflates them).
    """
    out = []
    for p in CASES[name].build(mode):
        for c in p.contenders:
            if c.name.startswith("fad") and c.fn is not None:
                out.append(f"\n### {name} / {p.label} / {c.name}\n")
                out.append(profile_table(c.fn, top, seconds))
    return "\n".join(out)


def profile_table(fn: Callable[[], Any], top: int, seconds: float) -> str:
    number, _ = calibrate(fn, seconds)
    prof = cProfile.Profile()
    prof.runcall(lambda: [fn() for _ in range(number)])
    stats = pstats.Stats(prof).stats  # {(file, line, func): (cc, nc, tt, ct, callers)}
    total = sum(v[2] for v in stats.values()) / number * 1e6
    rows = sorted(stats.items(), key=lambda kv: -kv[1][2])[:top]
    lines = [f"{number} calls profiled; {total:.0f} µs of own time per call",
             "| own µs/call | % | cum µs/call | calls/call | function |",
             "|---:|---:|---:|---:|---|"]
    for (file, line, func), (_, nc, tt, ct, _) in rows:
        where = f"{Path(file).name}:{line}({func})" if line else func
        lines.append(f"| {tt / number * 1e6:.1f} | {100 * tt / number * 1e6 / total:.1f} "
                     f"| {ct / number * 1e6:.1f} | {nc / number:.0f} | {where} |")
    return "\n".join(lines)
