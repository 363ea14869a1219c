"""``torch.autograd``: ``backward``, ``grad``, ``Function`` and grad-mode helpers.

The engine itself is in ``fad/torch/_graph.py``; nodes of built-in operations get
their pullbacks from the core's reverse mode. ``Function`` is the one place where
a derivative is user-defined (its ``backward``), as in PyTorch.
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from typing import Any, Iterator, NamedTuple

import numpy as np

from .. import numpy as fnp
from ..backends import namespace_of
from ..core.trace import Tracer
from ..interpreters.batching import BatchTrace, BatchTracer
from ..interpreters.jvp import JVPTrace, JVPTracer
from ..transforms.custom import custom_vjp
from . import _dtype
from . import _functions as F
from ._creation import tensor, zeros_like
from ._grad_mode import (
    GRAD_ENABLED,
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from ._graph import FREED_MSG, Node, _version_message, edge_of, next_seq, run_backward
from .tensor import Tensor, wrap

__all__ = ["backward", "grad", "gradcheck", "gradgradcheck", "Function", "FunctionCtx",
           "Variable", "once_differentiable", "no_grad", "enable_grad", "set_grad_enabled",
           "is_grad_enabled", "inference_mode", "set_detect_anomaly", "detect_anomaly",
           "functional", "graph"]


def _as_list(x: Any) -> list:
    if x is None:
        return []
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def _make_grads(outputs: list, grads: list, create_graph: bool) -> list:
    out = []
    for i, (t, g) in enumerate(zip(outputs, grads)):
        if not isinstance(t, Tensor):
            raise TypeError(f"element {i} of tensors is not a Tensor but {type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        v = t._value
        if g is None:
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if _dtype.array_np_dtype(v).kind != "f":
                raise RuntimeError("grad can be implicitly created only for real scalar "
                                   f"outputs but got {t.dtype}")
            arr = np.ones_like(v) if type(v) is np.ndarray else namespace_of([v]).ones_like(v)
            out.append(wrap(arr) if create_graph else arr)
            continue
        if not isinstance(g, Tensor):
            g = tensor(g, dtype=t.dtype)
        if g.shape != t.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                               f"{g.shape} and output[{i}] has a shape of {t.shape}.")
        if g.dtype is not t.dtype:
            if create_graph:
                g = g.to(t.dtype)
            else:
                g = wrap(fnp.asarray(g._value, t.dtype.np))
        out.append(g if create_graph else g._value)
    return out


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, grad_variables: Any = None, inputs: Any = None
             ) -> None:
    """Sum the gradients of ``tensors`` into the ``.grad`` of the graph's leaves
    (or of ``inputs`` only)."""
    tensors = _as_list(tensors)
    if grad_tensors is None:
        grad_tensors = grad_variables
    grads = _as_list(grad_tensors) if grad_tensors is not None else [None] * len(tensors)
    if isinstance(grad_tensors, Tensor):
        grads = [grad_tensors]
    if len(grads) != len(tensors):
        raise RuntimeError("grad can be implicitly created only for scalar outputs"
                           if not grads else f"got {len(grads)} gradients for "
                           f"{len(tensors)} tensors")
    if inputs is not None:
        inputs = _as_list(inputs)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        for t in inputs:
            if not t._requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between "
            "the parameter and its gradient which can cause a memory leak. We recommend using "
            "autograd.grad when creating the graph to avoid this. If you have to use this "
            "function, make sure to reset the .grad fields of your parameters to None after "
            "use to break the cycle and avoid the leak.", UserWarning, stacklevel=3)
    roots_grads = _make_grads(tensors, grads, create_graph)
    run_backward(tensors, roots_grads, bool(retain_graph), bool(create_graph), inputs,
                 accumulate=True)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: bool | None = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple:
    """The gradients of ``outputs`` with respect to ``inputs`` (returned, not
    accumulated into ``.grad``)."""
    outputs = _as_list(outputs)
    single = isinstance(inputs, Tensor)
    inputs = _as_list(inputs)
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched=True is not supported by fad.torch")
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError("inputs to autograd.grad must be Tensors")
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if grad_outputs is None:
        gos = [None] * len(outputs)
    else:
        gos = _as_list(grad_outputs)
    if len(gos) != len(outputs):
        raise RuntimeError(f"grad requires one grad_output per output: got {len(gos)} for "
                           f"{len(outputs)} outputs")
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    grads = _make_grads(outputs, gos, create_graph)
    res = run_backward(outputs, grads, bool(retain_graph), bool(create_graph), inputs,
                       accumulate=False, allow_unused=bool(allow_unused))
    if materialize_grads:
        res = [zeros_like(t) if g is None else g for g, t in zip(res, inputs)]
    del single
    return tuple(res)


# ------------------------------------------------------------------ Function
class FunctionCtx:
    """The ``ctx`` of a custom ``Function``: ``save_for_backward`` and friends."""

    def save_for_backward(self, *tensors: Any) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self._saved = tensors
        self._saved_versions = tuple(None if t is None else t._version for t in tensors)

    def save_for_forward(self, *tensors: Any) -> None:
        """Keep ``tensors`` for the ``jvp`` staticmethod (its ``saved_tensors``)."""
        self._saved_forward = tensors

    @property
    def saved_tensors(self) -> tuple:
        if getattr(self, "_in_jvp", False) and hasattr(self, "_saved_forward"):
            return tuple(self._saved_forward)
        if getattr(self, "_saved_freed", False):
            raise RuntimeError(FREED_MSG)
        saved = getattr(self, "_saved", ())
        for t, v in zip(saved, getattr(self, "_saved_versions", ())):
            if t is not None and t._version != v:
                raise RuntimeError(_version_message(None, t, t._version, v))
        return tuple(saved)

    saved_variables = saved_tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        self._non_diff = {id(t) for t in tensors}

    def mark_dirty(self, *tensors: Tensor) -> None:
        self._dirty = {id(t) for t in tensors}

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    """The ``grad_fn`` of a custom ``Function``'s outputs; it is also the ``ctx``."""

    _conjugates = False

    def _check_alive(self) -> None:
        pass

    def _backward(self, cts: list, retain: bool, create_graph: bool) -> list:
        outs_meta = self._out_meta
        grads_in = []
        for ct, (shape, dtype, xp) in zip(cts, outs_meta):
            if ct is None:
                if getattr(self, "_materialize", True):
                    arr = xp.zeros(shape, dtype=getattr(xp, dtype.name))
                    grads_in.append(wrap(arr))
                else:
                    grads_in.append(None)
            else:
                grads_in.append(ct if isinstance(ct, Tensor) else wrap(ct))
        grad_was = GRAD_ENABLED.get()
        try:  # (switched inside the try: see _grad_mode)
            GRAD_ENABLED.set(bool(create_graph))
            res = self._cls.backward(self, *grads_in)
        finally:
            GRAD_ENABLED.set(grad_was)
        if not isinstance(res, tuple):
            res = (res,)
        n_args = len(self._arg_meta)
        if len(res) != n_args:
            if len(res) > n_args and all(r is None for r in res[n_args:]):
                res = res[:n_args]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                                   f"gradients (expected {n_args}, got {len(res)})")
        out = []
        for i, (meta, g) in enumerate(zip(self._arg_meta, res)):
            if meta is None:  # not a tensor argument
                if g is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None "
                        f"at position {i + 1}, but the corresponding forward input was not "
                        "a Variable")
                continue
            if g is None or not meta[2]:
                out.append(None)
                continue
            if not isinstance(g, Tensor):
                raise TypeError(f"function {self.name()} returned a gradient of type "
                                f"{type(g).__name__} at index {i}; expected a Tensor")
            shape = meta[0]
            if tuple(g.shape) != shape:
                g = _sum_to(g, shape, self.name(), i)
            if g.dtype.np != meta[1]:
                g = g.to(_dtype.of_np(meta[1]))
            out.append(g if create_graph else g._value)
        return out

    def _release(self) -> None:
        self._saved_freed = True
        self._saved = ()


