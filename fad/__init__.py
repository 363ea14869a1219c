"""fad: automatic differentiation by tracing to an IR and transforming it.

>>> import fad, fad.numpy as fnp
>>> f = lambda x: fnp.sum(fnp.tanh(x) ** 2)
>>> fad.grad(f)(fnp.array([0.0, 1.0])).round(4).tolist()
[0.0, 0.6397]
"""

from importlib import import_module as _import_module

from . import primitives as _primitives  # noqa: F401  (registers every primitive)
from . import numpy  # noqa: F401  (installs the tracer methods)
from . import config, nn, random, tree
from .transforms.autodiff import (grad, jvp, linearize, make_jaxpr, no_grad, stop_gradient,
                                  value_and_grad, vjp)
from .transforms.jacobians import hessian, jacfwd, jacrev
from .transforms.operators import (elementwise_grad, hessian_vector_product, jacobian,
                                   multigrad_dict)
from .backends import default_backend, set_backend
from .primitives.placement import device_put
from .primitives.callback import pure_callback
from .transforms.check import check_grads
from .transforms.custom import checkpoint, custom_jvp, custom_vjp
from .transforms.jit import jit
from .transforms.tools import disable_jit, eval_shape
from .transforms import jit_cache  # its knobs: fad.jit_cache.MAX_ENTRIES, ...
from .transforms.jit_cache import RetraceWarning
from . import lax
from .transforms.vmap import vmap
from .core.errors import ConcretizationError, ShapeError, UnexpectedTracerError
from .core.ir import ClosedJaxpr, Jaxpr, ShapedArray
from .backends.malloc import tune_malloc_once as _tune_malloc_once

_tune_malloc_once()  # keep freed memory for the next call (glibc; FAD_TUNE_MALLOC=0: don't)

__version__ = "0.1.0"


def __getattr__(name: str):  # fad.viz, fad.torch, fad.testing, fad.scipy... load on first use
    if name in ("viz", "torch", "testing", "scipy", "optim", "debug", "flatten_util", "misc",
                "experimental"):
        return _import_module(f"fad.{name}")
    raise AttributeError(f"module 'fad' has no attribute {name!r}")

__all__ = [
    "jit", "vmap", "grad", "value_and_grad", "vjp", "jvp", "linearize", "jacfwd", "jacrev",
    "hessian", "make_jaxpr", "stop_gradient", "no_grad", "custom_jvp", "custom_vjp",
    "checkpoint", "check_grads", "tree", "numpy", "nn", "random", "config", "set_backend",
    "default_backend",
    "device_put", "pure_callback",
    "ConcretizationError", "UnexpectedTracerError", "ShapeError", "ClosedJaxpr", "Jaxpr",
    "ShapedArray", "RetraceWarning", "eval_shape", "disable_jit"]
__all__ += ["elementwise_grad", "jacobian", "hessian_vector_product", "multigrad_dict"]
__all__ += ["lax", "jit_cache"]  # submodules (fad.scipy, fad.viz... load on first use)


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return sorted({*__all__, "viz", "torch", "testing", "scipy"})
