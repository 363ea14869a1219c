"""fad benchmark suite: every figure is a ratio to hand-written NumPy timed in the same run.

Usage::

    python benchmarks/run.py                 # every case, full size (a few minutes)
    python benchmarks/run.py --quick         # smaller sizes, fewer repeats (smoke run)
    python benchmarks/run.py --only mlp      # one case (repeatable: --only mlp --only hvp)
    python benchmarks/run.py --list          # the registered cases and their description
    python benchmarks/run.py --profile chain100   # cProfile one call of the fad contender
    python benchmarks/run.py --update-readme # also rewrite the table in benchmarks/README.md

Method (see benchmarks/README.md): one BLAS thread for every library; each case
builds *problems*, each with a list of *contenders* whose first entry is the
hand-written NumPy reference (forward plus hand-derived backward).  Every
contender's gradient is checked against the reference before it is timed; the
contenders are then timed round-robin (the order rotates each round), after a
warm-up, and a contender's figure is the median over rounds of its time divided
by the reference's time in the same round.  Peak memory is measured with
``tracemalloc`` (NumPy reports its buffers to it) for the NumPy-based contenders.

A new case is one function decorated with ``@case(name, bars=...)`` returning
its problems; ``bars`` turns the measured figures into pass/fail targets.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import gc
import inspect
import json
import math
import os
import platform
import pstats
import statistics
import sys
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

import fad
import fad.numpy as fnp

try:
    import autograd
    import autograd.numpy as anp
    from autograd.tracer import getval as autograd_getval
except ImportError:  # pragma: no cover - optional reference library
    autograd = anp = autograd_getval = None

try:
    import torch
except ImportError:  # pragma: no cover - optional reference library
    torch = None

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")  # one thread, like the others
try:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
except ImportError:  # pragma: no cover - optional reference library
    jax = jnp = None

try:
    import fad.torch as fad_torch

    FAD_TORCH_ERROR = "" if hasattr(fad_torch, "tensor") else \
        "fad.torch incomplete (it imports but has no fad.torch.tensor)"
except Exception as exc:  # noqa: BLE001 - the facade is optional, report why it is absent
    fad_torch = None
    FAD_TORCH_ERROR = f"fad.torch unavailable ({type(exc).__name__}: {exc})"
if FAD_TORCH_ERROR:
    fad_torch = None

HERE = Path(__file__).resolve().parent
RESULTS_JSON = HERE / "results.json"
QUICK_JSON = HERE / "results-quick.json"
README = HERE / "README.md"
README_START = "<!-- results:start -->"
README_END = "<!-- results:end -->"


# ====================================================================== data model
@dataclass
class Contender:
    """One implementation of a problem's gradient computation.

    ``fn()`` runs one complete gradient computation (forward and backward) and
    returns the gradient; ``skip`` non-empty means the contender is unavailable
    (the library is missing), ``error`` that its set-up failed: both are
    reported, not timed.
    """

    name: str
    fn: Callable[[], Any] | None
    tracemalloc: bool = True  # NumPy-based: its memory is visible to tracemalloc
    skip: str = ""
    error: str = ""  # setting the contender up failed (reported as an error)
    compiles: bool = False  # jitted: the first call traces and compiles (time it, report it)
    first_call_s: float | None = None  # set by verify(): time of the first (warm-up) call


def guarded(name: str, setup: Callable[[], Callable[[], Any]], tracemalloc: bool = True,
            compiles: bool = False) -> Contender:
    """A contender whose set-up may fail (a library under construction): the
    failure is reported in the table instead of aborting the run."""
    try:
        return Contender(name, setup(), tracemalloc, compiles=compiles)
    except Exception as exc:  # noqa: BLE001 - report the failure, keep benchmarking
        return Contender(name, None, tracemalloc, error=describe(exc, "set-up"),
                         compiles=compiles)


def describe(exc: BaseException, when: str) -> str:
    return f"error in {when}: {type(exc).__name__}: {str(exc)[:200]}"


@dataclass
class Problem:
    """One size of one case: contenders[0] is the hand-written NumPy reference."""

    label: str
    contenders: list[Contender]
    n_ops: int | None = None  # elementwise ops in the function, for the µs/op column
    rtol: float = 1e-6
    memory: bool = True


@dataclass
class Bar:
    """A target of the project: ``met`` is None when it could not be evaluated."""

    text: str
    value: str
    met: bool | None


@dataclass
class Case:
    name: str
    doc: str
    build: Callable[[str], list[Problem]]
    bars: Callable[[list[dict]], list[Bar]]


@dataclass
class Settings:
    """Timing knobs of one run mode."""

    target: float  # seconds per measurement (a measurement repeats the call `number` times)
    min_rounds: int
    max_rounds: int
    budget: float  # seconds of timing per problem, spread over the rounds


MODES = {
    "full": Settings(target=0.05, min_rounds=3, max_rounds=15, budget=12.0),
    "quick": Settings(target=0.01, min_rounds=2, max_rounds=5, budget=1.5),
}

CASES: dict[str, Case] = {}


def case(name: str, bars: Callable[[list[dict]], list[Bar]] | None = None) -> Callable:
    """Register ``build(size) -> list[Problem]`` as the case ``name``."""
    def register(build: Callable[[str], list[Problem]]) -> Callable[[str], list[Problem]]:
        CASES[name] = Case(name, inspect.getdoc(build) or "", build, bars or (lambda r: []))
        return build
    return register


# ====================================================================== small helpers
def tree_map(f: Callable, tree: Any) -> Any:
    """Map over dict / list / tuple containers (dict keys sorted, as fad and JAX do)."""
    if isinstance(tree, dict):
        return {k: tree_map(f, tree[k]) for k in sorted(tree)}
    if isinstance(tree, list | tuple):
        return type(tree)(tree_map(f, t) for t in tree)
    return f(tree)


def leaves(tree: Any) -> list:
    out: list = []
    tree_map(out.append, tree)
    return out


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


def missing(lib: Any, what: str) -> str:
    return "" if lib is not None else f"{what} not installed"


def ops_label(n: int) -> str:
    exp = math.log10(n)
    return f"10^{exp:.0f}" if exp == int(exp) else str(n)


# ====================================================================== contender builders
def fad_contender(name: str, grad_fn: Callable, *args: Any) -> Contender:
    return Contender(name, lambda: grad_fn(*args))


def jit_contender(name: str, fn: Callable, *args: Any) -> Contender:
    """``j = fad.jit(fn)`` built once; ``j(*args)`` per call.  The first call
    (the gradient check, before any timing) traces, optimises and compiles; its
    time is reported in the note column, the timed calls run the cached program."""
    return guarded(name, lambda: _bind_args(fad.jit(fn), args), compiles=True)


def _bind_args(fn: Callable, args: tuple) -> Callable[[], Any]:
    return lambda: fn(*args)


def autograd_contender(build: Callable[[], Callable[[], Any]]) -> Contender:
    """``build()`` returns the zero-argument gradient call (only run if autograd exists)."""
    if autograd is None:
        return Contender("autograd", None, skip=missing(autograd, "autograd"))
    return Contender("autograd", build())


def torchlike_contender(T: Any, name: str, loss: Callable, params: Any, *consts: Any,
                        skip: str = "") -> Contender:
    """``loss(T, params, *consts).backward()`` with ``T`` torch or the fad.torch facade.

    The same source runs on both: leaves are created with ``T.tensor(...,
    requires_grad=True)``, ``.grad`` is reset to None before each step (what
    ``optimizer.zero_grad()`` does) and read after ``backward()``.
    """
    if T is None:
        return Contender(name, None, tracemalloc=False, skip=skip)
    return guarded(name, lambda: torchlike_step(T, loss, params, *consts),
                   tracemalloc=T is not torch)


def torchlike_step(T: Any, loss: Callable, params: Any, *consts: Any) -> Callable[[], Any]:
    p = tree_map(lambda a: T.tensor(a, requires_grad=True), params)
    c = [T.tensor(a) for a in consts]
    ps = leaves(p)

    def step() -> Any:
        for t in ps:
            t.grad = None
        loss(T, p, *c).backward()
        return tree_map(lambda t: t.grad, p)

    return step


def facade_contender(loss: Callable, params: Any, *consts: Any) -> Contender:
    """The same torch code run with ``import fad.torch as torch`` (skipped if absent)."""
    return torchlike_contender(fad_torch, "fad.torch", loss, params, *consts,
                               skip=FAD_TORCH_ERROR)


def torch_contender(loss: Callable, params: Any, *consts: Any) -> Contender:
    return torchlike_contender(torch, "torch", loss, params, *consts,
                               skip=missing(torch, "torch"))


def torch_func_contender(build: Callable[[], Callable[[], Any]]) -> Contender:
    """A ``torch.func`` transformation (vmap, grad, jacrev): ``build()`` returns the
    zero-argument call; skipped without torch."""
    if torch is None:
        return Contender("torch.func", None, tracemalloc=False, skip=missing(torch, "torch"))
    return guarded("torch.func", build, tracemalloc=False)


# ====================================================================== bar helpers
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


# ====================================================================== case 1: MLP
def softmax_cross_entropy(xp: Any, sg: Callable, z: Any, y: Any) -> Any:
    """Mean cross-entropy of integer labels ``y``, stable: the row max is a constant."""
    s = z - sg(xp.max(z, axis=1, keepdims=True))
    logp = s - xp.log(xp.sum(xp.exp(s), axis=1, keepdims=True))
    n = z.shape[0]
    return -xp.sum(logp[np.arange(n), y]) / n


def mlp_loss(xp: Any, sg: Callable, params: list, x: Any, y: Any) -> Any:
    h = x
    for layer in params[:-1]:
        h = xp.tanh(h @ layer["W"] + layer["b"])
    z = h @ params[-1]["W"] + params[-1]["b"]
    return softmax_cross_entropy(xp, sg, z, y)


def mlp_loss_torch(T: Any, params: list, x: Any, y: Any) -> Any:
    """The step as a PyTorch user writes it (runs on torch and on fad.torch)."""
    h = x
    for layer in params[:-1]:
        h = T.tanh(h @ layer["W"] + layer["b"])
    z = h @ params[-1]["W"] + params[-1]["b"]
    return T.nn.functional.cross_entropy(z, y)


def mlp_grad_numpy(params: list, x: np.ndarray, y: np.ndarray) -> list:
    """Hand-written forward and backward of ``mlp_loss``."""
    hs = [x]
    for layer in params[:-1]:
        hs.append(np.tanh(hs[-1] @ layer["W"] + layer["b"]))
    z = hs[-1] @ params[-1]["W"] + params[-1]["b"]
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    n = x.shape[0]
    p[np.arange(n), y] -= 1
    dz = p / n
    grads = []
    for i in range(len(params) - 1, -1, -1):
        grads.append({"W": hs[i].T @ dz, "b": dz.sum(axis=0)})
        if i:
            dz = (dz @ params[i]["W"].T) * (1 - hs[i] * hs[i])
    return grads[::-1]


def mlp_data(sizes: tuple, batch: int, seed: int = 0) -> tuple:
    rng = np.random.default_rng(seed)
    params = [{"W": (rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32),
               "b": (0.1 * rng.standard_normal(b)).astype(np.float32)}
              for a, b in zip(sizes[:-1], sizes[1:])]
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    y = rng.integers(0, sizes[-1], batch)
    return params, x, y


def mlp_shape(size: str) -> tuple[tuple, int]:
    """(layer sizes, batch) of the mlp cases."""
    return ((8, 6, 5, 3), 4) if size == "tiny" else ((784, 512, 512, 10), 128)


def mlp_loss_fad(params: list, x: Any, y: Any) -> Any:
    return mlp_loss(fnp, fad.stop_gradient, params, x, y)


def mlp_bars(results: list[dict]) -> list[Bar]:
    return [ratio_bar(results, "fad", 1.3), ratio_bar(results, "fad.torch", 1.3)]


@case("mlp", bars=mlp_bars)
def mlp_case(size: str) -> list[Problem]:
    """MLP training step: 784-512-512-10, tanh, batch 128, float32, softmax
    cross-entropy on integer labels; gradient w.r.t. a list-of-dicts pytree of
    parameters.  fad: ``fad.grad(loss)(params, x, y)``; autograd: ``grad``;
    torch eager and the fad.torch facade: ``F.cross_entropy(...).backward()``."""
    sizes, batch = mlp_shape(size)
    params, x, y = mlp_data(sizes, batch)
    fad_grad = fad.grad(mlp_loss_fad)
    contenders = [
        Contender("numpy", lambda: mlp_grad_numpy(params, x, y)),
        fad_contender("fad", fad_grad, params, x, y),
        autograd_contender(lambda: _autograd_call(
            lambda p, x, y: mlp_loss(anp, autograd_getval, p, x, y), params, x, y)),
        torch_contender(mlp_loss_torch, params, x, y),
        facade_contender(mlp_loss_torch, params, x, y),
    ]
    return [Problem(f"{'-'.join(map(str, sizes))}, batch {batch}", contenders, rtol=2e-3)]


def _autograd_call(loss: Callable, *args: Any) -> Callable[[], Any]:
    g = autograd.grad(loss)
    return lambda: g(*args)


# ====================================================================== cases 2, 3: chains
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
        autograd_contender(lambda: _autograd_call(lambda x: chain(anp, x, reps), x)),
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


# ====================================================================== case 4: HVP
def rosenbrock(xp: Any, x: Any) -> Any:
    a, b = x[:-1], x[1:]
    return xp.sum(100.0 * (b - a ** 2) ** 2 + (1.0 - a) ** 2)


def rosenbrock_hvp_numpy(x: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Closed form: the Hessian of Rosenbrock is tridiagonal."""
    a, b, va, vb = x[:-1], x[1:], v[:-1], v[1:]
    hv = np.zeros_like(x)
    hv[:-1] += (1200.0 * a * a - 400.0 * b + 2.0) * va - 400.0 * a * vb
    hv[1:] += -400.0 * a * va + 200.0 * vb
    return hv


