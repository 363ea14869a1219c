"""``torch.func``: PyTorch's function transforms on fad's.

Each transform unwraps the facade tensors of its arguments, runs fad's
transformation (``fad.grad``, ``fad.vjp``, ``fad.jvp``, ``fad.jacrev``,
``fad.jacfwd``, ``fad.hessian``, ``fad.vmap``) on a function that wraps the
traced values back into facade tensors, so code written with ``torch.`` operations
traces; the results come back as tensors. The transforms compose
(``vmap(grad(f))``, ``jacrev(jacfwd(f))``) because each one only sees arrays.

>>> import fad.torch as torch
>>> x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
>>> torch.func.grad(lambda x: (x ** 2).sum())(x)
tensor([2., 4., 6.], dtype=torch.float64)
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..transforms import autodiff as _ad
from ..transforms import jacobians as _jac
from ..transforms.vmap import vmap as _vmap
from ..tree import tree_flatten, tree_map, tree_unflatten
from ._captures import UncapturedError, captured_tensors, refuse_uncaptured, substituted
from ._functions import stack
from ._recorder import Op, _grad_enabled, apply
from .tensor import Tensor, wrap

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state", "linearize", "functionalize",
           "replace_all_batch_norm_modules_"]


def _is_array(x: Any) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype")


def _unwrap(tree: Any) -> Any:
    """Facade tensors (leaves of ``tree``) replaced by their arrays (or tracers)."""
    return tree_map(lambda x: x._value if isinstance(x, Tensor) else x, tree)


def _wrap(tree: Any) -> Any:
    """Arrays and tracers (leaves of ``tree``) wrapped as facade tensors."""
    def one(x: Any) -> Any:
        if isinstance(x, Tensor) or not _is_array(x):
            return x
        return wrap(np.asarray(x) if isinstance(x, np.generic) else x)
    return tree_map(one, tree)


def _lift(func: Callable) -> Callable:
    """``func`` on facade tensors as a function of arrays (what fad transforms)."""
    def on_arrays(*args: Any, **kwargs: Any) -> Any:
        out = func(*_wrap(args), **_wrap(kwargs))
        refuse_uncaptured(tree_flatten(out)[0], "torch.func")
        return _unwrap(out)
    return on_arrays


def _recorded(inner: Callable, label: str, func: Callable) -> Callable:
    """``inner`` (a fad transformation of ``func``, on arrays) called on facade
    tensors as one recorded operation: when an argument, or a tensor ``func`` closes
    over, requires grad, the result's ``grad_fn`` is fad's reverse mode of the whole
    transformation, so ``.backward()`` through ``torch.func.grad(f)(x)`` gives second
    derivatives, and gradients reach the closed-over tensors, as in PyTorch. The
    closed-over tensors (``captured_tensors``: a module's parameters...) become
    inputs only when a first run finds a result that depends on one of them."""
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return _run(inner, label, (), args, kwargs)
        except UncapturedError:
            captured = captured_tensors(func)
            if not captured:
                raise
        return _run(inner, label, tuple(captured), args, kwargs)
    return run


def _run(inner: Callable, label: str, captured: tuple, args: tuple, kwargs: dict) -> Any:
    """``inner(*args, **kwargs)`` as one recorded operation of the tensors among its
    arguments and of ``captured``, which hold those inputs' values while it runs."""
    flat, tree = tree_flatten((args, kwargs))
    slots = [i for i, x in enumerate(flat) if isinstance(x, Tensor)]
    n = len(slots)
    out_tree: list = []

    def body(*arrays: Any) -> list:
        leaves = list(flat)
        for i, a in zip(slots, arrays):
            leaves[i] = a
        a_, kw = tree_unflatten(tree, leaves)
        with substituted(captured, arrays[n:]):
            outs, td = tree_flatten(inner(*a_, **kw))
        out_tree.append(td)
        return outs

    # (with captured tensors, outputs that do not depend on them get no grad_fn)
    res = apply(_op(label, bool(captured)), tuple(flat[i] for i in slots) + captured,
                {"body": body})
    return _in_order(tree_unflatten(out_tree[-1], list(res)), _key_orders((args, kwargs)))


def _call_body(*arrays: Any, body: Callable) -> list:
    return body(*arrays)


@functools.lru_cache(maxsize=None)
def _op(label: str, prune: bool) -> Op:
    """The one recorded operation per transformation name: the call's function is a
    parameter (a parameter that is a function is never a key of the direct-form
    cache, so nothing of a call outlives it)."""
    return Op(label, _call_body, label, None, True, multi=True, prune=prune)


def _key_orders(tree: Any, orders: dict | None = None) -> dict:
    """The key order of each dict in ``tree``, by its set of keys."""
    orders = {} if orders is None else orders
    if isinstance(tree, dict):
        orders.setdefault(frozenset(tree), list(tree))
        for v in tree.values():
            _key_orders(v, orders)
    elif type(tree) in (list, tuple):
        for v in tree:
            _key_orders(v, orders)
    return orders


def _in_order(tree: Any, orders: dict) -> Any:
    """``tree`` with each dict's keys in the order of an argument's dict with the same
    keys (fad's trees sort them; PyTorch's keep the caller's order)."""
    if isinstance(tree, dict) and type(tree) is dict:
        keys = orders.get(frozenset(tree), list(tree))
        return {k: _in_order(tree[k], orders) for k in keys}
    if type(tree) in (list, tuple):
        return type(tree)(_in_order(v, orders) for v in tree)
    return tree


def _argnums(argnums: int | Sequence[int]) -> int | tuple:
    return argnums if isinstance(argnums, int) else tuple(argnums)


def grad(func: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Callable:
    """The gradient of the scalar ``func`` with respect to the ``argnums`` arguments.

    >>> import fad.torch as torch
    >>> torch.func.grad(lambda x: x.sin().sum())(torch.zeros(2, dtype=torch.float64))
    tensor([1., 1.], dtype=torch.float64)
    """
    return _recorded(_ad.grad(_lift(_scalar_output(func, has_aux)), _argnums(argnums),
                              has_aux=has_aux), "TorchFuncGradBackward", func)


def _scalar_output(func: Callable, has_aux: bool) -> Callable:
    """``func``, raising PyTorch's error when its output is not a 0-d tensor."""
    def checked(*args: Any, **kwargs: Any) -> Any:
        out = func(*args, **kwargs)
        value = out[0] if has_aux and isinstance(out, tuple) else out
        if not isinstance(value, Tensor):
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, "
                               f"got {type(value)}")
        if value.dim() != 0:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {value.dim()} dims. Maybe you wanted to "
                               "use the vjp or jacrev APIs instead?")
        return out
    return checked


