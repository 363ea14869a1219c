"""Batching (``vmap``): tracers carry a value with an extra batch axis ``bdim``
(or ``None`` when the value is the same for every example). Each primitive's
``batch`` rule maps batched operands to a batched result in one call; a
primitive without a rule is run once per example and stacked (correct, slower).
"""

from __future__ import annotations

from typing import Any, Callable

from ..core.errors import ConcretizationError, ShapeError, concretization_message
from ..core.ir import ShapedArray
from ..core.trace import Trace, Tracer, aval_of, bind, new_main, primitive_error
from ..primitives.builders import loop_batch_rule


class BatchTracer(Tracer):
    __slots__ = ("val", "bdim")

    def __init__(self, trace: Trace, val: Any, bdim: int | None):
        self._trace = trace
        self.val = val
        self.bdim = bdim

    @property
    def aval(self) -> ShapedArray:
        aval = aval_of(self.val)
        if self.bdim is None:
            return aval
        shape = aval.shape[:self.bdim] + aval.shape[self.bdim + 1:]
        return ShapedArray.make(shape, aval.dtype)

    @property
    def shape(self) -> tuple:
        s = self.val.shape
        d = self.bdim
        return s if d is None else s[:d] + s[d + 1:]

    @property
    def dtype(self) -> Any:
        return self.val.dtype

    def concrete_value(self) -> Any:
        if self.bdim is not None:
            raise ConcretizationError(concretization_message("The value", self.aval, True),
                                      batched=True)
        v = self.val
        return v.concrete_value() if isinstance(v, Tracer) else v

    def inner(self) -> Any:
        return self.val


class BatchTrace(Trace):
    def __init__(self, main: Any, payload: int):
        super().__init__(main, payload)
        self.axis_size = payload

    def process_primitive(self, prim: Any, args: Any, params: dict) -> Any:
        if prim.inline is not None:  # a call (jit): batch its body
            return prim.inline(*args, **params)
        vals, dims = [], []
        for a in args:
            if isinstance(a, BatchTracer) and a._trace is self:
                vals.append(a.val)
                dims.append(a.bdim)
            else:
                vals.append(a)
                dims.append(None)
        if all(d is None for d in dims):
            out = bind(prim, *vals, **params)
            if prim.multiple_results:
                return [BatchTracer(self, o, None) for o in out]
            return BatchTracer(self, out, None)
        rule = prim.batch or loop_batch_rule(prim)
        try:
            out, out_dim = rule(self.axis_size, vals, dims, **params)
        except (ShapeError, ValueError, IndexError):
            _check_per_example(prim, args, params)  # name the shapes the user wrote
            raise
        if prim.multiple_results:
            return [BatchTracer(self, o, d) for o, d in zip(out, out_dim)]
        return BatchTracer(self, out, out_dim)


def _check_per_example(prim: Any, args: Any, params: dict) -> None:
    """Raise the error of ``prim`` on the per-example operands, if it has one (a
    batching rule fails on the batched shapes, which the user never wrote)."""
    try:
        prim.abstract_eval(*[aval_of(a) for a in args], **params)
    except (ShapeError, ValueError, IndexError) as e:
        raise primitive_error(prim, args, params, e) from None


def vmap_flat(fun: Callable, size: int, vals: list, dims: list, label: str = "fad.vmap",
              ) -> tuple[list, list]:
    """Batch ``fun`` over flat lists; returns the outputs and their batch axes."""
    with new_main(BatchTrace, size, label=label) as main:
        trace = main.trace
        ins = [BatchTracer(trace, v, d) if d is not None else v for v, d in zip(vals, dims)]
        outs = fun(*ins)
        pairs = [(o.val, o.bdim) if isinstance(o, BatchTracer) and o._trace is trace
                 else (o, None) for o in outs]
    return [v for v, _ in pairs], [d for _, d in pairs]