def torch_hvp(T: Any, x_np: np.ndarray, v_np: np.ndarray) -> Callable[[], Any]:
    """Double backward: grad with create_graph=True, then the grad of <g, v>."""
    x = T.tensor(x_np, requires_grad=True)
    v = T.tensor(v_np)

    def hvp() -> Any:
        (g,) = T.autograd.grad(rosenbrock(T, x), x, create_graph=True)
        (hv,) = T.autograd.grad((g * v).sum(), x)
        return hv

    return hvp


def hvp_bars(results: list[dict]) -> list[Bar]:
    return [relative_bar("fad ratio ≤ torch ratio", find(results, 0, "fad"),
                         find(results, 0, "torch"))]


@case("hvp", bars=hvp_bars)
def hvp_case(size: str) -> list[Problem]:
    """Hessian-vector product of the 10,000-d Rosenbrock function (float64):
    fad forward-over-reverse ``fad.jvp(fad.grad(f), (x,), (v,))[1]`` without
    jit, against the closed-form NumPy HVP and torch double backward; fad
    reverse-over-reverse (grad of <grad f, v>) and autograd's
    ``hessian_tensor_product`` for reference."""
    n = 10 if size == "tiny" else 10_000
    rng = np.random.default_rng(1)
    x, v = rng.uniform(-1.5, 1.5, n), rng.standard_normal(n)
    f = lambda x: rosenbrock(fnp, x)
    fwd_rev = lambda x, v: fad.jvp(fad.grad(f), (x,), (v,))[1]
    rev_rev = fad.grad(lambda x, v: fnp.sum(fad.grad(f)(x) * v))
    contenders = [
        Contender("numpy", lambda: rosenbrock_hvp_numpy(x, v)),
        fad_contender("fad", fwd_rev, x, v),
        fad_contender("fad rev-over-rev", rev_rev, x, v),
        autograd_contender(lambda: _autograd_hvp(x, v)),
        Contender("torch", torch_hvp(torch, x, v) if torch else None, tracemalloc=False,
                  skip=missing(torch, "torch")),
    ]
    return [Problem(f"n = {n}, float64", contenders, rtol=1e-8)]


