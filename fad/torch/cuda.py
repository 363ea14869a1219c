"""``torch.cuda``: the CuPy backend stands in for CUDA.

A ``"cuda"`` device means CuPy's arrays. Without CuPy, asking for one raises
PyTorch's ``AssertionError: Torch not compiled with CUDA enabled`` (with a note
saying how to install CuPy); with CuPy but no GPU, a ``RuntimeError`` of one
sentence (never an ``ImportError`` or a CUDA stack trace). ``is_available()`` is
then ``False``.
"""

from __future__ import annotations

from typing import Any

from ..backends.cupy_backend import probe_cupy

_PREFIX = "fad.torch: CUDA is not available: "
NOT_COMPILED = "Torch not compiled with CUDA enabled"


def _probe() -> tuple[Any, str | None]:
    """``(cupy, None)`` when CuPy and a GPU are present, else ``(None, why not)``."""
    cupy, why = probe_cupy()
    return cupy, None if cupy is not None else _PREFIX + why


def namespace() -> Any:
    """The array namespace of the ``"cuda"`` device: CuPy, when it and a GPU are
    present; otherwise a ``RuntimeError`` of one sentence saying what is missing.

    >>> import fad.torch as torch
    >>> if not torch.cuda.is_available():
    ...     try:
    ...         torch.cuda.namespace()
    ...     except (AssertionError, RuntimeError) as e:
    ...         print(str(e) == "Torch not compiled with CUDA enabled" or "CUDA" in str(e))
    ... else:
    ...     print(True)
    True
    """
    cupy, why = _probe()
    if cupy is None:
        if why.startswith(_PREFIX + "CuPy is not installed"):
            err = AssertionError(NOT_COMPILED)
            err.add_note(why)
            raise err from None
        raise RuntimeError(why) from None
    return cupy


def is_available() -> bool:
    """Whether CuPy and a GPU are present.

    >>> import fad.torch as torch
    >>> isinstance(torch.cuda.is_available(), bool)
    True
    """
    return _probe()[0] is not None


def device_count() -> int:
    """How many GPUs CuPy sees (0 without CuPy or a GPU).

    >>> import fad.torch as torch
    >>> torch.cuda.device_count() >= 0
    True
    """
    cupy, _ = _probe()
    return 0 if cupy is None else int(cupy.cuda.runtime.getDeviceCount())


def manual_seed(seed: int) -> None:
    """Seeds the one generator fad.torch has."""
    from ._creation import manual_seed as _seed  # (_creation imports this module)
    _seed(seed)


manual_seed_all = manual_seed


def synchronize(device: object = None) -> None:
    """Wait for the GPU's queued work (PyTorch's error without one).

    >>> import fad.torch as torch
    >>> torch.cuda.synchronize() if torch.cuda.is_available() else None
    """
    namespace().cuda.Device().synchronize()


def current_device() -> int:
    """The index of the current GPU (PyTorch's error without one).

    >>> import fad.torch as torch
    >>> torch.cuda.current_device() if torch.cuda.is_available() else 0
    0
    """
    return int(namespace().cuda.Device().id)


def get_device_name(device: object = None) -> str:
    """The GPU's name (PyTorch's error without one).

    >>> import fad.torch as torch
    >>> isinstance(torch.cuda.get_device_name(), str) if torch.cuda.is_available() else True
    True
    """
    cupy = namespace()
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def empty_cache() -> None:
    """Release CuPy's cached GPU memory (nothing to do without a GPU, as PyTorch).

    >>> import fad.torch as torch
    >>> torch.cuda.empty_cache()
    """
    cupy, _ = _probe()
    if cupy is not None:
        cupy.get_default_memory_pool().free_all_blocks()


class amp:
    """``torch.cuda.amp``: the former home of ``autocast`` and ``GradScaler``."""

    @staticmethod
    def autocast(enabled: bool = True, dtype: Any = None, cache_enabled: bool = True) -> Any:
        from .amp import autocast
        return autocast("cuda", dtype, enabled)

    @staticmethod
    def GradScaler(init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                   backoff_factor: float = 0.5, growth_interval: int = 2000,
                   enabled: bool = True) -> Any:
        from .amp import GradScaler
        return GradScaler("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                          enabled)
