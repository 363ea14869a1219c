"""``torch.optim.swa_utils``: stochastic weight averaging. ``AveragedModel`` keeps
a copy of a model whose parameters are the running (or exponential) average of the
model's over ``update_parameters`` calls; ``SWALR`` anneals each group's learning
rate to ``swa_lr``; ``update_bn`` recomputes batch-norm statistics for the averaged
weights; formulas as PyTorch's."""

from __future__ import annotations

import copy
import math
from typing import Any, Callable, Iterable

from .._creation import tensor
from .._grad_mode import no_grad
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler

__all__ = ["AveragedModel", "SWALR", "update_bn", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """``decay * averaged + (1 - decay) * current``, one tensor at a time."""
    def ema(averaged: Any, current: Any, num_averaged: Any) -> Any:
        return decay * averaged + (1 - decay) * current
    return ema


def get_swa_avg_fn() -> Callable:
    """The running mean: ``averaged + (current - averaged) / (n + 1)``."""
    def swa(averaged: Any, current: Any, num_averaged: Any) -> Any:
        return averaged + (current - averaged) / (num_averaged + 1)
    return swa


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """``get_ema_avg_fn`` over lists of tensors, in place."""
    one = get_ema_avg_fn(decay)

    def ema(averaged: list, current: list, num_averaged: Any) -> None:
        for a, c in zip(averaged, current):
            a.copy_(one(a, c, num_averaged))
    return ema


def get_swa_multi_avg_fn() -> Callable:
    """``get_swa_avg_fn`` over lists of tensors, in place."""
    one = get_swa_avg_fn()

    def swa(averaged: list, current: list, num_averaged: Any) -> None:
        for a, c in zip(averaged, current):
            a.copy_(one(a, c, num_averaged))
    return swa


class AveragedModel(Module):
    """A copy of ``model`` (under ``module``) holding the average of the parameters
    it is shown by ``update_parameters`` (the running mean by default; ``avg_fn`` or
    ``multi_avg_fn`` for another, as ``get_ema_multi_avg_fn``); ``n_averaged`` counts
    them. Calling it runs the averaged copy.

    >>> import fad.torch as torch
    >>> m = torch.nn.Linear(2, 1)
    >>> list(torch.optim.swa_utils.AveragedModel(m).state_dict())
    ['n_averaged', 'module.weight', 'module.bias']
    """

    def __init__(self, model: Module, device: Any = None, avg_fn: Callable | None = None,
                 multi_avg_fn: Callable | None = None, use_buffers: bool = False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        self.register_buffer("n_averaged", tensor(0))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def _tensors(self, model: Module) -> list:
        return list(model.parameters()) + (list(model.buffers()) if self.use_buffers else [])

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current parameters into the average (the first call copies
        them)."""
        mine = self._tensors(self.module)
        theirs = [p.detach() for p in self._tensors(model)]
        with no_grad():
            if int(self.n_averaged) == 0:
                for a, c in zip(mine, theirs):
                    a.copy_(c)
            elif self.multi_avg_fn is not None:
                self.multi_avg_fn([a.detach() for a in mine], theirs, self.n_averaged)
            else:
                fn = self.avg_fn or get_swa_avg_fn()
                for a, c in zip(mine, theirs):
                    a.copy_(fn(a.detach(), c, self.n_averaged))
            self.n_averaged.add_(1)
        if not self.use_buffers:  # (the buffers follow the model's, as PyTorch's)
            for a, c in zip(self.module.buffers(), model.buffers()):
                with no_grad():
                    a.copy_(c)


def update_bn(loader: Iterable, model: Module, device: Any = None) -> None:
    """Recompute the running statistics of ``model``'s batch norms over ``loader``
    (their cumulative average, ``momentum=None``, from fresh statistics).

    >>> import fad.torch as torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
    >>> torch.optim.swa_utils.update_bn([torch.ones(4, 2)], net)
    >>> net[1].num_batches_tracked
    tensor(1)
    """
    from ..nn.modules.normalization import _BatchNorm
    norms = [m for m in model.modules() if isinstance(m, _BatchNorm)]
    if not norms:
        return
    momenta = {}
    for m in norms:
        m.reset_running_stats()
        momenta[m] = m.momentum
        m.momentum = None
    was_training = model.training
    model.train()
    with no_grad():
        for batch in loader:
            model(batch[0] if isinstance(batch, list | tuple) else batch)
    for m in norms:
        m.momentum = momenta[m]
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate from its value to ``swa_lr`` over
    ``anneal_epochs`` steps (``"cos"`` or ``"linear"``), then hold it.

    >>> import fad.torch as torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.5)
    >>> torch.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=2).get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer: Any, swa_lr: float | list, anneal_epochs: int = 10,
                 anneal_strategy: str = "cos", last_epoch: int = -1):
        lrs = swa_lr if isinstance(swa_lr, list | tuple) else [swa_lr] * len(
            optimizer.param_groups)
        for group, lr in zip(optimizer.param_groups, lrs):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must by one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else \
            self._linear_anneal
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        return swa_lr if alpha == 1 else (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha)
                for g in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha)
                for g, lr in zip(self.optimizer.param_groups, prev)]