def _autograd_hvp(x: np.ndarray, v: np.ndarray) -> Callable[[], Any]:
    h = autograd.hessian_tensor_product(lambda x: rosenbrock(anp, x))
    return lambda: h(x, v)


# ====================================================================== case 5: big elementwise
def big_chain(xp: Any, x: Any) -> Any:
    """Ten elementwise operations and a sum."""
    a = xp.sin(x)
    b = xp.exp(a)
    c = b * x
    d = xp.tanh(c)
    e = d + 0.5
    f = e * a
    g = f * f
    h = g - x
    i = xp.tanh(h)
    return xp.sum(i)


def big_chain_grad_numpy(x: np.ndarray) -> np.ndarray:
    """Plain hand-written forward and backward (every forward intermediate stays
    alive until return, as in straightforward code; no ``out=`` tricks)."""
    a = np.sin(x)
    b = np.exp(a)
    c = b * x
    d = np.tanh(c)
    e = d + 0.5
    f = e * a
    g = f * f
    h = g - x
    i = np.tanh(h)
    gh = 1 - i * i
    gf = 2 * f * gh
    gc = gf * a * (1 - d * d)
    ga = gf * e + gc * x * b
    return ga * np.cos(x) + gc * b - gh


def big_chain_grad_numpy_inplace(x: np.ndarray) -> np.ndarray:
    """Memory-careful hand-written version (a reference row, not the baseline):
    each buffer is reused in place once its value is dead."""
    a = np.sin(x)
    b = np.exp(a)
    d = np.tanh(b * x)
    e = d + 0.5
    f = e * a
    gh = f * f
    gh -= x
    np.tanh(gh, out=gh)  # i
    gh *= gh
    np.subtract(1, gh, out=gh)  # gh = 1 - i * i
    f *= 2
    f *= gh  # gf
    d *= d
    np.subtract(1, d, out=d)  # 1 - d * d
    a *= f
    a *= d  # gc
    del d
    e *= f  # gf * e
    del f
    b *= a  # gc * b
    np.multiply(b, x, out=a)  # gc * b * x
    e += a  # ga
    del a
    out = np.cos(x)
    out *= e
    out += b
    out -= gh
    return out


