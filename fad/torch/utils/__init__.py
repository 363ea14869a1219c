"""``torch.utils``: ``data`` (datasets and loaders), ``dlpack`` (exchange with other
libraries)."""

from . import data, dlpack

__all__ = ["data", "dlpack"]
