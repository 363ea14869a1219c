"""Descending sorts of every dtype, sums of small integers and multinomial draws, as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import fad.torch as torch

real = pytest.importorskip("torch")

CASES = [
    ([True, False, True], "bool"),
    ([0, 5, 0, 3, 255], "uint8"),
    ([1.0, 2.0, 1.0, float("nan"), -float("inf")], "float64"),
    ([[1, 3, 3], [4, 2, 4]], "int32"),
]


@pytest.mark.parametrize("values, dtype", CASES)
@pytest.mark.parametrize("descending", [False, True])
def test_stable_sorts_match_pytorch(values, dtype, descending):
    ours = torch.sort(torch.tensor(values, dtype=getattr(torch, dtype)), dim=-1,
                      descending=descending, stable=True)
    theirs = real.sort(real.tensor(values, dtype=getattr(real, dtype)), dim=-1,
                       descending=descending, stable=True)
    np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())
    np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())
    assert torch.argsort(torch.tensor(values, dtype=getattr(torch, dtype)), dim=0,
                         descending=descending).tolist() == real.argsort(
        real.tensor(values, dtype=getattr(real, dtype)), dim=0, descending=descending,
        stable=True).tolist()


def test_a_descending_sort_sends_the_gradient_back_in_place():
    x = torch.tensor([1.0, 3.0, 2.0], requires_grad=True)
    values, _ = torch.sort(x, descending=True)
    (values * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [3.0, 1.0, 2.0]


@pytest.mark.parametrize("dtype", ["uint8", "bool", "int8", "int32"])
def test_sums_of_small_integers_are_int64(dtype):
    values = [1, 0, 1] if dtype == "bool" else [1, 2, 120]
    ours = torch.tensor(values, dtype=getattr(torch, dtype))
    theirs = real.tensor(values, dtype=getattr(real, dtype))
    assert ours.sum().item() == theirs.sum().item() and str(ours.sum().dtype) == "torch.int64"
    assert ours.sum(0).item() == theirs.sum(0).item()


@pytest.mark.parametrize("weights, n, replacement", [
    ([0.2, 0.0, 0.8], 5, True), ([[1.0, 2.0, 3.0], [0.0, 0.0, 4.0]], 1, False),
    ([[1.0, 1.0, 1.0, 1.0]], 4, False)])
def test_multinomial_draws_valid_categories(weights, n, replacement):
    torch.manual_seed(1)
    out = torch.multinomial(torch.tensor(weights), n, replacement=replacement)
    w = np.atleast_2d(weights)
    assert str(out.dtype) == "torch.int64"
    assert tuple(out.shape) == np.shape(weights)[:-1] + (n,)
    for row, picks in zip(w, np.atleast_2d(out.numpy())):
        assert all(row[k] > 0 for k in picks)
        if not replacement:
            assert len(set(picks.tolist())) == n


def test_multinomial_frequencies_and_seeding():
    torch.manual_seed(3)
    draws = torch.multinomial(torch.tensor([1.0, 3.0]), 4000, replacement=True).numpy()
    assert abs(draws.mean() - 0.75) < 0.03  # 4000 draws: standard error 0.007
    torch.manual_seed(3)
    again = torch.multinomial(torch.tensor([1.0, 3.0]), 4000, replacement=True).numpy()
    assert (draws == again).all()


@pytest.mark.parametrize("weights, n", [([-1.0, 1.0], 1), ([0.0, 0.0], 1), ([1.0, 1.0], 3),
                                        ([[[1.0]]], 1)])
def test_multinomial_errors_are_pytorchs(weights, n):
    with pytest.raises(RuntimeError) as ours:
        torch.multinomial(torch.tensor(weights), n)
    with pytest.raises(RuntimeError) as theirs:
        real.multinomial(real.tensor(weights), n)
    assert str(ours.value) == str(theirs.value)
