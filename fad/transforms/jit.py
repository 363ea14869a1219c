"""``fad.jit``: trace once per signature, optimise the IR, generate code, cache.

A jitted function called on concrete arrays (no transformation around it) runs
its cached generated code directly. Called on tracers — inside ``grad``,
``vmap``, ``make_jaxpr`` or another ``jit`` — it binds the ``jit`` call
primitive, whose rules transform the traced body like any other program.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from ..backends import namespace_of, x64
from ..core.errors import ConcretizationError
from ..core.ir import ClosedJaxpr
from ..core.primitive import Primitive
from ..core.trace import Tracer, _wraps, aval_of, bind, current_state
from ..interpreters.codegen import compile_jaxpr
from ..interpreters.evaluate import eval_jaxpr
from ..interpreters.optimize import optimize
from ..interpreters.staging import inputs_behind, lift_tracers, trace_to_jaxpr
from ..tree import _rule as node_rule
from ..tree import register_pytree_node, tree_flatten, tree_map, tree_unflatten
from .arguments import (
    as_positional,
    parameter_name,
    positional_parameter,
    require_callable,
    signature,
)
from .jit_cache import SignatureCache
from .leaves import as_array, reject_masked
from .programs import jvp_program


# ---------------------------------------------------------------- the call primitive
def _compiled(closed: ClosedJaxpr, xp: Any) -> Callable:
    fn = closed.cache.get(xp)
    if fn is None:
        fn = closed.cache[xp] = compile_jaxpr(closed, xp)
    return fn


def _jit_impl(xp: Any, *args: Any, jaxpr: ClosedJaxpr, name: str) -> list:
    return _compiled(jaxpr, xp)(*args)


def _jit_inline(*args: Any, jaxpr: ClosedJaxpr, name: str) -> list:
    return eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)


def _jit_jvp(primals: list, tangents: list, *, jaxpr: ClosedJaxpr, name: str) -> tuple:
    """The jvp of a jitted body is a jitted jvp body: trace it once, bind it."""
    live = [t is not None for t in tangents]
    jvp_closed = jvp_program(jaxpr, tuple(live), "the jvp of a jit", optimize)
    outs = bind(jit_p, *primals, *[t for t in tangents if t is not None],
                jaxpr=jvp_closed, name=f"jvp({name})")
    n = len(jaxpr.jaxpr.outvars)
    return outs[:n], outs[n:]


jit_p = Primitive("jit", _jit_impl,
                  lambda *avals, jaxpr, name: [v.aval for v in jaxpr.jaxpr.outvars],
                  multiple_results=True)
jit_p.jvp = _jit_jvp
jit_p.inline = _jit_inline


# ---------------------------------------------------------------- the public wrapper
_FLAT_TREES: dict[int, Any] = {}


class _Kwargs(dict):
    """Keyword arguments of a jitted call: a dict pytree node of their own."""


register_pytree_node(_Kwargs, lambda d: ([d[k] for k in sorted(d)], tuple(sorted(d))),
                     lambda keys, children: _Kwargs(zip(keys, children)))


class Jitted:
    """A function compiled by ``fad.jit``; call it like the original.

    ``trace_count`` counts traces (one per new signature); ``lower(*args)``
    returns the optimised IR used for ``args``; ``source(*args)`` the generated code.
    Arrays the function closes over are captured when it is traced. The cache keeps
    ``fad.jit_cache.MAX_ENTRIES`` (64) signatures, the least recently used out first,
    and a function traced more than ``RETRACE_WARNING_AFTER`` (8) times warns once
    (``fad.RetraceWarning``), naming what changed.
    """

    def __init__(self, fun: Callable, static_argnums: Sequence[int]):
        self.fun = fun
        self.static_argnums = tuple(sorted(static_argnums))
        self._cache = SignatureCache()  # bounded; explains re-tracing (jit_cache.py)
        self._fast = self._cache.fast  # (shape, dtype) per NumPy argument -> code
        self._method: Jitted | None = None  # bound to a static self (``__get__``)
        functools.update_wrapper(self, fun, updated=())  # never copy fun.__dict__

    def _split(self, args: tuple) -> tuple[list, Any, tuple]:
        if not self.static_argnums and all(type(a) is np.ndarray for a in args):
            tree = _FLAT_TREES.get(len(args))  # arrays only: skip the pytree walk
            if tree is None:
                tree = _FLAT_TREES[len(args)] = tree_flatten([0] * len(args))[1]
            return list(args), tree, ()
        positions = self._static_positions(_n_positional(args))
        dyn = [a for i, a in enumerate(args) if i not in positions]
        static = tuple((type(args[i]), args[i]) for i in positions)  # (1, 1.0, True differ)
        try:
            hash(static)
        except TypeError:
            bad = next(i for i in positions if not _hashable(args[i]))
            raise TypeError(
                f"static argument {bad} of jitted {getattr(self.fun, '__name__', 'function')} "
                f"is a {type(args[bad]).__name__}, which is not hashable: static arguments "
                "are part of the cache key. Pass a tuple instead of a list, or make the "
                "argument non-static") from None
        leaves, tree = tree_flatten(dyn)
        leaves = [x if isinstance(x, Tracer) or hasattr(x, "dtype") else as_array(x)
                  for x in leaves]
        for x in leaves:
            if type(x) is not np.ndarray:
                reject_masked(x)
        return leaves, tree, static

    def _static_positions(self, n_args: int) -> tuple:
        """The static argument positions for a call with ``n_args`` positional
        arguments (negative ones count from the end)."""
        out = []
        for i in self.static_argnums:
            j = i + n_args if i < 0 else i
            if not 0 <= j < n_args:
                raise ValueError(
                    f"jitted {getattr(self.fun, '__name__', 'function')} has "
                    f"static_argnums={self.static_argnums} but was called with {n_args} "
                    "positional argument(s)")
            out.append(j)
        return tuple(sorted(out))

    def _trace(self, args: tuple, leaves: list, tree: Any, static: tuple
               ) -> tuple[ClosedJaxpr, list, Any]:
        out_tree: list = []
        inputs: list = []  # the input tracers, to name the argument in an error

        def flat_fun(*flat: Any) -> list:
            inputs[:] = flat
            dyn = iter(tree_unflatten(tree, flat))
            positions = self._static_positions(_n_positional(args)) \
                if self.static_argnums else ()
            full = [args[i] if i in positions else next(dyn) for i in range(len(args))]
            if full and isinstance(full[-1], _Kwargs):  # keyword arguments travel as a dict
                out = self.fun(*full[:-1], **full[-1])
            else:
                out = self.fun(*full)
            out_leaves, t = tree_flatten(out)
            out_tree.append(t)
            return [as_array(o) for o in out_leaves]

        try:
            closed, _ = trace_to_jaxpr(flat_fun, [aval_of(x) for x in leaves],
                                       label=f"fad.jit of {getattr(self.fun, '__name__', '?')}")
        except ConcretizationError as e:  # name the argument the traced value comes from
            e.args = (e.args[0] + _static_hint(self, e.tracer, inputs, tree, args),)
            raise
        # constants that are tracers of an enclosing transformation become inputs
        closed, lifted = lift_tracers(optimize(closed))
        n = _n_positional(args)
        self._cache.traced(self.fun, self.trace_count + 1, args[:n], args[n] if n < len(args)
                           else {}, self._static_positions(n) if self.static_argnums else (),
                           leaves, bool(lifted))
        return closed, lifted, out_tree[0]

    def _entry(self, args: tuple) -> tuple[ClosedJaxpr, list, Any, list]:
        leaves, tree, static = self._split(args)
        key = (tree, static, tuple((x.shape, x.dtype) for x in leaves))
        hit = self._cache.get(key)
        if hit is None:
            closed, lifted, out_tree = self._trace(args, leaves, tree, static)
            if lifted:  # depends on this call's tracers: not reusable
                self._cache.traces += 1
                return closed, lifted, out_tree, leaves
            hit = (closed, out_tree)
            self._cache.put(key, hit)  # (counts the trace in the statement that stores it)
        return hit[0], [], hit[1], leaves

    def call_compiled(self, *args: Any, **kwargs: Any) -> Any:
        """A call (``__call__``, unless ``disable_jit`` or float32 mode rebinds it)."""
        state = current_state()
        key = _numpy_signature(args) if state.empty and not kwargs else None
        if key is not None:  # the hot path: NumPy arrays in, nothing traced
            hit = self._fast.get(key)
            if hit is not None:
                fn, out_tree, _, _ = hit
                hit[2] = True  # used (the least recently used signature is evicted)
                outs = fn(*args)
                return outs[0] if out_tree is None else tree_unflatten(out_tree, outs)
        if kwargs or self.static_argnums and len(args) <= max(self.static_argnums):
            args = self._with_keywords(args, kwargs)
        closed, lifted, out_tree, leaves = self._entry(args)
        if state.empty and not lifted and not any(isinstance(x, Tracer) for x in leaves):
            fn = _compiled(closed, namespace_of(leaves))
            if key is not None and not self.static_argnums:
                self._cache.put_fast(key, fn, None if out_tree.node is None else out_tree,
                                     closed)
            outs = fn(*leaves)
        else:
            outs = bind(jit_p, *lifted, *leaves, jaxpr=closed,
                        name=getattr(self.fun, "__name__", "fun"))
        if out_tree.node is None:  # a single array
            return outs[0]
        return tree_unflatten(out_tree, outs)

    __call__ = call_compiled
    eager_depth = 0  # open ``fad.disable_jit`` blocks

    def call_eagerly(self, *args: Any, **kwargs: Any) -> Any:
        """The function itself, uncompiled (``fad.disable_jit``)."""
        return self.fun(*args, **kwargs)

    def call_narrowed(self, *args: Any, **kwargs: Any) -> Any:
        """A call in float32 mode: 64-bit arrays among the arguments become 32-bit."""
        args, kwargs = tree_map(x64.narrow, (args, kwargs))
        return self.call_compiled(*args, **kwargs)

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        """A jitted function in a class body is a method: ``self`` is bound as its
        first argument, static (hashed into the cache key, one trace per instance)
        or, for a registered pytree class, a pytree argument."""
        if obj is None:
            return self
        if 0 in self.static_argnums or node_rule(obj, None)[0] is not None:
            return functools.partial(self, obj)
        if not _hashable(obj):
            name = getattr(self.fun, "__qualname__", "method")
            raise TypeError(
                f"jitted method {name}: its self, a {type(obj).__name__}, is not hashable, "
                "so it cannot be a static argument. Define __hash__ and __eq__ on the "
                "class, or register it as a pytree (fad.tree.register_pytree_node), or "
                "jit a function that takes the arrays it needs")
        method = self._method
        if method is None:
            method = self._method = Jitted(self.fun, (0,) + self.static_argnums)
        return functools.partial(method, obj)

    def _with_keywords(self, args: tuple, kwargs: dict) -> tuple:
        """Keyword arguments travel as a trailing dict; with static arguments, those
        given by keyword move to their positions first (so that they are static)."""
        if self.static_argnums:  # (defaults too: a static parameter left to its own)
            try:
                args, kwargs = as_positional(self.fun, args, kwargs)
            except TypeError:  # a call the signature rejects: the function will say so
                pass
        return args + (_Kwargs(kwargs),) if kwargs else args

    @property
    def trace_count(self) -> int:
        """How many times the function was traced (one per new signature)."""
        return self._cache.traces

    def lower(self, *args: Any, **kwargs: Any) -> ClosedJaxpr:
        """The optimised IR this function runs for ``args``."""
        return self._entry(self._with_keywords(args, kwargs) if kwargs else args)[0]

    def source(self, *args: Any, **kwargs: Any) -> str:
        """The generated Python code this function runs for ``args``."""
        closed, _, _, leaves = self._entry(self._with_keywords(args, kwargs) if kwargs
                                           else args)
        return _compiled(closed, namespace_of(leaves)).source


def select_call() -> None:
    """Bind ``Jitted.__call__`` for the current modes (``disable_jit``, float32
    mode): the compiled call of the default mode checks neither."""
    Jitted.__call__ = (Jitted.call_eagerly if Jitted.eager_depth else  # type: ignore
                       Jitted.call_compiled if x64.ENABLED else Jitted.call_narrowed)


x64.on_change(select_call)


def _static_hint(jitted: Jitted, value: Any, inputs: list, tree: Any, args: tuple) -> str:
    """Which argument of the jitted function a traced value that had to be
    concrete comes from, and how to make it static ("" when it is not known)."""
    found = inputs_behind(value, inputs)
    if found is None:
        return ""
    fun = jitted.fun
    name = getattr(fun, "__name__", "the function")
    if not found:
        return (f"\nThat value is computed inside {name} from no argument: compute it "
                "with Python ints or NumPy instead of fad.numpy.")
    # leaf -> argument: the dynamic arguments are the children of ``tree``, in order
    dyn = [i for i in range(len(args))
           if i not in jitted._static_positions(_n_positional(args))]
    starts, n = [], 0
    for child in tree.children:
        starts.append(n)
        n += child.num_leaves
    described, names, nums, stuck = [], [], [], []
    for leaf in found:
        j = max(k for k, s in enumerate(starts) if s <= leaf)
        pos, arg = dyn[j], args[dyn[j]]
        if isinstance(arg, _Kwargs):  # keyword arguments: one leaf group per key
            key, m = None, starts[j]
            for key, child in zip(tree.children[j].aux, tree.children[j].children):
                if m + child.num_leaves > leaf:
                    break
                m += child.num_leaves
            text, param, pos = f"keyword argument {key!r}", key, None
        else:
            param = parameter_name(fun, pos)
            text = f"argument {param!r} (position {pos})" if param else f"argument {pos}"
        if text in described:
            continue
        described.append(text)
        if param is not None and not positional_parameter(fun, param):
            stuck.append(param)  # keyword-only: jit cannot make it static
        else:
            names.append(param)
            nums.append(pos)
    which = f"{' and '.join(described)} of {name}"
    verb = "is" if len(found) == 1 and any(_wraps(value, t) for t in inputs) \
        else "is computed from"
    note = (f" (keyword-only {' and '.join(map(repr, stuck))} cannot be static: make "
            "it a positional parameter)") if stuck else ""
    if not names:
        return f"\nThat value {verb} {which}{note}."
    one = lambda xs: repr(xs[0]) if len(xs) == 1 else repr(tuple(xs))
    unnamed = [n for p, n in zip(names, nums) if p is None]
    named = [p for p in names if p is not None]
    fix = ", ".join(([f"static_argnums={one(unnamed)}"] if unnamed else []) +
                    ([f"static_argnames={one(named)}"] if named else []))
    alt = f" (or static_argnums={one(nums)})" if not unnamed and None not in nums else ""
    f = name if name.isidentifier() else "f"
    return (f"\nThat value {verb} {which}: fad.jit({f}, {fix}){alt} makes it a Python "
            f"value while tracing (one trace per value){note}.")


def _n_positional(args: tuple) -> int:
    return len(args) - (1 if args and isinstance(args[-1], _Kwargs) else 0)


def _hashable(x: Any) -> bool:
    try:
        hash(x)
        return True
    except TypeError:
        return False


def _numpy_signature(args: tuple) -> tuple | None:
    """``((shape, dtype), ...)`` when every argument is a NumPy array, else None."""
    for a in args:
        if type(a) is not np.ndarray:
            return None
    return tuple([(a.shape, a.dtype) for a in args])


def jit(fun: Callable, static_argnums: int | Sequence[int] = (),
        static_argnames: str | Sequence[str] = ()) -> Jitted:
    """Compile ``fun``: trace once per signature, optimise, generate code, cache.
    ``static_argnames`` names parameters to treat as static (as their positions
    in ``static_argnums`` would), however they are passed.

    >>> import fad, fad.numpy as fnp
    >>> f = fad.jit(lambda x: fnp.sum(fnp.sin(x) ** 2))
    >>> round(float(f(fnp.ones(3))), 6), f.trace_count
    (2.12422, 1)
    >>> _ = f(fnp.zeros(3)); f.trace_count        # same signature: no retrace
    1
    >>> g = fad.jit(lambda x, n=2: x ** n, static_argnames="n")
    >>> float(g(3.0)), float(g(3.0, n=3))
    (9.0, 27.0)
    """
    require_callable(fun, "fad.jit")
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    names = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames)
    if names:
        sig = signature(fun)
        params = list(sig.parameters.values()) if sig is not None else []
        for name in names:
            pos = next((i for i, p in enumerate(params) if p.name == name and p.kind in
                        (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)), None)
            if pos is None:
                raise ValueError(f"static_argnames: {name!r} is not a positional "
                                 f"parameter of {getattr(fun, '__name__', 'the function')}")
            static += (pos,)
    return Jitted(fun, static)
