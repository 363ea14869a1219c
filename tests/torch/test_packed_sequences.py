"""``torch.nn.utils.rnn`` of the facade against PyTorch's: padding and packing
batches of sequences, and the recurrent layers on packed batches (outputs, final
states and every gradient, in float32 and float64; skipped without torch)."""

from __future__ import annotations

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import DTYPES, close  # noqa: E402

import fad.torch as ftorch  # noqa: E402


def sequences(lengths: list, dtype: str, tail: tuple = (3,)) -> list:
    rng = np.random.default_rng(len(lengths))
    return [rng.normal(size=(n,) + tail).astype(dtype) for n in lengths]


@DTYPES
@pytest.mark.parametrize("kw", [{}, {"batch_first": True, "padding_value": -1.0},
                                {"padding_side": "left"}])
def test_pad_sequence_values_and_gradients(kw: dict, dtype: str) -> None:
    seqs = sequences([2, 5, 1, 5], dtype)
    outs, grads = [], []
    for lib in (real_torch, ftorch):
        ts = [lib.tensor(s, requires_grad=True) for s in seqs]
        out = lib.nn.utils.rnn.pad_sequence(ts, **kw)
        w = np.cos(np.arange(out.numel())).reshape(tuple(out.shape)).astype(dtype)
        (out * lib.tensor(w)).sum().backward()
        outs.append(out)
        grads.append([t.grad for t in ts])
    close(outs[1], outs[0], dtype)
    for gf, gt in zip(*grads[::-1]):
        close(gf, gt, dtype)


@pytest.mark.parametrize("enforce_sorted,lengths", [(True, [5, 3, 3, 1]),
                                                     (False, [2, 5, 1, 4])])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_and_unpack_like_pytorch(enforce_sorted: bool, lengths: list,
                                      batch_first: bool) -> None:
    dtype = "float64"
    padded = np.random.default_rng(0).normal(size=(4, 5, 3) if batch_first else (5, 4, 3))
    res = []
    for lib in (real_torch, ftorch):
        R = lib.nn.utils.rnn
        x = lib.tensor(padded, requires_grad=True)
        p = R.pack_padded_sequence(x, lib.tensor(lengths), batch_first, enforce_sorted)
        assert isinstance(p, R.PackedSequence)
        back, n = R.pad_packed_sequence(p, batch_first, -2.0, total_length=6)
        (back * back).sum().backward()
        res.append((p, back, n, x.grad, R.unpack_sequence(p),
                    R.pack_sequence([lib.tensor(s) for s in sequences(lengths, dtype)],
                                    enforce_sorted)))
    (pt, bt, nt, gt, ut, st), (pf, bf, nf, gf, uf, sf) = res
    close(pf.data, pt.data, dtype)
    for a, b in zip(pf[1:], pt[1:]):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.dtype == ftorch.int64 and a.tolist() == b.tolist()
    close(bf, bt, dtype)
    assert nf.tolist() == nt.tolist() and nf.dtype == ftorch.int64
    close(gf, gt, dtype)
    for a, b in zip(uf, ut):
        close(a, b, dtype)
    close(sf.data, st.data, dtype)
    assert sf.batch_sizes.tolist() == st.batch_sizes.tolist()


@DTYPES
@pytest.mark.parametrize("cls,kw", [("RNN", {}), ("RNN", {"nonlinearity": "relu",
                                                          "bidirectional": True}),
                                     ("GRU", {"num_layers": 2}),
                                     ("LSTM", {"bidirectional": True, "num_layers": 2}),
                                     ("LSTM", {"proj_size": 2, "batch_first": True})])
@pytest.mark.parametrize("sorted_batch", [True, False])
@pytest.mark.parametrize("with_state", [False, True])
def test_recurrent_layers_on_packed_batches(cls: str, kw: dict, sorted_batch: bool,
                                            with_state: bool, dtype: str) -> None:
    real_torch.manual_seed(0)
    mt = getattr(real_torch.nn, cls)(3, 4, **kw).to(getattr(real_torch, dtype))
    mf = getattr(ftorch.nn, cls)(3, 4, **kw).to(getattr(ftorch, dtype))
    mf.load_state_dict({k: ftorch.tensor(v.numpy()) for k, v in mt.state_dict().items()})
    lengths = [6, 4, 4, 1] if sorted_batch else [4, 6, 1, 4]
    seqs = sequences(lengths, dtype)
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    rng = np.random.default_rng(1)
    h0 = rng.normal(size=(layers, 4, kw.get("proj_size") or 4)).astype(dtype)
    c0 = rng.normal(size=(layers, 4, 4)).astype(dtype)
    res = []
    for lib, m in ((real_torch, mt), (ftorch, mf)):
        ts = [lib.tensor(s, requires_grad=True) for s in seqs]
        packed = lib.nn.utils.rnn.pack_sequence(ts, enforce_sorted=sorted_batch)
        hx = None
        if with_state:
            hx = lib.tensor(h0, requires_grad=True)
            hx = (hx, lib.tensor(c0)) if cls == "LSTM" else hx
        out, h = m(packed, hx)
        assert isinstance(out, lib.nn.utils.rnn.PackedSequence)
        padded, _ = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        finals = h if isinstance(h, tuple) else (h,)
        loss = (padded * lib.tensor(np.cos(np.arange(padded.numel())).reshape(
            tuple(padded.shape)).astype(dtype))).sum() + sum((f * f).sum() for f in finals)
        loss.backward()
        grads = [t.grad for t in ts] + list(m.parameters())
        res.append((out.data, finals, [g if not hasattr(g, "grad") or g.grad is None
                                       else g.grad for g in grads],
                    (hx[0] if isinstance(hx, tuple) else hx)))
    (dt, ft_, gt, ht), (df, ff, gf, hf) = res
    close(df, dt, dtype)
    for a, b in zip(ff, ft_):
        close(a, b, dtype)
    for a, b in zip(gf, gt):
        close(a, b, dtype)
    if with_state:
        close(hf.grad, ht.grad, dtype)


def test_sequence_errors_like_pytorch() -> None:
    for lib in (real_torch, ftorch):
        R = lib.nn.utils.rnn
        x = lib.ones(4, 3, 2)
        with pytest.raises(RuntimeError, match="`lengths` array must be sorted in decreasing "
                           "order when `enforce_sorted` is True"):
            R.pack_padded_sequence(x, [1, 3, 2])
        with pytest.raises(RuntimeError, match="Length of all samples has to be greater than "
                           "0"):
            R.pack_padded_sequence(x, [3, 2, 0])
        packed = R.pack_padded_sequence(x, [4, 2, 1])
        with pytest.raises(ValueError, match="Expected total_length to be at least the length "
                           "of the longest sequence in input, but got total_length=2 and max "
                           "sequence length being 4"):
            R.pad_packed_sequence(packed, total_length=2)
        with pytest.raises(RuntimeError, match="Expected padding_side to be one of left or "
                           "right, but got middle."):
            R.pad_sequence([lib.ones(2)], padding_side="middle")
