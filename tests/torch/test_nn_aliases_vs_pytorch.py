"""The ``torch.*`` names of ``nn.functional`` operations, in PyTorch's argument order
for them, against PyTorch (skipped without it): values and input gradients."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

RNG = np.random.default_rng(3)
X4 = RNG.standard_normal((2, 4, 5, 5))
X3 = RNG.standard_normal((2, 4, 6))
W2 = RNG.standard_normal((3, 4, 3, 3))
W1 = RNG.standard_normal((3, 4, 2))
WB = RNG.standard_normal((3, 5, 5))

CASES: dict[str, Callable[[Any, Any], Any]] = {
    "conv2d": lambda t, x: t.conv2d(x, t.tensor(W2), None, 1, 1),
    "conv1d": lambda t, x: t.conv1d(x[:, :, 0], t.tensor(W1), stride=2),
    "conv_transpose2d": lambda t, x: t.conv_transpose2d(x, t.tensor(W2).transpose(0, 1), None,
                                                        2),
    "avg_pool1d": lambda t, x: t.avg_pool1d(x[:, :, 0], 2),
    "max_pool1d": lambda t, x: t.max_pool1d(x[:, :, 0], 2),
    "max_pool2d": lambda t, x: t.max_pool2d(x, 2, 1),
    "adaptive_avg_pool1d": lambda t, x: t.adaptive_avg_pool1d(x[:, :, 0], 3),
    "adaptive_max_pool1d": lambda t, x: t.adaptive_max_pool1d(x[:, :, 0], 2)[0],
    "dropout_eval": lambda t, x: t.dropout(x, 0.5, False),
    "alpha_dropout_eval": lambda t, x: t.alpha_dropout(x, 0.5, False),
    "layer_norm": lambda t, x: t.layer_norm(x, [5, 5]),
    "group_norm": lambda t, x: t.group_norm(x, 2, t.arange(4.0, dtype=t.float64), None, 1e-5),
    "rms_norm": lambda t, x: t.rms_norm(x, [5]),
    "batch_norm": lambda t, x: t.batch_norm(x, t.ones(4, dtype=t.float64), None, None, None,
                                            True, 0.1, 1e-5, False),
    "instance_norm": lambda t, x: t.instance_norm(x, None, None, None, None, True, 0.1, 1e-5,
                                                  False),
    "embedding": lambda t, x: t.embedding(x[0, 0], t.tensor([[0, 4], [2, 2]])),
    "celu": lambda t, x: t.celu(x, 0.5), "selu": lambda t, x: t.selu(x),
    "threshold": lambda t, x: t.threshold(x, 0.1, -2.0),
    "rrelu_eval": lambda t, x: t.rrelu(x, 0.1, 0.3),
    "prelu": lambda t, x: t.prelu(x, t.tensor([0.25], dtype=t.float64)),
    "hardshrink": lambda t, x: t.hardshrink(x, 0.3),
    "cosine_similarity": lambda t, x: t.cosine_similarity(x[0], x[1], 0),
    "pairwise_distance": lambda t, x: t.pairwise_distance(x[0, 0], x[1, 0]),
    "pixel_shuffle": lambda t, x: t.pixel_shuffle(x, 2),
    "pixel_unshuffle": lambda t, x: t.pixel_unshuffle(x[:, :, :4, :4], 2),
    "channel_shuffle": lambda t, x: t.channel_shuffle(x, 2),
    "bilinear": lambda t, x: t.bilinear(x[0, 0], x[1, 0], t.tensor(WB)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    def run(t: Any) -> tuple:
        x = t.tensor(X4, requires_grad=True)
        out = CASES[name](t, x)
        (out * out).sum().backward()
        return out.detach().numpy(), x.grad.numpy()
    (value, grad), (want, want_grad) = run(ftorch), run(real_torch)
    np.testing.assert_allclose(value, want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-9, atol=1e-12)
