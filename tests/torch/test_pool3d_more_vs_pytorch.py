"""The 3-d adaptive, unpooling and power-average poolings against PyTorch
(skipped without it): ``adaptive_avg_pool3d``/``adaptive_max_pool3d`` (values,
indices, gradients, ``None`` sizes, global pooling), ``max_unpool3d`` after
``max_pool3d``, ``lp_pool3d``, the ``*_with_indices`` functions, the modules'
reprs and PyTorch's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import close, raises_alike  # noqa: E402

import fad.torch as ftorch  # noqa: E402


def volume(t: Any, shape: tuple, seed: int = 0) -> Any:
    """Distinct values (no ties for the maxima), float64, requiring grad."""
    rng = np.random.default_rng(seed)
    values = rng.permutation(int(np.prod(shape))).reshape(shape) / 7.0 - 3.0
    return t.tensor(values, requires_grad=True)


SIZES = [((1, 2, 5, 6, 7), (2, 3, 4)), ((2, 4, 4, 5), (3, None, 2)), ((1, 1, 3, 3, 3), 1),
         ((1, 2, 6, 4, 5), (6, 1, 5))]


@pytest.mark.parametrize("shape,size", SIZES)
def test_adaptive_pools(shape: tuple, size: Any):
    def run(t: Any) -> list:
        x = volume(t, shape)
        avg = t.nn.functional.adaptive_avg_pool3d(x, size)
        mx, idx = t.nn.functional.adaptive_max_pool3d(x, size, return_indices=True)
        w = t.tensor(np.linspace(-1, 1, avg.numel()).reshape(tuple(avg.shape)))
        ((avg * w).sum() + (mx * w).sum()).backward()
        return [avg, mx, idx, x.grad]
    got, want = run(ftorch), run(real_torch)
    for a, b in zip(got, want):
        if b.dtype == real_torch.int64:
            assert a.tolist() == b.tolist() and str(a.dtype) == "torch.int64"
        else:
            close(a, b, "float64")


@pytest.mark.parametrize("kernel,stride,padding", [(2, None, 0), ((3, 2, 2), (2, 1, 2), (1, 0, 1))])
def test_max_unpool3d_and_lp_pool3d(kernel: Any, stride: Any, padding: Any):
    def run(t: Any) -> list:
        F = t.nn.functional
        x = volume(t, (1, 2, 6, 5, 6), 1)
        out, idx = F.max_pool3d_with_indices(x, kernel, stride, padding)
        un = F.max_unpool3d(out, idx, kernel, stride, padding, output_size=x.shape[-3:])
        lp = F.lp_pool3d(x.abs() + 0.1, 2.5, kernel, stride)
        (un.sum() + lp.sum()).backward()
        return [un, lp, x.grad, t.nn.MaxUnpool3d(kernel, stride, padding)(out, idx, x.shape)]
    got, want = run(ftorch), run(real_torch)
    for a, b in zip(got, want):
        close(a, b, "float64")


def test_with_indices_functions_and_module_reprs():
    F, G = ftorch.nn.functional, real_torch.nn.functional
    for name in ("max_pool1d", "max_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d"):
        x = np.arange(16.0).reshape(1, 1, 16) if "1d" in name else \
            np.arange(16.0).reshape(1, 1, 4, 4)
        mine = getattr(F, name + "_with_indices")(ftorch.tensor(x), 2)
        theirs = getattr(G, name + "_with_indices")(real_torch.tensor(x), 2)
        assert [m.tolist() for m in mine] == [t.tolist() for t in theirs]
    for t_mod, f_mod in [(real_torch.nn, ftorch.nn)]:
        for make in (lambda m: m.AdaptiveAvgPool3d((2, None, 3)), lambda m: m.AdaptiveMaxPool3d(2),
                     lambda m: m.MaxUnpool3d(2, 1), lambda m: m.LPPool3d(2, (2, 1, 2))):
            assert repr(make(f_mod)) == repr(make(t_mod))


@pytest.mark.parametrize("case", ["avg_rank", "max_rank", "avg_size", "max_size", "lp_rank",
                                  "unpool_size", "unpool_index", "unpool_index_1d"])
def test_errors_are_pytorchs(case: str):
    def call(t: Any) -> Any:
        F = t.nn.functional
        if case == "avg_rank":
            F.adaptive_avg_pool3d(t.ones(2, 3), 2)
        elif case == "max_rank":
            F.adaptive_max_pool3d(t.ones(2, 3), 2)
        elif case == "avg_size":
            F.adaptive_avg_pool3d(t.ones(1, 2, 3, 3, 3), (2, 2))
        elif case == "max_size":
            F.adaptive_max_pool3d(t.ones(1, 2, 3, 3, 3), (2, 2))
        elif case == "lp_rank":
            F.lp_pool3d(t.ones(2, 3), 2, 2)
        elif case == "unpool_size":
            F.max_unpool3d(t.ones(1, 1, 1, 1, 1), t.zeros(1, 1, 1, 1, 1, dtype=t.int64), 2,
                           None, 0, (5, 5, 5))
        elif case == "unpool_index":  # (the pooled volume's positions, beyond the default size)
            F.max_unpool3d(*F.max_pool3d(t.arange(180.0).reshape(1, 1, 6, 5, 6), 2,
                                         return_indices=True), 2)
        else:
            F.max_unpool1d(t.ones(1, 1, 2), t.tensor([[[1, -1]]]), 2)
    raises_alike(call, (real_torch, ftorch))
