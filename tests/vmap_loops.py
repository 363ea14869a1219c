"""``vmap`` against a Python loop, for every way of batching the operands."""

import itertools
from typing import Any, Callable, Sequence

import numpy as np

import fad


def check_every_batching(f: Callable, stacked: Sequence[Any]) -> None:
    """``fad.vmap(f, in_axes=dims)`` equals a loop over the leading axis, for each
    choice (at least one batched) of which operands of ``stacked`` are batched; an
    unbatched operand is its first element."""
    size = len(stacked[0])
    for dims in itertools.product([0, None], repeat=len(stacked)):
        if all(d is None for d in dims):
            continue
        args = [a if d == 0 else a[0] for a, d in zip(stacked, dims)]
        got = fad.vmap(f, in_axes=dims)(*args)
        want = np.stack([f(*[a[k] if d == 0 else a for a, d in zip(args, dims)])
                         for k in range(size)])
        np.testing.assert_allclose(got, want, err_msg=str(dims))
