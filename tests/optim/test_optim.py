"""``fad.optim``: each rule against its closed form over three steps (written here
in NumPy), against ``fad.torch.optim`` and PyTorch's ``torch.optim`` on the same
quadratic, ``jit`` against eager, schedules, and a small MLP that learns."""

import math

import numpy as np
import pytest

import fad
import fad.numpy as fnp
import fad.optim as optim
import fad.torch as ftorch

A = np.array([1.0, 3.0, 0.5])
P0 = np.array([1.0, -2.0, 0.5])


def loss(p):
    return fnp.sum(A * p * p) + fnp.sum(p)


def grad_np(p):
    return 2 * A * p + 1


def run(opt, steps=3, params=P0, jit=False):
    state = opt.init(params)
    update = fad.jit(opt.update) if jit else opt.update
    p = params
    for _ in range(steps):
        u, state = update(fad.grad(loss)(p), state, p)
        p = optim.apply_updates(p, u)
    return np.asarray(p), state


# ---------------------------------------------------------------- closed forms
def np_rule(name, lr=0.1, steps=3):
    """The rule written out in NumPy, step by step."""
    p = P0.copy()
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    s = np.full_like(p, 0.1)
    for t in range(1, steps + 1):
        g = grad_np(p)
        if name == "sgd":
            p = p - lr * g
        elif name in ("momentum", "nesterov"):
            m = g + 0.9 * m
            p = p - lr * (g + 0.9 * m if name == "nesterov" else m)
        elif name in ("adam", "adamw", "lamb"):
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g * g
            u = (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
            if name == "adamw":
                u = u + 1e-4 * p
            if name == "lamb":
                u = (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-6)
                u = u * np.linalg.norm(p) / np.linalg.norm(u)
            p = p - lr * u
        elif name == "rmsprop":
            v = 0.9 * v + 0.1 * g * g
            p = p - lr * g / np.sqrt(v + 1e-8)
        elif name == "rmsprop_centered":
            m = 0.9 * m + 0.1 * g
            v = 0.9 * v + 0.1 * g * g
            p = p - lr * g / np.sqrt(v - m * m + 1e-8)
        elif name == "adagrad":
            s = s + g * g
            p = p - lr * g / np.sqrt(s + 1e-7)
        elif name == "lion":
            u = np.sign(0.1 * g + 0.9 * m)
            m = 0.01 * g + 0.99 * m
            p = p - lr * (u + 1e-3 * p)
        elif name == "adabelief":
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * (g - m) ** 2 + 1e-16
            p = p - lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-16)
    return p


RULES = {
    "sgd": lambda: optim.sgd(0.1),
    "momentum": lambda: optim.sgd(0.1, momentum=0.9),
    "nesterov": lambda: optim.sgd(0.1, momentum=0.9, nesterov=True),
    "adam": lambda: optim.adam(0.1),
    "adamw": lambda: optim.adamw(0.1),
    "lamb": lambda: optim.lamb(0.1),
    "rmsprop": lambda: optim.rmsprop(0.1),
    "rmsprop_centered": lambda: optim.rmsprop(0.1, centered=True),
    "adagrad": lambda: optim.adagrad(0.1),
    "lion": lambda: optim.lion(0.1),
    "adabelief": lambda: optim.adabelief(0.1),
}


@pytest.mark.parametrize("name", RULES)
def test_rule_matches_closed_form_and_jit(name):
    p, state = run(RULES[name]())
    np.testing.assert_allclose(p, np_rule(name), rtol=1e-13, atol=1e-15)
    pj, state_j = run(RULES[name](), jit=True)
    np.testing.assert_allclose(pj, p, rtol=1e-13, atol=1e-15)
    assert fad.tree.tree_structure(state_j) == fad.tree.tree_structure(state)


def test_step_count_is_in_the_state():
    _, state = run(optim.adam(0.1), steps=3)
    assert int(state[0].count) == 3 and state[0].count.dtype == np.int32


# ---------------------------------------------------------------- against PyTorch
def torch_run(torch, cls, steps=3, **kw):
    p = torch.tensor(P0.copy(), requires_grad=True)
    opt = cls([p], **kw)
    a = torch.tensor(A)
    for _ in range(steps):
        opt.zero_grad()
        ((a * p * p).sum() + p.sum()).backward()
        opt.step()
    return p.detach().numpy()


