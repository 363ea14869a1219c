"""``fad.optim``: optimisers as pure functions on pytrees, in the style of optax.

An optimiser is a ``GradientTransformation``: ``init(params) -> state`` and
``update(grads, state, params) -> (updates, state)``; ``apply_updates`` adds
the updates to the parameters. Both functions are pure, so ``fad.jit`` of a
whole training step works. The state holds the step count (``count``) where
a rule needs it.

>>> import fad, fad.numpy as fnp, fad.optim as optim
>>> loss = lambda p: fnp.sum((p["w"] - 3.0) ** 2)
>>> opt = optim.adam(0.1)
>>> params = {"w": fnp.zeros(2)}
>>> state = opt.init(params)
>>> @fad.jit
... def step(params, state):
...     updates, state = opt.update(fad.grad(loss)(params), state, params)
...     return optim.apply_updates(params, updates), state
>>> for _ in range(300):
...     params, state = step(params, state)
>>> [round(float(v), 3) for v in params["w"]]
[3.0, 3.0]
"""

from ._aliases import adabelief, adagrad, adam, adamw, lamb, lion, momentum, rmsprop, sgd
from ._base import (
    EmptyState,
    GradientTransformation,
    apply_updates,
    chain,
    global_norm,
    identity,
    stateless,
)
from ._schedules import (
    constant,
    constant_schedule,
    cosine_decay,
    cosine_decay_schedule,
    exponential_decay,
    join_schedules,
    linear_schedule,
    piecewise_constant_schedule,
    polynomial_schedule,
    warmup_cosine_decay,
    warmup_cosine_decay_schedule,
)
from ._transforms import (
    ScaleByAdamState,
    ScaleByLionState,
    ScaleByRmsState,
    ScaleByRssState,
    ScaleByRStdDevState,
    ScaleByScheduleState,
    TraceState,
    add_decayed_weights,
    clip,
    clip_by_global_norm,
    scale,
    scale_by_adam,
    scale_by_belief,
    scale_by_learning_rate,
    scale_by_lion,
    scale_by_rms,
    scale_by_rss,
    scale_by_schedule,
    scale_by_stddev,
    scale_by_trust_ratio,
    trace,
)

__all__ = [
    "GradientTransformation", "EmptyState", "chain", "identity", "stateless",
    "apply_updates", "global_norm",
    "sgd", "momentum", "adam", "adamw", "adabelief", "rmsprop", "adagrad", "lion", "lamb",
    "scale", "scale_by_schedule", "scale_by_learning_rate", "scale_by_adam",
    "scale_by_belief", "scale_by_rms", "scale_by_stddev", "scale_by_rss", "scale_by_lion",
    "scale_by_trust_ratio", "trace", "add_decayed_weights", "clip", "clip_by_global_norm",
    "ScaleByAdamState", "ScaleByLionState", "ScaleByRmsState", "ScaleByRssState",
    "ScaleByRStdDevState", "ScaleByScheduleState", "TraceState",
    "constant_schedule", "exponential_decay", "polynomial_schedule", "linear_schedule",
    "cosine_decay_schedule", "join_schedules", "warmup_cosine_decay_schedule",
    "piecewise_constant_schedule", "constant", "cosine_decay", "warmup_cosine_decay",
]


def __dir__() -> list[str]:
    return list(__all__)
