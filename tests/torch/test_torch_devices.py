"""Devices in the facade: ``"cpu"`` works everywhere a device is taken; ``"cuda"``
means CuPy and, without CuPy or a GPU, raises one clear sentence; ``.device``,
``.to``, ``.cpu()``, ``.cuda()``, ``__array__`` and ``__array_namespace__``."""

import sys
import traceback
import types

import numpy as np
import pytest

import fad
import fad.numpy as fnp
import fad.torch as torch

NO_CUPY = "Torch not compiled with CUDA enabled"  # (PyTorch's AssertionError)
NO_GPU = "fad.torch: CUDA is not available: no CUDA device was found"

CREATORS = {
    "tensor": lambda **kw: torch.tensor([1.0, 2.0], **kw),
    "as_tensor": lambda **kw: torch.as_tensor(np.ones(2), **kw),
    "zeros": lambda **kw: torch.zeros(2, 3, **kw),
    "ones": lambda **kw: torch.ones(2, **kw),
    "empty": lambda **kw: torch.empty(2, **kw),
    "full": lambda **kw: torch.full((2,), 7.0, **kw),
    "rand": lambda **kw: torch.rand(2, **kw),
    "randn": lambda **kw: torch.randn(2, **kw),
    "randint": lambda **kw: torch.randint(0, 5, (3,), **kw),
    "arange": lambda **kw: torch.arange(4, **kw),
    "linspace": lambda **kw: torch.linspace(0, 1, 5, **kw),
    "logspace": lambda **kw: torch.logspace(0, 1, 3, **kw),
    "eye": lambda **kw: torch.eye(3, **kw),
    "zeros_like": lambda **kw: torch.zeros_like(torch.ones(2), **kw),
    "ones_like": lambda **kw: torch.ones_like(torch.ones(2), **kw),
    "empty_like": lambda **kw: torch.empty_like(torch.ones(2), **kw),
    "full_like": lambda **kw: torch.full_like(torch.ones(2), 3.0, **kw),
    "rand_like": lambda **kw: torch.rand_like(torch.ones(2), **kw),
    "randn_like": lambda **kw: torch.randn_like(torch.ones(2), **kw),
    "Tensor": lambda **kw: torch.Tensor(2, 3, **kw),
    "FloatTensor": lambda **kw: torch.FloatTensor([1.0], **kw),
}


@pytest.mark.parametrize("name", sorted(CREATORS))
@pytest.mark.parametrize("device", ["cpu", "cpu:0", torch.device("cpu")])
def test_cpu_device_is_accepted(name, device):
    t = CREATORS[name](device=device)
    assert t.device == torch.device("cpu") and repr(t.device) == "device(type='cpu')"
    assert type(t._value) is np.ndarray and not t.is_cuda and t.is_cpu


def _cuda_error(fn):
    with pytest.raises((RuntimeError, AssertionError)) as info:
        fn()
    printed = "".join(traceback.format_exception(info.value))
    assert "ImportError" not in printed and "During handling" not in printed
    assert "direct cause" not in printed
    return str(info.value)


@pytest.mark.parametrize("name", sorted(CREATORS))
@pytest.mark.parametrize("device", ["cuda", "cuda:0", 0, torch.device("cuda")])
def test_cuda_without_cupy_is_one_sentence(monkeypatch, name, device):
    monkeypatch.setitem(sys.modules, "cupy", None)  # (importing CuPy fails)
    assert _cuda_error(lambda: CREATORS[name](device=device)) == NO_CUPY


def test_moving_to_cuda_without_cupy(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    t = torch.ones(2)
    for move in (t.cuda, lambda: t.cuda(0), lambda: t.to("cuda"), lambda: t.to(0),
                 lambda: t.to(torch.device("cuda", 0)), lambda: t.to("cuda", torch.float64),
                 lambda: torch.from_dlpack(np.ones(2), device="cuda")):
        assert _cuda_error(move) == NO_CUPY
    assert not torch.cuda.is_available() and torch.cuda.device_count() == 0


def test_importing_cuda_memory_without_cupy(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)

    class CudaMemory:
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, **kwargs):
            raise AssertionError("not to be read")
    assert _cuda_error(lambda: torch.from_dlpack(CudaMemory())) == NO_CUPY