def _sum_to(g: Tensor, shape: tuple, name: str, i: int) -> Tensor:
    gs = tuple(g.shape)
    lead = len(gs) - len(shape)
    ok = lead >= 0 and all(s == t or s == 1 for s, t in zip(shape, gs[lead:]))
    if not ok:
        raise RuntimeError(f"Function {name} returned an invalid gradient at index {i} - got "
                           f"{list(gs)} but expected shape compatible with {list(shape)}")
    axes = tuple(range(lead)) + tuple(lead + k for k, s in enumerate(shape)
                                      if s == 1 and gs[lead + k] != 1)
    if axes:
        g = g.sum(axes, keepdim=True)
    return g.reshape(shape)


class FunctionMeta(type):
    def __init__(cls, name: str, bases: tuple, attrs: dict):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,),
                                 {"__module__": "builtins", "_cls": cls})


class Function(FunctionCtx, metaclass=FunctionMeta):
    """A user-defined differentiable operation (as ``torch.autograd.Function``):
    subclass it with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``,
    and call ``MyFunction.apply(*args)``."""

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward "
                                  "mode AD.")

    vjp = backward

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        raise NotImplementedError

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        if any(isinstance(a, Tensor) and isinstance(a._value, Tracer) for a in args):
            return _apply_under_transformation(cls, args, kwargs)
        node = cls._backward_cls.__new__(cls._backward_cls)
        grad_on = GRAD_ENABLED.get()
        needs = tuple(isinstance(a, Tensor) and a._requires_grad and grad_on for a in args)
        node.needs_input_grad = needs
        try:  # (switched inside the try: see _grad_mode)
            GRAD_ENABLED.set(False)
            if cls.setup_context is not Function.setup_context:
                out = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, out)
            else:
                out = cls.forward(node, *args, **kwargs)
        finally:
            GRAD_ENABLED.set(grad_on)
        if not any(needs):
            return out
        is_tuple = isinstance(out, tuple)
        outs = out if is_tuple else (out,)
        non_diff = getattr(node, "_non_diff", set())
        edges = [edge_of(a) if n else (None, 0)
                 for a, n in zip(args, needs) if isinstance(a, Tensor)]
        node._next = tuple(e[0] for e in edges)
        node._seq = next_seq()
        node._nrs = tuple(e[1] for e in edges)
        node._layout = None
        node._freed = False
        node._saves = True
        node._pull = node._fun = node._inputs = node._checked = node._versions = None
        node._avals = node._res = node._consts = node._params = None
        node._arg_meta = tuple((tuple(a.shape), a.dtype.np, n) if isinstance(a, Tensor)
                               else None for a, n in zip(args, needs))
        new_outs, meta = [], []
        arg_ids = {id(a) for a in args}
        nr = 0
        for o in outs:
            if not isinstance(o, Tensor):
                new_outs.append(o)
                continue
            meta.append((tuple(o.shape), o.dtype.np, namespace_of([o._value])))
            if id(o) in non_diff or o.dtype.np.kind not in "fc":
                new_outs.append(o)  # no gradient flows in, but backward gets a slot
                nr += 1             # (zeros, as PyTorch materialises them)
                continue
            t = wrap(o._value) if id(o) in arg_ids or o._grad_fn is not None else o
            t._requires_grad = True
            t._grad_fn = node
            t._output_nr = nr
            nr += 1
            new_outs.append(t)
        node._n_out = nr
        node._out_meta = meta
        return tuple(new_outs) if is_tuple else new_outs[0]


