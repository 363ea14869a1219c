"""The elementwise chain of sin, *1.01, tanh, +0.1: 100 ops (``chain100``),
10^3 to 10^5 ops (``deep_chain``), compiled (``chain100_jit``) and through the
fad.torch facade (``facade_chain``, ``facade_deep_chain``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from harness import (
    Bar,
    Contender,
    Problem,
    autograd_call,
    autograd_contender,
    case,
    facade_contender,
    fad_contender,
    find,
    jit_contender,
    jit_speedup_bar,
    ratio_bar,
    relative_bar,
    torch_contender,
)
from harness.libs import anp

import fad
import fad.numpy as fnp


def chain(xp: Any, x: Any, reps: int) -> Any:
    """``reps`` repetitions of sin, *1.01, tanh, +0.1 (4 ops each), then sum."""
    for _ in range(reps):
        x = xp.tanh(xp.sin(x) * 1.01) + 0.1
    return xp.sum(x)


def chain_grad_numpy(x: np.ndarray, reps: int) -> np.ndarray:
    """Hand-written forward (keeping sin's input and tanh's output) and backward."""
    xs, ts = [], []
    for _ in range(reps):
        xs.append(x)
        t = np.tanh(np.sin(x) * 1.01)
        ts.append(t)
        x = t + 0.1
    g = np.ones_like(x)
    for xi, t in zip(reversed(xs), reversed(ts)):
        g = g * (1 - t * t) * 1.01 * np.cos(xi)
    return g


def chain_problem(n_ops: int, size: int = 16, facade: bool = False) -> Problem:
    reps = max(1, n_ops // 4)
    x = np.linspace(-1.0, 1.0, size)
    fad_grad = fad.grad(lambda x: chain(fnp, x, reps))
    contenders = [
        Contender("numpy", lambda: chain_grad_numpy(x, reps)),
        fad_contender("fad", fad_grad, x),
        autograd_contender(lambda: autograd_call(lambda x: chain(anp, x, reps), x)),
        torch_contender(lambda T, x: chain(T, x, reps), x),
    ]
    if facade:
        contenders.append(facade_contender(lambda T, x: chain(T, x, reps), x))
    return Problem(f"{4 * reps} ops, float64[{size}]", contenders, n_ops=4 * reps, rtol=1e-6)


def chain100_bars(results: list[dict]) -> list[Bar]:
    fad_r, ag = find(results, 0, "fad"), find(results, 0, "autograd")
    return [relative_bar("fad ratio ≤ autograd ratio", fad_r, ag)]


@case("chain100", bars=chain100_bars)
def chain100_case(size: str) -> list[Problem]:
    """100-op elementwise chain on a float64 16-vector (overhead-bound): 25
    repetitions of sin, *1.01, tanh, +0.1, then sum.  Per-call cost of
    ``fad.grad`` (trace + backward, no jit) against hand-written NumPy, HIPS
    autograd, torch eager and (when it exists) the fad.torch facade; the µs/op
    column is the time per call divided by 100."""
    return [chain_problem(8 if size == "tiny" else 100, facade=True)]


def ops_label(n: int) -> str:
    exp = math.log10(n)
    return f"10^{exp:.0f}" if exp == int(exp) else str(n)


def deep_bars(results: list[dict]) -> list[Bar]:
    """Per-op growth with depth, judged on the NumPy-normalised figure.

    The depths are timed one after the other, so a change of machine load
    between them moves the raw µs/op; the ratio to NumPy timed in the same
    rounds cancels it (hand-written NumPy's cost per op does not depend on
    depth). Both are shown; ``met`` uses the normalised growth.
    """
    if len(results) < 2:
        return [Bar("deep chain bars", "needs two depths", None)]
    lo, hi = results[0], results[-1]
    text = f"fad µs/op at {ops_label(hi['n_ops'])} ≤ 1.5x at {ops_label(lo['n_ops'])}"
    f_lo, f_hi = find(results, 0, "fad"), find(results, -1, "fad")
    if f_lo and f_hi and f_lo.get("us_per_op") and f_hi.get("us_per_op"):
        raw = f_hi["us_per_op"] / f_lo["us_per_op"]
        norm = f_hi["ratio"] / f_lo["ratio"]
        scale = Bar(text, f"{f_hi['us_per_op']:.1f} / {f_lo['us_per_op']:.1f} µs = {raw:.2f}x; "
                    f"normalised by NumPy: {norm:.2f}x", norm <= 1.5)
    else:
        scale = Bar(text, "not measured", None)
    rel = relative_bar(f"fad ratio ≤ autograd ratio at {ops_label(hi['n_ops'])}",
                       f_hi, find(results, -1, "autograd"))
    return [scale, rel]


@case("deep_chain", bars=deep_bars)
def deep_chain_case(size: str) -> list[Problem]:
    """Deep chain: the chain100 function at 10^3, 10^4 and 10^5 operations on a
    float64 16-vector.  Checks that the per-operation cost of ``fad.grad`` does
    not grow with depth (no quadratic work, no recursion) and compares it with
    autograd and torch eager at the same depths (default recursion limit)."""
    depths = {"full": (10**3, 10**4, 10**5), "quick": (10**3, 10**4), "tiny": (8, 40)}[size]
    problems = [chain_problem(n) for n in depths]
    for p in problems:
        p.memory = False
    return problems


def chain100_jit_bars(results: list[dict]) -> list[Bar]:
    return [jit_speedup_bar(results, 0.3), ratio_bar(results, "fad jit", 2.0)]


@case("chain100_jit", bars=chain100_jit_bars)
def chain100_jit_case(size: str) -> list[Problem]:
    """The chain100 function (100 elementwise ops on a float64 16-vector, then
    sum) compiled: ``fad.jit(fad.grad(f))(x)``, against hand-written NumPy and
    the un-jitted ``fad.grad(f)`` timed in the same rounds.  Overhead-bound: how
    much of fad's per-op cost jit removes (µs/op = time per call / 100)."""
    reps = 2 if size == "tiny" else 25
    x = np.linspace(-1.0, 1.0, 16)
    f = lambda x: chain(fnp, x, reps)
    contenders = [
        Contender("numpy", lambda: chain_grad_numpy(x, reps)),
        jit_contender("fad jit", fad.grad(f), x),
        fad_contender("fad", fad.grad(f), x),
    ]
    return [Problem(f"{4 * reps} ops, float64[16]", contenders, n_ops=4 * reps)]


