"""The optional libraries contenders are built on: each is ``None`` when absent
(``missing`` says so), so that a case reports the contender as skipped."""

from __future__ import annotations

import os
from typing import Any

import fad  # noqa: F401 - before the other libraries: its import tunes the allocator

try:
    import autograd
    import autograd.numpy as anp
    from autograd.tracer import getval as autograd_getval
except ImportError:  # pragma: no cover - optional reference library
    autograd = anp = autograd_getval = None

try:
    import torch
except ImportError:  # pragma: no cover - optional reference library
    torch = None

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")  # one thread, like the others
try:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
except ImportError:  # pragma: no cover - optional reference library
    jax = jnp = None

try:
    import fad.torch as fad_torch

    FAD_TORCH_ERROR = "" if hasattr(fad_torch, "tensor") else \
        "fad.torch incomplete (it imports but has no fad.torch.tensor)"
except Exception as exc:  # noqa: BLE001 - the facade is optional, report why it is absent
    fad_torch = None
    FAD_TORCH_ERROR = f"fad.torch unavailable ({type(exc).__name__}: {exc})"
if FAD_TORCH_ERROR:
    fad_torch = None


def missing(lib: Any, what: str) -> str:
    return "" if lib is not None else f"{what} not installed"
