"""``fad.misc.test_util``: HIPS autograd's ``check_grads`` calling convention
(``check_grads(fun, modes=..., order=2)(*args)``) on ``fad.check_grads``.

>>> import fad.numpy as fnp
>>> from fad.misc.test_util import check_grads
>>> check_grads(lambda x: fnp.sum(fnp.sin(x) * x), modes=["rev"])(fnp.ones(3))
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..transforms.check import check_grads as _check_grads


def check_grads(fun: Callable, argnum: int = 0, modes: Sequence[str] = ("fwd", "rev"),
                order: int = 2) -> Callable:
    """A function of ``fun``'s arguments that checks ``fun``'s derivatives in
    argument ``argnum`` (every mode of ``modes``, up to ``order``) against
    finite differences, raising ``AssertionError`` when they disagree.

    >>> import fad.numpy as fnp
    >>> from fad.misc.test_util import check_grads
    >>> check_grads(lambda x, y: x * fnp.exp(y), argnum=1)(2.0, 0.5)
    """
    def check(*args: Any, **kwargs: Any) -> None:
        def at(x: Any) -> Any:
            return fun(*args[:argnum], x, *args[argnum + 1:], **kwargs)
        _check_grads(at, (args[argnum],), order=order, modes=tuple(modes))
    return check


__all__ = ["check_grads"]
