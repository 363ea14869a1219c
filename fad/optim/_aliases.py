"""Ready-made optimisers (optax's names and defaults), each a chain of the
building blocks ending in ``scale_by_learning_rate``; ``learning_rate`` is a
number or a schedule (a function of the step count)."""

from __future__ import annotations

from typing import Any

from ._base import GradientTransformation, ScalarOrSchedule, chain, identity
from ._transforms import (
    add_decayed_weights,
    scale_by_adam,
    scale_by_belief,
    scale_by_learning_rate,
    scale_by_lion,
    scale_by_rms,
    scale_by_rss,
    scale_by_stddev,
    scale_by_trust_ratio,
    trace,
)


def sgd(learning_rate: ScalarOrSchedule, momentum: float | None = None,
        nesterov: bool = False) -> GradientTransformation:
    """Stochastic gradient descent, with (Nesterov) momentum when ``momentum`` is
    given: ``t <- g + momentum t``, ``p <- p - lr t`` (PyTorch's ``SGD`` with
    ``dampening=0``, the same numbers).

    >>> import fad.optim as optim
    >>> opt = optim.sgd(0.1)
    >>> float(opt.update({"w": 2.0}, opt.init({"w": 1.0}))[0]['w'])
    -0.2
    """
    return chain(identity() if momentum is None else trace(momentum, nesterov),
                 scale_by_learning_rate(learning_rate))


def momentum(learning_rate: ScalarOrSchedule, momentum: float = 0.9,
             nesterov: bool = False) -> GradientTransformation:
    """``sgd(learning_rate, momentum, nesterov)``: gradient descent with heavy-ball
    momentum.

    >>> import fad.optim as optim
    >>> opt = optim.momentum(1.0, 0.5)
    >>> u, s = opt.update([1.0], opt.init([0.0]))
    >>> float(opt.update([1.0], s)[0][0])
    -1.5
    """
    return sgd(learning_rate, momentum, nesterov)


def adam(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.999,
         eps: float = 1e-8, eps_root: float = 0.0) -> GradientTransformation:
    """Adam: ``p <- p - lr m_hat / (sqrt(v_hat + eps_root) + eps)`` (PyTorch's
    ``Adam(lr, betas=(b1, b2), eps)`` gives the same numbers).

    >>> import fad.optim as optim
    >>> opt = optim.adam(0.1)
    >>> round(float(opt.update([5.0], opt.init([0.0]))[0][0]), 6)
    -0.1
    """
    return chain(scale_by_adam(b1, b2, eps, eps_root), scale_by_learning_rate(learning_rate))


def adamw(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.999,
          eps: float = 1e-8, eps_root: float = 0.0, weight_decay: float = 1e-4,
          mask: Any = None) -> GradientTransformation:
    """Adam with decoupled weight decay: ``p <- p - lr (adam + weight_decay p)``
    (PyTorch's ``AdamW``, whose default ``weight_decay`` is 1e-2, not 1e-4).

    >>> import fad.optim as optim
    >>> opt = optim.adamw(0.1, weight_decay=0.5)
    >>> round(float(opt.update([5.0], opt.init([2.0]), [2.0])[0][0]), 6)
    -0.2
    """
    return chain(scale_by_adam(b1, b2, eps, eps_root), add_decayed_weights(weight_decay, mask),
                 scale_by_learning_rate(learning_rate))


def adabelief(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.999,
              eps: float = 1e-16, eps_root: float = 1e-16) -> GradientTransformation:
    """AdaBelief: Adam with the running variance of the gradient around its mean.

    >>> import fad.optim as optim
    >>> opt = optim.adabelief(1.0)
    >>> u, s = opt.update([1.0], opt.init([0.0]))
    >>> float(u[0]) < 0
    True
    """
    return chain(scale_by_belief(b1, b2, eps, eps_root), scale_by_learning_rate(learning_rate))


def rmsprop(learning_rate: ScalarOrSchedule, decay: float = 0.9, eps: float = 1e-8,
            initial_scale: float = 0.0, eps_in_sqrt: bool = True, centered: bool = False,
            momentum: float | None = None, nesterov: bool = False) -> GradientTransformation:
    """RMSprop: ``p <- p - lr g / sqrt(v + eps)``. PyTorch's ``RMSprop(lr, alpha,
    eps, momentum, centered)`` is ``rmsprop(lr, decay=alpha, eps=eps,
    eps_in_sqrt=False, momentum=momentum or None, centered=centered)``: it adds
    ``eps`` after the square root.

    >>> import fad.optim as optim
    >>> opt = optim.rmsprop(1.0, decay=0.75, eps=0.0)
    >>> float(opt.update([3.0], opt.init([0.0]))[0][0])
    -2.0
    """
    rescale = (scale_by_stddev if centered else scale_by_rms)(decay, eps, initial_scale,
                                                             eps_in_sqrt)
    return chain(rescale, scale_by_learning_rate(learning_rate),
                 identity() if momentum is None else trace(momentum, nesterov))


def adagrad(learning_rate: ScalarOrSchedule, initial_accumulator_value: float = 0.1,
            eps: float = 1e-7) -> GradientTransformation:
    """Adagrad: ``p <- p - lr g / sqrt(s + eps)``, ``s`` the sum of the squared
    gradients so far (from ``initial_accumulator_value``). PyTorch's ``Adagrad``
    adds its ``eps`` after the square root: both agree when ``eps=0``.

    >>> import fad.optim as optim
    >>> opt = optim.adagrad(1.0, 0.0, 0.0)
    >>> float(opt.update([4.0], opt.init([0.0]))[0][0])
    -1.0
    """
    return chain(scale_by_rss(initial_accumulator_value, eps),
                 scale_by_learning_rate(learning_rate))


def lion(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.99,
         weight_decay: float = 1e-3, mask: Any = None) -> GradientTransformation:
    """Lion: ``p <- p - lr (sign((1 - b1) g + b1 m) + weight_decay p)``.

    >>> import fad.optim as optim
    >>> opt = optim.lion(0.1, weight_decay=0.0)
    >>> float(opt.update([-3.0], opt.init([0.0]), [0.0])[0][0])
    0.1
    """
    return chain(scale_by_lion(b1, b2), add_decayed_weights(weight_decay, mask),
                 scale_by_learning_rate(learning_rate))


def lamb(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.999,
         eps: float = 1e-6, eps_root: float = 0.0, weight_decay: float = 0.0,
         mask: Any = None) -> GradientTransformation:
    """LAMB: Adam's update plus weight decay, rescaled leaf by leaf by the trust
    ratio ``|p| / |u|``.

    >>> import fad.optim as optim
    >>> opt = optim.lamb(0.1)
    >>> round(float(opt.update([5.0], opt.init([2.0]), [2.0])[0][0]), 6)
    -0.2
    """
    return chain(scale_by_adam(b1, b2, eps, eps_root), add_decayed_weights(weight_decay, mask),
                 scale_by_trust_ratio(), scale_by_learning_rate(learning_rate))
