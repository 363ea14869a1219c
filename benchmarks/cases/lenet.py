"""A LeNet training step (convolutions, max-pooling, linear layers, SGD): ``lenet``."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from harness import Contender, Problem, case, guarded, pair_bar, ratio_bar
from harness.libs import FAD_TORCH_ERROR, fad_torch, missing, torch
from numpy.lib.stride_tricks import sliding_window_view

import fad
import fad.lax as lax
import fad.numpy as fnp

from .mlp import softmax_cross_entropy

LR = 0.1
# (name, shape) of the parameters, in the order of ``LeNet().parameters()``
SHAPES = (("conv1.weight", (6, 1, 5, 5)), ("conv1.bias", (6,)),
          ("conv2.weight", (16, 6, 5, 5)), ("conv2.bias", (16,)),
          ("fc1.weight", (120, 400)), ("fc1.bias", (120,)),
          ("fc2.weight", (84, 120)), ("fc2.bias", (84,)),
          ("fc3.weight", (10, 84)), ("fc3.bias", (10,)))


def lenet_data(batch: int, seed: int = 0) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Parameters drawn as PyTorch's default initialisation does (uniform in
    ±1/sqrt(fan_in)), a batch of 32×32 images and integer labels, float32."""
    rng = np.random.default_rng(seed)
    params, fan_in = [], 1
    for name, shape in SHAPES:  # a bias follows its weight and shares its fan-in
        if name.endswith("weight"):
            fan_in = int(np.prod(shape[1:]))
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, shape).astype(np.float32))
    x = rng.standard_normal((batch, 1, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, batch)
    return params, x, y


# ----------------------------------------------------------------- hand-written NumPy

def conv_forward(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """VALID, stride-1 convolution by im2col and one matmul; returns (output, columns)."""
    n, c, h, wd = x.shape
    o, _, k, _ = w.shape
    ho, wo = h - k + 1, wd - k + 1
    # (N, C, Ho, Wo, k, k) -> rows (N, Ho, Wo), columns (C, k, k)
    cols = sliding_window_view(x, (k, k), axis=(2, 3)).transpose(0, 2, 3, 1, 4, 5)
    cols = cols.reshape(n * ho * wo, c * k * k)
    out = cols @ w.reshape(o, -1).T + b
    return out.reshape(n, ho, wo, o).transpose(0, 3, 1, 2), cols


def conv_backward(dout: np.ndarray, x_shape: tuple, w: np.ndarray, cols: np.ndarray,
                  need_dx: bool) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """(dx, dw, db) of ``conv_forward``; dx by scattering the columns' cotangent back (col2im)."""
    o, c, k, _ = w.shape
    d = dout.transpose(0, 2, 3, 1).reshape(-1, o)
    dw = (d.T @ cols).reshape(w.shape)
    db = d.sum(axis=0)
    if not need_dx:
        return None, dw, db
    n, _, h, wd = x_shape
    ho, wo = h - k + 1, wd - k + 1
    dcols = (d @ w.reshape(o, -1)).reshape(n, ho, wo, c, k, k)
    dx = np.zeros(x_shape, dout.dtype)
    for i in range(k):
        for j in range(k):
            dx[:, :, i:i + ho, j:j + wo] += dcols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return dx, dw, db


def pool_forward(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """2×2 max-pooling by reshape; returns (output, mask of the maxima)."""
    n, c, h, w = x.shape
    xr = x.reshape(n, c, h // 2, 2, w // 2, 2)
    out = xr.max(axis=(3, 5))
    return out, xr == out[:, :, :, None, :, None]


def pool_backward(dout: np.ndarray, mask: np.ndarray) -> np.ndarray:
    # a tie inside a window only happens between ReLU zeros, whose derivative is 0 anyway
    n, c, h2, _, w2, _ = mask.shape
    return (mask * dout[:, :, :, None, :, None]).reshape(n, c, 2 * h2, 2 * w2)


def lenet_grad_numpy(params: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    """Hand-written forward and backward of the LeNet loss: the gradient per parameter."""
    w1, b1, w2, b2, f1, c1, f2, c2, f3, c3 = params
    z1, cols1 = conv_forward(x, w1, b1)
    a1 = np.maximum(z1, 0)
    p1, m1 = pool_forward(a1)
    z2, cols2 = conv_forward(p1, w2, b2)
    a2 = np.maximum(z2, 0)
    p2, m2 = pool_forward(a2)
    h0 = p2.reshape(len(x), -1)
    h1 = np.maximum(h0 @ f1.T + c1, 0)
    h2 = np.maximum(h1 @ f2.T + c2, 0)
    z = h2 @ f3.T + c3
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(x)), y] -= 1
    dz = p / len(x)
    df3, dc3 = dz.T @ h2, dz.sum(axis=0)
    dh2 = (dz @ f3) * (h2 > 0)
    df2, dc2 = dh2.T @ h1, dh2.sum(axis=0)
    dh1 = (dh2 @ f2) * (h1 > 0)
    df1, dc1 = dh1.T @ h0, dh1.sum(axis=0)
    dp2 = (dh1 @ f1).reshape(p2.shape)
    dz2 = pool_backward(dp2, m2) * (z2 > 0)
    dp1, dw2, db2 = conv_backward(dz2, p1.shape, w2, cols2, need_dx=True)
    dz1 = pool_backward(dp1, m1) * (z1 > 0)
    _, dw1, db1 = conv_backward(dz1, x.shape, w1, cols1, need_dx=False)
    return [dw1, db1, dw2, db2, df1, dc1, df2, dc2, df3, dc3]


def numpy_step(params: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> Callable[[], Any]:
    """One SGD step in place on a copy of ``params`` per call; returns the weights."""
    ws = [p.copy() for p in params]

    def step() -> list[np.ndarray]:
        for w, g in zip(ws, lenet_grad_numpy(ws, x, y)):
            w -= LR * g
        return ws

    return step


# ----------------------------------------------------------------- fad (jit of grad)

def lenet_loss_fad(params: list, x: Any, y: Any) -> Any:
    """The same loss written with ``fad.lax.conv``, ``fad.lax.reduce_window`` (the
    max-pooling) and fad.numpy."""
    w1, b1, w2, b2, f1, c1, f2, c2, f3, c3 = params

    def conv_relu_pool(h: Any, w: Any, b: Any) -> Any:
        h = fnp.maximum(lax.conv(h, w, (1, 1), "VALID") + b[:, None, None], 0)
        return lax.reduce_window(h, -np.inf, max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    h = conv_relu_pool(conv_relu_pool(x, w1, b1), w2, b2).reshape(x.shape[0], -1)
    h = fnp.maximum(h @ f1.T + c1, 0)
    h = fnp.maximum(h @ f2.T + c2, 0)
    return softmax_cross_entropy(fnp, fad.stop_gradient, h @ f3.T + c3, y)


def fad_jit_step(params: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> Callable[[], Any]:
    """``fad.jit`` of (grad, then the SGD update); the state is the list of weights."""
    grad = fad.grad(lenet_loss_fad)
    update = fad.jit(lambda ps, x, y: [p - LR * g for p, g in zip(ps, grad(ps, x, y))])
    state = [list(params)]

    def step() -> list:
        state[0] = update(state[0], x, y)
        return state[0]

    return step


# ----------------------------------------------------------------- torch and fad.torch

def torch_step(T: Any, params: list[np.ndarray], x: np.ndarray, y: np.ndarray
               ) -> Callable[[], Any]:
    """The step as a PyTorch user writes it: an ``nn.Module``, ``F.cross_entropy``,
    ``optim.SGD``.  Runs on torch and on fad.torch alike."""
    nn, F = T.nn, T.nn.functional

    class LeNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.pool = nn.MaxPool2d(2)
            self.fc1 = nn.Linear(400, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x: Any) -> Any:
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = T.flatten(x, 1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)

    model = load_weights(T, LeNet(), params)
    opt = T.optim.SGD(model.parameters(), lr=LR)
    xt, yt = T.tensor(x), T.tensor(y)

    def step() -> list:
        opt.zero_grad()
        F.cross_entropy(model(xt), yt).backward()
        opt.step()
        return list(model.parameters())

    return step


def load_weights(T: Any, model: Any, params: list[np.ndarray]) -> Any:
    """``model`` with its parameters set to ``params`` (in ``parameters()`` order)."""
    with T.no_grad():
        for p, w in zip(model.parameters(), params):
            p.copy_(T.tensor(w))
    return model


def torchlike(T: Any, name: str, skip: str, *data: Any,
              build: Callable | None = None) -> Contender:
    """The contender ``build(T, *data)`` (``torch_step`` by default) on torch or fad.torch."""
    build = build or torch_step
    if T is None:
        return Contender(name, None, tracemalloc=False, skip=skip)
    return guarded(name, lambda: build(T, *data), tracemalloc=T is not torch)


def lenet_bars(results: list[dict]) -> list:
    return [pair_bar(results, "fad.torch", "torch", 2.0), ratio_bar(results, "fad.torch", 3.0)]


@case("lenet", bars=lenet_bars)
def lenet_case(size: str) -> list[Problem]:
    """LeNet training step: Conv2d(1,6,5)-ReLU-MaxPool2d(2)-Conv2d(6,16,5)-ReLU-
    MaxPool2d(2)-Flatten-Linear(400,120)-ReLU-Linear(120,84)-ReLU-Linear(84,10),
    batch 64 of 1×32×32 float32 images, cross-entropy, SGD (lr 0.1); every
    contender returns the updated weights.  NumPy: im2col + matmul, max-pool by
    reshape, hand-written backward.  torch and fad.torch: the same nn.Module /
    F.cross_entropy / optim.SGD source.  fad jit: ``fad.jit`` of grad + update,
    the loss written with ``fad.lax.conv`` and ``fad.lax.reduce_window``."""
    batch = 2 if size == "tiny" else 64
    data = lenet_data(batch)
    contenders = [
        Contender("numpy", numpy_step(*data)),
        torchlike(fad_torch, "fad.torch", FAD_TORCH_ERROR, *data),
        torchlike(torch, "torch", missing(torch, "torch"), *data),
        guarded("fad jit", lambda: fad_jit_step(*data), compiles=True),
    ]
    return [Problem(f"batch {batch}, 1×32×32", contenders, rtol=2e-3)]
