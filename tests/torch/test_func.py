"""``fad.torch.func`` (and ``torch.vmap``) against PyTorch's ``torch.func``."""

from __future__ import annotations

import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import fad.torch as ftorch  # noqa: E402

TOL = dict(rtol=1e-12, atol=1e-12)


def _np(t) -> np.ndarray:
    return np.asarray(t.detach().numpy() if isinstance(t, torch.Tensor) else t.tolist())


def _mlp(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 3)).double()


def test_per_sample_gradients_match_pytorch() -> None:
    rng = np.random.default_rng(0)
    xs, ys = rng.normal(size=(5, 4)), rng.integers(0, 3, size=5)
    tm, fm = _mlp(torch), _mlp(ftorch)
    with ftorch.no_grad():
        for (_, fp), (_, tp) in zip(fm.named_parameters(), tm.named_parameters()):
            fp.copy_(ftorch.tensor(tp.detach().numpy()))

    def per_sample(lib, model):
        params = {k: v.detach() for k, v in model.named_parameters()}
        buffers = {k: v.detach() for k, v in model.named_buffers()}

        def compute_loss(params, buffers, sample, target):
            out = lib.func.functional_call(model, (params, buffers), (sample.unsqueeze(0),))
            return lib.nn.functional.cross_entropy(out, target.unsqueeze(0))

        g = lib.func.vmap(lib.func.grad(compute_loss), in_dims=(None, None, 0, 0))
        return g(params, buffers, lib.tensor(xs), lib.tensor(ys))

    want, got = per_sample(torch, tm), per_sample(ftorch, fm)
    assert set(want) == set(got)
    for k in want:
        assert tuple(got[k].shape) == tuple(want[k].shape)
        np.testing.assert_allclose(_np(got[k]), _np(want[k]), **TOL)
    # the module is unchanged by functional_call
    assert fm[0].weight is dict(fm.named_parameters())["0.weight"]


def _f(lib, x):
    return lib.sin(x) * x.sum() + x ** 3


@pytest.mark.parametrize("name", ["jacrev", "jacfwd"])
def test_jacobians_match_pytorch(name: str) -> None:
    x = np.array([0.3, -1.2, 2.0])
    want = getattr(torch.func, name)(lambda x: _f(torch, x))(torch.tensor(x))
    got = getattr(ftorch.func, name)(lambda x: _f(ftorch, x))(ftorch.tensor(x))
    np.testing.assert_allclose(_np(got), _np(want), **TOL)


def test_hessian_and_nested_jacobians_match_pytorch() -> None:
    x = np.array([0.3, -1.2, 2.0])
    for make in (lambda m, f: m.hessian(f), lambda m, f: m.jacrev(m.jacfwd(f)),
                 lambda m, f: m.jacfwd(m.jacrev(f))):
        want = make(torch.func, lambda x: _f(torch, x).sum())(torch.tensor(x))
        got = make(ftorch.func, lambda x: _f(ftorch, x).sum())(ftorch.tensor(x))
        np.testing.assert_allclose(_np(got), _np(want), **TOL)


def test_vmap_in_dims_out_dims_match_pytorch() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
    want = torch.vmap(lambda u, v: torch.outer(u, v), in_dims=(1, None), out_dims=2)(
        torch.tensor(a), torch.tensor(b[:, 0]))
    got = ftorch.vmap(lambda u, v: ftorch.outer(u, v), in_dims=(1, None), out_dims=2)(
        ftorch.tensor(a), ftorch.tensor(b[:, 0]))
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(_np(got), _np(want), **TOL)
    # a batched grad equals the loop
    g = ftorch.vmap(ftorch.func.grad(lambda x: (x.exp() * x).sum()))(ftorch.tensor(a))
    np.testing.assert_allclose(_np(g), np.exp(a) * (1 + a), **TOL)


