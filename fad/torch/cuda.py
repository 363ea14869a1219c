"""``torch.cuda``: the CuPy backend stands in for CUDA."""

from __future__ import annotations

from ._creation import manual_seed as _seed


def is_available() -> bool:
    """Whether CuPy and a GPU are present."""
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def device_count() -> int:
    try:
        import cupy
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:
        return 0


def manual_seed(seed: int) -> None:
    """Seeds the one generator fad.torch has."""
    _seed(seed)


manual_seed_all = manual_seed


def synchronize(device: object = None) -> None:
    """Nothing to wait for on the host."""


def current_device() -> int:
    return 0