def facade_bars(results: list[dict]) -> list[Bar]:
    """fad.torch's ratio to NumPy at most torch eager's, at each problem (depth)."""
    many = len(results) > 1
    return [relative_bar("fad.torch ratio ≤ torch ratio"
                         + (f" at {ops_label(r['n_ops'])}" if many else ""),
                         find(results, k, "fad.torch"), find(results, k, "torch"))
            for k, r in enumerate(results)]


def facade_chain_problem(n_ops: int) -> Problem:
    """The chain written once against the PyTorch API: fad.torch, torch eager, NumPy."""
    reps = max(1, n_ops // 4)
    x = np.linspace(-1.0, 1.0, 16)
    loss = lambda T, x: chain(T, x, reps)
    contenders = [
        Contender("numpy", lambda: chain_grad_numpy(x, reps)),
        facade_contender(loss, x),
        torch_contender(loss, x),
    ]
    return Problem(f"{4 * reps} ops, float64[16]", contenders, n_ops=4 * reps)


@case("facade_chain", bars=facade_bars)
def facade_chain_case(size: str) -> list[Problem]:
    """The chain100 function (100 elementwise ops on a float64 16-vector, then
    sum) written once against the PyTorch API and run through the fad.torch
    facade (``import fad.torch as torch``: leaf tensor with requires_grad,
    forward, ``.backward()``, read ``.grad``) and through real PyTorch eager,
    beside hand-written NumPy.  Pure per-op overhead of the stateful facade:
    read the µs/op column (time per call / 100)."""
    return [facade_chain_problem(8 if size == "tiny" else 100)]


@case("facade_deep_chain", bars=facade_bars)
def facade_deep_chain_case(size: str) -> list[Problem]:
    """The facade_chain function at 10^3, 10^4 and 10^5 operations (float64
    16-vector) through the fad.torch facade and torch eager, beside
    hand-written NumPy: the facade's per-operation cost must not grow with
    the depth of the recorded graph (no quadratic work, no recursion, the
    cyclic garbage collector kept busy by few objects per operation)."""
    depths = {"full": (10**3, 10**4, 10**5), "quick": (10**3, 10**4), "tiny": (8, 40)}[size]
    problems = [facade_chain_problem(n) for n in depths]
    for p in problems:
        p.memory = False
    return problems
