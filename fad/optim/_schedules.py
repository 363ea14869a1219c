"""Learning-rate schedules (optax's): functions of the step count, written in
``fad.numpy`` operations so that they run inside ``jit`` with a traced count."""

from __future__ import annotations

import math
from typing import Any, Sequence

from .. import numpy as fnp
from ._base import Schedule


def constant_schedule(value: float) -> Schedule:
    """``value`` at every step.

    >>> import fad.optim as optim
    >>> optim.constant_schedule(0.5)(100)
    0.5
    """
    return lambda count: value


def _check_steps(name: str, steps: int) -> None:
    if not steps > 0:
        raise ValueError(f"{name}: the number of steps must be positive, got {steps}")


def exponential_decay(init_value: float, transition_steps: int, decay_rate: float,
                      transition_begin: int = 0, staircase: bool = False,
                      end_value: float | None = None) -> Schedule:
    """``init_value * decay_rate^((count - transition_begin) / transition_steps)``
    (the exponent floored with ``staircase``), ``init_value`` before
    ``transition_begin``, bounded by ``end_value``.

    >>> import fad.optim as optim
    >>> float(optim.exponential_decay(1.0, 10, 0.5)(20))
    0.25
    """
    _check_steps("exponential_decay", transition_steps)
    if decay_rate == 0:
        raise ValueError("exponential_decay: decay_rate must not be 0")

    def schedule(count: Any) -> Any:
        steps = fnp.asarray(count) - transition_begin
        p = steps / transition_steps
        if staircase:
            p = fnp.floor(p)
        value = fnp.where(steps <= 0, init_value, init_value * fnp.power(decay_rate, p))
        if end_value is not None:
            value = (fnp.maximum if decay_rate < 1 else fnp.minimum)(value, end_value)
        return value
    return schedule


def polynomial_schedule(init_value: float, end_value: float, power: float,
                        transition_steps: int, transition_begin: int = 0) -> Schedule:
    """From ``init_value`` to ``end_value`` over ``transition_steps`` steps after
    ``transition_begin``, along ``(1 - t)^power``.

    >>> import fad.optim as optim
    >>> float(optim.polynomial_schedule(1.0, 0.0, 2, 10)(5))
    0.25
    """
    _check_steps("polynomial_schedule", transition_steps)

    def schedule(count: Any) -> Any:
        steps = fnp.clip(fnp.asarray(count) - transition_begin, 0, transition_steps)
        frac = 1 - steps / transition_steps
        return (init_value - end_value) * frac ** power + end_value
    return schedule


def linear_schedule(init_value: float, end_value: float, transition_steps: int,
                    transition_begin: int = 0) -> Schedule:
    """From ``init_value`` to ``end_value`` linearly over ``transition_steps`` steps.

    >>> import fad.optim as optim
    >>> float(optim.linear_schedule(1.0, 0.0, 10)(5))
    0.5
    """
    return polynomial_schedule(init_value, end_value, 1, transition_steps, transition_begin)


def cosine_decay_schedule(init_value: float, decay_steps: int, alpha: float = 0.0,
                          exponent: float = 1.0) -> Schedule:
    """``init_value ((1 - alpha) c^exponent + alpha)`` with
    ``c = (1 + cos(pi min(count, decay_steps) / decay_steps)) / 2``.

    >>> import fad.optim as optim
    >>> float(optim.cosine_decay_schedule(1.0, 10)(5))
    0.5
    """
    _check_steps("cosine_decay_schedule", decay_steps)

    def schedule(count: Any) -> Any:
        t = fnp.minimum(fnp.asarray(count), decay_steps) / decay_steps
        cosine = 0.5 * (1 + fnp.cos(math.pi * t))
        return init_value * ((1 - alpha) * cosine ** exponent + alpha)
    return schedule


def join_schedules(schedules: Sequence[Schedule], boundaries: Sequence[int]) -> Schedule:
    """``schedules[i]`` from step ``boundaries[i - 1]`` on, each started at 0.

    >>> import fad.optim as optim
    >>> s = optim.join_schedules([optim.constant_schedule(1.0),
    ...                           optim.linear_schedule(1.0, 0.0, 4)], [10])
    >>> float(s(9)), float(s(12))
    (1.0, 0.5)
    """
    if len(schedules) != len(boundaries) + 1:
        raise ValueError(f"join_schedules: {len(schedules)} schedules need "
                         f"{len(schedules) - 1} boundaries, got {len(boundaries)}")

    def schedule(count: Any) -> Any:
        count = fnp.asarray(count)
        value = schedules[0](count)
        for s, b in zip(schedules[1:], boundaries):
            value = fnp.where(count < b, value, s(count - b))
        return value
    return schedule


def warmup_cosine_decay_schedule(init_value: float, peak_value: float, warmup_steps: int,
                                 decay_steps: int, end_value: float = 0.0,
                                 exponent: float = 1.0) -> Schedule:
    """Linear warm-up from ``init_value`` to ``peak_value`` over ``warmup_steps``,
    then cosine decay to ``end_value`` at step ``decay_steps`` (counted from 0,
    warm-up included).

    >>> import fad.optim as optim
    >>> s = optim.warmup_cosine_decay_schedule(0.0, 1.0, 10, 110)
    >>> float(s(5)), float(s(10)), float(s(110))
    (0.5, 1.0, 0.0)
    """
    alpha = 0.0 if peak_value == 0 else end_value / peak_value
    return join_schedules([linear_schedule(init_value, peak_value, warmup_steps),
                           cosine_decay_schedule(peak_value, decay_steps - warmup_steps,
                                                 alpha, exponent)], [warmup_steps])


def piecewise_constant_schedule(init_value: float,
                                boundaries_and_scales: dict[int, float] | None = None
                                ) -> Schedule:
    """``init_value`` multiplied by ``scale`` at every ``boundary`` reached
    (``count >= boundary``).

    >>> import fad.optim as optim
    >>> s = optim.piecewise_constant_schedule(1.0, {10: 0.1, 20: 0.5})
    >>> [round(float(s(n)), 6) for n in (0, 10, 25)]
    [1.0, 0.1, 0.05]
    """
    pieces = sorted((boundaries_and_scales or {}).items())
    for _, s in pieces:
        if s < 0:
            raise ValueError("piecewise_constant_schedule: scales must be non-negative, "
                             f"got {s}")

    def schedule(count: Any) -> Any:
        count = fnp.asarray(count)
        value = fnp.asarray(float(init_value))
        for b, s in pieces:
            value = fnp.where(count < b, value, value * s)
        return value
    return schedule


# the short names (``fad.optim.constant``, ``cosine_decay``, ``warmup_cosine_decay``):
# the same functions as optax's ``*_schedule`` names
constant = constant_schedule
cosine_decay = cosine_decay_schedule
warmup_cosine_decay = warmup_cosine_decay_schedule
