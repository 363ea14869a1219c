"""``torch.random``: the global generator's seed and state, ``fork_rng`` (a block
whose draws leave the global state as it found it), and ``torch.poisson``.

>>> import fad.torch as torch
>>> with torch.random.fork_rng():
...     a = torch.rand(2)
>>> torch.rand(2).tolist() == a.tolist()
True
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from .. import lax
from .. import numpy as fnp
from ._creation import (
    Generator,
    _place,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from ._dtype import type_word
from ._graph import host
from ._recorder import Op, apply
from .tensor import Tensor

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed",
           "manual_seed", "seed", "set_rng_state", "poisson"]


@contextlib.contextmanager
def fork_rng(devices: Any = None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: str | None = None) -> Iterator[None]:
    """Run a block, then restore the global generator's state (``enabled=False``:
    nothing is restored).

    >>> import fad.torch as torch
    >>> _ = torch.manual_seed(0); before = torch.get_rng_state()
    >>> with torch.random.fork_rng():
    ...     _ = torch.randn(3)
    >>> bool((torch.get_rng_state() == before).all())
    True
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


# the draw is a constant of the operation: its derivative in the rates is 0
_POISSON = Op("poisson", lambda rate, sample=None: lax.stop_gradient(
    fnp.where(True, sample, rate)), "PoissonBackward0")


def poisson(input: Tensor, generator: Any = None) -> Tensor:
    """Poisson draws with the rates ``input`` (a float tensor); the gradient in
    the rates is 0, as PyTorch's.

    >>> import fad.torch as torch
    >>> torch.poisson(torch.zeros(3))
    tensor([0., 0., 0.])
    """
    if input.dtype.np.kind not in "fc":
        raise NotImplementedError(f'"poisson_cpu" not implemented for '
                                  f"'{type_word(input.dtype)}'")
    rates = host(input._value)
    sample = (generator or default_generator).rng.poisson(rates).astype(rates.dtype)
    return apply(_POISSON, (input,), {"sample": _place(sample)})
