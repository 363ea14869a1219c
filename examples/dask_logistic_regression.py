"""Logistic regression by gradient descent on data spread over a Dask cluster.

The data ``X`` (rows x cols, float64) and labels ``y`` are generated chunk by
chunk on the workers, so no process ever holds all of it: each local worker's
memory limit is three quarters of the data's size (300 MiB at least, so below
the data's size from 400 MiB of data on, e.g. ``--rows 4000000 --cols 16``).
The workers keep the data when it fits (else each step generates it afresh).
Each step, ``fad.jit(fad.grad(loss))`` builds a lazy gradient over the chunked
data (a Dask graph, no computation); the cluster computes it and sends back
the small gradient; the weights are updated on the host. A progress bar shows
the loss, and the first and last losses are printed.

Run it (a two-worker local cluster is started unless ``--scheduler`` is given)::

    python examples/dask_logistic_regression.py --rows 200000 --cols 16 --chunks 8 --steps 20
    python examples/dask_logistic_regression.py --scheduler tcp://127.0.0.1:8786
"""

from __future__ import annotations

import argparse
import contextlib
from typing import Any, Iterator

import numpy as np

import fad
import fad.numpy as fnp


def loss(w: Any, X: Any, y: Any) -> Any:
    """Mean logistic loss, ``softplus(X w) - y (X w)``.

    >>> import numpy as np
    >>> round(float(loss(np.zeros(2), np.ones((3, 2)), np.ones(3))), 6)
    0.693147
    """
    z = X @ w
    return fnp.mean(fnp.logaddexp(0.0, z) - y * z)


def make_data(rows: int, cols: int, chunks: int, seed: int = 0) -> tuple[Any, Any]:
    """``X`` (standard normal, ``rows x cols``) and labels ``y`` drawn from a
    logistic model with fixed true weights, as Dask arrays in ``chunks`` row
    chunks; nothing is generated until a chunk is computed (on a worker).

    >>> X, y = make_data(100, 3, 4)
    >>> X.shape, X.numblocks, y.shape
    ((100, 3), (4, 1), (100,))
    """
    import dask.array as da

    rows_per_chunk = -(-rows // chunks)
    rs = da.random.RandomState(seed)
    X = rs.standard_normal((rows, cols), chunks=(rows_per_chunk, cols))
    w_true = np.linspace(-1.0, 1.0, cols)
    p = 1.0 / (1.0 + da.exp(-(X @ w_true)))
    y = (rs.random_sample(rows, chunks=rows_per_chunk) < p).astype(np.float64)
    return X, y


@contextlib.contextmanager
def connect(scheduler: str | None, memory_limit: int) -> Iterator[Any]:
    """A ``distributed.Client``: to ``scheduler`` if given, else to a new local
    cluster of two single-threaded worker processes with ``memory_limit`` bytes
    each."""
    import distributed

    if scheduler:
        with distributed.Client(scheduler) as client:
            yield client
        return
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                  memory_limit=memory_limit,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        yield client


def train(client: Any, X: Any, y: Any, steps: int, lr: float, progress: bool = True,
          persist: bool = True) -> tuple[np.ndarray, list[float]]:
    """``steps`` of gradient descent from zero weights; the gradient and loss of
    each step are computed by ``client``'s cluster. With ``persist`` the data
    is generated once and kept on the workers, else each step generates its
    chunks afresh (the same values: the generator is seeded per chunk), one at
    a time. Returns the weights and the loss before each step and after the last."""
    from tqdm import tqdm

    if persist:
        X, y = client.persist([X, y])
    grad = fad.jit(fad.grad(loss))
    w = np.zeros(X.shape[1])
    losses = []
    bar = tqdm(range(steps), disable=not progress, desc="training")
    for _ in bar:
        g, value = client.compute([grad(w, X, y), loss(w, X, y)], sync=True)
        losses.append(float(value))
        bar.set_postfix(loss=f"{losses[-1]:.5f}")
        w = w - lr * np.asarray(g)
    losses.append(float(client.compute(loss(w, X, y), sync=True)))
    return w, losses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--cols", type=int, default=16)
    parser.add_argument("--chunks", type=int, default=8)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--lr", type=float, default=1.0)
    parser.add_argument("--scheduler", default=None,
                        help="address of a running scheduler, e.g. tcp://host:8786")
    parser.add_argument("--memory-limit", type=int, default=None,
                        help="bytes per local worker (default: 3/4 of the data, 300 MiB at least)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)

    data_bytes = args.rows * (args.cols + 1) * 8
    # each worker may hold three quarters of the data at most (below the whole
    # data set), with a floor that keeps a worker's own interpreter running
    memory_limit = args.memory_limit or max(data_bytes * 3 // 4, 300 * 2**20)
    X, y = make_data(args.rows, args.cols, args.chunks)
    with connect(args.scheduler, memory_limit) as client:
        # the workers keep the data when their half of it fits in half their memory
        persist = bool(args.scheduler) or data_bytes <= memory_limit
        w, losses = train(client, X, y, args.steps, args.lr, not args.no_progress, persist)
    print(f"data: {args.rows} x {args.cols} float64 ({data_bytes / 2**20:.1f} MiB) "
          f"in {args.chunks} chunks, {'kept on' if persist else 'generated each step by'} "
          f"the workers")
    print(f"loss: {losses[0]:.6f} -> {losses[-1]:.6f} after {args.steps} steps")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
