"""An exception arriving anywhere in fad's own machinery leaves fad usable.

A ``KeyboardInterrupt`` can arrive at any point of the code that pushes and pops
trace levels, switches the facade's grad mode, runs ``backward()`` or fills a
``jit`` cache. Each test below raises an exception at the first line that runs in
the target functions, then at the second, and so on until a run completes without
one; after every interrupted run the trace stack, the ``no_grad`` state and the
grad mode must be what they were, the caches must hold only complete entries, and
ordinary calls must give the right results.

The injection leaves out only the points where CPython cannot raise an interrupt
or no Python code could catch it (see ``interrupt_at``).
"""

from __future__ import annotations

import contextlib
import dis
import functools
import importlib
import inspect
import sys
import types
from typing import Any, Callable, Iterator

import numpy as np
import pytest

import fad
import fad.interpreters.tape as tape
import fad.numpy as fnp
import fad.torch as torch
import fad.torch._grad_mode as grad_mode
import fad.torch._graph as graph
import fad.torch._recorder as recorder
import fad.torch.autograd as autograd
import fad.transforms.autodiff as autodiff
from fad.core import trace
from fad.core.trace import current_state

# (fad.torch.tensor and fad.jit are also functions)
tensor = importlib.import_module("fad.torch.tensor")
jit_module = importlib.import_module("fad.transforms.jit")


class Interrupt(BaseException):
    """The injected exception: a ``BaseException``, as ``KeyboardInterrupt`` is."""


@pytest.fixture(autouse=True)
def _leak_stays_in_its_test() -> Iterator[None]:
    """A failing test's leaked state must not make the next tests fail too."""
    state, grad_on = current_state(), torch.is_grad_enabled()
    yield
    trace._STATE.set(state)
    grad_mode.GRAD_ENABLED.set(grad_on)


def _codes(*objs: Any) -> frozenset:
    """The code objects of functions, methods (those a class defines or inherits
    from fad) and of the functions nested in them."""
    out: set = set()
    todo: list = []
    for obj in objs:
        if isinstance(obj, type):
            for klass in obj.__mro__:
                if klass.__module__.startswith("fad"):
                    todo += [f for f in vars(klass).values() if inspect.isfunction(f)]
        else:
            todo.append(inspect.unwrap(obj))
    codes = [f.__code__ for f in todo]
    while codes:
        code = codes.pop()
        if code not in out:
            out.add(code)
            codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return frozenset(out)


@functools.lru_cache(maxsize=None)
def _handlers(code: types.CodeType) -> tuple[dict, frozenset]:
    """Offset of each instruction of ``code`` -> the offset of its exception handler,
    and the offsets of the no-ops."""
    entries = dis.Bytecode(code).exception_entries
    instructions = list(dis.get_instructions(code))
    return ({ins.offset: next((e.target for e in entries if e.start <= ins.offset < e.end),
                              None) for ins in instructions},
            frozenset(ins.offset for ins in instructions if ins.opname == "NOP"))


@contextlib.contextmanager
def interrupt_at(codes: frozenset, n: int, late_entry: frozenset = frozenset()
                 ) -> Iterator[list]:
    """Raise ``Interrupt`` at the ``n``-th line that starts to run in ``codes``;
    the list yielded receives ``(function, line)`` if it fired.

    An injected exception stands for an interrupt that arrives just before the
    line, which CPython raises in the instruction that ran before it (it delivers
    signals as a function starts, at a backward jump or after a call). Where that
    instruction is under another exception handler than the line's first one (the
    exit of a ``with`` block, the no-op of a ``try:`` line, the start of a ``try``
    or ``finally`` block, a handler itself), the injection would be handled as the
    interrupt would not: those lines are left out. So is the first line of an
    ``__exit__`` (and of the ``__enter__`` methods in ``late_entry``): an exception
    as it starts skips it in CPython's own code, where no Python code can catch it.
    """
    fired: list = []
    seen = [0]

    def on_call(frame: Any, event: str, arg: Any) -> Any:
        code = frame.f_code
        if code not in codes:
            return None
        frame.f_trace_opcodes = True
        handler, nops = _handlers(code)
        entry = code.co_name == "__exit__" or code in late_entry
        last = [None]

        def on_event(frame: Any, event: str, arg: Any) -> Any:
            if event == "opcode":
                if frame.f_lasti not in nops:  # (a no-op raises nothing)
                    last[0] = frame.f_lasti
            elif event == "line" and not (
                    entry and last[0] is None or last[0] is not None and
                    handler[last[0]] != handler[frame.f_lasti]):
                seen[0] += 1
                if seen[0] == n:
                    fired.append((code.co_qualname, frame.f_lineno))
                    raise Interrupt(f"injected at {fired[0]}")
            return on_event
        return on_event

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        yield fired
    finally:
        sys.settrace(previous)


