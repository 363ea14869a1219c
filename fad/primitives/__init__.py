"""Every primitive of fad, each defined once with all its rules.

Importing this package registers them all in ``fad.core.primitive.REGISTRY``.
"""

from ..core.primitive import REGISTRY
from . import (  # noqa: F401
           contractions,
           elementwise,
           identities,  # noqa: F401  (after the primitives it annotates)
           indexing,
           reductions,
           structural,
)

__all__ = ["REGISTRY", "contractions", "elementwise", "indexing", "reductions",
           "structural"]
