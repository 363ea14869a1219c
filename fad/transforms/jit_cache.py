"""The per-function cache of ``fad.jit``: bounded, least recently used out first,
and a warning that explains re-tracing.

A jitted function is traced once per *signature*: the pytree structure of its
arguments, the shape and dtype of each array (a Python number traces as a 64-bit
array), and the value of each static argument. Two settings, read when a
function is traced:

* ``MAX_ENTRIES`` (64): signatures kept per jitted function; a new one beyond
  that evicts the least recently called.
* ``RETRACE_WARNING_AFTER`` (8): a function traced more often than this warns
  once (``RetraceWarning``), naming what changed since the closest earlier
  signature and how to avoid it. Set it to a large number to silence the warning.

>>> import warnings, fad, fad.numpy as fnp
>>> f = fad.jit(lambda x: fnp.sum(x))
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     for n in range(1, 11):
...         _ = f(fnp.ones(n))
>>> f.trace_count, len(caught), caught[0].category.__name__
(10, 1, 'RetraceWarning')
>>> "because argument 0 (x) changed shape: f64[8] -> f64[9]" in str(caught[0].message)
True
"""

from __future__ import annotations

import itertools
import sys
import warnings
from typing import Any, Callable, NamedTuple

from ..core.errors import FAD_DIR
from ..core.trace import aval_of
from ..tree import tree_flatten, tree_leaf_paths
from .arguments import parameter_name

MAX_ENTRIES = 64
RETRACE_WARNING_AFTER = 8

_HISTORY = 64  # signatures remembered to explain a re-trace
_TICK = itertools.count()  # the clock of "recently used"
_PY_NUMBERS = (bool, int, float, complex)


class RetraceWarning(UserWarning):
    """A jitted function was traced more than ``RETRACE_WARNING_AFTER`` times:
    every new signature is a full trace and compilation."""


class SignatureCache:
    """Programs of one jitted function by signature, at most ``MAX_ENTRIES``.

    ``fast`` maps a signature of NumPy arrays only to ``[code, out_tree, used,
    entry]``: the jitted call's fast path reads it directly and only sets
    ``used`` (a store, so that the cached call costs what it did); the next
    miss dates those uses on its ``entry``. The least recently used signature
    goes first (uses through the fast path count from the miss that dated them).

    >>> cache = SignatureCache()
    >>> cache.put(("f64[3]",), ("program", "out_tree"))
    >>> cache.get(("f64[3]",)), cache.get(("f64[4]",)), len(cache)
    (('program', 'out_tree'), None, 1)
    """

    __slots__ = ("entries", "fast", "history", "warned", "traces")

    def __init__(self) -> None:
        self.entries: dict = {}  # signature -> entry: [(program, out_tree), last use]
        self.fast: dict = {}
        self.history: list = []  # (description, lifted) of earlier traces
        self.warned = False
        self.traces = 0  # traces of the function, stored or not (``Jitted.trace_count``)

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, key: Any) -> Any:
        hit = self.entries.get(key)
        if hit is None:
            return None
        hit[1] = next(_TICK)
        return hit[0]

    def put(self, key: Any, value: tuple) -> None:
        """Cache ``value`` (``(program, out_tree)``) for ``key``, evicting the least
        recently used signatures beyond ``MAX_ENTRIES``."""
        now = next(_TICK)
        for f in list(self.fast.values()):  # (a copy: another thread may be filling it)
            if f[2]:
                f[2] = False
                f[3][1] = now
        while self.entries and len(self.entries) >= max(1, MAX_ENTRIES):
            self._evict()
        entry = [value, next(_TICK)]
        # one statement: a trace is counted when its entry is stored, never apart
        self.entries[key], self.traces = entry, self.traces + 1

    def put_fast(self, key: Any, code: Callable, out_tree: Any, program: Any) -> None:
        """Make the NumPy signature ``key`` run ``code`` directly (the compiled
        ``program``, cached by ``put``)."""
        for entry in list(self.entries.values()):
            if entry[0][0] is program:
                self.fast[key] = [code, out_tree, False, entry]
                return

    def _evict(self) -> None:
        victim, entry = min(list(self.entries.items()), key=lambda item: item[1][1])
        self.entries.pop(victim, None)
        for k, f in list(self.fast.items()):
            if f[3] is entry:
                self.fast.pop(k, None)

    def traced(self, fun: Callable, count: int, positional: tuple, keywords: dict,
               static: tuple, leaves: list, lifted: bool) -> None:
        """Note a trace (``count``-th) of ``fun`` for these arguments (``leaves``:
        the dynamic ones, flattened); past ``RETRACE_WARNING_AFTER``, warn once."""
        if self.warned:
            return
        new = _describe(positional, keywords, static, leaves)
        if count > RETRACE_WARNING_AFTER:
            self.warned = True
            message = _message(fun, count, new, lifted, self.history)
            self.history = []
            warnings.warn(message, RetraceWarning, stacklevel=_user_stacklevel())
            return
        self.history.append((new, lifted))
        del self.history[:-_HISTORY]


# ---------------------------------------------------------------- explanations
class _Part(NamedTuple):
    """What one argument (or one leaf of it) was at a trace; ``text`` renders it
    (only when a warning is written)."""

    kind: str  # "array", "number" (a Python number), "static", "structure"
    aval: Any = None  # array, number: the abstract value traced
    key: Any = None  # static: the value's hash; structure: the pytree structure
    label: str = ""  # number: its Python type; static: its short repr

    @property
    def text(self) -> str:
        if self.kind == "array":
            return self.aval.str_short()
        if self.kind == "number":
            return f"a Python {self.label} (traced as {self.aval.str_short()})"
        return self.label if self.kind == "static" else repr(self.key)


