"""``fad.nn.soft_shrink``, ``hard_shrink`` and ``threshold`` against PyTorch's
``softshrink``, ``hardshrink`` and ``threshold``: values and derivatives, at the
kinks too; ``jit`` and ``vmap`` against eager."""

import numpy as np
import pytest

import fad
import fad.nn as nn

X = np.array([-7.0, -1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 3.0])
CASES = [("soft_shrink", "softshrink", (0.5,)), ("soft_shrink", "softshrink", (1.0,)),
         ("hard_shrink", "hardshrink", (0.5,)), ("hard_shrink", "hardshrink", (0.25,)),
         ("threshold", "threshold", (0.5, -2.0)), ("threshold", "threshold", (0.0, 0.0))]


@pytest.mark.parametrize("name,tname,args", CASES)
def test_values_and_derivatives_match_pytorch(name: str, tname: str, args: tuple) -> None:
    torch = pytest.importorskip("torch")
    f = getattr(nn, name)
    xt = torch.tensor(X, requires_grad=True)
    yt = getattr(torch.nn.functional, tname)(xt, *args)
    yt.sum().backward()
    np.testing.assert_allclose(f(X, *args), yt.detach().numpy(), rtol=1e-15)
    np.testing.assert_allclose(fad.vmap(fad.grad(lambda x: f(x, *args)))(X),
                               xt.grad.numpy(), rtol=1e-15)


def test_nan_dtype_jit_vmap() -> None:
    for f in (nn.soft_shrink, nn.hard_shrink, lambda x: nn.threshold(x, 0.1, 5.0)):
        assert np.isnan(f(np.array([np.nan]))[0])
        assert f(np.float32([1.0, -2.0])).dtype == np.float32
        x = np.linspace(-2, 2, 12).reshape(3, 4)
        np.testing.assert_allclose(fad.jit(f)(x), f(x), rtol=1e-15)
        np.testing.assert_allclose(fad.vmap(f)(x), np.stack([f(r) for r in x]), rtol=1e-15)
    fad.check_grads(nn.soft_shrink, (np.array([-1.3, 0.2, 0.9]),), order=2)