class VmapInfo(NamedTuple):
    """What a ``Function.vmap`` staticmethod is told: the size of the mapped axis
    and the randomness mode (a named tuple, as PyTorch's)."""

    batch_size: int
    randomness: str = "error"


def _top_trace(args: tuple) -> Any:
    """The trace of the innermost transformation among the Tensor arguments."""
    top = None
    for a in args:
        if isinstance(a, Tensor) and isinstance(a._value, Tracer):
            t = a._value._trace
            if top is None or t.main.level > top.main.level:
                top = t
    return top


def _has_vmap_rule(cls: Any, trace: Any) -> bool:
    """Whether ``trace`` is a ``vmap``'s and ``cls`` has its own rule for it."""
    return isinstance(trace, BatchTrace) and "vmap" in _own_attributes(cls) and \
        not getattr(cls, "generate_vmap_rule", False)


def _apply_vmap_rule(cls: Any, trace: Any, args: tuple, kwargs: dict) -> Any:
    """``Function.apply`` under ``vmap`` by the Function's own ``vmap`` staticmethod:
    it gets the batched arguments whole, with their batch dimensions (``in_dims``),
    and returns outputs with theirs (``out_dims``), as PyTorch's."""
    in_dims, whole = [], []
    for a in args:
        v = a._value if isinstance(a, Tensor) else None
        if isinstance(v, BatchTracer) and v._trace is trace:
            in_dims.append(v.bdim)
            whole.append(wrap(v.val))
        else:
            in_dims.append(None)
            whole.append(a)
    out, out_dims = cls.vmap(VmapInfo(trace.axis_size), tuple(in_dims), *whole, **kwargs)
    single = not isinstance(out, tuple)
    outs = (out,) if single else out
    dims = (out_dims,) * len(outs) if isinstance(out_dims, int | None) else tuple(out_dims)
    if len(dims) != len(outs):
        raise ValueError(f"vmap({cls.__name__}.apply): the vmap staticmethod returned "
                         f"{len(outs)} outputs but {len(dims)} out_dims")
    mapped = tuple(wrap(BatchTracer(trace, o._value, d)) if isinstance(o, Tensor) else o
                   for o, d in zip(outs, dims))
    return mapped[0] if single else mapped


