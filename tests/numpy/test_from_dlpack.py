"""``fnp.from_dlpack``: arrays of other libraries (and DLPack capsules) become
fad arrays sharing their memory; what cannot be read says why."""

import numpy as np
import pytest

import fad
import fad.numpy as fnp


def test_numpy_array_is_shared_not_copied():
    a = np.arange(4.0)
    b = fnp.from_dlpack(a)
    assert type(b) is np.ndarray and np.shares_memory(a, b)
    a[0] = 7.0
    assert b[0] == 7.0


def test_pytorch_tensor_is_shared_both_ways():
    torch = pytest.importorskip("torch")
    t = torch.arange(4.0)
    b = fnp.from_dlpack(t)
    assert b.dtype == np.float32 and b.ctypes.data == t.data_ptr()
    b[1] = 9.0  # written through fad's array, seen by PyTorch
    assert t[1].item() == 9.0
    t[2] = -1.0  # and the other way round
    assert b[2] == -1.0


def test_copy_true_copies_and_copy_false_shares():
    a = np.zeros(3)
    assert not np.shares_memory(a, fnp.from_dlpack(a, copy=True))
    assert np.shares_memory(a, fnp.from_dlpack(a, copy=False))


@pytest.mark.parametrize("versioned", [False, True])
def test_a_capsule_is_read_once(versioned):
    a = np.arange(3.0)
    capsule = a.__dlpack__(max_version=(1, 0)) if versioned else a.__dlpack__()
    b = fnp.from_dlpack(capsule)
    assert np.shares_memory(a, b) and b.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(BufferError, match="imported already"):
        fnp.from_dlpack(capsule)


def test_a_copied_capsule():
    a = np.arange(3.0)
    b = fnp.from_dlpack(a.__dlpack__(), copy=True)
    assert not np.shares_memory(a, b) and b.tolist() == [0.0, 1.0, 2.0]


def test_pytorch_capsule():
    torch = pytest.importorskip("torch")
    t = torch.ones(2, 3, dtype=torch.float64)
    b = fnp.from_dlpack(torch.utils.dlpack.to_dlpack(t))
    assert b.shape == (2, 3) and b.ctypes.data == t.data_ptr()


def test_the_result_is_differentiable():
    a = np.array([0.5, 1.0])
    g = fad.grad(lambda x: fnp.sum(fnp.sin(x)))(fnp.from_dlpack(a))
    np.testing.assert_allclose(g, np.cos(a))


def test_default_backend_on_the_host():
    xps = pytest.importorskip("array_api_strict")
    a = np.arange(3.0)
    fad.set_backend("array_api_strict")
    try:
        b = fnp.from_dlpack(a)
    finally:
        fad.set_backend("numpy")
    assert type(b) is type(xps.asarray(1.0))
    assert np.from_dlpack(b).ctypes.data == a.ctypes.data


class _Device:
    """An array-like whose memory is on a DLPack device of the given type."""

    def __init__(self, kind):
        self.kind = kind

    def __dlpack_device__(self):
        return (self.kind, 0)

    def __dlpack__(self, **kwargs):
        raise AssertionError("not to be read")


def test_memory_no_backend_reads_is_a_buffer_error():
    with pytest.raises(BufferError, match="Metal memory, which no fad backend reads"):
        fnp.from_dlpack(_Device(8))


def test_cuda_memory_without_cupy_says_so(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "cupy", None)  # (import fails)
    with pytest.raises(RuntimeError, match=r'CUDA memory.*CuPy is not installed .*"fad\[cuda\]"'):
        fnp.from_dlpack(_Device(2))


def test_what_is_not_an_array():
    with pytest.raises(TypeError, match=r"needs an array with __dlpack__.*not builtins\.list"):
        fnp.from_dlpack([1.0, 2.0])
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        fnp.from_dlpack(np.ones(2), device="tpu")


def test_a_traced_value_has_no_memory():
    with pytest.raises(TypeError, match="use fnp.asarray"):
        fad.jit(fnp.from_dlpack)(np.ones(2))


def test_jax_array_is_shared():
    jnp = pytest.importorskip("jax.numpy")
    x = jnp.arange(3.0)
    b = fnp.from_dlpack(x)
    assert b.tolist() == [0.0, 1.0, 2.0]
    assert b.ctypes.data == x.unsafe_buffer_pointer()
