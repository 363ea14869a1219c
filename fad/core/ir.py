"""The IR: abstract values, variables, equations and jaxprs, and their printer.

Immutable data and nothing else: the IR knows no primitive's maths and no
transformation. It can be walked (``jaxpr.invars``, ``jaxpr.eqns``,
``eqn.primitive``, ``eqn.params``, ``jaxpr.outvars``) and printed in JAX's style.
"""

from __future__ import annotations

import itertools
from typing import Any, NamedTuple

import numpy as np

_SHORT_DTYPE = {
    "float16": "f16", "float32": "f32", "float64": "f64", "bfloat16": "bf16",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "complex64": "c64", "complex128": "c128", "bool": "bool",
}


def short_dtype(dtype: Any) -> str:
    """``float32`` -> ``f32``, as JAX prints types."""
    name = np.dtype(dtype).name
    return _SHORT_DTYPE.get(name, name)


class ShapedArray:
    """The abstract value of an array: its shape and dtype, nothing more."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: tuple[int, ...], dtype: Any):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)

    @classmethod
    def make(cls, shape: tuple[int, ...], dtype: np.dtype) -> "ShapedArray":
        """Fast constructor for an already-normalised tuple and ``np.dtype``."""
        aval = object.__new__(cls)
        aval.shape = shape
        aval.dtype = dtype
        return aval

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def str_short(self) -> str:
        return f"{short_dtype(self.dtype)}[{','.join(map(str, self.shape))}]"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ShapedArray) and self.shape == other.shape
                and self.dtype == other.dtype)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype))

    def __repr__(self) -> str:
        return f"ShapedArray({self.str_short()})"


class Var:
    """A variable of the IR; identity is the object itself."""

    __slots__ = ("aval", "__weakref__")

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self) -> str:
        return f"Var({self.aval.str_short()})"


class Literal:
    """A small constant written inline in the IR (a scalar)."""

    __slots__ = ("val", "aval")

    def __init__(self, val: Any, aval: ShapedArray):
        self.val = val
        self.aval = aval

    def __repr__(self) -> str:
        return f"Literal({self.val!r})"


Atom = Var | Literal


class Eqn(NamedTuple):
    """One equation: ``outvars = primitive[params] invars``.

    ``source`` is the user's ``file:line`` that produced it, when known.
    """

    primitive: Any
    invars: list[Atom]
    params: dict[str, Any]
    outvars: list[Var]
    source: str | None = None


class Jaxpr:
    """A typed program: ``constvars`` and ``invars`` in, ``eqns``, ``outvars`` out."""

    __slots__ = ("constvars", "invars", "eqns", "outvars")

    def __init__(self, constvars: list[Var], invars: list[Var], eqns: list[Eqn],
                 outvars: list[Atom]):
        self.constvars = list(constvars)
        self.invars = list(invars)
        self.eqns = list(eqns)
        self.outvars = list(outvars)

    def __str__(self) -> str:
        return pp_jaxpr(self)

    __repr__ = __str__


class ClosedJaxpr:
    """A ``Jaxpr`` together with the values of its ``constvars``.

    >>> import fad, fad.numpy as fnp
    >>> cj = fad.make_jaxpr(lambda x: fnp.sin(x) * 2.0)(1.0)
    >>> [e.primitive.name for e in cj.eqns]
    ['sin', 'mul']
    """

    __slots__ = ("jaxpr", "consts", "in_tree", "out_tree", "cache")

    def __init__(self, jaxpr: Jaxpr, consts: list[Any], in_tree: Any = None,
                 out_tree: Any = None):
        self.cache: dict = {}  # per-backend compiled code (fad.jit)
        self.jaxpr = jaxpr
        self.consts = list(consts)
        self.in_tree = in_tree
        self.out_tree = out_tree

    @property
    def eqns(self) -> list[Eqn]:
        return self.jaxpr.eqns

    @property
    def invars(self) -> list[Var]:
        return self.jaxpr.invars

    @property
    def outvars(self) -> list[Atom]:
        return self.jaxpr.outvars

    @property
    def in_avals(self) -> list[ShapedArray]:
        return [v.aval for v in self.jaxpr.invars]

    @property
    def out_avals(self) -> list[ShapedArray]:
        return [v.aval for v in self.jaxpr.outvars]

    def __str__(self) -> str:
        return pp_jaxpr(self.jaxpr)

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(str(self))


# ---------------------------------------------------------------- printing

def _names() -> Any:
    """a, b, ..., z, ba, bb, ... as JAX names its variables."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    for n in itertools.count(1):
        for combo in itertools.product(letters, repeat=n):
            if n > 1 and combo[0] == "a":
                continue
            yield "".join(combo)


