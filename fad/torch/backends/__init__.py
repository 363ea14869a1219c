"""``torch.backends``: which accelerators this facade was built with. ``cuda``
is CuPy's (``is_built()``: CuPy is importable); there is no ``mps`` and no
``cudnn`` (``is_available()`` is ``False``).

>>> import fad.torch as torch
>>> torch.backends.mps.is_available(), torch.backends.mps.is_built()
(False, False)
"""

from __future__ import annotations

import importlib.util
import types

__all__ = ["cuda", "mps", "cudnn"]


def _false() -> bool:
    return False


def _cupy_importable() -> bool:
    return importlib.util.find_spec("cupy") is not None


cuda = types.SimpleNamespace(is_built=_cupy_importable,
                             matmul=types.SimpleNamespace(allow_tf32=False,
                                                          allow_fp16_reduced_precision_reduction=True))
cuda.__doc__ = "``torch.backends.cuda``: ``is_built()`` says whether CuPy is installed."
mps = types.SimpleNamespace(is_available=_false, is_built=_false)
cudnn = types.SimpleNamespace(is_available=_false, enabled=False, benchmark=False,
                              deterministic=False, version=lambda: None)