# (fad.optim rule, torch class name, torch kwargs): the documented mapping
MAPPING = [
    (lambda: optim.adam(0.1, b1=0.8, b2=0.99, eps=1e-6), "Adam",
     dict(lr=0.1, betas=(0.8, 0.99), eps=1e-6)),
    (lambda: optim.adamw(0.1, weight_decay=0.05), "AdamW", dict(lr=0.1, weight_decay=0.05)),
    (lambda: optim.sgd(0.1, momentum=0.9), "SGD", dict(lr=0.1, momentum=0.9)),
    (lambda: optim.sgd(0.1, momentum=0.9, nesterov=True), "SGD",
     dict(lr=0.1, momentum=0.9, nesterov=True)),
    (lambda: optim.sgd(0.1), "SGD", dict(lr=0.1)),
    # PyTorch adds RMSprop's eps after the square root: eps_in_sqrt=False
    (lambda: optim.rmsprop(0.01, decay=0.99, eps=1e-8, eps_in_sqrt=False), "RMSprop",
     dict(lr=0.01, alpha=0.99, eps=1e-8)),
    (lambda: optim.rmsprop(0.01, decay=0.99, eps=1e-8, eps_in_sqrt=False, momentum=0.5,
                           centered=True), "RMSprop",
     dict(lr=0.01, alpha=0.99, eps=1e-8, momentum=0.5, centered=True)),
    # Adagrad: PyTorch's eps sits after the square root, optax's inside: eps=0 on both
    (lambda: optim.adagrad(0.1, initial_accumulator_value=0.2, eps=0.0), "Adagrad",
     dict(lr=0.1, initial_accumulator_value=0.2, eps=0.0)),
]


@pytest.mark.parametrize("make,cls,kw", MAPPING, ids=lambda v: v if isinstance(v, str) else "")
def test_matches_fad_torch_optim(make, cls, kw):
    ours, _ = run(make(), steps=5)
    np.testing.assert_allclose(ours, torch_run(ftorch, getattr(ftorch.optim, cls), 5, **kw),
                               rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("make,cls,kw", MAPPING, ids=lambda v: v if isinstance(v, str) else "")
def test_matches_pytorch(make, cls, kw):
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(torch.float64)
    try:
        theirs = torch_run(torch, getattr(torch.optim, cls), 5, **kw)
    finally:
        torch.set_default_dtype(torch.float32)
    ours, _ = run(make(), steps=5)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


# ---------------------------------------------------------------- blocks
def test_clipping_and_norms():
    tree = {"a": np.array([3.0]), "b": (np.array([[4.0]]), None)}
    assert float(optim.global_norm(tree)) == 5.0
    u, _ = optim.clip_by_global_norm(1.0).update(tree, optim.EmptyState())
    assert float(optim.global_norm(u)) == pytest.approx(1.0, rel=1e-15)
    assert u["b"][1] is None
    u, _ = optim.clip_by_global_norm(10.0).update(tree, optim.EmptyState())
    np.testing.assert_array_equal(u["a"], tree["a"])
    u, _ = optim.clip(3.5).update(tree, optim.EmptyState())
    assert float(u["b"][0][0, 0]) == 3.5
    assert float(optim.global_norm({})) == 0.0


def test_weight_decay_mask_and_apply_updates_dtype():
    params = {"w": np.array([2.0]), "b": np.array([4.0])}
    opt = optim.add_decayed_weights(0.5, mask={"w": True, "b": False})
    u, _ = opt.update({"w": np.array([1.0]), "b": np.array([1.0])}, opt.init(params), params)
    assert u["w"].tolist() == [2.0] and u["b"].tolist() == [1.0]
    opt = optim.add_decayed_weights(0.5, mask=lambda p: {k: k == "b" for k in p})
    u, _ = opt.update({"w": np.array([1.0]), "b": np.array([1.0])}, opt.init(params), params)
    assert u["w"].tolist() == [1.0] and u["b"].tolist() == [3.0]
    p32 = np.ones(2, np.float32)
    assert optim.apply_updates(p32, np.ones(2)).dtype == np.float32
    with pytest.raises(ValueError, match="params"):
        opt.update(params, opt.init(params))


def test_float32_parameters_stay_float32():
    p = np.ones(3, np.float32)
    opt = optim.adam(1e-2)
    u, state = fad.jit(opt.update)(np.ones(3, np.float32), opt.init(p), p)
    assert u.dtype == np.float32 and state.mu.dtype == np.float32 if hasattr(state, "mu") \
        else u.dtype == np.float32 and state[0].mu.dtype == np.float32


def test_chain_errors():
    with pytest.raises(TypeError, match="GradientTransformation"):
        optim.chain(optim.adam)
    opt = optim.chain(optim.scale(1.0))
    with pytest.raises(ValueError, match="state"):
        opt.update([1.0], (), None)


# ---------------------------------------------------------------- schedules
def test_schedules_closed_forms():
    n = np.arange(0, 40)
    f = optim.exponential_decay(2.0, 5, 0.5, transition_begin=3, staircase=True,
                                end_value=0.1)
    ref = np.where(n <= 3, 2.0, 2.0 * 0.5 ** np.floor((n - 3) / 5))
    np.testing.assert_allclose([float(f(k)) for k in n], np.maximum(ref, 0.1))
    f = optim.cosine_decay_schedule(1.0, 20, alpha=0.1)
    ref = 0.9 * 0.5 * (1 + np.cos(np.pi * np.minimum(n, 20) / 20)) + 0.1
    np.testing.assert_allclose([float(f(k)) for k in n], ref, rtol=1e-14)
    f = optim.linear_schedule(1.0, 0.2, 10, transition_begin=5)
    np.testing.assert_allclose([float(f(k)) for k in n],
                               1.0 - 0.8 * np.clip(n - 5, 0, 10) / 10, rtol=1e-14)
    f = optim.warmup_cosine_decay_schedule(0.0, 1.0, 10, 30, end_value=0.5)
    ref = np.where(n < 10, n / 10, 0.5 + 0.5 * 0.5 * (1 + np.cos(
        np.pi * np.minimum(n - 10, 20) / 20)))
    np.testing.assert_allclose([float(f(k)) for k in n], ref, rtol=1e-14, atol=1e-15)
    f = optim.piecewise_constant_schedule(1.0, {20: 0.5, 10: 0.1})
    np.testing.assert_allclose([float(f(k)) for k in n],
                               np.where(n < 10, 1.0, np.where(n < 20, 0.1, 0.05)))
    assert optim.constant_schedule(0.3)(7) == 0.3
    with pytest.raises(ValueError, match="steps"):
        optim.cosine_decay_schedule(1.0, 0)


def test_schedule_as_learning_rate_under_jit():
    sched = optim.exponential_decay(0.1, 1, 0.5)
    p, state = run(optim.sgd(sched), steps=3, jit=True)
    ref = P0.copy()
    for t in range(3):
        ref = ref - 0.1 * 0.5 ** t * grad_np(ref)
    np.testing.assert_allclose(p, ref, rtol=1e-14)
    p2, _ = run(optim.adam(optim.constant_schedule(0.1)), steps=3)
    np.testing.assert_allclose(p2, np_rule("adam"), rtol=1e-13)


# ---------------------------------------------------------------- training
def test_jitted_mlp_training_loss_falls():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (64, 2))
    y = np.sin(2 * x[:, :1]) * x[:, 1:]
    params = {"l1": (rng.normal(0, 0.5, (2, 16)), np.zeros(16)),
              "l2": (rng.normal(0, 0.5, (16, 1)), np.zeros(1)), "frozen": None}

    def mse(params):
        (w1, b1), (w2, b2) = params["l1"], params["l2"]
        h = fad.nn.tanh(x @ w1 + b1)
        return fnp.mean((h @ w2 + b2 - y) ** 2)

    opt = optim.chain(optim.clip_by_global_norm(1.0),
                      optim.adamw(optim.warmup_cosine_decay_schedule(0.0, 0.05, 10, 200)))
    state = opt.init(params)

    @fad.jit
    def step(params, state):
        value, grads = fad.value_and_grad(mse)(params)
        updates, state = opt.update(grads, state, params)
        return optim.apply_updates(params, updates), state, value

    first = float(mse(params))
    for _ in range(200):
        params, state, value = step(params, state)
    assert params["frozen"] is None
    assert float(mse(params)) < 0.2 * first
    assert step.trace_count == 1 if hasattr(step, "trace_count") else True
    assert math.isfinite(float(value))


