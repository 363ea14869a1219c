"""``torch.tensordot kron cdist polar meshgrid diff histc bucketize is_nonzero`` and
``torch.autograd.functional.jvp/vjp/hvp/vhp`` against PyTorch: values, dtypes,
``grad_fn`` names, the gradients of the inputs and the error messages (skipped
without torch)."""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

A = np.arange(6.0).reshape(2, 3) / 3
B = np.cos(np.arange(12.0)).reshape(3, 4)


def _arr(x: Any) -> np.ndarray:
    return np.asarray(x.detach().numpy() if hasattr(x, "detach") else x)


def _run(fn: Callable, lib: Any, arrays: list) -> tuple:
    xs = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    out = fn(lib, *xs)
    outs = out if isinstance(out, tuple) else (out,)
    loss = sum((o.abs() ** 2).sum() for o in outs if o.requires_grad)
    if not isinstance(loss, int):
        loss.backward()
    return outs, [x.grad for x in xs]


CASES = {
    "tensordot_1": (lambda t, a, b: t.tensordot(a, b, dims=1), [A, B]),
    "tensordot_lists": (lambda t, a, b: t.tensordot(a, b, dims=([1], [0])), [A, B]),
    "tensordot_2": (lambda t, a: t.tensordot(a, a, dims=2), [A]),
    "kron": (lambda t, a, b: t.kron(a, b), [A, B]),
    "cdist_2": (lambda t, a, b: t.cdist(a, b), [A, B[:, :3]]),
    "cdist_1": (lambda t, a, b: t.cdist(a, b, p=1), [A, B[:, :3]]),
    "cdist_3_batched": (lambda t, a, b: t.cdist(a, b, p=3), [A[None], B[None, :, :3]]),
    "cdist_zero_distance": (lambda t, a: t.cdist(a, a), [A]),
    "polar": (lambda t, r, th: t.polar(r, th), [A, B[:2, :3]]),
    "meshgrid_xy": (lambda t, a, b: t.meshgrid(a, b, indexing="xy"), [A[0], B[0]]),
    "meshgrid_ij_3": (lambda t, a, b: t.meshgrid([a, b, a[0]], indexing="ij"), [A[1], B[1]]),
    "diff": (lambda t, b: t.diff(b, dim=0), [B]),
    "diff_n_pend": (lambda t, b: t.diff(b, n=2, prepend=t.zeros(3, 1, dtype=t.float64),
                                        append=t.ones(3, 2, dtype=t.float64)), [B]),
    "diff_bool": (lambda t: t.diff(t.tensor([True, False, False, True])), []),
    "diff_ints_past_length": (lambda t: t.diff(t.tensor([1, 5, 2]), n=5), []),
    "histc": (lambda t: t.histc(t.tensor([1.0, 2.0, 2.5, 7.0]), bins=3), []),
    "histc_one_value": (lambda t: t.histc(t.tensor([1.0, 1.0]), bins=2), []),
    "histc_range": (lambda t: t.histc(t.tensor([0.0, 1.0, 5.0, -1.0]), bins=2, min=0, max=1),
                    []),
    "bucketize": (lambda t: t.bucketize(t.tensor([[0.5, 1.0, 2.5]]), t.tensor([1.0, 2.0])), []),
    "bucketize_right_int32": (lambda t: t.bucketize(t.tensor([0.5, 1.0, 2.0]),
                                                    t.tensor([1.0, 2.0]), right=True,
                                                    out_int32=True), []),
}


@pytest.mark.parametrize("name", list(CASES))
def test_values_gradients_and_grad_fn_match_pytorch(name: str) -> None:
    fn, arrays = CASES[name]
    (touts, tgrads), (fouts, fgrads) = _run(fn, real_torch, arrays), _run(fn, ftorch, arrays)
    assert len(touts) == len(fouts)
    for t, f in zip(touts, fouts):
        assert str(f.dtype) == str(t.dtype) and tuple(f.shape) == tuple(t.shape)
        assert type(f.grad_fn).__name__ == type(t.grad_fn).__name__
        np.testing.assert_allclose(_arr(f), _arr(t), rtol=1e-12, atol=1e-12)
    for t, f in zip(tgrads, fgrads):
        assert (t is None) == (f is None)
        if t is not None:
            np.testing.assert_allclose(_arr(f), _arr(t), rtol=1e-10, atol=1e-12)


