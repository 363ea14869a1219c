"""``fad.vmap``: vectorise a function over a batch axis of its inputs."""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from ..core.trace import shape_of
from ..interpreters.batching import vmap_flat
from ..primitives.builders import move_axis
from ..tree import sorted_keys, tree_flatten, tree_leaf_paths, tree_unflatten
from .arguments import call_label, require_callable
from .leaves import leaf_array, reject_masked


def _broadcast_prefix(prefix: Any, tree: Any, what: str) -> list:
    """Per-leaf values of a pytree prefix (an int/None applies to a whole subtree)."""
    if prefix is None or isinstance(prefix, int) and not isinstance(prefix, bool):
        return [prefix] * len(tree_flatten(tree)[0])
    if isinstance(prefix, tuple | list) and isinstance(tree, tuple | list):
        if len(prefix) != len(tree):
            raise ValueError(f"vmap {what} has {len(prefix)} entries for {len(tree)} "
                             "arguments/outputs")
        return [x for p, t in zip(prefix, tree) for x in _broadcast_prefix(p, t, what)]
    if isinstance(prefix, dict) and isinstance(tree, dict):
        if set(prefix) != set(tree):
            raise ValueError(f"vmap {what} has the dict keys {sorted(prefix, key=repr)} "
                             f"where the value has {sorted(tree, key=repr)}: a dict in "
                             f"{what} must have exactly the keys of the value it describes")
        return [x for k in sorted_keys(tree)
                for x in _broadcast_prefix(prefix[k], tree[k], what)]
    if isinstance(prefix, tuple | list | dict):
        raise ValueError(f"vmap {what}: a {type(prefix).__name__} of axes was given for a "
                         f"{type(tree).__name__} value (a prefix must follow the value's "
                         "structure)")
    raise TypeError(f"vmap {what} entries must be ints, None or containers of them; "
                    f"got {type(prefix).__name__} {prefix!r}")


def vmap(fun: Callable, in_axes: Any = 0, out_axes: Any = 0) -> Callable:
    """Map ``fun`` over axis ``in_axes`` of its arguments, vectorised.

    ``in_axes``/``out_axes``: an int, ``None`` (not mapped), or a pytree prefix of
    them per argument / output.

    >>> import fad, fad.numpy as fnp
    >>> fad.vmap(lambda x, y: x @ y, in_axes=(0, None))(fnp.ones((5, 3)), fnp.ones(3)).shape
    (5,)
    >>> per_example = fad.vmap(fad.grad(lambda w, x: fnp.sum(w * x)), in_axes=(None, 0))
    >>> per_example(fnp.ones(3), fnp.ones((4, 3))).shape
    (4, 3)
    """
    require_callable(fun, "fad.vmap")

    @functools.wraps(fun)
    def batched(*args: Any, **kwargs: Any) -> Any:
        axes = in_axes if not isinstance(in_axes, list) else tuple(in_axes)
        if isinstance(axes, tuple) and len(axes) != len(args):
            raise ValueError(f"vmap in_axes has {len(axes)} entries but the function was "
                             f"called with {len(args)} positional arguments")
        if kwargs:  # keyword arguments are mapped over their axis 0, as in JAX
            call = fun
            fun_kw = lambda *a: call(*a[:-1], **a[-1])
            axes = (tuple(axes) if isinstance(axes, tuple) else (axes,) * len(args)) + (0,)
            return vmap(fun_kw, axes, out_axes)(*args, dict(kwargs))
        leaves, tree = tree_flatten(list(args))
        dims = _broadcast_prefix(axes if isinstance(axes, tuple) else
                                 [axes] * len(args), list(args), "in_axes")
        # unmapped leaves reach the function as given (a static argument stays a
        # Python value, as in JAX); mapped ones become arrays
        leaves = [x if d is None else leaf_array(x) for x, d in zip(leaves, dims)]
        for x, d in zip(leaves, dims):
            if d is None and type(x) is not np.ndarray:
                reject_masked(x)
        sizes = {}
        for k, (x, d) in enumerate(zip(leaves, dims)):
            if d is not None:
                shape = x.shape
                if not -len(shape) <= d < len(shape):
                    raise ValueError(f"vmap in_axes={d} is out of range for an argument "
                                     f"of shape {shape}")
                dims[k] = d % len(shape)
                sizes.setdefault(shape[d], []).append(k)
        if not sizes:
            raise ValueError("vmap needs at least one argument with a mapped axis "
                             "(in_axes not all None)")
        if len(sizes) > 1:
            names = [p for i, a in enumerate(args) for p in tree_leaf_paths(a, f"argument {i}")]
            desc = "; ".join(f"size {n} for " + ", ".join(
                f"{names[k]} (axis {dims[k]} of shape {tuple(leaves[k].shape)})" for k in ks)
                for n, ks in sizes.items())
            raise ValueError(f"vmap got inconsistent sizes for the mapped axes: {desc}")
        (size,) = sizes
        out_tree: list = []

        def flat_fun(*flat: Any) -> list:
            out_leaves, t = tree_flatten(fun(*tree_unflatten(tree, flat)))
            out_tree.append(t)
            return out_leaves

        vals, out_dims = vmap_flat(flat_fun, size, leaves, dims,
                                   label=call_label("vmap", fun))
        out = tree_unflatten(out_tree[0], vals)
        wants = _broadcast_prefix(out_axes, out, "out_axes")
        moved = []
        for v, d, want in zip(vals, out_dims, wants):
            if want is not None:
                nd = len(shape_of(v)) + (d is None)  # dimensions once batched
                if not -nd <= want < nd:
                    raise ValueError(f"vmap out_axes={want} is out of range for an output "
                                     f"of {nd - 1} dimension(s) per example ({nd} batched)")
            if want is None:
                if d is not None:
                    raise ValueError("vmap out_axes=None for an output that varies "
                                     "across the batch")
                moved.append(v)
            else:
                moved.append(move_axis(v, d, want, size))
        return tree_unflatten(out_tree[0], moved)

    return batched