def _snapshot() -> tuple:
    s = current_state()
    return s.stack, s.dynamic, s.no_grad, s.rebound, torch.is_grad_enabled()


def _assert_as_before(before: tuple, where: list) -> None:
    stack, dynamic, no_grad, rebound, grad_on = before
    s = current_state()
    assert s.stack == stack, f"trace stack left with {s.stack} after {where}"
    assert s.dynamic is dynamic, f"abstract trace left active after {where}"
    assert s.no_grad is no_grad, f"no_grad scope left active after {where}"
    assert s.rebound is rebound, f"rebinding left active after {where}"
    assert torch.is_grad_enabled() == grad_on, f"grad mode left changed after {where}"


def _ordinary_calls_work() -> None:
    np.testing.assert_allclose(fad.grad(lambda x: fnp.sum(fnp.sin(x) * x))(np.ones(2)),
                               np.sin(1.0) + np.cos(1.0) * np.ones(2))
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.enable_grad():
        (w * w).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [2.0, 4.0])
    jf = fad.jit(lambda x: x * 3.0)
    np.testing.assert_allclose(jf(np.ones(2)), [3.0, 3.0])
    assert jf.trace_count == 1


def inject_everywhere(codes: frozenset, run: Callable[[], Any],
                      check: Callable[[list], None] = lambda where: None,
                      late_entry: frozenset = frozenset()) -> int:
    """Interrupt ``run()`` at each line of ``codes`` in turn; after each interrupted
    run, the state must be as before, ``check(where)`` must pass and ordinary calls
    must work. Returns the number of lines interrupted."""
    n = 0
    while True:
        n += 1
        before = _snapshot()
        with interrupt_at(codes, n, late_entry) as fired:
            try:
                run()
            except Interrupt:
                pass
        if not fired:
            assert n > 1, "the target functions never ran"
            return n - 1
        _assert_as_before(before, fired)
        check(fired)
        _ordinary_calls_work()


# ------------------------------------------------------------------ the trace stack
def _grad_twice() -> None:
    assert np.isclose(float(fad.grad(fad.grad(fnp.sin))(0.3)), -np.sin(0.3))
    assert "sin" in str(fad.make_jaxpr(fnp.sin)(1.0))


@contextlib.contextmanager
def _as_before_if_interrupted() -> Iterator[None]:
    """Inside a transformation: an interrupt leaves the state of the transformation."""
    before = _snapshot()
    try:
        yield
    except Interrupt as e:
        _assert_as_before(before, [e])
        raise


def _no_grad_inside() -> None:
    def f(x: Any) -> Any:
        with _as_before_if_interrupted(), trace.no_grad_scope():
            c = x * 2.0
        return c * x
    assert float(fad.grad(f)(3.0)) == 6.0


def _hide_dynamic_inside() -> None:
    def f(x: Any) -> Any:
        with _as_before_if_interrupted(), trace.hide_dynamic():
            c = fnp.ones(()) * 2.0
        return x * c
    assert "mul" in str(fad.make_jaxpr(f)(1.0))


def _rebinding_inside() -> None:
    def f(x: Any) -> Any:
        y = x * 2.0
        with _as_before_if_interrupted(), trace.rebinding([x], [y]):
            z = x + 1.0
        return z
    assert float(fad.grad(f)(1.0)) == 2.0


def _fad_no_grad() -> None:
    def f(x: Any) -> Any:
        with _as_before_if_interrupted():
            with fad.no_grad():
                c = x * 2.0
            d = fad.no_grad(lambda y: y * y)(x)
        return c * x + d
    assert float(fad.grad(f)(3.0)) == 6.0


def _manager(factory: Callable, *args: Any) -> type:
    """The class of the context manager ``factory(*args)`` returns."""
    return type(factory(*args))


@pytest.mark.parametrize("targets, run", [
    pytest.param(lambda: (trace.new_main,), _grad_twice, id="new_main"),
    pytest.param(lambda: (trace.no_grad_scope, _manager(trace.no_grad_scope)),
                 _no_grad_inside, id="no_grad_scope"),
    pytest.param(lambda: (trace.hide_dynamic, _manager(trace.hide_dynamic)),
                 _hide_dynamic_inside, id="hide_dynamic"),
    pytest.param(lambda: (trace.rebinding, _manager(trace.rebinding, [], [])),
                 _rebinding_inside, id="rebinding"),
    pytest.param(lambda: (autodiff.no_grad, trace.enter_onto, trace.no_grad_scope,
                          _manager(trace.no_grad_scope)), _fad_no_grad, id="fad.no_grad"),
    pytest.param(lambda: (autodiff.grad, autodiff.value_and_grad, tape.vjp_flat,
                          tape.tape_pullback, tape.pullback, trace.new_main),
                 lambda: fad.grad(lambda x: fnp.sum(fnp.sin(x) * x))(np.ones(2)),
                 id="fad.grad"),
])
def test_trace_state_survives_an_interrupt_anywhere(targets: Callable, run: Callable
                                                    ) -> None:
    inject_everywhere(_codes(*targets()), run)


