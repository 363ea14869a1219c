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

from typing import Any, Callable

from ...core.trace import bind
from ...transforms.custom import checkpoint_p
from ...tree import tree_flatten, tree_unflatten
from .._captures import captured_tensors, refuse_uncaptured, substituted
from .._creation import default_generator
from .._recorder import Op, apply
from ..func import _unwrap
from ..tensor import Tensor, wrap

__all__ = ["checkpoint", "checkpoint_sequential"]


def checkpoint(function: Callable, *args: Any, use_reentrant: bool | None = None,
               context_fn: Any = None, determinism_check: str = "default",
               debug: bool = False, preserve_rng_state: bool = True, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)``, its intermediates recomputed during backward
    (``function`` runs twice: forward, and again in the backward pass). Gradients
    reach the arguments and the tensors ``function`` closes over (a module's
    parameters, tensors in closure cells or globals: ``captured_tensors``).
    ``preserve_rng_state``: the recomputation draws the same random numbers as the
    forward (the same dropout masks), as PyTorch's.

    >>> import fad.torch as torch
    >>> from fad.torch.utils.checkpoint import checkpoint
    >>> lin = torch.nn.Linear(2, 2)
    >>> checkpoint(lin, torch.ones(1, 2), use_reentrant=False).shape
    torch.Size([1, 2])
    """
    if context_fn is not None:
        raise NotImplementedError("checkpoint: context_fn is not supported")
    captured = captured_tensors(function)
    flat, tree = tree_flatten((args, kwargs))
    slots = [i for i, x in enumerate(flat) if isinstance(x, Tensor)]
    n = len(slots)
    out_tree: list = []
    bits = default_generator.rng.bit_generator
    rng = [bits.state] if preserve_rng_state else None  # the state the forward starts at

    def body(*arrays: Any) -> list:
        leaves = list(flat)
        for i, a in zip(slots, arrays[:n]):
            leaves[i] = wrap(a)
        a_, kw = tree_unflatten(tree, leaves)
        replay = rng is not None and bool(out_tree)  # a recomputation
        if replay:
            now, bits.state = bits.state, rng[0]
        try:
            with substituted(captured, arrays[n:]):
                out = function(*a_, **kw)
        finally:
            if replay:
                bits.state = now
        outs, td = tree_flatten(out)
        refuse_uncaptured(outs, "checkpoint")
        out_tree[:] = [td]
        return [_unwrap(o) for o in outs]

    res = apply(_CHECKPOINT, tuple(flat[i] for i in slots) + tuple(captured), {"fun": body})
    return tree_unflatten(out_tree[0], list(res))


def _remat(*arrays: Any, fun: Callable) -> list:
    """``fun(*arrays)``, rematerialised by fad's reverse mode (``fad.checkpoint``'s
    primitive: ``fun`` runs once forward and once more in the backward pass)."""
    return bind(checkpoint_p, *arrays, fun=fun, name="checkpoint")


_CHECKPOINT = Op("checkpoint", _remat, "CheckpointFunctionBackward", None, True, multi=True)


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
