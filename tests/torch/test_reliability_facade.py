"""The facade refuses a backward pass whose saved values were edited in place, as
PyTorch does, and words its errors as PyTorch does.

Every saved value is guarded by the version counter of the tensor it came from:
inputs and constant operands whose buffer the backward reads, outputs that it
reads (``exp``, ``sigmoid``, ``tanh``...), through ``detach()`` aliases and views,
which share their source's counter. Each scenario is a function of the library
module ``T``: the facade's outcome is asserted on its own (PyTorch need not be
installed), then compared with real PyTorch's when it is.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from facade_graphs import grad_fn_nodes

import fad.torch as ftorch
import fad.torch._recorder as recorder
from fad.torch._graph import guards_of

MODIFIED = ("one of the variables needed for gradient computation has been modified by "
            "an inplace operation")


def outcome(scenario: Callable, T: Any) -> tuple:
    """``("raise", type name, message)`` or ``("ok", value)``."""
    try:
        value = scenario(T)
    except Exception as e:  # noqa: BLE001 (the outcome is what is compared)
        return "raise", type(e).__name__, str(e)
    return "ok", value


def same_as_pytorch(scenario: Callable, prefix: bool = False) -> None:
    torch = pytest.importorskip("torch")
    mine, real = outcome(scenario, ftorch), outcome(scenario, torch)
    assert mine[0] == real[0], (mine, real)
    if real[0] == "raise":
        assert mine[1] == real[1], (mine, real)
        if prefix:  # the facade adds the hook's name after PyTorch's words
            assert mine[2].startswith(real[2]), (mine[2], real[2])
        else:
            assert mine[2] == real[2]
    else:
        np.testing.assert_allclose(mine[1], real[1], rtol=1e-6)


def _saved(T: Any) -> tuple:
    """A non-leaf ``x`` saved by ``x * w``, and the loss."""
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True) * 1
    w = T.tensor([4.0, 5.0, 6.0], requires_grad=True)
    return x, w, (x * w).sum()


# ====================================================================== detach()
def _detach_edit(edit: Callable) -> Callable:
    def scenario(T: Any) -> Any:
        x, w, loss = _saved(T)
        edit(x.detach(), T)
        loss.backward()
        return w.grad.tolist()
    return scenario


def _iadd(d: Any, T: Any) -> None:
    d += 1


DETACH_EDITS = {
    "mul_": lambda d, T: d.mul_(2),
    "zero_": lambda d, T: d.zero_(),
    "iadd": _iadd,
    "copy_": lambda d, T: d.copy_(T.ones(3)),
}


@pytest.mark.parametrize("name", sorted(DETACH_EDITS))
def test_edit_through_detach_is_detected(name: str) -> None:
    with pytest.raises(RuntimeError) as info:
        _detach_edit(DETACH_EDITS[name])(ftorch)
    assert str(info.value).startswith(
        MODIFIED + ": [torch.FloatTensor [3]], which is output 0 of Mul, is at version 1; "
        "expected version 0 instead. Hint:")
    same_as_pytorch(_detach_edit(DETACH_EDITS[name]))


def _detach_shares(T: Any) -> list:
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    d = x.detach()
    d.mul_(2)
    data = x.data
    data.add_(1)  # ``.data`` shares the buffer but not the counter
    return [x._version, d._version, data._version] + x.tolist()


def test_detach_shares_buffer_and_version_counter() -> None:
    assert _detach_shares(ftorch) == [1, 1, 1, 3.0, 5.0, 7.0]
    same_as_pytorch(_detach_shares)


def _leaf_detach(T: Any) -> Any:
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = T.tensor([4.0, 5.0, 6.0], requires_grad=True)
    y = (x * w).sum()
    x.detach().zero_()
    y.backward()


def test_edit_of_a_saved_leaf_through_detach_is_detected() -> None:
    with pytest.raises(RuntimeError, match=MODIFIED + r": \[torch.FloatTensor \[3\]\] is at"):
        _leaf_detach(ftorch)
    same_as_pytorch(_leaf_detach)


# ====================================================================== constants
def _const_edit(edit: Callable) -> Callable:
    def scenario(T: Any) -> Any:
        w = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        c = T.tensor([4.0, 5.0, 6.0])
        y = w * c
        edit(c, T)
        y.sum().backward()
        return w.grad.tolist()
    return scenario


def _no_grad_add(c: Any, T: Any) -> None:
    with T.no_grad():
        c.add_(1)


CONST_EDITS = {
    "mul_": lambda c, T: c.mul_(10),
    "no_grad_add_": _no_grad_add,
    "view_mul_": lambda c, T: c[0].mul_(10),
    "detach_zero_": lambda c, T: c.detach().zero_(),
}


@pytest.mark.parametrize("name", sorted(CONST_EDITS))
def test_edit_of_a_saved_constant_is_detected(name: str) -> None:
    scenario = _const_edit(CONST_EDITS[name])
    with pytest.raises(RuntimeError, match=MODIFIED):
        scenario(ftorch)
    same_as_pytorch(scenario)


def _matmul_const(T: Any) -> Any:
    w = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = T.tensor([4.0, 5.0, 6.0])
    y = w @ c  # fad's matmul of vectors reads reshaped views of its operands
    c.mul_(2)
    y.backward()
    return w.grad.tolist()


def test_edit_of_a_constant_read_through_a_view_is_detected() -> None:
    with pytest.raises(RuntimeError, match=MODIFIED):
        _matmul_const(ftorch)
    same_as_pytorch(_matmul_const)


# ====================================================================== outputs
OUTPUT_OPS = {
    "exp": lambda x, T: x.exp(),
    "sigmoid": lambda x, T: x.sigmoid(),
    "tanh": lambda x, T: x.tanh(),
    "sqrt": lambda x, T: x.sqrt(),
    "rsqrt": lambda x, T: x.rsqrt(),
    "pow_tensor": lambda x, T: x ** T.tensor([2.0, 2.0, 2.0], requires_grad=True),
    "softmax": lambda x, T: x.softmax(0),
}


def _output_edit(op: Callable, no_grad: bool) -> Callable:
    def scenario(T: Any) -> Any:
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = op(x, T)
        if no_grad:
            with T.no_grad():
                y.add_(1)
        else:
            y.add_(1)
        y.sum().backward()
        return x.grad.tolist()
    return scenario


@pytest.mark.parametrize("no_grad", [False, True])
@pytest.mark.parametrize("name", sorted(OUTPUT_OPS))
def test_edit_of_a_saved_output_is_detected(name: str, no_grad: bool) -> None:
    scenario = _output_edit(OUTPUT_OPS[name], no_grad)
    with pytest.raises(RuntimeError, match=MODIFIED):
        scenario(ftorch)
    same_as_pytorch(scenario)


def _inplace_exp_then_edit(T: Any) -> Any:
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y.exp_()  # y now holds ExpBackward0's saved output
    with T.no_grad():
        y.add_(1)
    y.sum().backward()


def test_edit_of_an_output_saved_by_an_inplace_operation_is_detected() -> None:
    with pytest.raises(RuntimeError, match="which is output 0 of Exp, is at version 2; "
                                           "expected version 1 instead"):
        _inplace_exp_then_edit(ftorch)
    same_as_pytorch(_inplace_exp_then_edit)


# ====================================================================== views
def _view_edit(edit: Callable, no_grad: bool) -> Callable:
    def scenario(T: Any) -> Any:
        x, w, loss = _saved(T)
        if no_grad:
            with T.no_grad():
                edit(x)
        else:
            edit(x)
        loss.backward()
        return w.grad.tolist()
    return scenario


VIEW_EDITS = {
    "select_mul_": lambda x: x[0].mul_(2),
    "view_add_": lambda x: x.view(-1).add_(1),
    "slice_zero_": lambda x: x[1:].zero_(),
    "reshape_mul_": lambda x: x.reshape(3).mul_(2),
    "unsqueeze_add_": lambda x: x.unsqueeze(0).add_(1),
}


@pytest.mark.parametrize("no_grad", [False, True])
@pytest.mark.parametrize("name", sorted(VIEW_EDITS))
def test_edit_through_a_view_is_detected(name: str, no_grad: bool) -> None:
    scenario = _view_edit(VIEW_EDITS[name], no_grad)
    with pytest.raises(RuntimeError, match=MODIFIED):
        scenario(ftorch)
    torch = pytest.importorskip("torch")
    assert outcome(scenario, torch)[0] == "raise"


def _view_then_base_edit(T: Any) -> Any:
    x = T.tensor([1.0, 2.0, 3.0])
    v = x[1:]
    w = T.tensor([4.0, 5.0], requires_grad=True)
    y = (v * w).sum()
    x.mul_(2)  # the base is edited: the view saved by ``v * w`` changed too
    y.backward()


def test_edit_of_the_base_of_a_saved_view_is_detected() -> None:
    with pytest.raises(RuntimeError, match=MODIFIED):
        _view_then_base_edit(ftorch)
    same_as_pytorch(_view_then_base_edit)


# ====================================================================== not detected
def _harmless(T: Any) -> list:
    """Edits PyTorch accepts: the backward does not read the edited buffer."""
    out = []
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = T.tensor([4.0, 5.0, 6.0], requires_grad=True)
    y = x * 1
    loss = (y + w).sum()  # AddBackward0 saves nothing
    y.detach().mul_(3)
    loss.backward()
    out += x.grad.tolist()
    c = T.tensor([4.0, 5.0, 6.0])
    loss = (w + c).sum()
    c.mul_(2)
    loss.backward()
    out += w.grad.tolist()
    z = x.sin()  # sin saves its input, not its output
    z.add_(1)
    z.sum().backward()
    out += x.grad.tolist()
    v = x * 1
    loss = (v * 2).sum() + v @ c  # the backward reads 2 and c, nothing of v
    with T.no_grad():
        v.mul_(3)
    loss.backward()
    out += x.grad.tolist()
    v = x * 1
    loss = v.exp().sum()  # exp's backward reads its output, not its input
    v.add_(1)
    loss.backward()
    out += x.grad.tolist()
    return out


def test_edits_the_backward_does_not_read_are_accepted() -> None:
    after_sin = 1 + np.cos([1.0, 2.0, 3.0])
    after_mm = after_sin + [10.0, 12.0, 14.0]
    expected = [1.0, 1.0, 1.0, 2.0, 2.0, 2.0, *after_sin, *after_mm,
                *(after_mm + np.exp([1.0, 2.0, 3.0]))]
    np.testing.assert_allclose(_harmless(ftorch), expected, rtol=1e-6)
    x = ftorch.ones(2, requires_grad=True)
    x.detach().add_(1)  # counted on x: its detach alias shares its version counter
    assert x._version == 1 and x.tolist() == [2.0, 2.0]
    same_as_pytorch(_harmless)


# ====================================================================== hooks
def _returns_list(g: Any) -> Any:
    return [1, 2]


def _returns_array(g: Any) -> Any:
    return np.ones(3)


def _tensor_hook(hook: Callable, leaf: bool) -> Callable:
    def scenario(T: Any) -> Any:
        x = T.ones(3, requires_grad=True)
        y = x * 2
        (x if leaf else y).register_hook(hook)
        y.sum().backward()
    return scenario


@pytest.mark.parametrize("leaf", [True, False])
def test_tensor_hook_returning_a_non_tensor_is_named(leaf: bool) -> None:
    for hook, shown in ((_returns_list, "list"), (_returns_array, "numpy.ndarray")):
        with pytest.raises(TypeError) as info:
            _tensor_hook(hook, leaf)(ftorch)
        assert str(info.value) == (f"expected Variable, but hook returned '{shown}' (the hook "
                                   f"'{hook.__qualname__}' must return a Tensor or None)")
        same_as_pytorch(_tensor_hook(hook, leaf), prefix=True)


def _resize(g: Any) -> Any:
    return g[:2]


def _retype(g: Any) -> Any:
    return g.double()


def test_tensor_hook_changing_size_or_dtype_is_named() -> None:
    with pytest.raises(RuntimeError, match="hook '_resize' has changed the size of value"):
        _tensor_hook(_resize, False)(ftorch)
    with pytest.raises(RuntimeError, match=r"hook '_retype' has changed the type of value \(was "
                                           r"torch.FloatTensor got torch.DoubleTensor\)"):
        _tensor_hook(_retype, False)(ftorch)
    same_as_pytorch(_tensor_hook(_resize, False), prefix=True)
    same_as_pytorch(_tensor_hook(_retype, False), prefix=True)


def _node_hook(pre: bool) -> Callable:
    def scenario(T: Any) -> Any:
        x = T.ones(3, requires_grad=True)
        y = x * x
        if pre:
            y.grad_fn.register_prehook(lambda grad_outputs: [1])
        else:
            y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: [1])
        y.sum().backward()
    return scenario


@pytest.mark.parametrize("pre", [True, False])
def test_node_hook_returning_a_non_tuple_is_named(pre: bool) -> None:
    with pytest.raises(TypeError, match=r"expected tuple, but hook returned 'list' \(the hook "
                                        r"'_node_hook.<locals>.scenario.<locals>.<lambda>'"):
        _node_hook(pre)(ftorch)
    same_as_pytorch(_node_hook(pre), prefix=True)


# ====================================================================== products
O = lambda T, *s: T.ones(*s)  # noqa: E731

PRODUCTS = {
    "linear": lambda T: T.nn.Linear(3, 2)(O(T, 5, 4)),
    "linear_bias": lambda T: T.nn.functional.linear(O(T, 5, 4), O(T, 2, 4), O(T, 3)),
    "linear_3d_bias": lambda T: T.nn.functional.linear(O(T, 6, 5, 4), O(T, 2, 4), O(T, 3)),
    "linear_1d_bias": lambda T: T.nn.functional.linear(O(T, 4), O(T, 2, 4), O(T, 3)),
    "3d_1d": lambda T: O(T, 2, 2, 3) @ O(T, 4),
    "1d_3d": lambda T: O(T, 3) @ O(T, 2, 4, 5),
    "2d_3d": lambda T: O(T, 5, 4) @ O(T, 2, 3, 2),
    "3d_3d": lambda T: O(T, 2, 5, 4) @ O(T, 2, 3, 2),
    "3d_3d_batch": lambda T: O(T, 2, 5, 4) @ O(T, 3, 4, 2),
    "4d_3d": lambda T: O(T, 2, 1, 5, 4) @ O(T, 3, 3, 2),
    "mv": lambda T: T.mv(O(T, 5, 4), O(T, 3)),
    "mv_matrix": lambda T: T.mv(O(T, 5, 4), O(T, 4, 1)),
    "addmm": lambda T: T.addmm(O(T, 5, 2), O(T, 5, 4), O(T, 3, 2)),
    "addmm_input": lambda T: T.addmm(O(T, 5, 3), O(T, 5, 4), O(T, 4, 2)),
    "addmm_vector": lambda T: T.addmm(O(T, 2), O(T, 4), O(T, 4, 2)),
}


def test_linear_shape_mismatch_uses_pytorch_words() -> None:
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied "
                                           r"\(5x4 and 3x2\)$"):
        PRODUCTS["linear"](ftorch)
    with pytest.raises(RuntimeError, match=r"\(10x4 and 3x2\)$"):
        ftorch.nn.Linear(3, 2)(ftorch.ones(2, 5, 4))
    with pytest.raises(RuntimeError, match=r"^Expected size for first two dimensions of "
                                           r"batch2 tensor to be: \[2, 4\] but got: \[2, 3\]"):
        PRODUCTS["2d_3d"](ftorch)


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_product_shape_errors_match_pytorch(name: str) -> None:
    """(``mm`` and ``@`` of matrices, and ``matmul`` of vectors and matrices, already
    used PyTorch's words; ``tests/torch/test_torch_vs_pytorch.py`` checks some.)"""
    with pytest.raises(RuntimeError):
        PRODUCTS[name](ftorch)
    same_as_pytorch(PRODUCTS[name])


# ====================================================================== recording paths
PATHS = {
    "const": lambda L, C: (L["w"] * C["c"]).sum() + (L["w"] @ C["c"]),
    "outputs": lambda L, C: (L["w"].exp() * L["w"].sigmoid()).sum() + L["w"].tanh().sum(),
    "program": lambda L, C: ftorch.nn.functional.log_softmax(L["w"].relu(), 0).sum()
    + ftorch.nn.functional.mse_loss(L["w"], C["c"]),
    "views": lambda L, C: (L["w"].view(3)[1:] * C["c"][:2]).sum() + (L["w"] * 2).sum(),
}


def _checked(t: Any) -> list:
    """Per node below ``t``: its name and what its backward checks (saved outputs by
    number, saved tensors by shape and whether they require grad)."""
    return [(n.name(), sorted(("output", s.nr) if hasattr(s, "nr") else
                              ("tensor", tuple(s.shape), s.requires_grad)
                              for s in guards_of(n)))
            for n in grad_fn_nodes(t)]


@pytest.mark.parametrize("name", sorted(PATHS))
def test_every_recording_path_checks_the_same_values(name: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The general path (first sight), the direct forms and the programs (later calls)
    guard the same saved values."""
    monkeypatch.setattr(recorder, "_DIRECT", {})
    monkeypatch.setattr(recorder, "_PROGRAMS", {})
    monkeypatch.setattr(recorder, "_COMPILE_ON_FIRST_SIGHT", True)

    def run() -> list:
        L = {"w": ftorch.tensor([0.5, -1.0, 2.0], requires_grad=True)}
        C = {"c": ftorch.tensor([4.0, 5.0, 6.0])}
        return _checked(PATHS[name](L, C))

    first, second, third = run(), run(), run()
    assert any(v is not None for v in recorder._DIRECT.values()) or recorder._PROGRAMS
    assert first == second == third
    assert any(items for _, items in first)
    monkeypatch.setattr(recorder, "_signature", lambda *a, **k: None)  # the general path only
    assert run() == first


# ====================================================================== never silently wrong
UNARY = {
    "exp": lambda a: a.exp(), "expm1": lambda a: a.expm1(), "sqrt": lambda a: a.sqrt(),
    "rsqrt": lambda a: a.rsqrt(), "reciprocal": lambda a: a.reciprocal(),
    "tan": lambda a: a.tan(), "tanh": lambda a: a.tanh(), "sigmoid": lambda a: a.sigmoid(),
    "rpow": lambda a: 2 ** a, "softmax": lambda a: a.softmax(0), "relu": lambda a: a.relu(),
    "log_softmax": lambda a: a.log_softmax(0), "prod": lambda a: a.prod(),
    "norm": lambda a: a.norm(), "amax": lambda a: a.amax(), "sin": lambda a: a.sin(),
}
BINARY = {
    "mul": lambda a, b: a * b, "div": lambda a, b: a / b, "pow": lambda a, b: a ** b,
    "maximum": lambda a, b: ftorch.maximum(a, b), "atan2": lambda a, b: ftorch.atan2(a, b),
    "dot": lambda a, b: ftorch.dot(a, b), "outer": lambda a, b: ftorch.outer(a, b),
    "matmul": lambda a, b: a @ b, "mse": lambda a, b: ftorch.nn.functional.mse_loss(a, b),
    "bce_logits": lambda a, b: ftorch.nn.functional.binary_cross_entropy_with_logits(a, b),
}


def _grads(build: Callable, edit: Callable | None) -> Any:
    """The gradients of ``build(x, w, c).sum()`` (``x`` computed, ``w`` a leaf, ``c`` a
    constant), after ``edit(x, w, c, y)``; ``None`` if the backward refuses."""
    x0 = ftorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = ftorch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    c = ftorch.tensor([0.5, 1.0, 2.0])
    x = x0 * 1
    y = build(x, w, c)
    if edit is not None:
        with ftorch.no_grad():
            edit(x, w, c, y)
    try:
        y.sum().backward()
    except RuntimeError as e:
        assert str(e).startswith(MODIFIED)
        return None
    return [t.grad.numpy().copy() for t in (x0, w) if t.grad is not None]


EDITS = {
    "output": lambda x, w, c, y: y.add_(1),
    "input": lambda x, w, c, y: x.mul_(2),
    "constant": lambda x, w, c, y: c.mul_(2),
    "leaf": lambda x, w, c, y: w.mul_(2),
}


def test_an_edit_under_no_grad_never_changes_a_gradient_silently() -> None:
    """Whatever is edited in place between the forward and the backward, the backward
    either refuses or returns the gradient of the values the forward used."""
    builds = [(name, lambda x, w, c, f=f: f(x)) for name, f in UNARY.items()]
    for name, f in BINARY.items():
        builds += [(name + "(x, w)", lambda x, w, c, f=f: f(x, w)),
                   (name + "(x, c)", lambda x, w, c, f=f: f(x, c)),
                   (name + "(c, x)", lambda x, w, c, f=f: f(c, x))]
    wrong = []
    for name, build in builds:
        want = _grads(build, None)
        for kind, edit in EDITS.items():
            got = _grads(build, edit)
            if got is not None and not all(np.allclose(g, h) for g, h in zip(got, want)):
                wrong.append(f"{name} after editing the {kind}")
    assert not wrong


# ====================================================================== out=
def _out_plain(T: Any) -> Any:
    y = T.zeros(3)
    r = T.mul(T.tensor([1.0, 2.0, 3.0]), 2, out=y)
    return [float(r is y), *y.tolist()]


def _out_unary(T: Any) -> Any:
    y = T.zeros(2, dtype=T.float64)
    r = T.exp(T.zeros(2), out=y)
    return [float(r is y), float(y.dtype == T.float64), *y.tolist()]


def _out_view(T: Any) -> Any:
    base = T.zeros(4)
    T.add(T.ones(2), T.ones(2), alpha=2, out=base[1:3])
    return base.tolist()


def _out_creation(T: Any) -> Any:
    y = T.full((2,), 7.0)
    T.ones(2, out=y)
    return y.tolist()


def _out_requires_grad(T: Any) -> Any:
    x = T.ones(3, requires_grad=True)
    return T.add(x, 1, out=T.zeros(3))


def _out_is_leaf(T: Any) -> Any:
    y = T.zeros(3, requires_grad=True)
    return T.sub(T.ones(3), 1, out=y)


def _out_cast(T: Any) -> Any:
    return T.div(T.ones(3), 2, out=T.zeros(3, dtype=T.int64))


@pytest.mark.parametrize("scenario", [_out_plain, _out_unary, _out_view, _out_creation],
                         ids=lambda f: f.__name__)
def test_out_receives_the_result(scenario: Callable) -> None:
    """``out=`` is written (views included) and returned, never ignored."""
    got = outcome(scenario, ftorch)
    assert got[0] == "ok", got
    same_as_pytorch(scenario)


@pytest.mark.parametrize("scenario", [_out_requires_grad, _out_is_leaf, _out_cast],
                         ids=lambda f: f.__name__)
def test_out_that_autograd_cannot_record_raises(scenario: Callable) -> None:
    """An ``out=`` that would need a gradient, or a lossy cast, raises PyTorch's error."""
    got = outcome(scenario, ftorch)
    assert got[0] == "raise" and got[1] == "RuntimeError", got
    same_as_pytorch(scenario)


# ====================================================================== writes into views
def _leaf_view_add_(T: Any) -> Any:
    x = T.ones(3, requires_grad=True)
    x[:2].add_(1)
    return x.tolist()


def _leaf_view_setitem(T: Any) -> Any:
    x = T.ones(2, 2, requires_grad=True)
    x.view(4)[0] = 5.0
    return x.tolist()


def _no_grad_view_mul_(T: Any) -> Any:
    a = T.ones(3, requires_grad=True) * 1
    with T.no_grad():
        v = a[1:]
    v.mul_(2)
    a.sum().backward()
    return a.tolist()


def _leaf_view_under_no_grad(T: Any) -> Any:
    x = T.ones(3, requires_grad=True)
    v = x[:2]
    with T.no_grad():
        v.mul_(3)
    (x * x).sum().backward()
    return x.grad.tolist()


@pytest.mark.parametrize("scenario", [_leaf_view_add_, _leaf_view_setitem,
                                      _no_grad_view_mul_], ids=lambda f: f.__name__)
def test_a_write_into_a_view_that_autograd_cannot_record_raises(scenario: Callable) -> None:
    """Writing into a view of a leaf that requires grad, or into a view made under
    ``no_grad`` of a tensor that requires grad, raises PyTorch's error instead of
    changing values that the gradient ignores."""
    got = outcome(scenario, ftorch)
    assert got[0] == "raise" and got[1] == "RuntimeError", got
    assert "view" in got[2]
    same_as_pytorch(scenario)
    assert outcome(_leaf_view_under_no_grad, ftorch) == ("ok", [6.0, 6.0, 2.0])



def _view_write_reaches_base(T: Any) -> Any:
    x = T.arange(4.0).requires_grad_()
    a = x * 1
    a[:2].mul_(5)
    a.sum().backward()
    return [*a.tolist(), *x.grad.tolist()]


def _base_write_reaches_view(T: Any) -> Any:
    x = T.arange(4.0).requires_grad_()
    a = x * 1
    v = a[1:3]
    a.mul_(x)
    (v * 1).sum().backward()
    return [*v.tolist(), *x.grad.tolist()]


def _view_write_reaches_sibling(T: Any) -> Any:
    x = T.arange(6.0).reshape(2, 3).requires_grad_()
    a = x * 1
    row, col = a[1], a.t()[2]
    row.exp_()
    (col * col).sum().backward()
    return [*col.tolist(), *x.grad.reshape(-1).tolist()]


def _grad_value_into_plain_base(T: Any) -> Any:
    w = T.ones(2, requires_grad=True)
    a = T.zeros(4)
    a[1:3].add_(w * 3)
    (a * a).sum().backward()
    return [*a.tolist(), *w.grad.tolist(), float(a.is_leaf)]


def _write_reaches_detached_alias(T: Any) -> Any:
    a = T.arange(3.0, requires_grad=True) * 1
    d = a.detach()
    a.mul_(2)
    return d.tolist()


def _setitem_through_view(T: Any) -> Any:
    w = T.tensor([2.0, 3.0], requires_grad=True)
    a = T.ones(2, 2) * w
    a[0][1] = w[0] * 7
    a.sum().backward()
    return [*a.reshape(-1).tolist(), *w.grad.tolist()]


@pytest.mark.parametrize("scenario", [_view_write_reaches_base, _base_write_reaches_view,
                                      _view_write_reaches_sibling, _grad_value_into_plain_base,
                                      _write_reaches_detached_alias, _setitem_through_view],
                         ids=lambda f: f.__name__)
def test_a_recorded_inplace_write_reaches_every_tensor_sharing_the_buffer(
        scenario: Callable) -> None:
    """An in-place operation that autograd records, on a view or on its base, changes
    the values of the base, the views and the ``detach()`` aliases of that buffer, and
    their gradients follow (PyTorch's ``CopySlices``)."""
    assert outcome(scenario, ftorch)[0] == "ok"
    same_as_pytorch(scenario)


# ====================================================================== shared gradient arrays
def _shared_grads(T: Any) -> tuple:
    """Two leaves whose gradients are one array to the engine (``a + b``)."""
    a = T.ones(3, requires_grad=True)
    b = T.ones(3, requires_grad=True)
    (a + b).sum().backward()
    return a, b


GRAD_ALIAS_EDITS = {
    "data_mul_": lambda g: g.data.mul_(5),
    "detach_mul_": lambda g: g.detach().mul_(5),
    "slice_zero_": lambda g: g[:2].zero_(),
    "view_mul_": lambda g: g.view(3).mul_(5),
    "numpy_write": lambda g: g.numpy().__setitem__(slice(None), 7.0),
}


@pytest.mark.parametrize("name", sorted(GRAD_ALIAS_EDITS))
def test_a_write_through_an_alias_of_a_grad_changes_that_grad_only(name: str) -> None:
    """Editing ``p.grad`` through ``.data``, ``detach()``, a view or ``numpy()``
    changes ``p.grad`` and no other leaf's gradient."""
    def scenario(T: Any) -> Any:
        a, b = _shared_grads(T)
        GRAD_ALIAS_EDITS[name](a.grad)
        return [*a.grad.tolist(), *b.grad.tolist()]
    got = outcome(scenario, ftorch)
    assert got[0] == "ok" and got[1][3:] == [1.0, 1.0, 1.0], got
    same_as_pytorch(scenario)


def _cow_base_then_view(T: Any) -> Any:
    a = T.arange(3.0, requires_grad=True) * 1
    a.exp_()
    v = a[:2]
    with T.no_grad():
        a.add_(1)
    return v.tolist()


def test_a_view_of_a_tensor_rebound_in_place_follows_its_later_edits() -> None:
    assert outcome(_cow_base_then_view, ftorch)[0] == "ok"
    same_as_pytorch(_cow_base_then_view)


def _recorded_write_into_numpy_buffers(T: Any) -> Any:
    n = np.zeros(3, dtype=np.float32)
    a = T.from_numpy(n)
    w = T.ones(3, requires_grad=True)
    a.add_(w * 2)
    m = T.zeros(3)
    k = m.numpy()
    m.add_(w)
    (a * m).sum().backward()
    return [*n.tolist(), *k.tolist(), *w.grad.tolist()]


def test_a_recorded_inplace_write_reaches_shared_numpy_buffers() -> None:
    """``from_numpy`` and ``numpy()`` share memory: an in-place operation that autograd
    records writes into it, as every other in-place operation does."""
    assert outcome(_recorded_write_into_numpy_buffers, ftorch)[0] == "ok"
    same_as_pytorch(_recorded_write_into_numpy_buffers)


def _retained_then_edited(T: Any) -> Any:
    x = T.ones(3, requires_grad=True)
    a = x * 1
    a.retain_grad()
    a.mul_(2)
    b = x * 1
    b.retain_grad()
    b[:2].mul_(2)
    a0 = x * 1
    v = a0[:2]
    v.retain_grad()
    a0.mul_(2)
    (a.sum() + b.sum() + (v * 3).sum()).backward()
    return [*a.grad.tolist(), *b.grad.tolist(), *v.grad.tolist()]


def test_retain_grad_follows_an_inplace_edit() -> None:
    """``retain_grad()`` on a tensor later edited in place (itself, through a view, or
    through its base) gives the gradient of its new value, as PyTorch's."""
    assert outcome(_retained_then_edited, ftorch)[0] == "ok"
    same_as_pytorch(_retained_then_edited)


def test_a_write_through_a_dtype_view_of_a_grad_changes_that_grad_only() -> None:
    """The engine may give two leaves one gradient array; a dtype view of one leaf's
    ``.grad`` is an alias of that gradient alone, as every other view is."""
    def scenario(T: Any) -> Any:
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = T.tensor([3.0, 4.0], requires_grad=True)
        (x + y).sum().backward()
        x.grad.view(T.float32).add_(1)
        return x.grad.tolist(), y.grad.tolist()
    assert scenario(ftorch) == ([2.0, 2.0], [1.0, 1.0])
    same_as_pytorch(scenario)
