"""``torch.nn.grad`` against PyTorch (skipped without it): the gradients of a
1-, 2- and 3-d convolution with respect to its input and its weight, at strides,
paddings, dilations and groups, and their own gradients in the weight (or
input) and in ``grad_output`` (a double backward through them)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import torch.nn.grad  # noqa: E402,F401
from torch_compare import close  # noqa: E402

import fad.torch as ftorch  # noqa: E402

CASES = [  # (dims, input shape, weight shape, stride, padding, dilation, groups)
    (1, (2, 4, 9), (6, 2, 3), 2, 1, 1, 2),
    (2, (1, 3, 7, 6), (4, 3, 3, 2), 1, 0, 1, 1),
    (2, (2, 4, 8, 7), (4, 2, 3, 3), (2, 1), (1, 2), (1, 2), 2),
    (3, (1, 2, 5, 6, 4), (3, 2, 2, 3, 2), (1, 2, 1), 1, 1, 1),
]


def run(t: Any, case: tuple, which: str) -> list:
    d, xs, ws, stride, padding, dilation, groups = case
    rng = np.random.default_rng(d)
    x = t.tensor(rng.standard_normal(xs), requires_grad=True)
    w = t.tensor(rng.standard_normal(ws), requires_grad=True)
    conv = getattr(t.nn.functional, f"conv{d}d")
    out_shape = tuple(conv(x, w, None, stride, padding, dilation, groups).shape)
    go = t.tensor(rng.standard_normal(out_shape), requires_grad=True)
    if which == "input":
        g = getattr(t.nn.grad, f"conv{d}d_input")(xs, w, go, stride, padding, dilation, groups)
        others = (w, go)
    else:
        g = getattr(t.nn.grad, f"conv{d}d_weight")(x, ws, go, stride, padding, dilation, groups)
        others = (x, go)
    second = t.autograd.grad((g * g).sum(), others)
    with t.no_grad():
        plain = getattr(t.nn.grad, f"conv{d}d_{which}")(
            xs if which == "input" else x, w if which == "input" else ws, go, stride, padding,
            dilation, groups)
    return [g, *second, plain.requires_grad]


@pytest.mark.parametrize("which", ["input", "weight"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}d-{c[1]}")
def test_conv_gradients_and_their_gradients(case: tuple, which: str):
    got, want = run(ftorch, case, which), run(real_torch, case, which)
    for a, b in zip(got[:-1], want[:-1]):
        close(a, b, "float64", 1e-10)
    assert got[-1] == want[-1] is False
