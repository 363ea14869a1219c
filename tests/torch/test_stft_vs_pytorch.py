"""``torch.stft`` and ``torch.istft`` against PyTorch (skipped without it): windows,
hops, ``win_length``, ``center`` and padding modes, ``normalized``, one- and two-sided
spectra, batches, round trips: values, dtypes, shapes and gradients; the error for
a missing ``return_complex``."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import runs_alike  # noqa: E402

import fad.torch as ftorch  # noqa: E402

X = np.sin(np.arange(40) * 0.7) + np.cos(np.arange(40) * 0.13) * 2


def run(t: Any) -> list:
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = [
            lambda x: t.stft(x, 8, return_complex=True),
            lambda x: t.stft(
                x, 8, hop_length=2, window=t.hann_window(8, dtype=x.dtype), return_complex=True
            ),
            lambda x: t.stft(
                x,
                8,
                hop_length=4,
                win_length=6,
                window=t.hann_window(6, dtype=x.dtype),
                center=False,
                normalized=True,
                onesided=False,
                return_complex=True,
            ),
            lambda x: t.stft(
                x,
                16,
                hop_length=5,
                window=t.hamming_window(16, dtype=x.dtype),
                pad_mode="constant",
                return_complex=True,
            ),
            lambda x: t.stft(x.reshape(2, 20), 4, return_complex=True),
            lambda x: t.istft(
                t.stft(
                    x, 8, hop_length=2, window=t.hann_window(8, dtype=x.dtype), return_complex=True
                ),
                8,
                hop_length=2,
                window=t.hann_window(8, dtype=x.dtype),
                length=40,
            ),
            lambda x: t.istft(
                t.stft(
                    x,
                    16,
                    hop_length=4,
                    window=t.hann_window(16, dtype=x.dtype),
                    return_complex=True,
                ),
                16,
                hop_length=4,
                window=t.hann_window(16, dtype=x.dtype),
            ),
            lambda x: t.istft(
                t.stft(
                    x,
                    8,
                    hop_length=2,
                    window=t.hann_window(8, dtype=x.dtype),
                    normalized=True,
                    return_complex=True,
                ),
                8,
                hop_length=2,
                window=t.hann_window(8, dtype=x.dtype),
                normalized=True,
                length=44,
            ),
            lambda x: x.stft(8, window=t.ones(8, dtype=x.dtype), return_complex=True).abs(),
        ]
        for c in cases:
            x = t.tensor(X, requires_grad=True)
            y = c(x)
            loss = (y.abs() ** 2).sum() if y.is_complex() else (y * y).sum()
            loss.backward()
            out.append(
                (
                    np.asarray(y.detach().resolve_conj().numpy()),
                    x.grad.numpy(),
                    str(y.dtype),
                    tuple(y.shape),
                )
            )
        try:
            t.stft(t.tensor(X), 8)
        except RuntimeError as e:
            out.append(str(e))
    return out


def _check(got: Any, want: Any) -> None:
    if isinstance(want, str):
        assert got == want
        return
    assert got[2:] == want[2:]
    np.testing.assert_allclose(got[0], want[0], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-8, atol=1e-8)


def test_as_pytorch():
    runs_alike(run, ftorch, real_torch, _check)
