"""Every primitive of fad, each defined once with all its rules.

Importing this package registers them all in ``fad.core.primitive.REGISTRY``.
"""

from ..core.primitive import REGISTRY
from . import contractions, elementwise, indexing, reductions, structural  # noqa: F401

__all__ = ["REGISTRY", "contractions", "elementwise", "indexing", "reductions",
           "structural"]
