"""Pytrees: nested tuples, lists, dicts and ``None`` (plus registered types).

>>> from fad.tree import tree_flatten, tree_unflatten, tree_map
>>> leaves, tree = tree_flatten({"b": (1, 2), "a": [3, None]})
>>> leaves
[3, 1, 2]
>>> tree_unflatten(tree, [10, 20, 30])
{'a': [10, None], 'b': (20, 30)}
>>> tree_map(lambda x: x * 2, (1, [2]))
(2, [4])
"""

from __future__ import annotations

import builtins
import functools
from typing import Any, Callable, Iterable

_NODES: dict[type, tuple[Callable, Callable]] = {}


def register_pytree_node(nodetype: type, flatten: Callable, unflatten: Callable) -> None:
    """Make ``nodetype`` a pytree node.

    ``flatten(x) -> (children, aux)`` and ``unflatten(aux, children) -> x``.

    >>> class Pair:
    ...     def __init__(self, a, b): self.a, self.b = a, b
    >>> register_pytree_node(Pair, lambda p: ((p.a, p.b), None),
    ...                      lambda aux, ch: Pair(*ch))
    >>> tree_leaves(Pair(1, (2, 3)))
    [1, 2, 3]
    """
    _NODES[nodetype] = (flatten, unflatten)


register_pytree_node(tuple, lambda t: (t, None), lambda _, c: tuple(c))
register_pytree_node(list, lambda t: (t, None), lambda _, c: list(c))


def sorted_keys(d: dict) -> list:
    """``d``'s keys in the order pytrees flatten them: sorted, or a ``TypeError``
    naming the key types that cannot be compared.

    >>> sorted_keys({"b": 1, "a": 2})
    ['a', 'b']
    """
    try:
        return sorted(d)
    except TypeError:
        names = sorted({type(k).__name__ for k in d})
        kinds = (f"types {', '.join(names[:-1])} and {names[-1]}" if len(names) > 1
                 else f"type {names[0]}")
        raise TypeError(
            f"a dict in a pytree has keys of {kinds} "
            f"({', '.join(builtins.map(repr, list(d)[:6]))}{', ...' if len(d) > 6 else ''}), "
            "which cannot be compared with each other: fad sorts a dict's keys to "
            "flatten it (as JAX does). Use keys that sort together (all str, or all int).") \
            from None


def _flatten_dict(d: dict) -> tuple[list, tuple]:
    try:
        keys = sorted(d)
    except TypeError:
        keys = sorted_keys(d)  # (raises, naming the key types)
    return [d[k] for k in keys], tuple(keys)


register_pytree_node(dict, _flatten_dict, lambda keys, c: dict(zip(keys, c)))
register_pytree_node(type(None), lambda _: ((), None), lambda _, c: None)


class PyTreeDef:
    """The structure of a pytree, without its leaves."""

    __slots__ = ("node", "aux", "children", "num_leaves", "_key", "_hash")

    def __init__(self, node: type | None, aux: Any, children: tuple):
        self.node = node
        self.aux = aux
        self.children = children
        n, keys, hashes = 0, [], []
        for c in children:  # one loop (this runs for every node of every call's pytree)
            n += c.num_leaves
            keys.append(c._key)
            hashes.append(c._hash)  # (not re-hashing the whole nested key)
        self.num_leaves = 1 if node is None else n
        self._key = (node, aux, tuple(keys))
        try:
            self._hash = hash((node, aux, tuple(hashes)))
        except TypeError:  # unhashable aux data: structure still comparable
            self._hash = hash((node, tuple(hashes)))

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, PyTreeDef) or self._hash != other._hash:
            return False
        try:
            return self._key == other._key
        except RecursionError:  # a deeply nested tree: compare node by node instead
            return _same(self, other)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return _fold(self, lambda: "*", _node_repr)


def _node_repr(td: PyTreeDef, inner: list) -> str:
    name = td.node.__name__
    if name == "dict":
        return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(td.aux, inner)) + "}"
    text = ", ".join(inner)
    return {"tuple": f"({text}{',' if len(inner) == 1 else ''})", "list": f"[{text}]",
            "NoneType": "None"}.get(name, f"{name}({td.aux!r}, [{text}])")


def _same(a: PyTreeDef, b: PyTreeDef) -> bool:
    pairs = [(a, b)]
    while pairs:
        x, y = pairs.pop()
        if x is y:
            continue
        if x._hash != y._hash or x.node is not y.node or len(x.children) != \
                len(y.children) or not (x.aux is y.aux or x.aux == y.aux):
            return False
        pairs.extend(zip(x.children, y.children))
    return True


def _fold(td: PyTreeDef, leaf: Callable, combine: Callable) -> Any:
    """``td`` folded bottom-up without recursion (pytrees may nest thousands of
    levels deep): ``leaf()`` at each leaf in order, ``combine(node, values)`` at
    each node."""
    if td.node is None:
        return leaf()
    stack = [(td, iter(td.children), [])]
    while True:
        node, rest, done = stack[-1]
        for c in rest:
            if c.node is None:
                done.append(leaf())
            else:
                stack.append((c, iter(c.children), []))
                break
        else:
            stack.pop()
            value = combine(node, done)
            if not stack:
                return value
            stack[-1][2].append(value)


