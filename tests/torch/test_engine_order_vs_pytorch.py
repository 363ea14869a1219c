"""The backward engine's order on random graphs, against the installed PyTorch
(skipped without it): the engine runs the nodes reachable from the roots by
decreasing creation number, so every node must run only once all the nodes that
use its outputs have run. Random directed acyclic graphs of facade operations
(intermediates reused, in-place writes that give a tensor a newer node, several
roots, ``autograd.grad`` pruned to some inputs) must give PyTorch's gradients, and
a hook on each intermediate must see its whole gradient, as PyTorch's does."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

# each step: (operation, first operand, second operand), operands counted back from
# the newest tensor, so that any earlier tensor (leaves included) can be reused
_OPS = ("add", "mul", "sin", "tanh_", "sum_to", "scale")
steps = st.lists(st.tuples(st.sampled_from(_OPS), st.integers(0, 5), st.integers(0, 5)),
                 min_size=1, max_size=12)


def _build(T: Any, plan: list, leaves: list) -> tuple[list, list]:
    """The tensors the plan makes from ``leaves`` (each an intermediate with a hook
    recording the gradient it sees), and those hooks' records."""
    ts = list(leaves)
    seen: list = []
    for op, i, j in plan:
        a, b = ts[-1 - i % len(ts)], ts[-1 - j % len(ts)]
        if op == "add":
            t = a + b
        elif op == "mul":
            t = a * b
        elif op == "sin":
            t = T.sin(a)
        elif op == "tanh_":  # a new node for a copy of ``a``, written in place
            t = (a * 1.0).tanh_()
        elif op == "sum_to":  # a reduction broadcast back: a node of another shape
            t = a.sum() + b
        else:
            t = a * 0.5 - b
        k = len(seen)
        seen.append(None)

        def hook(g: Any, k: int = k) -> None:
            seen[k] = np.asarray(g.detach().tolist())
        t.register_hook(hook)
        ts.append(t)
    return ts, seen


def _run(T: Any, plan: list, n_roots: int, grad_of: int | None) -> tuple:
    rng = np.random.default_rng(0)
    leaves = [T.tensor(rng.uniform(-1, 1, 3), requires_grad=True) for _ in range(2)]
    ts, seen = _build(T, plan, leaves)
    roots = ts[-n_roots:]
    loss = sum(r.sum() * (k + 1) for k, r in enumerate(roots))
    if grad_of is None:
        loss.backward()
        grads = [None if x.grad is None else x.grad.tolist() for x in leaves]
    else:
        got = T.autograd.grad(loss, [leaves[grad_of]], allow_unused=True)
        grads = [None if g is None else g.tolist() for g in got]
    return grads, [None if s is None else s.tolist() for s in seen]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(plan=steps, n_roots=st.integers(1, 3), grad_of=st.sampled_from([None, 0, 1]))
def test_random_graphs_give_pytorchs_gradients_and_hooks(plan: list, n_roots: int,
                                                          grad_of: int | None) -> None:
    """Gradients of the leaves and the gradient every intermediate's hook sees, as
    PyTorch's, whatever the graph's shape."""
    want = _run(real_torch, plan, n_roots, grad_of)
    got = _run(ftorch, plan, n_roots, grad_of)
    assert _close(got, want), (got, want)


def _close(got: Any, want: Any) -> bool:
    """Nested lists and tuples equal to 1e-12, ``None`` where the other has ``None``."""
    if isinstance(want, tuple | list) and (not want or not isinstance(want[0], float)):
        return isinstance(got, tuple | list) and len(got) == len(want) and \
            all(_close(g, w) for g, w in zip(got, want))
    if want is None or got is None:
        return want is None and got is None
    return bool(np.allclose(got, want, rtol=1e-12, atol=1e-12))


def test_a_node_runs_after_a_later_node_that_uses_it() -> None:
    """A node made early whose output a much later operation also uses (the leaf's
    square, added at the very end) gets both gradients before it runs."""
    for T in (real_torch, ftorch):
        x = T.tensor([0.5, -1.0], requires_grad=True)
        s = x * x
        y = s
        for _ in range(50):
            y = T.sin(y)
        (y + s).sum().backward()
        if T is real_torch:
            want = x.grad.tolist()
        else:
            assert x.grad.tolist() == pytest.approx(want, rel=1e-14)
