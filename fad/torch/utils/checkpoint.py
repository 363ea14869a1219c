"""``torch.utils.checkpoint``: activation checkpointing on ``fad.checkpoint``.

The checkpointed function becomes one recorded operation whose backward
recomputes its intermediates (fad's rematerialisation) instead of keeping them.

>>> import fad.torch as torch
>>> from fad.torch.utils.checkpoint import checkpoint
>>> x = torch.tensor([1.0, 2.0], requires_grad=True)
>>> y = checkpoint(lambda t: t.sin().sin(), x, use_reentrant=False)
>>> y.sum().backward()
>>> x.grad.allclose(x.sin().cos() * x.cos())
True
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any, Callable

from ...transforms.custom import checkpoint as fad_checkpoint
from ...tree import tree_flatten, tree_unflatten
from .._recorder import Op, apply
from ..func import _swapped, _unwrap
from ..tensor import Tensor, wrap

__all__ = ["checkpoint", "checkpoint_sequential"]


def _module_of(fn: Callable) -> Any:
    """The module whose parameters ``fn`` reads: ``fn`` itself or the owner of a
    bound method (``None`` for other callables)."""
    owner = getattr(fn, "__self__", fn)
    return owner if hasattr(owner, "named_parameters") else None


def checkpoint(function: Callable, *args: Any, use_reentrant: bool | None = None,
               context_fn: Any = None, determinism_check: str = "default",
               debug: bool = False, preserve_rng_state: bool = True, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)``, its intermediates recomputed during backward.
    Tensors that require grad must reach ``function`` as arguments or, when
    ``function`` is a module (or one of its methods), as its parameters.

    >>> import fad.torch as torch
    >>> from fad.torch.utils.checkpoint import checkpoint
    >>> lin = torch.nn.Linear(2, 2)
    >>> checkpoint(lin, torch.ones(1, 2), use_reentrant=False).shape
    torch.Size([1, 2])
    """
    module = _module_of(function)
    named = [(k, p) for k, p in module.named_parameters()] if module is not None else []
    flat, tree = tree_flatten((args, kwargs))
    slots = [i for i, x in enumerate(flat) if isinstance(x, Tensor)]
    out_tree: list = []

    def body(*arrays: Any) -> list:
        leaves = list(flat)
        for i, a in zip(slots, arrays[:len(slots)]):
            leaves[i] = wrap(a)
        a_, kw = tree_unflatten(tree, leaves)
        params = {k: wrap(a) for (k, _), a in zip(named, arrays[len(slots):])}
        with _swapped(module, params) if module is not None else nullcontext():
            out = function(*a_, **kw)
        outs, td = tree_flatten(out)
        if any(isinstance(o, Tensor) and o._requires_grad for o in outs):
            raise RuntimeError("checkpoint: the function used a tensor that requires grad "
                               "and is neither an argument nor a parameter of the "
                               "checkpointed module; pass it as an argument")
        out_tree[:] = [td]
        return [_unwrap(o) for o in outs]

    op = Op("checkpoint", fad_checkpoint(body), "CheckpointFunctionBackward", None, True,
            multi=True)
    res = apply(op, tuple(flat[i] for i in slots) + tuple(p for _, p in named))
    return tree_unflatten(out_tree[0], list(res))


def checkpoint_sequential(functions: Any, segments: int, input: Tensor, *,
                          use_reentrant: bool | None = None, **kwargs: Any) -> Tensor:
    """Run the modules of ``functions`` (a ``Sequential`` or a list), each one
    checkpointed (``segments`` is accepted; every module is its own segment).

    >>> import fad.torch as torch
    >>> from fad.torch.utils.checkpoint import checkpoint_sequential
    >>> net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh())
    >>> checkpoint_sequential(net, 2, torch.ones(1, 2)).shape
    torch.Size([1, 2])
    """
    fs = list(functions.children()) if hasattr(functions, "children") else list(functions)
    for f in fs:
        input = checkpoint(f, input, use_reentrant=use_reentrant)
    return input