_LEAF = PyTreeDef(None, None, ())


class _NamedTuple:
    """Marker node type for namedtuples (the aux data is the concrete class)."""


_NAMEDTUPLE_RULE = (lambda t: (tuple(t), type(t)), lambda tp, c: tp(*c))


def _rule(x: Any, is_leaf: Callable | None) -> tuple[tuple | None, type | None]:
    """``(rule, node type)`` of a pytree node; ``(None, None)`` for a leaf."""
    node = type(x)
    rule = _NODES.get(node)
    if rule is None:
        if not (isinstance(x, tuple) and hasattr(x, "_fields")):
            return None, None
        rule, node = _NAMEDTUPLE_RULE, _NamedTuple  # rebuilt with their own type
    if is_leaf is not None and is_leaf(x):
        return None, None
    return rule, node


def tree_flatten(tree: Any, is_leaf: Callable | None = None) -> tuple[list, PyTreeDef]:
    """``(leaves, treedef)`` of a pytree (leaves in order; dict keys sorted)."""
    leaves: list = []
    rule, node = _rule(tree, is_leaf)
    if rule is None:
        leaves.append(tree)
        return leaves, _LEAF
    # depth-first without recursion (pytrees may nest thousands of levels deep):
    # ``stack`` holds the nodes whose children are being flattened
    children, aux = rule[0](tree)
    rest, defs, stack = iter(children), [], []
    while True:
        for c in rest:
            cnode = type(c)  # (``_rule`` inlined: this runs for every node and leaf)
            rule = _NODES.get(cnode)
            if rule is None and isinstance(c, tuple) and hasattr(c, "_fields"):
                rule, cnode = _NAMEDTUPLE_RULE, _NamedTuple
            if rule is None or is_leaf is not None and is_leaf(c):
                leaves.append(c)
                defs.append(_LEAF)
            else:
                stack.append((node, aux, rest, defs))
                children, aux = rule[0](c)
                node, rest, defs = cnode, iter(children), []
                break
        else:
            td = PyTreeDef(node, aux, tuple(defs))
            if not stack:
                return leaves, td
            node, aux, rest, defs = stack.pop()
            defs.append(td)


def _rebuild(td: PyTreeDef, children: list) -> Any:
    if td.node is _NamedTuple:
        return td.aux(*children)
    return _NODES[td.node][1](td.aux, children)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable) -> Any:
    """The pytree of structure ``treedef`` with ``leaves`` in order."""
    return _fold(treedef, iter(leaves).__next__, _rebuild)


def tree_leaves(tree: Any, is_leaf: Callable | None = None) -> list:
    """The leaves of ``tree`` in order.

    >>> tree_leaves({"b": 1, "a": (2, None)})
    [2, 1]
    """
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable | None = None) -> PyTreeDef:
    """The structure of ``tree`` without its leaves.

    >>> tree_structure({"a": (1, 2)})
    {'a': (*, *)}
    """
    return tree_flatten(tree, is_leaf)[1]