# ---------------------------------------------------------------- against optax
OPTAX_RULES = ["sgd", "momentum", "nesterov", "adam", "adamw", "lamb", "rmsprop",
               "rmsprop_centered", "adagrad", "lion", "adabelief"]


@pytest.mark.parametrize("name", OPTAX_RULES)
def test_matches_optax(name):
    """Same names, same defaults, same numbers as optax (where it is installed)."""
    optax = pytest.importorskip("optax")
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    make = {"momentum": lambda o: o.sgd(0.1, momentum=0.9),
            "nesterov": lambda o: o.sgd(0.1, momentum=0.9, nesterov=True),
            "rmsprop_centered": lambda o: o.rmsprop(0.1, centered=True)}.get(
        name, lambda o: getattr(o, name)(0.1))
    opt = make(optax)
    p = jax.numpy.asarray(P0)
    state = opt.init(p)
    for _ in range(3):
        u, state = opt.update(jax.numpy.asarray(grad_np(np.asarray(p))), state, p)
        p = optax.apply_updates(p, u)
    ours, _ = run(make(optim))
    np.testing.assert_allclose(ours, np.asarray(p), rtol=1e-12, atol=1e-14)


def test_schedules_match_optax():
    optax = pytest.importorskip("optax")
    pairs = [("exponential_decay", dict(init_value=2.0, transition_steps=5, decay_rate=0.5,
                                        transition_begin=3, staircase=True, end_value=0.1)),
             ("cosine_decay_schedule", dict(init_value=1.0, decay_steps=20, alpha=0.1,
                                            exponent=2.0)),
             ("linear_schedule", dict(init_value=1.0, end_value=0.2, transition_steps=10,
                                      transition_begin=5)),
             ("warmup_cosine_decay_schedule", dict(init_value=0.1, peak_value=1.0,
                                                   warmup_steps=10, decay_steps=30,
                                                   end_value=0.5)),
             ("piecewise_constant_schedule", dict(init_value=1.0,
                                                  boundaries_and_scales={10: 0.1, 20: 0.5})),
             ("polynomial_schedule", dict(init_value=1.0, end_value=0.1, power=2,
                                          transition_steps=15))]
    for name, kw in pairs:
        ours, theirs = getattr(optim, name)(**kw), getattr(optax, name)(**kw)
        np.testing.assert_allclose([float(ours(n)) for n in range(40)],
                                   [float(theirs(n)) for n in range(40)], rtol=1e-6,
                                   err_msg=name)
