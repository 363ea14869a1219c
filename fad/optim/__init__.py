"""``fad.optim``: optimisers as pure functions on pytrees, in the style of optax.

An optimiser is a pair ``init(params) -> state`` and
``update(grads, state, params) -> (updates, state)``; ``apply_updates`` adds
the updates to the parameters.
"""

__all__: list[str] = []
