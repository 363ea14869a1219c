"""``torch.nn``: ``Module``, ``Parameter``, common layers and losses, ``functional``,
``init`` and ``utils``."""

from __future__ import annotations

from . import functional, init, modules, utils
from .modules import *  # noqa: F403  (``torch.nn`` re-exports every module class)

__all__ = ["functional", "init", "utils", *modules.__all__]
