"""In-place writes through the views PyTorch's view operations return reach the
tensor viewed (and the view's strides are PyTorch's), against PyTorch (skipped
without it): ``x.diagonal().add_(eps)`` edits ``x``'s diagonal, as in PyTorch, for
a row-major ``x`` and for one laid out column by column (an elementwise result
of a transposed tensor)."""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

VIEWS: dict[str, Callable[[Any, Any], Any]] = {
    "diagonal": lambda t, x: x.diagonal(),
    "diagonal(1)": lambda t, x: x.diagonal(1),
    "diagonal(-1, 1, 0)": lambda t, x: t.diagonal(x, -1, 1, 0),
    "T": lambda t, x: x.T,
    "narrow": lambda t, x: x.narrow(1, 1, 2),
    "select": lambda t, x: x.select(0, 1),
    "unbind": lambda t, x: x.unbind(0)[1],
    "chunk": lambda t, x: x.chunk(2, 1)[1],
    "split": lambda t, x: x.split([1, 3], 1)[1],
    "tensor_split": lambda t, x: x.tensor_split(2, 1)[0],
    "hsplit": lambda t, x: x.hsplit(2)[1],
    "vsplit": lambda t, x: t.vsplit(x, [1])[1],
    "unsqueeze": lambda t, x: x.unsqueeze(0),
    "view": lambda t, x: x.view(12),
    "flatten": lambda t, x: x.flatten(),
    "unflatten": lambda t, x: x.unflatten(1, (2, 2)),
    "x[::2]": lambda t, x: x[::2],
    "movedim": lambda t, x: x.movedim(0, 1),
    "unfold": lambda t, x: x.unfold(1, 2, 2),
    "as_strided": lambda t, x: x.as_strided((2, 3), (4, 1), 1),
}
WRITES: dict[str, Callable[[Any], Any]] = {
    "fill_": lambda v: v.fill_(7),
    "add_": lambda v: v.add_(1),
    "mul_": lambda v: v.mul_(2),
    "v[0] = 5": lambda v: v.__setitem__(0, 5.0),
}


def outcome(lib: Any, view: str, write: str, layout: str = "row-major") -> tuple:
    if layout == "row-major":
        x = lib.arange(12.0).reshape(3, 4)
    else:  # (an elementwise result keeps its operand's transposed layout, in both)
        x = lib.arange(12.0).reshape(4, 3).t() * 1
    try:
        v = VIEWS[view](lib, x)
    except RuntimeError as e:
        return str(e)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        WRITES[write](v)
    return x.flatten().tolist(), tuple(v.stride()), v.is_contiguous(), tuple(x.stride())


@pytest.mark.parametrize("layout", ["row-major", "column-major"])
@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_writes_through_a_view_reach_its_base_as_in_pytorch(view: str, write: str,
                                                            layout: str) -> None:
    assert outcome(ftorch, view, write, layout) == outcome(real_torch, view, write, layout)


@pytest.mark.parametrize("name", ["hsplit", "vsplit", "dsplit"])
@pytest.mark.parametrize("sections", [2, 3, [1], [1, 5]])
@pytest.mark.parametrize("shape", [(6,), (2, 6), (4, 6, 2), (2, 3, 4), ()])
def test_hsplit_vsplit_dsplit_as_pytorch(name: str, sections: Any, shape: tuple) -> None:
    def run(lib: Any) -> Any:
        try:
            x = lib.arange(float(math.prod(shape))).reshape(shape)
            parts = getattr(lib, name)(x, sections)
        except RuntimeError as e:
            return str(e)
        return [p.tolist() for p in parts]
    assert run(ftorch) == run(real_torch)


COMPLEX_VIEWS: dict[str, Callable[[Any], Any]] = {
    "view_as_real": lambda t: t.view_as_real(t.tensor([1 + 2j, 3 - 4j, -5j])),
    "view_as_real of a slice": lambda t: t.view_as_real(t.tensor([1 + 2j, 3 - 4j, -5j])[::2]),
    "view_as_complex": lambda t: t.view_as_complex(t.arange(8.0).reshape(4, 2)),
    "view_as_complex of rows": lambda t: t.view_as_complex(t.arange(12.0).reshape(2, 3, 2)[1]),
    "view_as_complex, stride 2": lambda t: t.view_as_complex(t.ones(3, 2).t().contiguous().t()),
    "view_as_complex, int": lambda t: t.view_as_complex(t.ones(3, 2, dtype=t.int64)),
    "view_as_complex, size 3": lambda t: t.view_as_complex(t.ones(2, 3)),
    "view_as_complex, offset 1": lambda t: t.view_as_complex(t.ones(3, 4)[:, 1:3]),
    "view_as_real, real": lambda t: t.view_as_real(t.ones(2)),
}


@pytest.mark.parametrize("name", sorted(COMPLEX_VIEWS))
def test_view_as_real_and_complex_as_pytorch(name: str) -> None:
    """Values, strides, PyTorch's errors, a write through the view into the tensor it
    views, and the gradient through the view (PyTorch's complex convention)."""
    def run(lib: Any) -> Any:
        try:
            v = COMPLEX_VIEWS[name](lib)
        except RuntimeError as e:
            return str(e)
        seen = (v.tolist(), v.stride())
        v.mul_(2)
        leaf = v._base.detach().clone().requires_grad_()  # (the tensor viewed, written)
        out = lib.view_as_real(leaf) if leaf.is_complex() else lib.view_as_complex(
            leaf if leaf.shape[-1] == 2 else leaf.reshape(-1, 2))
        w = lib.tensor(np.sin(np.arange(out.numel())).reshape(tuple(out.shape)))
        ((out * w).real if out.is_complex() else out * w).sum().backward()
        return seen, leaf.tolist(), leaf.grad.tolist(), out.grad_fn.name()
    assert run(ftorch) == run(real_torch)


NEW_MEMORY: dict[str, Callable[[Any, Any], Any]] = {
    "repeat(2, 1)": lambda t, v: v.repeat(2, 1),
    "repeat(1, 3)": lambda t, v: v[None].repeat(1, 3),
    "tile((2, 1))": lambda t, v: t.tile(v, (2, 1)),
    "repeat_interleave of one element": lambda t, v: v[:1].repeat_interleave(3),
    "repeat_interleave(2, dim=1)": lambda t, v: v[:, None].repeat_interleave(2, dim=1),
    "expand(2, 3).clone()": lambda t, v: v.expand(2, 3).clone(),
    "expand(2, 3).contiguous()": lambda t, v: v.expand(2, 3).contiguous(),
}


@pytest.mark.parametrize("name", sorted(NEW_MEMORY))
def test_results_pytorch_makes_new_own_their_memory(name: str) -> None:
    """Tiles and copies of a broadcast are new, writable, row-by-row memory (NumPy
    would lay a broadcast's copy out otherwise, or give a read-only view)."""
    def run(lib: Any) -> tuple:
        v = lib.arange(3.0)
        out = NEW_MEMORY[name](lib, v)
        seen = (out.stride(), out.is_contiguous())
        out.add_(1)
        return seen, out.tolist(), v.tolist()
    assert run(ftorch) == run(real_torch)
