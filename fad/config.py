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

from .backends import malloc

_OPTIONS = ("fad_tune_malloc",)


def update(name: str, value: Any) -> None:
    """Set the option ``name`` to ``value`` (JAX's ``jax.config.update`` shape)."""
    if name not in _OPTIONS:
        raise AttributeError(f"fad.config has no option {name!r}; options: "
                             + ", ".join(_OPTIONS))
    if not isinstance(value, bool | int):
        raise TypeError(f"fad.config option {name!r} takes a bool, not "
                        f"{type(value).__name__}")
    if value:
        malloc.tune_malloc()
    else:
        malloc.untune_malloc()


def __getattr__(name: str) -> Any:
    if name == "fad_tune_malloc":
        return malloc.malloc_tuned()
    raise AttributeError(f"module 'fad.config' has no attribute {name!r}")


__all__ = ["update"]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
