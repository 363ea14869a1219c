"""The facade's fast recording paths (``fad/torch/_recorder.py``): an operation that is
one primitive is recorded by calling that primitive directly ("direct form"), and
any other by evaluating its cached program ("program"); both tape what the core's
``VJPTrace`` would and pull back with the core's ``pullback``. Each must give the
gradients, ``grad_fn`` names and ``next_functions`` of the general path (a fresh
``vjp_flat`` per operation), including when the values behind the same shapes
change (indices, masks, targets) and for every autograd feature built on nodes."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from facade_graphs import grad_fn_nodes
from hypothesis import given, settings
from hypothesis import strategies as st

import fad
import fad.numpy as fnp
import fad.torch as torch
import fad.torch._recorder as recorder

F = torch.nn.functional


@pytest.fixture
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fresh caches; programs compiled on first sight (so that the second call of a
    scenario runs every operation through a fast path)."""
    monkeypatch.setattr(recorder, "_DIRECT", {})
    monkeypatch.setattr(recorder, "_PROGRAMS", {})
    monkeypatch.setattr(recorder, "_EAGER", {})
    monkeypatch.setattr(recorder, "_COMPILE_ON_FIRST_SIGHT", True)


def _general(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recorder, "_signature", lambda *a, **k: None)


def _graph(t: Any) -> list:
    """The grad_fn graph below ``t``: (name, next (name, output_nr) pairs) per node, in
    depth-first order."""
    return [(n.name(), tuple((None if f is None else f.name(), k) for f, k in n.next_functions))
            for n in grad_fn_nodes(t)]


def _run(scenario: Callable, data: dict) -> tuple:
    leaves = {k: torch.tensor(v, requires_grad=True) for k, v in data.items()
              if np.asarray(v).dtype.kind == "f" and not k.startswith("c_")}
    consts = {k: torch.tensor(v) for k, v in data.items() if k not in leaves}
    loss = scenario(leaves, consts)
    graph = _graph(loss)
    loss.backward()
    return (loss.item(), graph,
            {k: (None if t.grad is None else t.grad.numpy().copy()) for k, t in leaves.items()})


def _rng_data(seed: int) -> dict:
    r = np.random.default_rng(seed)
    return {
        "x": r.standard_normal(6),
        "w": r.standard_normal((5, 4)).astype(np.float32),
        "b": r.standard_normal(4).astype(np.float32),
        "h": r.standard_normal((3, 5)).astype(np.float32),
        "z": r.standard_normal((3, 4)).astype(np.float32),
        "e": r.standard_normal((7, 3)),
        "c_y": r.integers(0, 4, 3),
        "c_y_ign": np.where(r.random(3) < 0.5, -100, r.integers(0, 4, 3)),
        "c_idx": r.integers(0, 7, (2, 3)),
        "c_mask": r.random((3, 4)) < 0.5,
        "c_g": r.integers(0, 4, (3, 2)),
        "c_f64": r.standard_normal(4),
        "c_i": r.integers(-3, 3, 6),
    }


