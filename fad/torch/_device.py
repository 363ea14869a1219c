"""PyTorch's small value types: ``torch.Size`` (a tuple of sizes) and
``torch.device`` (a device type and index; ``"cuda"`` means the CuPy backend)."""

from __future__ import annotations

import math
from typing import Any


class Size(tuple):
    """``torch.Size``: a tuple that prints as ``torch.Size([3, 5])``."""

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def __getitem__(self, i: Any) -> Any:
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def numel(self) -> int:
        return math.prod(self)


# PyTorch's device types: each names a device; only "cpu" and "cuda" hold tensors
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                 "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")


DEFAULT_DEVICE: list = [None]  # (set_default_device's choice; None: the default backend)
_DEFAULT_STACK: list = []  # (the defaults ``with device(...)`` blocks replaced)


class device:
    """``torch.device('cpu')``; ``'cuda'`` means the CuPy backend."""

    __slots__ = ("type", "index")

    def __init__(self, type: Any = "cpu", index: int | None = None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type  # (a bare index names a CUDA device, as in PyTorch)
        type = str(type)
        if ":" in type:
            type, idx = type.split(":")
            index = int(idx)
        if type not in _DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at "
                               f"start of device string: {type}")
        self.type = type
        self.index = index

    def __enter__(self) -> "device":
        """``with torch.device("meta"):``: the factory functions' default device in
        the block (the one before is restored after)."""
        _DEFAULT_STACK.append(DEFAULT_DEVICE[0])
        DEFAULT_DEVICE[0] = self
        return self

    def __exit__(self, *exc: Any) -> None:
        DEFAULT_DEVICE[0] = _DEFAULT_STACK.pop()

    def __repr__(self) -> str:
        return (f"device(type='{self.type}')" if self.index is None else
                f"device(type='{self.type}', index={self.index})")

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: Any) -> bool:
        try:
            other = device(other)
        except (RuntimeError, ValueError):
            return False
        return self.type == other.type and (self.index or 0) == (other.index or 0)

    def __hash__(self) -> int:
        return hash((self.type, self.index or 0))


_CPU = device("cpu")
_CUDA = device("cuda", 0)
_META = device("meta")


Size.__module__ = device.__module__ = "fad.torch"  # (PyTorch's print as ``torch.Size``)
