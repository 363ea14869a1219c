"""Logistic-regression gradient over row-chunked data on a two-worker Dask
cluster (``dask_logistic``)."""

from __future__ import annotations

import atexit
import os
from typing import Any, Callable

import numpy as np
from harness import Contender, Problem, case, fad_contender, guarded, missing, ratio_bar

import fad
import fad.numpy as fnp

try:
    import dask
    import dask.array as da
    import distributed
except ImportError:  # pragma: no cover - optional backend
    dask = da = distributed = None

SIZES = {"full": (2_000_000, 32, 8), "quick": (200_000, 32, 8), "tiny": (400, 4, 4)}
_CLIENTS: dict[bool, Any] = {}
_DATA: dict[tuple, tuple[Any, Any, Any]] = {}


def logistic_loss(w: Any, X: Any, y: Any) -> Any:
    """Mean logistic loss, ``softplus(X w) - y (X w)``."""
    z = X @ w
    return fnp.mean(fnp.logaddexp(0.0, z) - y * z)


def logistic_grad_numpy(w: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Hand-written gradient: ``X^T (sigmoid(X w) - y) / n``."""
    z = X @ w
    return X.T @ (0.5 * (1.0 + np.tanh(0.5 * z)) - y) / len(y)


def chunk(seed: int, index: int, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows of chunk ``index``: features and 0/1 labels, from a generator seeded
    by ``(seed, index)`` (the same values wherever it runs)."""
    rng = np.random.default_rng([seed, index])
    X = rng.standard_normal((rows, cols))
    y = (rng.random(rows) < 1.0 / (1.0 + np.exp(-X @ np.linspace(-1.0, 1.0, cols))))
    return X, y.astype(np.float64)


def _bounds(rows: int, chunks: int) -> list[int]:
    return [rows * i // chunks for i in range(chunks + 1)]


def host_data(rows: int, cols: int, chunks: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The whole data set in this process (for the NumPy contenders)."""
    b = _bounds(rows, chunks)
    parts = [chunk(seed, i, b[i + 1] - b[i], cols) for i in range(chunks)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def client(processes: bool) -> Any:
    """A client of a local cluster of two single-threaded workers, started once
    per process and closed at exit (worker processes, or threads of this one)."""
    if processes not in _CLIENTS:
        saved = dict(os.environ)  # the nanny sets allocator variables in this process
        where = {"host": "127.0.0.1"} if processes else {}  # threads talk in-process
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                           processes=processes, dashboard_address=None,
                                           **where)
        os.environ.clear()
        os.environ.update(saved)
        _CLIENTS[processes] = c = distributed.Client(cluster)
        atexit.register(cluster.close)
        atexit.register(c.close)
    return _CLIENTS[processes]


def cluster_data(rows: int, cols: int, chunks: int, processes: bool) -> tuple[Any, Any, Any]:
    """(client, X, y): the data generated chunk by chunk on the workers and kept
    there (once per size and process)."""
    key = (rows, cols, chunks, processes)
    if key not in _DATA:
        cl = client(processes)
        b = _bounds(rows, chunks)
        parts = [dask.delayed(chunk, nout=2)(0, i, b[i + 1] - b[i], cols)
                 for i in range(chunks)]
        X = da.concatenate([da.from_delayed(p[0], (b[i + 1] - b[i], cols), np.float64)
                            for i, p in enumerate(parts)])
        y = da.concatenate([da.from_delayed(p[1], (b[i + 1] - b[i],), np.float64)
                            for i, p in enumerate(parts)])
        X, y = cl.persist([X, y])
        distributed.wait([X, y])
        _DATA[key] = cl, X, y
    return _DATA[key]


def dask_contender(w: np.ndarray, rows: int, cols: int, chunks: int,
                   processes: bool = True) -> Callable[[], Any]:
    """A call builds ``fad.jit(fad.grad(loss))``'s lazy gradient over the data
    on the workers and has the cluster compute it."""
    cl, X, y = cluster_data(rows, cols, chunks, processes)
    grad = fad.jit(fad.grad(logistic_loss))
    return lambda: cl.compute(grad(w, X, y), sync=True)


def dask_numpy_contender(w: np.ndarray, rows: int, cols: int, chunks: int,
                         processes: bool = True) -> Callable[[], Any]:
    """The hand-written gradient's expression on the same Dask arrays, computed
    by the cluster (Dask's own cost, for comparison)."""
    cl, X, y = cluster_data(rows, cols, chunks, processes)
    return lambda: cl.compute(logistic_grad_numpy(w, X, y), sync=True)


def _sync(build: Callable, w: np.ndarray, rows: int, cols: int,
          chunks: int) -> Callable[[], Any]:
    """The gradient on Dask arrays made from host data, computed by Dask's
    synchronous scheduler in this process (no cluster, no threads)."""
    X, y = host_data(rows, cols, chunks)
    Xd, yd = da.from_array(X, chunks=(-(-rows // chunks), cols)), da.from_array(
        y, chunks=-(-rows // chunks))
    f = fad.jit(fad.grad(logistic_loss)) if build is dask_contender else logistic_grad_numpy
    return lambda: dask.compute(f(w, Xd, yd), scheduler="sync")[0]


@case("dask_logistic", bars=lambda res: [ratio_bar(res, "fad dask", 3.0)])
def dask_logistic_case(size: str) -> list[Problem]:
    """Gradient of the mean logistic loss over 2,000,000 x 32 float64 rows in 8
    row chunks: the hand-written NumPy gradient and ``fad.grad`` on NumPy, in
    one process, against ``fad.jit(fad.grad(loss))`` on the same data generated
    and kept on a local two-worker ``distributed`` cluster (one thread each,
    started once), the gradient computed through the client; for comparison, the
hand-written gradient's expression on the same Dask arrays (``numpy dask``)."""
    rows, cols, chunks = SIZES[size]
    X, y = host_data(rows, cols, chunks)
    w = np.linspace(0.5, -0.5, cols)
    on_dask = []
    for name, build in [("fad dask", dask_contender), ("numpy dask", dask_numpy_contender)]:
        if distributed is None:
            on_dask.append(Contender(name, None, tracemalloc=False,
                                     skip=missing(None, "dask[distributed]")))
        elif size == "tiny":  # the smoke test: Dask's synchronous scheduler, no cluster
            on_dask.append(Contender(name, _sync(build, w, rows, cols, chunks),
                                     tracemalloc=False))
        else:
            on_dask.append(guarded(name, lambda b=build: b(w, rows, cols, chunks),
                                   tracemalloc=False))
    contenders = [Contender("numpy", lambda: logistic_grad_numpy(w, X, y)),
                  fad_contender("fad", fad.grad(logistic_loss), w, X, y), *on_dask]
    return [Problem(f"{rows:,} x {cols} float64, {chunks} chunks", contenders, rtol=1e-10)]
