"""The checks of ``fad.lax``'s programs: a loop's carry keeps its structure,
shapes and dtypes (``Carry``), predicates and bounds are scalars of the right
kind (``scalar``), ``scan``'s ``xs`` share one leading length (``scan_length``).

Every check runs on shapes and dtypes only, before or while a body is traced,
so that a program is accepted or rejected alike eagerly, under jit, grad and
vmap. Eagerly a loop checks its first step (a body that keeps its carry's
types on one step keeps them on every step: its output types are a function
of its input types), or traces the body abstractly when there is no step."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...backends import asarray, is_array
from ...core.errors import ConcretizationError
from ...core.ir import ClosedJaxpr
from ...core.trace import Tracer, aval_of, concrete_or_none
from ...tree import PyTreeDef, _NamedTuple, child_keys, tree_flatten, treedef_leaf_paths
from ..arguments import parameter_name
from ..leaves import leaf_array
from ..programs import avals_of, trace_program

WEAK = (int, float, complex)  # weakly typed Python scalars (a bool is a bool, as in JAX)


def describe(td: PyTreeDef) -> str:
    """How a structure is said in messages: ``a dict with keys [...]``."""
    if td.node is None:
        return "an array"
    if td.node is type(None):
        return "None"
    if td.node is dict:
        return f"a dict with keys {list(td.aux)}"
    if td.node is _NamedTuple:
        return f"a {td.aux.__name__}"
    if td.node in (tuple, list):
        return f"a {td.node.__name__} of {len(td.children)}"
    return f"a {td.node.__name__}"


def structure_difference(a: PyTreeDef, b: PyTreeDef, prefix: str, names: tuple[str, str]
                         ) -> str:
    """Where two different pytree structures first differ, and how."""
    while a.node is b.node and a.aux == b.aux and len(a.children) == len(b.children):
        for key, ca, cb in zip(child_keys(a), a.children, b.children):
            if ca != cb:
                a, b, prefix = ca, cb, prefix + key
                break
        else:  # equal structures (not reached for different ones)
            break
    return f"{prefix} is {describe(a)} {names[0]} but {describe(b)} {names[1]}"


def type_differences(paths: list[str], left: list, right: list,
                     say: Callable[[str, str, str], str]) -> str:
    """``say(path, left type, right type) (the dtypes differ)`` for each leaf whose
    shape or dtype differs, joined by ``;``."""
    out = []
    for path, a, b in zip(paths, left, right):
        if a != b:
            what = " and ".join(w for w, d in (("shapes", a.shape != b.shape),
                                               ("dtypes", a.dtype != b.dtype)) if d)
            out.append(f"{say(path, a.str_short(), b.str_short())} (the {what} differ)")
    return "; ".join(out)


def param_name(fun: Callable, k: int) -> str:
    """The name of ``fun``'s ``k``-th positional parameter, else ``carry``."""
    return parameter_name(fun, k) or "carry"


class Carry:
    """A loop's carry: the leaves of its current value, its structure, and its
    weakly typed leaves (Python scalars of ``init``).

    As in JAX, a weakly typed leaf takes the dtype the body gives it (an init
    ``0`` of a body that adds a float becomes ``0.0``): ``settle`` converts it
    and the loop starts again. It starts as a 64-bit array, as every Python
    scalar fad converts, so ``0`` plus float32 data is float64 here (JAX keeps
    float32): write ``np.float32(0)`` for a float32 carry. Any other change of
    structure, shape or dtype is a ``TypeError`` naming the leaf and both types."""

    def __init__(self, init: Any, where: str, name: Callable[[], str],
                 indexed: bool = False):
        leaves, self.tree = tree_flatten(init)
        self.weak = [x if type(x) in WEAK else None for x in leaves]
        self.leaves = [leaf_array(x) for x in leaves]
        self.where = where  # "fad.lax.scan's body"
        self.name = name    # the carry's name in the user's code, asked for on errors
        self.indexed = indexed  # init is (loop index, the user's value): fori_loop's

    def paths(self) -> list[str]:
        if self.indexed:
            return ["the loop index"] + treedef_leaf_paths(self.tree.children[1], self.name())
        return treedef_leaf_paths(self.tree, self.name())

    def flatten(self, new: Any) -> list:
        """The leaves of the body's new carry, once its structure is checked."""
        leaves, tree = tree_flatten(new)
        if tree != self.tree:
            raise TypeError(
                f"{self.where} must return its carry with the structure it receives, "
                "but " + structure_difference(self.tree, tree, self.name(),
                                               ("in the input", "in the output"))
                + f" (input {self.tree}, output {tree}). Return the new carry in the "
                "same containers as the initial value.")
        return [leaf_array(x) for x in leaves]

    def settle(self, out_avals: list) -> bool:
        """Check the body's carry output types against the carry's own; True when
        a weakly typed leaf was converted (the caller starts the loop again)."""
        in_avals = avals_of(self.leaves)
        if in_avals == out_avals:
            return False
        leaves, changed = list(self.leaves), False
        for k, (w, a, b) in enumerate(zip(self.weak, in_avals, out_avals)):
            if w is not None and a.dtype != b.dtype:
                leaves[k] = asarray(w, np.result_type(b.dtype, w))
                changed = True
        self.weak = [None] * len(self.weak)
        if changed:  # (a new list: loops tell a restart by identity)
            self.leaves = leaves
            return True
        raise TypeError(
            f"{self.where} must return its carry with the shapes and dtypes it "
            "receives, but "
            + type_differences(self.paths(), in_avals, out_avals,
                               lambda p, a, b: f"{p} goes in as {a} and comes out as {b}")
            + ". Keep each carry leaf's shape and dtype in the body (for example "
            "new.astype(old.dtype)), or start from an initial value of the types the "
            "body returns.")

    def settle_abstractly(self, body: Callable, extra_avals: list, label: str) -> ClosedJaxpr:
        """Trace ``body`` at the carry's types (plus ``extra_avals``), settling the
        carry's types first; the trace of the settled carry."""
        while True:
            closed = trace_program(body, avals_of(self.leaves) + extra_avals, label)
            if not self.settle(closed.out_avals[:len(self.leaves)]):
                return closed


