"""Stacking, broadcasting, scatter-into-a-copy and diagonal functions, the window
functions and a few Tensor properties against PyTorch (skipped without it):
values, dtypes, shapes, errors and gradients."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import outcome  # noqa: E402

import fad.torch as ftorch  # noqa: E402

CASES: dict[str, Callable[[Any], Any]] = {
    "colstack": lambda t: t.column_stack([t.tensor([1.0, 2.0]), t.tensor([[3.0], [4.0]])]),
    "colstack0": lambda t: t.column_stack([t.tensor(1.0), t.tensor(2.0)]),
    "rowstack": lambda t: t.row_stack([t.tensor([1, 2]), t.tensor([3, 4])]),
    "dstack": lambda t: t.dstack([t.tensor([1, 2]), t.tensor([3, 4])]),
    "dstack2": lambda t: t.dstack([t.ones(2, 3), t.zeros(2, 3)]),
    "atl3": lambda t: t.atleast_3d(t.tensor([1.0, 2.0])),
    "atl3_0": lambda t: t.atleast_3d(t.tensor(1.0)),
    "atl3_2": lambda t: t.atleast_3d(t.ones(2, 3)),
    "atl3_many": lambda t: t.atleast_3d(t.ones(2), t.ones(2, 3)),
    "atl3_list": lambda t: t.atleast_3d([t.ones(2), t.ones(1, 1, 1, 1)]),
    "bshapes": lambda t: t.broadcast_shapes((2, 1), (3,)),
    "bshapes_int": lambda t: t.broadcast_shapes(2, (3, 1)),
    "bshapes_bad": lambda t: t.broadcast_shapes((2,), (3,)),
    "bshapes_0": lambda t: t.broadcast_shapes((0, 1), (1, 4)),
    "diagflat": lambda t: t.diagflat(t.tensor([[1, 2], [3, 4]]), -1),
    "diagflat_m": lambda t: t.tensor([1.0, 2.0]).diagflat(1),
    "sel_sc": lambda t: t.select_scatter(t.zeros(2, 3), t.ones(3), 0, 1),
    "sel_sc_bad": lambda t: t.select_scatter(t.zeros(2, 3), t.ones(2), 0, 1),
    "sl_sc": lambda t: t.slice_scatter(t.zeros(8), t.ones(3), start=1, step=3),
    "sl_sc_dim": lambda t: t.slice_scatter(t.zeros(2, 3), t.ones(2, 1), 1, 1, 2),
    "diag_sc": lambda t: t.diagonal_scatter(t.zeros(2, 3), t.ones(2), 1),
    "fill_diag": lambda t: t.ones(3, 4).fill_diagonal_(5),
    "fill_diag_wrap": lambda t: t.ones(7, 3).fill_diagonal_(2, wrap=True),
    "fill_diag_nowrap": lambda t: t.ones(7, 3).fill_diagonal_(2),
    "fill_diag_3d": lambda t: t.zeros(2, 2, 2).fill_diagonal_(1),
    "fill_diag_bad": lambda t: t.ones(2, 3, 4).fill_diagonal_(1),
    "sws": lambda t: t.ones(2, 3).split_with_sizes([1, 2], 1)[1],
    "sws_f": lambda t: t.split_with_sizes(t.arange(3), [1, 2])[0],
    "nbytes": lambda t: t.ones(2, 3).nbytes,
    "itemsize": lambda t: t.ones(2, dtype=t.float64).itemsize,
    "signed": lambda t: (
        t.tensor([1]).is_signed(),
        t.tensor([True]).is_signed(),
        t.tensor([1], dtype=t.uint8).is_signed(),
        t.ones(1).is_signed(),
    ),
    "inference": lambda t: t.ones(1).is_inference(),
    "scalar_tensor": lambda t: t.scalar_tensor(3),
    "scalar_tensor_dtype": lambda t: t.scalar_tensor(2.5, dtype=t.float64),
    "functions": lambda t: (t.is_signed(t.ones(1)), t.is_same_size(t.ones(2), t.ones(3))),
    "same_size": lambda t: (t.ones(2).is_same_size(t.ones(1)), t.ones(2).is_same_size(t.zeros(2))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    assert outcome(CASES[name], ftorch) == outcome(CASES[name], real_torch)


def test_scatter_copies_pass_gradients_to_both_inputs_as_pytorch():
    def run(t: Any) -> tuple:
        x = t.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        s = t.tensor([7.0, 8.0], requires_grad=True)
        y = (
            t.select_scatter(x, t.stack([s, s, s], 1)[0], 0, 1) * 2
            + t.diagonal_scatter(x, s) * 3
            + t.slice_scatter(x, s[:, None], 1, 0, 1)
        )
        (y * t.arange(6.0).reshape(2, 3)).sum().backward()
        return x.grad.tolist(), s.grad.tolist()

    assert run(ftorch) == run(real_torch)


WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


@pytest.mark.parametrize("length", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("name", WINDOWS)
def test_windows_as_pytorch(name, periodic, length):
    got, want = (getattr(t, name)(length, periodic) for t in (ftorch, real_torch))
    assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-6)


def test_window_parameters_and_dtypes_as_pytorch():
    for t_args in [("hamming_window", (5, True, 0.5, 0.5)), ("kaiser_window", (5, False, 8.0))]:
        name, args = t_args
        np.testing.assert_allclose(
            getattr(ftorch, name)(*args).numpy(),
            getattr(real_torch, name)(*args).numpy(),
            atol=1e-6,
        )
    assert ftorch.hann_window(3, dtype=ftorch.float64).dtype == ftorch.float64
    with pytest.raises(RuntimeError, match="non-negative window_length"):
        ftorch.hann_window(-1)