def tree_map(f: Callable, tree: Any, *rest: Any, is_leaf: Callable | None = None) -> Any:
    """Apply ``f`` leafwise to ``tree`` and to the matching parts of ``rest``, each of
    which has ``tree``'s structure or extends it (where ``tree`` has a leaf, ``f``
    receives the whole subtree of the others).

    >>> tree_map(lambda x, y: x + y, {"a": 1, "b": 2}, {"a": 10, "b": 20})
    {'a': 11, 'b': 22}
    >>> tree_map(lambda x, y: (x, y), [1, None], [(2, 3), None])
    [(1, (2, 3)), None]
    >>> tree_map(lambda x: x is None, [1, None], is_leaf=lambda x: x is None)
    [False, True]
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [treedef_flatten_up_to(treedef, r) for r in rest]
    return tree_unflatten(treedef, [f(x, *xs) for x, *xs in zip(leaves, *others)])


def treedef_flatten_up_to(treedef: PyTreeDef, tree: Any) -> list:
    """The subtrees of ``tree`` at the leaves of ``treedef`` (``tree`` must have
    ``treedef``'s nodes down to them), in order.

    >>> treedef_flatten_up_to(tree_structure((1, [2])), ((3, 4), [None]))
    [(3, 4), None]
    """
    leaves, other = tree_flatten(tree)
    if other == treedef:
        return leaves
    out: list = []
    stack = [(treedef, tree)]
    while stack:  # (iterative: pytrees may nest thousands of levels deep)
        td, sub = stack.pop()
        if td.node is None:
            out.append(sub)
            continue
        rule, node = _rule(sub, None)
        children, aux = rule[0](sub) if rule is not None else ((), None)
        if node is not td.node or aux != td.aux or len(children) != len(td.children):
            want = (td.aux if td.node is _NamedTuple else td.node).__name__
            raise ValueError(f"pytree structures differ: {treedef!r} and {other!r} "
                             f"(a {want} node expected, {type(sub).__name__} found)")
        stack.extend(reversed(list(zip(td.children, children))))
    return out


def tree_reduce(function: Callable, tree: Any, *initializer: Any,
                is_leaf: Callable | None = None) -> Any:
    """``functools.reduce(function, leaves, *initializer)`` over ``tree``'s leaves.

    >>> tree_reduce(lambda a, b: a + b, {"a": 1, "b": (2, 3)})
    6
    >>> tree_reduce(max, [], 0)
    0
    """
    if len(initializer) > 1:
        raise TypeError("tree_reduce takes at most one initializer")
    leaves = tree_leaves(tree, is_leaf)
    if not leaves and not initializer:
        raise TypeError("tree_reduce of a tree without leaves needs an initializer")
    return functools.reduce(function, leaves, *initializer)


def tree_all(tree: Any, *, is_leaf: Callable | None = None) -> bool:
    """Whether every leaf of ``tree`` is true.

    >>> tree_all({"a": True, "b": (1, None)}), tree_all([True, 0])
    (True, False)
    """
    return builtins.all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
    """A tree of structure ``outer(inner)`` turned into one of structure
    ``inner(outer)`` (``inner`` inferred from the first subtree when ``None``).

    >>> outer, inner = tree_structure([0, 0]), tree_structure((0, 0))
    >>> tree_transpose(outer, inner, [(1, 2), (3, 4)])
    ([1, 3], [2, 4])
    """
    subtrees = treedef_flatten_up_to(outer_treedef, pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(subtrees[0]) if subtrees else _LEAF
    columns = [treedef_flatten_up_to(inner_treedef, t) for t in subtrees]
    rows = [tree_unflatten(outer_treedef, list(col)) for col in zip(*columns)] \
        if columns else [tree_unflatten(outer_treedef, [])] * inner_treedef.num_leaves
    return tree_unflatten(inner_treedef, rows)


class Partial(functools.partial):
    """``functools.partial`` that is a pytree: its bound arguments are the leaves,
    the function is static, so it can be passed through ``jit`` and ``vmap``.

    >>> import operator
    >>> add3 = Partial(operator.add, 3)
    >>> add3(4), tree_leaves(add3)
    (7, [3])
    """

    def __new__(cls, func: Callable, *args: Any, **kwargs: Any) -> Partial:
        if isinstance(func, functools.partial):  # (flattened: one node, not nested)
            args, kwargs = func.args + args, {**func.keywords, **kwargs}
            func = func.func
        return super().__new__(cls, func, *args, **kwargs)


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, ch: Partial(func, *ch[0], **ch[1]))


__all__ = ["tree_map", "tree_flatten", "tree_unflatten", "tree_leaves",
           "tree_structure", "tree_reduce", "tree_all", "tree_transpose",
           "register_pytree_node", "PyTreeDef", "Partial",
           "map", "leaves", "flatten", "unflatten", "reduce", "structure", "all",
           "transpose"]

# ``jax.tree``'s short names
map = tree_map  # noqa: A001
leaves = tree_leaves
flatten = tree_flatten
unflatten = tree_unflatten
reduce = tree_reduce
structure = tree_structure
all = tree_all  # noqa: A001
transpose = tree_transpose


def tree_leaf_paths(tree: Any, prefix: str = "") -> list[str]:
    """Readable names of ``tree``'s leaves, in ``tree_flatten``'s order: ``prefix``
    followed by the keys and positions that lead to each leaf.

    >>> tree_leaf_paths({"w": (1, 2), "b": 3}, "params")
    ["params['b']", "params['w'][0]", "params['w'][1]"]
    >>> tree_leaf_paths(1.0, "x")
    ['x']
    """
    return treedef_leaf_paths(tree_flatten(tree)[1], prefix)


def treedef_leaf_paths(treedef: PyTreeDef, prefix: str = "") -> list[str]:
    """``tree_leaf_paths`` of a tree of structure ``treedef`` (a namedtuple's
    fields by name: ``carry.w``)."""
    paths: list[str] = []
    stack = [(treedef, prefix)]
    while stack:  # (iterative: a deep pytree does not exhaust the recursion limit)
        td, path = stack.pop()
        if td.node is None:
            paths.append(path)
            continue
        stack.extend(reversed([(c, path + k) for k, c in zip(child_keys(td), td.children)]))
    return paths


def child_keys(td: PyTreeDef) -> list[str]:
    """How a path names each child of the node ``td``: ``['w']``, ``[0]``, ``.w``."""
    if td.node is dict:
        return [f"[{k!r}]" for k in td.aux]
    if td.node is _NamedTuple:
        return [f".{name}" for name in td.aux._fields]
    return [f"[{i}]" for i in range(len(td.children))]


def __dir__() -> list[str]:  # the public names only (no imported helpers)
    return list(__all__)
