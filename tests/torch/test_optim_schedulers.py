"""``fad.torch.optim`` and ``optim.lr_scheduler`` against PyTorch: trajectories,
learning-rate sequences and ``state_dict`` layouts."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch_compare import step_schedule  # noqa: E402

import fad.torch as ftorch  # noqa: E402

TOL = dict(rtol=1e-12, atol=1e-12)
W0 = np.array([[0.5, -1.5, 2.0], [1.0, 0.3, -0.7]])
B0 = np.array([0.1, -0.2])
X = np.random.default_rng(0).normal(size=(6, 3))


def _loss(lib, w, b):
    z = lib.tensor(X) @ w.T + b
    return (lib.tanh(z) ** 2).sum() + (w ** 4).sum() * 0.1


def _smooth_loss(lib, w, b):  # (well conditioned: L-BFGS's steps stay moderate)
    z = lib.tensor(X) @ w.T + b - 1
    return (z ** 2).sum() + (w ** 4).sum() * 0.1 + lib.cos(b).sum()


def _run(lib, make, steps=20, closure_opt=False, groups=False, loss_fn=_loss):
    w = lib.tensor(W0, requires_grad=True)
    b = lib.tensor(B0, requires_grad=True)
    opt = make(lib, [{"params": [w]}, {"params": [b], "lr": 0.05}] if groups else [w, b])
    traj = []
    for _ in range(steps):
        def closure():
            opt.zero_grad()
            loss = loss_fn(lib, w, b)
            loss.backward()
            return loss
        if closure_opt:
            opt.step(closure)
        else:
            closure()
            opt.step()
        traj.append(np.concatenate([np.asarray(w.detach().tolist()).ravel(),
                                    np.asarray(b.detach().tolist())]))
    return np.array(traj), opt


OPTIMISERS = {
    "sgd": lambda m, p: m.optim.SGD(p, lr=0.01),
    "sgd_momentum": lambda m, p: m.optim.SGD(p, lr=0.01, momentum=0.9, dampening=0.1,
                                             weight_decay=0.01),
    "sgd_nesterov_max": lambda m, p: m.optim.SGD(p, lr=0.01, momentum=0.9, nesterov=True,
                                                 maximize=True),
    "adam": lambda m, p: m.optim.Adam(p, lr=0.01, weight_decay=0.1),
    "adam_amsgrad": lambda m, p: m.optim.Adam(p, lr=0.01, amsgrad=True, maximize=True),
    "adamw": lambda m, p: m.optim.AdamW(p, lr=0.01),
    "adamw_amsgrad": lambda m, p: m.optim.AdamW(p, lr=0.01, amsgrad=True, weight_decay=0.1),
    "rmsprop": lambda m, p: m.optim.RMSprop(p, lr=0.01),
    "rmsprop_centered": lambda m, p: m.optim.RMSprop(p, lr=0.01, centered=True, momentum=0.5,
                                                     weight_decay=0.01),
    "adagrad": lambda m, p: m.optim.Adagrad(p, lr=0.1, lr_decay=0.01, weight_decay=0.01,
                                            initial_accumulator_value=0.1),
}


def _same_layout(got, want) -> None:
    assert set(got["state"]) == set(want["state"])
    for k in want["state"]:
        gs, ws = got["state"][k], want["state"][k]
        assert list(gs) == list(ws)
        for n in ws:
            if isinstance(ws[n], torch.Tensor):
                assert str(gs[n].dtype) == str(ws[n].dtype)
                np.testing.assert_allclose(np.asarray(gs[n].tolist()), ws[n].tolist(), **TOL)
    assert got["param_groups"] == want["param_groups"]


@pytest.mark.parametrize("name", list(OPTIMISERS))
def test_optimiser_trajectory_and_state_dict_match_pytorch(name: str) -> None:
    make = OPTIMISERS[name]
    want, topt = _run(torch, make, groups=True)
    got, fopt = _run(ftorch, make, groups=True)
    np.testing.assert_allclose(got, want, **TOL)
    _same_layout(fopt.state_dict(), topt.state_dict())


@pytest.mark.parametrize("search", [None, "strong_wolfe"])
def test_lbfgs_trajectory_matches_pytorch(search) -> None:
    def make(m, p):
        return m.optim.LBFGS(p, lr=0.2 if search is None else 1, max_iter=5, history_size=4,
                             line_search_fn=search)
    want, topt = _run(torch, make, steps=4, closure_opt=True, loss_fn=_smooth_loss)
    got, fopt = _run(ftorch, make, steps=4, closure_opt=True, loss_fn=_smooth_loss)
    np.testing.assert_allclose(got, want, **TOL)
    ws, gs = topt.state_dict()["state"][0], fopt.state_dict()["state"][0]
    assert ws["func_evals"] == gs["func_evals"] and ws["n_iter"] == gs["n_iter"]


def test_state_dict_round_trip_continues_the_trajectory() -> None:
    full, _ = _run(ftorch, OPTIMISERS["adam"], steps=6)
    w = ftorch.tensor(W0, requires_grad=True)
    b = ftorch.tensor(B0, requires_grad=True)
    _, first = _run(ftorch, OPTIMISERS["adam"], steps=3)
    with ftorch.no_grad():
        w.copy_(ftorch.tensor(full[2][:6].reshape(2, 3)))
        b.copy_(ftorch.tensor(full[2][6:]))
    opt = ftorch.optim.Adam([w, b], lr=0.01, weight_decay=0.1)
    opt.load_state_dict(first.state_dict())
    for _ in range(3):
        opt.zero_grad()
        _loss(ftorch, w, b).backward()
        opt.step()
    np.testing.assert_allclose(np.asarray(w.detach().tolist()).ravel(), full[5][:6], **TOL)


def test_zero_grad_and_param_group_errors() -> None:
    w = ftorch.ones(2, requires_grad=True)
    opt = ftorch.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert w.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert w.grad is None
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [w]})
    with pytest.raises(ValueError, match="Invalid learning rate"):
        ftorch.optim.Adam([w], lr=-1)


SCHEDULERS = {
    "step": lambda m, o: m.optim.lr_scheduler.StepLR(o, step_size=4, gamma=0.5),
    "multistep": lambda m, o: m.optim.lr_scheduler.MultiStepLR(o, [3, 7, 7, 20], gamma=0.3),
    "exponential": lambda m, o: m.optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
    "cosine": lambda m, o: m.optim.lr_scheduler.CosineAnnealingLR(o, T_max=7, eta_min=0.001),
    "onecycle": lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, max_lr=0.5, total_steps=31),
    "onecycle3": lambda m, o: m.optim.lr_scheduler.OneCycleLR(
        o, max_lr=[0.5, 0.2], epochs=4, steps_per_epoch=8, three_phase=True,
        anneal_strategy="linear"),
    "linear": lambda m, o: m.optim.lr_scheduler.LinearLR(o, start_factor=0.2, total_iters=8),
    "lambda": lambda m, o: m.optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (1 + e)),
    "sequential": lambda m, o: m.optim.lr_scheduler.SequentialLR(
        o, [m.optim.lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=5),
            m.optim.lr_scheduler.CosineAnnealingLR(o, T_max=10),
            m.optim.lr_scheduler.ExponentialLR(o, gamma=0.8)], milestones=[5, 15]),
}


def _lrs(lib, make, opt_name="sgd"):
    ps = [lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)]
    groups = [{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.05}]
    opt = (lib.optim.SGD(groups, lr=0.1, momentum=0.9) if opt_name == "sgd"
           else lib.optim.Adam(groups, lr=0.1))
    sched = make(lib, opt)
    return (*step_schedule(opt, sched), sched)


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_lr_sequence_matches_pytorch(name: str) -> None:
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, wm, ts = _lrs(torch, SCHEDULERS[name], "adam" if name == "onecycle" else "sgd")
    got, gm, fs = _lrs(ftorch, SCHEDULERS[name], "adam" if name == "onecycle" else "sgd")
    np.testing.assert_allclose(got, want, **TOL)
    np.testing.assert_allclose(gm, wm, **TOL)
    if name != "sequential":
        assert set(fs.state_dict()) == set(ts.state_dict())


def test_reduce_lr_on_plateau_matches_pytorch() -> None:
    metrics = [1.0, 0.9, 0.95, 0.95, 0.95, 0.95, 0.8, 0.85, 0.85, 0.85, 0.85, 0.85] * 3
    out = []
    for lib in (torch, ftorch):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=1.0)
        s = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=2, factor=0.5, cooldown=1,
                                                     min_lr=0.01)
        seq = []
        for m in metrics:
            s.step(m)
            seq.append(s.get_last_lr()[0])
        out.append(seq)
    np.testing.assert_allclose(out[1], out[0], **TOL)
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        ftorch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=2.0)


def test_clip_grad_norm_and_value_match_pytorch() -> None:
    g = np.array([3.0, -4.0, 12.0])
    for norm_type in (2.0, 1.0, math.inf):
        res = []
        for lib in (torch, ftorch):
            p = lib.tensor(np.ones(3), requires_grad=True)
            p.grad = lib.tensor(g)
            n = lib.nn.utils.clip_grad_norm_([p], max_norm=2.0, norm_type=norm_type)
            res.append((float(n), np.asarray(p.grad.tolist())))
        assert res[1][0] == pytest.approx(res[0][0], rel=1e-12)
        np.testing.assert_allclose(res[1][1], res[0][1], **TOL)
    p = ftorch.ones(2, requires_grad=True)
    p.grad = ftorch.tensor([float("nan"), 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        ftorch.nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    p.grad = ftorch.tensor([-3.0, 0.5])
    ftorch.nn.utils.clip_grad_value_(p, 1.0)
    assert p.grad.tolist() == [-1.0, 0.5]
