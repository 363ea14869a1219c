"""``Primitive``: one object per primitive, holding every rule it has.

The rules are attached next to each primitive's definition (``fad/primitives/``):
``impl`` (on an array namespace ``xp``), ``abstract_eval`` (shape and dtype
rule), ``jvp`` (forward-mode rule, written in fad operations), for linear
primitives ``transpose``, and ``batch`` (vmap's rule). Interpreters only ever
call these attributes.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..backends import namespace_of
from .trace import bind

REGISTRY: dict[str, "Primitive"] = {}
_NUMPY_OR_SCALAR = frozenset({np.ndarray, float, int, bool, complex, np.float64, np.float32})
_PY_SCALARS = frozenset({float, int, bool, complex})


class Primitive:
    """A named operation of the IR.

    >>> from fad.core.primitive import REGISTRY
    >>> REGISTRY["sin"].name
    'sin'
    """

    def __init__(self, name: str, impl: Callable, abstract_eval: Callable,
                 multiple_results: bool = False):
        self.name = name
        self._impl = impl
        self.abstract_eval = abstract_eval
        self.multiple_results = multiple_results
        self.jvp: Callable | None = None
        self.transpose: Callable | None = None
        self.batch: Callable | None = None
        # set by the rule builders (fad/primitives/builders.py):
        self.partials: tuple | None = None   # elementwise jvp partials (diagonal)
        self.multilinear = False              # linear in each operand separately
        self.linear_in: tuple | None = None   # operands it is linear in (None: all)
        # call primitives (jit's, fad/transforms/jit.py): evaluate the body
        self.inline: Callable | None = None
        # user-defined reverse rules (custom_vjp, checkpoint):
        # vjp_rule(primals, **params) -> (outputs, pullback(cts) -> cts per operand)
        self.vjp_rule: Callable | None = None
        self.simplify: Callable | None = None # algebraic identities (jit's optimiser)
        self.kernel: Callable | None = None   # kernel(xp, **params) -> fast callable
        self.fresh_output = False             # kernel allocates its result, takes out=
        self.numpy_fn: Callable | None = None # NumPy's function, when it takes no params
        self.effect = False  # run for what it does (printing): never dropped nor merged
        REGISTRY[name] = self

    def impl(self, *args: Any, **params: Any) -> Any:
        # the common case, decided fast: NumPy arrays (with a scalar or array last)
        t0 = type(args[0]) if args else None
        if (t0 is np.ndarray and (len(args) == 1 or type(args[-1]) in _NUMPY_OR_SCALAR)) \
                or (t0 in _PY_SCALARS and type(args[-1]) is np.ndarray):
            fn = self.numpy_fn
            return fn(*args) if fn is not None else self._impl(np, *args, **params)
        return self._impl(namespace_of(args), *args, **params)

    def numpy_kernel(self, args: tuple) -> Callable | None:
        """``numpy_fn`` if ``impl`` calls it for operands of the types of ``args``
        (it then does for any operands of these types), else ``None``.

        >>> import numpy as np
        >>> from fad.core.primitive import REGISTRY
        >>> REGISTRY["sin"].numpy_kernel((np.ones(2),)) is np.sin
        True
        """
        t0 = type(args[0]) if args else None
        if (t0 is np.ndarray and (len(args) == 1 or type(args[-1]) in _NUMPY_OR_SCALAR)) \
                or (t0 in _PY_SCALARS and type(args[-1]) is np.ndarray):
            return self.numpy_fn
        return None

    def bind(self, *args: Any, **params: Any) -> Any:
        return bind(self, *args, **params)

    def __repr__(self) -> str:
        return self.name
