"""``torch.*`` functions and ``Tensor`` methods: PyTorch's argument conventions
(``dim``, ``keepdim``, ``*sizes``...) mapped onto the operation table, one module
per subject. ``from . import _functions as F`` reaches every function, and the
helpers the facade's other modules call (``F.inplace``, ``F.call``...)."""

from .._ops import call  # noqa: F401
from . import (
               arithmetic,
               conversions,
               indexing,
               matrices,
               numerics,
               order,
               pointwise,
               products,
               reductions,
               selection,
               shapes,
               strided,
               writes,
)
from ._common import _shape, _t  # noqa: F401
from .arithmetic import *  # noqa: F403
from .arithmetic import rpow, rsub  # noqa: F401
from .conversions import *  # noqa: F403
from .conversions import to  # noqa: F401
from .indexing import *  # noqa: F403
from .indexing import getitem  # noqa: F401
from .matrices import *  # noqa: F403
from .numerics import *  # noqa: F403
from .order import *  # noqa: F403
from .pointwise import *  # noqa: F403
from .products import *  # noqa: F403
from .reductions import *  # noqa: F403
from .selection import *  # noqa: F403
from .shapes import *  # noqa: F403
from .shapes import _expanded  # noqa: F401
from .strided import *  # noqa: F403
from .writes import *  # noqa: F403
from .writes import inplace, inplace_view, into, setitem  # noqa: F401

__all__ = [*arithmetic.__all__, *reductions.__all__, *shapes.__all__, *indexing.__all__,
           *conversions.__all__, *products.__all__, *writes.__all__, *order.__all__,
           *selection.__all__, *matrices.__all__, *strided.__all__, *pointwise.__all__,
           *numerics.__all__]