def scalar(x: Any, what: str, kinds: str, fix: str) -> Any:
    """``x`` as a 0-d array or tracer of a dtype kind in ``kinds``, else a TypeError
    saying ``what`` it must be and naming what it is."""
    if not isinstance(x, bool | int | float | complex | np.generic | Tracer) and not \
            is_array(x) and not hasattr(x, "__fad_array__"):
        raise TypeError(f"{what}, got {type(x).__name__} {x!r:.60}. {fix}")
    x = leaf_array(x)
    a = aval_of(x)
    if a.shape != () or a.dtype.kind not in kinds:
        raise TypeError(f"{what}, got {a.str_short()}. {fix}")
    return x


def scan_length(x_leaves: list, x_tree: PyTreeDef, length: Any) -> int:
    """The number of steps: every leaf of ``xs`` has it as its leading length."""
    lengths = []
    for k, x in enumerate(x_leaves):
        shape = aval_of(x).shape
        if not shape:
            path = treedef_leaf_paths(x_tree, "xs")[k]
            raise ValueError(
                f"fad.lax.scan scans over the leading axis of xs, but {path} is a 0-d "
                f"value ({aval_of(x).str_short()}) with no leading axis. Give it a "
                "leading axis with one entry per step, or let the body close over it.")
        lengths.append(shape[0])
    if length is not None:
        n = static_int(length)
        bad = [k for k, m in enumerate(lengths) if m != n]
        if bad:
            k = bad[0]
            which = "xs" if len(lengths) == 1 else treedef_leaf_paths(x_tree, "xs")[k]
            raise ValueError(
                f"fad.lax.scan got length={n} but {which} has leading length "
                f"{lengths[k]}. length must equal the leading length of every leaf of "
                "xs: drop it, or slice xs to the steps wanted.")
        return n
    if not lengths:
        raise ValueError("fad.lax.scan needs xs or length: with no arrays to scan over "
                         "(xs=None), pass length=, the number of steps.")
    if len(set(lengths)) > 1:
        paths = treedef_leaf_paths(x_tree, "xs")
        raise ValueError(
            "fad.lax.scan's xs must all have the same leading length (one entry per "
            "step), but " + ", ".join(f"{p} has {m}" for p, m in zip(paths, lengths))
            + ". Slice or pad them to one length.")
    return lengths[0]


def static_int(length: Any) -> int:
    if isinstance(length, Tracer):
        value = concrete_or_none(length)
        if value is None:
            raise ConcretizationError(
                "fad.lax.scan's length must be a concrete int, but it is traced "
                f"({length.aval.str_short()}): the number of steps fixes the shapes "
                "of ys. Pass a Python int (mark it static with static_argnums under "
                "fad.jit).")
        length = value
    if isinstance(length, bool) or np.ndim(length) != 0 or \
            np.asarray(length).dtype.kind not in "iu":
        raise TypeError(f"fad.lax.scan's length must be an int, got "
                        f"{type(length).__name__} {length!r:.40}")
    n = int(length)
    if n < 0:
        raise ValueError(f"fad.lax.scan's length must be >= 0, got {n}")
    return n