ERRORS = [
    lambda t: t.cdist(t.ones(3), t.ones(2, 3)),
    lambda t: t.cdist(t.ones(2, 3), t.ones(2, 4)),
    lambda t: t.meshgrid(t.ones(2, 2), indexing="ij"),
    lambda t: t.meshgrid(t.ones(2), indexing="xx"),
    lambda t: t.polar(t.ones(2), t.ones(2, dtype=t.float64)),
    lambda t: t.polar(t.ones(2, dtype=t.int64), t.ones(2, dtype=t.int64)),
    lambda t: t.diff(t.tensor(1.0)),
    lambda t: t.histc(t.tensor([1, 2]), bins=2),
    lambda t: t.bucketize(t.ones(2), t.ones(2, 2)),
    lambda t: t.is_nonzero(t.tensor([1, 2])),
    lambda t: t.is_nonzero(t.tensor([])),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_match_pytorch(k: int) -> None:
    got = []
    for lib in (real_torch, ftorch):
        with pytest.raises(Exception) as e:
            ERRORS[k](lib)
        # (the first line; a tensor in the message prints in PyTorch's C++ style)
        got.append((type(e.value).__name__, str(e.value).split("\n")[0].split(" got: ")[0]))
    assert got[1] == got[0]


def test_python_floats_with_a_dtype_are_converted_exactly() -> None:
    """``tensor([0.3], dtype=float64)`` holds the double 0.3 (not 0.3 rounded to
    float32 first), as PyTorch's."""
    data = [[0.3, 0.7], [1e-300, 1 / 3]]
    for d in ("float64", "complex128"):
        got = ftorch.tensor(data, dtype=getattr(ftorch, d)).numpy()
        np.testing.assert_array_equal(got, real_torch.tensor(
            data, dtype=getattr(real_torch, d)).numpy())
    assert ftorch.tensor(0.3, dtype=ftorch.float64).item() == 0.3
    assert ftorch.tensor([0.1], dtype=ftorch.float16).numpy()[0] == np.float16(0.1)


def test_is_nonzero_and_meshgrid_warning() -> None:
    assert ftorch.is_nonzero(ftorch.tensor([2.5])) and not ftorch.is_nonzero(ftorch.tensor(0))
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        ftorch.meshgrid(ftorch.ones(2), ftorch.ones(3))


FUNCTIONAL = {
    "jvp": (lambda t, x: t.autograd.functional.jvp(lambda x: x ** 2 * x.sin(), x, t.cos(x)),),
    "jvp_tuple": (lambda t, x: t.autograd.functional.jvp(
        lambda x, y: (x * y, x + y.exp()), (x, 2 * x), (x.cos(), x.sin())),),
    "jvp_linear": (lambda t, x: t.autograd.functional.jvp(lambda x: 3 * x, x, x),),
    "vjp": (lambda t, x: t.autograd.functional.vjp(lambda x: x ** 3, x, x.cos()),),
    "hvp": (lambda t, x: t.autograd.functional.hvp(lambda x: (x ** 3 * x.sin()).sum(), x,
                                                   x.cos()),),
    "vhp": (lambda t, x: t.autograd.functional.vhp(lambda x: (x.exp() * x).sum(), x, x),),
    "hvp_tuple": (lambda t, x: t.autograd.functional.hvp(
        lambda x, y: (x * y.sin()).sum(), (x, x + 1), (x, x.cos())),),
}


def _flat(r: Any) -> list:
    return [v for item in r for v in (_flat(item) if isinstance(item, tuple) else [item])]


@pytest.mark.parametrize("name", list(FUNCTIONAL))
def test_autograd_functional_matches_pytorch(name: str) -> None:
    (fn,) = FUNCTIONAL[name]
    x = np.linspace(0.2, 1.4, 4)
    want = fn(real_torch, real_torch.tensor(x))
    got = fn(ftorch, ftorch.tensor(x))
    assert type(got) is type(want) and len(_flat(got)) == len(_flat(want))
    for a, b in zip(_flat(got), _flat(want)):
        assert not a.requires_grad
        np.testing.assert_allclose(_arr(a), _arr(b), rtol=1e-12, atol=1e-12)


def test_autograd_functional_create_graph_differentiates_again() -> None:
    for lib in (real_torch, ftorch):
        x = lib.tensor([0.3, 0.7], dtype=lib.float64, requires_grad=True)
        _, hv = lib.autograd.functional.hvp(lambda x: (x ** 4).sum(), x, lib.ones(2,
                                            dtype=lib.float64), create_graph=True)
        assert hv.requires_grad
    np.testing.assert_allclose(_arr(hv), 12 * np.array([0.3, 0.7]) ** 2, rtol=1e-12)
    assert math.isfinite(float(hv.sum()))


def _complex_gradients(lib: Any) -> list:
    """Gradients of complex leaves in several positions of a graph: through fad's
    own rules, a seed, a hook, ``autograd.grad``, mixed real/complex operations and
    double backward."""
    res = []
    z = np.array([1 + 2j, 3 - 1j])
    x = lib.tensor(z, requires_grad=True)
    (x.abs() ** 2).sum().backward()
    res.append(x.grad)
    x = lib.tensor(z, requires_grad=True)
    (x * (2 + 1j)).abs().sum().backward()
    res.append(x.grad)
    x = lib.tensor(z, requires_grad=True)
    (x.real * 2 + x.imag ** 2).sum().backward()
    res.append(x.grad)
    x = lib.tensor(z, requires_grad=True)
    (x * x).backward(lib.tensor([1 + 1j, 2j]))
    res.append(x.grad)
    x = lib.tensor(z, requires_grad=True)
    res.append(lib.autograd.grad(x.exp().abs().sum(), x)[0])
    r = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    th = lib.tensor([0.3, 0.4], dtype=lib.float64, requires_grad=True)
    (lib.polar(r, th) * (1 - 2j)).real.sum().backward()
    res += [r.grad, th.grad]
    x = lib.tensor(z, requires_grad=True)
    seen: list = []
    x.register_hook(lambda g: seen.append(g.clone()))
    (x.conj() * x * (1 + 1j)).real.sum().backward()
    res += [seen[0], x.grad]
    x = lib.tensor(z, requires_grad=True)
    g, = lib.autograd.grad((x.abs() ** 4).sum(), x, create_graph=True)
    (g.abs() ** 2).sum().backward()
    res.append(x.grad)
    return res


def test_complex_gradients_follow_pytorchs_convention() -> None:
    """PyTorch's gradient of a complex leaf is the conjugate of fad's cotangent
    (``dL/dx + i dL/dy``); the facade's backward pass speaks PyTorch's."""
    for want, got in zip(_complex_gradients(real_torch), _complex_gradients(ftorch)):
        np.testing.assert_allclose(_arr(got), _arr(want), rtol=1e-12, atol=1e-12)


def test_custom_function_sees_pytorchs_complex_gradients() -> None:
    seen = {}
    for lib in (real_torch, ftorch):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return 2 * x

            @staticmethod
            def backward(ctx, g):
                seen[lib.__name__] = _arr(g).copy()
                return 2 * g

        x = lib.tensor(np.array([1 + 2j]), requires_grad=True)
        (Twice.apply(x) * (1 + 3j)).real.sum().backward()
        seen[lib.__name__ + ".grad"] = _arr(x.grad)
    np.testing.assert_allclose(seen["fad.torch"], seen["torch"], rtol=1e-12)
    np.testing.assert_allclose(seen["fad.torch.grad"], seen["torch.grad"], rtol=1e-12)
