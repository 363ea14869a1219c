"""A variational autoencoder on scikit-learn's 8x8 digits, with fad's research toolbox.

The model (Kingma & Welling's VAE, in the layout of the classic JAX and Flax
examples, written afresh on fad):

* encoder: ``x (64 pixels) -> relu(W x + b) -> (mu, sigma^2)`` with
  ``sigma^2 = softplus(.)``, the mean and variance of a diagonal Gaussian
  ``q(z | x)`` over a ``latent``-dimensional code;
* reparameterisation: ``z = mu + sigma * eps`` with ``eps ~ N(0, I)`` drawn by
  ``fad.random.normal`` from an explicit key, so the sample is a differentiable
  function of the parameters;
* decoder: ``z -> relu(W z + b) -> logits`` of 64 Bernoulli pixels;
* loss: the negative ELBO per image, ``BCE(logits, x) + KL(q(z|x) || N(0, I))``,
  with the Bernoulli log-likelihood in its stable form ``softplus(l) - x l``
  (``fad.nn.binary_cross_entropy_with_logits``; the pixels, scaled to [0, 1],
  are the targets) and the Gaussian KL in closed form.

Everything is fad: parameters are a pytree (a dict of dicts), weights come from
``fad.nn.initializers``, keys are split explicitly and batches are shuffled
with ``fad.random.permutation``, the optimiser is ``fad.optim.adam`` and the
whole training step (``value_and_grad`` of the loss, Adam's update, the new
parameters) is one ``fad.jit``-compiled function.

Run it (full size, a progress bar; ``--plot`` saves reconstructions and
samples from the prior when matplotlib is installed)::

    python examples/vae_digits.py
    python examples/vae_digits.py --steps 500 --latent 4 --plot vae_digits.png

>>> history, test_elbo = main(steps=20, batch=32, latent=2)
>>> len(history), bool(history[-1] < history[0]), bool(test_elbo < 0)
(20, True, True)
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

import fad
import fad.nn as nn
import fad.numpy as fnp
import fad.optim as optim
import fad.random as fr

Params = dict[str, dict[str, Any]]
PIXELS = 64  # 8 x 8 images


def load_digits(test_fraction: float = 0.2, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's digits as ``(train, test)`` float64 arrays of shape
    ``(n, 64)``, pixels scaled from 0..16 to [0, 1], split at random (with a
    NumPy generator seeded by ``seed``).

    >>> train, test = load_digits()
    >>> train.shape, test.shape, float(train.min()), float(train.max())
    ((1438, 64), (359, 64), 0.0, 1.0)
    """
    from sklearn.datasets import load_digits as sk_load_digits

    images = sk_load_digits().data.astype(np.float64) / 16.0
    order = np.random.default_rng(seed).permutation(len(images))
    n_test = int(round(test_fraction * len(images)))
    return images[order[n_test:]], images[order[:n_test]]


def _dense(key: Any, n_in: int, n_out: int) -> dict[str, Any]:
    return {"w": nn.initializers.glorot_normal()(key, (n_in, n_out)),
            "b": nn.initializers.zeros(key, (n_out,))}


def init_params(key: Any, latent: int = 8, hidden: int = 128) -> Params:
    """The VAE's parameters: a dict of dense layers, each ``{"w": (in, out),
    "b": (out,)}`` (Glorot-normal weights, zero biases).

    >>> import fad.random as fr
    >>> p = init_params(fr.key(0), latent=2, hidden=16)
    >>> for name, layer in sorted(p.items()):
    ...     print(name, layer["w"].shape, layer["b"].shape)
    dec_hidden (2, 16) (16,)
    dec_out (16, 64) (64,)
    enc_hidden (64, 16) (16,)
    enc_mu (16, 2) (2,)
    enc_var (16, 2) (2,)
    """
    shapes = {"enc_hidden": (PIXELS, hidden), "enc_mu": (hidden, latent),
              "enc_var": (hidden, latent), "dec_hidden": (latent, hidden),
              "dec_out": (hidden, PIXELS)}
    keys = fr.split(key, len(shapes))
    return {name: _dense(k, *shape) for k, (name, shape) in zip(keys, shapes.items())}


def _apply(layer: dict[str, Any], x: Any) -> Any:
    return fnp.matmul(x, layer["w"]) + layer["b"]