def test_vjp_jvp_grad_and_value_match_pytorch() -> None:
    x = np.array([0.5, 1.5])
    out_t, fn_t = torch.func.vjp(lambda x: _f(torch, x), torch.tensor(x))
    out_f, fn_f = ftorch.func.vjp(lambda x: _f(ftorch, x), ftorch.tensor(x))
    np.testing.assert_allclose(_np(out_f), _np(out_t), **TOL)
    np.testing.assert_allclose(_np(fn_f(ftorch.ones(2, dtype=ftorch.float64))[0]),
                               _np(fn_t(torch.ones(2, dtype=torch.float64))[0]), **TOL)
    jt = torch.func.jvp(lambda x: _f(torch, x), (torch.tensor(x),), (torch.tensor(x),))
    jf = ftorch.func.jvp(lambda x: _f(ftorch, x), (ftorch.tensor(x),), (ftorch.tensor(x),))
    for a, b in zip(jf, jt):
        np.testing.assert_allclose(_np(a), _np(b), **TOL)
    gt, (vt, at) = torch.func.grad_and_value(lambda x: ((x ** 2).sum(), x * 2), has_aux=True)(
        torch.tensor(x))
    gf, (vf, af) = ftorch.func.grad_and_value(lambda x: ((x ** 2).sum(), x * 2), has_aux=True)(
        ftorch.tensor(x))
    for a, b in ((gf, gt), (vf, vt), (af, at)):
        np.testing.assert_allclose(_np(a), _np(b), **TOL)
    # argnums as a tuple
    gs = ftorch.func.grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(
        ftorch.tensor(x), ftorch.tensor(2 * x))
    np.testing.assert_allclose(_np(gs[0]), 2 * x, **TOL)
    np.testing.assert_allclose(_np(gs[1]), x, **TOL)


def test_functional_call_errors() -> None:
    lin = ftorch.nn.Linear(2, 1)
    with pytest.raises(AttributeError, match="no parameter or buffer named 'weights'"):
        ftorch.func.functional_call(lin, {"weights": ftorch.ones(1, 2)}, (ftorch.ones(2),))
    with pytest.raises(RuntimeError, match="randomness"):
        ftorch.vmap(lambda x: x, randomness="sometimes")


def test_checkpoint_gradients_match_pytorch() -> None:
    from torch.utils.checkpoint import checkpoint as t_ckpt

    from fad.torch.utils.checkpoint import checkpoint as f_ckpt

    xs = np.random.default_rng(2).normal(size=(5, 4))
    tm, fm = _mlp(torch), _mlp(ftorch)
    with ftorch.no_grad():
        for (_, fp), (_, tp) in zip(fm.named_parameters(), tm.named_parameters()):
            fp.copy_(ftorch.tensor(tp.detach().numpy()))
    grads = []
    for lib, model, ckpt in ((torch, tm, t_ckpt), (ftorch, fm, f_ckpt)):
        x = lib.tensor(xs, requires_grad=True)
        h = ckpt(model[0], x, use_reentrant=False)
        y = ckpt(lambda a, b: (a.tanh() * b).sin(), h, h, use_reentrant=False)
        (model[2](y) ** 2).sum().backward()
        grads.append([_np(x.grad)] + [_np(p.grad) for p in model.parameters()])
    for a, b in zip(grads[1], grads[0]):
        np.testing.assert_allclose(a, b, **TOL)
    w = ftorch.ones(4, requires_grad=True)  # a closed-over tensor gets its gradient
    f_ckpt(lambda a: a * w, ftorch.arange(4.0), use_reentrant=False).sum().backward()
    assert w.grad.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_transform_results_backward_to_their_inputs_as_in_pytorch() -> None:
    """A ``torch.func`` result whose input requires grad carries a ``grad_fn``:
    ``.backward()`` through it gives second derivatives (a gradient penalty)."""
    x = np.array([0.3, -0.8, 1.1])
    grads = []
    for lib in (torch, ftorch):
        y = lib.tensor(x, requires_grad=True)
        g = lib.func.grad(lambda t: (t.sin() * t ** 2).sum())(y)
        j = lib.func.jacrev(lambda t: t.exp() * t)(y)
        v = lib.vmap(lambda t: t.cos() * 2)(y)
        ((g ** 2).sum() + j.sum() + v.sum()).backward()
        grads.append(_np(y.grad))
    np.testing.assert_allclose(grads[1], grads[0], **TOL)


