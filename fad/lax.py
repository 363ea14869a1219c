"""``fad.lax``: structured control flow that survives abstract tracing, as ``jax.lax``.

>>> import fad, fad.numpy as fnp
>>> float(fad.lax.fori_loop(0, 3, lambda i, x: x * 2.0, 1.0))
8.0

The implementations (and their derivative and batching rules) live in
``fad.transforms.control_flow``.
"""

from .transforms.control_flow import cond, fori_loop, scan, while_loop

__all__ = ["cond", "scan", "while_loop", "fori_loop"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
