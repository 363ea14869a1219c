"""Spectral normalisation against PyTorch (skipped without it), both forms:
``torch.nn.utils.spectral_norm`` (a forward pre-hook) and
``torch.nn.utils.parametrizations.spectral_norm`` (a parametrization). The two
libraries draw different starting vectors, so the facade's estimates are set to
PyTorch's after registration; from there the outputs, the estimates after each
training call's power iteration, the gradients of the original weight, eval
mode, removal, parameter and buffer names and the errors must agree."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import close, raises_alike  # noqa: E402

import fad.torch as ftorch  # noqa: E402

LAYERS = {  # (constructor, input shape)
    "linear": (lambda t: t.nn.Linear(5, 4), (3, 5)),
    "conv2d": (lambda t: t.nn.Conv2d(2, 3, 3), (2, 2, 5, 5)),
    "conv_transpose1d": (lambda t: t.nn.ConvTranspose1d(3, 2, 3), (2, 3, 6)),
}


def build(t: Any, layer: str, form: str, **kwargs: Any) -> Any:
    make, _ = LAYERS[layer]
    m = make(t).double()
    rng = np.random.default_rng(3)
    with t.no_grad():
        for p in m.parameters():
            p.copy_(t.tensor(rng.standard_normal(tuple(p.shape))))
    if form == "hook":
        return t.nn.utils.spectral_norm(m, **kwargs)
    return t.nn.utils.parametrizations.spectral_norm(m, **kwargs)


def estimates(m: Any, form: str) -> list:
    if form == "hook":
        return [m.weight_u, m.weight_v]
    sn = m.parametrizations.weight[0]
    return [sn._u, sn._v]


def trajectory(t: Any, m: Any, form: str, layer: str) -> list:
    """Three training calls, their backward passes, one eval call; then removal."""
    x = t.tensor(np.linspace(-1, 1, int(np.prod(LAYERS[layer][1]))).reshape(LAYERS[layer][1]))
    orig = m.weight_orig if form == "hook" else m.parametrizations.weight.original
    out = []
    for _ in range(3):
        y = m(x)
        y.pow(2).sum().backward()
        out += [y, *[e.clone() for e in estimates(m, form)], orig.grad.clone()]
    m.eval()
    out.append(m(x))
    if form == "hook":
        t.nn.utils.remove_spectral_norm(m)
    else:
        t.nn.utils.parametrize.remove_parametrizations(m, "weight")
    out.append(m.weight)
    return out


@pytest.mark.parametrize("form", ["hook", "parametrization"])
@pytest.mark.parametrize("layer", list(LAYERS))
def test_spectral_norm_trajectory(layer: str, form: str):
    kwargs = {"n_power_iterations": 2} if layer == "linear" else {}
    mine, theirs = build(ftorch, layer, form, **kwargs), build(real_torch, layer, form, **kwargs)
    names = [([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()],
              list(m.state_dict())) for m in (mine, theirs)]
    assert names[0] == names[1]
    with ftorch.no_grad():
        for a, b in zip(estimates(mine, form), estimates(theirs, form)):
            a.copy_(ftorch.tensor(b.detach().numpy()))
    got, want = trajectory(ftorch, mine, form, layer), trajectory(real_torch, theirs, form, layer)
    for a, b in zip(got, want):
        close(a, b, "float64", 1e-10)
    assert type(mine.weight).__name__ == type(theirs.weight).__name__


def test_estimates_converge_to_the_spectral_norm():
    ftorch.manual_seed(0)
    m = ftorch.nn.utils.parametrizations.spectral_norm(ftorch.nn.Linear(6, 8).double())
    for _ in range(300):  # (power iteration: the error shrinks by (s2 / s1)^2 per step)
        m(ftorch.zeros(1, 6, dtype=ftorch.float64))
    assert abs(ftorch.linalg.matrix_norm(m.weight, ord=2).item() - 1.0) < 1e-8


@pytest.mark.parametrize("case", ["twice", "iterations", "dim", "missing", "not_found"])
def test_errors_are_pytorchs(case: str):
    def call(t: Any) -> Any:
        lin = t.nn.Linear(3, 2)
        if case == "twice":
            t.nn.utils.spectral_norm(t.nn.utils.spectral_norm(lin))
        elif case == "iterations":
            t.nn.utils.parametrizations.spectral_norm(lin, n_power_iterations=0)
        elif case == "dim":
            t.nn.utils.parametrizations.spectral_norm(lin, dim=2)
        elif case == "missing":
            t.nn.utils.parametrizations.spectral_norm(lin, name="kernel")
        else:
            t.nn.utils.remove_spectral_norm(lin)
    raises_alike(call, (real_torch, ftorch))
