"""The containers of ``torch.nn``: ``Sequential``, ``ModuleList``, ``ModuleDict``,
``ParameterList``, ``ParameterDict``, with PyTorch's list and dict operations
(indexing, slicing, insertion, deletion with renumbering, ``+``, ``*``) and
PyTorch's messages for misuse.

>>> import fad.torch as torch
>>> net = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Tanh(), torch.nn.Sigmoid())
>>> [name for name, _ in net[1:].named_children()]
['1', '2']
>>> del net[0]
>>> [name for name, _ in net.named_children()]
['0', '1']
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any, Iterator

from ...tensor import Tensor
from .module import Module, Parameter

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


class _Ordered(Module):
    """A container of the values of one of its dictionaries (``_modules``, or
    ``_parameters``) under the keys ``"0"``, ``"1"``...: ``c[i]``, ``c[i] = v``,
    ``del c[i]``, ``len(c)``, ``iter(c)``, ``insert``, ``pop``, ``extend``."""

    _held = "_modules"

    def __init__(self, items: Any = None):
        super().__init__()
        for x in items or []:
            self.append(x)

    @property
    def _store(self) -> OrderedDict:
        return getattr(self, self._held)

    def _key(self, idx: Any) -> str:
        """The key of position ``idx`` (PyTorch's ``IndexError`` outside)."""
        idx = operator.index(idx)
        size = len(self)
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        return list(self._store)[idx % size]

    def _wrap(self, value: Any) -> Any:
        return value

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return type(self)(list(self._store.values())[i])
        return self._store[self._key(i)]

    def __setitem__(self, i: Any, value: Any) -> None:
        key, value = self._key(i), self._wrap(value)
        if isinstance(value, (Module, Parameter)):
            self._store[key] = value  # (in place: the position is kept)
        else:
            setattr(self, key, value)

    def __delitem__(self, i: Any) -> None:
        keys = list(self._store)[i] if isinstance(i, slice) else [self._key(i)]
        for k in keys:
            delattr(self, k)
        self._renumber(list(self._store.values()))

    def _renumber(self, values: list) -> None:
        """Hold ``values`` under ``"0"``, ``"1"``... (PyTorch keeps the numbering
        dense after a deletion or an insertion)."""
        store = self._store
        store.clear()
        store.update((str(i), v) for i, v in enumerate(values))

    def __len__(self) -> int:
        return len(self._store)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._store.values())

    def __iadd__(self, values: Any) -> Any:
        return self.extend(values)

    def append(self, value: Any) -> Any:
        setattr(self, str(len(self)), self._wrap(value))
        return self

    def extend(self, values: Any) -> Any:
        if not isinstance(values, Iterable):
            raise TypeError(f"{type(self).__name__}.extend should be called with an iterable, "
                            f"but got {type(values).__name__}")
        for v in list(values):
            self.append(v)
        return self

    def insert(self, index: int, value: Any) -> None:
        values = list(self._store.values())
        values.insert(index, self._wrap(value))
        self._renumber(values)

    def pop(self, key: Any) -> Any:
        v = self[key]
        del self[key]
        return v


class Sequential(_Ordered):
    """Modules applied one after the other; a slice keeps the children's names.

    >>> import fad.torch as torch
    >>> net = torch.nn.Sequential(torch.nn.ReLU()) * 2 + torch.nn.Sequential(torch.nn.Tanh())
    >>> len(net), type(net[2]).__name__
    (3, 'Tanh')
    """

    def __init__(self, *args: Any):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for k, m in args[0].items():
                self.add_module(k, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, input: Any) -> Any:
        for m in self._modules.values():
            input = m(input)
        return input

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return type(self)(OrderedDict(list(self._modules.items())[i]))
        return super().__getitem__(i)

    def append(self, module: Module) -> "Sequential":
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> "Sequential":
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        super().insert(index + n if index < 0 else index, module)
        return self

    def __add__(self, other: Any) -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        return Sequential(*self, *other)

    def __iadd__(self, other: Any) -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        return self.extend(other)

    def _times(self, other: Any) -> list:
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and "
                            f"{type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        return list(self) * other

    def __mul__(self, other: Any) -> "Sequential":
        return Sequential(*self._times(other))

    __rmul__ = __mul__

    def __imul__(self, other: Any) -> "Sequential":
        self._renumber(self._times(other))
        return self


class ModuleList(_Ordered):
    """A list of modules, registered as children.

    >>> import fad.torch as torch
    >>> layers = torch.nn.ModuleList([torch.nn.ReLU()])
    >>> layers.insert(0, torch.nn.Tanh()); layers += [torch.nn.Sigmoid()]
    >>> [type(m).__name__ for m in layers]
    ['Tanh', 'ReLU', 'Sigmoid']
    """

    def __init__(self, modules: Any = None):
        super().__init__(modules)

    def __add__(self, other: Iterable) -> "ModuleList":
        return ModuleList([*self, *other])


