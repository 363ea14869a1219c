"""``scatter``, ``scatter_add``, ``index_add`` and ``baddbmm`` against PyTorch:
values, the gradients of every input, and the in-place forms."""

from __future__ import annotations

import numpy as np
import pytest

import fad.torch as torch

real = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
SRC = RNG.standard_normal((3, 4))
INDEX = np.array([[0, 1, 2, 0], [2, 0, 0, 1]])  # rows of (2, 4): repeated targets


def both(fn_ours, fn_theirs, *arrays):
    """Values and input gradients of a call in both libraries (weights break symmetry)."""
    outs = []
    for lib, fn in ((torch, fn_ours), (real, fn_theirs)):
        ts = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays]
        y = fn(lib, *ts)
        (y * lib.tensor(np.arange(1.0, y.numel() + 1).reshape(tuple(y.shape)))).sum().backward()
        outs.append((y.detach().numpy(), [t.grad.numpy() for t in ts]))
    (a, ga), (b, gb) = outs
    np.testing.assert_allclose(a, b, rtol=1e-12)
    for x, y in zip(ga, gb):
        np.testing.assert_allclose(x, y, rtol=1e-12)


@pytest.mark.parametrize("dim", [0, 1])
def test_scatter_add_values_and_gradients(dim):
    index = INDEX if dim == 0 else INDEX[:, :3] % 3
    f = lambda lib, x, s: x.scatter_add(dim, lib.tensor(index), s)  # noqa: E731
    both(f, f, X, SRC[:index.shape[0], :index.shape[1]])  # (PyTorch's src gradient needs
    # src shaped as index)


def test_scatter_without_repeats_values_and_gradients():
    index = np.array([[2, 0, 1, 1], [0, 2, 2, 0]])  # each target once per column
    f = lambda lib, x, s: x.scatter(0, lib.tensor(index), s)  # noqa: E731
    both(f, f, X, SRC[:2])


def test_index_add_values_and_gradients():
    f = lambda lib, x, s: x.index_add(1, lib.tensor([3, 0, 3]), s[:, :3], alpha=2.0)  # noqa: E731
    both(f, f, X, SRC)


def test_baddbmm_values_and_gradients():
    a, b1, b2 = RNG.standard_normal((2, 2, 3)), RNG.standard_normal((2, 2, 4)), \
        RNG.standard_normal((2, 4, 3))
    f = lambda lib, c, p, q: lib.baddbmm(c, p, q, beta=0.5, alpha=2.0)  # noqa: E731
    both(f, f, a, b1, b2)


def test_in_place_forms_and_scalar_values():
    ours, theirs = torch.zeros(3), real.zeros(3)
    ours.scatter_add_(0, torch.tensor([0, 0, 2]), torch.ones(3))
    theirs.scatter_add_(0, real.tensor([0, 0, 2]), real.ones(3))
    assert ours.tolist() == theirs.tolist()
    assert torch.zeros(3).scatter(0, torch.tensor([1]), value=4.0).tolist() == \
        real.zeros(3).scatter(0, real.tensor([1]), value=4.0).tolist()
    assert torch.zeros(3).index_add_(0, torch.tensor([2]), torch.ones(1)).tolist() == \
        real.zeros(3).index_add_(0, real.tensor([2]), real.ones(1)).tolist()


def test_grad_fn_names_are_pytorchs():
    s = torch.ones(2, requires_grad=True)
    x = torch.zeros(3)
    assert type(x.scatter_add(0, torch.tensor([0, 2]), s).grad_fn).__name__ == \
        "ScatterAddBackward0"
    assert type(x.scatter(0, torch.tensor([0, 2]), s).grad_fn).__name__ == "ScatterBackward0"