def _describe(positional: tuple, keywords: dict, static: tuple, leaves: list
              ) -> dict[str, _Part]:
    """``{where: what}`` for every argument and pytree leaf of a call."""
    out: dict[str, _Part] = {}
    it = iter(leaves)
    for i, a in enumerate(positional):
        if i in static:
            text = repr(a)
            text = text if len(text) <= 40 else text[:37] + "..."
            out[f"argument {i}"] = _Part("static", key=hash((type(a), a)),
                                         label=f"{text} ({type(a).__name__})")
        else:
            _describe_tree(out, f"argument {i}", a, it)
    for k in sorted(keywords):
        _describe_tree(out, f"keyword argument {k}", keywords[k], it)
    return out


def _describe_tree(out: dict, where: str, value: Any, leaves: Any) -> None:
    originals, tree = tree_flatten(value)
    paths = [where]
    if tree.node is not None:
        out[where] = _Part("structure", key=tree)
        paths = tree_leaf_paths(value, where)
    for path, orig in zip(paths, originals):
        aval = aval_of(next(leaves))
        if type(orig) in _PY_NUMBERS:
            out[path] = _Part("number", aval, label=type(orig).__name__)
        else:
            out[path] = _Part("array", aval)


def _named(where: str, fun: Callable) -> str:
    """``argument 0['w']`` as ``argument 0 (params)['w']``, from ``fun``'s signature."""
    if not where.startswith("argument "):
        return where
    head, rest = where, ""
    for i, ch in enumerate(where):
        if ch in "[<":
            head, rest = where[:i], where[i:]
            break
    name = parameter_name(fun, int(head.split()[1]))
    return f"{head} ({name}){rest}" if name else where


def _differences(old: dict, new: dict) -> list[tuple[str, Any, Any]]:
    """``(where, before, now)`` for each argument or leaf that differs (a leaf under a
    changed structure is not listed: the structure is)."""
    moved = [w for w in {**old, **new} if "structure" in (getattr(old.get(w), "kind", ""),
                                                          getattr(new.get(w), "kind", ""))
             and old.get(w) != new.get(w)]

    def under(w: str) -> bool:
        return any(w.startswith(m + "[") or w.startswith(m + "<") for m in moved)
    return [(w, old.get(w), new.get(w)) for w in {**old, **new}
            if old.get(w) != new.get(w) and not under(w)]


def _change(where: str, before: _Part | None, now: _Part | None) -> tuple[str, str]:
    """The change in words, and the advice that avoids it."""
    if before is None or now is None:
        return (f"{where} ({(now or before).text}) is {'new' if before is None else 'gone'}",
                "call the function with the same arguments and keywords each time")
    if "static" in (before.kind, now.kind):
        return (f"static {where} changed: {before.text} -> {now.text}",
                "a static argument is traced anew for each value: if it takes many values, "
                "do not mark it static (pass it as an array)")
    if "structure" in (before.kind, now.kind):
        return (f"{where} changed pytree structure: {before.text} -> {now.text}",
                "keep the structure of the arguments fixed (the same keys, lengths "
                "and nesting)")
    if "number" in (before.kind, now.kind):
        return (f"{where} changed: {before.text} -> {now.text}",
                "pass arrays of one dtype (np.float32(v), np.asarray(v)) instead of "
                "Python numbers, whose dtype follows their Python type")
    if before.aval.dtype != now.aval.dtype:
        what = "dtype" if before.aval.shape == now.aval.shape else "shape and dtype"
        return (f"{where} changed {what}: {before.text} -> {now.text}",
                "cast the arguments to one dtype before the call")
    return (f"{where} changed shape: {before.text} -> {now.text}",
            "pad arrays to a few fixed shapes (buckets), so that calls share traces")


def _message(fun: Callable, count: int, new: dict, lifted: bool, history: list) -> str:
    name = getattr(fun, "__name__", "function")
    head = (f"fad.jit: {name} has been traced {count} times, each a full trace and "
            "compilation")
    tail = (f"(Warned once per function after {RETRACE_WARNING_AFTER} traces: "
            "fad.jit_cache.RETRACE_WARNING_AFTER.)")
    if lifted:
        return (f"{head}. This trace cannot be reused: {name} closes over a value traced "
                "by an enclosing transformation (such as the argument of grad), so it is "
                "traced at every call. Fix: pass that value as an argument. " + tail)
    if not history:
        return f"{head}. {tail}"
    diffs = min((_differences(old, new) for old, _ in reversed(history)), key=len)
    if not diffs:
        return (f"{head}. This trace repeats an earlier signature whose program was "
                f"evicted: the cache keeps the {MAX_ENTRIES} most recently used signatures "
                "per function. Fix: raise fad.jit_cache.MAX_ENTRIES. " + tail)
    changes = [_change(_named(w, fun), before, now) for w, before, now in diffs]
    more = f" (and {len(changes) - 3} more)" if len(changes) > 3 else ""
    reasons = "; ".join(c for c, _ in changes[:3]) + more
    advice = "; ".join(dict.fromkeys(a for _, a in changes[:3]))
    return (f"{head}. This trace is new because {reasons} (compared with the closest "
            f"earlier signature). Fix: {advice}. {tail}")


def _user_stacklevel() -> int:
    """The ``stacklevel`` of the innermost frame outside fad (the user's call)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(FAD_DIR):
        frame, level = frame.f_back, level + 1
    return level


__all__ = ["RetraceWarning", "MAX_ENTRIES", "RETRACE_WARNING_AFTER", "SignatureCache"]