def _apply_jvp_rule(cls: Any, trace: Any, args: tuple, kwargs: dict) -> Any:
    """``Function.apply`` under forward-mode differentiation (``torch.func.jvp``,
    ``forward_ad``) by the Function's own ``jvp`` staticmethod: ``forward`` on the
    primals, then ``jvp(ctx, *input_tangents)`` gives the outputs' tangents (the
    tensors ``ctx.save_for_forward`` kept are its ``saved_tensors``), as PyTorch's."""
    primals, tangents = [], []
    for a in args:
        v = a._value if isinstance(a, Tensor) else None
        if isinstance(v, JVPTracer) and v._trace is trace:
            p = wrap(v.primal)
            primals.append(p)
            tangents.append(zeros_like(p) if v.tangent is None else wrap(v.tangent))
        else:
            primals.append(a)
            tangents.append(None)
    ctx = cls._backward_cls.__new__(cls._backward_cls)
    ctx.needs_input_grad = tuple(isinstance(a, Tensor) for a in args)
    grad_was = GRAD_ENABLED.get()
    try:  # (switched inside the try: see _grad_mode)
        GRAD_ENABLED.set(False)
        if cls.setup_context is not Function.setup_context:
            out = cls.forward(*primals, **kwargs)
            cls.setup_context(ctx, tuple(primals), out)
        else:
            out = cls.forward(ctx, *primals, **kwargs)
        ctx._in_jvp = True
        out_tangents = cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
        GRAD_ENABLED.set(grad_was)
    single = not isinstance(out, tuple)
    outs = (out,) if single else out
    out_tangents = (out_tangents,) if not isinstance(out_tangents, tuple) else out_tangents
    dual = tuple(wrap(JVPTracer(trace, o._value, None if t is None else t._value))
                 if isinstance(o, Tensor) else o for o, t in zip(outs, out_tangents))
    return dual[0] if single else dual


