"""``torch.fft`` against PyTorch (skipped without it): every transform's values,
dtype, ``grad_fn`` name and gradient (of the sum of squared magnitudes), in float32
and float64; the frequencies, the shifts and the errors."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import outcome  # noqa: E402

import fad.torch as ftorch  # noqa: E402

x0 = np.array([1.0, 2.0, 3.0, 4.0, -1.0])
CASES: dict[str, Callable[[Any, Any], Any]] = {
    "fft": lambda t, x: t.fft.fft(x),
    "ifft": lambda t, x: t.fft.ifft(x),
    "rfft": lambda t, x: t.fft.rfft(x),
    "irfft": lambda t, x: t.fft.irfft(t.fft.rfft(x)),
    "irfft_n": lambda t, x: t.fft.irfft(t.fft.rfft(x), n=5),
    "hfft": lambda t, x: t.fft.hfft(t.fft.ihfft(x), n=5),
    "ihfft": lambda t, x: t.fft.ihfft(x),
    "fft_n": lambda t, x: t.fft.fft(x, n=8, norm="ortho"),
    "fft_fwd": lambda t, x: t.fft.fft(x, n=3, norm="forward"),
    "fft_c": lambda t, x: t.fft.fft(x * (1 + 2j)),
    "fft2": lambda t, x: t.fft.fft2(x.reshape(1, 5) * x.reshape(5, 1)),
    "ifft2": lambda t, x: t.fft.ifft2(x.reshape(1, 5) * x.reshape(5, 1), s=(3, 4)),
    "rfft2": lambda t, x: t.fft.rfft2(x.reshape(1, 5) * x.reshape(5, 1)),
    "irfft2": lambda t, x: t.fft.irfft2(t.fft.rfft2(x.reshape(1, 5) * x.reshape(5, 1)), s=(5, 5)),
    "fftn": lambda t, x: t.fft.fftn(
        x.reshape(1, 5, 1) * x.reshape(5, 1, 1) * x[:2], s=(2, 2), dim=(0, 2)
    ),
    "rfftn": lambda t, x: t.fft.rfftn(x.reshape(1, 5) * x.reshape(5, 1)),
    "irfftn": lambda t, x: t.fft.irfftn(t.fft.rfftn(x.reshape(1, 5) * x.reshape(5, 1)), s=(5, 5)),
    "ifftn": lambda t, x: t.fft.ifftn(x.reshape(1, 5) * x.reshape(5, 1), dim=0),
    "shift": lambda t, x: t.fft.fftshift(x),
    "ishift": lambda t, x: t.fft.ifftshift(x),
    "shift2": lambda t, x: t.fft.fftshift(x.reshape(1, 5) * x.reshape(5, 1), dim=1),
}


def run(t: Any, name: str, dtype: str) -> tuple:
    x = t.tensor(x0, dtype=getattr(t, dtype), requires_grad=True)
    out = CASES[name](t, x)
    loss = (out.abs() ** 2).sum() if out.is_complex() else (out**2).sum()
    loss.backward()
    name = out.grad_fn.name() if out.grad_fn else None
    return out.detach().resolve_conj().numpy(), str(out.dtype), name, x.grad.numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_transforms_as_pytorch(name, dtype):
    (value, dt, node, grad), (want, want_dt, want_node, want_grad) = (
        run(ftorch, name, dtype),
        run(real_torch, name, dtype),
    )
    assert (dt, node) == (want_dt, want_node)
    tol = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(value, want, rtol=tol, atol=tol)
    np.testing.assert_allclose(grad, want_grad, rtol=tol, atol=tol * 10)


@pytest.mark.parametrize(
    "case",
    [
        lambda t: t.fft.fft(t.tensor([1, 2])),
        lambda t: t.fft.fftfreq(5, 2.0, dtype=t.float64),
        lambda t: t.fft.rfftfreq(5, d=0.5),
        lambda t: t.fft.fftshift(t.arange(6).reshape(2, 3)),
        lambda t: t.fft.ifftshift(t.arange(5)),
        lambda t: t.fft.fft(t.ones(2), norm="bad"),
        lambda t: t.fft.ihfft(t.ones(2) + 1j),
        lambda t: t.fft.rfft(t.ones(2) + 1j),
        lambda t: t.fft.fft(t.ones(2), dim=3),
        lambda t: t.fft.fft(t.ones(2), n=0),
    ],
)
def test_more_as_pytorch(case):
    assert outcome(case, ftorch) == outcome(case, real_torch)
