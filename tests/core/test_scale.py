"""Scale: very deep graphs (no recursion on depth), threads, and no memory growth."""

import gc
import sys
import threading
import tracemalloc

import numpy as np
import pytest
from concurrency import run_in_threads

import fad
import fad.numpy as fnp

N = 100_000


def chain(x):
    for _ in range(N):
        x = fnp.sin(x)
    return x


@pytest.fixture(scope="module")
def chain_reference():
    """The chain's value and derivative at 1.0 (the product of the cosines)."""
    x, d = np.float64(1.0), np.float64(1.0)
    for _ in range(N):
        d *= np.cos(x)
        x = np.sin(x)
    return x, d


@pytest.mark.slow
@pytest.mark.parametrize("transform", [
    lambda f, x: (f(x), fad.grad(f)(x)),
    lambda f, x: fad.jvp(f, (x,), (1.0,)),
    lambda f, x: (lambda out, f_vjp: (out, f_vjp(1.0)[0]))(*fad.vjp(f, x)),
], ids=["grad", "jvp", "vjp"])
def test_chain_of_100k_operations(transform, chain_reference):
    assert sys.getrecursionlimit() < N  # a recursive walk of the graph would fail
    value, derivative = transform(chain, 1.0)
    np.testing.assert_allclose([value, derivative], chain_reference, rtol=1e-9)


@pytest.mark.slow
def test_make_jaxpr_of_100k_operations():
    closed = fad.make_jaxpr(chain)(1.0)
    assert len(closed.eqns) == N
    assert all(e.primitive.name == "sin" for e in closed.eqns)
    for prev, eqn in zip(closed.eqns, closed.eqns[1:]):
        assert eqn.invars == prev.outvars
    lines = str(closed).splitlines()
    assert len(lines) == N + 2 and lines[-1].startswith("  in (")


# ---------------------------------------------------------------- threads
def worker_results(iterations):
    """Two jobs with different transformations, checked against closed forms."""
    rng = np.random.default_rng(0)
    xs = rng.uniform(-1, 1, (iterations, 3))

    def grads():  # concrete reverse mode
        for x in xs:
            g = fad.grad(lambda v: fnp.sum(fnp.sin(v) * v))(x)
            yield np.allclose(g, np.sin(x) + x * np.cos(x), rtol=1e-12)

    def hessians():  # forward over reverse, plus abstract tracing (make_jaxpr)
        for x in xs:
            h = fad.hessian(lambda v: fnp.sum(fnp.exp(v) ** 2))(x)
            names = [e.primitive.name for e in fad.make_jaxpr(fnp.cos)(x).eqns]
            yield np.allclose(h, np.diag(4 * np.exp(2 * x)), rtol=1e-12) and names == ["cos"]

    return grads, hessians


@pytest.mark.slow
def test_two_threads_differentiate_at_once():
    iterations = 300
    jobs = worker_results(iterations)
    barrier = threading.Barrier(len(jobs))
    results = [[] for _ in jobs]
    errors = []

    def run(job, out):
        try:
            for ok in job():
                barrier.wait(timeout=60)  # keep the threads in lock step
                out.append(ok)
        except Exception as e:  # reported below, with the thread's job
            errors.append((job.__name__, repr(e)))
            barrier.abort()

    run_in_threads(run, zip(jobs, results))
    assert not errors
    assert [len(r) for r in results] == [iterations] * len(jobs)
    assert all(all(r) for r in results)


def test_trace_state_is_per_thread():
    """A thread started inside a transformation does not see its trace (contextvars)."""
    seen = []

    def f(x):
        t = threading.Thread(target=lambda: seen.append(fnp.sin(np.float64(1.0))))
        t.start()
        t.join()
        return x * 2.0

    closed = fad.make_jaxpr(f)(1.0)
    assert [e.primitive.name for e in closed.eqns] == ["mul"]  # the thread's sin: not staged
    assert float(fad.grad(f)(1.0)) == 2.0
    assert all(type(v) in (np.ndarray, np.float64) for v in seen)
    np.testing.assert_allclose(seen, np.sin(1.0))


# ---------------------------------------------------------------- memory
@pytest.mark.slow
def test_repeated_grad_does_not_grow_memory():
    x = np.linspace(-1, 1, 4)
    g = fad.grad(lambda v: fnp.sum(fnp.sin(v) * v))  # small: tracemalloc slows each call

    def measure(calls):
        for _ in range(calls):
            g(x)
        gc.collect()
        return tracemalloc.get_traced_memory()[0]

    tracemalloc.start()
    try:
        measure(2000)  # warm-up: caches, free lists, interned objects
        before = measure(0)
        after = measure(10_000)
    finally:
        tracemalloc.stop()
    assert after - before < 32 * 1024, f"grew by {after - before} bytes over 10,000 calls"


def _rosenbrock_hvp(x, v):
    f = lambda x: fnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
    return fad.jvp(fad.grad(f), (x,), (v,))[1]


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's malloc only")
def test_import_keeps_freed_memory_for_the_next_call():
    """fad.backends.malloc: repeated un-jitted calls reuse the heap they freed
    instead of page-faulting it back in (about 200 faults per call before)."""
    import os
    import resource

    from fad.backends import malloc
    if os.environ.get("FAD_TUNE_MALLOC") == "0" or not malloc._done or not malloc._done[0]:
        pytest.skip("malloc tuning is off or not glibc")
    x, v = np.linspace(-1, 1, 10_000), np.ones(10_000)
    for _ in range(100):  # the heap grows to its working size
        _rosenbrock_hvp(x, v)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(100):
        _rosenbrock_hvp(x, v)
    faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 100
    assert faults < 20, f"{faults} page faults per call"


def test_tune_malloc_respects_the_users_settings(monkeypatch):
    from fad.backends.malloc import tune_malloc
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "1000000")
    assert tune_malloc() is False


@pytest.mark.parametrize("transform", ["grad", "jvp", "vjp", "jvp_of_grad", "vmap_of_grad",
                                       "hessian", "jit", "linearize"])
def test_a_call_leaves_no_reference_cycles(transform):
    """Every intermediate is freed by reference counting when a call returns (not
    later by the cycle collector): memory is reused at once, call after call."""
    f = lambda x: fnp.sum(fnp.sin(x) * x)
    x, v = np.linspace(-1, 1, 5), np.ones(5)
    call = {
        "grad": lambda: fad.grad(f)(x),
        "jvp": lambda: fad.jvp(f, (x,), (v,)),
        "vjp": lambda: fad.vjp(f, x)[1](1.0),
        "jvp_of_grad": lambda: fad.jvp(fad.grad(f), (x,), (v,)),
        "vmap_of_grad": lambda: fad.vmap(fad.grad(f))(np.stack([x, v])),
        "hessian": lambda: fad.hessian(f)(x),
        "jit": lambda: fad.jit(fad.grad(f))(x),
        "linearize": lambda: fad.linearize(f, x)[1](v),
    }[transform]
    call()
    gc.collect()
    gc.disable()
    try:
        call()
        assert gc.collect() == 0
    finally:
        gc.enable()
