"""Structured control flow that survives abstract tracing (as ``jax.lax``).

When the deciding values are concrete (plain arrays, or tracing under
``grad``/``jvp``/``vjp`` without ``jit``) these run as ordinary Python control
flow, so every transformation sees the operations actually executed. When they
are abstract (under ``jit``/``make_jaxpr``, or a per-example predicate under
``vmap``) they become primitives carrying their bodies as jaxprs:

* ``cond``: both branches traced; forward mode transforms both; reverse mode
  re-runs the taken branch's vjp in the backward pass; under ``vmap`` with a
  batched predicate both branches run and ``select`` merges them.
* ``scan``: forward mode scans the jvp of the body; reverse mode stores the
  carries of every step and scans the body's vjp backwards.
* ``while_loop``: forward mode only (the number of steps is data-dependent), as
  in JAX; under concrete tracing reverse mode works too (it is a Python loop).
* ``fori_loop``: a ``scan`` when the bounds are Python ints, else a ``while_loop``.
* ``switch``: ``cond`` with n branches (the same primitive); ``map``: a ``scan``
  with no carry; ``select``/``select_n``; ``associative_scan``: a parallel
  prefix written in fad operations.
* ``cumsum cumprod cummax cummin cumlogsumexp sort sort_key_val top_k``:
  ``jax.lax``'s signatures over the primitives (``ordered.py``).

Each one checks its program as JAX does, with the same outcome in every mode
(eagerly, under ``jit``, ``grad`` and ``vmap``): a loop body keeps its carry's
structure, shapes and dtypes (a Python scalar of the initial carry is weakly
typed: it takes the dtype the body gives it); ``scan``'s ``xs`` share one
leading length, which ``length`` must equal; predicates and bounds are scalars
of the right kind; ``cond``'s branches return the same types. Eagerly, a loop
checks its first step, or traces its body abstractly when it runs no step (a
zero-step ``scan`` thus stacks empty ``ys`` of the body's output types); an
eager ``cond`` traces the branch it does not take.
"""

from .associative import associative_scan
from .cond import cond, switch
from .loops import fori_loop, map, scan, while_loop
from .ordered import cumlogsumexp, cummax, cummin, cumprod, cumsum, sort, sort_key_val, top_k
from .selection import select, select_n

__all__ = ["cond", "scan", "while_loop", "fori_loop", "switch", "map", "select",
           "select_n", "associative_scan", "cumsum", "cumprod", "cummax", "cummin",
           "cumlogsumexp", "sort", "sort_key_val", "top_k"]