SCENARIOS: dict[str, Callable] = {
    "chain": lambda L, C: torch.sum(torch.tanh(torch.sin(L["x"]) * 1.01) + 0.1),
    "scalars": lambda L, C: ((1 - L["x"]) * 2 + L["x"] / 3.0 - 2 ** L["x"] + L["x"] ** 2).sum(),
    "same_input_twice": lambda L, C: (L["x"] * L["x"]).sum(),
    "mlp": lambda L, C: F.cross_entropy(torch.tanh(L["h"] @ L["w"] + L["b"]), C["c_y"]),
    "ignore_index": lambda L, C: F.cross_entropy(L["z"] * 2.0, C["c_y_ign"]),
    "weighted_nll": lambda L, C: F.nll_loss(F.log_softmax(L["z"], 1), C["c_y"],
                                            weight=L["b"].detach() + 2.0),
    "relu_softmax_mse": lambda L, C: F.mse_loss(F.softmax(F.relu(L["z"]), dim=1),
                                                torch.sigmoid(L["z"]).detach()),
    "embedding": lambda L, C: (F.embedding(C["c_idx"], L["e"]) ** 2).sum(),
    "index_ops": lambda L, C: (L["e"].index_select(0, C["c_idx"][0]).sum()
                               + L["z"].gather(1, C["c_g"]).pow(3).sum()),
    "masked": lambda L, C: (L["z"].masked_fill(C["c_mask"], 0.5) * L["z"]).sum()
    + torch.where(C["c_mask"], L["z"], -L["z"]).exp().mean(),
    "mixed_dtypes": lambda L, C: (L["b"] * C["c_f64"] + L["b"] * C["c_i"][:4]).sum(),
    "shapes": lambda L, C: (L["h"].t().reshape(3, 5).permute(1, 0).unsqueeze(0).squeeze(0)
                            .transpose(0, 1).reshape(-1)[2:7].sum() + L["h"][1].sum()
                            + torch.cat([L["b"], L["b"] * 2]).sum()
                            + torch.stack([L["b"], L["z"][0]]).mean(dim=0, keepdim=True).sum()),
    "products": lambda L, C: (L["h"].mm(L["w"]).sum() + L["w"].mv(L["b"]).sum()
                              + L["b"].dot(L["b"]) + torch.outer(L["b"], L["b"]).sum()
                              + torch.addmm(L["b"], L["h"], L["w"]).sum()),
    "repeated_inputs": lambda L, C: ((torch.stack([L["b"], L["b"]]) * 2).sum()
                                     + torch.atan2(L["b"], L["b"] + 1).sum()
                                     + F.smooth_l1_loss(L["z"], L["z"] * 0.5)
                                     + torch.maximum(L["z"], L["z"] * L["z"]).sum()),
    "reductions": lambda L, C: (L["z"].sum(1).prod() + L["z"].max() + L["z"].amax(0).sum()
                                + L["z"].var() + L["z"].norm() + L["z"].logsumexp(1).sum()
                                + L["z"].clamp(-0.5, 0.5).abs().sum()),
}


