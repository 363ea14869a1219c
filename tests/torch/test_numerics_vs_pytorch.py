"""The statistics, searching, counting and integration functions of
``fad/torch/_functions/numerics.py`` against PyTorch (skipped without it): values,
dtypes, shapes and errors, then gradients."""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import outcome  # noqa: E402

import fad.torch as ftorch  # noqa: E402

CASES: dict[str, Callable[[Any], Any]] = {
    "cov": lambda t: t.cov(t.tensor([[1.0, 2.0, 4.0], [3.0, 1.0, 0.5]])),
    "cov_w": lambda t: t.cov(
        t.tensor([[1.0, 2.0, 4.0], [3.0, 1.0, 0.5]]),
        correction=0,
        fweights=t.tensor([1, 2, 1]),
        aweights=t.tensor([0.5, 1.0, 2.0]),
    ),
    "cov1d": lambda t: t.cov(t.tensor([1.0, 2.0, 4.0])),
    "corrcoef": lambda t: t.corrcoef(t.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 7.0]])),
    "dist": lambda t: t.dist(t.tensor([1.0, 2.0]), t.tensor([4.0, 6.0])),
    "dist1": lambda t: t.dist(t.tensor([1.0, 2.0]), t.tensor([4.0, 6.0]), 1),
    "distinf": lambda t: t.dist(t.tensor([1.0, 2.0]), t.tensor([4.0, 6.0]), math.inf),
    "dist0": lambda t: t.dist(t.tensor([1.0, 2.0]), t.tensor([1.0, 6.0]), 0),
    "distint": lambda t: t.dist(t.tensor([1, 2]), t.tensor([4, 6])),
    "bincount": lambda t: t.bincount(t.tensor([0, 2, 2, 5])),
    "bincount_w": lambda t: t.bincount(t.tensor([0, 2]), weights=t.tensor([0.5, 1.0]), minlength=4),
    "bincount_wi": lambda t: t.bincount(t.tensor([0, 2]), weights=t.tensor([1, 3])),
    "bincount_neg": lambda t: t.bincount(t.tensor([0, -2])),
    "bincount_f": lambda t: t.bincount(t.tensor([0.0, 2])),
    "bincount_empty": lambda t: t.bincount(t.tensor([], dtype=t.int64)),
    "isin": lambda t: t.isin(t.tensor([1, 2, 3]), t.tensor([2, 5])),
    "isin_s": lambda t: t.isin(t.tensor([1, 2, 3]), 2, invert=True),
    "ss": lambda t: t.searchsorted(t.tensor([1, 3, 5, 7]), t.tensor([3, 6])),
    "ss_r": lambda t: t.searchsorted(t.tensor([1, 3, 5, 7]), t.tensor([3, 6]), right=True),
    "ss_side": lambda t: t.searchsorted(t.tensor([1, 3, 5, 7]), t.tensor([3, 6]), side="right"),
    "ss_scalar": lambda t: t.searchsorted(t.tensor([1, 3, 5, 7]), 4),
    "ss_32": lambda t: t.searchsorted(t.tensor([1, 3, 5, 7]), t.tensor([3, 6]), out_int32=True),
    "ss_nd": lambda t: t.searchsorted(t.tensor([[1, 3, 5], [2, 4, 6]]), t.tensor([[3, 6], [1, 5]])),
    "ss_sorter": lambda t: t.searchsorted(
        t.tensor([5, 1, 3]), t.tensor([2, 4]), sorter=t.tensor([1, 2, 0])
    ),
    "ss_bad": lambda t: t.searchsorted(t.tensor([[1, 3, 5], [2, 4, 6]]), t.tensor([[3, 6]])),
    "uc": lambda t: t.unique_consecutive(t.tensor([1, 1, 2, 2, 3, 1, 1])),
    "uc_all": lambda t: t.unique_consecutive(
        t.tensor([1, 1, 2, 2, 3, 1, 1]), return_inverse=True, return_counts=True
    ),
    "uc_dim": lambda t: t.unique_consecutive(
        t.tensor([[1, 1], [1, 1], [2, 3]]), return_counts=True, dim=0
    ),
    "uc_2d": lambda t: t.unique_consecutive(t.tensor([[1, 1], [2, 2]]), return_inverse=True),
    "uc_empty": lambda t: t.unique_consecutive(t.tensor([], dtype=t.int64), return_counts=True),
    "trap": lambda t: t.trapezoid(t.tensor([[1.0, 2.0, 4.0], [3.0, 1.0, 0.5]])),
    "trap_dx": lambda t: t.trapezoid(t.tensor([1.0, 2.0, 4.0]), dx=2),
    "trap_x": lambda t: t.trapezoid(t.tensor([1.0, 2.0, 4.0]), t.tensor([0.0, 1.0, 3.0])),
    "trap_dim": lambda t: t.trapezoid(t.tensor([[1.0, 2.0, 4.0], [3.0, 1.0, 0.5]]), dim=0),
    "trap_int": lambda t: t.trapezoid(t.tensor([1, 2, 4])),
    "trapz": lambda t: t.trapz(t.tensor([1.0, 3.0]), t.tensor([0.0, 2.0])),
    "ctrap": lambda t: t.cumulative_trapezoid(t.tensor([1.0, 2.0, 4.0])),
    "ctrap_x": lambda t: t.cumulative_trapezoid(
        t.tensor([[1.0, 2.0, 4.0], [0.0, 1.0, 1.0]]), t.tensor([0.0, 1.0, 3.0])
    ),
    "ctrap_dim": lambda t: t.cumulative_trapezoid(
        t.tensor([[1.0, 2.0, 4.0], [0.0, 1.0, 1.0]]), dim=0, dx=0.5
    ),
    "vander": lambda t: t.vander(t.tensor([1, 2, 3])),
    "vander_f": lambda t: t.vander(t.tensor([1.0, 2.0]), N=3, increasing=True),
    "vander_i32": lambda t: t.vander(t.tensor([1, 2], dtype=t.int32)),
    "unravel": lambda t: t.unravel_index(t.tensor([4, 5, -1]), (2, 3)),
    "unravel_i": lambda t: t.unravel_index(t.tensor(7), (2, 2, 2)),
    "unravel_bad": lambda t: t.unravel_index(t.tensor([6]), (2, 3)),
    "gcd": lambda t: t.gcd(t.tensor([12, 18, -4, 0]), t.tensor([8, 27, 6, 0])),
    "lcm": lambda t: t.lcm(t.tensor([4, -3]), t.tensor([6, 5])),
    "gcd_f": lambda t: t.gcd(t.tensor([1.0]), t.tensor([2.0])),
    "frexp": lambda t: t.frexp(t.tensor([8.0, 0.3, 0.0, -5.0])),
    "frexp_i": lambda t: t.frexp(t.tensor([8])),
    "histogram": lambda t: t.histogram(t.tensor([1.0, 2.0, 1.0, 4.0]), bins=3),
    "histogram_edges": lambda t: t.histogram(
        t.tensor([1.0, 2.0, 1.0]), bins=t.tensor([0.0, 1.5, 3.0]), density=True
    ),
    "histogram_range": lambda t: t.histogram(
        t.tensor([1.0, 2.0, 5.0]), 2, range=(0.0, 4.0), weight=t.tensor([1.0, 2.0, 3.0])
    ),
    "gradient": lambda t: t.gradient(t.tensor([1.0, 2.0, 4.0, 8.0])),
    "gradient_2d": lambda t: t.gradient(t.tensor([[1.0, 2.0, 4.0], [2.0, 5.0, 9.0]])),
    "gradient_dim": lambda t: t.gradient(
        t.tensor([[1.0, 2.0, 4.0], [2.0, 5.0, 9.0]]), dim=1, spacing=2.0
    ),
    "combinations": lambda t: t.combinations(t.tensor([1, 2, 3])),
    "combinations_r": lambda t: t.combinations(t.tensor([1, 2, 3]), r=3, with_replacement=True),
    "combinations_none": lambda t: t.combinations(t.tensor([1.0, 2.0]), r=3),
    "polygamma": lambda t: t.polygamma(1, t.tensor([1.0, 2.0])),
    "polygamma_m": lambda t: t.tensor([1.0, 2.0]).polygamma(2),
    "mvlgamma": lambda t: t.mvlgamma(t.tensor([0.2, 3.0]), 2),
    "igamma": lambda t: t.igamma(t.tensor([2.0, 0.5]), t.tensor([1.0, 3.0])),
    "igammac": lambda t: t.special.gammaincc(t.tensor([2.0, 0.5]), t.tensor([1.0, 3.0])),
    "renorm": lambda t: t.renorm(t.tensor([[1.0, 2.0], [3.0, 4.0]]), 2, 0, 2.0),
    "pdist": lambda t: t.pdist(t.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])),
    "pdist_1": lambda t: t.pdist(t.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]), 1),
    "addmv": lambda t: t.addmv(t.ones(2), t.eye(2), t.tensor([2.0, 3.0]), alpha=2),
    "addmv_bad": lambda t: t.addmv(t.ones(2), t.eye(2), t.ones(3)),
    "addr": lambda t: t.addr(t.zeros(2, 2), t.tensor([1.0, 2.0]), t.tensor([3.0, 4.0]), beta=0.5),
    "addr_bad": lambda t: t.addr(t.zeros(2, 2), t.ones(2, 2), t.ones(2)),
    "addbmm": lambda t: t.addbmm(t.ones(2, 2), t.ones(3, 2, 1), t.arange(6.0).reshape(3, 1, 2)),
    "empty_strided": lambda t: (t.empty_strided((2, 3), (1, 2)).stride(),),
    "typename": lambda t: (t.typename(t.ones(1)), t.typename(t.ones(1, dtype=t.int64))),
    "cdouble": lambda t: t.tensor([1.0]).cdouble(),
    "rsub": lambda t: t.rsub(t.tensor([1.0, 2.0]), 5),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    assert outcome(CASES[name], ftorch) == outcome(CASES[name], real_torch)