def big_bars(results: list[dict]) -> list[Bar]:
    return [ratio_bar(results, "fad", 1.3), ratio_bar(results, "fad", 1.5, what="memory")]


@case("big_elementwise", bars=big_bars)
def big_elementwise_case(size: str) -> list[Problem]:
    """Bandwidth-bound: ``big_chain`` (sin, exp, *, tanh, +, *, *, -, tanh, sum)
    on a 4M-element (2^22) float32 vector; ``fad.grad`` time and peak memory
    (tracemalloc) against plain hand-written NumPy; autograd and torch eager
    for reference, and a memory-careful in-place NumPy version to show the floor."""
    n = {"full": 2**22, "quick": 2**18, "tiny": 64}[size]
    x = np.random.default_rng(2).uniform(-2, 2, n).astype(np.float32)
    fad_grad = fad.grad(lambda x: big_chain(fnp, x))
    contenders = [
        Contender("numpy", lambda: big_chain_grad_numpy(x)),
        Contender("numpy in-place", lambda: big_chain_grad_numpy_inplace(x)),
        fad_contender("fad", fad_grad, x),
        autograd_contender(lambda: _autograd_call(lambda x: big_chain(anp, x), x)),
        torch_contender(big_chain, x),
    ]
    return [Problem(f"float32[{n}]", contenders, rtol=2e-3)]


