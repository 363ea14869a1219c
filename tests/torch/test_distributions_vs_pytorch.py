"""``torch.distributions`` against PyTorch's (skipped without it): log-probabilities,
entropies, moments, shapes, parameter and support checks and ``kl_divergence``;
their gradients in the parameters; and draws whose statistics match the
distribution (the random streams differ from PyTorch's)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402


def cases(t: Any) -> dict[str, Callable[[], Any]]:
    D = t.distributions
    n = lambda: D.Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, 2.0]))
    return {
        "normal_lp": lambda: n().log_prob(t.tensor([0.5, 0.5])),
        "normal_ent": lambda: n().entropy(),
        "normal_cdf": lambda: n().cdf(t.tensor(0.3)),
        "normal_icdf": lambda: n().icdf(t.tensor(0.3)),
        "normal_stats": lambda: (n().mean, n().stddev, n().variance),
        "normal_shapes": lambda: (
            n().batch_shape,
            n().event_shape,
            n().sample((3,)).shape,
            n().rsample().shape,
        ),
        "normal_repr": lambda: repr(n()),
        "normal_scalar": lambda: D.Normal(0.0, 1.0).log_prob(t.tensor(1.0)),
        "normal_bad": lambda: D.Normal(t.tensor(0.0), t.tensor(-1.0)),
        "normal_badval": lambda: n().log_prob(t.tensor([[1.0, 2.0, 3.0]])),
        "cat_lp": lambda: D.Categorical(logits=t.tensor([1.0, 2.0, 3.0])).log_prob(t.tensor(1)),
        "cat_probs": lambda: (
            D.Categorical(logits=t.tensor([1.0, 2.0, 3.0])).probs,
            D.Categorical(probs=t.tensor([1.0, 1.0, 2.0])).logits,
        ),
        "cat_ent": lambda: D.Categorical(probs=t.tensor([[0.2, 0.8], [0.5, 0.5]])).entropy(),
        "cat_batch": lambda: D.Categorical(probs=t.tensor([[0.2, 0.8], [0.5, 0.5]])).log_prob(
            t.tensor([1, 0])
        ),
        "cat_shapes": lambda: (
            D.Categorical(probs=t.ones(2, 3)).batch_shape,
            D.Categorical(probs=t.ones(2, 3)).param_shape,
            D.Categorical(probs=t.ones(2, 3)).sample((4,)).shape,
            str(D.Categorical(probs=t.ones(3)).sample().dtype),
        ),
        "cat_both": lambda: D.Categorical(probs=t.tensor([0.2, 0.8]), logits=t.tensor([1.0, 2.0])),
        "cat_badval": lambda: D.Categorical(probs=t.tensor([0.2, 0.8])).log_prob(t.tensor(2)),
        "bern": lambda: (
            D.Bernoulli(probs=t.tensor([0.3])).log_prob(t.tensor([1.0])),
            D.Bernoulli(probs=t.tensor([0.3])).entropy(),
            D.Bernoulli(logits=t.tensor([0.5])).probs,
            D.Bernoulli(probs=t.tensor([0.3])).variance,
        ),
        "bern_badval": lambda: D.Bernoulli(probs=t.tensor([0.3])).log_prob(t.tensor([0.5])),
        "bern_badp": lambda: D.Bernoulli(probs=t.tensor([1.3])),
        "unif": lambda: (
            D.Uniform(0.0, 2.0).log_prob(t.tensor(1.0)),
            D.Uniform(0.0, 2.0).entropy(),
            D.Uniform(0.0, 2.0).mean,
            D.Uniform(0.0, 2.0).variance,
            D.Uniform(0.0, 2.0).cdf(t.tensor(0.5)),
            D.Uniform(t.tensor([0.0, 1.0]), t.tensor([2.0, 5.0])).icdf(t.tensor(0.25)),
        ),
        "unif_out": lambda: D.Uniform(0.0, 2.0).log_prob(t.tensor(3.0)),
        "unif_noval": lambda: D.Uniform(0.0, 2.0, validate_args=False).log_prob(t.tensor(3.0)),
        "unif_bad": lambda: D.Uniform(2.0, 1.0),
        "expo": lambda: (
            D.Exponential(t.tensor(2.0)).log_prob(t.tensor(1.0)),
            D.Exponential(t.tensor(2.0)).entropy(),
            D.Exponential(t.tensor(2.0)).mean,
            D.Exponential(t.tensor(2.0)).variance,
            D.Exponential(t.tensor(2.0)).cdf(t.tensor(1.0)),
        ),
        "mvn": lambda: (
            D.MultivariateNormal(
                t.zeros(2), covariance_matrix=t.tensor([[2.0, 0.5], [0.5, 1.0]])
            ).log_prob(t.tensor([0.1, 0.2])),
            D.MultivariateNormal(
                t.zeros(2), covariance_matrix=t.tensor([[2.0, 0.5], [0.5, 1.0]])
            ).entropy(),
            D.MultivariateNormal(
                t.zeros(2), covariance_matrix=t.tensor([[2.0, 0.5], [0.5, 1.0]])
            ).scale_tril,
            D.MultivariateNormal(
                t.zeros(2), covariance_matrix=t.tensor([[2.0, 0.5], [0.5, 1.0]])
            ).variance,
        ),
        "mvn_prec": lambda: D.MultivariateNormal(
            t.ones(2), precision_matrix=t.tensor([[2.0, 0.5], [0.5, 1.0]])
        ).log_prob(t.tensor([[0.1, 0.2], [1.0, 1.0]])),
        "mvn_tril": lambda: D.MultivariateNormal(
            t.zeros(3, 2), scale_tril=t.tensor([[1.0, 0.0], [0.5, 2.0]])
        ).log_prob(t.zeros(3, 2)),
        "mvn_shapes": lambda: (
            D.MultivariateNormal(t.zeros(3, 2), t.eye(2)).batch_shape,
            D.MultivariateNormal(t.zeros(3, 2), t.eye(2)).event_shape,
            D.MultivariateNormal(t.zeros(3, 2), t.eye(2)).sample((4,)).shape,
        ),
        "mvn_none": lambda: D.MultivariateNormal(t.zeros(2)),
        "indep": lambda: (
            D.Independent(n(), 1).log_prob(t.tensor([0.5, 0.5])),
            D.Independent(n(), 1).entropy(),
            D.Independent(n(), 1).batch_shape,
            D.Independent(n(), 1).event_shape,
            repr(D.Independent(n(), 1)),
        ),
        "kl_normal": lambda: D.kl_divergence(
            n(), D.Normal(t.tensor([1.0, 1.0]), t.tensor([1.0, 1.0]))
        ),
        "kl_cat": lambda: D.kl_divergence(
            D.Categorical(logits=t.tensor([1.0, 2.0, 3.0])),
            D.Categorical(probs=t.tensor([0.2, 0.3, 0.5])),
        ),
        "kl_cat_zero": lambda: D.kl_divergence(
            D.Categorical(probs=t.tensor([0.5, 0.5, 0.0])),
            D.Categorical(probs=t.tensor([0.2, 0.8, 0.0])),
        ),
        "kl_bern": lambda: D.kl_divergence(
            D.Bernoulli(probs=t.tensor([0.3, 0.9])), D.Bernoulli(logits=t.tensor([0.1, -1.0]))
        ),
        "kl_expo": lambda: D.kl_divergence(D.Exponential(t.tensor([1.0, 3.0])),
                                           D.Exponential(t.tensor(2.0))),
        "kl_missing": lambda: D.kl_divergence(D.Categorical(probs=t.ones(2)), n()),
        "kl_indep": lambda: D.kl_divergence(
            D.Independent(n(), 1), D.Independent(D.Normal(t.zeros(2), t.ones(2)), 1)
        ),
    }


def summary(f: Callable[[], Any]) -> Any:
    """Each result's dtype and values (rounded), or the error's type and first line."""
    try:
        r = f()
    except Exception as e:  # noqa: BLE001  (the exception is the result compared)
        return type(e).__name__ + ": " + str(e).split("\n")[0]
    return [
        (str(x.dtype), np.round(np.asarray(x.detach().tolist(), dtype=float), 4).tolist())
        if hasattr(x, "detach")
        else x
        for x in (r if isinstance(r, tuple) else (r,))
    ]


@pytest.mark.parametrize("name", sorted(cases(ftorch)))
def test_as_pytorch(name):
    assert str(summary(cases(ftorch)[name])) == str(summary(cases(real_torch)[name]))


def test_gradients_in_the_parameters_as_pytorch():
    def run(t: Any) -> list:
        D = t.distributions
        loc = t.tensor([0.3, -1.0], requires_grad=True)
        scale = t.tensor([1.5, 0.5], requires_grad=True)
        logits = t.tensor([0.2, -0.4, 1.0], requires_grad=True)
        cov = t.tensor([[2.0, 0.5], [0.5, 1.0]], requires_grad=True)
        low = t.tensor(-1.0, requires_grad=True)
        n = D.Normal(loc, scale)
        loss = (
            n.log_prob(t.tensor([0.1, 0.4])).sum()
            + n.entropy().sum()
            + D.kl_divergence(n, D.Normal(scale, loc.exp())).sum()
            + D.Categorical(logits=logits).log_prob(t.tensor(2))
            + D.Categorical(logits=logits).entropy()
            + D.Bernoulli(logits=logits).log_prob(t.tensor([1.0, 0.0, 1.0])).sum()
            + D.MultivariateNormal(loc, cov).log_prob(t.tensor([0.2, 0.1]))
            + D.MultivariateNormal(loc, cov).entropy()
            + D.Uniform(low, scale[0] + 1).log_prob(t.tensor(0.5))
        )
        loss.backward()
        return [p.grad.numpy() for p in (loc, scale, logits, cov, low)]

    for got, want in zip(run(ftorch), run(real_torch)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_draws_follow_the_distribution():
    ftorch.manual_seed(0)
    D = ftorch.distributions
    x = D.Normal(ftorch.tensor(2.0), ftorch.tensor(3.0)).sample((20000,))
    assert abs(float(x.mean()) - 2.0) < 0.1 and abs(float(x.std()) - 3.0) < 0.1
    c = D.Categorical(probs=ftorch.tensor([0.2, 0.3, 0.5])).sample((20000,))
    assert np.allclose(np.bincount(c.numpy(), minlength=3) / 20000, [0.2, 0.3, 0.5], atol=0.02)
    u = D.Uniform(1.0, 3.0).sample((20000,))
    assert 1.0 <= float(u.min()) and float(u.max()) < 3.0 and abs(float(u.mean()) - 2) < 0.05
    e = D.Exponential(ftorch.tensor(4.0)).sample((20000,))
    assert abs(float(e.mean()) - 0.25) < 0.01
    m = D.MultivariateNormal(ftorch.zeros(2), ftorch.tensor([[2.0, 0.5], [0.5, 1.0]]))
    s = m.sample((20000,)).numpy()
    np.testing.assert_allclose(np.cov(s.T), [[2.0, 0.5], [0.5, 1.0]], atol=0.1)
    b = D.Bernoulli(probs=ftorch.tensor(0.3)).sample((20000,))
    assert abs(float(b.mean()) - 0.3) < 0.02


def test_rsample_is_differentiable_and_sample_is_not():
    loc = ftorch.tensor(1.0, requires_grad=True)
    n = ftorch.distributions.Normal(loc, ftorch.tensor(2.0))
    n.rsample((5,)).sum().backward()
    assert float(loc.grad) == 5.0
    assert not n.sample((5,)).requires_grad
