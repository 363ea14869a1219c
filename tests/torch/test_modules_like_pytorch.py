"""``nn.Module`` against PyTorch's: traversal orders, ``state_dict`` keys,
``load_state_dict`` reports, hooks, ``repr`` and conversions (skipped without torch)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

LIBS = pytest.mark.parametrize("torch", [real_torch, ftorch], ids=["pytorch", "fad"])


def both(fn: Any) -> tuple:
    """``fn(torch)`` for PyTorch and the facade, each with its seed set."""
    out = []
    for torch in (real_torch, ftorch):
        torch.manual_seed(0)
        out.append(fn(torch))
    return tuple(out)


def make_net(torch: Any) -> Any:
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.Linear(3, 3), nn.ReLU()))
            self.b = nn.Linear(3, 1)
            self.register_buffer("buf", torch.zeros(2))
            self.register_buffer("scratch", torch.zeros(1), persistent=False)
            self.head = nn.ModuleDict({"z": nn.Linear(1, 1), "y": nn.Identity()})

        def forward(self, x):
            return self.head["z"](self.b(self.a(x)))
    return Net()


def error(fn: Any) -> tuple:
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value)


@pytest.mark.parametrize("method", ["named_modules", "named_parameters", "named_buffers",
                                    "named_children"])
def test_iteration_orders_are_depth_first(method):
    r, f = both(lambda torch: [k for k, _ in getattr(make_net(torch), method)()])
    assert r == f


def test_state_dict_keys_and_values():
    r, f = both(lambda torch: make_net(torch).state_dict())
    assert list(r) == list(f)
    assert "scratch" not in f and list(f)[0] == "buf"
    for k in r:
        assert tuple(r[k].shape) == tuple(f[k].shape)
        assert not f[k].requires_grad


def test_modules_and_parameters_counts():
    r, f = both(lambda torch: (len(list(make_net(torch).modules())),
                               len(list(make_net(torch).parameters())),
                               len(list(make_net(torch).children()))))
    assert r == f


def test_shared_submodule_is_listed_once_but_saved_under_each_name():
    def run(torch):
        lin = torch.nn.Linear(1, 1)
        net = torch.nn.Sequential(lin, lin)
        return ([k for k, _ in net.named_modules()], [k for k, _ in net.named_parameters()],
                list(net.state_dict()))
    r, f = both(run)
    assert r == f


def test_load_state_dict_reports_missing_and_unexpected():
    def run(torch):
        net = make_net(torch)
        sd = net.state_dict()
        sd.pop("b.bias")
        sd["extra.weight"] = torch.ones(1)
        res = net.load_state_dict(sd, strict=False)
        return repr(res), res.missing_keys, res.unexpected_keys, error(
            lambda: net.load_state_dict(sd))
    r, f = both(run)
    assert r == f
    assert f[3][1].startswith("Error(s) in loading state_dict for Net:\n\tMissing key(s)")


def test_load_state_dict_all_matched_and_copies_values():
    def run(torch):
        src, dst = make_net(torch), make_net(torch)
        with torch.no_grad():
            src.b.weight.fill_(3.0)
        res = dst.load_state_dict(src.state_dict())
        return repr(res), dst.b.weight.tolist()
    r, f = both(run)
    assert r == f == ("<All keys matched successfully>", [[3.0, 3.0, 3.0]])


def test_load_state_dict_size_mismatch_message():
    def run(torch):
        net = make_net(torch)
        sd = net.state_dict()
        sd["b.bias"] = torch.ones(2)
        return error(lambda: net.load_state_dict(sd, strict=False))
    r, f = both(run)
    assert r == f


@LIBS
def test_forward_hooks_order_replacement_and_removal(torch):
    lin = torch.nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda m, args: (calls.append("pre"), (args[0] * 2,))[1])
    h2 = lin.register_forward_hook(lambda m, args, out: (calls.append("fwd"), out * 0)[1])
    h3 = lin.register_forward_pre_hook(lambda m, args: calls.append("pre0"), prepend=True)
    x = torch.ones(1, 2)
    assert lin(x).abs().sum().item() == 0.0
    assert calls == ["pre0", "pre", "fwd"]
    for h in (h1, h2, h3):
        h.remove()
    calls.clear()
    np.testing.assert_allclose(lin(x).tolist(), (x @ lin.weight.T + lin.bias).tolist())
    assert calls == []


@LIBS
def test_forward_pre_hook_sees_doubled_input(torch):
    lin = torch.nn.Linear(2, 1, bias=False)
    with torch.no_grad():
        lin.weight.fill_(1.0)
    lin.register_forward_pre_hook(lambda m, args: args[0] * 2)
    assert lin(torch.ones(1, 2)).item() == 4.0


def test_full_backward_hook_sees_grads_as_pytorch():
    def run(torch):
        lin = torch.nn.Linear(2, 2)
        with torch.no_grad():
            lin.weight.copy_(torch.tensor([[1.0, -2.0], [0.5, 3.0]]))
        seen = []

        def hook(m, gi, go):
            seen.append(([None if g is None else g.tolist() for g in gi], [g.tolist()
                                                                              for g in go]))
            return (gi[0] * 10,)
        h = lin.register_full_backward_hook(hook)
        x = torch.tensor([[1.0, 2.0]], requires_grad=True)
        (lin(x) * torch.tensor([[1.0, 3.0]])).sum().backward()
        h.remove()
        return seen, x.grad.tolist(), lin.weight.grad.tolist()
    r, f = both(run)
    assert len(f[0]) == 1
    np.testing.assert_allclose(r[0][0][0], f[0][0][0], rtol=1e-6)
    assert r[0][0][1] == f[0][0][1]
    np.testing.assert_allclose(r[1], f[1], rtol=1e-6)
    np.testing.assert_allclose(r[2], f[2], rtol=1e-6)


def test_full_backward_hook_without_input_grad():
    def run(torch):
        with pytest.warns(UserWarning, match="Full backward hook is firing"):
            return inner(torch)

    def inner(torch):
        lin = torch.nn.Linear(2, 1)
        seen = []
        lin.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go[0].tolist())))
        lin(torch.ones(1, 2)).sum().backward()
        return seen
    r, f = both(run)
    assert r == f == [((None,), [[1.0]])]


def test_repr_nested_and_extra_repr():
    r, f = both(lambda torch: repr(make_net(torch)))
    assert r == f


def test_type_names():
    """The facade's public types print as PyTorch's, ``fad.`` before ``torch``."""
    assert str(type(ftorch.ones(1))) == "<class 'fad.torch.Tensor'>"
    for make in (lambda t: t.ones(2).shape, lambda t: t.device("cpu"), lambda t: t.float32):
        assert str(type(make(ftorch))) == str(type(make(real_torch))).replace("'torch.",
                                                                              "'fad.torch.")
    assert ftorch.nn.Module.__module__.startswith("fad.torch.nn")
    assert ftorch.nn.Parameter.__qualname__ == "Parameter"


def test_get_submodule_and_get_parameter():
    def run(torch):
        net = make_net(torch)
        return (repr(net.get_submodule("a.1.0")), tuple(net.get_parameter("a.1.0.bias").shape),
                error(lambda: net.get_submodule("a.x")), error(lambda: net.get_parameter("b.x")))
    r, f = both(run)
    assert r == f


def test_train_eval_apply_requires_grad_zero_grad():
    def run(torch):
        net = make_net(torch)
        net.eval()
        flags = [m.training for m in net.modules()]
        names = []
        net.apply(lambda m: names.append(type(m).__name__))
        net.requires_grad_(False)
        req = [p.requires_grad for p in net.parameters()]
        net.requires_grad_(True)
        net(torch.ones(1, 2)).sum().backward()
        net.zero_grad()
        return flags, names, req, [p.grad for p in net.parameters()]
    r, f = both(run)
    assert r == f


@pytest.mark.parametrize("conv", ["double", "half", "float"])
def test_dtype_conversions(conv):
    def run(torch):
        net = make_net(torch)
        getattr(net, conv)()
        return [str(p.dtype).split(".")[-1] for p in net.parameters()] + [
            str(b.dtype).split(".")[-1] for b in net.buffers()]
    r, f = both(run)
    assert r == f


def test_to_dtype_and_register_errors():
    def run(torch):
        net = make_net(torch).to(torch.float64)
        m = torch.nn.Module()
        return (str(net.b.weight.dtype).split(".")[-1],
                error(lambda: m.register_buffer("a.b", torch.ones(1))),
                error(lambda: m.register_parameter("w", torch.ones(1))),
                error(lambda: net.to(torch.int64)))
    r, f = both(run)
    assert r[0] == f[0] and r[1] == f[1] and r[3] == f[3]
    assert r[2][0] == f[2][0] == "TypeError"
