"""``fad.misc``: HIPS autograd's ``autograd.misc`` helpers under the same names,
so that ``from autograd.misc.optimizers import adam`` becomes ``from
fad.misc.optimizers import adam``: ``optimizers`` (``adam sgd rmsprop``, loops
taking ``grad(x, i)``), ``flatten`` (``flatten flatten_func``; ``fad.misc.flatten``
is the function, as ``autograd.misc.flatten`` is), ``fixed_points``
(``fixed_point``, differentiable through the fixed point), and the homes of
``autograd.extend`` (``primitive defvjp``) and ``autograd.test_util``
(``check_grads``): ``extend`` and ``test_util``.

>>> from fad.misc import flatten
>>> flatten([1.0, (2.0, 3.0)])[0].tolist()
[1.0, 2.0, 3.0]
"""

from . import extend, fixed_points, optimizers, test_util
from .flatten import flatten, flatten_func

__all__ = ["extend", "fixed_points", "flatten", "flatten_func", "optimizers", "test_util"]
