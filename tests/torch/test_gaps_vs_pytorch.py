"""The facade against the installed PyTorch (skipped without it): complete
factorisations, accelerator queries, method and in-place forms, containers,
and PyTorch's error messages."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

LIBS = (real_torch, ftorch)


def to_np(t: Any) -> np.ndarray:
    return np.asarray(t.detach().tolist(), dtype=np.float64)


def both(f: Any) -> tuple:
    return f(real_torch), f(ftorch)


def message(T: Any, f: Any) -> tuple:
    try:
        f(T)
    except BaseException as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


def same_error(f: Any) -> tuple:
    r, m = message(real_torch, f), message(ftorch, f)
    assert r is not None and m == r, (r, m)
    return r


# ---------------------------------------------------------- complete factors
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 3), (3, 3)])
def test_svd_full_matrices_like_pytorch(shape: tuple) -> None:
    a0 = np.random.default_rng(0).normal(size=shape)
    k = min(shape[-2:])
    w = np.random.default_rng(1).normal(size=shape[:-1] + (k,))

    def run(T: Any) -> tuple:
        a = T.tensor(a0, requires_grad=True)
        U, S, Vh = T.linalg.svd(a)
        # a function of U invariant to the sign of each singular vector
        ((U[..., :k] ** 2) * T.tensor(w)).sum().backward()
        return U, S, Vh, a.grad
    (Ur, Sr, Vr, gr), (Uf, Sf, Vf, gf) = both(run)
    assert Uf.shape == Ur.shape and Vf.shape == Vr.shape
    np.testing.assert_allclose(to_np(Sf), to_np(Sr), atol=1e-10)
    m, n = shape[-2:]
    for q, size in ((to_np(Uf), m), (to_np(Vf), n)):
        np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(
            np.eye(size), q.shape), atol=1e-10)
    np.testing.assert_allclose(np.abs(to_np(Uf)[..., :k]), np.abs(to_np(Ur)[..., :k]),
                               atol=1e-8)
    np.testing.assert_allclose(to_np(gf), to_np(gr), atol=1e-8)
    # torch.svd(some=False): square U and V
    Ur, Sr, Vr = real_torch.svd(real_torch.tensor(a0), some=False)
    Uf, Sf, Vf = ftorch.svd(ftorch.tensor(a0), some=False)
    assert Uf.shape == Ur.shape and Vf.shape == Vr.shape


def test_qr_complete_and_r_modes_like_pytorch() -> None:
    a0 = np.random.default_rng(2).normal(size=(5, 3))
    (Qr, Rr), (Qf, Rf) = both(lambda T: T.linalg.qr(T.tensor(a0), mode="complete"))
    assert Qf.shape == Qr.shape == (5, 5) and Rf.shape == Rr.shape == (5, 3)
    np.testing.assert_allclose(np.abs(to_np(Rf)), np.abs(to_np(Rr)), atol=1e-10)
    np.testing.assert_allclose(to_np(Qf) @ to_np(Rf), a0, atol=1e-10)
    np.testing.assert_allclose(to_np(Qf).T @ to_np(Qf), np.eye(5), atol=1e-10)
    (Qr, Rr), (Qf, Rf) = both(lambda T: T.linalg.qr(T.tensor(a0), mode="r"))
    assert Qf.shape == Qr.shape == (0,)
    np.testing.assert_allclose(np.abs(to_np(Rf)), np.abs(to_np(Rr)), atol=1e-10)
    same_error(lambda T: T.linalg.qr(T.tensor(a0), mode="x"))


# ---------------------------------------------------------------- devices
def test_accelerator_and_devices_like_pytorch() -> None:
    if real_torch.accelerator.is_available() or ftorch.accelerator.is_available():
        pytest.skip("compares the answers without an accelerator")
    for name in ("is_available", "device_count", "current_accelerator"):
        assert getattr(ftorch.accelerator, name)() == getattr(real_torch.accelerator, name)()
    for name in ("current_device_index", "synchronize", "empty_cache"):
        same_error(lambda T: getattr(T.accelerator, name)())
    assert str(ftorch.device("mps")) == str(real_torch.device("mps")) == "mps"
    same_error(lambda T: T.device("xyz"))
    same_error(lambda T: T.ones(2).to("mps"))
    for name in ("current_device", "synchronize", "get_device_name"):
        same_error(lambda T: getattr(T.cuda, name)())
    assert ftorch.cuda.empty_cache() is None


# ------------------------------------------------ methods and in-place forms
@pytest.mark.filterwarnings("ignore:invalid value")
def test_functional_inplace_forms_like_pytorch() -> None:
    from fad.torch._methods import FUNCTIONAL_INPLACE
    x0 = np.array([[0.3, -0.7, 0.5], [0.9, -0.2, 0.1]])
    args = {"clamp": (-0.4, 0.4), "clamp_max": (0.2,), "clamp_min": (0.0,), "clip": (-0.1, 0.1),
            "fill": (2.5,), "index_put": ((real_torch.tensor([0]),), None)}
    others = {"xlogy": x0 + 1, "ldexp": np.array([[1.0, 2.0, -1.0], [0.0, 3.0, 1.0]])}
    for name in FUNCTIONAL_INPLACE:
        if name in ("index_put", "conj_physical", "detach", "gcd", "lcm"):  # (integers only)
            continue
        if name in ("addmv", "as_strided"):  # (other operands: test_inplace_and_out.py)
            continue
        outs = []
        for T in LIBS:
            x = T.tensor(x0)
            extra = (T.tensor(others[name]),) if name in others else args.get(name, ())
            out = getattr(T, name + "_")(x, *extra)
            assert out is x, name
            outs.append(to_np(x))
        np.testing.assert_allclose(outs[1], outs[0], atol=1e-12, err_msg=name)
    for T in LIBS:
        assert set(name + "_" for name in FUNCTIONAL_INPLACE) <= set(dir(T))
    r, f = both(lambda T: T.index_put_(T.zeros(3), (T.tensor([0, 2]),), T.tensor([1.0, 2.0])))
    np.testing.assert_allclose(to_np(f), to_np(r))
    r, f = both(lambda T: (T.gcd_(T.tensor([12, 18]), T.tensor([8, 27])),
                           T.lcm_(T.tensor([4, 3]), T.tensor([6, 5])))[1])
    assert f.tolist() == r.tolist()
    r, f = both(lambda T: T.conj_physical_(T.tensor([1 + 2j, 3 - 1j])))
    assert f.tolist() == r.tolist()


def test_more_tensor_methods_like_pytorch() -> None:
    a0 = np.array([[2.0, 1.0], [1.0, 3.0]])
    cases = {
        "bitwise": lambda T: [T.tensor([3, 5, 6]).bitwise_and(T.tensor([1, 4, 2])),
                              T.tensor([3, 5, 6]).bitwise_or(T.tensor([1, 4, 2])),
                              T.tensor([3, 5, 6]).bitwise_xor(T.tensor([1, 4, 2])),
                              T.tensor([3, 5, 6]).bitwise_not()],
        "unique": lambda T: [T.tensor([3, 1, 3, 2]).unique()],
        "cross": lambda T: [T.tensor([1.0, 0, 0]).cross(T.tensor([0.0, 1, 0]), dim=0)],
        "det": lambda T: [T.tensor(a0).det(), T.tensor(a0).inverse(), T.tensor(a0).svd().S],
        "is_nonzero": lambda T: [T.tensor(float(T.tensor([0.5]).is_nonzero()))],
        "index_put": lambda T: [T.zeros(3).index_put((T.tensor([1]),), T.tensor(4.0))],
    }
    for name, f in cases.items():
        for r, g in zip(*both(f)):
            np.testing.assert_allclose(to_np(g), to_np(r), atol=1e-12, err_msg=name)
    for T in LIBS:
        T.manual_seed(0)
        assert T.tensor([0.0, 0.0, 1.0]).multinomial(1).tolist() == [2]
        assert T.tensor([0.0, 1.0]).bernoulli().tolist() == [0.0, 1.0]
    # gradients through the method forms
    def grads(T: Any) -> Any:
        a = T.tensor(a0, requires_grad=True)
        (a.det() + a.inverse().sum() + a.svd().S.sum()).backward()
        return a.grad
    r, f = both(grads)
    np.testing.assert_allclose(to_np(f), to_np(r), atol=1e-10)


def test_topk_of_a_0d_tensor_like_pytorch() -> None:
    def run(T: Any) -> tuple:
        x = T.tensor(3.0, requires_grad=True)
        v, i = T.topk(x, 1)
        v.backward()
        return v.item(), i.item(), tuple(v.shape), x.grad.item(), type(v.grad_fn).__name__
    r, f = both(run)
    assert f == r
    assert both(lambda T: T.topk(T.tensor(3.0), 0).values.item()) == (3.0, 3.0)
    same_error(lambda T: T.topk(T.tensor(3.0), 2))
    assert both(lambda T: T.gather(T.tensor(3.0), 0, T.tensor(0)).item()) == (3.0, 3.0)


# ---------------------------------------------------------------- containers
def _layout(m: Any) -> list:
    return [(k, type(v).__name__) for k, v in m.named_children()]


def test_sequential_and_module_list_operations_like_pytorch() -> None:
    def run(T: Any) -> list:
        nn = T.nn
        s = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid())
        out = [_layout(s[1:]), type(s[1:]).__name__]
        s.insert(1, nn.Identity())
        s.insert(-1, nn.ELU())
        out.append(_layout(s))
        out.append(type(s.pop(0)).__name__)
        del s[1:3]
        s[0] = nn.GELU()
        s.extend(nn.Sequential(nn.Softplus()))
        out += [_layout(s), _layout(s + nn.Sequential(nn.ReLU())), _layout(2 * s)]
        s += nn.Sequential(nn.Tanh())
        s *= 2
        out.append(_layout(s))
        ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
        out += [type(ml[0:1]).__name__, _layout(ml[0:1]), _layout(ml + ml)]
        ml.insert(1, nn.Sigmoid())
        ml[-1] = nn.ELU()
        out.append(type(ml.pop(0)).__name__)
        ml += [nn.GELU()]
        del ml[0]
        out.append(_layout(ml))
        pl = nn.ParameterList([T.ones(2)])
        pl.extend([T.zeros(3)])
        pl[0] = T.full((4,), 2.0)
        out += [[(k, tuple(p.shape), type(p).__name__) for k, p in pl.named_parameters()],
                repr(pl)]
        return out
    r, f = both(run)
    assert f == r
    for bad in (lambda T: T.nn.Sequential(T.nn.ReLU())[5],
                lambda T: T.nn.Sequential(T.nn.ReLU()).insert(7, T.nn.ReLU()),
                lambda T: T.nn.Sequential(T.nn.ReLU()) + [1],
                lambda T: T.nn.ModuleList([T.nn.ReLU()])[3],
                lambda T: T.nn.ModuleList().extend(3)):
        same_error(bad)


def test_module_dict_parameter_dict_and_from_pretrained_like_pytorch() -> None:
    def run(T: Any) -> list:
        nn = T.nn
        d = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Tanh()})
        d.update([("c", nn.Sigmoid())])
        d.update({"a": nn.ELU()})
        out = [_layout(d), type(d.pop("b")).__name__, "b" in d]
        del d["a"]
        out.append(_layout(d))
        d.clear()
        out.append(len(d))
        p = nn.ParameterDict({"w": T.ones(2, 3), "b": nn.Parameter(T.zeros(3))})
        p["s"] = T.tensor(1.0)
        out += [[(k, tuple(v.shape), type(v).__name__, v.requires_grad)
                 for k, v in p.named_parameters()], list(p), "w" in p, len(p)]
        out.append(tuple(p.pop("w").shape))
        out.append(list(p.keys()))
        e = nn.Embedding.from_pretrained(T.tensor([[1.0, 2.0], [3.0, 4.0]]))
        out += [e(T.tensor([1, 0])).tolist(), e.weight.requires_grad, repr(e)]
        e = nn.Embedding.from_pretrained(T.tensor([[1.0, 2.0], [3.0, 4.0]]), freeze=False)
        e(T.tensor([1, 1])).sum().backward()
        out.append(e.weight.grad.tolist())
        return out
    r, f = both(run)
    assert f == r
    for bad in (lambda T: T.nn.ModuleDict().update(3),
                lambda T: T.nn.ModuleDict().update([(1, 2, 3)]),
                lambda T: T.nn.ParameterDict().update(3),
                lambda T: T.nn.Embedding.from_pretrained(T.ones(3))):
        same_error(bad)


# -------------------------------------------------- smaller missing options
def test_einsum_sublist_form_like_pytorch() -> None:
    a0, b0 = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4) / 7

    def run(T: Any) -> list:
        a, b = T.tensor(a0, requires_grad=True), T.tensor(b0, requires_grad=True)
        y = T.einsum(a, [0, 1], b, [1, 2], [0, 2])
        (y * y).sum().backward()
        return [y, T.einsum(a, [0, 1], b, [1, 2]), T.einsum(a, [Ellipsis, 1], b, [1, 2]),
                a.grad, b.grad]
    for r, f in zip(*both(run)):
        np.testing.assert_allclose(to_np(f), to_np(r), atol=1e-12)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_like_pytorch(reduce: str, include_self: bool) -> None:
    rng = np.random.default_rng(3)
    x0, s0 = rng.normal(size=(3, 4)), rng.normal(size=(2, 4))
    idx0 = np.array([[0, 2, 2, 0, 3], [1, 1, 1, 3, 0]])
    ct = rng.normal(size=(3, 4))

    def run(T: Any) -> list:
        x, s = T.tensor(x0, requires_grad=True), T.tensor(s0, requires_grad=True)
        y = x.scatter_reduce(1, T.tensor(idx0)[:, :4], s, reduce, include_self=include_self)
        y.backward(T.tensor(ct))
        z = T.tensor(x0).scatter_reduce_(1, T.tensor(idx0)[:, :4], T.tensor(s0), reduce,
                                         include_self=include_self)
        return [y, x.grad, s.grad, z, type(y.grad_fn).__name__]
    r, f = both(run)
    assert f[-1] == r[-1]
    for a, b in zip(f[:-1], r[:-1]):
        np.testing.assert_allclose(to_np(a), to_np(b), atol=1e-12)
    same_error(lambda T: T.zeros(2).scatter_reduce(0, T.tensor([0]), T.ones(1), "add"))
    r, f = both(lambda T: T.ones(2).scatter_reduce(0, T.tensor([0, 0]), T.tensor([-3.0, 5.0]),
                                                   "min").tolist())
    assert f == r


@pytest.mark.parametrize("norm_type", ["inf", "-inf", float("inf"), 1, 2.0])
def test_clip_grad_norm_types_like_pytorch(norm_type: Any) -> None:
    def run(T: Any) -> list:
        ps = [T.nn.Parameter(T.ones(2)), T.nn.Parameter(T.ones(3))]
        ps[0].grad, ps[1].grad = T.tensor([1.0, -3.0]), T.tensor([0.5, 2.0, -1.0])
        total = T.nn.utils.clip_grad_norm_(ps, 1.0, norm_type=norm_type)
        return [total, ps[0].grad, ps[1].grad]
    for r, f in zip(*both(run)):
        np.testing.assert_allclose(to_np(f), to_np(r), rtol=1e-6)


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
def test_lstsq_drivers_like_pytorch(driver: Any) -> None:
    a0 = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
    b0 = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 5.0]])
    rank_deficient = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    for a in (a0, rank_deficient, a0.T):
        b = b0 if a.shape[0] == 3 else b0[:2]
        if driver == "gels" and a is rank_deficient:
            continue  # (PyTorch's gels assumes full rank)
        r, f = both(lambda T: T.linalg.lstsq(T.tensor(a), T.tensor(b), driver=driver))
        for name in ("solution", "residuals", "rank", "singular_values"):
            x, y = getattr(r, name), getattr(f, name)
            assert tuple(y.shape) == tuple(x.shape) and str(y.dtype) == str(x.dtype), name
            np.testing.assert_allclose(to_np(y), to_np(x), atol=1e-9, err_msg=name)
    same_error(lambda T: T.linalg.lstsq(T.tensor(a0), T.tensor(b0), driver="xx"))


def test_pinv_tolerances_and_out_like_pytorch() -> None:
    a0 = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
    calls = [lambda T, A: T.linalg.pinv(A, atol=0.1, rtol=0.01),
             lambda T, A: T.linalg.pinv(A, atol=1.0),
             lambda T, A: T.linalg.pinv(A, rcond=0.1),
             lambda T, A: T.linalg.pinv(A, 0.1),
             lambda T, A: T.linalg.pinv(A, rtol=0.5)]
    for call in calls:
        r, f = both(lambda T: call(T, T.tensor(a0)))
        np.testing.assert_allclose(to_np(f), to_np(r), atol=1e-8)

    def outs(T: Any) -> list:
        o1, o2 = T.empty(2), T.empty(())
        y1 = T.special.erf(T.tensor([0.5, -1.0]), out=o1)
        y2 = T.linalg.vector_norm(T.tensor([3.0, 4.0]), out=o2)
        return [y1 is o1 and y2 is o2, o1.tolist(), o2.tolist()]
    r, f = both(outs)
    assert f[0] and r[0]
    for a, b in zip(f[1:], r[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


# ---------------------------------------------------------------- vmap
def test_vmap_indexing_constants_one_hot_kwargs_like_pytorch() -> None:
    w0 = np.arange(15.0).reshape(5, 3)
    idx0 = np.array([0, 2, 4])

    def run(T: Any) -> list:
        W, idx = T.tensor(w0), T.tensor(idx0)
        F = T.nn.functional
        return [T.vmap(lambda i: W[i])(idx), T.vmap(lambda i: W[i, 1:])(idx),
                T.vmap(lambda i: F.embedding(i, W))(idx),
                T.vmap(lambda i: F.one_hot(i, 5))(idx),
                T.vmap(lambda x, s: x * s)(W, s=3.0),
                T.vmap(lambda x, y, s: x * y + s, in_dims=(0, None))(W, W[0], s=T.ones(3))]
    for r, f in zip(*both(run)):
        assert tuple(f.shape) == tuple(r.shape)
        np.testing.assert_allclose(to_np(f), to_np(r))

    def kwarg_grad(T: Any) -> list:
        s = T.tensor(2.0, requires_grad=True)
        x = T.tensor(w0, requires_grad=True)
        T.vmap(lambda a, s: (a * s).sum())(x, s=s).sum().backward()
        return [s.grad, x.grad]
    for r, f in zip(*both(kwarg_grad)):
        np.testing.assert_allclose(to_np(f), to_np(r))
    same_error(lambda T: T.vmap(lambda x: x.item())(T.tensor(w0)))
    same_error(lambda T: T.vmap(lambda x: 3.0)(T.tensor(w0)))


# ---------------------------------------------------- random and utilities
def test_random_module_poisson_and_init_like_pytorch() -> None:
    def run(T: Any) -> list:
        T.manual_seed(0)
        with T.random.fork_rng():
            a = T.rand(3)
        b = T.rand(3)
        x = T.tensor([1.0, 4.0], requires_grad=True)
        y = T.poisson(x)
        y.sum().backward()
        g = T.Generator()
        return [a.tolist() == b.tolist(), type(y.grad_fn).__name__, x.grad.tolist(),
                str(g.device), T.are_deterministic_algorithms_enabled(),
                repr(T.channels_last), T.ones(2).is_pinned(),
                T.poisson(T.zeros(2)).tolist()]
    r, f = both(run)
    assert f == r
    same_error(lambda T: T.poisson(T.tensor([1, 2])))
    same_error(lambda T: T.ones(2).pin_memory())
    for T in LIBS:
        T.use_deterministic_algorithms(True)
        assert T.are_deterministic_algorithms_enabled()
        T.use_deterministic_algorithms(False)
    same_error(lambda T: T.nn.init.orthogonal_(T.empty(3)))
    for shape in ((3, 5), (5, 3), (4, 2, 3)):
        w = to_np(ftorch.nn.init.orthogonal_(ftorch.empty(*shape), gain=2.0)).reshape(shape[0], -1)
        small = min(w.shape)
        gram = w @ w.T if w.shape[0] == small else w.T @ w
        np.testing.assert_allclose(gram, 4 * np.eye(small), atol=1e-5)
    w = to_np(ftorch.nn.init.trunc_normal_(ftorch.empty(4000), mean=1.0, std=2.0, a=-1.0, b=2.0))
    ref = to_np(real_torch.nn.init.trunc_normal_(real_torch.empty(4000), mean=1.0, std=2.0,
                                                 a=-1.0, b=2.0))
    assert w.min() >= -1 and w.max() <= 2
    assert abs(w.mean() - ref.mean()) < 0.1 and abs(w.std() - ref.std()) < 0.1


# ---------------------------------------------------------------- profiler
@pytest.mark.filterwarnings("ignore")
def test_profiler_memory_schedule_and_trace_like_pytorch(tmp_path: Any) -> None:
    def run(T: Any) -> list:
        P = T.profiler
        with P.profile(activities=[P.ProfilerActivity.CPU], profile_memory=True) as prof:
            with P.record_function("block"):
                T.ones(30, 30) @ T.ones(30, 30)
        table = prof.key_averages().table(sort_by="self_cpu_memory_usage", row_limit=5)
        s = P.schedule(wait=1, warmup=1, active=2, repeat=2)
        traces: list = []

        def ready(p: Any) -> None:
            traces.append(sorted((e.key, e.count) for e in p.key_averages()
                                 if e.key.startswith("work")))
        with P.profile(schedule=s, on_trace_ready=ready) as prof:
            for i in range(10):
                with P.record_function(f"work{i}"):
                    T.ones(2) + 1
                prof.step()
        path = tmp_path / f"{T.__name__}.json"
        prof.export_chrome_trace(str(path))
        import json
        names = {e["name"] for e in json.loads(path.read_text())["traceEvents"]}
        return ["CPU Mem" in table and "Self CPU Mem" in table,
                [s(i).name for i in range(10)], traces, {n for n in names if "work" in n}]
    r, f = both(run)
    assert f == r


# ------------------------------------------------ interpolate modes, attention
@pytest.mark.parametrize("mode", ["nearest-exact", "area", "bicubic"])
@pytest.mark.parametrize("kw", [{"size": (4, 9)}, {"scale_factor": 1.7}, {"size": (10, 3)},
                                {"scale_factor": (0.5, 2.0)},
                                {"size": (4, 9), "align_corners": True}])
def test_interpolate_more_modes_like_pytorch(mode: str, kw: dict) -> None:
    x0 = np.random.default_rng(4).normal(size=(2, 3, 5, 7))
    if kw.get("align_corners") and mode != "bicubic":
        same_error(lambda T: T.nn.functional.interpolate(T.tensor(x0), mode=mode, **kw))
        return

    def run(T: Any) -> list:
        x = T.tensor(x0, requires_grad=True)
        y = T.nn.functional.interpolate(x, mode=mode, **kw)
        (y * y).sum().backward()
        return [y, x.grad]
    for r, f in zip(*both(run)):
        assert tuple(f.shape) == tuple(r.shape)
        np.testing.assert_allclose(to_np(f), to_np(r), atol=1e-12)
    if mode != "bicubic":
        x1 = np.random.default_rng(5).normal(size=(2, 3, 7))
        r, f = both(lambda T: T.nn.functional.interpolate(T.tensor(x1), size=4, mode=mode))
        np.testing.assert_allclose(to_np(f), to_np(r), atol=1e-12)


def test_sdpa_grouped_query_attention_like_pytorch() -> None:
    rng = np.random.default_rng(6)
    q0, k0, v0 = rng.normal(size=(2, 6, 3, 4)), rng.normal(size=(2, 2, 5, 4)), \
        rng.normal(size=(2, 2, 5, 4))

    def run(T: Any) -> list:
        q, k, v = (T.tensor(a, requires_grad=True) for a in (q0, k0, v0))
        y = T.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True,
                                                         is_causal=True)
        (y * y).sum().backward()
        return [y, q.grad, k.grad, v.grad]
    for r, f in zip(*both(run)):
        np.testing.assert_allclose(to_np(f), to_np(r), atol=1e-12)


# ---------------------------------------------------------- error messages
_ERRORS = {
    "batch_norm": lambda T: T.nn.BatchNorm2d(3)(T.ones(2, 4, 3, 3)),
    "batch_norm1d": lambda T: T.nn.BatchNorm1d(3)(T.ones(2, 4)),
    "group_norm": lambda T: T.nn.GroupNorm(2, 4)(T.ones(2, 6, 3)),
    "embedding_range": lambda T: T.nn.Embedding(5, 3)(T.tensor([5])),
    "embedding_negative": lambda T: T.nn.Embedding(5, 3)(T.tensor([-1])),
    "embedding_float": lambda T: T.nn.Embedding(5, 3)(T.tensor([1.0])),
    "index_select": lambda T: T.ones(3, 2).index_select(0, T.tensor([3])),
    "gather": lambda T: T.ones(3, 2).gather(1, T.tensor([[0], [2], [-1]])),
    "unflatten": lambda T: T.nn.Unflatten(1, (2, 4))(T.ones(3, 6)),
    "unflatten_inferred": lambda T: T.ones(3, 6).unflatten(1, (4, -1)),
    "mha_mask_2d": lambda T: T.nn.MultiheadAttention(4, 2)(
        T.ones(3, 1, 4), T.ones(5, 1, 4), T.ones(5, 1, 4), attn_mask=T.ones(2, 2, dtype=T.bool)),
    "mha_mask_3d": lambda T: T.nn.MultiheadAttention(4, 2)(
        T.ones(3, 1, 4), T.ones(5, 1, 4), T.ones(5, 1, 4),
        attn_mask=T.ones(2, 3, 3, dtype=T.bool)),
    "einsum_sizes": lambda T: T.einsum("ij,jk->ik", T.ones(2, 3), T.ones(4, 5)),
    "einsum_repeated": lambda T: T.einsum("ii->i", T.ones(2, 3)),
    "einsum_rank": lambda T: T.einsum("ij->i", T.ones(2, 3, 4)),
    "inv_square": lambda T: T.linalg.inv(T.ones(2, 3)),
    "inv_vector": lambda T: T.linalg.inv(T.ones(3)),
    "cholesky_square": lambda T: T.linalg.cholesky(T.ones(2, 3)),
    "solve_square": lambda T: T.linalg.solve(T.ones(2, 3), T.ones(2)),
    "det_square": lambda T: T.linalg.det(T.ones(2, 3)),
    "det_long": lambda T: T.linalg.det(T.ones(2, 2, dtype=T.int64)),
    "grad_vector": lambda T: T.func.grad(lambda x: x * 2)(T.ones(3)),
    "grad_float": lambda T: T.func.grad(lambda x: 3.0)(T.ones(3)),
    "conv_transpose_dtype": lambda T: T.nn.ConvTranspose2d(2, 3, 3)(
        T.ones(1, 2, 4, 4, dtype=T.float64)),
    "nll_float_target": lambda T: T.nn.functional.nll_loss(T.ones(2, 3), T.tensor([0.0, 1.0])),
    "functional_call_missing": lambda T: T.func.functional_call(
        T.nn.Linear(2, 1), {"weight": T.ones(1, 2)}, (T.ones(2),), strict=True),
    "functional_call_both": lambda T: T.func.functional_call(
        T.nn.Sequential(T.nn.Linear(2, 1), T.nn.Linear(1, 1)),
        {"0.weight": T.ones(1, 2), "x": T.ones(1), "y": T.ones(1)}, (T.ones(2),), strict=True),
}


@pytest.mark.parametrize("name", sorted(_ERRORS))
def test_error_messages_like_pytorch(name: str) -> None:
    same_error(_ERRORS[name])


@pytest.mark.parametrize("case", [
    lambda T: T.linalg.inv(T.zeros(2, 2)), lambda T: T.inverse(T.zeros(2, 2)),
    lambda T: T.linalg.inv(T.tensor([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]])),
    lambda T: T.linalg.cholesky(-T.eye(2)),
    lambda T: T.linalg.cholesky(T.stack([T.eye(3),
                                         T.tensor([[1.0, 0, 0], [0, 1, 0], [0, 0, -1]])])),
    lambda T: T.linalg.solve(T.zeros(2, 2), T.ones(2))])
def test_linalg_failure_messages_like_pytorch(case: Any) -> None:
    (_, expected), (_, got) = message(real_torch, case), message(ftorch, case)
    assert got == expected
    assert isinstance(ftorch.linalg.LinAlgError(""), RuntimeError)


def test_vjp_accepts_a_cotangent_of_another_float_dtype() -> None:
    def run(T: Any) -> Any:
        _, vjp_fn = T.func.vjp(lambda x: x * 2, T.ones(3, dtype=T.float64))
        (g,) = vjp_fn(T.ones(3))
        return g.tolist(), str(g.dtype)
    r, f = both(run)
    assert f == r


def test_grad_fn_names_of_scatter_value_and_einsum_like_pytorch() -> None:
    def run(T: Any) -> list:
        a = T.ones(2, 3, requires_grad=True)
        v = T.ones(3, requires_grad=True)
        outs = [T.ones(3, requires_grad=True).scatter(0, T.tensor([0]), 2.0),
                T.ones(3, requires_grad=True).scatter(0, T.tensor([0]), value=2.0),
                T.ones(3, requires_grad=True).scatter(0, T.tensor([0]), T.ones(1)),
                T.einsum("ij,jk->ik", a, T.ones(3, 4)), T.einsum("ij->j", a),
                T.einsum("ij->", a), T.einsum("ij->ji", a), T.einsum("ij,ij->i", a, a),
                T.einsum("ii->i", T.ones(3, 3, requires_grad=True)),
                T.einsum("i,j->ij", v, T.ones(2)), T.einsum("i,i->", v, v),
                T.einsum("bij,bjk->bik", T.ones(2, 2, 3, requires_grad=True), T.ones(2, 3, 4))]
        return [type(y.grad_fn).__name__ for y in outs]
    r, f = both(run)
    assert f == r


def test_scheduler_state_dict_dict_order_and_nan_unique_like_pytorch() -> None:
    def run(T: Any) -> list:
        opt = T.optim.SGD([T.nn.Parameter(T.ones(1))], lr=0.1)
        states = [T.optim.lr_scheduler.ReduceLROnPlateau(opt, mode=m).state_dict()
                  for m in ("min", "max")]
        x, params = T.ones(2, 3), {"b": T.ones(3), "a": T.ones(3)}
        g = T.vmap(T.func.grad(lambda p, x: (p["b"] * x + p["a"]).sum()),
                   in_dims=(None, 0))(params, x)
        g1 = T.func.grad(lambda p: (p["b"] * p["a"]).sum())(params)
        nan = float("nan")
        u = T.unique(T.tensor([nan, 1.0, nan, 1.0]), return_inverse=True, return_counts=True)
        return [[list(s.items()) for s in states], list(g), list(g1),
                [t.tolist() for t in u][1:], u[0].isnan().tolist()]
    r, f = both(run)
    assert f == r
