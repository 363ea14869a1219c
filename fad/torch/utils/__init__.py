"""``torch.utils``: ``data`` (datasets and loaders), ``dlpack`` (exchange with other
libraries), ``checkpoint`` (activation checkpointing), ``benchmark`` (timing
statements) and ``hooks``."""

from . import benchmark, checkpoint, data, dlpack, hooks

__all__ = ["benchmark", "checkpoint", "data", "dlpack", "hooks"]
