"""The CTC loss: ``fad.nn.ctc_loss`` against a brute-force sum over every alignment
and against finite differences, compiled against eager; the facade's
``F.ctc_loss`` and ``nn.CTCLoss`` against PyTorch (values, ``grad_fn`` names, the
gradient of a leaf ``log_probs`` with PyTorch's convention, errors)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fad
import fad.nn as nn
import fad.torch as ftorch


def _log_softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def _collapse(path: tuple, blank: int) -> tuple:
    """CTC's many-to-one map: merge repeats, then drop blanks."""
    merged = [c for k, c in enumerate(path) if k == 0 or c != path[k - 1]]
    return tuple(c for c in merged if c != blank)


def _brute_force(lp: np.ndarray, target: tuple, frames: int, blank: int) -> float:
    """``-log`` of the summed probability of every path of ``frames`` frames that
    collapses to ``target``."""
    total = 0.0
    for path in itertools.product(range(lp.shape[1]), repeat=frames):
        if _collapse(path, blank) == target:
            total += np.exp(sum(lp[t, c] for t, c in enumerate(path)))
    return -np.log(total) if total > 0 else np.inf


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.data())
def test_ctc_loss_is_the_sum_over_alignments(data: st.DataObject) -> None:
    frames = data.draw(st.integers(1, 4))
    classes = data.draw(st.integers(2, 3))
    batch = data.draw(st.integers(1, 3))
    blank = data.draw(st.integers(0, classes - 1))
    labels = [c for c in range(classes) if c != blank]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    lp = _log_softmax(rng.standard_normal((frames, batch, classes)))
    il = np.array([data.draw(st.integers(1, frames)) for _ in range(batch)])
    tl = np.array([data.draw(st.integers(0, 3)) for _ in range(batch)])
    targets = np.array([[labels[i % len(labels)] if data.draw(st.booleans()) else labels[0]
                         for i in range(3)] for _ in range(batch)])
    got = np.asarray(nn.ctc_loss(lp, targets, il, tl, blank, reduction="none"))
    want = [_brute_force(lp[:, n], tuple(targets[n, :tl[n]]), il[n], blank)
            for n in range(batch)]
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_ctc_loss_gradient_jit_and_reductions() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 2, 4))
    targets, il, tl = np.array([[1, 2, 2], [3, 0, 0]]), np.array([5, 4]), np.array([3, 1])

    def loss(x: Any, reduction: str = "mean") -> Any:
        return nn.ctc_loss(nn.log_softmax(x, 2), targets, il, tl, reduction=reduction)

    g = np.asarray(fad.grad(loss)(x))
    eps = 1e-6
    for idx in [(0, 0, 1), (2, 1, 3), (4, 0, 0), (4, 1, 2)]:
        d = np.zeros_like(x)
        d[idx] = eps
        fd = (float(loss(x + d)) - float(loss(x - d))) / (2 * eps)
        assert g[idx] == pytest.approx(fd, rel=1e-6, abs=1e-9)
    assert g[4, 1].tolist() == [0.0] * 4  # past the second input's length
    np.testing.assert_allclose(np.asarray(fad.jit(fad.grad(loss))(x)), g, rtol=1e-12)
    per = np.asarray(loss(x, "none"))
    assert float(loss(x, "sum")) == pytest.approx(per.sum())
    assert float(loss(x)) == pytest.approx((per / tl).mean())
    with pytest.raises(ValueError, match="reduction"):
        loss(x, "max")


def test_unreachable_targets_are_infinite_or_zeroed() -> None:
    lp = _log_softmax(np.zeros((2, 1, 3)))
    args = (np.array([[1, 1]]), np.array([2]), np.array([2]))  # "1 1" needs 3 frames
    assert float(nn.ctc_loss(lp, *args, reduction="sum")) == np.inf
    assert float(nn.ctc_loss(lp, *args, reduction="sum", zero_infinity=True)) == 0.0
    g = fad.grad(lambda lp: nn.ctc_loss(lp, *args, reduction="sum", zero_infinity=True))(lp)
    assert np.all(np.asarray(g) == 0)


