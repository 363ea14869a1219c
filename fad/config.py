"""fad's run-time options, set as JAX's are: ``fad.config.update(name, value)``.

``fad_tune_malloc`` (default on; ``FAD_TUNE_MALLOC=0`` in the environment
starts it off): glibc's malloc keeps up to 64 MiB of freed memory for reuse
instead of handing it back to the system after every call (see
``fad/backends/malloc.py``). It is process-wide, for every library in the
process. Turning it off puts glibc's starting thresholds back (128 KiB each;
glibc's sliding mmap threshold, which any change of them disables, cannot be
turned back on) and returns the memory kept so far with ``malloc_trim``;
turning it on raises them again. Reading
``fad.config.fad_tune_malloc`` says whether fad's thresholds are in effect
now: always False off glibc, and when the ``MALLOC_TRIM_THRESHOLD_`` /
``MALLOC_MMAP_THRESHOLD_`` environment variables are set (fad leaves the
user's choice alone).

``fad_enable_x64`` (default on; ``FAD_ENABLE_X64=0`` in the environment
starts it off; JAX's name ``jax_enable_x64`` is accepted too): off is float32
mode, as JAX without x64 (see ``fad/backends/x64.py``): ``fnp.array(1.0)``,
``zeros``, ``arange`` of floats... and Python scalars given to a
transformation default to float32 and int32, and 64-bit arrays entering
``fad.numpy`` or a transformation become 32-bit. ``with
fad.config.enable_x64(False):`` switches it for a block.

>>> import fad
>>> fad.config.update("fad_tune_malloc", False)
>>> fad.config.fad_tune_malloc
False
>>> fad.config.update("fad_tune_malloc", True)
>>> fad.config.fad_tune_malloc in (True, False)    # True on glibc
True
"""

from __future__ import annotations

from typing import Any

from .backends import malloc, x64

_OPTIONS = ("fad_tune_malloc", "fad_enable_x64", "jax_enable_x64")


def update(name: str, value: Any) -> None:
    """Set the option ``name`` to ``value`` (JAX's ``jax.config.update`` shape)."""
    if name not in _OPTIONS:
        raise AttributeError(f"fad.config has no option {name!r}; options: "
                             + ", ".join(_OPTIONS))
    if not isinstance(value, bool | int):
        raise TypeError(f"fad.config option {name!r} takes a bool, not "
                        f"{type(value).__name__}")
    if name != "fad_tune_malloc":
        x64.set_enabled(bool(value))
    elif value:
        malloc.tune_malloc()
    else:
        malloc.untune_malloc()


class enable_x64:
    """``with fad.config.enable_x64(False):`` runs the block in float32 mode (or
    in 64-bit mode with ``True``), then puts the previous mode back.

    >>> import fad, fad.numpy as fnp
    >>> with fad.config.enable_x64(False):
    ...     fnp.array(1.0).dtype, fnp.arange(3).dtype
    (dtype('float32'), dtype('int32'))
    >>> fnp.array(1.0).dtype
    dtype('float64')
    """

    def __init__(self, new_val: bool = True):
        self.new_val = bool(new_val)
        self.old: list[bool] = []

    def __enter__(self) -> None:
        self.old.append(x64.ENABLED)
        x64.set_enabled(self.new_val)

    def __exit__(self, *exc: Any) -> None:
        x64.set_enabled(self.old.pop())


def __getattr__(name: str) -> Any:
    if name in ("fad_enable_x64", "jax_enable_x64"):
        return x64.ENABLED
    if name == "fad_tune_malloc":
        return malloc.malloc_tuned()
    raise AttributeError(f"module 'fad.config' has no attribute {name!r}")


__all__ = ["update", "enable_x64"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
