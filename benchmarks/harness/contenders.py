"""Builders of the usual contenders: ``fad.grad`` called directly or under
``fad.jit``, HIPS autograd, the same PyTorch source run on torch and on the
fad.torch facade, ``torch.func`` transformations."""

from __future__ import annotations

from typing import Any, Callable

import fad

from .libs import FAD_TORCH_ERROR, autograd, fad_torch, missing, torch
from .model import Contender, guarded


def tree_map(f: Callable, tree: Any) -> Any:
    """Map over dict / list / tuple containers (dict keys sorted, as fad and JAX do)."""
    if isinstance(tree, dict):
        return {k: tree_map(f, tree[k]) for k in sorted(tree)}
    if isinstance(tree, list | tuple):
        return type(tree)(tree_map(f, t) for t in tree)
    return f(tree)


def leaves(tree: Any) -> list:
    out: list = []
    tree_map(out.append, tree)
    return out


def fad_contender(name: str, grad_fn: Callable, *args: Any) -> Contender:
    return Contender(name, lambda: grad_fn(*args))


def jit_contender(name: str, fn: Callable, *args: Any) -> Contender:
    """``j = fad.jit(fn)`` built once; ``j(*args)`` per call.  The first call
    (the gradient check, before any timing) traces, optimises and compiles; its
    time is reported in the note column, the timed calls run the cached program."""
    return guarded(name, lambda: _bind_args(fad.jit(fn), args), compiles=True)


def _bind_args(fn: Callable, args: tuple) -> Callable[[], Any]:
    return lambda: fn(*args)


def autograd_contender(build: Callable[[], Callable[[], Any]]) -> Contender:
    """``build()`` returns the zero-argument gradient call (only run if autograd exists)."""
    if autograd is None:
        return Contender("autograd", None, skip=missing(autograd, "autograd"))
    return Contender("autograd", build())


def autograd_call(loss: Callable, *args: Any) -> Callable[[], Any]:
    """``g = autograd.grad(loss)`` built once; ``g(*args)`` per call."""
    g = autograd.grad(loss)
    return lambda: g(*args)


def torchlike_contender(T: Any, name: str, loss: Callable, params: Any, *consts: Any,
                        skip: str = "") -> Contender:
    """``loss(T, params, *consts).backward()`` with ``T`` torch or the fad.torch facade.

    The same source runs on both: leaves are created with ``T.tensor(...,
    requires_grad=True)``, ``.grad`` is reset to None before each step (what
    ``optimizer.zero_grad()`` does) and read after ``backward()``.
    """
    if T is None:
        return Contender(name, None, tracemalloc=False, skip=skip)
    return guarded(name, lambda: torchlike_step(T, loss, params, *consts),
                   tracemalloc=T is not torch)


def torchlike_step(T: Any, loss: Callable, params: Any, *consts: Any) -> Callable[[], Any]:
    p = tree_map(lambda a: T.tensor(a, requires_grad=True), params)
    c = [T.tensor(a) for a in consts]
    ps = leaves(p)

    def step() -> Any:
        for t in ps:
            t.grad = None
        loss(T, p, *c).backward()
        return tree_map(lambda t: t.grad, p)

    return step


def facade_contender(loss: Callable, params: Any, *consts: Any) -> Contender:
    """The same torch code run with ``import fad.torch as torch`` (skipped if absent)."""
    return torchlike_contender(fad_torch, "fad.torch", loss, params, *consts,
                               skip=FAD_TORCH_ERROR)


def torch_contender(loss: Callable, params: Any, *consts: Any) -> Contender:
    return torchlike_contender(torch, "torch", loss, params, *consts,
                               skip=missing(torch, "torch"))


def torch_func_contender(build: Callable[[], Callable[[], Any]]) -> Contender:
    """A ``torch.func`` transformation (vmap, grad, jacrev): ``build()`` returns the
    zero-argument call; skipped without torch."""
    if torch is None:
        return Contender("torch.func", None, tracemalloc=False, skip=missing(torch, "torch"))
    return guarded("torch.func", build, tracemalloc=False)