def _fake_cupy(count):
    def get_device_count():
        if isinstance(count, Exception):
            raise count
        return count
    runtime = types.SimpleNamespace(getDeviceCount=get_device_count)
    return types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=runtime))


def test_cuda_without_a_gpu(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(0))
    assert _cuda_error(lambda: torch.zeros(2, device="cuda")) == NO_GPU
    assert _cuda_error(torch.ones(1).cuda) == NO_GPU
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(
        RuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected\n  more")))
    assert _cuda_error(lambda: torch.randn(2, device="cuda")) == \
        NO_GPU + " (CuPy says: cudaErrorNoDevice: no CUDA-capable device is detected)"
    assert not torch.cuda.is_available() and torch.cuda.device_count() == 0


def test_cuda_is_not_available_here():
    if "cupy" not in sys.modules:
        assert torch.cuda.is_available() is False


def test_device_objects_as_pytorch():
    assert repr(torch.device("cpu")) == "device(type='cpu')" and str(torch.device("cpu")) == "cpu"
    assert repr(torch.device("cuda:1")) == "device(type='cuda', index=1)"
    assert (torch.device(0).type, torch.device(0).index) == ("cuda", 0)
    assert repr(torch.device(0)) == "device(type='cuda', index=0)"
    assert torch.device("cpu") != torch.device("cuda")
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda, .* device type"):
        torch.device("tpu")


def test_to_cpu_is_the_tensor_itself():
    t = torch.ones(2, requires_grad=True)
    assert t.to("cpu") is t and t.cpu() is t and t.to(torch.device("cpu")) is t
    y = t.to("cpu", torch.float64)
    assert y.dtype is torch.float64 and y.grad_fn is not None
    assert t.get_device() == -1


def test_array_namespace_is_the_backend():
    t = torch.ones(2)
    assert t.__array_namespace__() is np
    assert t.__array_namespace__(api_version="2023.12") is np


def test_tensors_still_enter_fad_transformations():
    t = torch.tensor([1.0, 2.0])
    np.testing.assert_allclose(fad.grad(lambda x: fnp.sum(x * x))(t), [2.0, 4.0])
    np.testing.assert_allclose(fad.vmap(fnp.sin)(t), np.sin([1.0, 2.0]), rtol=1e-6)
    assert fad.jit(lambda x: x * 2)(t).tolist() == [2.0, 4.0]


def test_array_shares_host_memory():
    t = torch.zeros(3)
    a = np.asarray(t)
    a[1] = 4.0
    assert t.tolist() == [0.0, 4.0, 0.0]
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    c = np.array(t, copy=True)
    c[0] = 1.0
    assert t[0].item() == 0.0
    assert np.asarray(t, copy=False).ctypes.data == t.data_ptr()
    with pytest.raises(ValueError, match="without a copy"):
        np.asarray(t, dtype=np.float64, copy=False)


def test_array_of_a_tensor_that_requires_grad_as_pytorch():
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        np.asarray(torch.ones(2, requires_grad=True))


class _CudaArray:
    """A stand-in for a CuPy array (its module is CuPy's)."""
    __module__ = "cupy._core.core"
    shape = (2,)
    dtype = np.dtype(np.float32)

    def __dlpack_device__(self):
        return (2, 0)


def test_array_of_a_cuda_tensor_says_cpu():
    from fad.torch.tensor import wrap
    t = wrap(_CudaArray())
    assert t.device == torch.device("cuda:0") and t.is_cuda and not t.is_cpu
    for convert in (lambda: np.asarray(t), t.numpy):
        with pytest.raises(TypeError, match=r"can't convert cuda:0 device type tensor to "
                                            r"numpy\. Use Tensor\.cpu\(\)"):
            convert()


def test_host_backend_tensor_shares_with_numpy():
    xps = pytest.importorskip("array_api_strict")
    fad.set_backend("array_api_strict")
    try:
        t = torch.zeros(3, device="cpu")
    finally:
        fad.set_backend("numpy")
    assert type(t._value) is type(xps.asarray(1.0)) and t.device == torch.device("cpu")
    assert t.__array_namespace__() is xps
    a = np.asarray(t)
    assert np.from_dlpack(t._value).ctypes.data == a.ctypes.data


def test_like_functions_follow_the_tensor_device_unless_told():
    base = torch.ones(2, 2, dtype=torch.float64)
    for like in (torch.zeros_like, torch.ones_like, torch.empty_like, torch.rand_like,
                 torch.randn_like):
        out = like(base)
        assert out.device == base.device and out.dtype is torch.float64 and out.shape == (2, 2)


class _GpuArray(_CudaArray):
    """A stand-in for a CuPy array holding a NumPy array (``get()`` copies it out)."""
    __module__ = "cupy._core.core"

    def __init__(self, data):
        self._data = np.asarray(data)
        self.shape, self.dtype = self._data.shape, self._data.dtype

    def get(self):
        return self._data.copy()


@pytest.fixture
def fake_gpu(monkeypatch):
    """A stand-in CuPy module that reports one GPU and makes ``_GpuArray`` s."""
    cupy = types.ModuleType("cupy")
    cupy.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: 1))
    cupy.asarray = lambda a, dtype=None: _GpuArray(np.asarray(a, dtype))
    cupy.zeros = lambda shape, dtype=None: _GpuArray(np.zeros(shape, dtype))
    cupy.ones = lambda shape, dtype=None: _GpuArray(np.ones(shape, dtype))
    cupy.full = lambda shape, v, dtype=None: _GpuArray(np.full(shape, v, dtype))
    for name in ("float16", "float32", "float64", "int64", "int32", "bool"):
        setattr(cupy, name, getattr(np, name))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    return cupy


