"""``torch.autograd.forward_ad`` against PyTorch (skipped without it): the forward-mode
tutorial's dual tensors, with modules and ``functional_call``, and the errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

RNG = np.random.default_rng(5)
PRIMAL, TANGENT, PLAIN = (RNG.standard_normal((4, 4)) for _ in range(3))


def test_the_tutorials_dual_tensors():
    import fad.torch.autograd.forward_ad as fwAD
    primal, tangent = ftorch.tensor(PRIMAL), ftorch.tensor(TANGENT)
    with fwAD.dual_level():
        dual_input = fwAD.make_dual(primal, tangent)
        assert fwAD.unpack_dual(dual_input).tangent is tangent
        dual_input_alt = fwAD.make_dual(primal, tangent.T)
        assert fwAD.unpack_dual(dual_input_alt).tangent is not tangent
        dual_output = dual_input ** 2 + ftorch.tensor(PLAIN) ** 2
        jvp = fwAD.unpack_dual(dual_output).tangent
    np.testing.assert_allclose(jvp.numpy(), 2 * PRIMAL * TANGENT)
    assert fwAD.unpack_dual(dual_output).tangent is None


def _jvps(t: Any) -> list:
    fwAD = t.autograd.forward_ad
    t.manual_seed(0)
    model = t.nn.Linear(4, 3).double()
    with t.no_grad():
        model.weight.copy_(t.tensor(PRIMAL[:3]))
        model.bias.copy_(t.tensor(PLAIN[0, :3]))
    x = t.tensor(PLAIN)
    params = dict(model.named_parameters())
    tangents = {"weight": t.tensor(TANGENT[:3]), "bias": t.tensor(TANGENT[0, :3])}
    out = []
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, t.tensor(TANGENT))
        y = t.nn.functional.gelu(model(dual)).logsumexp(1) + dual.sin().mean(1)
        out.append(fwAD.unpack_dual(y).tangent.detach().numpy())
        dual_params = {k: fwAD.make_dual(p, tangents[k]) for k, p in params.items()}
        y = t.func.functional_call(model, dual_params, (x,))
        out.append(fwAD.unpack_dual(y).tangent.detach().numpy())
        for k, p in params.items():  # (the tutorial's other way: parameters replaced)
            delattr(model, k)
            setattr(model, k, fwAD.make_dual(p.detach(), tangents[k]))
        out.append(fwAD.unpack_dual(model(x).tanh()).tangent.detach().numpy())
    return out


def test_modules_and_functional_call_as_pytorch():
    for got, want in zip(_jvps(ftorch), _jvps(real_torch)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_errors_as_pytorch():
    def run(t: Any, case: int) -> str:
        fwAD = t.autograd.forward_ad
        try:
            if case == 0:
                fwAD.make_dual(t.ones(2), t.ones(2))
            with fwAD.dual_level():
                fwAD.make_dual(t.ones(2), t.ones(3))
        except Exception as e:  # noqa: BLE001  (the exception is the result compared)
            return type(e).__name__ + ": " + str(e)
        return "passed"
    for case in (0, 1):
        assert run(ftorch, case) == run(real_torch, case)
