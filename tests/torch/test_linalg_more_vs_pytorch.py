"""More of ``torch.linalg`` against PyTorch (skipped without it): triangular solves,
LU factorisation and solves, the ``_ex`` forms, ``cond``, ``diagonal``, ``vander``,
``tensorinv``/``tensorsolve``: values, result types and dtypes, and gradients."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

A0 = np.array([[2.0, 0.5, 0.0], [1.0, 3.0, 0.2], [0.3, -1.0, 1.5]])
B0 = np.array([[1.0, 0.0], [2.0, 1.0], [-1.0, 3.0]])


def cases(t: Any) -> dict[str, Callable[[], Any]]:
    L = t.linalg
    A = lambda: t.tensor(A0, requires_grad=True)
    B = lambda: t.tensor(B0)
    return {
        "st_lower": lambda: L.solve_triangular(A().tril(), B(), upper=False),
        "st_upper": lambda: L.solve_triangular(A().triu(), B(), upper=True),
        "st_right": lambda: L.solve_triangular(A().tril(), B().mT, upper=False, left=False),
        "st_unit": lambda: L.solve_triangular(A().triu(), B(), upper=True, unitriangular=True),
        "st_batch": lambda: L.solve_triangular(
            t.stack([A().tril(), A().tril() * 2]), B(), upper=False
        ),
        "lu_factor": lambda: L.lu_factor(A()),
        "lu_solve": lambda: L.lu_solve(*L.lu_factor(A()), B()),
        "lu_solve_adj": lambda: L.lu_solve(*L.lu_factor(A()), B(), adjoint=True),
        "lu_solve_right": lambda: L.lu_solve(*L.lu_factor(A()), B().mT, left=False),
        "lu": lambda: L.lu(A()),
        "chol_ex": lambda: L.cholesky_ex(t.tensor(A0 @ A0.T)),
        "chol_ex_bad": lambda: L.cholesky_ex(t.tensor(-np.eye(2))).info,
        "inv_ex": lambda: L.inv_ex(A()),
        "solve_ex": lambda: L.solve_ex(A(), B()),
        "cond": lambda: L.cond(A()),
        "cond_fro": lambda: L.cond(A(), "fro"),
        "cond_1": lambda: L.cond(A(), 1),
        "diagonal": lambda: L.diagonal(t.arange(18.0).reshape(2, 3, 3), offset=1),
        "vander": lambda: L.vander(t.tensor([[1.0, 2.0, 0.0], [3.0, -1.0, 2.0]])),
        "vander_n": lambda: L.vander(t.tensor([1.0, 2.0]), N=4),
        "matmul": lambda: L.matmul(A(), B()),
        "tensorinv": lambda: L.tensorinv(
            t.tensor(np.linalg.inv(A0 @ A0.T + np.eye(3)).reshape(3, 3)), ind=1
        ),
        "tensorsolve": lambda: L.tensorsolve(
            t.tensor(np.eye(6).reshape(2, 3, 6) * 2), t.ones(2, 3, dtype=t.float64)
        ),
    }


def run(f: Callable[[], Any]) -> tuple:
    out = f()
    outs = out if isinstance(out, tuple) else (out,)
    vals = [np.asarray(o.detach().numpy(), dtype=float) for o in outs]
    return vals, type(out).__name__, [str(o.dtype) for o in outs]


def grads(t: Any, name: str) -> np.ndarray:
    A = t.tensor(A0, requires_grad=True)
    if name == "st":
        y = (
            t.linalg.solve_triangular(A.tril(), t.tensor(B0), upper=False, left=True).sum()
            + t.linalg.solve_triangular(A.triu(), t.tensor(B0).mT, upper=True, left=False)
            .pow(2)
            .sum()
        )
    if name == "lu":
        y = (
            t.linalg.lu_solve(*t.linalg.lu_factor(A), t.tensor(B0)).pow(2).sum()
            + t.linalg.lu(A).U.sum() * 2
            + t.linalg.lu(A).L.sum()
        )
    if name == "misc":
        y = (
            t.linalg.cond(A)
            + t.linalg.vander(A[0]).sum()
            + t.linalg.inv_ex(A).inverse.sum()
            + t.linalg.solve_ex(A, t.tensor(B0)).result.sum()
        )
    y.backward()
    return A.grad.numpy()


@pytest.mark.parametrize("name", sorted(cases(ftorch)))
def test_as_pytorch(name):
    (vals, kind, dtypes), (want, want_kind, want_dtypes) = (
        run(cases(ftorch)[name]),
        run(cases(real_torch)[name]),
    )
    assert (kind, dtypes) == (want_kind, want_dtypes) and len(vals) == len(want)
    for v, w in zip(vals, want):
        assert v.shape == w.shape
        np.testing.assert_allclose(v, w, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", ["st", "lu", "misc"])
def test_gradients_as_pytorch(name):
    np.testing.assert_allclose(grads(ftorch, name), grads(real_torch, name), rtol=1e-9, atol=1e-9)