class _Keyed(Module):
    """A dictionary held in one of the module's stores (``_modules`` or
    ``_parameters``): ``d[k]``, ``del d[k]``, ``k in d``, ``len``, iteration over
    the keys, ``keys items values pop clear update``."""

    _held = "_modules"
    _kind = "ModuleDict"

    def __init__(self, items: Any = None):
        super().__init__()
        if items is not None:
            self.update(items)

    @property
    def _store(self) -> OrderedDict:
        return getattr(self, self._held)

    def __getitem__(self, k: str) -> Any:
        return self._store[k]

    def __delitem__(self, k: str) -> None:
        del self._store[k]

    def __contains__(self, k: object) -> bool:
        return k in self._store

    def __iter__(self) -> Iterator[str]:
        return iter(self._store)

    def __len__(self) -> int:
        return len(self._store)

    def keys(self) -> Any:
        return self._store.keys()

    def items(self) -> Any:
        return self._store.items()

    def values(self) -> Any:
        return self._store.values()

    def clear(self) -> None:
        self._store.clear()

    def pop(self, key: str) -> Any:
        v = self[key]
        del self[key]
        return v

    def update(self, items: Any) -> None:
        _update(self, items, self._kind)


class ModuleDict(_Keyed):
    """A dictionary of modules, registered as children under their keys.

    >>> import fad.torch as torch
    >>> d = torch.nn.ModuleDict({"act": torch.nn.ReLU()})
    >>> d.update([("out", torch.nn.Tanh())]); type(d.pop("act")).__name__, list(d)
    ('ReLU', ['out'])
    """

    def __init__(self, modules: Any = None):
        super().__init__(modules)

    def __setitem__(self, k: str, m: Module) -> None:
        self.add_module(k, m)


def _update(d: Any, items: Any, kind: str) -> None:
    """``d[k] = v`` for the pairs of a mapping or an iterable of pairs (PyTorch's
    checks and messages)."""
    if not isinstance(items, Iterable):
        raise TypeError(f"{kind}.update should be called with an iterable of key/value "
                        f"pairs, but got {type(items).__name__}")
    if isinstance(items, (Mapping, _Keyed)):
        pairs = list(items.items())
        if isinstance(d, ParameterDict) and not isinstance(items, (OrderedDict, ParameterDict)):
            pairs.sort(key=lambda kv: kv[0])  # (as PyTorch's, for an unordered mapping)
        for k, v in pairs:
            d[k] = v
        return
    for j, pair in enumerate(items):
        if not isinstance(pair, Iterable):
            raise TypeError(f"{kind} update sequence element #{j} should be Iterable; is"
                            f"{type(pair).__name__}")
        pair = list(pair)
        if len(pair) != 2:
            raise ValueError(f"{kind} update sequence element #{j} has length {len(pair)}; 2 "
                             "is required")
        d[pair[0]] = pair[1]


def _as_parameter(value: Any) -> Any:
    """A tensor becomes a ``Parameter`` (as PyTorch's parameter containers do)."""
    return value if isinstance(value, Parameter) or not isinstance(value, Tensor) \
        else Parameter(value)


class ParameterList(_Ordered):
    """A list of parameters (tensors become ``Parameter``).

    >>> import fad.torch as torch
    >>> ps = torch.nn.ParameterList([torch.ones(2)]); ps.extend([torch.zeros(3)])
    ParameterList(
        (0): Parameter containing: [torch.float32 of size 2]
        (1): Parameter containing: [torch.float32 of size 3]
    )
    """

    _held = "_parameters"

    def __init__(self, values: Any = None):
        super().__init__(values)

    def _wrap(self, value: Any) -> Any:
        return value if isinstance(value, Parameter) else Parameter(value)

    def append(self, value: Any) -> "ParameterList":
        self.register_parameter(str(len(self._parameters)), self._wrap(value))
        return self

    def extra_repr(self) -> str:
        return _describe_all(self._parameters, lambda p: str(p.dtype))


class ParameterDict(_Keyed):
    """A dictionary of parameters under their keys (tensors become ``Parameter``).

    >>> import fad.torch as torch
    >>> ps = torch.nn.ParameterDict({"w": torch.ones(2)})
    >>> [name for name, _ in ps.named_parameters()], type(ps["w"]).__name__
    (['w'], 'Parameter')
    """

    _held = "_parameters"
    _kind = "ParametersDict"  # (PyTorch's word in its messages)

    def __init__(self, parameters: Any = None):
        super().__init__(parameters)

    def __setitem__(self, k: str, value: Any) -> None:
        self.register_parameter(k, _as_parameter(value))

    def __reversed__(self) -> Iterator[str]:
        return reversed(list(self._parameters))

    def get(self, key: str, default: Any = None) -> Any:
        return self._parameters.get(key, default)

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def popitem(self) -> tuple:
        k = list(self._parameters)[-1]
        return k, self.pop(k)

    def copy(self) -> "ParameterDict":
        return ParameterDict(OrderedDict(self._parameters))

    def extra_repr(self) -> str:
        return _describe_all(self._parameters, lambda p: p.type())


def _describe_all(params: dict, kind: Any) -> str:
    """PyTorch's lines ``  (name): Parameter containing: [<kind> of size 2x3]``."""
    lines = []
    for k, p in params.items():
        if isinstance(p, Tensor):
            size = "x".join(str(n) for n in p.shape)
            lines.append(f"  ({k}): Parameter containing: [{kind(p)} of size {size}]")
        else:
            lines.append(f"  ({k}): Object of type: {type(p).__name__}")
    return "\n".join(lines)