def grad_and_value(func: Callable, argnums: int | Sequence[int] = 0,
                   has_aux: bool = False) -> Callable:
    """``(gradient, value)`` of ``func`` (``(gradient, (value, aux))`` with ``has_aux``).

    >>> import fad.torch as torch
    >>> g, v = torch.func.grad_and_value(lambda x: (x * x).sum())(torch.ones(2))
    >>> g, v
    (tensor([2., 2.]), tensor(2.))
    """
    inner = _ad.value_and_grad(_lift(_scalar_output(func, has_aux)), _argnums(argnums),
                               has_aux=has_aux)

    def swapped(*args: Any, **kwargs: Any) -> tuple:
        value, g = inner(*args, **kwargs)
        return g, value
    return _recorded(swapped, "TorchFuncGradBackward", func)


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """``(output, vjp_fn)`` (and ``aux``): ``vjp_fn(cotangent)`` is the tuple of the
    cotangents of the primals. When a primal, or a tensor ``func`` closes over,
    requires grad, the output and ``vjp_fn``'s results are recorded operations, so
    ``.backward()`` through them reaches those tensors (and the cotangent), as in
    PyTorch.

    >>> import fad.torch as torch
    >>> out, vjp_fn = torch.func.vjp(lambda x: 3 * x, torch.ones(2))
    >>> vjp_fn(torch.ones(2))
    (tensor([3., 3.]),)
    """
    lifted = _lift(func)
    if not (_grad_enabled() and any(isinstance(p, Tensor) and p.requires_grad
                                    for p in tree_flatten(primals)[0])):
        try:
            res = _ad.vjp(lifted, *_unwrap(primals), has_aux=has_aux)
        except UncapturedError:  # a closed-over tensor requires grad: record
            pass
        else:
            return (_wrap(res[0]), _pullback_fn(res[1], res[0])) + \
                tuple(_wrap(res[2:]))

    def pull(ps: tuple, ct: Any) -> tuple:  # (the forward pass again, recorded)
        r = _ad.vjp(lifted, *ps, has_aux=has_aux)
        return tuple(r[1](tree_map(_as_dtype_of, ct, r[0])))
    pulled = _recorded(pull, "TorchFuncVjpBackward", func)
    outs = _recorded(lifted, "TorchFuncVjpBackward", func)(*primals)
    out, aux = (outs[0], outs[1:]) if has_aux else (outs, ())

    def vjp_fn(cotangents: Any, *rest: Any) -> tuple:
        return pulled(primals, (cotangents,) + rest if rest else cotangents)
    return (out, vjp_fn) + tuple(aux)


