"""Hessian-vector product of the Rosenbrock function: un-jitted (``hvp``),
compiled (``hvp_jit``) and by double backward through the fad.torch facade
(``facade_hvp``)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from harness import (
    Bar,
    Contender,
    Problem,
    autograd_contender,
    case,
    fad_contender,
    find,
    guarded,
    jit_contender,
    missing,
    ratio_bar,
    relative_bar,
)
from harness.libs import FAD_TORCH_ERROR, anp, autograd, fad_torch, torch

import fad
import fad.numpy as fnp


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


def facade_hvp_bars(results: list[dict]) -> list[Bar]:
    """fad.torch's ratio to NumPy at most torch eager's, at each size."""
    return [relative_bar(f"fad.torch ratio ≤ torch ratio at {r['label']}",
                         find(results, k, "fad.torch"), find(results, k, "torch"))
            for k, r in enumerate(results)]


@case("facade_hvp", bars=facade_hvp_bars)
def facade_hvp_case(size: str) -> list[Problem]:
    """Hessian-vector product of the Rosenbrock function (float64) by double
    backward, written once against the PyTorch API
    (``autograd.grad(f(x), x, create_graph=True)``, then the gradient of
    ``<g, v>``) and run through the fad.torch facade and torch eager, against
    the closed-form NumPy HVP.  At n = 100 the cost is the per-operation
    overhead of recording the gradient's own graph; at n = 10,000, the arrays'."""
    sizes = (10,) if size == "tiny" else (100, 10_000)
    rng = np.random.default_rng(1)
    problems = []
    for n in sizes:
        x, v = rng.uniform(-1.5, 1.5, n), rng.standard_normal(n)
        contenders = [
            Contender("numpy", lambda x=x, v=v: rosenbrock_hvp_numpy(x, v)),
            guarded("fad.torch", lambda x=x, v=v: torch_hvp(fad_torch, x, v)) if fad_torch
            else Contender("fad.torch", None, skip=FAD_TORCH_ERROR),
            Contender("torch", torch_hvp(torch, x, v) if torch else None, tracemalloc=False,
                      skip=missing(torch, "torch")),
        ]
        problems.append(Problem(f"n = {n}, float64", contenders, rtol=1e-8))
    return problems
