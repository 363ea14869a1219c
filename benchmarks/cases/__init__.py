"""The benchmark cases, one module per family; each module registers its cases
with ``@case``.  Importing this package registers them all, in ``ORDER``: the
order in which they are listed, run and tabulated.

Contender names: ``numpy`` is the hand-written reference, always first;
``fad`` is always the transformation *without* jit (each call traces,
transforms and evaluates), ``fad jit`` the same function under ``fad.jit``
(compiled on its first call, which is the gradient check, before any timing;
the note column gives that first call's time).
"""

from harness import order_cases

from . import (  # noqa: F401 - registers them
    chains,
    dask,
    elementwise,
    hvp,
    jacrev,
    lenet,
    lenet_notebook,
    mlp,
    per_example,
)

ORDER = ("mlp", "mlp_gemms", "chain100", "deep_chain", "hvp", "big_elementwise", "mlp_jit",
         "chain100_jit", "per_example", "big_elementwise_jit", "hvp_jit", "jacrev_jit",
         "facade_chain", "facade_deep_chain", "facade_hvp", "dask_logistic", "lenet",
         "lenet_notebook")

order_cases(ORDER)
