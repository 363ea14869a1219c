"""The tensors a function closes over, for the facade's function transforms
(``torch.func``, ``torch.vmap``) and ``torch.utils.checkpoint``: fad transforms a
function of arrays, so the tensors that require grad which the function reads
without receiving them as arguments (a tensor in a closure cell or a global, the
parameters of a module it calls) become extra inputs of the recorded operation,
and their gradients flow as PyTorch's do.

>>> import fad.torch as torch
>>> w = torch.ones(3, requires_grad=True)
>>> [t is w for t in captured_tensors(lambda x: x * w)]
[True]
"""

from __future__ import annotations

import contextlib
import types
from typing import Any, Callable, Iterator, Sequence

from .tensor import Tensor

__all__: list[str] = []

_MAX_DEPTH = 6
_MAX_ITEMS = 256


def captured_tensors(fn: Callable) -> list[Tensor]:
    """The tensors that require grad which ``fn`` can reach without arguments, in a
    fixed order: those in its closure cells and in the globals its code names (and
    its nested functions', recursively), the parameters of the modules among them
    (``fn`` itself, if a module, or the owner of a bound method), the items of the
    lists, tuples and dicts among them and the attributes of other objects."""
    found: dict[int, Tensor] = {}
    seen: set[int] = set()
    _scan(fn, 0, found, seen)
    return list(found.values())


def _scan(x: Any, depth: int, found: dict, seen: set) -> None:
    if depth > _MAX_DEPTH or id(x) in seen:
        return
    seen.add(id(x))
    if isinstance(x, Tensor):
        if x._requires_grad:
            found.setdefault(id(x), x)
        return
    if hasattr(x, "named_parameters") and hasattr(x, "parameters"):  # a module
        for p in x.parameters():
            if p._requires_grad:
                found.setdefault(id(p), p)
        _scan(type(x).__dict__.get("forward"), depth + 1, found, seen)
        return
    if isinstance(x, list | tuple):
        for item in x[:_MAX_ITEMS]:
            _scan(item, depth + 1, found, seen)
        return
    if isinstance(x, dict):
        for item in list(x.values())[:_MAX_ITEMS]:
            _scan(item, depth + 1, found, seen)
        return
    if isinstance(x, types.MethodType):
        _scan(x.__self__, depth + 1, found, seen)
        _scan(x.__func__, depth + 1, found, seen)
        return
    if isinstance(x, types.FunctionType):
        for cell in x.__closure__ or ():
            try:
                _scan(cell.cell_contents, depth + 1, found, seen)
            except ValueError:  # an empty cell
                continue
        g = x.__globals__
        for name in _global_names(x.__code__):
            if name in g:
                _scan(g[name], depth + 1, found, seen)
        for d in (x.__defaults__ or ()):
            _scan(d, depth + 1, found, seen)
        return
    if isinstance(x, type | types.ModuleType | types.BuiltinFunctionType):
        return
    func = getattr(x, "func", None)  # functools.partial
    if callable(func) and hasattr(x, "args"):
        _scan(func, depth + 1, found, seen)
        _scan(x.args, depth + 1, found, seen)
        _scan(getattr(x, "keywords", None) or {}, depth + 1, found, seen)
        return
    attrs = getattr(x, "__dict__", None)  # an object's attributes
    if isinstance(attrs, dict):
        _scan(attrs, depth + 1, found, seen)


def _global_names(code: types.CodeType) -> Iterator[str]:
    """The names ``code`` (and the code of the functions defined in it) may look up
    as globals."""
    yield from code.co_names
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _global_names(c)


@contextlib.contextmanager
def substituted(tensors: Sequence[Tensor], values: Sequence[Any]) -> Iterator[None]:
    """Each tensor of ``tensors`` holding the array (or tracer) of ``values``, as a
    constant (no ``grad_fn``, not requiring grad), for a while: the body of a
    transformation reads its captured tensors as the transformation's inputs."""
    saved = [(t._value, t._requires_grad, t._grad_fn, t._output_nr, t._base, t._cow)
             for t in tensors]
    try:
        for t, v in zip(tensors, values):
            t._value, t._requires_grad, t._grad_fn, t._base, t._cow = v, False, None, None, True
        yield
    finally:
        for t, s in zip(tensors, saved):
            t._value, t._requires_grad, t._grad_fn, t._output_nr, t._base, t._cow = s


class UncapturedError(RuntimeError):
    """A transformed function's output depends on a tensor that requires grad which
    was neither an argument nor one of the captured tensors."""


def refuse_uncaptured(outs: Sequence[Any], where: str) -> None:
    """Refuse outputs of a transformed function that still carry a ``grad_fn``: the
    function used a tensor that requires grad which was neither an argument nor
    found by ``captured_tensors``, and its gradient would be lost."""
    if any(isinstance(o, Tensor) and o._requires_grad for o in outs):
        raise UncapturedError(
            f"{where}: the function used a tensor that requires grad which is neither an "
            "argument nor found among the tensors, modules, containers and objects it "
            "refers to (closure or global); pass it as an argument")