def test_model_ensembling_matches_pytorch() -> None:
    """The ensembling tutorial: ``stack_module_state`` + ``vmap`` of
    ``functional_call`` on a copy of one model moved to the ``meta`` device."""
    xs = np.random.default_rng(3).normal(size=(5, 4))
    outs = []
    for lib in (torch, ftorch):
        models = [_mlp(lib) for _ in range(3)]
        for i, m in enumerate(models):
            with lib.no_grad():
                for k, p in enumerate(m.parameters()):
                    p.copy_(lib.tensor(np.full(tuple(p.shape), 0.1 * (i + 1) - 0.05 * k)))
        params, buffers = lib.func.stack_module_state(models)
        assert all(p.requires_grad for p in params.values())
        base = copy.deepcopy(models[0]).to("meta")

        def one(p, b, x, base=base, lib=lib):
            return lib.func.functional_call(base, (p, b), (x,))
        outs.append(_np(lib.vmap(one, in_dims=(0, 0, None))(params, buffers, lib.tensor(xs))))
    np.testing.assert_allclose(outs[1], outs[0], **TOL)


@pytest.mark.parametrize("name", ["jacrev", "jacfwd"])
def test_jacobian_has_aux_matches_pytorch(name: str) -> None:
    x = np.array([0.3, -1.2, 2.0])
    res = []
    for lib in (torch, ftorch):
        jac, aux = getattr(lib.func, name)(lambda t: (t.sin() * t, t.cos()), has_aux=True)(
            lib.tensor(x))
        res.append((_np(jac), _np(aux)))
    for a, b in zip(res[1], res[0]):
        np.testing.assert_allclose(a, b, **TOL)


def test_transform_calls_keep_nothing_alive_after_they_return() -> None:
    """A recorded ``torch.func`` call is one operation whose function is a parameter,
    so the facade's cache of recorded forms neither grows with the calls nor holds
    their input tensors once the caller drops them."""
    import gc
    import weakref

    from fad.torch import _recorder
    x = ftorch.randn(3, requires_grad=True)
    before = len(_recorder._DIRECT)
    refs = []
    for _ in range(20):
        z = x * 1.0
        refs.append(weakref.ref(z))
        ftorch.func.grad(lambda v: (v ** 3).sum())(z).sum().backward()
        del z
    gc.collect()
    assert len(_recorder._DIRECT) <= before + 3
    assert all(r() is None for r in refs)


@pytest.mark.parametrize("has_aux", [False, True])
def test_vjp_results_backward_to_primals_closures_and_cotangents_as_in_pytorch(
        has_aux: bool) -> None:
    """``torch.func.vjp``'s output and ``vjp_fn``'s cotangents are differentiable: a
    backward pass through them reaches the primal, a closed-over parameter and the
    cotangent, with PyTorch's gradients."""
    def run(lib):
        w = lib.tensor([1.0, 2.0, -3.0], dtype=lib.float64, requires_grad=True)
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        c = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)

        def f(x):
            y = (w * x).sin() * x
            return (y, y.sum()) if has_aux else y
        res = lib.func.vjp(f, x, has_aux=has_aux)
        (g,) = res[1](c)
        (res[0].sum() * 2 + (g * g).sum()).backward()
        return [res[0], g, w.grad, x.grad, c.grad] + ([res[2]] if has_aux else [])
    for ours, theirs in zip(run(ftorch), run(torch)):
        np.testing.assert_allclose(_np(ours), _np(theirs), **TOL)


def test_vjp_without_grad_requirements_is_not_recorded() -> None:
    """Without a tensor that requires grad, ``vjp``'s results carry no ``grad_fn``."""
    out, fn = ftorch.func.vjp(lambda x: x.sin(), ftorch.ones(3))
    assert out.grad_fn is None and fn(ftorch.ones(3))[0].grad_fn is None


def test_linearize_as_pytorch():
    """``torch.func.linearize``: the output, and the derivative along any tangent."""
    def run(t):
        x = t.tensor([0.3, 1.2], dtype=t.float64)
        w = t.tensor([[1.0, 2.0], [3.0, -1.0]], dtype=t.float64)
        out, jvp_fn = t.func.linearize(lambda x: (w @ x).tanh(), x)
        return [out.numpy()] + [jvp_fn(t.tensor(v, dtype=t.float64)).numpy()
                                for v in ([1.0, 0.0], [0.5, 2.0])]
    for got, want in zip(run(ftorch), run(torch)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