# ====================================================================== jit, vmap, jacrev, facade
# The cases below time fad's compiled and batched transformations.
# Contender names: "fad" is always the transformation *without* jit (each call
# traces, transforms and evaluates), "fad jit" the same function under
# ``fad.jit`` (compiled on its first call, which is the gradient check, before
# any timing; the note column gives that first call's time).
def jit_speedup_bar(results: list[dict], limit: float) -> Bar:
    """'fad jit' costs at most ``limit`` times 'fad' (the un-jitted call) per call.

    The quotient of the two same-round ratios to NumPy, so that a change of load
    between rounds cancels."""
    text = f"fad jit time ≤ {limit}x un-jitted fad"
    j, g = find(results, 0, "fad jit"), find(results, 0, "fad")
    if not j or j.get("ratio") is None or not g or g.get("ratio") is None:
        return Bar(text, "not measured", None)
    q = j["ratio"] / g["ratio"]
    return Bar(text, f"{q:.3f}x ({fmt_time(j['time_s'])} vs {fmt_time(g['time_s'])})",
               q <= limit)


@case("mlp_jit", bars=lambda res: [ratio_bar(res, "fad jit", 1.05)])
def mlp_jit_case(size: str) -> list[Problem]:
    """The mlp case's training step (same data, same loss function, same NumPy
    reference) compiled: ``fad.jit(fad.grad(loss))(params, x, y)``, against
    hand-written NumPy; un-jitted ``fad.grad`` for reference.  Measures what is
    left of fad's cost once tracing and differentiation are out of the loop."""
    sizes, batch = mlp_shape(size)
    params, x, y = mlp_data(sizes, batch)
    contenders = [
        Contender("numpy", lambda: mlp_grad_numpy(params, x, y)),
        jit_contender("fad jit", fad.grad(mlp_loss_fad), params, x, y),
        fad_contender("fad", fad.grad(mlp_loss_fad), params, x, y),
    ]
    return [Problem(f"{'-'.join(map(str, sizes))}, batch {batch}", contenders, rtol=2e-3)]


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