@pytest.mark.parametrize("name", ["tensor", "zeros", "ones", "full", "randn", "arange", "eye",
                                  "zeros_like", "full_like", "Tensor"])
def test_cuda_creation_lands_on_the_cuda_backend(fake_gpu, name):
    t = CREATORS[name](device="cuda")
    assert type(t._value) is _GpuArray and t.is_cuda and t.device == torch.device("cuda:0")
    assert t.type().startswith("torch.cuda.") and t.get_device() == 0
    assert torch.cuda.is_available() and torch.cuda.device_count() == 1


def test_moves_between_cpu_and_cuda(fake_gpu):
    t = torch.tensor([1.0, 2.0])
    g = t.cuda()
    assert type(g._value) is _GpuArray and g.device.type == "cuda" and g.cuda() is g
    assert torch.zeros_like(g).is_cuda and torch.zeros_like(g, device="cpu").is_cpu
    back = g.cpu()
    assert type(back._value) is np.ndarray and back.tolist() == [1.0, 2.0]
    assert g.to("cpu").tolist() == [1.0, 2.0] and t.to(0).is_cuda
    with pytest.raises(TypeError, match=r"Use Tensor\.cpu\(\)"):
        np.asarray(g)


def test_a_move_is_recorded_and_its_gradient_comes_back(fake_gpu, monkeypatch):
    """As PyTorch's ``ToCopyBackward0``: a move of a tensor that requires grad is an
    operation of the graph, and the gradient returns to the source device."""
    # the stand-in's arrays name their namespace, as CuPy's do
    monkeypatch.setattr(_GpuArray, "__array_namespace__", lambda self, api_version=None: fake_gpu,
                        raising=False)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    g = x.cuda()
    assert g.is_cuda and g.requires_grad and type(g.grad_fn).__name__ == "ToCopyBackward0"
    back = g.to("cpu")
    assert back.is_cpu and type(back.grad_fn).__name__ == "ToCopyBackward0"
    (back * torch.tensor([3.0, 4.0])).sum().backward()
    assert type(x.grad._value) is np.ndarray and x.grad.tolist() == [3.0, 4.0]
    with torch.no_grad():
        g = x.cuda()
    assert g.is_cuda and not g.requires_grad
    lin = torch.nn.Linear(2, 1)
    assert lin.cuda() is lin and lin.weight.is_cuda and lin.weight.requires_grad
