"""``diag diagonal diag_embed repeat_interleave tensor_split rot90 select quantile
nanquantile complex tril_indices triu_indices finfo iinfo`` against PyTorch: values,
dtypes, shapes, ``grad_fn`` names, the gradients of the inputs, and the errors
(type and first line) (skipped without torch)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import raises_alike  # noqa: E402

import fad.torch as ftorch  # noqa: E402

V = np.array([1.5, -2.0, 0.25])
M = np.cos(np.arange(12.0)).reshape(3, 4)
B = np.sin(np.arange(24.0)).reshape(2, 3, 4)
N = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, np.nan]])


def _leaf(t: Any, a: np.ndarray) -> Any:
    return t.tensor(a, requires_grad=True)


VALUES: dict[str, Callable[[Any], Any]] = {
    "diag_vector": lambda t: t.diag(_leaf(t, V)),
    "diag_vector_above": lambda t: t.diag(_leaf(t, V), 2),
    "diag_vector_below": lambda t: t.diag(_leaf(t, V), -1),
    "diag_matrix": lambda t: t.diag(_leaf(t, M)),
    "diag_matrix_offset": lambda t: t.diag(_leaf(t, M), -1),
    "diagonal": lambda t: _leaf(t, M).diagonal(1),
    "diagonal_batch": lambda t: _leaf(t, B).diagonal(0, 1, 2),
    "diagonal_dims": lambda t: _leaf(t, B).diagonal(-1, 2, 0),
    "diag_embed": lambda t: t.diag_embed(_leaf(t, M), 1),
    "repeat_interleave_int": lambda t: _leaf(t, M).repeat_interleave(2),
    "repeat_interleave_dim": lambda t: _leaf(t, M).repeat_interleave(2, dim=1),
    "repeat_interleave_counts": lambda t: t.repeat_interleave(_leaf(t, M), t.tensor([1, 0, 3]),
                                                              dim=0),
    "repeat_interleave_alone": lambda t: t.repeat_interleave(t.tensor([2, 0, 1])),
    "tensor_split_sections": lambda t: t.tensor_split(_leaf(t, M), 3, dim=1),
    "tensor_split_indices": lambda t: t.tensor_split(_leaf(t, M), [1, 5], dim=1),
    "rot90": lambda t: t.rot90(_leaf(t, M)),
    "rot90_twice": lambda t: t.rot90(_leaf(t, B), 2, [1, 2]),
    "rot90_back": lambda t: t.rot90(_leaf(t, B), -1, [0, 2]),
    "select": lambda t: _leaf(t, B).select(1, -1),
    "quantile": lambda t: t.quantile(_leaf(t, M), 0.3),
    "quantile_dim": lambda t: t.quantile(_leaf(t, M), t.tensor([0.25, 0.9], dtype=t.float64),
                                         dim=1, keepdim=True),
    "quantile_midpoint": lambda t: t.quantile(_leaf(t, M), 0.5, dim=0,
                                              interpolation="midpoint"),
    "quantile_nearest": lambda t: t.quantile(_leaf(t, M), 0.4, dim=1, interpolation="nearest"),
    "nanquantile": lambda t: t.nanquantile(_leaf(t, N), 0.5, dim=1),
    "complex": lambda t: t.complex(_leaf(t, V), _leaf(t, V[::-1].copy())),
    "complex_float32": lambda t: t.complex(t.tensor([1.0]), t.tensor([2.0])),
    "tril_indices": lambda t: t.tril_indices(3, 4, -1),
    "triu_indices": lambda t: t.triu_indices(4, 3, 1),
}


def _outputs(out: Any) -> list:
    return list(out) if isinstance(out, tuple) else [out]


def _run(name: str, lib: Any) -> list:
    outs = _outputs(VALUES[name](lib))
    got = [(tuple(o.shape), str(o.dtype), np.asarray(o.detach().tolist()),
            None if o.grad_fn is None else o.grad_fn.name()) for o in outs]
    leaves = {id(o): o for o in outs}  # the leaves: through the graph of the first output
    loss = sum((o.abs() ** 2).sum() for o in outs if o.requires_grad)
    if not isinstance(loss, int):
        inputs = [x for x in _graph_leaves(outs[0]) if x is not None]
        grads = lib.autograd.grad(loss, inputs, allow_unused=True)
        got.append([None if g is None else np.asarray(g.tolist()) for g in grads])
    del leaves
    return got


def _graph_leaves(t: Any) -> list:
    seen, stack, found = set(), [t.grad_fn], []
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        if hasattr(n, "variable"):
            found.append(n.variable)
        stack.extend(f for f, _ in n.next_functions)
    return sorted(found, key=lambda v: tuple(v.shape))


@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_and_gradients_match_pytorch(name: str) -> None:
    ours, theirs = _run(name, ftorch), _run(name, real_torch)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        if isinstance(a, tuple):
            assert a[0] == b[0] and a[1] == b[1] and a[3] == b[3]
            np.testing.assert_allclose(a[2], b[2], rtol=1e-12, atol=1e-12)
        else:
            for ga, gb in zip(a, b):
                np.testing.assert_allclose(ga, gb, rtol=1e-12, atol=1e-12)


ERRORS: dict[str, Callable[[Any], Any]] = {
    "diag_3d": lambda t: t.diag(t.zeros(2, 2, 2)),
    "diagonal_same_dims": lambda t: t.zeros(2, 2).diagonal(0, 1, 1),
    "repeat_interleave_negative": lambda t: t.ones(3).repeat_interleave(-1),
    "repeat_interleave_sizes": lambda t: t.ones(3).repeat_interleave(t.tensor([1, 2])),
    "repeat_interleave_float": lambda t: t.repeat_interleave(t.tensor([1.0, 2.0])),
    "tensor_split_zero": lambda t: t.ones(3).tensor_split(0),
    "rot90_one_dim": lambda t: t.rot90(t.ones(3)),
    "rot90_same_dims": lambda t: t.rot90(t.ones(2, 2), 1, [1, 1]),
    "rot90_three_dims": lambda t: t.rot90(t.ones(2, 2, 2), 1, [0, 1, 2]),
    "select_range": lambda t: t.ones(2, 3).select(1, 3),
    "select_0d": lambda t: t.tensor(1.0).select(0, 0),
    "quantile_range": lambda t: t.quantile(t.ones(3), 1.5),
    "quantile_ints": lambda t: t.quantile(t.tensor([1, 2]), 0.5),
    "quantile_interpolation": lambda t: t.quantile(t.ones(3), 0.5, interpolation="cubic"),
    "complex_ints": lambda t: t.complex(t.tensor([1]), t.tensor([2])),
    "complex_dtypes": lambda t: t.complex(t.tensor([1.0]), t.tensor([2.0], dtype=t.float64)),
    "finfo_int": lambda t: t.finfo(t.int32),
    "iinfo_float": lambda t: t.iinfo(t.float32),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_pytorch(name: str) -> None:
    raises_alike(ERRORS[name], (real_torch, ftorch))


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "complex64"])
def test_finfo_matches_pytorch(name: str) -> None:
    ours, theirs = ftorch.finfo(getattr(ftorch, name)), real_torch.finfo(getattr(real_torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert ftorch.finfo().eps == real_torch.finfo().eps


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_pytorch(name: str) -> None:
    ours, theirs = ftorch.iinfo(getattr(ftorch, name)), real_torch.iinfo(getattr(real_torch, name))
    for attr in ("bits", "max", "min", "dtype"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
