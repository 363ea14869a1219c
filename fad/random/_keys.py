"""Keys and the Threefry-2x32 counter-based generator behind every sampler.

A key is a ``uint32`` array of shape ``(2,)``. A draw of ``n`` numbers from a
key encrypts the counters ``0 .. n-1`` (as 64-bit numbers split into a high and
a low 32-bit word) with Threefry-2x32 under the key, exactly as JAX does with
``jax_threefry_partitionable`` on (its default): same keys, same bits. The
cipher is written with ``fad.numpy``'s ``uint32`` operations, so it traces, and
runs unchanged under ``jit`` and ``vmap``. Every word is kept at least 1-d:
NumPy warns on overflow of a 0-d (scalar) addition but wraps arrays silently.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .. import numpy as fnp

_U32 = np.dtype(np.uint32)
# Threefry-2x32's rotation constants, used four at a time, alternately
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA  # the key schedule's parity constant (Skein's C240)


def _rotl(x: Any, r: int) -> Any:
    return fnp.bitwise_or(fnp.left_shift(x, r), fnp.right_shift(x, 32 - r))


def threefry_2x32(k0: Any, k1: Any, x0: Any, x1: Any) -> tuple[Any, Any]:
    """Threefry-2x32 with 20 rounds: the words ``(x0, x1)`` encrypted under the key
    ``(k0, k1)`` (all ``uint32``, broadcast together, at least 1-d).

    >>> import numpy as np
    >>> z = np.zeros(1, np.uint32)
    >>> [int(w[0]) for w in threefry_2x32(z, z, z, z)]  # Random123's known answer
    [1797259609, 2579123966]
    """
    ks = (k0, k1, fnp.bitwise_xor(fnp.bitwise_xor(k0, k1), _PARITY))
    x0, x1 = fnp.add(x0, ks[0]), fnp.add(x1, ks[1])
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x0 = fnp.add(x0, x1)
            x1 = fnp.bitwise_xor(_rotl(x1, r), x0)
        # key injection i + 1: the next two key words, the second plus the count
        x0 = fnp.add(x0, ks[(i + 1) % 3])
        x1 = fnp.add(x1, fnp.add(ks[(i + 2) % 3], i + 1))
    return x0, x1


def _is_integer_seed(x: Any) -> bool:
    return isinstance(x, int | np.integer) and not isinstance(x, bool | np.bool_)


def check_key(key: Any, fname: str) -> Any:
    """``key`` as a ``uint32`` array of shape ``(2,)``; a ``TypeError`` naming
    ``fname`` and the fix for anything else."""
    if _is_integer_seed(key):
        raise TypeError(f"fad.random.{fname} takes a key, not the integer seed {key}: make "
                        f"one with fad.random.key({key}) (or fad.random.PRNGKey({key})) and "
                        f"pass it")
    try:
        shape, dtype = tuple(key.shape), np.dtype(key.dtype)
    except (AttributeError, TypeError):
        try:
            arr = np.asarray(key)
        except Exception:
            arr = None
        if arr is None or arr.dtype == object:
            raise TypeError(f"fad.random.{fname} takes a key as fad.random.PRNGKey(seed) "
                            f"makes one (a uint32 array of shape (2,)), got "
                            f"{type(key).__name__}") from None
        key, shape, dtype = arr, arr.shape, arr.dtype
    if shape != (2,) or dtype != _U32:
        more = (" For several keys (as split makes), map over them with fad.vmap."
                if dtype == _U32 and shape[-1:] == (2,) else "")
        raise TypeError(f"fad.random.{fname} takes a key as fad.random.PRNGKey(seed) makes "
                        f"one: a uint32 array of shape (2,); got {dtype} of shape {shape}."
                        f"{more}")
    return fnp.asarray(key)


def _key_words(key: Any) -> tuple[Any, Any]:
    """The key's two words, each of shape ``(1,)``."""
    return fnp.reshape(key[0:1], (1,)), fnp.reshape(key[1:2], (1,))


def shape_tuple(shape: Any, fname: str) -> tuple[int, ...]:
    """``shape`` as a tuple of Python ints (an int means a 1-d shape)."""
    if shape is None:
        return ()
    try:
        return tuple(operator.index(d) for d in (shape if np.iterable(shape) else (shape,)))
    except TypeError:
        raise TypeError(f"fad.random.{fname}: shape must be a tuple of ints, got "
                        f"{shape!r}") from None


def random_words(key: Any, shape: tuple[int, ...]) -> tuple[Any, Any]:
    """Two ``uint32`` words per element of ``shape`` (flat, at least 1-d): the
    encrypted counters ``(0, i)``."""
    n = math.prod(shape)
    if n >= 2 ** 32:
        raise NotImplementedError("fad.random draws fewer than 2**32 numbers at once")
    k0, k1 = _key_words(key)
    lo = fnp.arange(max(n, 1), dtype=_U32)
    return threefry_2x32(k0, k1, fnp.zeros_like(lo), lo)


def _unflat(x: Any, shape: tuple[int, ...]) -> Any:
    n = math.prod(shape)
    return fnp.reshape(x if n else x[:0], shape)


