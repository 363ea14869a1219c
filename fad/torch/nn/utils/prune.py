"""``torch.nn.utils.prune``: zero out entries of a module's parameter by a mask.

Pruning parameter ``name`` of a module moves it to ``name + "_orig"`` (still the
trained parameter), registers the mask as buffer ``name + "_mask"``, and makes
``name`` a plain attribute, ``mask * orig``, recomputed before every forward call
by the pruning method itself, registered as a forward pre-hook. Pruning the same
parameter again combines the masks in a ``PruningContainer``: the new method only
sees the entries (or, for structured methods, the slices) still unpruned.
``remove`` makes the pruning permanent: ``name`` becomes a parameter again, holding
``mask * orig``. Every mask is computed with facade operations.

>>> import fad.torch as torch
>>> from fad.torch.nn.utils import prune
>>> lin = torch.nn.Linear(3, 2)
>>> with torch.no_grad():
...     _ = lin.weight.copy_(torch.tensor([[1.0, -5.0, 2.0], [0.5, 3.0, -4.0]]))
>>> _ = prune.l1_unstructured(lin, "weight", amount=2)
>>> lin.weight
tensor([[ 0., -5.,  2.],
        [ 0.,  3., -4.]], grad_fn=<MulBackward0>)
>>> [name for name, _ in lin.named_parameters()], [name for name, _ in lin.named_buffers()]
(['bias', 'weight_orig'], ['weight_mask'])
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

from ... import _functions as F
from ..._creation import ones_like, rand, rand_like, zeros_like
from ...tensor import Tensor
from . import parameters_to_vector, remove_hook

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask",
           "identity", "random_unstructured", "l1_unstructured", "random_structured",
           "ln_structured", "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


class BasePruningMethod(ABC):
    """A way to compute a parameter's mask (``compute_mask``); an instance, bound to
    one parameter name, is the forward pre-hook that applies the mask."""

    _tensor_name: str
    PRUNING_TYPE: str

    def __call__(self, module: Any, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The new mask of ``t``, given the mask it already has (``default_mask``)."""

    def apply_mask(self, module: Any) -> Tensor:
        """The pruned parameter: its mask times the original."""
        assert self._tensor_name is not None, \
            f"Module {module} has to be pruned"  # (as PyTorch's assertion)
        orig = getattr(module, self._tensor_name + "_orig")
        mask = getattr(module, self._tensor_name + "_mask")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module: Any, name: str, *args: Any, importance_scores: Any = None,
              **kwargs: Any) -> "BasePruningMethod":
        """Prune parameter ``name`` of ``module`` by ``cls(*args, **kwargs)`` (combined
        with the pruning it already has); ``importance_scores`` (the parameter's values
        by default) is what the mask is computed from."""
        old, keys = None, []
        for k, hook in module._forward_pre_hooks.items():
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                old = hook
                keys.append(k)
        assert len(keys) <= 1, (
            f"Avoid adding multiple pruning hooks to the same tensor {name} of "
            f"module {module}. Use a PruningContainer.")
        for k in keys:
            del module._forward_pre_hooks[k]
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if old is not None:
            container = PruningContainer(old)
            container.add_pruning_method(method)
            method = container
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as parameter {name} of "
                    f"{module}, got {importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig
        first = not isinstance(method, PruningContainer)
        if first:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:  # the parameter back (registered last, as PyTorch's)
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t: Tensor, default_mask: Tensor | None = None,
              importance_scores: Tensor | None = None) -> Tensor:
        """``t`` with this method's mask applied (nothing registered anywhere)."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError("importance_scores should have the same shape as tensor "
                                     f"t, got {importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module: Any) -> None:
        """Make the pruning permanent: ``name`` is a parameter again, holding the
        pruned values; ``name + "_orig"`` and ``name + "_mask"`` are gone."""
        assert self._tensor_name is not None, \
            f"Module {module} has to be pruned before pruning can be removed"
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """The pruning methods applied, in turn, to one parameter: iterable and indexable;
    its mask is the last method's, computed on what the earlier ones left."""

    def __init__(self, *args: Any):
        self._pruning_methods: tuple = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method: Any) -> None:
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}. Found "
                f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Any:
        return iter(self._pruning_methods)

    def __getitem__(self, idx: Any) -> Any:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The last method's mask, computed on the part of ``t`` still unpruned: the
        kept entries (unstructured), the kept slices along its ``dim`` (structured),
        or all of ``t`` (global), and written into ``default_mask`` there."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            slc: Any = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError("Pruning methods of PRUNING_TYPE 'structured' need to "
                                     "have the attribute `dim` defined.")
            n_dims = t.dim()
            dim = method.dim + n_dims if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            others = [d for d in range(n_dims) if d != dim]
            keep = default_mask.sum(dim=others) != 0
            slc = tuple(keep if d == dim else slice(None) for d in range(n_dims))
        elif kind == "global":
            slc = (slice(None),) * t.dim()
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing (the mask is all ones)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Any, name: str) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name)


