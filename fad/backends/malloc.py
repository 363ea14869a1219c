"""Keep freed array memory in the process between calls (glibc only).

Un-jitted differentiation allocates its intermediates and residuals afresh on
every call and frees them when the call returns. With glibc's default policy,
freeing them shrinks the heap (memory at the top beyond ``M_TRIM_THRESHOLD``,
128 KiB at first, is handed back to the kernel) and arrays above
``M_MMAP_THRESHOLD`` are ``mmap``-ed and ``munmap``-ed one by one; so the next
call page-faults the same memory in again, one fault per 4 KiB page. Measured
on the 10,000-d Rosenbrock Hessian-vector product: about 200 page faults per
call, 40 % of its time. Hand-written NumPy keeps fewer arrays alive at once and
escapes it.

``tune_malloc()`` raises both thresholds, the remedy glibc's manual gives and
what ``MALLOC_TRIM_THRESHOLD_`` / ``MALLOC_MMAP_THRESHOLD_`` do from the
environment (and what the jemalloc / tcmalloc advice for PyTorch on CPUs
achieves). ``import fad`` calls it once, unless the environment says
``FAD_TUNE_MALLOC=0``; it changes nothing on other C libraries, and nothing
when the user already set those ``MALLOC_*_`` variables. ``untune_malloc()``
(``fad.config.update("fad_tune_malloc", False)``) puts glibc's starting values
back and returns the memory kept so far to the system.

>>> from fad.backends.malloc import malloc_tuned, tune_malloc
>>> tune_malloc() in (True, False)
True
>>> malloc_tuned() in (True, False)
True
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from typing import Any

# mallopt parameters (glibc's malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3

TRIM_THRESHOLD = 64 << 20  # freed memory kept at the top of the heap, bytes
MMAP_THRESHOLD = 16 << 20  # blocks below this come from the heap (glibc's maximum: 32 MiB)
GLIBC_TRIM_THRESHOLD = 128 << 10  # glibc's starting values (DEFAULT_TRIM_THRESHOLD,
GLIBC_MMAP_THRESHOLD = 128 << 10  # DEFAULT_MMAP_THRESHOLD_MIN in malloc.c)

_done: list[bool] = []  # [whether fad's thresholds are in effect], once import fad ran


def _glibc() -> Any:
    """The C library when it is glibc and the user left its malloc settings to
    fad; else None."""
    if os.environ.get("MALLOC_TRIM_THRESHOLD_") or os.environ.get("MALLOC_MMAP_THRESHOLD_"):
        return None  # the user chose already
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.gnu_get_libc_version  # noqa: B018  (glibc only: musl, macOS, Windows differ)
    except (OSError, AttributeError):
        return None
    return libc


def _set(trim_threshold: int, mmap_threshold: int) -> bool:
    libc = _glibc()
    if libc is None:
        return False
    ok = libc.mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1
    return bool(libc.mallopt(M_TRIM_THRESHOLD, trim_threshold) == 1 and ok)


def tune_malloc(trim_threshold: int = TRIM_THRESHOLD,
                mmap_threshold: int = MMAP_THRESHOLD) -> bool:
    """Raise glibc's trim and mmap thresholds; True when they were set."""
    ok = _set(trim_threshold, mmap_threshold)
    if ok:
        _done[:] = [True]
    return ok


def untune_malloc() -> bool:
    """Put glibc's starting thresholds back (128 KiB each) and hand the freed
    memory kept so far back to the system; True when they were set.

    glibc's sliding mmap threshold, which any ``mallopt`` of these two turns
    off, stays off: no ``mallopt`` parameter turns it back on.
    """
    if not malloc_tuned():
        return False  # nothing of fad's to undo (or not glibc, or the user's settings)
    ok = _set(GLIBC_TRIM_THRESHOLD, GLIBC_MMAP_THRESHOLD)
    if ok:
        _glibc().malloc_trim(0)
        _done[:] = [False]
    return ok


def malloc_tuned() -> bool:
    """Whether fad's thresholds are in effect now."""
    return bool(_done and _done[0])


def tune_malloc_once() -> None:
    """What ``import fad`` runs: ``tune_malloc()`` unless ``FAD_TUNE_MALLOC=0``."""
    if not _done:
        _done[:] = [os.environ.get("FAD_TUNE_MALLOC", "1") != "0"
                    and _set(TRIM_THRESHOLD, MMAP_THRESHOLD)]
