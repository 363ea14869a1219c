"""``parametrizations.orthogonal``, ``torch.geqrf`` and
``torch.linalg.householder_product`` against PyTorch (skipped without it): for
each map (matrix exponential, Cayley, Householder), with and without the
trivialization, square, wide and tall weights: the orthogonal weight, the
original's gradient and the weight after an SGD step, the names, and the errors.
The random columns that complete a non-square weight are taken from PyTorch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import close, raises_alike  # noqa: E402

import fad.torch as ftorch  # noqa: E402


def test_geqrf_and_householder_product():
    rng = np.random.default_rng(0)
    for shape, k in [((5, 3), None), ((2, 4, 4), None), ((6, 4), 2)]:
        x = rng.standard_normal(shape)
        mine, theirs = ftorch.geqrf(ftorch.tensor(x)), real_torch.geqrf(real_torch.tensor(x))
        for a, b in zip(mine, theirs):
            close(a, b, "float64", 1e-10)
        a, tau = (ftorch.tensor(mine[0].numpy(), requires_grad=True),
                  ftorch.tensor(mine[1].numpy()[..., :k], requires_grad=True))
        ra, rtau = (real_torch.tensor(theirs[0].numpy(), requires_grad=True),
                    real_torch.tensor(theirs[1].numpy()[..., :k], requires_grad=True))
        q, rq = ftorch.linalg.householder_product(a, tau), real_torch.linalg.householder_product(
            ra, rtau)
        close(q, rq, "float64", 1e-10)
        w = rng.standard_normal(tuple(q.shape))
        (q * ftorch.tensor(w)).sum().backward()
        (rq * real_torch.tensor(w)).sum().backward()
        close(a.grad, ra.grad, "float64", 1e-9)
        close(tau.grad, rtau.grad, "float64", 1e-9)


CASES = [("matrix_exp", True, (4, 4)), ("cayley", True, (3, 3)), ("householder", True, (4, 4)),
         ("householder", False, (5, 3)), ("householder", False, (3, 5)),
         ("matrix_exp", True, (5, 3)), ("cayley", True, (2, 4)), (None, True, (6, 2)),
         ("householder", True, (2, 3, 3))]


@pytest.mark.parametrize("orth_map,trivial,shape", CASES)
def test_orthogonal_parametrization(orth_map: Any, trivial: bool, shape: tuple):
    w0 = np.random.default_rng(1).standard_normal(shape)

    def build(t: Any) -> Any:
        m = t.nn.Linear(1, 1).double()
        del m.weight
        m.weight = t.nn.Parameter(t.tensor(w0))
        return t.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orth_map,
                                                      use_trivialization=trivial)
    theirs = build(real_torch)
    mine = build(ftorch)
    p, rp = mine.parametrizations.weight, theirs.parametrizations.weight
    if trivial and shape[-1] != shape[-2]:
        with ftorch.no_grad():
            p[0].base = ftorch.tensor(rp[0].base.numpy())
    names = [([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()])
             for m in (mine, theirs)]
    assert names[0] == names[1]

    def step(t: Any, m: Any) -> list:
        out = [m.weight]
        g = t.tensor(np.linspace(-1, 1, int(np.prod(shape))).reshape(shape))
        (m.weight * g).sum().backward()
        orig = m.parametrizations.weight.original
        out.append(orig.grad)
        t.optim.SGD([orig], lr=0.1).step()
        out.append(m.weight)
        return out
    for a, b in zip(step(ftorch, mine), step(real_torch, theirs)):
        close(a, b, "float64", 1e-9)


@pytest.mark.parametrize("case", ["vector", "map", "assign", "householder_rank",
                                  "householder_tau"])
def test_errors_are_pytorchs(case: str):
    def call(t: Any) -> Any:
        P = t.nn.utils.parametrizations
        if case == "vector":
            P.orthogonal(t.nn.Linear(2, 2), "bias")
        elif case == "map":
            P.orthogonal(t.nn.Linear(2, 2), orthogonal_map="qr")
        elif case == "assign":
            m = P.orthogonal(t.nn.Linear(2, 2), use_trivialization=False)
            m.weight = t.eye(2)
        elif case == "householder_rank":
            t.linalg.householder_product(t.ones(2, 3), t.ones(2))
        else:
            t.linalg.householder_product(t.ones(3, 2), t.ones(3))
    raises_alike(call, (real_torch, ftorch))