def _apply_under_transformation(cls: Any, args: tuple, kwargs: dict) -> Any:
    """``Function.apply`` on values traced by a fad transformation (``fad.grad``,
    ``fad.jit``...): the Function becomes a ``fad.custom_vjp``, so its ``backward``
    is the derivative every transformation uses; under ``vmap`` (the innermost
    transformation) a Function with its own ``vmap`` staticmethod uses that rule."""
    trace = _top_trace(args)
    if _has_vmap_rule(cls, trace):
        return _apply_vmap_rule(cls, trace, args, kwargs)
    if isinstance(trace, JVPTrace) and "jvp" in _own_attributes(cls):
        return _apply_jvp_rule(cls, trace, args, kwargs)
    pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    shape: list = []

    def forward(ctx: Any, vals: tuple) -> Any:
        full = list(args)
        for i, v in zip(pos, vals):
            full[i] = wrap(v)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) for a in full)
        grad_was = GRAD_ENABLED.get()
        try:  # (switched inside the try: see _grad_mode)
            GRAD_ENABLED.set(False)
            if cls.setup_context is not Function.setup_context:
                inner = _top_trace(full)  # (under a vmap outside: its rule batches forward)
                if _has_vmap_rule(cls, inner):
                    out = _apply_vmap_rule(cls, inner, tuple(full), kwargs)
                else:
                    out = cls.forward(*full, **kwargs)
                cls.setup_context(ctx, tuple(full), out)
            else:
                out = cls.forward(ctx, *full, **kwargs)
        finally:
            GRAD_ENABLED.set(grad_was)
        outs = out if isinstance(out, tuple) else (out,)
        shape[:] = [isinstance(out, tuple)]
        return tuple(o._value if isinstance(o, Tensor) else o for o in outs)

    def fun(*vals: Any) -> tuple:
        return forward(cls._backward_cls.__new__(cls._backward_cls), vals)

    def fwd(*vals: Any) -> tuple:
        ctx = cls._backward_cls.__new__(cls._backward_cls)
        return forward(ctx, vals), (ctx, vals)

    def bwd(res: tuple, cts: tuple) -> tuple:
        ctx, vals = res
        grads = cls.backward(ctx, *[wrap(c) for c in cts])
        grads = grads if isinstance(grads, tuple) else (grads,)
        picked = [grads[i] if i < len(grads) else None for i in pos]
        return tuple(fnp.zeros_like(v) if g is None else
                     (g._value if isinstance(g, Tensor) else g) for g, v in zip(picked, vals))

    rule = custom_vjp(fun)
    rule.defvjp(fwd, bwd)
    outs = rule(*[args[i]._value for i in pos])
    res = tuple(wrap(o) if o is not None else None for o in outs)
    return res if shape and shape[0] else res[0]


def _own_attributes(cls: type) -> set:
    """The names a Function subclass (or a base of it below ``Function``) defines."""
    names: set = set()
    for c in cls.__mro__:
        if c is Function:
            break
        names.update(vars(c))
    return names


class InplaceFunction(Function):
    pass


_TWICE = ("trying to differentiate twice a function that was marked with "
          "@once_differentiable")


class _DelayedError(Function):
    """The identity whose backward raises: what ``once_differentiable`` hands back
    when a graph of its backward was asked for (``create_graph=True``)."""

    @staticmethod
    def forward(ctx: Any, *xs: Any) -> Any:
        outs = tuple(x.clone() if isinstance(x, Tensor) else x for x in xs)
        return outs if len(outs) != 1 else outs[0]

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise RuntimeError(_TWICE)