def logistic_loss(w: Any, x: Any, y: Any) -> Any:
    """Binary cross-entropy with logits of one example (x a feature vector)."""
    return fad.nn.binary_cross_entropy_with_logits(x @ w, y)


def per_example_grads_numpy(w: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Closed form: d/dw [softplus(x·w) - y x·w] = (sigmoid(x·w) - y) x, per row."""
    return (1.0 / (1.0 + np.exp(-(X @ w))) - y)[:, None] * X


def torch_per_example(w: np.ndarray, X: np.ndarray, y: np.ndarray) -> Callable[[], Any]:
    """``torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0, 0))``."""
    from torch.func import grad, vmap

    bce = torch.nn.functional.binary_cross_entropy_with_logits
    g = vmap(grad(lambda w, x, y: bce(x @ w, y)), in_dims=(None, 0, 0))
    tw, tX, ty = (torch.tensor(a) for a in (w, X, y))
    return lambda: g(tw, tX, ty)


def jax_per_example(w: np.ndarray, X: np.ndarray, y: np.ndarray,
                    compiled: bool) -> Callable[[], Any]:
    """``jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))``, optionally under ``jax.jit``
    (the loss written with the stable softplus ``fad.nn`` uses)."""
    def loss(w: Any, x: Any, y: Any) -> Any:
        z = x @ w
        return jnp.maximum(z, 0) - z * y + jnp.log1p(jnp.exp(-jnp.abs(z)))
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))
    g = jax.jit(g) if compiled else g
    args = [jnp.asarray(a) for a in (w, X, y)]
    return lambda: g(*args).block_until_ready()


def jax_contenders(build: Callable[[bool], Callable[[], Any]]) -> list[Contender]:
    """JAX without and with ``jax.jit`` (only if jax is installed; it is not a
    dependency of fad or of its benchmarks)."""
    if jax is None:
        return [Contender(n, None, tracemalloc=False, skip=missing(jax, "jax"))
                for n in ("jax", "jax jit")]
    return [guarded("jax", lambda: build(False), tracemalloc=False),
            guarded("jax jit", lambda: build(True), tracemalloc=False, compiles=True)]


def per_example_bars(results: list[dict]) -> list[Bar]:
    """The per-example bar, 1.5x, is on ``jit(vmap(grad))``: every library that traces
    per call pays per primitive per call, so un-jitted ``vmap(grad)`` is held to
    the fastest un-jitted alternative instead (``torch.func``; eager JAX is
    some 200x, see benchmarks/README.md)."""
    return [ratio_bar(results, "fad jit", 1.5),
            relative_bar("fad (un-jitted) ratio ≤ torch.func ratio", find(results, 0, "fad"),
                         find(results, 0, "torch.func"))]


@case("per_example", bars=per_example_bars)
def per_example_case(size: str) -> list[Problem]:
    """Per-example gradients of logistic regression, 256 examples x 100
    features, float64: ``fad.vmap(fad.grad(loss), in_axes=(None, 0, 0))(w, X, y)``
    with ``loss = fad.nn.binary_cross_entropy_with_logits(x @ w, y)``, against
    the hand-written closed form ``(sigmoid(X @ w) - y)[:, None] * X``; the same
    under ``fad.jit`` and torch's ``torch.func.vmap(torch.func.grad(...))`` for
    reference, and JAX's ``jax.vmap(jax.grad(...))`` with and without ``jax.jit``
    when jax is installed.  The 1.5x bar is on the jitted vmap; the un-jitted one
    is held to torch.func."""
    m, d = (8, 5) if size == "tiny" else (256, 100)
    rng = np.random.default_rng(3)
    X, w = rng.standard_normal((m, d)), 0.1 * rng.standard_normal(d)
    y = (rng.random(m) < 0.5).astype(np.float64)
    per_example = fad.vmap(fad.grad(logistic_loss), in_axes=(None, 0, 0))
    contenders = [
        Contender("numpy", lambda: per_example_grads_numpy(w, X, y)),
        fad_contender("fad", per_example, w, X, y),
        jit_contender("fad jit", per_example, w, X, y),
        torch_func_contender(lambda: torch_per_example(w, X, y)),
        *jax_contenders(lambda compiled: jax_per_example(w, X, y, compiled)),
    ]
    return [Problem(f"{m} x {d}, float64", contenders, rtol=1e-8)]


def big_jit_bars(results: list[dict]) -> list[Bar]:
    return [ratio_bar(results, "fad jit", 1.1),
            ratio_bar(results, "fad jit", 1.0, what="memory")]


@case("big_elementwise_jit", bars=big_jit_bars)
def big_elementwise_jit_case(size: str) -> list[Problem]:
    """The big_elementwise function (10 elementwise ops and a sum on a
    4M-element float32 vector, bandwidth-bound) compiled:
    ``fad.jit(fad.grad(f))(x)``; time and peak memory (tracemalloc) against plain
    hand-written NumPy, with the in-place NumPy version and un-jitted
    ``fad.grad`` for reference."""
    n = {"full": 2**22, "quick": 2**18, "tiny": 64}[size]
    x = np.random.default_rng(2).uniform(-2, 2, n).astype(np.float32)
    f = lambda x: big_chain(fnp, x)
    contenders = [
        Contender("numpy", lambda: big_chain_grad_numpy(x)),
        Contender("numpy in-place", lambda: big_chain_grad_numpy_inplace(x)),
        jit_contender("fad jit", fad.grad(f), x),
        fad_contender("fad", fad.grad(f), x),
    ]
    return [Problem(f"float32[{n}]", contenders, rtol=2e-3)]


@case("hvp_jit", bars=lambda res: [ratio_bar(res, "fad jit", 1.0)])
def hvp_jit_case(size: str) -> list[Problem]:
    """The hvp case's Hessian-vector product of the 10,000-d Rosenbrock function
    (float64) compiled: ``fad.jit(lambda x, v: fad.jvp(fad.grad(f), (x,),
    (v,))[1])``, against the closed-form NumPy HVP (the Hessian is tridiagonal);
    the un-jitted forward-over-reverse HVP for reference."""
    n = 10 if size == "tiny" else 10_000
    rng = np.random.default_rng(1)
    x, v = rng.uniform(-1.5, 1.5, n), rng.standard_normal(n)
    f = lambda x: rosenbrock(fnp, x)
    hvp = lambda x, v: fad.jvp(fad.grad(f), (x,), (v,))[1]
    contenders = [
        Contender("numpy", lambda: rosenbrock_hvp_numpy(x, v)),
        jit_contender("fad jit", hvp, x, v),
        fad_contender("fad", hvp, x, v),
    ]
    return [Problem(f"n = {n}, float64", contenders, rtol=1e-8)]


def tanh_layer_jacobian_numpy(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Jacobian of ``tanh(A @ x)``: row i is (1 - t_i^2) A[i]."""
    t = np.tanh(A @ x)
    return (1 - t**2)[:, None] * A