def _pullback_fn(pullback: Callable, out: Any) -> Callable:
    """``vjp_fn`` on facade tensors from ``pullback`` on arrays: a floating cotangent
    takes its output's floating dtype, as PyTorch accepts it."""
    def vjp_fn(cotangents: Any, *rest: Any) -> tuple:
        ct = _unwrap((cotangents,) + rest if rest else cotangents)
        return _wrap(tuple(pullback(tree_map(_as_dtype_of, ct, out))))
    return vjp_fn


def _as_dtype_of(ct: Any, out: Any) -> Any:
    if (_is_array(ct) and _is_array(out) and ct.dtype != out.dtype
            and np.dtype(ct.dtype).kind == np.dtype(out.dtype).kind == "f"):
        return ct.astype(out.dtype)
    return ct


def jvp(func: Callable, primals: Sequence, tangents: Sequence, *,
        has_aux: bool = False) -> tuple:
    """``(output, jvp_out)``: ``func`` and its directional derivative along ``tangents``.

    >>> import fad.torch as torch
    >>> torch.func.jvp(lambda x: x * x, (torch.ones(2),), (torch.ones(2),))
    (tensor([1., 1.]), tensor([2., 2.]))
    """
    return _recorded(lambda p, t: _ad.jvp(_lift(func), tuple(p), tuple(t), has_aux=has_aux),
                     "TorchFuncJvpBackward", func)(tuple(primals), tuple(tangents))