class _ByScore(BasePruningMethod):
    """Prunes the ``amount`` entries (a count, or a fraction of them) of highest
    score (lowest, with ``_smallest``)."""

    PRUNING_TYPE = "unstructured"
    _smallest = False

    def __init__(self, amount: int | float):
        _check_amount(amount)
        self.amount = amount

    def _scores(self, t: Tensor) -> Tensor:
        raise NotImplementedError

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        k = _count_to_prune(self.amount, t.nelement())
        mask = default_mask.clone()
        if k:
            scores = self._scores(t).view(-1)
            mask.view(-1)[F.topk(scores, k=k, largest=not self._smallest).indices] = 0
        return mask


class RandomUnstructured(_ByScore):
    """Prunes ``amount`` entries (a count, or a fraction of them) chosen at random."""

    def _scores(self, t: Tensor) -> Tensor:
        return rand_like(t)

    @classmethod
    def apply(cls, module: Any, name: str, amount: int | float  # type: ignore[override]
              ) -> BasePruningMethod:
        return super().apply(module, name, amount=amount)


class L1Unstructured(_ByScore):
    """Prunes the ``amount`` entries (a count, or a fraction of them) of smallest
    absolute value."""

    _smallest = True

    def _scores(self, t: Tensor) -> Tensor:
        return F.abs(t)

    @classmethod
    def apply(cls, module: Any, name: str, amount: int | float,  # type: ignore[override]
              importance_scores: Any = None) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole slices along ``dim`` (a count, or a fraction of
    them) chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, dim: int = -1):
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _check_structured(t, self.dim)
        n = t.shape[self.dim]
        k = _count_to_prune(self.amount, n)
        if not k:
            return default_mask
        scores = rand(n)
        keep = scores > F.kthvalue(scores, k=k).values
        return _slices_mask(t, self.dim, keep) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module: Any, name: str, amount: int | float,  # type: ignore[override]
              dim: int = -1) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` slices along ``dim`` (a count, or a fraction of them)
    of smallest ``n``-norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, n: Any, dim: int = -1):
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _check_structured(t, self.dim)
        size = t.shape[self.dim]
        k = _count_to_prune(self.amount, size)
        if not k:
            return default_mask
        dim = self.dim % t.dim()
        norms = F.norm(t, p=self.n, dim=[d for d in range(t.dim()) if d != dim])
        keep = F.topk(norms, k=size - k, largest=True).indices
        return _slices_mask(t, self.dim, keep) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module: Any, name: str, amount: int | float, n: Any,  # type: ignore[override]
              dim: int, importance_scores: Any = None) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where the given ``mask`` is zero."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor):
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        assert default_mask.shape == self.mask.shape
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Any, name: str, mask: Tensor  # type: ignore[override]
              ) -> BasePruningMethod:
        return super().apply(module, name, mask=mask)


def _check_amount(amount: Any) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _count_to_prune(amount: Any, size: int) -> int:
    """How many of ``size`` entries (or slices) ``amount`` prunes: a count as it is,
    a fraction rounded (half to even, as Python's ``round``)."""
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(f"amount={amount} should be smaller than the number of "
                             f"parameters to prune={size}")
        return int(amount)
    return round(amount * size)


def _check_structured(t: Tensor, dim: int) -> None:
    if t.dim() <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional "
                         f"tensors. Found tensor of shape {t.shape} with {t.dim()} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _slices_mask(t: Tensor, dim: int, keep: Tensor) -> Tensor:
    """Ones on the slices of ``t`` along ``dim`` that ``keep`` selects (a boolean mask
    or indices), zeros elsewhere."""
    mask = zeros_like(t)
    mask[tuple(keep if d == dim % t.dim() else slice(None) for d in range(t.dim()))] = 1
    return mask


def identity(module: Any, name: str) -> Any:
    """Prune nothing of ``module``'s parameter ``name`` (but reparametrise it as
    pruning does: ``name + "_orig"`` and an all-ones ``name + "_mask"``)."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: Any, name: str, amount: int | float) -> Any:
    """Prune ``amount`` random entries of ``module``'s parameter ``name``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: Any, name: str, amount: int | float,
                    importance_scores: Any = None) -> Any:
    """Prune the ``amount`` entries of smallest magnitude (of ``importance_scores``,
    by default the parameter) of ``module``'s parameter ``name``."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Any, name: str, amount: int | float, dim: int) -> Any:
    """Prune ``amount`` random slices along ``dim`` of ``module``'s parameter ``name``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module: Any, name: str, amount: int | float, n: Any, dim: int,
                  importance_scores: Any = None) -> Any:
    """Prune the ``amount`` slices along ``dim`` of smallest ``n``-norm of ``module``'s
    parameter ``name``."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module: Any, name: str, mask: Tensor) -> Any:
    """Prune ``module``'s parameter ``name`` where ``mask`` is zero."""
    CustomFromMask.apply(module, name, mask=mask)
    return module


def global_unstructured(parameters: Any, pruning_method: type, importance_scores: Any = None,
                        **kwargs: Any) -> None:
    """Prune the ``(module, name)`` parameters together: ``pruning_method(**kwargs)``
    (an unstructured method) chooses among all their entries at once, so that some
    parameters may lose more entries than others.

    >>> import fad.torch as torch
    >>> from fad.torch.nn.utils import prune
    >>> a, b = torch.nn.Linear(4, 1), torch.nn.Linear(4, 1)
    >>> with torch.no_grad():
    ...     _ = a.weight.copy_(torch.tensor([[1.0, 2.0, 3.0, 4.0]]))
    ...     _ = b.weight.copy_(torch.tensor([[0.5, 5.0, 6.0, 0.1]]))
    >>> prune.global_unstructured([(a, "weight"), (b, "weight")],
    ...                           pruning_method=prune.L1Unstructured, amount=3)
    >>> a.weight_mask, b.weight_mask
    (tensor([[0., 1., 1., 1.]]), tensor([[0., 1., 1., 0.]]))
    """
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    parameters = list(parameters)
    scores = parameters_to_vector([importance_scores.get((m, name), getattr(m, name))
                                   for m, name in parameters])
    default_mask = parameters_to_vector([
        getattr(m, name + "_mask") if hasattr(m, name + "_mask") else ones_like(getattr(m, name))
        for m, name in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final = container.compute_mask(scores, default_mask)
    start = 0
    for m, name in parameters:
        param = getattr(m, name)
        size = param.numel()
        custom_from_mask(m, name, mask=final[start:start + size].view_as(param))
        start += size


def remove(module: Any, name: str) -> Any:
    """Make the pruning of ``module``'s parameter ``name`` permanent (see
    ``BasePruningMethod.remove``)."""
    return remove_hook(module, lambda h: isinstance(h, BasePruningMethod)
                       and h._tensor_name == name,
                       f"Parameter '{name}' of module {module} has to be pruned before pruning "
                       "can be removed")


def is_pruned(module: Any) -> bool:
    """Whether any parameter of ``module`` or of its descendants is pruned."""
    return any(isinstance(hook, BasePruningMethod)
               for _, m in module.named_modules() for hook in m._forward_pre_hooks.values())
