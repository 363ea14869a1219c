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

    def scatter(self, mode, x, index, values, out=None):
        """On the device: ``cupyx.scatter_min``/``scatter_max`` combine every value;
        for ``'set'``, whose order CuPy's assignment leaves open at repeated places,
        ``scatter_max`` of each value's position in ``x[index]`` finds the last one
        written to each place (NumPy's rule) and only that one is assigned. ``'mul'``
        (CuPy has no ``multiply.at``) goes through the host."""
        xp = self.xp
        if mode == "mul":
            return super().scatter(mode, x, index, values, out)
        import cupyx
        res = x.copy()
        if mode != "set":
            getattr(cupyx, f"scatter_{mode}")(res, index, values)
            return res
        last = xp.full(x.shape, -1, dtype=xp.int64)
        order = xp.arange(values.size, dtype=xp.int64).reshape(values.shape)
        cupyx.scatter_max(last, index, order)
        written = last >= 0
        res[written] = values.reshape(-1)[last[written]]
        return res

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
