"""The training step of ``notebooks/04_lenet_digits.ipynb`` (``lenet_notebook``):
the notebook's own network and loop body on scikit-learn's 8×8 digits."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from harness import Contender, Problem, case, pair_bar
from harness.libs import FAD_TORCH_ERROR, fad_torch, missing, torch

from .lenet import conv_backward, conv_forward, load_weights, pool_backward, torchlike

LR, BETAS, EPS = 0.002, (0.9, 0.999), 1e-8
# (name, shape) of the notebook's Net parameters, in the order of ``net.parameters()``
SHAPES = (("conv1.weight", (16, 1, 3, 3)), ("conv1.bias", (16,)),
          ("conv2.weight", (32, 16, 3, 3)), ("conv2.bias", (32,)),
          ("fc1.weight", (64, 128)), ("fc1.bias", (64,)),
          ("fc2.weight", (10, 64)), ("fc2.bias", (10,)))


def notebook_data(batch: int, seed: int = 0) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """PyTorch's default initialisation (uniform in ±1/sqrt(fan_in)) and the first
    ``batch`` digits, standardised as the notebook does, float32."""
    from sklearn.datasets import load_digits
    digits = load_digits()
    x = digits.images.astype(np.float32)[:batch, None, :, :]
    x = (x - x.mean()) / x.std()
    rng = np.random.default_rng(seed)
    params, fan_in = [], 1
    for name, shape in SHAPES:
        if name.endswith("weight"):
            fan_in = int(np.prod(shape[1:]))
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, shape).astype(np.float32))
    return params, x, digits.target[:batch].astype(np.int64)


def pool_forward(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """2×2 max-pooling; the mask marks the first maximum of each window in row-major
    order, the one PyTorch's gradient goes to (the digits' flat background makes
    equal positive values in a window)."""
    n, c, h, w = x.shape
    windows = x.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5)
    windows = windows.reshape(n, c, h // 2, w // 2, 4)
    first = windows.argmax(axis=-1)
    out = np.take_along_axis(windows, first[..., None], axis=-1)[..., 0]
    mask = first[..., None] == np.arange(4)
    mask = mask.reshape(n, c, h // 2, w // 2, 2, 2).transpose(0, 1, 2, 4, 3, 5)
    return out, mask


def _conv_same(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> tuple:
    """3×3 convolution with padding 1: VALID on the zero-padded input."""
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out, cols = conv_forward(xp, w, b)
    return out, cols, xp.shape


def notebook_grad_numpy(params: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> tuple:
    """Hand-written forward and backward of the notebook's Net and cross-entropy:
    (loss, gradient per parameter)."""
    w1, b1, w2, b2, f1, c1, f2, c2 = params
    z1, cols1, s1 = _conv_same(x, w1, b1)
    p1, m1 = pool_forward(np.maximum(z1, 0))
    z2, cols2, s2 = _conv_same(p1, w2, b2)
    p2, m2 = pool_forward(np.maximum(z2, 0))
    h0 = p2.reshape(len(x), -1)
    h1 = np.maximum(h0 @ f1.T + c1, 0)
    z = h1 @ f2.T + c2
    s = z - z.max(axis=1, keepdims=True)
    e = np.exp(s)
    total = e.sum(axis=1, keepdims=True)
    loss = float(np.mean(np.log(total[:, 0]) - s[np.arange(len(x)), y]))
    p = e / total
    p[np.arange(len(x)), y] -= 1
    dz = p / len(x)
    df2, dc2 = dz.T @ h1, dz.sum(axis=0)
    dh1 = (dz @ f2) * (h1 > 0)
    df1, dc1 = dh1.T @ h0, dh1.sum(axis=0)
    dz2 = pool_backward((dh1 @ f1).reshape(p2.shape), m2) * (z2 > 0)
    dp1, dw2, db2 = conv_backward(dz2, s2, w2, cols2, need_dx=True)
    dz1 = pool_backward(dp1[:, :, 1:-1, 1:-1], m1) * (z1 > 0)
    _, dw1, db1 = conv_backward(dz1, s1, w1, cols1, need_dx=False)
    return loss, [dw1, db1, dw2, db2, df1, dc1, df2, dc2]


def numpy_step(params: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> Callable[[], Any]:
    """One Adam step (PyTorch's update, on copies of ``params``) per call; returns the
    gradients it took (an Adam step moves a weight by about ``lr`` times the sign of
    its gradient, which float32 rounding flips where the gradient is near 0: the
    gradients are what the contenders are compared on)."""
    ws = [p.copy() for p in params]
    ms = [np.zeros_like(p) for p in params]
    vs = [np.zeros_like(p) for p in params]
    t = [0]

    def step() -> list[np.ndarray]:
        t[0] += 1
        b1, b2 = BETAS
        _, grads = notebook_grad_numpy(ws, x, y)
        for w, m, v, g in zip(ws, ms, vs, grads):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            denom = np.sqrt(v) / np.sqrt(1 - b2 ** t[0]) + EPS
            w -= (LR / (1 - b1 ** t[0])) * m / denom
        return grads

    return step


def torch_step(T: Any, params: list[np.ndarray], x: np.ndarray, y: np.ndarray
               ) -> Callable[[], Any]:
    """The notebook's cells: ``Net``, ``nn.CrossEntropyLoss``, ``optim.Adam`` and the
    loop body (``zero_grad``, loss, ``backward``, ``step``, ``loss.item()``)."""
    nn, F = T.nn, T.nn.functional

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
            self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
            self.fc1 = nn.Linear(32 * 2 * 2, 64)
            self.fc2 = nn.Linear(64, 10)

        def forward(self, x: Any) -> Any:
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = T.flatten(x, 1)
            x = F.relu(self.fc1(x))
            return self.fc2(x)

    net = load_weights(T, Net(), params)
    criterion = nn.CrossEntropyLoss()
    optimizer = T.optim.Adam(net.parameters(), lr=LR)
    xb, yb = T.tensor(x), T.tensor(y)
    losses = []

    def step() -> list:
        optimizer.zero_grad()
        loss = criterion(net(xb), yb)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        return [p.grad for p in net.parameters()]

    return step


@case("lenet_notebook", bars=lambda res: [pair_bar(res, "fad.torch", "torch", 2.0)])
def lenet_notebook_case(size: str) -> list[Problem]:
    """The training step of ``notebooks/04_lenet_digits.ipynb``: its ``Net``
    (Conv2d(1,16,3,padding=1)-ReLU-MaxPool(2)-Conv2d(16,32,3,padding=1)-ReLU-
    MaxPool(2)-Flatten-Linear(128,64)-ReLU-Linear(64,10)), ``CrossEntropyLoss``,
    ``Adam(lr=0.002)`` and its loop body, on a batch of 32 of scikit-learn's 8×8
    digits, float32; every contender returns the gradients of its step.  NumPy:
    the same step hand-written (im2col + matmul, max-pool by reshape, Adam)."""
    batch = 4 if size == "tiny" else 32
    data = notebook_data(batch)
    contenders = [
        Contender("numpy", numpy_step(*data)),
        torchlike(fad_torch, "fad.torch", FAD_TORCH_ERROR, *data, build=torch_step),
        torchlike(torch, "torch", missing(torch, "torch"), *data, build=torch_step),
    ]
    return [Problem(f"batch {batch}, 1×8×8 digits", contenders, rtol=2e-3)]
