"""More of ``torch.nn.utils`` against PyTorch (skipped without it): the
hook-based ``weight_norm`` (names, values, gradients, its deprecation warning,
removal), batch-norm fusion into convolutions (plain and transposed) and linear
layers, ``skip_init`` and ``Module.to_empty``, ``get_total_norm`` and
``clip_grads_with_norm_`` (and ``clip_grad_norm_`` built on them, with the
deprecated ``clip_grad_norm``), and ``torch.nn.parameter``."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import close, outcome, raises_alike  # noqa: E402

import fad.torch as ftorch  # noqa: E402


def filled(t: Any, m: Any, seed: int = 5) -> Any:
    """``m`` in float64 with fixed parameters and batch-norm statistics."""
    m = m.double()
    rng = np.random.default_rng(seed)
    with t.no_grad():
        for p in [*m.parameters(), *m.buffers()]:
            if p.dtype.is_floating_point:
                values = rng.uniform(0.5, 1.5, tuple(p.shape))
                p.copy_(t.tensor(values))
    return m


def test_weight_norm_hook():
    def run(t: Any) -> tuple:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            m = t.nn.utils.weight_norm(filled(t, t.nn.Linear(3, 4)), dim=None)
            c = t.nn.utils.weight_norm(filled(t, t.nn.Conv1d(2, 3, 2)))
        names = ([n for n, _ in m.named_parameters()], list(c.state_dict()),
                 [(w.category.__name__, str(w.message)) for w in seen])
        x = t.tensor(np.linspace(-1, 1, 6).reshape(2, 3))
        y = m(x)
        y.pow(2).sum().backward()
        z = c(t.ones(1, 2, 4, dtype=t.float64))
        z.sum().backward()
        grads = (m.weight_g.grad, m.weight_v.grad, c.weight_g.grad, c.weight_v.grad)
        t.nn.utils.remove_weight_norm(m)
        return (*names, y, z, *grads, m.weight, [n for n, _ in m.named_parameters()])
    assert outcome(run, ftorch) == outcome(run, real_torch)


@pytest.mark.parametrize("case", ["twice", "not_found"])
def test_weight_norm_errors(case: str):
    def call(t: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lin = t.nn.Linear(3, 2)
            if case == "twice":
                t.nn.utils.weight_norm(t.nn.utils.weight_norm(lin))
            else:
                t.nn.utils.remove_weight_norm(lin)
    raises_alike(call, (real_torch, ftorch))


@pytest.mark.parametrize("layer", ["conv2d", "conv_transpose2d", "linear", "linear_bn1"])
def test_batch_norm_fusion(layer: str):
    def run(t: Any) -> list:
        if layer == "conv2d":
            a, bn, shape = t.nn.Conv2d(2, 3, 2), t.nn.BatchNorm2d(3), (2, 2, 4, 4)
        elif layer == "conv_transpose2d":
            a, bn, shape = t.nn.ConvTranspose2d(2, 3, 2, bias=False), t.nn.BatchNorm2d(3), \
                (2, 2, 3, 3)
        elif layer == "linear":
            a, bn, shape = t.nn.Linear(3, 4), t.nn.BatchNorm1d(4), (5, 3)
        else:
            a, bn, shape = t.nn.Linear(3, 4), t.nn.BatchNorm1d(1), (5, 3)
        a, bn = filled(t, a).eval(), filled(t, bn, 6).eval()
        if layer.startswith("conv"):
            fused = t.nn.utils.fuse_conv_bn_eval(a, bn, transpose=layer == "conv_transpose2d")
        else:
            fused = t.nn.utils.fuse_linear_bn_eval(a, bn)
        x = t.tensor(np.linspace(-2, 2, int(np.prod(shape))).reshape(shape))
        return [fused(x), fused.weight, fused.bias, fused.bias.requires_grad,
                type(fused.bias).__name__, fused is a]
    got, want = run(ftorch), run(real_torch)
    for g, w in zip(got[:3], want[:3]):
        close(g, w, "float64", 1e-12)
    assert got[3:] == want[3:]


def test_fusion_refuses_training_mode():
    raises_alike(lambda t: t.nn.utils.fuse_conv_bn_eval(t.nn.Conv2d(1, 2, 1),
                                                        t.nn.BatchNorm2d(2)),
                 (real_torch, ftorch))


def test_skip_init_and_to_empty():
    def run(t: Any) -> tuple:
        m = t.nn.utils.skip_init(t.nn.Linear, 3, 2, dtype=t.float64)
        bn = t.nn.BatchNorm1d(2).to_empty(device="cpu")
        return ([(n, tuple(p.shape), str(p.dtype), p.requires_grad)
                 for n, p in m.named_parameters()],
                [(n, tuple(b.shape)) for n, b in bn.named_buffers()], type(m).__name__)
    assert run(ftorch) == run(real_torch)
    raises_alike(lambda t: t.nn.utils.skip_init(int), (real_torch, ftorch))


def test_total_norm_and_clipping():
    def run(t: Any) -> tuple:
        out = []
        for norm_type in (2.0, 1, "inf", 3.5):
            ps = [t.zeros(3, requires_grad=True), t.zeros(2, 2, requires_grad=True),
                  t.zeros(1, requires_grad=True)]
            ps[0].grad = t.tensor([3.0, -4.0, 1.0])
            ps[1].grad = t.tensor([[0.5, 2.0], [-1.0, 0.0]])
            total = t.nn.utils.get_total_norm([p.grad for p in ps[:2]], norm_type)
            t.nn.utils.clip_grads_with_norm_(ps, 2.0, total)
            out += [total, ps[0].grad, ps[1].grad, ps[2].grad is None]
            ps[0].grad = t.tensor([0.1, 0.2, 0.0])
            out.append(t.nn.utils.clip_grad_norm_(iter(ps[:1]), 10.0, norm_type))
            out.append(ps[0].grad)
        out.append(t.nn.utils.get_total_norm([]))
        return tuple(out)
    assert outcome(run, ftorch) == outcome(run, real_torch)


def test_clipping_warnings_and_errors():
    def run(t: Any) -> tuple:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            p = t.zeros(2, requires_grad=True)
            p.grad = t.tensor([3.0, 4.0])
            total = t.nn.utils.clip_grad_norm(p, 1.0)
            t.nn.utils.clip_grad_norm_((q for q in []), 1.0)
        return total, p.grad, [(w.category.__name__, str(w.message)) for w in seen]
    assert outcome(run, ftorch) == outcome(run, real_torch)

    def nonfinite(t: Any) -> Any:
        p = t.zeros(2, requires_grad=True)
        p.grad = t.tensor([float("inf"), 1.0])
        t.nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    raises_alike(nonfinite, (real_torch, ftorch))


def test_nn_parameter_module():
    from fad.torch.nn.parameter import Buffer, Parameter, UninitializedBuffer, is_lazy

    assert Parameter is ftorch.nn.Parameter and Buffer is ftorch.nn.Buffer
    assert is_lazy(ftorch.nn.LazyLinear(2).weight) and is_lazy(UninitializedBuffer())
    assert not is_lazy(ftorch.nn.Linear(1, 1).weight)
