"""DLPack between the facade, NumPy and real PyTorch: tensors are exchanged
without copies (writes through one are seen by the other, data pointers match),
and a tensor that requires grad refuses to export as PyTorch's does."""

import numpy as np
import pytest

import fad
import fad.torch as torch

pytorch = pytest.importorskip("torch")


def _ptr(a):
    return a.ctypes.data if isinstance(a, np.ndarray) else a.data_ptr()


def test_numpy_reads_a_tensor_without_copy():
    t = torch.zeros(3)
    a = np.from_dlpack(t)
    assert _ptr(a) == t.data_ptr()
    a[0] = 1.0
    t.add_(1.0)  # an in-place facade write is seen by NumPy
    assert t.tolist() == [2.0, 1.0, 1.0] and a.tolist() == [2.0, 1.0, 1.0]


def test_pytorch_reads_a_tensor_without_copy():
    t = torch.arange(6.0).reshape(2, 3)
    r = pytorch.from_dlpack(t)
    assert r.data_ptr() == t.data_ptr() and r.shape == (2, 3)
    r[0, 0] = -5.0
    assert t[0, 0].item() == -5.0
    t.mul_(2.0)
    assert r[1, 2].item() == 10.0


def test_the_facade_reads_pytorch_without_copy():
    r = pytorch.arange(4, dtype=pytorch.float64)
    t = torch.from_dlpack(r)
    assert t.data_ptr() == r.data_ptr() and t.dtype is torch.float64
    t += 1.0
    assert r.tolist() == [1.0, 2.0, 3.0, 4.0]
    r[0] = 100.0
    assert t[0].item() == 100.0


def test_the_facade_reads_numpy_without_copy():
    a = np.zeros(2, dtype=np.float32)
    t = torch.utils.dlpack.from_dlpack(a)
    t[1] = 3.0
    assert a.tolist() == [0.0, 3.0]


def test_capsules_both_ways():
    t = torch.ones(3)
    r = pytorch.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(t))
    assert r.data_ptr() == t.data_ptr()
    r2 = pytorch.zeros(3)
    t2 = torch.utils.dlpack.from_dlpack(pytorch.utils.dlpack.to_dlpack(r2))
    assert t2.data_ptr() == r2.data_ptr()
    t2[2] = 8.0  # a legacy capsule's memory is writable, as in PyTorch
    assert r2.tolist() == [0.0, 0.0, 8.0]


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "int64", "int32", "uint8",
                                  "bool", "complex64", "complex128"])
def test_dtypes_round_trip_through_pytorch(name):
    a = (np.arange(6) % 2).astype(name).reshape(3, 2)
    t = torch.from_numpy(a)
    r = pytorch.from_dlpack(t)
    assert str(r.dtype) == f"torch.{name}" and r.data_ptr() == t.data_ptr()
    back = torch.from_dlpack(r)
    assert back.dtype is getattr(torch, name) and back.data_ptr() == t.data_ptr()
    np.testing.assert_array_equal(back.numpy(), a)


def test_a_strided_view_is_shared():
    t = torch.arange(12.0).reshape(3, 4)
    col = t[:, 1]
    r = pytorch.from_dlpack(col)
    assert r.stride() == (4,) and r.tolist() == [1.0, 5.0, 9.0]
    r[0] = 0.5
    assert t[0, 1].item() == 0.5


def test_negative_strides_export_a_copy():
    t = torch.from_numpy(np.arange(4.0)[::-1])
    r = pytorch.from_dlpack(t)  # (PyTorch cannot import negative strides)
    assert r.tolist() == [3.0, 2.0, 1.0, 0.0]
    with pytest.raises(BufferError, match="negative strides"):
        t.__dlpack__(copy=False)


def test_device_is_the_cpu_as_in_pytorch():
    got = torch.zeros(1).__dlpack_device__()
    want = pytorch.zeros(1).__dlpack_device__()
    assert tuple(int(n) for n in got) == tuple(int(n) for n in want) == (1, 0)


def _pytorch_error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


def test_requires_grad_refuses_to_export_as_pytorch():
    want = _pytorch_error(lambda: pytorch.ones(2, requires_grad=True).__dlpack__())
    assert want == (BufferError, "Can't export tensors that require gradient, use "
                                 "tensor.detach()")
    x = torch.ones(2, requires_grad=True)
    for export in (x.__dlpack__, lambda: np.from_dlpack(x), lambda: pytorch.from_dlpack(x),
                   lambda: torch.from_dlpack(x), lambda: (x * 2).__dlpack__()):
        assert _pytorch_error(export) == want
    r = pytorch.from_dlpack(x.detach())
    assert r.data_ptr() == x.data_ptr() and not r.requires_grad


def test_to_dlpack_exports_a_tensor_that_requires_grad_as_pytorch():
    pytorch.utils.dlpack.to_dlpack(pytorch.ones(2, requires_grad=True))  # PyTorch allows it
    x = torch.ones(2, requires_grad=True)
    back = pytorch.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(x))
    assert back.data_ptr() == x.data_ptr()


def test_an_exported_gradient_is_that_gradient_only():
    x = torch.ones(2, requires_grad=True)
    (x * 3.0).sum().backward()
    a = np.from_dlpack(x.grad)
    a[0] = 0.0
    assert x.grad.tolist() == [0.0, 3.0]


def test_copy_false_keeps_the_memory_and_copy_true_does_not():
    r = pytorch.zeros(2)
    assert torch.from_dlpack(r, copy=False).data_ptr() == r.data_ptr()
    c = torch.from_dlpack(r, copy=True)
    c[0] = 1.0
    assert r[0].item() == 0.0


def test_a_traced_tensor_has_no_memory():
    def f(x):
        np.from_dlpack(torch.tensor(x))
        return x
    with pytest.raises(BufferError, match="traced tensor"):
        fad.jit(f)(np.ones(2))


def test_to_dlpack_takes_a_tensor():
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        torch.utils.dlpack.to_dlpack([1.0])


def test_jax_both_ways():
    jnp = pytest.importorskip("jax.numpy")
    t = torch.arange(3.0)
    j = jnp.from_dlpack(t)
    assert j.tolist() == [0.0, 1.0, 2.0]
    back = torch.from_dlpack(jnp.arange(4.0))
    assert back.tolist() == [0.0, 1.0, 2.0, 3.0]
