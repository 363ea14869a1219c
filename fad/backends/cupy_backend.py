"""The CuPy backend (needs a CUDA GPU and ``pip install fad[cuda]``)."""

from __future__ import annotations

from .base import Backend


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


def make_cupy_backend() -> Backend:
    """Import CuPy and check a device is present; a clear error otherwise."""
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # ImportError, or CUDA runtime errors without a GPU
        raise RuntimeError(f"the CuPy backend is unavailable here: {e}") from e
    return CupyBackend("cupy", cupy)
