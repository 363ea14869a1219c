"""The optimiser type, its combinators and the pytree arithmetic optimisers share."""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

from .. import numpy as fnp
from ..tree import tree_leaves, tree_map

Schedule = Callable[[Any], Any]
ScalarOrSchedule = float | Schedule


class GradientTransformation(NamedTuple):
    """An optimiser (or a piece of one): ``init(params) -> state`` and
    ``update(updates, state, params=None) -> (updates, state)``, both pure.

    >>> import fad.optim as optim
    >>> opt = optim.scale(0.5)
    >>> float(opt.update({"w": 2.0}, opt.init({"w": 1.0}))[0]['w'])
    1.0
    """

    init: Callable[[Any], Any]
    update: Callable[..., tuple[Any, Any]]


class EmptyState(NamedTuple):
    """The state of a stateless transformation."""


def identity() -> GradientTransformation:
    """The transformation that leaves updates as they are.

    >>> import fad.optim as optim
    >>> float(optim.identity().update([3.0], optim.EmptyState())[0][0])
    3.0
    """
    return GradientTransformation(lambda params: EmptyState(),
                                  lambda updates, state, params=None: (updates, state))


def stateless(f: Callable[[Any, Any], Any]) -> GradientTransformation:
    """A transformation without state: ``updates -> f(updates, params)``.

    >>> import fad.optim as optim
    >>> neg = optim.stateless(lambda u, p: [-v for v in u])
    >>> neg.update([2.0], neg.init([0.0]))[0]
    [-2.0]
    """
    return GradientTransformation(lambda params: EmptyState(),
                                  lambda updates, state, params=None: (f(updates, params),
                                                                       state))


def chain(*transforms: GradientTransformation) -> GradientTransformation:
    """The transformations applied one after another; the state is the tuple of
    their states.

    >>> import fad.optim as optim
    >>> opt = optim.chain(optim.clip(1.0), optim.scale(-0.1))
    >>> float(opt.update([5.0], opt.init([0.0]))[0][0])
    -0.1
    """
    for i, t in enumerate(transforms):
        if not isinstance(t, GradientTransformation):
            raise TypeError(f"chain: argument {i} is a {type(t).__name__}, not a "
                            "GradientTransformation (call the factory: optim.adam(1e-3))")

    def init(params: Any) -> tuple:
        return tuple(t.init(params) for t in transforms)

    def update(updates: Any, state: tuple, params: Any = None) -> tuple[Any, tuple]:
        if len(state) != len(transforms):
            raise ValueError(f"chain.update: the state has {len(state)} parts for "
                             f"{len(transforms)} transformations (was it made by this "
                             "chain's init?)")
        new = []
        for t, s in zip(transforms, state):
            updates, s = t.update(updates, s, params)
            new.append(s)
        return updates, tuple(new)
    return GradientTransformation(init, update)


def apply_updates(params: Any, updates: Any) -> Any:
    """``params + updates`` leafwise, each result in its parameter's dtype.

    >>> import fad.optim as optim
    >>> float(optim.apply_updates({"w": 1.0}, {"w": -0.25})["w"])
    0.75
    """
    def add(p: Any, u: Any) -> Any:
        if p is None:
            return None
        p = fnp.asarray(p)
        return fnp.astype(fnp.add(p, u), p.dtype)
    return tree_map(add, params, updates, is_leaf=lambda x: x is None)


def global_norm(updates: Any) -> Any:
    """``sqrt(sum of |x|^2)`` over every element of every leaf.

    >>> import fad.optim as optim
    >>> float(optim.global_norm({"a": [3.0], "b": 4.0}))
    5.0
    """
    total = sum((fnp.sum(fnp.real(x * fnp.conj(x))) for x in tree_leaves(updates)), 0.0)
    return fnp.sqrt(total)


def zeros_like_tree(params: Any) -> Any:
    return tree_map(fnp.zeros_like, params)


def ema(new: Any, old: Any, decay: float, power: int = 1) -> Any:
    """``(1 - decay) new^power + decay old`` leafwise (a moment's running mean)."""
    return tree_map(lambda g, m: (1 - decay) * (g if power == 1 else g * g) + decay * m,
                    new, old)


def bias_corrected(moment: Any, decay: float, count: Any) -> Any:
    """``moment / (1 - decay^count)``: Adam's correction of a zero-started mean."""
    correction = 1 - fnp.power(decay, count)
    return tree_map(lambda m: m / fnp.astype(correction, fnp.asarray(m).dtype), moment)


def increment(count: Any) -> Any:
    return fnp.add(count, fnp.asarray(1, count.dtype))


def as_schedule(value: ScalarOrSchedule) -> Schedule:
    """``value`` if it is a schedule (a function of the step count), else a
    constant schedule."""
    return value if callable(value) else (lambda count: value)
