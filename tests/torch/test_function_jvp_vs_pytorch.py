"""``autograd.Function`` with a ``jvp`` staticmethod under forward-mode
differentiation, against PyTorch (skipped without it): the forward-AD tutorial's
``exp`` Function (state kept on ``ctx``) and a NumPy-backed cube whose tangent
comes only from its ``jvp`` (``ctx.save_for_forward``), under ``forward_ad`` dual
tensors and (the cube, as PyTorch requires ``setup_context`` there) ``torch.func.jvp``,
with several inputs and a non-tensor argument."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import torch.autograd.forward_ad  # noqa: E402,F401

import fad.torch as ftorch  # noqa: E402

P = np.array([[0.5, -1.0], [2.0, 0.1]])
T = np.array([[1.0, 2.0], [-1.0, 0.5]])


def functions(t: Any) -> tuple:
    class Exp(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            result = t.exp(x)
            ctx.result = result
            return result

        @staticmethod
        def jvp(ctx, g):
            out = g * ctx.result
            ctx.result = None
            return out

    class NumpyScaledCube(t.autograd.Function):  # (NumPy inside: only the rule differentiates)
        @staticmethod
        def forward(x, y, scale):
            return t.tensor(scale * x.detach().numpy() ** 3 + y.detach().numpy())

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, _, scale = inputs
            ctx.save_for_forward(x)
            ctx.scale = scale

        @staticmethod
        def jvp(ctx, tx, ty, _):
            (x,) = ctx.saved_tensors
            return ctx.scale * 3 * x ** 2 * tx + ty
    return Exp, NumpyScaledCube


@pytest.mark.parametrize("how", ["forward_ad", "func_jvp"])
def test_jvp_staticmethods(how: str):
    def run(t: Any) -> list:
        Exp, Cube = functions(t)
        p, tan = t.tensor(P), t.tensor(T)
        y = t.tensor(P[::-1].copy())
        if how == "forward_ad":
            fw = t.autograd.forward_ad
            with fw.dual_level():
                a = fw.unpack_dual(Exp.apply(fw.make_dual(p, tan)))
                b = fw.unpack_dual(Cube.apply(fw.make_dual(p, tan), fw.make_dual(y, tan * 2), 0.5))
                return [a.primal, a.tangent, b.primal, b.tangent]
        # (torch.func wants setup_context-style Functions: the cube only)
        return list(t.func.jvp(lambda x, z: Cube.apply(x, z, 0.5), (p, y), (tan, tan * 2)))
    for got, want in zip(run(ftorch), run(real_torch)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
