"""HIPS autograd's differential operators that JAX has no name for, built on
``vjp``, ``jvp`` and ``jacrev`` (so ``from autograd import elementwise_grad``
becomes ``from fad import elementwise_grad``): ``elementwise_grad``,
``jacobian``, ``hessian_vector_product``, ``multigrad_dict``."""

from __future__ import annotations

import inspect
from typing import Any, Callable

from ..tree import tree_map
from .autodiff import grad, jvp, vjp
from .jacobians import jacrev
from .leaves import zeros_like


def _ones_like(x: Any) -> Any:
    return tree_map(lambda a: zeros_like(a) + 1, x)


def elementwise_grad(fun: Callable, argnum: int = 0) -> Callable:
    """The sum of each column of ``fun``'s Jacobian in argument ``argnum``, in
    one reverse pass (``vjp`` with a cotangent of ones): the derivative of each
    element when ``fun`` acts elementwise. Any output shape is accepted.

    >>> import fad, fad.numpy as fnp
    >>> fad.elementwise_grad(fnp.tanh)(fnp.array([0.0, 1.0])).round(4).tolist()
    [1.0, 0.42]
    """
    def elementwise(*args: Any, **kwargs: Any) -> Any:
        def at(x: Any) -> Any:
            return fun(*args[:argnum], x, *args[argnum + 1:], **kwargs)
        out, pull = vjp(at, args[argnum])
        return pull(_ones_like(out))[0]
    elementwise.__name__ = f"elementwise_grad({getattr(fun, '__name__', 'fun')})"
    return elementwise


def jacobian(fun: Callable, argnum: int = 0) -> Callable:
    """The full Jacobian of ``fun`` in argument ``argnum``, shaped ``out.shape +
    in.shape`` (``jacrev(fun, argnum)``).

    >>> import fad, fad.numpy as fnp
    >>> fad.jacobian(lambda x: x ** 2)(fnp.array([1.0, 2.0])).tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    """
    return jacrev(fun, argnum)


def hessian_vector_product(fun: Callable, argnum: int = 0) -> Callable:
    """``hvp(*args, vector)``: the Hessian of scalar ``fun`` in argument
    ``argnum`` applied to ``vector`` (shaped as that argument), by forward mode
    over the gradient, without forming the Hessian.

    >>> import fad, fad.numpy as fnp
    >>> hvp = fad.hessian_vector_product(lambda x: fnp.sum(x ** 3))
    >>> hvp(fnp.array([1.0, 2.0]), fnp.array([1.0, 1.0])).tolist()
    [6.0, 12.0]
    """
    def hvp(*args_and_vector: Any, **kwargs: Any) -> Any:
        *args, vector = args_and_vector

        def gradient_at(x: Any) -> Any:
            return grad(fun, argnum)(*args[:argnum], x, *args[argnum + 1:], **kwargs)
        return jvp(gradient_at, (args[argnum],), (vector,))[1]
    return hvp


def multigrad_dict(fun: Callable) -> Callable:
    """The gradient of scalar ``fun`` in all its arguments at once, as a dict
    from argument name to gradient (``*args`` and ``**kwargs`` parameters are
    differentiated as a tuple and a dict).

    >>> import fad
    >>> g = fad.multigrad_dict(lambda x, y=2.0: x * y)(3.0)
    >>> {k: float(v) for k, v in g.items()}
    {'x': 2.0, 'y': 3.0}
    """
    signature = inspect.signature(fun)

    def gradients(*args: Any, **kwargs: Any) -> dict:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        names = list(bound.arguments)

        def of_all(values: dict) -> Any:
            call = signature.bind_partial()
            call.arguments.update(values)
            return fun(*call.args, **call.kwargs)
        got = grad(of_all)({n: bound.arguments[n] for n in names})
        return {n: got[n] for n in names}
    return gradients


__all__ = ["elementwise_grad", "hessian_vector_product", "jacobian", "multigrad_dict"]