def test_gradients_as_pytorch():
    """Weighted covariance, correlation, ``dist``, the trapezoidal rules and
    ``frexp``'s mantissa, differentiated together."""

    def run(t: Any) -> list:
        x = t.tensor([[1.0, 2.0, 4.0], [3.0, 1.0, 0.5]], requires_grad=True)
        (
            t.cov(x, aweights=t.tensor([0.5, 1.0, 2.0])).sum()
            + t.corrcoef(x)[0, 1]
            + t.dist(x[0], x[1])
            + t.trapezoid(x).sum()
            + t.cumulative_trapezoid(x, dim=0).sum()
            + t.frexp(x)[0].sum()
        ).backward()
        return x.grad.tolist()

    np.testing.assert_allclose(run(ftorch), run(real_torch), rtol=1e-5)


def test_more_gradients_as_pytorch():
    """``renorm``, ``pdist``, ``mvlgamma``, ``polygamma``, ``igamma`` (in its second
    argument), ``addmv``/``addr``/``addbmm`` and ``gradient``, differentiated together."""

    def run(t: Any) -> tuple:
        x = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = t.tensor([[0.0, 1.0], [2.0, 2.0], [5.0, 0.0]], requires_grad=True)
        loss = (
            t.renorm(x, 2, 1, 3.0).sum()
            + t.pdist(y).sum()
            + t.mvlgamma(x + 2, 2).sum()
            + t.polygamma(1, x).sum()
            + t.igamma(x.detach() + 1, x).sum()
            + t.addmv(x[0], x, x[1], beta=2).sum()
            + (t.addr(x, x[0], x[1]) ** 2).sum()
            + t.addbmm(x, t.stack([x, x * 2]), t.stack([x.t(), x])).sum()
            + sum(g.pow(2).sum() for g in t.gradient(x * x, spacing=(1.0, 0.5)))
        )
        loss.backward()
        return x.grad.numpy(), y.grad.numpy()

    for got, want in zip(run(ftorch), run(real_torch)):
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_vander_gradient():
    """(PyTorch 2.13's own backward of ``vander`` fails: checked against the formula.)"""
    y = ftorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    ftorch.vander(y, 3).sum().backward()
    assert y.grad.tolist() == [3.0, 5.0, 7.0]  # d/dy (1 + y + y**2)
