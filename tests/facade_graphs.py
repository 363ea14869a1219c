"""Walking a facade tensor's ``grad_fn`` graph in tests."""

from typing import Any, Iterator


def grad_fn_nodes(t: Any) -> Iterator[Any]:
    """The nodes of the graph below ``t`` once each, depth first, each node's
    ``next_functions`` in order."""
    stack, seen = [t.grad_fn], set()
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        yield n
        stack.extend(f for f, _ in reversed(n.next_functions))