@pytest.mark.parametrize("generated", [True, False])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_fast_paths_match_the_general_path(name: str, generated: bool, fast: None,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Each scenario, recorded by the fast paths (with programs run as generated code
    and recorded by their generated recorders, or, as on another backend than NumPy,
    equation by equation and slot by slot), matches the general path."""
    if not generated:
        monkeypatch.setattr(recorder, "_generated_forward", lambda *a: ((), None))
    scenario = SCENARIOS[name]
    fast_results = [_run(scenario, _rng_data(seed)) for seed in (0, 0, 1, 2)]
    assert recorder._DIRECT or recorder._PROGRAMS
    progs = [p for p in recorder._PROGRAMS.values() if isinstance(p, recorder._Program)]
    # (a program of a call that records nothing, or whose code cannot be generated,
    # has no generated recorder either way)
    assert all((p.record is not None) == generated for p in progs
               if p.in_nodes and (p.run is not None or not generated))
    _general(monkeypatch)
    for seed, got in zip((0, 0, 1, 2), fast_results):
        want = _run(scenario, _rng_data(seed))
        assert got[1] == want[1]  # grad_fn names and next_functions
        assert got[0] == pytest.approx(want[0], rel=1e-6, abs=1e-6)
        for k, g in want[2].items():
            if g is None:
                assert got[2][k] is None
            else:
                np.testing.assert_allclose(got[2][k], g, rtol=1e-5, atol=1e-6, err_msg=k)
                assert got[2][k].dtype == g.dtype


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_calls_that_record_nothing_match_the_general_path(
        name: str, fast: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without grad, an operation known to be one primitive calls its kernel and any
    other evaluates its program: the same values and dtypes, bit for bit, as running
    the operation's fad function."""
    def forward(seed: int) -> np.ndarray:
        data = _rng_data(seed)
        with torch.no_grad():
            floats = {k: torch.tensor(v, requires_grad=True) for k, v in data.items()
                      if np.asarray(v).dtype.kind == "f" and not k.startswith("c_")}
            out = SCENARIOS[name](floats, {k: torch.tensor(v) for k, v in data.items()})
        assert out.grad_fn is None
        return out.numpy().copy()
    seeds = (0, 0, 1, 2)
    fast_results = [forward(seed) for seed in seeds]
    assert any(v is not None for v in recorder._EAGER.values())
    _general(monkeypatch)
    for seed, got in zip(seeds, fast_results):
        want = forward(seed)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype


def test_calls_that_record_nothing_take_the_kernel_or_the_program(fast: None) -> None:
    x = torch.tensor(np.linspace(-1, 1, 5))
    y = torch.tensor(np.zeros((2, 5), np.float32), requires_grad=True)
    for _ in range(3):
        torch.sin(x) * 1.01
        with torch.no_grad():
            F.log_softmax(y, 1)
    kernels = {k[0].name for k, v in recorder._EAGER.items()
               if v is not None and v is not recorder._PROGRAM}
    assert {"sin", "mul"} <= kernels
    programs = {k[0][0].name for k, v in recorder._PROGRAMS.items()
                if isinstance(v, recorder._Program)}
    assert "log_softmax" in programs


def test_the_fast_paths_are_taken(fast: None) -> None:
    x = torch.tensor(np.linspace(-1, 1, 5), requires_grad=True)
    y = torch.tensor(np.zeros((2, 5), np.float32), requires_grad=True)
    for _ in range(3):
        torch.sin(x) * 1.01
        F.log_softmax(y, 1)
    direct = {k[0].name for k, v in recorder._DIRECT.items() if v is not None}
    assert {"sin", "mul"} <= direct
    programs = {k[0][0].name for k, v in recorder._PROGRAMS.items()
                if isinstance(v, recorder._Program)}
    assert "log_softmax" in programs


def test_a_program_is_compiled_on_its_second_sighting(monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    monkeypatch.setattr(recorder, "_DIRECT", {})
    monkeypatch.setattr(recorder, "_PROGRAMS", {})
    monkeypatch.setattr(recorder, "_COMPILE_ON_FIRST_SIGHT", False)
    z = torch.tensor(np.ones((2, 3)), requires_grad=True)
    F.softmax(z, 1)
    F.softmax(z, 1)  # first sighting: noted; then the general path
    assert list(recorder._PROGRAMS.values()) == [recorder._SEEN_ONCE]
    F.softmax(z, 1)
    assert isinstance(next(iter(recorder._PROGRAMS.values())), recorder._Program)


def test_scalar_values_do_not_leak_between_calls(fast: None) -> None:
    """A direct form keys Python floats by type (they are operands); a program by value
    (they are baked in)."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for c in (1.5, 2.5, -3.0, 1.5):
        x.grad = None
        (x * c).sum().backward()
        assert x.grad.tolist() == [c, c]
        x.grad = None
        F.leaky_relu(x - 1.5, c).sum().backward()
        assert x.grad.tolist() == [c, 1.0]
    for k in (2, 3, 2):  # small ints are shared objects: keyed by value
        x.grad = None
        (x * k).sum().backward()
        assert x.grad.tolist() == [k, k]


def test_index_values_change_between_calls(fast: None) -> None:
    w = torch.tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
    for idx in ([0, 1], [3, 3], [2, 0], [1, 1]):
        w.grad = None
        F.embedding(torch.tensor(idx), w).sum().backward()
        want = np.zeros((4, 3))
        for i in idx:
            want[i] += 1
        np.testing.assert_array_equal(w.grad.numpy(), want)
    z = torch.tensor(np.zeros((2, 3)), requires_grad=True)
    for y in ([0, 1], [2, 2], [1, -100]):
        z.grad = None
        F.cross_entropy(z, torch.tensor(y)).backward()
        valid = [t for t in y if t != -100]
        want = np.full((2, 3), 1 / 3) / len(valid)
        for r, t in enumerate(y):
            if t == -100:
                want[r] = 0
            else:
                want[r, t] -= 1 / len(valid)
        np.testing.assert_allclose(z.grad.numpy(), want, atol=1e-12)


def test_double_backward_through_fast_nodes(fast: None, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    def hessian_diag(xv: np.ndarray) -> tuple:
        x = torch.tensor(xv, requires_grad=True)
        y = (torch.tanh(torch.sin(x) * 1.01) + 0.1).sum() + F.log_softmax(x, 0).sum()
        (g,) = torch.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        return g.grad_fn.name(), g.detach().numpy().copy(), x.grad.numpy().copy()

    xv = np.linspace(-1, 1, 4)
    got = [hessian_diag(xv) for _ in range(3)]
    _general(monkeypatch)
    want = hessian_diag(xv)
    for g in got:
        assert g[0] == want[0]
        np.testing.assert_allclose(g[1], want[1], rtol=1e-12)
        np.testing.assert_allclose(g[2], want[2], rtol=1e-12)


def test_double_backward_of_several_inputs_by_programs(fast: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The Rosenbrock Hessian-vector product: the backward operations of nodes with two
    inputs (``b - a ** 2``, ``+``) are programs with two outputs; graph and values as
    the general path's."""
    def hvp(xv: np.ndarray, vv: np.ndarray) -> tuple:
        x = torch.tensor(xv, requires_grad=True)
        a, b = x[:-1], x[1:]
        y = (100.0 * (b - a ** 2) ** 2 + (1.0 - a) ** 2).sum()
        (g,) = torch.autograd.grad(y, x, create_graph=True)
        (hv,) = torch.autograd.grad((g * torch.tensor(vv)).sum(), x)
        return _graph(g), g.detach().numpy().copy(), hv.numpy().copy()

    r = np.random.default_rng(3)
    data = [(r.uniform(-1.5, 1.5, 6), r.standard_normal(6)) for _ in range(3)]
    got = [hvp(*d) for d in data]
    assert any(isinstance(v, recorder._Program) and k[0][0].multi
               for k, v in recorder._PROGRAMS.items())
    _general(monkeypatch)
    for d, g in zip(data, got):
        want = hvp(*d)
        assert g[0] == want[0]
        np.testing.assert_allclose(g[1], want[1], rtol=1e-12)
        np.testing.assert_allclose(g[2], want[2], rtol=1e-12)


def test_linear_nodes_differentiate_recorded_cotangents_again(
        fast: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Linear nodes (slices, ``-``, ``neg``) whose backward reads none of their inputs,
    pulled back with ``create_graph`` from a cotangent that requires grad: the gradient
    depends on the cotangent only, also once a first backward has released the nodes
    (their inputs are then known by shape alone; PyTorch's also run again); graph and
    values as the general path's."""
    def second(xv: np.ndarray, wv: np.ndarray, release: bool) -> tuple:
        x = torch.tensor(xv, requires_grad=True)
        w = torch.tensor(wv, requires_grad=True)
        y = (x[1:] - x[:-1]).neg()
        if release:
            y.sum().backward()
        (g,) = torch.autograd.grad(y, x, grad_outputs=w, create_graph=True)
        (gw,) = torch.autograd.grad((g * torch.arange(6.0)).sum(), w)
        return _graph(g), g.detach().numpy().copy(), gw.numpy().copy()

    r = np.random.default_rng(5)
    data = [(r.standard_normal(6), r.standard_normal(5), k % 2 == 1) for k in range(4)]
    got = [second(*d) for d in data]
    _general(monkeypatch)
    for d, g in zip(data, got):
        want = second(*d)
        assert g[0] == want[0]
        np.testing.assert_array_equal(g[1], want[1])
        np.testing.assert_array_equal(g[2], want[2])
        np.testing.assert_array_equal(g[2], -np.diff(np.arange(6.0)))


def test_autograd_features_on_fast_nodes(fast: None) -> None:
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    for _ in range(2):  # the second round is recorded by the fast paths
        x.grad = None
        y = torch.sin(x) * 2.0
        y.retain_grad()
        seen = []
        y.register_hook(lambda g: seen.append(g.tolist()))
        z = F.softmax(y, 0)
        z.grad_fn.register_hook(lambda gi, go: None)
        loss = (z * torch.tensor([1.0, 3.0])).sum()
        loss.backward(retain_graph=True)
        g1 = x.grad.clone()
        loss.backward()
        np.testing.assert_allclose(x.grad.numpy(), 2 * g1.numpy())
        assert y.grad is not None and len(seen) == 2
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            loss.backward()
    # an in-place change of a saved input is caught
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(2):
        b = a * 1.0
        c = b * b
        b.add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            c.sum().backward()
    # no_grad records nothing
    with torch.no_grad():
        assert (torch.sin(x) * 1.01).grad_fn is None


def test_linear_node_runs_again_after_release(fast: None) -> None:
    """``AddBackward0`` keeps only shapes once released, as PyTorch's, and can run again."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(2):
        x.grad = None
        s = x + 1.0
        s.sum().backward()
        s.backward(torch.ones(2))
        assert x.grad.tolist() == [2.0, 2.0]


def test_fast_paths_stay_out_of_fad_transformations(fast: None) -> None:
    w = torch.tensor([0.3, -0.2], requires_grad=True)

    def f(v: Any) -> Any:
        t = torch.as_tensor(v)
        return (torch.tanh(t * w) + F.log_softmax(t, 0)).sum()._value

    xv = np.array([0.5, 1.5])
    g1 = fad.grad(f)(xv)
    g2 = fad.grad(f)(xv)
    np.testing.assert_allclose(g1, g2)
    wv = w.detach().numpy()
    softmax = np.exp(xv) / np.exp(xv).sum()
    want = (1 - np.tanh(xv * wv) ** 2) * wv + 1 - len(xv) * softmax
    np.testing.assert_allclose(g1, want, atol=1e-6)
    np.testing.assert_allclose(fad.jit(fad.grad(f))(xv), g1, atol=1e-6)
    # and the facade still runs under fad.numpy functions
    assert np.allclose(fnp.sin(torch.tensor([1.0])), np.sin([1.0]))


def test_shape_errors_on_cached_signatures(fast: None) -> None:
    a = torch.ones(3, requires_grad=True)
    for _ in range(2):
        a + torch.ones(3)
    with pytest.raises(RuntimeError, match="must match the size"):
        a + torch.ones(4)


@pytest.mark.parametrize("requires_grad", [False, True])
def test_new_tensors_own_their_memory_on_every_path(fast: None, requires_grad: bool) -> None:
    """``clone``, ``flip``, ``repeat`` and one-tensor ``cat``/``stack`` make new tensors
    whether the general path, a cached program or a kernel evaluates them (a traced
    ``fnp.array(x, copy=True)`` binds a copy): writing into the result leaves the
    input as it was, and the input's leaf stays writable through the result."""
    make = {"clone": lambda t: t.clone(), "flip": lambda t: t.flip(0),
            "repeat": lambda t: t.repeat(1), "cat": lambda t: torch.cat([t]),
            "stack": lambda t: torch.stack([t])[0]}
    for name, f in make.items():
        for _ in range(3):  # the general path, then the fast ones
            x = torch.tensor([1.0, 2.0], requires_grad=requires_grad)
            y = f(x)
            assert not np.shares_memory(y._value, x._value), name
            with torch.no_grad():
                y.add_(1.0)
            assert x.tolist() == [1.0, 2.0], name


def test_program_pullbacks_become_generated_code(fast: None) -> None:
    """From its second pullback on, a program's backward is one generated function,
    also when the program reduces to a 0-d value (a NumPy scalar at run time, as the
    mean of ``nll_loss``): the gradients stay those of the first, rule-by-rule pass."""
    z = torch.tensor(np.random.default_rng(3).standard_normal((4, 3)), requires_grad=True)
    y = torch.tensor([0, 2, 1, 2])
    grads = []
    for _ in range(3):
        z.grad = None
        F.cross_entropy(z * 2.0, y).backward()
        grads.append(z.grad.numpy().copy())
    plans = {k[0][0].name: v.plan for k, v in recorder._PROGRAMS.items()
             if isinstance(v, recorder._Program)}
    assert {"log_softmax", "nll_loss"} <= set(plans)
    assert all(callable(p.fn) for p in plans.values())
    np.testing.assert_allclose(grads[2], grads[0], rtol=1e-12)


def test_a_recorded_chain_gives_the_garbage_collector_little_to_walk() -> None:
    """A deep graph stays alive until ``backward``; every object the cyclic collector
    tracks in it is walked by each full collection. A chain recorded by direct forms
    keeps under two tracked objects per operation (its node, and per repetition the
    Tensor ``sin`` saves and the counter guarding ``tanh``'s output)."""
    import gc

    def chain(x: Any, reps: int) -> Any:
        for _ in range(reps):
            x = torch.tanh(torch.sin(x) * 1.01) + 0.1
        return x

    x = torch.tensor(np.linspace(-1, 1, 16), requires_grad=True)
    chain(x, 3)  # learn the direct forms
    gc.collect()
    before = len(gc.get_objects())
    y = chain(x, 250)
    gc.collect()
    per_op = (len(gc.get_objects()) - before) / 1000
    assert per_op < 2
    y.sum().backward()  # and the graph still runs
    assert x.grad.shape == (16,)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(n=st.integers(1, 6), c=st.integers(1, 5), seed=st.integers(0, 2**16),
       dtype=st.sampled_from(["float32", "float64"]),
       reduction=st.sampled_from(["mean", "sum", "none"]), weighted=st.booleans(),
       ignore=st.sampled_from([-100, 0, 2]))
def test_nll_loss_without_an_ignored_target_skips_the_mask(
        n: int, c: int, seed: int, dtype: str, reduction: str, weighted: bool,
        ignore: int) -> None:
    """When no target equals ``ignore_index`` the facade's ``nll_loss`` leaves the mask
    out of its program; loss and gradient are bit for bit those of the masked loss
    (``fad.nn.nll_loss`` with the index), whether or not a target is ignored."""
    rng = np.random.default_rng(seed)
    logp = rng.standard_normal((n, c)).astype(dtype)
    target = rng.integers(0, c, n)
    weight = rng.uniform(0.5, 2.0, c).astype(dtype) if weighted else None
    z = torch.tensor(logp, requires_grad=True)
    loss = F.nll_loss(z, torch.tensor(target), None if weight is None else torch.tensor(weight),
                      ignore_index=ignore, reduction=reduction)
    loss.backward(torch.ones_like(loss))

    def masked(x: Any) -> Any:
        out = fad.nn.nll_loss(x, target, reduction, 1, weight, ignore)
        return fnp.sum(out), out
    grad, value = fad.grad(masked, has_aux=True)(logp)
    assert loss.dtype.np == logp.dtype and loss.grad_fn.name() == "NllLossBackward0"
    np.testing.assert_array_equal(loss.detach().numpy(), np.asarray(value))
    np.testing.assert_array_equal(z.grad.numpy(), np.asarray(grad))


def test_direct_forms_record_through_their_generated_recorder(
        fast: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once an operation's signature has a direct form, its calls are recorded by the
    function generated for that form (one per signature, every branch decided): the
    general path is not taken again, and the graph is the one it builds."""
    taken: list = []
    general = recorder._record
    monkeypatch.setattr(recorder, "_record",
                        lambda op, *a, **k: taken.append(op.name) or general(op, *a, **k))
    x = torch.tensor(np.linspace(-1.0, 1.0, 5), requires_grad=True)
    w = torch.tensor(np.arange(5.0), requires_grad=True)
    graphs, grads = [], []
    for _ in range(3):
        taken.clear()
        x.grad = w.grad = None
        y = (torch.tanh(torch.sin(x) * 1.01) + 0.1) * w
        loss = (y[1:] ** 2).sum() + (x * x).sum()
        loss.backward()
        graphs.append(_graph(loss))
        grads.append((x.grad.numpy().copy(), w.grad.numpy().copy()))
    assert taken == []
    assert graphs[2] == graphs[0]
    for a, b in zip(grads[2], grads[0]):
        np.testing.assert_array_equal(a, b)
    forms = [f for f in recorder._DIRECT.values() if f is not None]
    assert forms and all(callable(f.record) for f in forms)


def test_programs_record_through_their_generated_recorder(
        fast: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """An operation of several primitives, once its program is cached, is recorded by
    the function generated for that program (``log_softmax``, ``nll_loss``,
    ``layer_norm``, the backward operations of a double backward): the general path
    is not taken again, and graphs, values and gradients are the first call's."""
    taken: list = []
    general = recorder._record
    monkeypatch.setattr(recorder, "_record",
                        lambda op, *a, **k: taken.append(op.name) or general(op, *a, **k))
    rng = np.random.default_rng(0)
    z = torch.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    y = torch.tensor([0, 2, 1, 2])
    runs = []
    for _ in range(3):
        taken.clear()
        z.grad = None
        loss = F.cross_entropy(z * 2.0, y) + F.layer_norm(z, (3,)).pow(3).sum()
        (g,) = torch.autograd.grad(loss, z, create_graph=True)
        hv = torch.autograd.grad((g * g).sum(), z)[0]
        runs.append((_graph(loss), _graph(g), loss.item(), g.detach().numpy().copy(),
                     hv.numpy().copy()))
    assert taken == []
    first, last = runs[0], runs[2]
    assert last[:3] == first[:3]
    for a, b in zip(last[3:], first[3:]):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    progs = [p for p in recorder._PROGRAMS.values() if isinstance(p, recorder._Program)]
    assert sum(p.record is not None for p in progs) >= 3


def test_signatures_of_the_same_shape_share_their_recorder_code(fast: None) -> None:
    """A new shape of an operation gets a direct form of its own, whose recorder is
    the same generated code (compiled once) bound to that form's parts."""
    for n in (3, 4, 5):
        x = torch.tensor(np.linspace(-1.0, 1.0, n), requires_grad=True)
        for _ in range(2):
            torch.sin(x).sum().backward()
    forms = [f for k, f in recorder._DIRECT.items() if f is not None and k[0].name == "sin"]
    assert len(forms) == 3
    assert len({f.record.__code__ for f in forms}) == 1
    assert len({id(f.record.__globals__) for f in forms}) == 3


@pytest.mark.parametrize("second", [None, 2.5])
def test_the_recent_form_serves_only_its_own_signature(fast: None, second: Any) -> None:
    """An operation reuses the direct form of its last call only for a call of the
    same signature: alternating shapes, dtypes, which input is recorded and whether
    the operand is a float give each call its own form's result and gradient."""
    rng = np.random.default_rng(0)
    cases = [(3, np.float64, True), (4, np.float64, True), (3, np.float32, True),
             (3, np.float64, False), (3, np.float64, True), (4, np.float32, True)]
    for n, dt, grad in cases * 2:
        v = rng.standard_normal(n).astype(dt)
        x = torch.tensor(v, requires_grad=grad)
        y = torch.tanh(x) if second is None else x * second
        assert y.dtype == torch.tensor(v).dtype and tuple(y.shape) == (n,)
        assert y.requires_grad == grad
        want = np.tanh(v) if second is None else v * np.asarray(second, dt)
        np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-6)
        if grad:
            y.sum().backward()
            d = 1 - np.tanh(v) ** 2 if second is None else np.full(n, second)
            np.testing.assert_allclose(x.grad.numpy(), d, rtol=1e-6)
            assert x.grad.dtype == x.dtype
    op = next(k[0] for k in recorder._DIRECT if k[0].name == ("tanh" if second is None
                                                                else "mul"))
    assert op.recent is not None and op.recent[5] is recorder._DIRECT
