"""The CuPy backend (needs a CUDA GPU and ``pip install fad[cuda]``)."""

from __future__ import annotations

from typing import Any

from .base import Backend

NO_CUPY = 'CuPy is not installed (pip install "fad[cuda]")'
NO_DEVICE = "no CUDA device was found"


class CupyBackend(Backend):
    special_library = "cupyx.scipy.special"

    def index_add(self, shape, dtype, index, values):
        out = self.xp.zeros(shape, dtype=dtype)
        self.xp.add.at(out, index, values)
        return out

    def getitem(self, x, index):
        return x[index]

    def einsum(self, spec, *operands):
        return self.xp.einsum(spec, *operands)


def probe_cupy() -> tuple[Any, str | None]:
    """``(cupy, None)`` when CuPy and a GPU are present, else ``(None, why not)``:
    one sentence, ``NO_CUPY`` or ``NO_DEVICE`` (with CuPy's own first line when
    the CUDA runtime raised), never an ``ImportError`` or a CUDA stack trace.

    >>> cupy, why = probe_cupy()
    >>> (cupy is None) == (why is not None)
    True
    """
    try:
        import cupy
    except ImportError:
        return None, NO_CUPY
    try:
        count = int(cupy.cuda.runtime.getDeviceCount())
    except Exception as e:  # CuPy's CUDARuntimeError without a driver or a device
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        return None, f"{NO_DEVICE} (CuPy says: {reason})"
    if count < 1:
        return None, NO_DEVICE
    return cupy, None


def make_cupy_backend() -> Backend:
    """The CuPy backend; a ``RuntimeError`` saying what is missing without CuPy or a GPU."""
    cupy, why = probe_cupy()
    if cupy is None:
        raise RuntimeError(f"the CuPy backend is unavailable here: {why}")
    return CupyBackend("cupy", cupy)