def encode(params: Params, x: Any) -> tuple[Any, Any]:
    """Mean and variance (positive, through ``softplus``) of ``q(z | x)`` for a
    batch of images ``x`` of shape ``(n, 64)``.

    >>> import fad.random as fr, numpy as np
    >>> mu, var = encode(init_params(fr.key(0), latent=3), np.zeros((5, 64)))
    >>> mu.shape, bool((var > 0).all())
    ((5, 3), True)
    """
    h = nn.relu(_apply(params["enc_hidden"], x))
    return _apply(params["enc_mu"], h), nn.softplus(_apply(params["enc_var"], h))


def decode(params: Params, z: Any) -> Any:
    """Logits of the 64 Bernoulli pixels for a batch of codes ``z`` of shape
    ``(n, latent)``; ``fad.nn.sigmoid`` of them is the mean image.

    >>> import fad.random as fr, numpy as np
    >>> decode(init_params(fr.key(0), latent=3), np.zeros((5, 3))).shape
    (5, 64)
    """
    return _apply(params["dec_out"], nn.relu(_apply(params["dec_hidden"], z)))


def gaussian_sample(key: Any, mu: Any, var: Any) -> Any:
    """The reparameterisation trick: ``mu + sqrt(var) * eps``, ``eps ~ N(0, I)``
    drawn from ``key``; differentiable in ``mu`` and ``var``.

    >>> import fad, fad.random as fr
    >>> float(fad.grad(lambda m: gaussian_sample(fr.key(0), m, 1.0))(0.5))
    1.0
    """
    mu = fnp.asarray(mu)
    return mu + fnp.sqrt(var) * fr.normal(key, mu.shape, mu.dtype)


def gaussian_kl(mu: Any, var: Any) -> Any:
    """``KL(N(mu, diag var) || N(0, I))`` of each row, in closed form:
    ``(sum(mu^2 + var - log var) - d) / 2``.

    >>> import numpy as np
    >>> float(gaussian_kl(np.zeros((1, 3)), np.ones((1, 3)))[0])
    0.0
    """
    return 0.5 * fnp.sum(fnp.square(mu) + var - fnp.log(var) - 1.0, axis=-1)


def negative_elbo(params: Params, key: Any, x: Any) -> Any:
    """The negative ELBO per image, averaged over the batch ``x``, with one
    sample of ``z`` per image drawn from ``key``: ``E_q[-log p(x | z)] +
    KL(q(z | x) || p(z))`` (in nats).

    >>> import fad.random as fr, numpy as np
    >>> loss = negative_elbo(init_params(fr.key(0)), fr.key(1), np.full((4, 64), 0.5))
    >>> loss.shape, bool(loss > 64 * 0.69)
    ((), True)
    """
    mu, var = encode(params, x)
    logits = decode(params, gaussian_sample(key, mu, var))
    nll = fnp.sum(nn.binary_cross_entropy_with_logits(logits, x, reduction="none"), axis=-1)
    return fnp.mean(nll + gaussian_kl(mu, var))


def make_step(optimizer: optim.GradientTransformation) -> Callable:
    """The training step ``(params, opt_state, key, x) -> (params, opt_state,
    loss)``: ``value_and_grad`` of ``negative_elbo`` and one update of
    ``optimizer``. It is pure; wrap it in ``fad.jit``.

    >>> import fad, fad.optim as optim, fad.random as fr, numpy as np
    >>> opt = optim.adam(1e-3)
    >>> params = init_params(fr.key(0), latent=2, hidden=8)
    >>> step = fad.jit(make_step(opt))
    >>> params, state, loss = step(params, opt.init(params), fr.key(1), np.zeros((4, 64)))
    >>> loss.shape
    ()
    """
    def step(params: Params, opt_state: Any, key: Any, x: Any) -> tuple[Params, Any, Any]:
        loss, grads = fad.value_and_grad(negative_elbo)(params, key, x)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optim.apply_updates(params, updates), opt_state, loss
    return step


def batches(key: Any, n: int, batch: int) -> Any:
    """Endless index batches of size ``batch`` over ``range(n)``: each epoch is
    a fresh ``fad.random.permutation`` (from a key split off ``key``); the last,
    incomplete batch of an epoch is dropped so every batch has the same shape
    (and the jitted step compiles once).

    >>> import fad.random as fr
    >>> it = batches(fr.key(0), 5, 2)
    >>> first, second = next(it), next(it)
    >>> len(set(first.tolist()) | set(second.tolist()))  # two disjoint batches
    4
    """
    if not 0 < batch <= n:
        raise ValueError(f"batches: batch must be in 1..{n} (the training set's size), "
                         f"got {batch}")
    while True:
        key, sub = fr.split(key)
        order = np.asarray(fr.permutation(sub, n))
        for start in range(0, n - batch + 1, batch):
            yield order[start:start + batch]


