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
def _flatten_dict(d: dict) -> tuple[list, tuple]:
    keys = sorted(d)
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
        return isinstance(other, PyTreeDef) and (
            self is other or self._hash == other._hash and self._key == other._key)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        if self.node is None:
            return "*"
        inner = ", ".join(map(repr, self.children))
        name = self.node.__name__
        return {"tuple": f"({inner}{',' if len(self.children) == 1 else ''})",
                "list": f"[{inner}]", "NoneType": "None"}.get(
                    name, f"{name}({self.aux!r}, [{inner}])" if name != "dict" else
                    "{" + ", ".join(f"{k!r}: {c!r}" for k, c in
                                    zip(self.aux, self.children)) + "}")


_LEAF = PyTreeDef(None, None, ())


def _node_of(x: Any) -> tuple[Callable, Callable] | None:
    rule = _NODES.get(type(x))
    if rule is None and isinstance(x, tuple) and hasattr(x, "_fields"):
        # namedtuples are nodes, rebuilt with their own type
        rule = (lambda t: (tuple(t), type(t)), lambda tp, c: tp(*c))
    return rule


def tree_flatten(tree: Any, is_leaf: Callable | None = None) -> tuple[list, PyTreeDef]:
    """``(leaves, treedef)`` of a pytree (leaves in order; dict keys sorted)."""
    leaves: list = []
    return leaves, _flatten(tree, leaves, is_leaf)


# (module-level recursive helpers, not closures: a recursive closure is a reference
# cycle, which would keep every leaf alive until the garbage collector runs)
def _flatten(x: Any, leaves: list, is_leaf: Callable | None) -> PyTreeDef:
    node = type(x)
    rule = _NODES.get(node)
    if rule is None and isinstance(x, tuple) and hasattr(x, "_fields"):
        rule, node = _node_of(x), _NamedTuple
    if rule is None or is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return _LEAF
    children, aux = rule[0](x)
    defs = []
    for c in children:
        defs.append(_flatten(c, leaves, is_leaf))
    return PyTreeDef(node, aux, tuple(defs))


class _NamedTuple:
    """Marker node type for namedtuples (the aux data is the concrete class)."""


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable) -> Any:
    return _build(treedef, iter(leaves))


def _build(td: PyTreeDef, it: Any) -> Any:
    if td.node is None:
        return next(it)
    children = [_build(c, it) for c in td.children]
    if td.node is _NamedTuple:
        return td.aux(*children)
    return _NODES[td.node][1](td.aux, children)


def tree_leaves(tree: Any, is_leaf: Callable | None = None) -> list:
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any) -> PyTreeDef:
    return tree_flatten(tree)[1]


def tree_map(f: Callable, tree: Any, *rest: Any, is_leaf: Callable | None = None) -> Any:
    """Apply ``f`` leafwise to ``tree`` (and to the matching leaves of ``rest``)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [treedef_flatten_up_to(treedef, r) for r in rest]
    return tree_unflatten(treedef, [f(x, *xs) for x, *xs in zip(leaves, *others)])


def treedef_flatten_up_to(treedef: PyTreeDef, tree: Any) -> list:
    leaves, other = tree_flatten(tree)
    if other != treedef:
        raise ValueError(f"pytree structures differ: {treedef!r} and {other!r}")
    return leaves


__all__ = ["tree_map", "tree_flatten", "tree_unflatten", "tree_leaves",
           "tree_structure", "register_pytree_node", "PyTreeDef"]


def tree_leaf_paths(tree: Any, prefix: str = "") -> list[str]:
    """Readable names of ``tree``'s leaves, in ``tree_flatten``'s order: ``prefix``
    followed by the keys and positions that lead to each leaf.

    >>> tree_leaf_paths({"w": (1, 2), "b": 3}, "params")
    ["params['b']", "params['w'][0]", "params['w'][1]"]
    >>> tree_leaf_paths(1.0, "x")
    ['x']
    """
    paths: list[str] = []
    stack = [(tree_flatten(tree)[1], prefix)]
    while stack:  # (iterative: a deep pytree does not exhaust the recursion limit)
        td, path = stack.pop()
        if td.node is None:
            paths.append(path)
            continue
        keys = td.aux if td.node is dict else range(len(td.children))
        stack.extend(reversed([(c, f"{path}[{k!r}]") for k, c in zip(keys, td.children)]))
    return paths