def key(seed: Any) -> Any:
    """A key made from an integer seed (a ``uint32`` array of shape ``(2,)``:
    the seed's high and low 32 bits, as ``jax.random.PRNGKey``).

    >>> import fad.random as fr
    >>> fr.key(42).tolist()
    [0, 42]
    """
    if isinstance(seed, bool | np.bool_) or not _is_integer_seed(seed):
        try:
            seed_arr = fnp.asarray(seed)
        except Exception:
            seed_arr = None
        if seed_arr is None or seed_arr.shape != () or seed_arr.dtype.kind not in "iu":
            raise TypeError(f"fad.random.key takes an integer seed, got {seed!r}")
        lo = fnp.astype(fnp.reshape(seed_arr, (1,)), _U32)
        hi = fnp.astype(fnp.right_shift(fnp.reshape(seed_arr, (1,)), 32), _U32) \
            if seed_arr.dtype.itemsize == 8 else fnp.zeros_like(lo)
        return fnp.concatenate([hi, lo])
    seed = int(seed)
    if not -2 ** 63 <= seed < 2 ** 64:
        raise OverflowError(f"fad.random.key: the seed {seed} does not fit in 64 bits")
    seed %= 2 ** 64
    return fnp.asarray(np.array([seed >> 32, seed & 0xFFFFFFFF], _U32))


def PRNGKey(seed: Any) -> Any:  # noqa: N802 (JAX's name)
    """A key made from an integer seed; the same as ``key`` (raw keys only).

    >>> import fad.random as fr
    >>> fr.PRNGKey(0).tolist()
    [0, 0]
    """
    return key(seed)


def key_data(keys: Any) -> Any:
    """The ``uint32`` words of a key (keys are raw ``uint32`` arrays here: itself).

    >>> import fad.random as fr
    >>> fr.key_data(fr.key(1)).tolist()
    [0, 1]
    """
    return fnp.asarray(keys)


def wrap_key_data(key_bits_array: Any) -> Any:
    """A key from its ``uint32`` words (checked: shape ``(..., 2)``).

    >>> import fad.random as fr, numpy as np
    >>> fr.wrap_key_data(np.array([0, 7], np.uint32)).tolist()
    [0, 7]
    """
    arr = fnp.asarray(key_bits_array)
    if arr.dtype != _U32 or arr.shape[-1:] != (2,):
        raise TypeError("fad.random.wrap_key_data takes uint32 words of shape (..., 2), got "
                        f"{arr.dtype} of shape {tuple(arr.shape)}")
    return arr


def split(key: Any, num: int | tuple[int, ...] = 2) -> Any:
    """``num`` new keys (shape ``(num, 2)``, or ``(*num, 2)`` for a tuple), independent
    of each other and of ``key``; as ``jax.random.split``.

    >>> import fad.random as fr
    >>> fr.split(fr.key(42)).tolist()
    [[1832780943, 270669613], [64467757, 2916123636]]
    """
    key = check_key(key, "split")
    shape = shape_tuple(num, "split")
    b0, b1 = random_words(key, shape)
    return _unflat(fnp.stack([b0, b1], axis=-1), shape + (2,))


def fold_in(key: Any, data: Any) -> Any:
    """A new key made from ``key`` and an integer ``data`` (taken modulo 2**32): the
    counter ``(0, data)`` encrypted under ``key``, as ``jax.random.fold_in``.

    >>> import fad.random as fr
    >>> fr.fold_in(fr.key(42), 7).tolist()
    [2547012911, 1371500959]
    """
    key = check_key(key, "fold_in")
    if _is_integer_seed(data):
        d = fnp.asarray(np.array([int(data) % 2 ** 32], _U32))
    else:
        d = fnp.asarray(data)
        if d.shape != () or d.dtype.kind not in "iu":
            raise TypeError(f"fad.random.fold_in: data must be an integer scalar, got "
                            f"{d.dtype} of shape {tuple(d.shape)}")
        d = fnp.astype(fnp.reshape(d, (1,)), _U32)
    k0, k1 = _key_words(key)
    b0, b1 = threefry_2x32(k0, k1, fnp.zeros_like(d), d)
    return fnp.concatenate([b0, b1])


_UINTS = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def raw_bits(key: Any, width: int, shape: tuple[int, ...]) -> Any:
    """``width``-bit unsigned random integers of ``shape``, as JAX's
    ``random_bits`` (flat, at least 1-d: reshape with ``unflat``)."""
    b0, b1 = random_words(key, shape)
    if width == 64:
        u64 = np.dtype(np.uint64)
        return fnp.bitwise_or(fnp.left_shift(fnp.astype(b0, u64), 32), fnp.astype(b1, u64))
    both = fnp.bitwise_xor(b0, b1)
    return both if width == 32 else fnp.astype(both, np.dtype(_UINTS[width]))


def unflat(x: Any, shape: tuple[int, ...]) -> Any:
    """A flat draw ``x`` reshaped to ``shape``."""
    return _unflat(x, shape)


def bits(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Uniform random bits as unsigned integers (``uint32`` unless ``dtype``
    says ``uint8``, ``uint16`` or ``uint64``); as ``jax.random.bits``.

    >>> import fad.random as fr
    >>> fr.bits(fr.key(42), (3,)).tolist()
    [2098992034, 2919706841, 2646866425]
    """
    key = check_key(key, "bits")
    dt = np.dtype(np.uint32 if dtype is None else dtype)
    if dt.kind != "u":
        raise TypeError(f"fad.random.bits: dtype must be an unsigned integer type, got {dt}")
    shape = shape_tuple(shape, "bits")
    return _unflat(raw_bits(key, dt.itemsize * 8, shape), shape)


__all__ = ["key", "PRNGKey", "key_data", "wrap_key_data", "split", "fold_in", "bits"]
