"""``autograd.Function`` with a ``vmap`` staticmethod under ``torch.func``, against
PyTorch (skipped without it), on the "Extending torch.func with autograd.Function"
tutorial's NumPy-backed sort: ``vmap`` (either batch dimension), ``grad``, ``vmap``
of ``grad`` and ``grad`` of ``vmap`` (the rule batches the forward; the backward,
itself a Function with a rule, is batched too), the batch size and ``in_dims`` a
rule sees, and the ``generate_vmap_rule`` alternative."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")

import fad.torch as ftorch  # noqa: E402


def sort_functions(t: Any) -> Any:
    seen: list = []

    class NumpyTake(t.autograd.Function):
        @staticmethod
        def forward(x, ind, ind_inv, dim):
            return t.tensor(np.take_along_axis(x.numpy(), ind.numpy(), dim))

        @staticmethod
        def setup_context(ctx, inputs, output):
            _, ind, ind_inv, dim = inputs
            ctx.save_for_backward(ind, ind_inv)
            ctx.dim = dim

        @staticmethod
        def backward(ctx, grad_output):
            ind, ind_inv = ctx.saved_tensors
            return NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim), None, None, None

        @staticmethod
        def vmap(info, in_dims, x, ind, ind_inv, dim):
            x_bdim, ind_bdim, ind_inv_bdim, _ = in_dims
            logical_dim = x.dim() if x_bdim is None else x_bdim - 1
            dim = dim if dim >= 0 else dim + logical_dim

            def front(v, d):
                return v.expand(info.batch_size, *v.shape) if d is None else v.movedim(d, 0)
            x, ind, ind_inv = front(x, x_bdim), front(ind, ind_bdim), front(ind_inv, ind_inv_bdim)
            return NumpyTake.apply(x, ind, ind_inv, dim + 1), 0

    class NumpySort(t.autograd.Function):
        @staticmethod
        def forward(x, dim):
            a = x.numpy()
            ind = np.argsort(a, axis=dim)
            return (t.tensor(np.take_along_axis(a, ind, axis=dim)), t.tensor(ind),
                    t.tensor(np.argsort(ind, axis=dim)))

        @staticmethod
        def setup_context(ctx, inputs, output):
            _, dim = inputs
            _, ind, ind_inv = output
            ctx.mark_non_differentiable(ind, ind_inv)
            ctx.save_for_backward(ind, ind_inv)
            ctx.dim = dim

        @staticmethod
        def backward(ctx, grad_output, _0, _1):
            ind, ind_inv = ctx.saved_tensors
            return NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim), None

        @staticmethod
        def vmap(info, in_dims, x, dim):
            seen.append((info.batch_size, in_dims))
            x = x.movedim(in_dims[0], 0)
            dim = dim if dim >= 0 else dim + x.dim() - 1
            return NumpySort.apply(x, dim + 1), (0, 0, 0)

    def numpy_sort(x: Any, dim: int = -1) -> Any:
        return NumpySort.apply(x, dim)[0]
    return numpy_sort, seen


X = np.array([[3.0, -1.0, 2.0, 0.5], [0.0, 4.0, -2.0, 1.0], [5.0, 5.5, -3.0, 2.0]])
W = np.arange(12.0).reshape(3, 4) / 10


@pytest.mark.parametrize("case", ["vmap", "vmap_dim1", "grad", "vmap_of_grad", "grad_of_vmap",
                                  "nested_vmap"])
def test_numpy_sort_under_transformations(case: str):
    def run(t: Any) -> tuple:
        sort, seen = sort_functions(t)
        x, w = t.tensor(X), t.tensor(W)
        F = t.func
        if case == "vmap":
            out = t.vmap(sort)(x)
        elif case == "vmap_dim1":
            out = t.vmap(sort, in_dims=1)(x)
        elif case == "grad":
            out = F.grad(lambda x: (sort(x) * w).sum())(x)
        elif case == "vmap_of_grad":
            out = t.vmap(F.grad(lambda x, w: (sort(x) * w).sum()))(x, w)
        elif case == "grad_of_vmap":
            out = F.grad(lambda x: (t.vmap(sort)(x) * w).sum())(x)
        else:
            out = t.vmap(t.vmap(sort))(x.reshape(3, 2, 2))
        return out.tolist(), seen
    assert run(ftorch) == run(real_torch)


def test_generate_vmap_rule_and_vmap_info():
    def run(t: Any) -> tuple:
        class Cube(t.autograd.Function):
            generate_vmap_rule = True

            @staticmethod
            def forward(x):
                return x ** 3, 3 * x ** 2

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(inputs[0], output[1])

            @staticmethod
            def backward(ctx, g, g_dx):
                x, dx = ctx.saved_tensors
                return g * dx + g_dx * 6 * x
        x = t.tensor([0.5, -1.0, 2.0])
        return (t.vmap(lambda v: Cube.apply(v)[0])(x).tolist(),
                t.func.grad(t.func.grad(lambda v: Cube.apply(v)[0]))(t.tensor(0.7)).item())
    got, want = run(ftorch), run(real_torch)
    assert got[0] == want[0]
    assert abs(got[1] - want[1]) < 1e-6
