"""The markdown tables of a run (the results section of benchmarks/README.md)
and the description of the machine."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np

import fad

from .libs import autograd, jax, torch
from .model import CASES

ROOT = Path(__file__).resolve().parents[2]  # the repository


def fmt_time(t: float | None) -> str:
    if t is None:
        return ""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if t >= scale:
            return f"{t / scale:.3g} {unit}"
    return f"{t / 1e-9:.3g} ns"


def fmt_bytes(b: int | None) -> str:
    if b is None:
        return ""
    for unit, scale in (("GB", 2**30), ("MB", 2**20), ("kB", 2**10)):
        if b >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b} B"


def fmt(x: float | None, spec: str, suffix: str = "") -> str:
    return "" if x is None else f"{x:{spec}}{suffix}"


def shorten(text: str, width: int = 90) -> str:
    """A table cell: one line, at most ``width`` characters (results.json keeps all)."""
    text = " ".join(text.split()).replace("|", "/")
    return text if len(text) <= width else text[:width - 1] + "…"


def fmt_ratio(r: dict) -> str:
    """Median ratio to NumPy and, when the rounds disagree, its quartile range."""
    if r.get("ratio") is None:
        return ""
    lo, hi = r.get("ratio_q1"), r.get("ratio_q3")
    if r["name"] == "numpy" or lo is None or hi - lo < 0.005:
        return f"{r['ratio']:.2f}x"
    return f"{r['ratio']:.2f}x ({lo:.2f}–{hi:.2f})"


def markdown(cases: list[dict]) -> str:
    lines = ["| case | problem | contender | time / call | × NumPy (IQR) | µs / op "
             "| peak mem | mem × NumPy | note |",
             "|---|---|---|---:|---:|---:|---:|---:|---|"]
    for c in cases:
        for p in c["problems"]:
            for r in p["contenders"]:
                note = "" if r["status"] == "ok" else shorten(r["status"])
                if not note and r.get("first_call_s") is not None:
                    note = f"first call (trace + compile): {fmt_time(r['first_call_s'])}"
                lines.append(
                    f"| {c['name']} | {p['label']} | {r['name']} | {fmt_time(r.get('time_s'))} "
                    f"| {fmt_ratio(r)} | {fmt(r.get('us_per_op'), '.2f')} "
                    f"| {fmt_bytes(r.get('peak_bytes'))} | {fmt(r.get('mem_ratio'), '.2f', 'x')} "
                    f"| {note} |")
    return "\n".join(lines)


def markdown_bars(cases: list[dict]) -> str:
    lines = ["| case | target | measured | met |", "|---|---|---|:-:|"]
    for c in cases:
        for b in c["bars"]:
            met = {True: "yes", False: "**NO**", None: "n/a"}[b["met"]]
            lines.append(f"| {c['name']} | {b['text']} | {shorten(b['value'])} | {met} |")
    return "\n".join(lines)


def machine() -> dict:
    info = {"python": sys.version.split()[0], "numpy": np.__version__,
            "fad": getattr(fad, "__version__", "?"), "platform": platform.platform(),
            "cpu": cpu_model(), "cores": os.cpu_count()}
    info["fad_commit"] = fad_commit()
    if autograd is not None:
        info["autograd"] = package_version("autograd")
    if torch is not None:
        info["torch"] = torch.__version__
    if jax is not None:
        info["jax"] = jax.__version__
    try:
        from threadpoolctl import threadpool_info
        info["blas"] = sorted({f"{d.get('internal_api')} {d.get('version')}"
                               for d in threadpool_info()})
    except ImportError:
        pass
    return info


def fad_commit() -> str:
    """The checked-out commit of the fad repository (read-only git query), '+dirty'
    when fad/ has uncommitted changes."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                              capture_output=True, check=True).stdout.strip()
        status = ["git", "--no-optional-locks", "status", "--porcelain", "--", "fad"]
        dirty = subprocess.run(status, cwd=ROOT, text=True, capture_output=True,
                               check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def package_version(name: str) -> str:
    try:
        return version(name)
    except Exception:  # noqa: BLE001 - a version string is informative only
        return "installed"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_line(info: dict) -> str:
    libs = ", ".join(f"{k} {info[k]}" for k in ("numpy", "autograd", "torch", "jax")
                     if k in info)
    blas = "; ".join(info.get("blas", []))
    return (f"fad {info.get('fad_commit', '?')}; "
            f"{info['cpu']}, {info['cores']} cores, {info['platform']}, Python "
            f"{info['python']}, {libs}; BLAS/OpenMP: {blas}; one thread for every library")


def report(data: dict) -> str:
    cases = [data["cases"][n] for n in CASES if n in data["cases"]]
    dates = sorted({c["date"][:10] for c in cases})
    modes = sorted({c["mode"] for c in cases})
    loads = [c["loadavg_before"][0] for c in cases]
    head = (f"Measured {', '.join(dates)} ({'/'.join(modes)} mode) on: "
            f"{machine_line(data['machine'])}. Load average (1 min) before the cases: "
            f"{min(loads):.1f} to {max(loads):.1f}.")
    return f"{head}\n\n{markdown(cases)}\n\nTargets:\n\n{markdown_bars(cases)}\n"