def torch_jacrev(A: np.ndarray, x: np.ndarray) -> Callable[[], Any]:
    """``torch.func.jacrev(lambda x: torch.tanh(A @ x))(x)``."""
    from torch.func import jacrev

    tA, tx = torch.tensor(A), torch.tensor(x)
    j = jacrev(lambda x: torch.tanh(tA @ x))
    return lambda: j(tx)


@case("jacrev_jit", bars=lambda res: [ratio_bar(res, "fad jit", 6.7)])
def jacrev_jit_case(size: str) -> list[Problem]:
    """Full 200x200 Jacobian of ``f(x) = tanh(A @ x)`` (A a fixed 200x200
    float64 matrix) by ``fad.jit(fad.jacrev(f))(x)``, against the hand-written
    ``(1 - t**2)[:, None] * A``; un-jitted ``fad.jacrev(f)`` and
    ``torch.func.jacrev`` for reference."""
    n = 6 if size == "tiny" else 200
    rng = np.random.default_rng(4)
    A, x = rng.standard_normal((n, n)) / np.sqrt(n), rng.standard_normal(n)
    f = lambda x: fnp.tanh(A @ x)
    contenders = [
        Contender("numpy", lambda: tanh_layer_jacobian_numpy(A, x)),
        jit_contender("fad jit", fad.jacrev(f), x),
        fad_contender("fad", fad.jacrev(f), x),
        torch_func_contender(lambda: torch_jacrev(A, x)),
    ]
    return [Problem(f"{n}x{n}, float64", contenders, rtol=1e-8)]


