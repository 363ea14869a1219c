"""``device_put``: moving values between backends, as a primitive, so that a
derivative follows the value back to where it came from."""

from __future__ import annotations

from typing import Any

from .. import backends
from ..core.primitive import Primitive
from ..core.trace import bind, concrete_or_none
from . import shapes
from .builders import deflinear, unary_batch


def _put(xp: Any, x: Any, *, backend: str, source: str) -> Any:
    return backends.device_put(x, backend)


# device_put moves values and changes none: linear, with the identity as its
# derivative; the transpose puts the cotangent back on the source backend
device_put_p = Primitive("device_put", _put, shapes.same)
deflinear(device_put_p, lambda ct, x, *, backend, source: [
    bind(device_put_p, ct, backend=source, source=backend)])
device_put_p.batch = unary_batch(device_put_p)


def device_put(x: Any, backend: str | backends.Backend) -> Any:
    """``x`` (an array of any backend, a tracer or a Python scalar) as an array of
    ``backend`` (a name such as ``'numpy'`` or ``'array_api_strict'``, or a
    ``Backend``): through DLPack where both sides support it, else through the
    host; an array already there is returned as it is. Differentiable: the
    gradient with respect to ``x`` comes back on ``x``'s backend (under ``jit``,
    where values are abstract, on the default backend).

    >>> import numpy as np, fad, fad.numpy as fnp
    >>> y = device_put(np.arange(3.0), "array_api_strict")
    >>> type(y).__module__.split(".")[0]
    'array_api_strict'
    >>> g = fad.grad(lambda x: fnp.sum(device_put(x, "array_api_strict") ** 2))(np.ones(2))
    >>> type(g).__name__, g.tolist()
    ('ndarray', [2.0, 2.0])
    """
    target = backend.name if isinstance(backend, backends.Backend) else backend
    value = concrete_or_none(x)
    source = backends.default_backend() if value is None else \
        backends.backend_for(backends.namespace_of((value,))).name
    if source == target and value is x:
        return backends.device_put(x, target)
    return bind(device_put_p, x, backend=target, source=source)


__all__ = ["device_put", "device_put_p"]
