"""The MLP training step: un-jitted (``mlp``) and compiled (``mlp_jit``)."""

from __future__ import annotations

from typing import Any, Callable

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
    ratio_bar,
    relative_bar,
    torch_contender,
)
from harness.libs import FAD_TORCH_ERROR, anp, autograd_getval, fad_torch, missing, torch

import fad
import fad.numpy as fnp


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
    return [ratio_bar(results, "fad", 1.3), ratio_bar(results, "fad.torch", 1.3),
            relative_bar("fad.torch ratio ≤ torch ratio", find(results, 0, "fad.torch"),
                         find(results, 0, "torch"))]


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
        autograd_contender(lambda: autograd_call(
            lambda p, x, y: mlp_loss(anp, autograd_getval, p, x, y), params, x, y)),
        torch_contender(mlp_loss_torch, params, x, y),
        facade_contender(mlp_loss_torch, params, x, y),
    ]
    return [Problem(f"{'-'.join(map(str, sizes))}, batch {batch}", contenders, rtol=2e-3)]


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


def mlp_products(xp: Any, params: list, x: Any, y: Any) -> list:
    """The matrix products of one ``mlp`` step, at its shapes and layouts, and
    nothing else: the forward's ``h @ W``, then per layer the weight gradient
    ``h.T @ dz`` and (below the top layer) ``dz @ W.T``, with ``tanh`` activations
    standing in for ``h`` and a constant cotangent ``dz`` (the values do not matter
    to a GEMM's time)."""
    mm = xp.matmul
    hs = [x]
    for layer in params[:-1]:
        hs.append(xp.tanh(mm(hs[-1], layer["W"])))
    out = [mm(hs[-1], params[-1]["W"])]
    dz = out[0] * 0 + 1
    for i in range(len(params) - 1, -1, -1):
        out.append(mm(hs[i].T, dz))
        if i:
            dz = mm(dz, params[i]["W"].T)
            out.append(dz)
    return out


def _products_contender(name: str, lib: Any, params: list, x: np.ndarray, y: Any) -> Contender:
    """``mlp_products`` on the tensors of ``lib`` (torch or fad.torch), as arrays."""
    tparams = [{k: lib.from_numpy(v) for k, v in layer.items()} for layer in params]
    tx = lib.from_numpy(x)
    return Contender(name, lambda: [t.numpy() for t in mlp_products(lib, tparams, tx, y)],
                     tracemalloc=lib is not torch)


@case("mlp_gemms")
def mlp_gemms_case(size: str) -> list[Problem]:
    """The mlp step's matrix products alone (with the two tanh that make its
    activations): NumPy's BLAS, which fad and the facade run on, against
    PyTorch's; fad.numpy's and the facade's calls of it for reference. No bar: it
    measures how much of torch's lead in the mlp case is its BLAS library, a floor
    no NumPy-based step goes under."""
    sizes, batch = mlp_shape(size)
    params, x, y = mlp_data(sizes, batch)
    contenders = [Contender("numpy", lambda: mlp_products(np, params, x, y)),
                  Contender("fad", lambda: mlp_products(fnp, params, x, y))]
    contenders.append(_products_contender("torch", torch, params, x, y) if torch else
                      Contender("torch", None, tracemalloc=False, skip=missing(torch, "torch")))
    contenders.append(_products_contender("fad.torch", fad_torch, params, x, y) if fad_torch
                      else Contender("fad.torch", None, skip=FAD_TORCH_ERROR))
    return [Problem(f"{'-'.join(map(str, sizes))}, batch {batch}", contenders, rtol=2e-3)]
