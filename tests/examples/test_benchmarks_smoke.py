"""Correctness guard of the benchmark suite: every case at tiny size, no timing.

Each contender's gradient (fad, the fad.torch facade when it imports, and the
reference libraries that are installed) must equal the hand-written NumPy
gradient that benchmarks/run.py times it against.
"""

import importlib.util
import pkgutil
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))  # run.py imports its harness and cases packages from there

import cases  # noqa: E402
from cases import chains, elementwise, hvp, jacrev, lenet, per_example  # noqa: E402
from harness import CASES  # noqa: E402
from harness.measure import verify  # noqa: E402


def _load_run():
    spec = importlib.util.spec_from_file_location("fad_benchmarks_run", BENCHMARKS / "run.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


run = _load_run()
PAIRS = [(name, c.name) for name in CASES
         for c in CASES[name].build("tiny")[0].contenders[1:]]


@pytest.mark.parametrize("case, contender", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_gradient_matches_numpy(case, contender):
    for problem in CASES[case].build("tiny"):
        status = verify(problem)[contender]
        if status.startswith("skipped"):
            pytest.skip(status)
        assert status == "ok", f"{case} / {problem.label} / {contender}: {status}"


def test_every_case_has_numpy_reference_and_fad_contender():
    for name, case in CASES.items():
        for problem in case.build("tiny"):
            names = [c.name for c in problem.contenders]
            assert names[0] == "numpy", (name, names)
            assert any(n.startswith("fad") for n in names), (name, names)



def test_every_case_module_registers_a_case():
    """Each module of benchmarks/cases is imported by the package and registers
    at least one case; the registry is in the package's order."""
    modules = sorted(f"cases.{m.name}" for m in pkgutil.iter_modules(cases.__path__))
    registered = sorted({c.build.__module__ for c in CASES.values()})
    assert modules and registered == modules
    assert list(CASES) == list(cases.ORDER)


def test_list_names_every_case(capsys):
    assert run.main(["--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    listed = [line.removesuffix(":") for line in out if line and not line[0].isspace()]
    assert listed == list(CASES)


@pytest.mark.parametrize("f, g", [
    (lambda x: chains.chain(np, x, 3), lambda x: chains.chain_grad_numpy(x, 3)),
    (lambda x: elementwise.big_chain(np, x), elementwise.big_chain_grad_numpy),
    (lambda x: elementwise.big_chain(np, x), elementwise.big_chain_grad_numpy_inplace),
    (lambda x: hvp.rosenbrock(np, x), None),
], ids=["chain", "big_chain", "big_chain_inplace", "rosenbrock_hvp"])
def test_numpy_references_against_finite_differences(f, g):
    """The hand-written NumPy derivatives themselves, by central differences."""
    x, eps = np.linspace(-1.0, 1.2, 5), 1e-5
    basis = np.eye(x.size)
    if g is not None:
        fd = np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in basis])
        np.testing.assert_allclose(g(x), fd, rtol=1e-6, atol=1e-8)
        return
    v, h = np.array([1.0, -0.5, 0.25, 2.0, 1.0]), 1e-4
    grad = lambda x: np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in basis])
    fd_hvp = (grad(x + h * v) - grad(x - h * v)) / (2 * h)
    np.testing.assert_allclose(hvp.rosenbrock_hvp_numpy(x, v), fd_hvp, rtol=1e-5, atol=1e-2)


def test_closed_form_references_against_finite_differences():
    """The per-example gradients and the tanh-layer Jacobian of the jit/vmap cases."""
    rng, eps = np.random.default_rng(0), 1e-6
    X, w = rng.standard_normal((4, 3)), rng.standard_normal(3)
    y = np.array([0.0, 1.0, 1.0, 0.0])
    bce = lambda w, x, y: np.logaddexp(0.0, x @ w) - y * (x @ w)
    fd = np.array([[(bce(w + eps * e, x, t) - bce(w - eps * e, x, t)) / (2 * eps)
                    for e in np.eye(3)] for x, t in zip(X, y)])
    np.testing.assert_allclose(per_example.per_example_grads_numpy(w, X, y), fd,
                               rtol=1e-6, atol=1e-9)
    A, x = rng.standard_normal((5, 4)), rng.standard_normal(4)
    f = lambda x: np.tanh(A @ x)
    fd = np.stack([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(4)], axis=1)
    np.testing.assert_allclose(jacrev.tanh_layer_jacobian_numpy(A, x), fd, rtol=1e-6, atol=1e-9)


def test_lenet_reference_against_finite_differences():
    """The hand-written LeNet backward (im2col, max-pool by reshape), in float64,
    against central differences of the loss along random directions."""
    params, x, y = lenet.lenet_data(3)
    params, x = [p.astype(np.float64) for p in params], x.astype(np.float64)
    grads = lenet.lenet_grad_numpy(params, x, y)
    loss = lambda ps: float(lenet.lenet_loss_fad(ps, x, y))
    rng, eps = np.random.default_rng(1), 1e-6
    for _ in range(3):
        v = [rng.standard_normal(p.shape) for p in params]
        v = [d / np.sqrt(sum(np.sum(e * e) for e in v)) for d in v]  # a unit step: no ReLU kink
        fd = (loss([p + eps * d for p, d in zip(params, v)])
              - loss([p - eps * d for p, d in zip(params, v)])) / (2 * eps)
        np.testing.assert_allclose(sum(float(np.sum(g * d)) for g, d in zip(grads, v)), fd,
                                   rtol=1e-6)
