"""Layers, losses and optimisers of the facade against the installed PyTorch
(skipped without it): option combinations compared value by value, gradient by
gradient, and PyTorch's errors word for word."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402


def to_np(t: Any) -> np.ndarray:
    return np.asarray(t.detach().tolist(), dtype=np.float64)


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=shape)


def same(f: Callable, atol: float = 1e-10) -> None:
    """``f(torch)`` returns a list of tensors (or ``None``): equal in both."""
    r, m = f(real_torch), f(ftorch)
    assert len(r) == len(m)
    for a, b in zip(r, m):
        if a is None or b is None:
            assert a is None and b is None
            continue
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(to_np(b), to_np(a), rtol=atol, atol=atol)


def same_error(f: Callable) -> None:
    out = []
    for lib in (real_torch, ftorch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                f(lib)
            except Exception as e:  # noqa: BLE001
                out.append((isinstance(e, RuntimeError), type(e).__name__
                            if not isinstance(e, RuntimeError) else "",
                            str(e).splitlines()[0]))
            else:
                out.append(None)
    assert out[0] is not None and out[1] == out[0], out


# ------------------------------------------------------------------ losses
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_spatial_like_pytorch(reduction: str, smoothing: float,
                                            weighted: bool) -> None:
    target = np.random.default_rng(3).integers(0, 3, size=(2, 4, 5))
    target[0, 1, 1] = -100

    def run(T: Any) -> list:
        x = T.tensor(rand(2, 3, 4, 5), requires_grad=True)
        w = T.tensor([0.3, 1.0, 2.0], dtype=T.float64) if weighted else None
        y = T.nn.functional.cross_entropy(x, T.tensor(target), weight=w,
                                          reduction=reduction, label_smoothing=smoothing)
        (y * T.tensor(rand(*y.shape, seed=9))).sum().backward()
        return [y, x.grad]
    same(run)


@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_all_targets_ignored_has_zero_gradient(weighted: bool) -> None:
    def run(T: Any) -> list:
        x = T.tensor(rand(2, 3), requires_grad=True)
        w = T.tensor([0.3, 1.0, 2.0], dtype=T.float64) if weighted else None
        y = T.nn.functional.cross_entropy(x, T.tensor([-100, -100]), weight=w)
        y.backward()
        return [y, x.grad]
    same(run)  # (the loss is NaN, the gradient zeros)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_smooth_l1_with_zero_beta_is_l1_with_its_gradient(reduction: str) -> None:
    def run(T: Any) -> list:
        x = T.tensor(rand(4, 3), requires_grad=True)
        y = T.nn.functional.smooth_l1_loss(x, T.tensor(rand(4, 3, seed=1)), beta=0.0,
                                           reduction=reduction)
        y.sum().backward()
        return [y, x.grad]
    same(run)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none", "batchmean"])
def test_kl_div_negative_and_zero_targets_like_pytorch(reduction: str) -> None:
    def run(T: Any) -> list:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [T.nn.functional.kl_div(T.tensor([[0.5, -0.2, 0.3], [0.1, 0.0, -0.5]]),
                                           T.tensor([[0.4, 0.0, -0.3], [0.7, 0.3, 0.0]]),
                                           reduction=reduction)]
    same(run, 1e-6)


def test_pos_weight_and_weight_broadcast_like_pytorch() -> None:
    def run(T: Any) -> list:
        x = T.tensor(rand(2, 4, 3), requires_grad=True)
        y = T.nn.functional.binary_cross_entropy_with_logits(
            x, T.tensor(np.random.default_rng(2).random((2, 4, 3))),
            weight=T.tensor(np.abs(rand(4, 1, seed=3))),
            pos_weight=T.tensor(np.abs(rand(3, seed=4))))
        y.backward()
        return [y, x.grad]
    same(run)


LOSS_ERRORS = {
    "cross_entropy label_smoothing > 1": lambda T: T.nn.functional.cross_entropy(
        T.ones(4, 3), T.tensor([0, 1, 2, 1]), label_smoothing=1.5),
    "cross_entropy unknown reduction": lambda T: T.nn.functional.cross_entropy(
        T.ones(4, 3), T.tensor([0, 1, 2, 1]), reduction="avg"),
    "mse_loss unknown reduction": lambda T: T.nn.functional.mse_loss(
        T.ones(4), T.ones(4), reduction="avg"),
    "kl_div unknown reduction": lambda T: T.nn.functional.kl_div(
        T.ones(4), T.ones(4), reduction="avg"),
    "cross_entropy weight size": lambda T: T.nn.functional.cross_entropy(
        T.ones(4, 3), T.tensor([0, 1, 2, 1]), weight=T.ones(2)),
    "cross_entropy probabilities weight size": lambda T: T.nn.functional.cross_entropy(
        T.ones(4, 3), T.ones(4, 3) / 3, weight=T.ones(2)),
    "nll_loss weight size": lambda T: T.nn.functional.nll_loss(
        T.ones(2, 3), T.tensor([0, 1]), weight=T.ones(4)),
    "nll_loss spatial target shape": lambda T: T.nn.functional.nll_loss(
        T.ones(2, 3, 4), T.zeros(2, 5, dtype=T.long)),
    "nll_loss 2-d target": lambda T: T.nn.functional.nll_loss(
        T.ones(2, 3), T.zeros(2, 1, dtype=T.long)),
    "nll_loss 4-d input, 2-d target": lambda T: T.nn.functional.nll_loss(
        T.ones(2, 3, 4, 5), T.zeros(2, 4, dtype=T.long)),
    "bce_with_logits pos_weight shape": lambda T: T.nn.functional.
    binary_cross_entropy_with_logits(T.ones(4, 3), T.ones(4, 3), pos_weight=T.ones(2)),
    "bce_with_logits weight shape": lambda T: T.nn.functional.
    binary_cross_entropy_with_logits(T.ones(4, 3), T.ones(4, 3), weight=T.ones(2)),
    "bce weight grows the output": lambda T: T.nn.functional.binary_cross_entropy(
        T.full((1, 2), 0.5), T.full((1, 2), 0.5), weight=T.ones(2, 1)),
    "bce input above 1": lambda T: T.nn.functional.binary_cross_entropy(
        T.tensor([1.5]), T.tensor([1.0])),
    "bce NaN input": lambda T: T.nn.functional.binary_cross_entropy(
        T.tensor([float("nan")]), T.tensor([1.0])),
    "smooth_l1 negative beta": lambda T: T.nn.functional.smooth_l1_loss(
        T.ones(3), T.zeros(3), beta=-1.0),
    "huber zero delta": lambda T: T.nn.functional.huber_loss(T.ones(3), T.zeros(3), delta=0.0),
    "cosine_embedding target size": lambda T: T.nn.functional.cosine_embedding_loss(
        T.ones(4, 5), T.ones(4, 5), T.ones(3)),
    "cosine_embedding input sizes": lambda T: T.nn.functional.cosine_embedding_loss(
        T.ones(2, 3), T.ones(3, 3), T.ones(2)),
    "soft_margin target requires grad": lambda T: T.nn.functional.soft_margin_loss(
        T.ones(3), T.ones(3, requires_grad=True)),
    "batch_norm evaluation without running_mean": lambda T: T.nn.functional.batch_norm(
        T.ones(3, 2), None, T.ones(2), training=False),
    "batch_norm evaluation without running_var": lambda T: T.nn.functional.batch_norm(
        T.ones(3, 2), T.ones(2), None, training=False),
}


@pytest.mark.parametrize("case", sorted(LOSS_ERRORS))
def test_loss_errors_like_pytorch(case: str) -> None:
    same_error(LOSS_ERRORS[case])


def test_loss_modules_defer_the_reduction_check_to_the_call() -> None:
    for T in (real_torch, ftorch):
        loss = T.nn.KLDivLoss(reduction="batchmean")
        assert float(loss(T.zeros(2, 2), T.full((2, 2), 0.5))) == pytest.approx(np.log(0.5))
        T.nn.MSELoss(reduction="avg")  # (raises only when called)
    same_error(lambda T: T.nn.MSELoss(reduction="avg")(T.ones(2), T.ones(2)))


# --------------------------------------------------------------- attention
def _copied(make: Callable) -> tuple:
    """The same module in both libraries, the facade's holding PyTorch's weights."""
    r, m = make(real_torch), make(ftorch)
    m.load_state_dict({k: ftorch.tensor(v.detach().numpy()) for k, v in r.state_dict().items()})
    assert list(m.state_dict()) == list(r.state_dict())
    return r, m


@pytest.mark.parametrize("bias_kv,zero_attn", [(True, False), (False, True), (True, True)])
@pytest.mark.parametrize("masks", [None, "bool", "float"])
def test_multihead_attention_extra_keys_like_pytorch(bias_kv: bool, zero_attn: bool,
                                                     masks: str | None) -> None:
    mods = dict(zip(("torch", "fad"), _copied(lambda T: T.nn.MultiheadAttention(
        8, 2, add_bias_kv=bias_kv, add_zero_attn=zero_attn, kdim=5, vdim=3,
        dtype=T.float64))))

    def run(T: Any) -> list:
        m = mods["torch" if T is real_torch else "fad"]
        q = T.tensor(rand(4, 2, 8, seed=1), requires_grad=True)
        k = T.tensor(rand(6, 2, 5, seed=2), requires_grad=True)
        v = T.tensor(rand(6, 2, 3, seed=3), requires_grad=True)
        kpm = am = None
        if masks:
            pad = np.zeros((2, 6), bool)
            pad[0, -2:] = True
            att = np.zeros((4, 6), bool)
            att[1, 0] = True
            kpm, am = T.tensor(pad), T.tensor(att)
            if masks == "float":
                kpm = T.tensor(np.where(pad, -np.inf, 0.0))
                am = T.tensor(np.where(att, -np.inf, rand(4, 6, seed=4)))
        y, w = m(q, k, v, key_padding_mask=kpm, attn_mask=am, average_attn_weights=False)
        (y * T.tensor(rand(*y.shape, seed=9))).sum().backward()
        return [y, w, q.grad, k.grad, v.grad] + [p.grad for p in m.parameters()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(run)


# --------------------------------------------------------------- schedulers
@pytest.mark.parametrize("kind", ["StepLR", "SequentialLR", "ReduceLROnPlateau",
                                  "OneCycleLR"])
@pytest.mark.parametrize("optimizer_first", [False, True])
def test_scheduler_order_warning_like_pytorch(kind: str, optimizer_first: bool) -> None:
    seen = []
    for T in (real_torch, ftorch):
        opt = T.optim.SGD([T.zeros(1, requires_grad=True)], lr=0.1)
        S = T.optim.lr_scheduler
        sched = {"StepLR": lambda: S.StepLR(opt, 1),
                 "SequentialLR": lambda: S.SequentialLR(opt, [S.LinearLR(opt, 0.1, total_iters=2),
                                                              S.ExponentialLR(opt, 0.8)], [2]),
                 "ReduceLROnPlateau": lambda: S.ReduceLROnPlateau(opt),
                 "OneCycleLR": lambda: S.OneCycleLR(opt, 1.0, total_steps=10)}[kind]()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for i in range(3):
                if optimizer_first or i:
                    opt.step()
                sched.step(*([1.0] if kind == "ReduceLROnPlateau" else []))
        seen.append([str(x.message).split(":")[0].split(".")[0] for x in w])
    assert seen[1] == seen[0]


def test_scheduler_resume_without_initial_lr_like_pytorch() -> None:
    for T in (real_torch, ftorch):
        opt = T.optim.SGD([T.zeros(1, requires_grad=True)], lr=0.1)
        with pytest.raises(KeyError, match=r"param 'initial_lr' is not specified in "
                           r"param_groups\[0\] when resuming scheduler with last_epoch >= 0"):
            T.optim.lr_scheduler.StepLR(opt, 2, last_epoch=3)


# ------------------------------------------------------- convolutions, layers
@pytest.mark.parametrize("mode,padding", [("reflect", 5), ("circular", 6), ("reflect", (1, 5))])
def test_conv_padding_mode_wider_than_input_errors_like_pytorch(mode: str, padding: Any) -> None:
    same_error(lambda T: T.nn.Conv2d(3, 2, 3, padding=padding, padding_mode=mode)(
        T.ones(1, 3, 5, 5)))


@pytest.mark.parametrize("mode", ["reflect", "circular", "replicate"])
def test_conv_padding_mode_at_the_limit_like_pytorch(mode: str) -> None:
    mods = dict(zip(("torch", "fad"), _copied(lambda T: T.nn.Conv2d(
        3, 2, 3, padding=(4, 5 if mode == "circular" else 4), padding_mode=mode,
        dtype=T.float64))))

    def run(T: Any) -> list:
        m = mods["torch" if T is real_torch else "fad"]
        x = T.tensor(rand(1, 3, 5, 6), requires_grad=True)
        y = m(x)
        (y * T.tensor(rand(*y.shape, seed=9))).sum().backward()
        return [y, x.grad, m.weight.grad]
    same(run)


def test_bilinear_argument_names_like_pytorch() -> None:
    r, m = _copied(lambda T: T.nn.Bilinear(4, 3, 2, dtype=T.float64))
    same(lambda T: [(r if T is real_torch else m)(input1=T.tensor(rand(2, 4)),
                                                  input2=T.tensor(rand(2, 3, seed=1)))])


@pytest.mark.parametrize("size,k,d,p,s,batched", [
    ((5, 6), (2, 3), 1, (0, 1), 1, True), ((7, 7), 3, 2, 1, 2, True),
    ((8, 7), (3, 2), (1, 2), (2, 1), (3, 2), True), ((6, 5), 2, 1, 0, 3, True),
    ((6, 5), 2, 1, 0, 3, False)])
def test_fold_like_pytorch(size: tuple, k: Any, d: Any, p: Any, s: Any, batched: bool) -> None:
    n = real_torch.nn.functional.unfold(real_torch.zeros(1, 2, *size), k, d, p, s).shape
    shape = (2,) + tuple(n[1:]) if batched else tuple(n[1:])

    def run(T: Any) -> list:
        x = T.tensor(rand(*shape), requires_grad=True)
        y = T.nn.Fold(size, k, d, p, s)(x)
        (y * T.tensor(rand(*y.shape, seed=3))).sum().backward()
        return [y, x.grad, T.nn.functional.unfold(y, k, d, p, s) if batched else None]
    same(run)


@pytest.mark.parametrize("output_size", [(3, 5), (None, 2), 1, (4, 7)])
def test_adaptive_max_pool2d_like_pytorch(output_size: Any) -> None:
    def run(T: Any) -> list:
        x = T.tensor(rand(2, 3, 4, 7), requires_grad=True)
        y, i = T.nn.AdaptiveMaxPool2d(output_size, return_indices=True)(x)
        (y * T.tensor(rand(*y.shape, seed=3))).sum().backward()
        return [y, i, x.grad]
    same(run)


def test_adaptive_max_pool_ties_go_to_the_first_maximum_like_pytorch() -> None:
    def run(T: Any) -> list:
        x = T.ones(1, 1, 3, 5, dtype=T.float64, requires_grad=True)
        y, i = T.nn.functional.adaptive_max_pool2d(x, (2, 3), return_indices=True)
        v = T.ones(2, 7, dtype=T.float64, requires_grad=True)
        z, j = T.nn.AdaptiveMaxPool1d(3, return_indices=True)(v)
        (y.sum() + z.sum()).backward()
        return [y, i, x.grad, z, j, v.grad]
    same(run)


FOLD_POOL_ERRORS = {
    "fold 4-d input": lambda T: T.nn.functional.fold(T.ones(1, 1, 6, 20), (5, 6), (2, 3)),
    "fold channels": lambda T: T.nn.functional.fold(T.ones(1, 7, 20), (5, 6), (2, 3)),
    "fold blocks": lambda T: T.nn.functional.fold(T.ones(1, 6, 20), (5, 6), (2, 3),
                                                  padding=(0, 1)),
    "adaptive_max_pool2d rank": lambda T: T.nn.functional.adaptive_max_pool2d(T.ones(2, 3), 2),
    "adaptive_max_pool1d rank": lambda T: T.nn.functional.adaptive_max_pool1d(
        T.ones(1, 2, 3, 3), 2),
}


@pytest.mark.parametrize("case", sorted(FOLD_POOL_ERRORS))
def test_fold_and_adaptive_max_pool_errors_like_pytorch(case: str) -> None:
    same_error(FOLD_POOL_ERRORS[case])


# ------------------------------------------------- optimiser trajectories
def _trajectory(T: Any, make_opt: Callable, make_sched: Callable | None = None,
                steps: int = 20, metrics: list | None = None) -> list:
    """Parameters, losses and learning rates of ``steps`` steps on a small network
    (float64), the weights PyTorch's seeded initialisation."""
    real_torch.manual_seed(0)
    ref = real_torch.nn.Sequential(real_torch.nn.Linear(3, 4), real_torch.nn.Tanh(),
                                   real_torch.nn.Linear(4, 2)).double()
    net = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 2)).double()
    net.load_state_dict({k: T.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    ps = list(net.parameters())
    opt = make_opt(T, ps)
    sched = make_sched(T, opt) if make_sched else None
    x, y = T.tensor(rand(5, 3, seed=1)), T.tensor(rand(5, 2, seed=2))
    out = []
    for i in range(steps):
        opt.zero_grad()
        loss = ((net(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        out.append(loss.detach())
        if sched is not None:
            sched.step(*([metrics[i]] if metrics else []))
            out.append(T.tensor([g["lr"] for g in opt.param_groups], dtype=T.float64))
    return out + [p.detach() for p in ps]


SCHEDULERS = {
    "ConstantLR": lambda T, o: T.optim.lr_scheduler.ConstantLR(o, 0.3, total_iters=4),
    "PolynomialLR": lambda T, o: T.optim.lr_scheduler.PolynomialLR(o, total_iters=8, power=2.0),
    "MultiplicativeLR": lambda T, o: T.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.95),
    "ChainedScheduler": lambda T, o: T.optim.lr_scheduler.ChainedScheduler(
        [T.optim.lr_scheduler.ConstantLR(o, 0.5, total_iters=3),
         T.optim.lr_scheduler.ExponentialLR(o, 0.9)]),
    "SequentialLR of three": lambda T, o: T.optim.lr_scheduler.SequentialLR(
        o, [T.optim.lr_scheduler.ConstantLR(o, 0.5, total_iters=3),
            T.optim.lr_scheduler.StepLR(o, 2), T.optim.lr_scheduler.CosineAnnealingLR(o, 5)],
        milestones=[4, 10]),
    "CosineAnnealingWarmRestarts": lambda T, o: T.optim.lr_scheduler.
    CosineAnnealingWarmRestarts(o, 3, T_mult=2, eta_min=0.001),
    "OneCycleLR linear three-phase": lambda T, o: T.optim.lr_scheduler.OneCycleLR(
        o, max_lr=1.0, total_steps=25, anneal_strategy="linear", three_phase=True),
}


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_scheduler_trajectories_like_pytorch(name: str) -> None:
    same(lambda T: _trajectory(T, lambda T, ps: T.optim.SGD(ps, lr=0.1, momentum=0.9),
                               SCHEDULERS[name]), 1e-9)


OPTIMISERS = {
    "SGD momentum dampening wd": lambda T, ps: T.optim.SGD(ps, lr=0.1, momentum=0.9,
                                                           dampening=0.1, weight_decay=0.01),
    "SGD nesterov maximize": lambda T, ps: T.optim.SGD(ps, lr=0.01, momentum=0.9, nesterov=True,
                                                       maximize=True),
    "Adam amsgrad wd maximize": lambda T, ps: T.optim.Adam(ps, lr=0.01, amsgrad=True,
                                                           weight_decay=0.1, maximize=True),
    "AdamW amsgrad": lambda T, ps: T.optim.AdamW(ps, lr=0.01, amsgrad=True),
    "RMSprop centered momentum wd": lambda T, ps: T.optim.RMSprop(
        ps, lr=0.01, alpha=0.9, centered=True, momentum=0.9, weight_decay=0.1),
    "Adagrad lr_decay accumulator": lambda T, ps: T.optim.Adagrad(
        ps, lr=0.1, lr_decay=0.1, initial_accumulator_value=0.5, weight_decay=0.01),
    "groups with their own options": lambda T, ps: T.optim.Adam(
        [{"params": ps[:2]}, {"params": ps[2:], "lr": 0.1, "betas": (0.5, 0.6),
                              "amsgrad": True}], lr=0.01),
}


@pytest.mark.parametrize("name", sorted(OPTIMISERS))
def test_optimiser_trajectories_like_pytorch(name: str) -> None:
    same(lambda T: _trajectory(T, OPTIMISERS[name], steps=12), 1e-9)


def test_optimiser_state_dict_round_trip_mid_training_like_pytorch() -> None:
    def run(T: Any) -> list:
        class Resumed:
            def __init__(self, ps: list) -> None:
                self.opt, self.ps, self.n = T.optim.Adam(ps, lr=0.01, amsgrad=True), ps, 0

            def zero_grad(self) -> None:
                self.opt.zero_grad()

            def step(self) -> None:
                self.opt.step()
                self.n += 1
                if self.n == 5:  # a fresh optimiser resumes from the saved state
                    sd = self.opt.state_dict()
                    self.opt = T.optim.Adam(self.ps, lr=0.5)
                    self.opt.load_state_dict(sd)
        return _trajectory(T, lambda T, ps: Resumed(ps), steps=10)
    same(run, 1e-9)


def test_warm_restarts_jump_to_an_epoch_like_pytorch() -> None:
    def run(T: Any) -> list:
        opt = T.optim.SGD([T.zeros(1, requires_grad=True)], lr=1.0)
        sched = T.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, 3, T_mult=2)
        out = []
        for e in (0.5, 4.25, 10.0, 2.0, 30.0):
            opt.step()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sched.step(e)
            out.append(T.tensor(sched.get_last_lr() + [sched.T_cur, sched.T_i,
                                                       sched.last_epoch], dtype=T.float64))
        return out
    same(run)
    same_error(lambda T: T.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        T.optim.SGD([T.zeros(1, requires_grad=True)], lr=1.0), 0))
