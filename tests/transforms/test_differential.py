"""A small differential test against PyTorch's autograd: gradients and Hessians of
the same functions, written once against a NumPy-like namespace."""

import numpy as np
import pytest

import fad
import fad.numpy as fnp

torch = pytest.importorskip("torch")

FUNCS = {
    "mlp": lambda xp, w, x: xp.sum(xp.tanh(xp.matmul(x, w)) ** 2),
    "softplus": lambda xp, a, b: xp.sum(xp.log1p(xp.exp(a * b)) - xp.sigmoid(a) / b),
    "where": lambda xp, a, b: xp.sum(xp.where(a > 0, xp.sin(a) * b, xp.cos(b) ** 3)),
    "maximum": lambda xp, a, b: xp.sum(xp.maximum(a, b) * xp.minimum(a, b * 2)),
}


@pytest.mark.parametrize("name", list(FUNCS))
def test_gradients_and_hessians_match_torch(name):
    f = FUNCS[name]
    rng = np.random.default_rng(0)
    args = [rng.uniform(0.5, 1.5, (3, 3)) * rng.choice([-1, 1], (3, 3)) for _ in range(2)]
    targs = [torch.tensor(a, requires_grad=True) for a in args]
    want_g = torch.autograd.grad(f(torch, *targs), targs)
    want_h = torch.autograd.functional.hessian(lambda *t: f(torch, *t), tuple(targs))
    g = fad.grad(lambda *xs: f(fnp, *xs), argnums=(0, 1))(*args)
    h = fad.hessian(lambda *xs: f(fnp, *xs), argnums=(0, 1))(*args)
    for got, want in zip(g, want_g):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-10, atol=1e-12)
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(h[i][j], want_h[i][j].numpy(), rtol=1e-10, atol=1e-12)
