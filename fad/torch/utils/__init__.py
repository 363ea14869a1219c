"""``torch.utils``: ``data`` (datasets and loaders), ``dlpack`` (exchange with other
libraries), ``checkpoint`` (activation checkpointing)."""

from . import checkpoint, data, dlpack

__all__ = ["checkpoint", "data", "dlpack"]
