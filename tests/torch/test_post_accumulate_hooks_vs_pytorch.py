"""``Tensor.register_post_accumulate_grad_hook`` against the installed PyTorch
(skipped without it): when the hooks run (after each leaf's ``.grad`` is
accumulated, before the next leaf's; by ``backward``, not by ``autograd.grad``),
what they see, removal, and PyTorch's errors, word for word."""

from __future__ import annotations

from typing import Any, Callable

import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402


def both(fn: Callable) -> tuple:
    """``fn(T)`` with PyTorch and with the facade; an exception is its result."""
    out = []
    for T in (real_torch, ftorch):
        try:
            out.append(fn(T))
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            out.append((type(e).__name__, str(e)))
    return tuple(out)


def _steps(T: Any) -> list:
    """Two backward passes, a removal, then ``autograd.grad`` and ``inputs=``."""
    w = T.ones(2, requires_grad=True)
    seen: list = []
    h = w.register_post_accumulate_grad_hook(lambda p: seen.append((p is w, p.grad.tolist())))
    (w * 3).sum().backward()
    (w * 3).sum().backward()
    h.remove()
    (w * 3).sum().backward()
    w.register_post_accumulate_grad_hook(lambda p: seen.append("again"))
    T.autograd.grad((w * 3).sum(), w)
    (w * 3).sum().backward(inputs=[w])
    return seen


def _order(T: Any) -> list:
    """A tensor hook, then the leaf's post-accumulate hook; two leaves in turn."""
    a = T.ones(2, requires_grad=True)
    b = T.ones(2, requires_grad=True)
    seen: list = []
    a.register_hook(lambda g: seen.append("a hook"))
    a.register_post_accumulate_grad_hook(lambda p: seen.append(("a", b.grad is None)))
    b.register_post_accumulate_grad_hook(lambda p: seen.append(("b", a.grad is None)))
    (a * b).sum().backward()
    return seen


def _create_graph(T: Any) -> list:
    w = T.ones(2, requires_grad=True)
    seen: list = []
    w.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.requires_grad))
    with pytest.warns(UserWarning):
        (w ** 2).sum().backward(create_graph=True)
    return seen


def _returns(value: Callable) -> Callable:
    def run(T: Any) -> Any:
        w = T.ones(2, requires_grad=True)
        w.register_post_accumulate_grad_hook(lambda p: value(T))
        (w * 3).sum().backward()
        return w.grad.tolist()
    return run


@pytest.mark.parametrize("case", [
    _steps, _order, _create_graph,
    _returns(lambda T: T.zeros(2)), _returns(lambda T: 5),
    lambda T: T.ones(2).register_post_accumulate_grad_hook(print),
    lambda T: (T.ones(2, requires_grad=True) * 2).register_post_accumulate_grad_hook(print),
])
def test_post_accumulate_grad_hooks_as_pytorchs(case: Callable) -> None:
    want, got = both(case)
    assert got == want
