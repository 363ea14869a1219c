"""``torch.nn``: ``Module``, ``Parameter``, common layers and losses, ``functional``,
``init``, ``grad`` and ``utils``."""

from __future__ import annotations

from . import functional, grad, init, modules, parameter, utils
from .modules import *  # noqa: F403  (``torch.nn`` re-exports every module class)

__all__ = ["functional", "grad", "init", "parameter", "utils", *modules.__all__]
