"""The VAE example (examples/vae_digits.py) at small size: it learns, it is
reproducible, its jitted step is its eager step, and its gradient is right."""

import doctest
import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn")

import fad  # noqa: E402
import fad.optim as optim  # noqa: E402
import fad.random as fr  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMALL = {"steps": 200, "batch": 32, "latent": 4, "hidden": 32, "learning_rate": 3e-3}


def _load():
    spec = importlib.util.spec_from_file_location("vae_digits", ROOT / "examples" / "vae_digits.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


vae = _load()


@pytest.fixture(scope="module")
def run():
    return vae.main(seed=3, **SMALL)


@pytest.fixture(scope="module")
def batch():
    train, _ = vae.load_digits()
    return train[:16]


def test_the_loss_falls(run):
    history, test_elbo = run
    assert history.shape == (SMALL["steps"],) and np.isfinite(history).all()
    tenth = len(history) // 10
    first, last = history[:tenth].mean(), history[-tenth:].mean()
    assert last < first - 5.0, (first, last)  # nats per image
    # the test ELBO is near the (negated) training loss: no gross overfitting
    assert -test_elbo < first and abs(-test_elbo - last) < 5.0, (test_elbo, last)


def test_the_same_seed_gives_the_same_history_bit_for_bit(run):
    history, test_elbo = vae.main(seed=3, **SMALL)
    np.testing.assert_array_equal(history, run[0])
    assert test_elbo == run[1]
    other, _ = vae.main(seed=4, **{**SMALL, "steps": 5})
    assert not np.array_equal(other, run[0][:5])


def test_the_jitted_step_equals_the_eager_step(batch):
    opt = optim.adam(1e-2)
    params = vae.init_params(fr.key(0), latent=3, hidden=16)
    state = opt.init(params)
    step = vae.make_step(opt)
    key = fr.key(7)
    for _ in range(3):  # a few steps, so Adam's moments are not all zero
        eager = step(params, state, key, batch)
        jitted = fad.jit(step)(params, state, key, batch)
        for a, b in zip(fad.tree.tree_leaves(eager), fad.tree.tree_leaves(jitted)):
            np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-12, atol=1e-12)
        params, state, _ = eager
        key, = fr.split(key, 1)


@pytest.mark.parametrize("layer", ["dec_out", "dec_hidden", "enc_mu", "enc_var", "enc_hidden"])
def test_the_gradient_matches_a_finite_difference_with_the_key_fixed(batch, layer):
    params = vae.init_params(fr.key(1), latent=3, hidden=16)
    key = fr.key(2)
    grads = np.asarray(fad.grad(vae.negative_elbo)(params, key, batch)[layer]["w"])
    index = np.unravel_index(np.argmax(np.abs(grads)), grads.shape)  # a weight that matters
    grad = grads[index]

    def loss_at(delta):
        w = np.array(params[layer]["w"])
        w[index] += delta
        return float(vae.negative_elbo({**params, layer: {**params[layer], "w": w}}, key, batch))

    h = 1e-5
    fd = (loss_at(h) - loss_at(-h)) / (2 * h)
    assert abs(float(grad)) > 1e-3
    np.testing.assert_allclose(float(grad), fd, rtol=1e-6, atol=1e-8)


def test_the_analytic_kl_matches_a_monte_carlo_estimate():
    mu, var = np.array([[0.5, -1.0]]), np.array([[0.3, 2.0]])
    z = np.asarray(vae.gaussian_sample(fr.key(0), np.repeat(mu, 200_000, 0),
                                       np.repeat(var, 200_000, 0)))
    log_q = -0.5 * np.sum((z - mu) ** 2 / var + np.log(2 * np.pi * var), axis=1)
    log_p = -0.5 * np.sum(z ** 2 + np.log(2 * np.pi), axis=1)
    assert abs(float(vae.gaussian_kl(mu, var)[0]) - np.mean(log_q - log_p)) < 0.01


def test_the_example_s_docstring_examples():
    result = doctest.testmod(vae)
    assert result.attempted >= 10 and result.failed == 0


def test_the_script_runs_and_saves_its_figure(tmp_path):
    import os
    import subprocess
    import sys

    figure = tmp_path / "vae.png"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "vae_digits.py"), "--steps", "30",
         "--batch", "16", "--latent", "2", "--hidden", "16", "--no-progress",
         "--plot", str(figure)],
        capture_output=True, text=True, env=env, timeout=300, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    line = next(l for l in run.stdout.splitlines() if l.startswith("loss:"))
    first, last = (float(v) for v in line.split()[1:4:2])
    assert last < first
    assert "test ELBO" in run.stdout
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "no figure" in run.stdout
    else:
        assert figure.stat().st_size > 1000
