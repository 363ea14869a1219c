"""``NAdam``, ``RAdam``, ``Adamax``, ``Adadelta``, ``Rprop``, ``ASGD`` and
``Adafactor`` against PyTorch: 20-step trajectories (float64 and float32, parameter
groups, options), ``state_dict`` layouts, checkpoints loaded across, and the
hyper-parameter errors."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch_compare import step_schedule  # noqa: E402

import fad.torch as ftorch  # noqa: E402

W0 = np.array([[0.5, -1.5, 2.0], [1.0, 0.3, -0.7]])
B0 = np.array([0.1, -0.2])
X = np.random.default_rng(0).normal(size=(6, 3))
TOLS = {"float64": dict(rtol=1e-12, atol=1e-12), "float32": dict(rtol=1e-6, atol=1e-6)}


def _loss(lib, w, b):
    z = lib.tensor(X, dtype=w.dtype) @ w.T + b
    return (lib.tanh(z) ** 2).sum() + (w ** 4).sum() * 0.1


def _run(lib, make, dtype="float64", steps=20, opt=None):
    dt = getattr(lib, dtype)
    w = lib.tensor(W0, requires_grad=True, dtype=dt)
    b = lib.tensor(B0, requires_grad=True, dtype=dt)
    opt = make(lib, [{"params": [w]}, {"params": [b], "lr": 0.05}])
    traj = []
    for _ in range(steps):
        opt.zero_grad()
        _loss(lib, w, b).backward()
        opt.step()
        traj.append(np.concatenate([np.asarray(w.detach().tolist()).ravel(),
                                    np.asarray(b.detach().tolist())]))
    return np.array(traj), opt


OPTIMISERS = {
    "nadam": lambda m, p: m.optim.NAdam(p),
    "nadam_options": lambda m, p: m.optim.NAdam(p, lr=0.01, betas=(0.8, 0.99), weight_decay=0.1,
                                                momentum_decay=0.01, maximize=True),
    "nadam_decoupled": lambda m, p: m.optim.NAdam(p, lr=0.01, weight_decay=0.1,
                                                  decoupled_weight_decay=True),
    "radam": lambda m, p: m.optim.RAdam(p, lr=0.01),
    "radam_options": lambda m, p: m.optim.RAdam(p, lr=0.01, betas=(0.5, 0.7), weight_decay=0.1,
                                                maximize=True),
    "radam_decoupled": lambda m, p: m.optim.RAdam(p, lr=0.01, betas=(0.9, 0.6),
                                                  weight_decay=0.1, decoupled_weight_decay=True),
    "adamax": lambda m, p: m.optim.Adamax(p),
    "adamax_options": lambda m, p: m.optim.Adamax(p, lr=0.01, betas=(0.7, 0.9), eps=1e-3,
                                                  weight_decay=0.1, maximize=True),
    "adadelta": lambda m, p: m.optim.Adadelta(p),
    "adadelta_options": lambda m, p: m.optim.Adadelta(p, lr=0.5, rho=0.7, eps=1e-4,
                                                      weight_decay=0.1, maximize=True),
    "rprop": lambda m, p: m.optim.Rprop(p),
    "rprop_options": lambda m, p: m.optim.Rprop(p, lr=0.1, etas=(0.3, 1.5),
                                                step_sizes=(1e-3, 0.2), maximize=True),
    "asgd": lambda m, p: m.optim.ASGD(p),
    "asgd_options": lambda m, p: m.optim.ASGD(p, lr=0.05, lambd=0.01, alpha=0.5, t0=5,
                                              weight_decay=0.1),
    "asgd_maximize": lambda m, p: m.optim.ASGD(p, lr=0.001, t0=3, maximize=True),
    "adafactor": lambda m, p: m.optim.Adafactor(p),
    "adafactor_options": lambda m, p: m.optim.Adafactor(p, lr=0.05, beta2_decay=-0.5,
                                                        eps=(1e-20, 1e-2), d=1.5,
                                                        weight_decay=0.1, maximize=True),
}


def _same_layout(got, want, tol) -> None:
    assert set(got["state"]) == set(want["state"])
    for k in want["state"]:
        gs, ws = got["state"][k], want["state"][k]
        assert list(gs) == list(ws)
        for n in ws:
            assert str(gs[n].dtype) == str(ws[n].dtype) and tuple(gs[n].shape) == ws[n].shape
            np.testing.assert_allclose(np.asarray(gs[n].tolist()), ws[n].tolist(), **tol)
    assert got["param_groups"] == want["param_groups"]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(OPTIMISERS))
def test_trajectory_and_state_dict_match_pytorch(name: str, dtype: str) -> None:
    want, topt = _run(torch, OPTIMISERS[name], dtype)
    got, fopt = _run(ftorch, OPTIMISERS[name], dtype)
    np.testing.assert_allclose(got, want, **TOLS[dtype])
    _same_layout(fopt.state_dict(), topt.state_dict(), TOLS[dtype])


@pytest.mark.parametrize("name", ["nadam", "radam_options", "adamax", "adadelta", "rprop",
                                  "asgd_options"])
def test_a_pytorch_checkpoint_continues_the_trajectory(name: str) -> None:
    make = OPTIMISERS[name]
    full, _ = _run(torch, make, steps=12)
    _, topt = _run(torch, make, steps=6)
    w = ftorch.tensor(full[5][:6].reshape(2, 3), requires_grad=True)
    b = ftorch.tensor(full[5][6:], requires_grad=True)
    opt = make(ftorch, [{"params": [w]}, {"params": [b], "lr": 0.05}])
    sd = topt.state_dict()
    opt.load_state_dict({"state": {k: {n: ftorch.tensor(x.numpy()) for n, x in s.items()}
                                   for k, s in sd["state"].items()},
                         "param_groups": sd["param_groups"]})
    for _ in range(6):
        opt.zero_grad()
        _loss(ftorch, w, b).backward()
        opt.step()
    got = np.concatenate([np.asarray(w.detach().tolist()).ravel(),
                          np.asarray(b.detach().tolist())])
    np.testing.assert_allclose(got, full[11], rtol=1e-12, atol=1e-12)


INVALID = [
    ("NAdam", dict(lr=-1.0)), ("NAdam", dict(eps=-1.0)), ("NAdam", dict(betas=(1.0, 0.9))),
    ("NAdam", dict(betas=(0.9, -0.1))), ("NAdam", dict(weight_decay=-1.0)),
    ("NAdam", dict(momentum_decay=-1.0)),
    ("RAdam", dict(lr=-0.5)), ("RAdam", dict(betas=(0.9, 1.0))), ("RAdam", dict(eps=-1e-3)),
    ("RAdam", dict(weight_decay=-2)),
    ("Adamax", dict(lr=-1.0)), ("Adamax", dict(betas=(-0.1, 0.9))),
    ("Adamax", dict(weight_decay=-1.0)),
    ("Adadelta", dict(lr=-1.0)), ("Adadelta", dict(rho=1.5)), ("Adadelta", dict(eps=-1.0)),
    ("Adadelta", dict(weight_decay=-1.0)),
    ("Rprop", dict(lr=-1.0)), ("Rprop", dict(etas=(1.5, 1.2))), ("Rprop", dict(etas=(0.5, 0.9))),
    ("ASGD", dict(lr=-1.0)), ("ASGD", dict(weight_decay=-1.0)),
]


@pytest.mark.parametrize("name, kwargs", INVALID)
def test_invalid_hyper_parameters_raise_as_pytorch(name: str, kwargs: dict) -> None:
    errors = []
    for lib in (torch, ftorch):
        with pytest.raises(Exception) as info:
            getattr(lib.optim, name)([lib.zeros(2, requires_grad=True)], **kwargs)
        errors.append((type(info.value), str(info.value).splitlines()[0]))
    assert errors[1] == errors[0]


def test_defaults_match_pytorch() -> None:
    for name in ["NAdam", "RAdam", "Adamax", "Adadelta", "Rprop", "ASGD"]:
        want = getattr(torch.optim, name)([torch.zeros(1, requires_grad=True)]).defaults
        got = getattr(ftorch.optim, name)([ftorch.zeros(1, requires_grad=True)]).defaults
        assert got == want and list(got) == list(want)


CYCLIC = {
    "triangular": dict(base_lr=0.01, max_lr=0.1, step_size_up=4),
    "triangular2": dict(base_lr=[0.01, 0.02], max_lr=[0.1, 0.3], step_size_up=3,
                        step_size_down=5, mode="triangular2", base_momentum=[0.7, 0.8],
                        max_momentum=0.95),
    "exp_range": dict(base_lr=0.01, max_lr=0.2, step_size_up=5, step_size_down=2,
                      mode="exp_range", gamma=0.9),
    "scale_fn": dict(base_lr=0.01, max_lr=0.2, step_size_up=3, scale_fn=lambda x: 0.5 + x / 40,
                     scale_mode="iterations", cycle_momentum=False),
}


def _cyclic_run(lib, kwargs, opt_name):
    ps = [lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)]
    groups = [{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.05}]
    opt = (lib.optim.SGD(groups, lr=0.1, momentum=0.9) if opt_name == "sgd"
           else getattr(lib.optim, opt_name)(groups, lr=0.1))
    sched = lib.optim.lr_scheduler.CyclicLR(opt, **kwargs)
    return (*step_schedule(opt, sched), sched)


@pytest.mark.parametrize("opt_name", ["sgd", "Adam", "NAdam"])
@pytest.mark.parametrize("mode", list(CYCLIC))
def test_cyclic_lr_and_momentum_match_pytorch(mode: str, opt_name: str) -> None:
    want, wm, ts = _cyclic_run(torch, CYCLIC[mode], opt_name)
    got, gm, fs = _cyclic_run(ftorch, CYCLIC[mode], opt_name)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gm, wm, rtol=1e-12, atol=1e-12)
    assert set(fs.state_dict()) == set(ts.state_dict())


def test_cyclic_lr_errors_match_pytorch() -> None:
    cases = [(lambda m, o: m.optim.lr_scheduler.CyclicLR(o, 0.1, 1.0, mode="bogus")),
             (lambda m, o: m.optim.lr_scheduler.CyclicLR(o, [0.1, 0.2], 1.0)),
             (lambda m, o: m.optim.lr_scheduler.CyclicLR(o, 0.1, 1.0)),
             (lambda m, o: m.optim.lr_scheduler.CyclicLR("not an optimizer", 0.1, 1.0))]
    for make in cases:
        errors = []
        for lib in (torch, ftorch):
            opt = lib.optim.Adagrad([lib.zeros(1, requires_grad=True)])
            with pytest.raises(Exception) as info:
                make(lib, opt)
            errors.append((type(info.value), str(info.value).splitlines()[0]))
        assert errors[1] == errors[0]


def _pair(shape, seed=0, positive=False):
    x = np.random.default_rng(seed).normal(size=shape)
    x = np.abs(x) + 0.1 if positive else x
    return (torch.tensor(x, requires_grad=True), ftorch.tensor(x, requires_grad=True))


def _check_layer(make, shape, seed=0, tol=1e-10, positive=False) -> None:
    """Values, input and parameter gradients of ``make(lib)`` applied to the same input."""
    tx, fx = _pair(shape, seed, positive)
    tm, fm = make(torch), make(ftorch)
    ty, fy = tm(tx), fm(fx)
    np.testing.assert_allclose(np.asarray(fy.tolist()), ty.detach().numpy(), rtol=tol, atol=tol)
    g = np.random.default_rng(seed + 1).normal(size=tuple(ty.shape))
    ty.backward(torch.tensor(g))
    fy.backward(ftorch.tensor(g))
    np.testing.assert_allclose(np.asarray(fx.grad.tolist()), tx.grad.numpy(), rtol=tol, atol=tol)
    for (n, tp), (_, fp) in zip(tm.named_parameters(), fm.named_parameters()):
        np.testing.assert_allclose(np.asarray(fp.grad.tolist()), tp.grad.numpy(),
                                   rtol=tol, atol=tol, err_msg=n)
    return tm, fm


@pytest.mark.parametrize("kwargs", [{}, dict(momentum=None), dict(affine=False, eps=1e-3),
                                    dict(track_running_stats=False)])
def test_batchnorm3d_matches_pytorch(kwargs: dict) -> None:
    def make(lib):
        return lib.nn.BatchNorm3d(3, dtype=lib.float64, **kwargs)
    tm, fm = _check_layer(make, (4, 3, 2, 3, 2))
    assert repr(fm) == repr(tm)
    for name, tb in tm.named_buffers():
        np.testing.assert_allclose(np.asarray(dict(fm.named_buffers())[name].tolist()),
                                   tb.numpy(), rtol=1e-12, atol=1e-12)
    tm.eval()
    fm.eval()
    tx, fx = _pair((2, 3, 2, 2, 2), 5)
    np.testing.assert_allclose(np.asarray(fm(fx).tolist()), tm(tx).detach().numpy(),
                               rtol=1e-12, atol=1e-12)
    for lib in (torch, ftorch):
        with pytest.raises(ValueError, match=r"expected 5D input \(got 4D input\)"):
            make(lib)(lib.zeros(2, 3, 2, 2, dtype=lib.float64))


LPPOOL = [
    ("LPPool1d", dict(norm_type=2, kernel_size=3), (2, 3, 8)),
    ("LPPool1d", dict(norm_type=1.5, kernel_size=2, stride=3, ceil_mode=True), (2, 2, 9)),
    ("LPPool1d", dict(norm_type=float("inf"), kernel_size=3, stride=2), (3, 7)),
    ("LPPool2d", dict(norm_type=2, kernel_size=2), (2, 3, 4, 6)),
    ("LPPool2d", dict(norm_type=3, kernel_size=(2, 3), stride=(1, 2)), (1, 2, 5, 7)),
    ("LPPool2d", dict(norm_type=1.0, kernel_size=3, stride=2, ceil_mode=True), (2, 6, 7)),
]


@pytest.mark.parametrize("name, kwargs, shape", LPPOOL)
def test_lp_pool_matches_pytorch(name: str, kwargs: dict, shape: tuple) -> None:
    def make(lib):
        return getattr(lib.nn, name)(**kwargs)
    tm, fm = _check_layer(make, shape, tol=1e-9, positive=kwargs["norm_type"] != 2)
    assert repr(fm) == repr(tm)
    fn = name.lower().replace("lppool", "lp_pool")
    tx, fx = _pair(shape, 3, positive=kwargs["norm_type"] != 2)
    np.testing.assert_allclose(np.asarray(getattr(ftorch.nn.functional, fn)(fx, **kwargs)
                                          .tolist()),
                               getattr(torch.nn.functional, fn)(tx, **kwargs).detach().numpy(),
                               rtol=1e-9, atol=1e-9)


def test_lp_pool_errors_match_pytorch() -> None:
    errors = []
    for lib in (torch, ftorch):
        with pytest.raises(Exception) as info:
            lib.nn.functional.lp_pool2d(lib.zeros(2, 2, 2, 2, 2), 2, 2)
        errors.append(type(info.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("shape, args", [((3, 7, 2), (1, 3, 2)), ((3, 7, 2), (1, 2, 1)),
                                         ((3, 7, 2), (-2, 7, 1)), ((3, 7, 2), (0, 0, 1)),
                                         ((3, 7, 2), (2, 1, 3)), ((9,), (0, 4, 5)),
                                         ((), (0, 1, 1))])
def test_tensor_unfold_matches_pytorch(shape: tuple, args: tuple) -> None:
    tx, fx = _pair(shape, 2)
    ty, fy = tx.unfold(*args), fx.unfold(*args)
    assert tuple(fy.shape) == tuple(ty.shape)
    assert type(fy.grad_fn).__name__ == type(ty.grad_fn).__name__ == "UnfoldBackward0"
    np.testing.assert_array_equal(np.asarray(fy.tolist()), ty.detach().numpy())
    g = np.random.default_rng(3).normal(size=tuple(ty.shape))
    (tgx,) = torch.autograd.grad(ty, tx, torch.tensor(g), create_graph=True)
    (fgx,) = ftorch.autograd.grad(fy, fx, ftorch.tensor(g), create_graph=True)
    np.testing.assert_allclose(np.asarray(fgx.tolist()), tgx.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("args", [(0, 6, 1), (0, 2, 0), (0, -1, 1), (2, 2, 1), (-3, 1, 1)])
def test_tensor_unfold_errors_match_pytorch(args: tuple) -> None:
    errors = []
    for lib in (torch, ftorch):
        with pytest.raises(Exception) as info:
            lib.arange(5.0).unfold(*args)
        errors.append((type(info.value), str(info.value).splitlines()[0]))
    assert errors[1] == errors[0]


@pytest.mark.parametrize("kwargs", [{"lr": -1.0}, {"beta2_decay": 0.5}, {"eps": (-1.0, 1e-3)},
                                    {"eps": (None, -1.0)}, {"d": 0.5}, {"weight_decay": -0.1}])
def test_adafactor_hyper_parameter_errors_match_pytorch(kwargs: dict) -> None:
    messages = []
    for lib in (torch, ftorch):
        with pytest.raises(ValueError) as e:
            lib.optim.Adafactor([lib.zeros(2, requires_grad=True)], **kwargs)
        messages.append(str(e.value))
    assert messages[0] == messages[1]