# its grad_fn's type name and ``name()``, as PyTorch's
_DelayedError._backward_cls.__name__ = "Error"
_DelayedError._backward_cls.name = lambda self: "torch::autograd::Error"


def once_differentiable(fn: Any) -> Any:
    """Mark a ``Function.backward`` as not differentiable itself (as PyTorch's
    decorator): it runs with gradients off, and when a graph of the backward pass
    was asked for, differentiating its result raises instead of being wrong.

    >>> import fad.torch as torch
    >>> class Square(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     @torch.autograd.function.once_differentiable
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return 2 * x * g
    >>> x = torch.tensor(3.0, requires_grad=True)
    >>> torch.autograd.grad(Square.apply(x), x)
    (tensor(6.),)
    """
    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with no_grad():
            outputs = fn(ctx, *args)
        if not is_grad_enabled() or not any(
                isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        present = [k for k, o in enumerate(outs) if isinstance(o, Tensor)]
        if not present:
            return outputs
        for k in present:  # (the error must be reached from every gradient)
            outs[k].requires_grad_(outs[k].dtype.is_floating_point)
        guarded = _DelayedError.apply(*[outs[k] for k in present])
        guarded = guarded if isinstance(guarded, tuple) else (guarded,)
        new = list(outs)
        for k, g in zip(present, guarded):
            new[k] = g
        return new[0] if single else tuple(new)
    return wrapper


def Variable(data: Any, requires_grad: bool = False, volatile: bool = False) -> Tensor:
    """Legacy ``torch.autograd.Variable``: returns a Tensor."""
    t = data if isinstance(data, Tensor) else wrap(np.asarray(data))
    if requires_grad:
        t.requires_grad_(True)
    return t


_anomaly = [False]


def set_detect_anomaly(mode: bool, check_nan: bool = True) -> None:
    _anomaly[0] = bool(mode)


def is_anomaly_enabled() -> bool:
    return _anomaly[0]


@contextlib.contextmanager
def detect_anomaly(check_nan: bool = True) -> Iterator[None]:
    yield


class graph:
    """``torch.autograd.graph``: the node type."""

    Node = Node


class functional:
    """``torch.autograd.functional``: Jacobians and Hessians of Tensor functions."""

    @staticmethod
    def vjp(func: Any, inputs: Any, v: Any = None, create_graph: bool = False,
            strict: bool = False) -> tuple:
        single = isinstance(inputs, Tensor)
        ins = [x.detach().requires_grad_(True) for x in _as_list(inputs)]
        out = func(*ins)
        grads = grad(out, ins, v, create_graph=create_graph, allow_unused=True,
                     materialize_grads=True)
        return (out if create_graph else out.detach()), (grads[0] if single else grads)

    @staticmethod
    def jacobian(func: Any, inputs: Any, create_graph: bool = False, strict: bool = False,
                 vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
        single = isinstance(inputs, Tensor)
        ins = [x.detach().requires_grad_(True) for x in _as_list(inputs)]
        out = func(*ins)
        flat = out.reshape(-1)
        rows: list[list] = [[] for _ in ins]
        for k in range(flat.shape[0]):
            gs = grad(flat[k], ins, retain_graph=True, create_graph=create_graph,
                      allow_unused=True, materialize_grads=True)
            for r, g in zip(rows, gs):
                r.append(g)
        jac = [F.stack(r).reshape(tuple(out.shape) + tuple(x.shape)) if r else
               F.reshape(x.new_zeros(tuple(out.shape) + tuple(x.shape)), tuple(out.shape) +
                         tuple(x.shape)) for r, x in zip(rows, ins)]
        return jac[0] if single else tuple(jac)

    @staticmethod
    def hessian(func: Any, inputs: Any, create_graph: bool = False, strict: bool = False,
                vectorize: bool = False) -> Any:
        single = isinstance(inputs, Tensor)
        ins = _as_list(inputs)

        def grad_fn(*xs: Any) -> Any:
            out = func(*xs)
            gs = grad(out, list(xs), create_graph=True, allow_unused=True,
                      materialize_grads=True)
            return gs[0]
        if single:
            return functional.jacobian(grad_fn, ins[0], create_graph=create_graph)
        raise NotImplementedError("hessian of several inputs is not supported")

    @staticmethod
    def jvp(func: Any, inputs: Any, v: Any = None, create_graph: bool = False,
            strict: bool = False) -> tuple:
        """``(func(*inputs), J v)`` by the double-backward trick (PyTorch's own):
        ``J v = d/du <J^T u, v>`` with a dummy cotangent ``u``.

        >>> import fad.torch as torch
        >>> torch.autograd.functional.jvp(lambda x: x ** 2, torch.ones(2), torch.ones(2))
        (tensor([1., 1.]), tensor([2., 2.]))
        """
        ins = [x.detach().requires_grad_(True) for x in _as_list(inputs)]
        vs = _as_list(v) if v is not None else [F.ones_like(x) for x in ins]
        out = func(*ins)
        outs = _as_list(out)
        dummies = [zeros_like(o).requires_grad_(True) for o in outs]
        gs = grad(outs, ins, dummies, create_graph=True, allow_unused=True,
                  materialize_grads=True)
        used = [(g, t) for g, t in zip(gs, vs) if g.requires_grad]
        jv = grad([g for g, _ in used], dummies, [t for _, t in used], create_graph=create_graph,
                  allow_unused=True, materialize_grads=True) if used else \
            tuple(zeros_like(o) for o in outs)
        jv = jv if create_graph else tuple(j.detach() for j in jv)
        shown = out if create_graph else _detached(out)
        return shown, (jv[0] if isinstance(out, Tensor) else tuple(jv))

    @staticmethod
    def vhp(func: Any, inputs: Any, v: Any = None, create_graph: bool = False,
            strict: bool = False) -> tuple:
        """``(func(*inputs), v^T H)`` of a scalar ``func``: the gradient of
        ``<grad func, v>`` (double backward).

        >>> import fad.torch as torch
        >>> torch.autograd.functional.vhp(lambda x: (x ** 3).sum(), torch.ones(2), torch.ones(2))
        (tensor(2.), tensor([6., 6.]))
        """
        ins = [x.detach().requires_grad_(True) for x in _as_list(inputs)]
        vs = _as_list(v) if v is not None else [F.ones_like(x) for x in ins]
        out = func(*ins)
        if out.numel() != 1:
            raise RuntimeError("The function given to hvp should return a single element "
                               "Tensor")
        gs = grad(out, ins, create_graph=True, allow_unused=True, materialize_grads=True)
        used = [(g, t) for g, t in zip(gs, vs) if g.requires_grad]
        hv = grad([g for g, _ in used], ins, [t for _, t in used], create_graph=create_graph,
                  allow_unused=True, materialize_grads=True) if used else \
            tuple(zeros_like(x) for x in ins)
        hv = hv if create_graph else tuple(h.detach() for h in hv)
        shown = out if create_graph else out.detach()
        return shown, (hv[0] if isinstance(inputs, Tensor) else tuple(hv))

    @staticmethod
    def hvp(func: Any, inputs: Any, v: Any = None, create_graph: bool = False,
            strict: bool = False) -> tuple:
        """``(func(*inputs), H v)`` of a scalar ``func`` (equal to ``vhp``: the
        Hessian of a twice-differentiable function is symmetric).

        >>> import fad.torch as torch
        >>> torch.autograd.functional.hvp(lambda x: (x ** 3).sum(), torch.ones(2), torch.ones(2))
        (tensor(2.), tensor([6., 6.]))
        """
        return functional.vhp(func, inputs, v, create_graph, strict)


def _detached(out: Any) -> Any:
    return out.detach() if isinstance(out, Tensor) else tuple(o.detach() for o in out)


from ._gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402,F401