def linearize(func: Callable, *primals: Any) -> tuple:
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the derivative of
    ``func`` at ``primals`` along ``tangents`` (each call runs ``jvp`` at the same
    point; ``fad.linearize`` is the one-pass form on arrays).

    >>> import fad.torch as torch
    >>> out, jvp_fn = torch.func.linearize(lambda x: x.sin(), torch.zeros(2))
    >>> jvp_fn(torch.ones(2))
    tensor([1., 1.])
    """
    out = func(*primals)

    def jvp_fn(*tangents: Any) -> Any:
        return jvp(func, primals, tangents)[1]
    return out, jvp_fn


def _jacobian(transform: Callable, summary: str, example: str = "lambda x: x ** 2",
              result: str = "tensor([[2., 0.],\n        [0., 4.]])") -> Callable:
    """The facade of ``transform`` (``jacrev``...), documented by ``summary`` and the
    doctest ``example(torch.tensor([1.0, 2.0]))``, which shows ``result``."""
    def make(func: Callable, argnums: int | Sequence[int] = 0, *, has_aux: bool = False,
             **_: Any) -> Callable:
        lifted = _lift(func)
        if not has_aux:
            return _recorded(transform(lifted, _argnums(argnums)), "TorchFuncJacobianBackward",
                             func)
        # ``(jacobian, aux)``: the auxiliary output comes from one more evaluation of ``func``
        jac = transform(lambda *a, **k: lifted(*a, **k)[0], _argnums(argnums))

        def with_aux(*args: Any, **kwargs: Any) -> tuple:
            return jac(*args, **kwargs), lifted(*args, **kwargs)[1]
        return _recorded(with_aux, "TorchFuncJacobianBackward", func)
    make.__name__ = make.__qualname__ = transform.__name__
    make.__doc__ = (f"{summary}\n\n>>> import fad.torch as torch\n>>> torch.func."
                    f"{transform.__name__}({example})(torch.tensor([1.0, 2.0]))\n{result}\n")
    return make


jacrev = _jacobian(_jac.jacrev, "The Jacobian of ``func`` by reverse mode (one row per output "
                   "element).")
jacfwd = _jacobian(_jac.jacfwd, "The Jacobian of ``func`` by forward mode (one column per input "
                   "element).")
hessian = _jacobian(_jac.hessian, "The Hessian of the scalar ``func`` (``jacfwd(jacrev(func))``).",
                    "lambda x: (x ** 3).sum()", "tensor([[ 6.,  0.],\n        [ 0., 12.]])")


def vmap(func: Callable, in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable:
    """``func`` mapped over the ``in_dims`` axes of its arguments (``None``: not
    mapped), the mapped axis of the outputs at ``out_dims``. ``randomness`` and
    ``chunk_size`` are accepted; random draws inside follow fad's ``vmap``.

    >>> import fad.torch as torch
    >>> torch.vmap(lambda a, b: (a * b).sum(), in_dims=(0, None))(torch.ones(3, 2),
    ...                                                          torch.ones(2))
    tensor([2., 2., 2.])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', "
                           f"or 'same'. Got {randomness}")
    mapped = _recorded(_vmap(_lift(_tensors_only(func, out_dims)), in_axes=in_dims,
                             out_axes=out_dims), "TorchFuncVmapBackward", func)

    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            if not kwargs:
                return mapped(*args)
            # keyword arguments are passed to every call unmapped, as PyTorch does
            axes = (tuple(in_dims) if isinstance(in_dims, (tuple, list))
                    else (in_dims,) * len(args))
            with_kwargs = _tensors_only(lambda *a: func(*a[:-1], **a[-1]), out_dims, func)
            return _recorded(_vmap(_lift(with_kwargs), in_axes=axes + (None,),
                                   out_axes=out_dims), "TorchFuncVmapBackward",
                             func)(*args, kwargs)
        except RuntimeError as e:
            if isinstance(e.__context__, _NotATensor):  # (PyTorch's error, unwrapped)
                raise ValueError(str(e.__context__)) from None
            raise
    return run


class _NotATensor(ValueError):
    """A function under ``vmap`` returned something other than a tensor."""


def _tensors_only(func: Callable, out_dims: Any, named: Callable | None = None) -> Callable:
    """``func``, raising PyTorch's error when a mapped output is not a tensor."""
    name = getattr(named or func, "__name__", repr(named or func))

    def checked(*args: Any, **kwargs: Any) -> Any:
        out = func(*args, **kwargs)
        if out_dims is not None:
            for leaf in tree_flatten(out)[0]:
                if not isinstance(leaf, Tensor):
                    raise _NotATensor(f"vmap({name}, ...): `{name}` must only return Tensors, "
                                     f"got type {type(leaf)}. Did you mean to set out_dims= "
                                     "to None for output?")
        return out
    return checked


@contextlib.contextmanager
def _swapped(module: Any, values: dict) -> Iterator[None]:
    """``module``'s parameters and buffers named in ``values`` replaced for a while."""
    saved = []
    try:
        for name, value in values.items():
            *path, leaf = name.split(".")
            owner = module
            for part in path:
                owner = owner._modules[part]
            store = next((s for s in ("_parameters", "_buffers") if leaf in owner.__dict__[s]),
                         None)
            if store is None:
                raise AttributeError(f"functional_call: {type(module).__name__} has no "
                                     f"parameter or buffer named '{name}'")
            table = owner.__dict__[store]
            saved.append((table, leaf, table[leaf]))
            table[leaf] = value if isinstance(value, Tensor) else wrap(value)
        yield
    finally:
        for table, leaf, old in reversed(saved):
            table[leaf] = old


