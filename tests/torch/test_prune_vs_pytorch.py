"""``torch.nn.utils.prune`` against PyTorch (skipped without it), on the same
weights: which parameters and buffers a pruned module has and in what order,
its masks and pruned values (magnitude and norm pruning, custom masks, global
pruning, masks combined by a ``PruningContainer``, importance scores), the
gradient reaching ``weight_orig``, ``remove`` and ``is_pruned``, and PyTorch's
errors. Random pruning draws other numbers than PyTorch's generator: the count
and the shape of what it prunes are compared instead."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import torch.nn.utils.prune  # noqa: E402,F401  (PyTorch imports it only when asked)
from torch_compare import outcome, raises_alike  # noqa: E402

import fad.torch as ftorch  # noqa: E402


def net(t: Any) -> Any:
    """A small convolutional net (float64) whose parameters are fixed distinct numbers."""
    m = t.nn.Sequential(t.nn.Conv2d(1, 4, 3), t.nn.ReLU(), t.nn.Flatten(),
                        t.nn.Linear(4 * 4 * 4, 5)).double()
    rng = np.random.default_rng(7)
    with t.no_grad():
        for p in m.parameters():
            p.copy_(t.tensor(rng.standard_normal(tuple(p.shape)), dtype=p.dtype))
    return m


def layout(m: Any) -> tuple:
    return ([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()],
            list(m.state_dict()),
            [type(h).__name__ for sub in m.modules() for h in sub._forward_pre_hooks.values()])


def forward_and_grads(t: Any, m: Any) -> list:
    x = t.tensor(np.linspace(-1, 1, 2 * 36).reshape(2, 1, 6, 6))
    out = m(x)
    out.pow(2).sum().backward()
    return [out] + [p.grad for p in m.parameters()]


def test_magnitude_norm_and_repeated_pruning():
    def run(t: Any) -> tuple:
        P = t.nn.utils.prune
        m = net(t)
        conv, lin = m[0], m[3]
        P.l1_unstructured(conv, name="weight", amount=0.3)
        first = layout(m)
        P.l1_unstructured(conv, name="bias", amount=2)
        P.ln_structured(conv, name="weight", amount=0.5, n=2, dim=0)  # combined: a container
        P.ln_structured(lin, name="weight", amount=2, n=1, dim=1)
        P.l1_unstructured(lin, name="weight", amount=0.25)
        hooks = [[type(h).__name__ for h in hook] for hook in lin._forward_pre_hooks.values()]
        return (first, layout(m), hooks, conv.weight, conv.bias, conv.weight_mask,
                lin.weight_mask, *forward_and_grads(t, m), P.is_pruned(m))
    assert outcome(run, ftorch) == outcome(run, real_torch)


def test_importance_scores_custom_masks_and_remove():
    def run(t: Any) -> tuple:
        P = t.nn.utils.prune
        m = net(t)
        conv, lin = m[0], m[3]
        scores = t.arange(lin.weight.numel(), dtype=t.float32).view_as(lin.weight)
        P.l1_unstructured(lin, "weight", amount=10, importance_scores=scores)
        P.custom_from_mask(conv, "bias", mask=t.tensor([1.0, 0.0, 1.0, 0.0]))
        P.identity(conv, "weight")
        before = layout(m)
        P.remove(lin, "weight")
        P.remove(conv, "bias")
        after = layout(m)
        pruned = P.is_pruned(m)
        P.remove(conv, "weight")
        return (before, after, pruned, P.is_pruned(m), lin.weight, conv.bias,
                type(lin.weight).__name__, *forward_and_grads(t, m))
    assert outcome(run, ftorch) == outcome(run, real_torch)


def test_global_pruning_over_earlier_masks():
    def run(t: Any) -> tuple:
        P = t.nn.utils.prune
        m = net(t)
        P.l1_unstructured(m[3], "weight", amount=0.5)
        params = [(m[0], "weight"), (m[3], "weight"), (m[3], "bias")]
        P.global_unstructured(params, pruning_method=P.L1Unstructured, amount=0.4)
        zeros = [int((getattr(mod, name) == 0).sum()) for mod, name in params]
        return layout(m), zeros, m[0].weight_mask, m[3].weight_mask, m[3].bias_mask
    assert outcome(run, ftorch) == outcome(run, real_torch)


def test_prune_method_and_container_helpers():
    def run(t: Any) -> tuple:
        P = t.nn.utils.prune
        w = t.tensor([[3.0, -1.0, 0.5], [-2.0, 4.0, 0.1]])
        l1 = P.L1Unstructured(amount=2).prune(w)
        ln = P.LnStructured(amount=1, n=float("inf"), dim=0).prune(w)
        a = P.L1Unstructured(0.5)
        a._tensor_name = "w"
        c = P.PruningContainer(a)
        b = P.LnStructured(1, 2, dim=-1)
        b._tensor_name = "w"
        c.add_pruning_method(b)
        mask = c.compute_mask(w, default_mask=t.ones_like(w))
        return l1, ln, mask, len(c), type(c[1]).__name__
    assert outcome(run, ftorch) == outcome(run, real_torch)


def test_random_pruning_counts_and_shapes():
    for t in (ftorch, real_torch):
        P = t.nn.utils.prune
        t.manual_seed(0)
        m = net(t)
        conv, lin = m[0], m[3]
        P.random_unstructured(lin, "weight", amount=0.3)
        assert int((lin.weight_mask == 0).sum()) == round(0.3 * lin.weight.numel())
        P.random_structured(conv, "weight", amount=2, dim=0)
        per_channel = conv.weight_mask.sum(dim=(1, 2, 3))
        assert sorted(per_channel.tolist()) == [0.0, 0.0, 9.0, 9.0]
        P.random_structured(conv, "weight", amount=1, dim=0)  # one more of those left
        assert int((conv.weight_mask.sum(dim=(1, 2, 3)) == 0).sum()) == 3
        assert layout(m)[:2] == (["0.bias", "0.weight_orig", "3.bias", "3.weight_orig"],
                                 ["0.weight_mask", "3.weight_mask"])


@pytest.mark.parametrize("case", [
    "negative", "above_one", "not_a_number", "too_many", "structured_1d", "bad_dim",
    "remove_unpruned", "global_structured", "scores_shape"])
def test_errors_are_pytorchs(case: str):
    def call(t: Any) -> Any:
        P = t.nn.utils.prune
        lin = t.nn.Linear(3, 2)
        if case == "negative":
            P.l1_unstructured(lin, "weight", amount=-1)
        elif case == "above_one":
            P.random_unstructured(lin, "weight", amount=1.5)
        elif case == "not_a_number":
            P.l1_unstructured(lin, "weight", amount="half")
        elif case == "too_many":
            P.l1_unstructured(lin, "weight", amount=7)
        elif case == "structured_1d":
            P.ln_structured(lin, "bias", amount=1, n=2, dim=0)
        elif case == "bad_dim":
            P.ln_structured(lin, "weight", amount=1, n=2, dim=2)
        elif case == "remove_unpruned":
            P.remove(lin, "weight")
        elif case == "global_structured":
            class Channels(P.LnStructured):  # (a class named alike in both libraries)
                pass
            P.global_unstructured([(lin, "weight")], pruning_method=Channels, amount=1, n=2,
                                  dim=0)
        elif case == "scores_shape":
            P.l1_unstructured(lin, "weight", amount=1, importance_scores=t.ones(3))
    raises_alike(call, (real_torch, ftorch))


def test_failed_pruning_puts_the_parameter_back():
    def run(t: Any) -> tuple:
        lin = t.nn.Linear(3, 2)
        with pytest.raises(ValueError):
            t.nn.utils.prune.l1_unstructured(lin, "weight", amount=7)
        return layout(lin), t.nn.utils.prune.is_pruned(lin)
    assert run(ftorch) == run(real_torch)
