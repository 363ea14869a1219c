"""``torch.nn.utils.parametrize``: a module's tensor computed by a chain of modules
from stored "original" tensors, as PyTorch's. Registering the first one swaps the
module's class for a subclass (``Parametrized<Name>``) with a property of that
name; the originals live in ``module.parametrizations[name]`` (a ``ModuleList`` of
the parametrizations holding ``original``, or ``original0, original1, ...`` when
the first one's ``right_inverse`` returns several tensors)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any, Iterator

from ..._grad_mode import no_grad
from ...tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module, Parameter

__all__ = ["register_parametrization", "remove_parametrizations", "is_parametrized",
           "type_before_parametrizations", "cached", "ParametrizationList"]

_CACHE: dict | None = None  # while ``cached()`` is on: (id(module), name) -> value


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to its originals. The
    original tensor object itself becomes ``original`` (holding its right inverse's
    value), so an optimizer given it before keeps training it; unless ``unsafe``,
    the parametrization is evaluated once to check that it keeps the shape and dtype."""

    def __init__(self, modules: list, original: Any, unsafe: bool = False):
        if not modules:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Tensor | Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 f"the dtype.\noriginal.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            if new is not original:
                with no_grad():
                    original.data = new.detach()
            _register(self, "original", original)
        else:
            for k, value in enumerate(new):
                if not isinstance(value, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     f"tensors (list, tuple...). Got element {k} of the "
                                     f"sequence with type {type(value).__name__}.")
                if isinstance(original, Parameter):
                    value = Parameter(value, original.requires_grad)
                _register(self, f"original{k}", value.requires_grad_(original.requires_grad))
        if not unsafe:
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(Z).__name__}.")
            if Z.dtype != dtype:
                raise ValueError("Registering a parametrization may not change the dtype of "
                                 "the tensor, unless `unsafe` flag is enabled.\n"
                                 f"unparametrized dtype: {dtype}\nparametrized dtype: {Z.dtype}")
            if Z.shape != shape:
                raise ValueError("Registering a parametrization may not change the shape of "
                                 "the tensor, unless `unsafe` flag is enabled.\n"
                                 f"unparametrized shape: {shape}\nparametrized shape: {Z.shape}")

    def right_inverse(self, value: Tensor) -> None:
        """Store ``value`` as the parametrized tensor: the right inverses of the
        parametrizations, last first, give the originals."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                self.original.copy_(value)
            else:
                for k, v in enumerate(value):
                    getattr(self, f"original{k}").copy_(v)

    def forward(self) -> Tensor:
        modules = list(self)
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{k}") for k in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x


def _register(plist: Module, name: str, value: Tensor) -> None:
    """``value`` as a parameter of ``plist`` if it is one, else as a buffer."""
    if isinstance(value, Parameter):
        plist.register_parameter(name, value)
    else:
        plist.register_buffer(name, value)


def _swap_class(module: Module) -> None:
    cls = type(module)
    parametrized = type(f"Parametrized{cls.__name__}", (cls,), {"_original_class": cls})
    object.__setattr__(module, "__class__", parametrized)


def _inject_property(module: Module, name: str) -> None:
    def get(self: Module) -> Tensor:
        if _CACHE is not None:
            key = (id(self), name)
            if key not in _CACHE:
                _CACHE[key] = self.parametrizations[name]()
            return _CACHE[key]
        return self.parametrizations[name]()

    def set_(self: Module, value: Tensor) -> None:
        self.parametrizations[name].right_inverse(value)
    setattr(type(module), name, property(get, set_))


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Make ``module.<tensor_name>`` the value of ``parametrization`` (a module) on the
    tensor it held (after that tensor goes through ``parametrization.right_inverse``,
    when it has one); a second registration chains after the first.

    >>> import fad.torch as torch
    >>> from fad.torch.nn.utils import parametrize
    >>> class Symmetric(torch.nn.Module):
    ...     def forward(self, X):
    ...         return X.triu() + X.triu(1).transpose(-1, -2)
    >>> layer = parametrize.register_parametrization(torch.nn.Linear(3, 3), "weight",
    ...                                              Symmetric())
    >>> bool((layer.weight == layer.weight.T).all()), type(layer).__name__
    (True, 'ParametrizedLinear')
    """
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        if not unsafe:
            _check_chained(getattr(module, tensor_name), parametrization, tensor_name)
        plist.append(parametrization)
        plist.unsafe |= unsafe
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    original = getattr(module, tensor_name)
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        module.parametrizations = ModuleDict()
        _swap_class(module)
    module.parametrizations[tensor_name] = plist
    _inject_property(module, tensor_name)
    return module


def _check_chained(Y: Tensor, parametrization: Module, name: str) -> None:
    """PyTorch's checks of a parametrization chained after others on ``Y``: it and its
    right inverse keep the shape and dtype."""
    X = parametrization(Y)
    if not isinstance(X, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
    for what, got in (("dtype", X.dtype), ("shape", X.shape)):
        if got != getattr(Y, what):
            raise ValueError(f"Registering a parametrization may not change the {what} of the "
                             "tensor, unless the `unsafe` flag is enabled.\n"
                             f"module.{name}.{what}: {getattr(Y, what)}\n"
                             f"parametrization(module.{name}).{what}: {got}")
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        Z = parametrization.right_inverse(X)
    except NotImplementedError:
        return
    if not isinstance(Z, Tensor):
        raise ValueError("parametrization.right_inverse must return a tensor. Got: "
                         f"{type(Z).__name__}")
    for what, got in (("dtype", Z.dtype), ("shape", Z.shape)):
        if got != getattr(Y, what):
            raise ValueError("The tensor returned by parametrization.right_inverse must have "
                             f"the same {what} as module.{name}, unless the `unsafe` flag is "
                             f"enabled.\nmodule.{name}.{what}: {getattr(Y, what)}\n"
                             f"returned {what}: {got}")


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has parametrizations (for ``tensor_name``, when given)."""
    plists = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(plists, ModuleDict):
        return False
    return tensor_name is None or tensor_name in plists


def type_before_parametrizations(module: Module) -> type:
    """The class ``module`` had before its first parametrization."""
    return type(module).__dict__.get("_original_class", type(module)) \
        if is_parametrized(module) else type(module)


def remove_parametrizations(module: Module, tensor_name: str,
                            leave_parametrized: bool = True) -> Module:
    """Undo the parametrizations of ``tensor_name``: the tensor becomes a plain
    parameter (or buffer) again, holding the parametrized value (or, without
    ``leave_parametrized``, the original); the last one restores the class."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        value = plist() if leave_parametrized else original
        with no_grad():
            kept = value.detach().clone()
        kept = Parameter(kept, original.requires_grad) if isinstance(original, Parameter) \
            else kept
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        with no_grad():
            kept = Parameter(plist().detach().clone(), True)
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    if isinstance(kept, Parameter):
        module.register_parameter(tensor_name, kept)
    else:
        module.register_buffer(tensor_name, kept)
    if not len(module.parametrizations):
        delattr(module, "parametrizations")
        object.__setattr__(module, "__class__", type(module)._original_class)
    return module


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Within the block, each parametrized tensor is computed once (the value reused
    by every access)."""
    global _CACHE
    outer = _CACHE
    _CACHE = {} if outer is None else outer
    try:
        yield
    finally:
        _CACHE = outer