def functional_call(module: Any, parameter_and_buffer_dicts: Any, args: Any = None,
                    kwargs: dict | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with its parameters and buffers replaced by the
    tensors of ``parameter_and_buffer_dicts`` (a dict by dotted name, or a tuple of
    dicts), the module left unchanged afterwards.

    >>> import fad.torch as torch
    >>> lin = torch.nn.Linear(2, 1)
    >>> p = {"weight": torch.ones(1, 2), "bias": torch.zeros(1)}
    >>> torch.func.functional_call(lin, p, (torch.ones(2),))
    tensor([2.])
    """
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, (tuple, list)):
        merged: dict = {}
        for d in dicts:
            clash = set(merged) & set(d)
            if clash:
                raise ValueError(f"{sorted(clash)[0]} appeared in multiple dictionaries; "
                                 "behavior of functional call is ambiguous")
            merged.update(d)
        dicts = merged
    if strict:
        own = {k for k, _ in module.named_parameters()} | {k for k, _ in module.named_buffers()}
        errors = [f"{what} key(s): {', '.join(map(repr, sorted(keys)))}."
                  for what, keys in (("Unexpected", set(dicts) - own),
                                     ("Missing", own - set(dicts))) if keys]
        if errors:
            raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t"
                               + "\n\t".join(errors))
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _swapped(module, dicts):
        return module(*args, **(kwargs or {}))


def stack_module_state(models: Sequence[Any]) -> tuple:
    """``(params, buffers)``: each parameter and buffer of the same-structured
    ``models`` stacked along a new leading axis (the parameters as new leaves that
    require grad), for ``vmap`` over an ensemble with ``functional_call``.

    >>> import fad.torch as torch
    >>> params, buffers = torch.func.stack_module_state([torch.nn.Linear(2, 3)] * 4)
    >>> params["weight"].shape, params["weight"].requires_grad
    (torch.Size([4, 3, 2]), True)
    """
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if any(m.training != models[0].training for m in models):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    names = [k for k, _ in models[0].named_parameters()]
    params = {k: stack([dict(m.named_parameters())[k].detach() for m in models])
              .requires_grad_() for k in names}
    bnames = [k for k, _ in models[0].named_buffers()]
    buffers = {k: stack([dict(m.named_buffers())[k] for m in models]) for k in bnames}
    return params, buffers


def functionalize(func: Callable, *, remove: str = "mutations") -> Callable:
    """``func`` with its in-place operations turned into out-of-place ones, for the
    transformations: fad's transformations already see programs without mutation
    (a facade in-place operation records the new value), so ``func`` itself, which
    computes the same values.

    >>> import fad.torch as torch
    >>> torch.func.functionalize(lambda x: x.add_(1))(torch.ones(2))
    tensor([2., 2.])
    """
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument "
                           f"for remove={remove}. Valid options are:\n     remove='mutations': "
                           "all inplace and out= operators will be removed from the program, "
                           "and replaced with their out-of-place equivalents.\n     "
                           "remove='mutations_and_views': In addition to the above, all aliasing "
                           "operators {view} will be replaced with their non-aliasing "
                           "counterparts, {view}_copy.\n")
    return func


def replace_all_batch_norm_modules_(root: Any) -> Any:
    """Stop every batch norm in ``root`` from tracking running statistics (their
    buffers become ``None``), so that it normalises by the batch's own statistics
    under ``vmap``, as PyTorch's helper does; returns ``root``."""
    from .nn.modules.normalization import _BatchNorm

    for m in root.modules():
        if isinstance(m, _BatchNorm):
            m.running_mean = m.running_var = m.num_batches_tracked = None
            m.track_running_stats = False
    return root
