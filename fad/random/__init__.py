"""``fad.random``: random numbers with explicit keys, as ``jax.random``.

A key is an array; functions that draw numbers take a key first and never
change it. ``split`` makes new independent keys from one.
"""

__all__: list[str] = []
