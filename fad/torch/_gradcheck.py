"""``torch.autograd.gradcheck`` and ``gradgradcheck``: a function's gradients, as
the facade's autograd computes them, against central finite differences, one
Jacobian per (output, input) pair, with PyTorch's message on a mismatch."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from ._creation import randn_like
from .tensor import Tensor, wrap


class GradcheckError(RuntimeError):
    """A gradient that does not match its finite differences."""


def _as_tuple(x: Any) -> tuple:
    return x if isinstance(x, tuple) else (x,)


def _differentiable(outputs: tuple) -> list:
    return [(k, o) for k, o in enumerate(outputs)
            if isinstance(o, Tensor) and (o.is_floating_point() or o.is_complex())]


def gradcheck(func: Callable, inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Whether the gradients of ``func(*inputs)`` with respect to the inputs that
    require grad match central differences of step ``eps`` within ``atol + rtol *
    |numerical|`` (raising ``GradcheckError`` otherwise, unless ``raise_exception``
    is false). Use float64 inputs: float32 differences are too coarse.

    >>> import fad.torch as torch
    >>> x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradcheck(lambda x: x.sin() * x, (x,))
    True
    """
    tupled = _as_tuple(inputs)
    diff = [i for i, t in enumerate(tupled) if isinstance(t, Tensor) and t.requires_grad]
    for i in diff:
        if tupled[i].dtype.name not in ("float64", "complex128"):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision "
                          "floating point or complex. This check will likely fail if all the "
                          "inputs are not of double precision floating point or complex. ",
                          UserWarning, stacklevel=2)
    outputs = _differentiable(_as_tuple(func(*tupled)))
    for k, out in outputs:
        for i in diff:
            numerical = _numerical(func, tupled, i, k, eps)
            analytical = _analytical(out, tupled[i])
            if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                dt = tupled[i].dtype
                raise GradcheckError(
                    f"Jacobian mismatch for output {k} with respect to input {i},\n"
                    f"numerical:{wrap(numerical.astype(dt.np))}\n"
                    f"analytical:{wrap(analytical.astype(dt.np))}\n")
    return True


def _numerical(func: Callable, inputs: tuple, i: int, k: int, eps: float) -> np.ndarray:
    """``d output_k / d input_i`` by central differences: one row per element of the
    input, one column per element of the output."""
    base = np.array(inputs[i].detach().numpy(), dtype=np.float64)
    rows = []
    for j in range(base.size):
        sides = []
        for step in (eps, -eps):
            moved = base.copy().reshape(-1)
            moved[j] += step
            # (still requiring grad: the function may differentiate, as gradgradcheck's)
            x = wrap(moved.reshape(base.shape).astype(inputs[i].dtype.np), True)
            out = _as_tuple(func(*inputs[:i], x, *inputs[i + 1:]))[k]
            sides.append(np.asarray(out.detach().numpy(), dtype=np.float64).reshape(-1))
        rows.append((sides[0] - sides[1]) / (2 * eps))
    n_out = _as_tuple(func(*inputs))[k].numel() if not rows else rows[0].size
    return np.array(rows).reshape(base.size, n_out)


def _analytical(out: Tensor, x: Tensor) -> np.ndarray:
    """``d out / d x`` by the facade's backward pass, one output element at a time."""
    from .autograd import grad
    columns = []
    flat = out.reshape(-1)
    for m in range(flat.numel()):
        (g,) = grad(flat[m], x, retain_graph=True, allow_unused=True)
        columns.append(np.zeros(x.numel()) if g is None else
                       np.asarray(g.detach().numpy(), dtype=np.float64).reshape(-1))
    return np.array(columns).T.reshape(x.numel(), flat.numel())


def gradgradcheck(func: Callable, inputs: Any, grad_outputs: Any = None, *,
                  eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False,
                  check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True,
                  fast_mode: bool = False, masked: bool = False) -> bool:
    """``gradcheck`` of the gradients of ``func`` (``create_graph=True``) in the
    inputs and in ``grad_outputs`` (random normal when not given): second
    derivatives against finite differences of the first.

    >>> import fad.torch as torch
    >>> x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradgradcheck(lambda x: x.sin() * x, (x,))
    True
    """
    from .autograd import grad
    tupled = _as_tuple(inputs)
    outputs = [o for _, o in _differentiable(_as_tuple(func(*tupled)))]
    if grad_outputs is None:
        grad_outputs = tuple(randn_like(o).requires_grad_() for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n = len(tupled)

    def first_derivatives(*args: Any) -> tuple:
        xs, gos = args[:n], args[n:]
        outs = [o for _, o in _differentiable(_as_tuple(func(*xs)))]
        wanted = [x for x in xs if isinstance(x, Tensor) and x.requires_grad]
        got = grad(outs, wanted, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in got if g is not None)
    return gradcheck(first_derivatives, tupled + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)


gradcheck.GradcheckError = GradcheckError  # type: ignore[attr-defined]
