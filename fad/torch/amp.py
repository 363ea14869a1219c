"""``torch.amp``: ``autocast`` and ``GradScaler``, so that mixed-precision training
loops run. NumPy has no bfloat16 and its float16 products are slow, so an
``autocast`` region runs at the tensors' own precision (a warning says so once);
``GradScaler`` scales the loss and unscales the gradients, skipping a step whose
gradients are not finite, as PyTorch's (on the CPU; for ``"cuda"`` without a GPU it
disables itself with PyTorch's warning)."""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any, Callable

from . import _dtype
from . import cuda as _cuda
from ._grad_mode import no_grad
from .tensor import Tensor

__all__ = ["autocast", "GradScaler", "is_autocast_available"]

_ACTIVE: list = []  # the open autocast regions: (device_type, dtype)
_WARNED = [False]


def is_autocast_available(device_type: str) -> bool:
    return device_type in ("cpu", "cuda")


class autocast:
    """``with torch.autocast(device_type, dtype=None, enabled=True):`` a region PyTorch
    would run in lower precision; the facade runs it as it is (see the module).

    >>> import fad.torch as torch, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with torch.autocast("cpu"):
    ...         torch.is_autocast_enabled("cpu")
    True
    """

    def __init__(self, device_type: str = "cuda", dtype: Any = None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type "
                               f"'{device_type}'")
        self.device_type, self.enabled = device_type, enabled
        self.fast_dtype = dtype if dtype is not None else (
            _dtype.float16 if device_type == "cuda" else "torch.bfloat16")

    def __enter__(self) -> "autocast":
        if self.enabled and not _WARNED[0]:
            _WARNED[0] = True
            warnings.warn("fad.torch runs autocast regions at the tensors' own precision "
                          "(NumPy has no bfloat16, and its float16 products are slow)",
                          UserWarning, stacklevel=2)
        _ACTIVE.append((self.device_type, self.enabled))
        return self

    def __exit__(self, *exc: Any) -> None:
        _ACTIVE.pop()

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)
        return wrapped


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """Whether an enabled ``autocast`` region for ``device_type`` is open."""
    for device, enabled in reversed(_ACTIVE):
        if device == device_type:
            return enabled
    return False


def get_autocast_dtype(device_type: str) -> Any:
    """PyTorch's default lower precision for ``device_type``."""
    return _dtype.float16 if device_type == "cuda" else "torch.bfloat16"


class GradScaler:
    """Loss scaling: ``scale(loss)`` multiplies by the scale, ``step(optimizer)``
    unscales the gradients and steps unless one is not finite, ``update()`` halves
    the scale after such a step and doubles it after ``growth_interval`` good ones.

    >>> import fad.torch as torch
    >>> scaler = torch.amp.GradScaler("cpu", init_scale=4.0)
    >>> scaler.scale(torch.tensor(1.5))
    tensor(6.)
    """

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True):
        self._device = device
        if enabled and device == "cuda" and not _cuda.is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", UserWarning, stacklevel=2)
            enabled = False
        self._enabled = enabled
        self._scale, self._growth_factor = float(init_scale), float(growth_factor)
        self._backoff_factor, self._growth_interval = float(backoff_factor), int(growth_interval)
        self._growth_tracker = 0
        self._unscaled: dict = {}  # id(optimizer) -> whether a gradient was not finite

    def is_enabled(self) -> bool:
        return self._enabled

    def get_scale(self) -> float:
        return self._scale if self._enabled else 1.0

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def scale(self, outputs: Any) -> Any:
        """``outputs`` (a tensor, or nested lists/tuples of them) times the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        return type(outputs)(self.scale(o) for o in outputs)

    def unscale_(self, optimizer: Any) -> None:
        """Divide the gradients of ``optimizer``'s parameters by the scale (once per
        step), noting whether one is not finite."""
        if not self._enabled:
            return
        if id(optimizer) in self._unscaled:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        found_inf = False
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.grad.mul_(1.0 / self._scale)
                    found_inf = found_inf or not bool(p.grad.isfinite().all())
        self._unscaled[id(optimizer)] = found_inf

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscale (if not done yet) and ``optimizer.step()``, unless a gradient is
        not finite."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if id(optimizer) not in self._unscaled:
            self.unscale_(optimizer)
        return None if self._unscaled[id(optimizer)] else optimizer.step(*args, **kwargs)

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """The next step's scale: ``new_scale``, or backed off after a step with a
        gradient that was not finite, or grown after ``growth_interval`` good steps."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale.item() if isinstance(new_scale, Tensor)
                                else new_scale)
        elif any(self._unscaled.values()):
            self._scale *= self._backoff_factor
            self._growth_tracker = 0
        else:
            self._growth_tracker += 1
            if self._growth_tracker == self._growth_interval:
                grown = self._scale * self._growth_factor
                self._scale = grown if math.isfinite(grown) else self._scale
                self._growth_tracker = 0
        self._unscaled = {}

    def state_dict(self) -> dict:
        if not self._enabled:
            return {}
        return {"scale": self._scale, "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._scale = float(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])
