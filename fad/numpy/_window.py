"""Window functions of ``fad.numpy``: NumPy's, of static arguments (constants)."""

from __future__ import annotations

from ._base import numpy_constant

bartlett, blackman, hamming, hanning, kaiser = (
    numpy_constant(name, __name__) for name in ("bartlett", "blackman", "hamming", "hanning",
                                                "kaiser"))
