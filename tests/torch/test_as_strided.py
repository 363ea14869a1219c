"""``as_strided`` and ``storage_offset`` against PyTorch (skipped without it): views
of a tensor's storage at any sizes and strides, sharing its memory, with PyTorch's
values, strides, errors and gradients (elements read more than once add up)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

# how the tensor viewed is laid out in its storage
LAYOUTS = {
    "contiguous": lambda x: x,
    "offset": lambda x: x.reshape(-1)[1:],
    "transposed": lambda x: x.t() if x.dim() == 2 else x,
    "permuted view": lambda x: x.reshape(-1)[1:].unflatten(0, (-1, 1)).movedim(0, 1),
}


@st.composite
def geometries(draw: Any) -> tuple:
    rows, cols = draw(st.integers(1, 3)), draw(st.integers(2, 4))
    layout = draw(st.sampled_from(sorted(LAYOUTS)))
    n = rows * cols - (layout in ("offset", "permuted view"))
    size = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    # (stride 0 on a dimension of length 0 or 1 aside: PyTorch's stride() gives it back,
    # fad's gives PyTorch's stride for the dimensions NumPy strides by 0 there, x[None])
    stride = tuple(draw(st.integers(0 if k > 1 else 1, 3)) for k in size)
    reach = sum((k - 1) * s for k, s in zip(size, stride)) if math.prod(size) else 0
    if n <= reach:
        size = tuple(min(k, 1) for k in size)
        reach = 0
    start = draw(st.integers(0, max(n - 1 - reach, 0)))
    return (rows, cols), layout, size, stride, start


@settings(max_examples=60, deadline=None, derandomize=True)
@given(geometries())
def test_as_strided_as_pytorch(geometry):
    """Values, strides, storage offset and the gradient of an ``as_strided`` view of
    a contiguous, offset, transposed or permuted tensor; a later write into the
    tensor shows in the view."""
    shape, layout, size, stride, start = geometry
    weights = np.cos(np.arange(100.0))

    def run(t: Any) -> tuple:
        leaf = t.tensor(np.arange(float(math.prod(shape))).reshape(shape), requires_grad=True)
        x = LAYOUTS[layout](leaf * 1)
        v = x.as_strided(size, stride, x.storage_offset() + start)
        seen = (v.tolist(), v.stride(), v.shape, x.storage_offset())
        with t.no_grad():
            x[(0,) * x.dim()] = -5.0
        after = v.detach().clone().tolist()
        w = t.tensor(weights[:v.numel()].reshape(v.shape))
        (v * w).sum().backward()
        return seen, after, leaf.grad.numpy()

    (seen, after, grad), (want_seen, want_after, want_grad) = run(ftorch), run(real_torch)
    assert (seen, after) == (want_seen, want_after)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-12, atol=1e-12)  # (sums in any order)


def test_writes_into_an_as_strided_view_reach_the_tensor():
    def run(t: Any) -> list:
        x = t.zeros(8)
        v = x.as_strided((2, 2), (1, 1), 1)  # overlapping: one element written
        v[0, 1] = 5.0
        u = x.as_strided((2, 3), (4, 1), 1)  # apart: an in-place operation
        u.add_(1)
        return x.tolist()

    assert run(ftorch) == run(real_torch)


@pytest.mark.parametrize("args", [((3, 3), (3, 3)), ((2,), (-1,)), ((2, 2), (1, 1), 8),
                                  ((-1,), (1,)), ((2, 2), (1,)), ((2,), (1,), -1),
                                  ((0, 5), (100, 100))])
def test_as_strided_errors_as_pytorch(args):
    def run(t: Any) -> Any:
        try:
            return t.arange(9.0).as_strided(*args).shape
        except RuntimeError as e:
            return str(e)

    assert run(ftorch) == run(real_torch)


def test_positions_outside_the_tensor_are_refused():
    """PyTorch reads its base's storage there; fad.torch views only the tensor's own
    elements, and says so."""
    q = ftorch.arange(12.0).reshape(3, 4)[:, 1:3]
    with pytest.raises(RuntimeError, match="reads only the tensor's own elements"):
        q.as_strided((2,), (1,))
    assert ftorch.as_strided(ftorch.arange(4.0), (2,), (2,), 1).tolist() == [1.0, 3.0]
