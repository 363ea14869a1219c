"""Comparing facade tensors with PyTorch's in the layer tests: the dtypes tested,
their tolerances, ``close`` (same dtype, values within the tolerance) and
``outcome`` (what a call gives, to compare whole)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

DTYPES = pytest.mark.parametrize("dtype", ["float32", "float64"])
TOL = {"float32": 1e-5, "float64": 1e-12}


def close(a: Any, b: Any, dtype: str, tol: float | None = None) -> None:
    """``a`` (the facade's) equals ``b`` (PyTorch's): the same NumPy dtype, values within
    ``tol`` (by default the dtype's tolerance), relative and absolute."""
    tol = TOL[dtype] if tol is None else tol
    a = np.asarray(a.detach().numpy()) if hasattr(a, "detach") else np.asarray(a)
    b = np.asarray(b.detach().numpy()) if hasattr(b, "detach") else np.asarray(b)
    assert a.dtype == b.dtype
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def outcome(fn: Any, lib: Any) -> Any:
    """What ``fn(lib)`` gives, comparable across libraries with ``==``: for each
    result, a tensor's dtype, values (floats rounded to 4 places and written out, so
    that NaN equals NaN) and shape, anything else as it is; or the exception's type
    and message."""
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001  (the exception is the result compared)
        return type(e).__name__, str(e)
    return [_summary(x) for x in (r if isinstance(r, tuple) else (r,))]


def _summary(x: Any) -> Any:
    if not hasattr(x, "dtype"):
        return x
    values = np.asarray(x.tolist())
    if values.dtype.kind in "fc":
        values = values.round(4)
    return str(x.dtype), [repr(v) for v in values.ravel().tolist()], tuple(x.shape)


def runs_alike(run: Any, facade: Any, torch: Any, check: Any = None) -> None:
    """``run(facade)`` and ``run(torch)`` return lists of the same length whose items
    agree: equal, or as ``check(got, want)`` asserts."""
    got, want = run(facade), run(torch)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if check is None:
            assert g == w
        else:
            check(g, w)


def raises_alike(call: Any, libraries: tuple) -> None:
    """``call(lib)`` raises in each library of ``libraries`` (PyTorch first, then the
    facade) the same exception type with the same first line of message."""
    got = []
    for lib in libraries:
        with pytest.raises(Exception) as e:
            call(lib)
        got.append((type(e.value).__name__, str(e.value).split("\n")[0]))
    assert got[1] == got[0]


def step_schedule(opt: Any, sched: Any, steps: int = 30) -> tuple:
    """Step ``opt`` then ``sched`` ``steps`` times: the learning rates (the first
    before any step) and each group's momentum (``momentum``, or Adam's first beta)."""
    lrs, moms = [sched.get_last_lr()], []
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
        moms.append([g["momentum"] if "momentum" in g else g["betas"][0]
                     for g in opt.param_groups])
    return np.array(lrs), np.array(moms)
