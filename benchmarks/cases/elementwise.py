"""Ten elementwise ops and a sum on a 4M-element vector, bandwidth-bound:
un-jitted (``big_elementwise``) and compiled (``big_elementwise_jit``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import (
    Bar,
    Contender,
    Problem,
    autograd_call,
    autograd_contender,
    case,
    fad_contender,
    jit_contender,
    ratio_bar,
    torch_contender,
)
from harness.libs import anp

import fad
import fad.numpy as fnp


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
        autograd_contender(lambda: autograd_call(lambda x: big_chain(anp, x), x)),
        torch_contender(big_chain, x),
    ]
    return [Problem(f"float32[{n}]", contenders, rtol=2e-3)]


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