# ------------------------------------------------------------------ the facade
def _grad_mode_switches() -> None:
    with torch.no_grad():
        assert not torch.is_grad_enabled()
        with torch.enable_grad():
            assert torch.is_grad_enabled()
    with torch.set_grad_enabled(False):
        assert not torch.is_grad_enabled()
    with torch.inference_mode():
        assert not torch.is_grad_enabled()
    assert torch.no_grad()(torch.is_grad_enabled)() is False

    @torch.no_grad()
    def gen() -> Iterator[bool]:
        yield torch.is_grad_enabled()
    assert list(gen()) == [False]


def test_grad_mode_survives_an_interrupt_anywhere() -> None:
    targets = _codes(grad_mode.no_grad, grad_mode.enable_grad, grad_mode.set_grad_enabled,
                     grad_mode.inference_mode)
    # set_grad_enabled switches when it is made, as PyTorch's (it is a function too):
    # an exception between that and the with statement's __enter__ is out of reach
    late = _codes(grad_mode.set_grad_enabled.__enter__)
    inject_everywhere(targets, _grad_mode_switches, late_entry=late)
    with torch.no_grad():  # and inside a no_grad block: the block's mode comes back
        inject_everywhere(targets, _grad_mode_switches, late_entry=late)


def test_facade_backward_survives_an_interrupt_anywhere(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """``Tensor.backward()`` (and the forward's program cache) interrupted at any line:
    the ``.grad`` of each leaf is untouched or complete, and running backward again
    gives the right gradients or says the graph was freed, never a wrong value."""
    monkeypatch.setattr(recorder, "_COMPILE_ON_FIRST_SIGHT", True)
    F = torch.nn.functional
    xv, wv = np.array([0.5, -1.0, 2.0]), np.array([1.5, 0.25, -0.5])
    box: dict = {}

    def loss(x: Any, w: Any) -> Any:
        h = torch.tanh(x * w) * x  # (x twice: gradients meet)
        h.retain_grad()
        h.register_hook(lambda g: g * 1.0)
        return F.log_softmax(h, 0).sum()  # (sum: linear, so that it can run again)

    x0, w0 = torch.tensor(xv, requires_grad=True), torch.tensor(wv, requires_grad=True)
    loss(x0, w0).backward()
    expected = x0.grad.numpy().copy(), w0.grad.numpy().copy()

    def run() -> None:
        monkeypatch.setattr(recorder, "_PROGRAMS", {})
        x, w = torch.tensor(xv, requires_grad=True), torch.tensor(wv, requires_grad=True)
        box.update(x=x, w=w)
        box["y"] = y = loss(x, w)
        y.backward()

    def check(where: list) -> None:
        for p in recorder._PROGRAMS.values():
            assert p is None or p is recorder._SEEN_ONCE or \
                all(hasattr(p, s) for s in recorder._Program.__slots__), f"{p} after {where}"
        x, w, y = box.get("x"), box.get("w"), box.get("y")
        if y is None:
            return
        assert x.grad is None or np.allclose(x.grad.numpy(), expected[0]), where
        assert w.grad is None or np.allclose(w.grad.numpy(), expected[1]), where
        x.grad = w.grad = None
        try:
            y.backward()
        except RuntimeError as e:
            assert "backward through the graph a second time" in str(e), where
        else:
            np.testing.assert_allclose(x.grad.numpy(), expected[0], err_msg=str(where))
            np.testing.assert_allclose(w.grad.numpy(), expected[1], err_msg=str(where))
        box.clear()

    targets = _codes(autograd.backward, autograd._make_grads, graph.run_backward,
                     graph._graph_order, graph.edge_of, graph._run_pre_hooks,
                     graph._apply_hooks, graph._run_node_hooks, graph.Node,
                     tensor.accumulate_into, tensor.wrap_grad, tape.tape_pullback,
                     tape.pullback, recorder._apply_program, grad_mode.no_grad)
    assert inject_everywhere(targets, run, check) > 100


def test_jit_first_call_survives_an_interrupt_anywhere() -> None:
    """An interrupted first call of a jitted function leaves no entry behind or a
    complete one: the next call is right and ``trace_count`` counts one trace."""
    box: dict = {}

    def run() -> None:
        box.clear()
        box["f"] = f = fad.jit(lambda x, n: fnp.sin(x) * n, static_argnums=1)
        f(np.ones(2), 2)

    def check(where: list) -> None:
        f = box.get("f")
        for _ in range(2 if f is not None else 0):
            np.testing.assert_allclose(f(np.ones(2), 2), 2 * np.sin(np.ones(2)))
            assert f.trace_count == 1, where

    targets = _codes(jit_module.Jitted, jit_module._compiled, jit_module.jit)
    inject_everywhere(targets, run, check)
