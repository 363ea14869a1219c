"""In-place writes into an ``expand()``ed tensor, whose elements share memory cells:
PyTorch writes fills and indexed writes through into the expanded tensor, and
refuses every other in-place operation; fad.torch does the same (against PyTorch
when it is installed), where before it wrote into a private copy and left the
expanded tensor unchanged. ``fad/torch/_memory.py`` holds the rule and the writes."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fad.torch as ftorch
from fad.torch._memory import internal_overlap, writable_alias

WRITES: dict[str, Callable[[Any, Any], Any]] = {
    "add_": lambda t, y: y.add_(1),
    "sin_": lambda t, y: y.sin_(),
    "clamp_": lambda t, y: y.clamp_(0, 1),
    "copy_": lambda t, y: y.copy_(t.ones(3, 4)),
    "uniform_": lambda t, y: y.uniform_(),
    "fill_": lambda t, y: y.fill_(2),
    "zero_": lambda t, y: y.zero_(),
    "masked_fill_": lambda t, y: y.masked_fill_(t.tensor([[True, False, False, False]] * 3), 3.0),
    "index_fill_": lambda t, y: y.index_fill_(1, t.tensor([0]), 5.0),
    "index_put_": lambda t, y: y.index_put_((t.tensor([1]), t.tensor([2])), t.tensor(6.0)),
    "y[:] = 7": lambda t, y: y.__setitem__(slice(None), 7.0),
    "y[0] = 7": lambda t, y: y.__setitem__(0, 7.0),
    "y[0, 0] = 7": lambda t, y: y.__setitem__((0, 0), 7.0),
    "y[:, 1] = v": lambda t, y: y.__setitem__((slice(None), 1), t.tensor([4.0, 5.0, 6.0])),
    "y[mask] = 7": lambda t, y: y.__setitem__(t.tensor([[False, True, False, False]] * 3), 7.0),
    "torch.add(out=y)": lambda t, y: t.add(t.ones(3, 4), 1, out=y),
}


def outcome(lib: Any, name: str, record: bool) -> tuple:
    """What writing ``name`` into ``x.expand(3, 4)`` does: the error, or ``x``'s values
    afterwards and the warnings; with ``record``, ``x`` is computed from a leaf that
    requires grad, and the leaf's gradient of ``sum(x * w)`` comes too."""
    leaf = lib.tensor([[1.0], [2.0], [3.0]], requires_grad=record)
    x = leaf * 1 if record else leaf
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            WRITES[name](lib, x.expand(3, 4))
        except RuntimeError as e:
            return "error", str(e)
    values = None if name == "uniform_" else x.detach().numpy().ravel().tolist()
    grad = None
    if record:
        (x * lib.tensor([[1.0], [10.0], [100.0]])).sum().backward()
        grad = leaf.grad.numpy().ravel().tolist()
    return values, grad, sorted({str(w.message).split(" on ")[0] for w in seen
                                 if "expanded" in str(w.message)})


# recorded indexed writes into an expanded tensor: PyTorch records them, fad.torch
# refuses (see the README); the fills' backward fails in PyTorch, not in fad.torch
RECORDED_DIFFERENCES = {"masked_fill_", "index_fill_", "index_put_", "y[mask] = 7",
                        "fill_", "zero_"}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_writes_into_an_expanded_tensor_as_pytorch(name: str) -> None:
    real_torch = pytest.importorskip("torch")
    assert outcome(ftorch, name, False) == outcome(real_torch, name, False)
    if name not in RECORDED_DIFFERENCES and "out=" not in name:
        assert outcome(ftorch, name, True) == outcome(real_torch, name, True)


def test_without_pytorch_the_write_reaches_the_expanded_tensor() -> None:
    assert outcome(ftorch, "fill_", False)[0] == [2.0, 2.0, 2.0]
    assert outcome(ftorch, "y[:, 1] = v", False)[0] == [4.0, 5.0, 6.0]
    values, _, warned = outcome(ftorch, "masked_fill_", False)
    assert values == [3.0, 3.0, 3.0] and warned == ["Use of masked_fill_"]
    assert outcome(ftorch, "add_", False)[0] == "error"
    # recorded: a basic index writes its part, as PyTorch's ``CopySlices``
    assert outcome(ftorch, "y[0, 0] = 7", True)[:2] == ([7.0, 2.0, 3.0], [0.0, 10.0, 100.0])
    # the fills record too; indexed writes are refused while recording
    assert outcome(ftorch, "zero_", True)[:2] == ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    assert outcome(ftorch, "masked_fill_", True)[0] == "error"


@st.composite
def views(draw: Any) -> tuple:
    """A writable array and a view of it: sliced (steps of either sign), transposed,
    broadcast (zero strides: NumPy makes these read-only)."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    base = np.arange(float(np.prod(shape))).reshape(shape)
    index = tuple(slice(draw(st.integers(0, n - 1)), None, draw(st.sampled_from([1, 2, -1])))
                  for n in shape)
    v = base[index]
    if draw(st.booleans()):
        v = v.T
    if draw(st.booleans()):
        v = np.broadcast_to(v[None], (draw(st.integers(1, 3)),) + v.shape)
    return base, v


@settings(max_examples=150, deadline=None, derandomize=True)
@given(views())
def test_a_writable_alias_writes_the_cells_of_the_view(case: tuple) -> None:
    base, v = case
    w = writable_alias(v)
    assert w is not None and w.flags.writeable and w.shape == v.shape
    assert internal_overlap(v) == any(s == 0 and n > 1 for n, s in zip(v.shape, v.strides))
    np.testing.assert_array_equal(w, v)
    w[...] = -1.0  # every cell the view reaches, and only those
    idx = np.indices(v.shape).reshape(v.ndim, -1)
    addresses = v.__array_interface__["data"][0] + (np.array(v.strides)[:, None] * idx).sum(0)
    cells = (addresses - base.__array_interface__["data"][0]) // base.itemsize
    want = np.arange(base.size, dtype=float)
    want[cells] = -1.0
    np.testing.assert_array_equal(base.ravel(), want)


def test_memory_handed_over_read_only_has_no_writable_alias() -> None:
    a = np.arange(3.0)
    a.flags.writeable = False
    assert writable_alias(a) is None and writable_alias(a[1:]) is None