def main(steps: int = 5000, batch: int = 64, latent: int = 8, seed: int = 0,
         hidden: int = 128, learning_rate: float = 1e-3, progress: bool = False,
         plot: str | None = None) -> tuple[np.ndarray, float]:
    """Train the VAE for ``steps`` Adam steps on batches of ``batch`` training
    digits; return the loss history (the negative ELBO of each batch, a float64
    array) and the final test ELBO (per image, in nats, averaged over the test
    set with one sample of ``z`` per image from a fixed key). The same ``seed``
    gives the same numbers, bit for bit. ``progress`` shows a tqdm bar;
    ``plot`` saves reconstructions and prior samples to that path (matplotlib).

    >>> history, test_elbo = main(steps=5, batch=16, latent=2, hidden=8)
    >>> history.shape, history.dtype
    ((5,), dtype('float64'))
    """
    if steps < 0:
        raise ValueError(f"main: steps must be non-negative, got {steps}")
    train, test = load_digits(seed=seed)
    init_key, data_key, step_key, test_key, plot_key = fr.split(fr.key(seed), 5)
    params = init_params(init_key, latent, hidden)
    optimizer = optim.adam(learning_rate)
    opt_state = optimizer.init(params)
    step = fad.jit(make_step(optimizer))

    history = np.empty(steps)
    order = batches(data_key, len(train), batch)
    bar = _progress(steps, progress)
    for i, k in enumerate(fr.split(step_key, steps)):
        params, opt_state, loss = step(params, opt_state, k, train[next(order)])
        history[i] = float(loss)
        if bar is not None:
            bar.update(1)
            if i % 50 == 0 or i == steps - 1:
                bar.set_postfix(neg_elbo=f"{history[i]:.2f}")
    if bar is not None:
        bar.close()
    test_elbo = -float(fad.jit(negative_elbo)(params, test_key, test))
    if plot:
        save_figure(params, test, plot_key, plot)
    return history, test_elbo


def _progress(steps: int, show: bool) -> Any:
    if not show:
        return None
    from tqdm import tqdm
    return tqdm(total=steps, desc="vae", unit="step")


def save_figure(params: Params, images: np.ndarray, key: Any, path: str, n: int = 10) -> None:
    """Save a figure to ``path``: ``n`` test digits (top row), their
    reconstructions (the decoder's mean at the encoder's mean, middle row) and
    ``n`` samples from the prior ``z ~ N(0, I)`` (bottom row). Needs matplotlib."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = images[:n]
    mu, _ = encode(params, x)
    recon = np.asarray(nn.sigmoid(decode(params, mu)))
    z = fr.normal(key, (n, params["dec_hidden"]["w"].shape[0]))
    samples = np.asarray(nn.sigmoid(decode(params, z)))
    fig, axes = plt.subplots(3, n, figsize=(n, 3.3))
    for row, (title, imgs) in enumerate([("test digits", x), ("reconstructions", recon),
                                         ("samples from the prior", samples)]):
        axes[row, 0].set_title(title, loc="left", fontsize=9)
        for ax, img in zip(axes[row], imgs):
            ax.imshow(np.asarray(img).reshape(8, 8), cmap="gray_r", vmin=0, vmax=1)
            ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--latent", type=int, default=8)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", metavar="PATH", default=None,
                        help="save reconstructions and prior samples (needs matplotlib); "
                             "a bare file name is put next to this script")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args()
    plot = args.plot
    if plot is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("matplotlib is not installed: no figure")
            plot = None
        else:
            if Path(plot).parent == Path("."):
                plot = str(Path(__file__).resolve().parent / plot)
    start = time.perf_counter()
    history, test_elbo = main(args.steps, args.batch, args.latent, args.seed, args.hidden,
                              args.lr, progress=not args.no_progress, plot=plot)
    seconds = time.perf_counter() - start
    tenth = max(1, len(history) // 10)
    if len(history):
        print(f"negative ELBO of the first batch: {history[0]:.3f}")
    print("negative ELBO (train batches, mean of each tenth of the run):")
    for part in range(min(10, len(history))):
        chunk = history[part * tenth:(part + 1) * tenth] if part < 9 else history[9 * tenth:]
        print(f"  steps {part * tenth:5d}..: {chunk.mean():8.3f}")
    print(f"loss: {history[:tenth].mean():.3f} -> {history[-tenth:].mean():.3f}")
    print(f"test ELBO: {test_elbo:.3f} nats per image ({args.steps} steps, {seconds:.1f} s)")
    if plot:
        print(f"figure saved to {plot}")


if __name__ == "__main__":
    _cli()