@case("facade_chain")
def facade_chain_case(size: str) -> list[Problem]:
    """The chain100 function (100 elementwise ops on a float64 16-vector, then
    sum) written once against the PyTorch API and run through the fad.torch
    facade (``import fad.torch as torch``: leaf tensor with requires_grad,
    forward, ``.backward()``, read ``.grad``) and through real PyTorch eager,
    beside hand-written NumPy.  Pure per-op overhead of the stateful facade:
    read the µs/op column (time per call / 100).  No bar."""
    reps = 2 if size == "tiny" else 25
    x = np.linspace(-1.0, 1.0, 16)
    loss = lambda T, x: chain(T, x, reps)
    contenders = [
        Contender("numpy", lambda: chain_grad_numpy(x, reps)),
        facade_contender(loss, x),
        torch_contender(loss, x),
    ]
    return [Problem(f"{4 * reps} ops, float64[16]", contenders, n_ops=4 * reps)]


# ====================================================================== measuring
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
    """(calls per measurement, seconds per call) from one warm-up call."""
    t = time_calls(fn, 1)
    return max(1, int(target / max(t, 1e-9))), t


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


# ====================================================================== reporting
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
    import subprocess

    root = HERE.parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, text=True,
                              capture_output=True, check=True).stdout.strip()
        status = ["git", "--no-optional-locks", "status", "--porcelain", "--", "fad"]
        dirty = subprocess.run(status, cwd=root, text=True, capture_output=True,
                               check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def package_version(name: str) -> str:
    try:
        from importlib.metadata import version
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


# ====================================================================== entry points
def limit_threads() -> Any:
    """One BLAS / OpenMP thread for every library (returns the threadpoolctl context)."""
    if torch is not None:
        torch.set_num_threads(1)
    from threadpoolctl import threadpool_limits
    return threadpool_limits(limits=1)


def load_results(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {"cases": {}}


def update_readme(text: str) -> None:
    body = README.read_text()
    start, end = body.find(README_START), body.find(README_END)
    if start < 0 or end < 0:
        raise SystemExit(f"{README} lacks the {README_START} / {README_END} markers")
    body = body[:start + len(README_START)] + "\n" + text + body[end:]
    README.write_text(body)


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


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    ap.add_argument("--only", action="append", choices=sorted(CASES), metavar="NAME",
                    help=f"run only this case (repeatable): {', '.join(CASES)}")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--profile", choices=sorted(CASES), metavar="NAME",
                    help="cProfile the fad contender(s) of one case and exit")
    ap.add_argument("--json", type=Path, default=None,
                    help="results file (cases run now replace their entry); default "
                         "benchmarks/results.json, or results-quick.json with --quick")
    ap.add_argument("--update-readme", action="store_true",
                    help="rewrite the results section of benchmarks/README.md")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    mode = "quick" if args.quick else "full"
    json_path = args.json or (RESULTS_JSON if mode == "full" else QUICK_JSON)
    if args.list:
        for c in CASES.values():
            print(f"{c.name}:\n    " + c.doc.replace("\n", "\n    ") + "\n")
        return 0
    with limit_threads():
        if args.profile:
            print(profile_fad(args.profile, mode))
            return 0
        data = load_results(json_path)
        data["machine"] = machine()
        for name in args.only or list(CASES):
            print(f"running {name} ({mode}) ...", file=sys.stderr, flush=True)
            data["cases"][name] = run_case(name, mode)
            print(f"  done in {data['cases'][name]['seconds']:.1f} s", file=sys.stderr)
    json_path.write_text(json.dumps(data, indent=1, default=str) + "\n")
    text = report(data)
    print(text)
    if args.update_readme:
        update_readme(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
