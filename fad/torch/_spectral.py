"""``torch.stft`` and ``torch.istft``: short-time Fourier transforms written with
facade operations (padding, ``unfold`` windows, ``torch.fft``, ``fold`` for the
overlap-add), so both are differentiable as any composition is."""

from __future__ import annotations

import math
import warnings
from typing import Any

from . import _functions as F
from . import fft as _fft
from ._creation import ones
from .nn import functional as nnf
from .tensor import Tensor

__all__ = ["stft", "istft"]

_NO_WINDOW = ("A window was not provided. A rectangular window will be applied,which is known "
              "to cause spectral leakage. Other windows such as torch.hann_window or "
              "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
              "warning and use a rectangular window, explicitly set "
              "`window=torch.ones(n_fft, device=<device>)`.")


def _full_window(window: Tensor | None, n_fft: int, win_length: int, dtype: Any,
                 message: str) -> Tensor:
    """``window`` (ones when absent, with PyTorch's warning) centred in ``n_fft``."""
    if window is None:
        warnings.warn(message, UserWarning, stacklevel=3)
        window = ones(win_length, dtype=dtype)
    if window.shape[-1] != win_length:
        raise RuntimeError(f"stft: expected a 1D window tensor of size equal to win_length="
                           f"{win_length}, but got window with size {list(window.shape)}")
    left = (n_fft - win_length) // 2
    return nnf.pad(window, (left, n_fft - win_length - left)) if win_length < n_fft else window


def stft(input: Tensor, n_fft: int, hop_length: int | None = None,
         win_length: int | None = None, window: Tensor | None = None, center: bool = True,
         pad_mode: str = "reflect", normalized: bool = False, onesided: bool | None = None,
         return_complex: bool | None = None) -> Tensor:
    """The spectra ``(..., freq, frames)`` of ``input``'s frames of ``n_fft`` samples,
    ``hop_length`` apart (``n_fft // 4`` by default), each times ``window`` (centred
    in ``n_fft``); ``center`` pads ``n_fft // 2`` each side first; ``onesided`` keeps
    the non-negative frequencies of a real input.

    >>> import fad.torch as torch
    >>> torch.stft(torch.arange(16.0), 8, window=torch.hann_window(8), return_complex=True).shape
    torch.Size([5, 9])
    """
    if return_complex is None and not input.is_complex():
        raise RuntimeError("stft requires the return_complex parameter be given for real "
                           "inputs, and will further require that return_complex=True in a "
                           "future PyTorch release.")
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.dim()}D")
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win_length = n_fft if win_length is None else int(win_length)
    dtype = input.real.dtype if input.is_complex() else input.dtype
    window = _full_window(window, n_fft, win_length, dtype, _NO_WINDOW)
    x = input if input.dim() == 2 else input.unsqueeze(0)
    if center:
        x = nnf.pad(x.unsqueeze(1), (n_fft // 2, n_fft // 2), pad_mode).squeeze(1)
    frames = x.unfold(-1, n_fft, hop) * window
    onesided = not input.is_complex() if onesided is None else onesided
    spec = _fft.rfft(frames, dim=-1) if onesided else _fft.fft(frames, dim=-1)
    if normalized:
        spec = spec * n_fft ** -0.5
    spec = spec.transpose(-1, -2)
    if input.dim() == 1:
        spec = spec.squeeze(0)
    return spec if return_complex or return_complex is None else F.view_as_real(spec)


def istft(input: Tensor, n_fft: int, hop_length: int | None = None,
          win_length: int | None = None, window: Tensor | None = None, center: bool = True,
          normalized: bool = False, onesided: bool | None = None, length: int | None = None,
          return_complex: bool = False) -> Tensor:
    """The signal whose ``stft`` (with these arguments) is ``input``: each frame's
    inverse transform, times the window, overlap-added and divided by the windows'
    overlap-added squares.

    >>> import fad.torch as torch
    >>> x = torch.arange(16.0)
    >>> w = torch.hann_window(8)
    >>> s = torch.stft(x, 8, hop_length=2, window=w, return_complex=True)
    >>> torch.allclose(torch.istft(s, 8, hop_length=2, window=w, length=16), x, atol=1e-5)
    True
    """
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win_length = n_fft if win_length is None else int(win_length)
    spec = input if input.dim() == 3 else input.unsqueeze(0)
    n_frames = spec.shape[-1]
    onesided = spec.shape[-2] != n_fft if onesided is None else onesided
    dtype = spec.real.dtype
    window = _full_window(window, n_fft, win_length, dtype, _NO_WINDOW.replace(
        ",which is known to cause spectral leakage. Other windows such as torch.hann_window "
        "or torch.hamming_window are recommended to reduce spectral leakage.",
        ".Please provide the same window used by stft to make the inversion lossless."))
    frames = spec.transpose(-1, -2)
    frames = _fft.irfft(frames, n=n_fft, dim=-1) if onesided else _fft.ifft(frames, dim=-1)
    if not return_complex and frames.is_complex():
        frames = frames.real
    if normalized:
        frames = frames * math.sqrt(n_fft)
    total = n_fft + hop * (n_frames - 1)

    def overlap_add(columns: Tensor) -> Tensor:
        # columns (N, n_fft, frames) summed into (N, total): F.fold with a 1 x n_fft kernel
        return nnf.fold(columns, (1, total), (1, n_fft), stride=(1, hop)).reshape(
            columns.shape[0], total)
    y = overlap_add((frames * window).transpose(-1, -2))
    envelope = overlap_add((window * window).reshape(1, n_fft, 1).expand(1, n_fft, n_frames))
    start = n_fft // 2 if center else 0
    end = total - (n_fft // 2 if center else 0) if length is None else start + length
    y, envelope = y[..., start:min(end, total)], envelope[..., start:min(end, total)]
    if float(envelope.abs().min()) < 1e-11:
        raise RuntimeError(f"istft(...): window overlap add min: "
                           f"{float(envelope.abs().min())}")
    y = y / envelope
    if end > total:
        y = nnf.pad(y, (0, end - total))
    return y if input.dim() == 3 else y.squeeze(0)