# ------------------------------------------------------------------ against PyTorch
torch = pytest.importorskip("torch")
X = np.random.default_rng(1).standard_normal((6, 3, 5))
PADDED = (np.array([[1, 1, 2], [2, 3, 0], [4, 0, 0]]), np.array([6, 5, 3]),
          np.array([3, 2, 1]))


def _run(lib: Any, dtype: str, reduction: str, zero_infinity: bool = False,
         targets: Any = PADDED, x: np.ndarray = X, unbatched: bool = False) -> tuple:
    lp = lib.tensor(_log_softmax(x).astype(dtype), requires_grad=True)
    t, il, tl = targets
    args = (lp[:, 0] if unbatched else lp, lib.tensor(t), lib.tensor(il), lib.tensor(tl))
    if unbatched:
        args = (args[0], args[1], lib.tensor(int(il[0])), lib.tensor(int(tl[0])))
    loss = lib.nn.functional.ctc_loss(*args, reduction=reduction, zero_infinity=zero_infinity)
    (loss.sum() if reduction == "none" else loss).backward()
    return loss.detach().numpy(), loss.grad_fn.name(), lp.grad.numpy()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", ["padded", "concatenated", "unbatched", "empty_target"])
def test_ctc_loss_matches_pytorch(dtype: str, reduction: str, case: str) -> None:
    targets = {"padded": PADDED,
               "concatenated": (np.array([1, 1, 2, 2, 3, 4]), PADDED[1], PADDED[2]),
               "unbatched": (np.array([1, 1, 2]), PADDED[1][:1], PADDED[2][:1]),
               "empty_target": (PADDED[0], PADDED[1], np.array([3, 0, 1]))}[case]
    kw = {"targets": targets, "unbatched": case == "unbatched"}
    got, want = _run(ftorch, dtype, reduction, **kw), _run(torch, dtype, reduction, **kw)
    tol = 1e-10 if dtype == "float64" else 2e-5
    np.testing.assert_allclose(got[0], want[0], rtol=tol)
    assert got[0].dtype == want[0].dtype and got[1] == want[1]
    np.testing.assert_allclose(got[2], want[2], rtol=tol, atol=tol)


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_zero_infinity_matches_pytorch(reduction: str) -> None:
    short = (PADDED[0], np.array([2, 5, 3]), PADDED[2])  # "1 1 2" cannot fit in 2 frames
    got = _run(ftorch, "float64", reduction, True, short)
    want = _run(torch, "float64", reduction, True, short)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10)
    assert got[1] == want[1]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-10, atol=1e-12)
    loss = _run(ftorch, "float64", "none", False, short)[0]  # (PyTorch's gradient: NaN)
    assert loss[0] == np.inf and loss[0] == _run(torch, "float64", "none", False, short)[0][0]


def test_ctc_module_and_errors_match_pytorch() -> None:
    for lib in (ftorch, torch):
        lp = lib.tensor(_log_softmax(X))
        m = lib.nn.CTCLoss(blank=0, reduction="sum")
        assert float(m(lp, lib.tensor(PADDED[0]), lib.tensor(PADDED[1]),
                       lib.tensor(PADDED[2]))) == pytest.approx(
            float(torch.nn.functional.ctc_loss(torch.tensor(_log_softmax(X)),
                                               torch.tensor(PADDED[0]), torch.tensor(PADDED[1]),
                                               torch.tensor(PADDED[2]), reduction="sum")))
    msgs = []
    for lib in (ftorch, torch):
        with pytest.raises(RuntimeError) as e:
            lib.nn.functional.ctc_loss(lib.tensor(_log_softmax(X)), lib.tensor(PADDED[0]),
                                       lib.tensor([7, 5, 3]), lib.tensor(PADDED[2]))
        msgs.append(str(e.value).splitlines()[0])
    assert msgs[0] == msgs[1]