def var_names(jaxpr: Jaxpr, skip: Any = (), start: int = 0) -> dict[Var, str]:
    """The name the printer gives each variable of ``jaxpr``, in the order it
    meets them: constants, inputs, each equation's outputs then inputs, outputs.
    Variables in ``skip`` get no name, and naming starts at the ``start``-th name
    (a program shown beside another can continue its names).

    >>> import fad
    >>> cj = fad.make_jaxpr(lambda x: x * 2.0)(1.0)
    >>> print(cj, var_names(cj.jaxpr) == {cj.jaxpr.invars[0]: "a", cj.jaxpr.outvars[0]: "b"})
    { lambda ; a:f64[]. let b:f64[] = mul a 2.0:f64[] in (b,) } True
    """
    gen = itertools.islice(_names(), start, None)
    names: dict[Var, str] = {}

    def see(v: Atom) -> None:
        if type(v) is not Literal and v not in names and v not in skip:
            names[v] = next(gen)

    for v in jaxpr.constvars:
        see(v)
    for v in jaxpr.invars:
        see(v)
    for eqn in jaxpr.eqns:
        for v in eqn.outvars:
            see(v)
        for v in eqn.invars:
            see(v)
    for v in jaxpr.outvars:
        see(v)
    return names


def literal_text(lit: Literal) -> str:
    """A literal's value as the printer writes it (``2.0``, ``True``, ``3``)."""
    kind = lit.aval.dtype.kind
    val = lit.val
    if kind == "b":
        return "True" if bool(val) else "False"
    if kind == "f":
        return repr(float(val))
    if kind == "c":
        return repr(complex(val))
    return repr(int(val))


def _pp_literal(lit: Literal) -> str:
    return f"{literal_text(lit)}:{lit.aval.str_short()}"


def pp_param(value: Any) -> str:
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value).name
    if isinstance(value, ClosedJaxpr | Jaxpr):
        return " ".join(str(value).split())
    if isinstance(value, str):
        return value
    return repr(value) if not hasattr(value, "pp") else value.pp()


def pp_jaxpr(jaxpr: Jaxpr, indent: int = 0) -> str:
    """Render ``jaxpr`` exactly as JAX prints one."""
    names = var_names(jaxpr)

    def name(atom: Atom) -> str:
        if isinstance(atom, Literal):
            return _pp_literal(atom)
        return names[atom]

    def binder(v: Var) -> str:
        return f"{name(v)}:{v.aval.str_short()}"

    pad = " " * indent
    consts = " ".join(binder(v) for v in jaxpr.constvars)
    ins = " ".join(binder(v) for v in jaxpr.invars)
    head = f"{{ lambda {consts}; {ins}. let"
    eqns = []
    for eqn in jaxpr.eqns:
        outs = " ".join(binder(v) for v in eqn.outvars)
        shown = [f"{k}={pp_param(v)}" for k, v in eqn.params.items()
                 if not callable(v) or isinstance(v, ClosedJaxpr | Jaxpr)]
        params = "[" + " ".join(shown) + "]" if shown else ""
        args = " ".join(name(a) for a in eqn.invars)
        lhs = f"{outs} = " if outs else ""  # (an effect: no outputs)
        eqns.append(f"{lhs}{eqn.primitive.name}{params} {args}".rstrip())
    outs = ", ".join(name(v) for v in jaxpr.outvars)
    tail = f"in ({outs}{',' if len(jaxpr.outvars) == 1 else ''}) }}"
    one_line = f"{head} {'; '.join(eqns)} {tail}"
    if len(pad) + len(one_line) <= 80:  # JAX's printer keeps a short program on one line
        return pad + one_line
    lines = [pad + head] + [f"{pad}    {e}" for e in eqns] + [f"{pad}  {tail}"]
    return "\n".join(lines)
