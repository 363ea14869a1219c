"""Every primitive of fad, each defined once with all its rules.

Importing this package registers them all in ``fad.core.primitive.REGISTRY``.
The rule builders they share are in ``builders``; ``identities`` attaches jit's
algebraic identities to the primitives defined in the other modules.
"""

from ..core.primitive import REGISTRY
from . import (  # noqa: F401
    callback,
    complex,
    contractions,
    convolution,
    cumulative,
    effects,
    eig,
    elementwise,
    identities,
    indexing,
    linalg,
    placement,
    reductions,
    scatter,
    slicing,
    sorting,
    special,
    special_functions,
    strided,
    structural,
    windows,
)

__all__ = ["REGISTRY", "callback", "complex", "contractions", "convolution", "cumulative",
           "effects", "eig", "elementwise", "identities", "indexing", "linalg", "placement",
           "reductions", "scatter", "slicing", "sorting", "special", "special_functions",
           "strided", "structural", "windows"]
