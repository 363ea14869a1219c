"""The facade's convolution and pooling layers against PyTorch: outputs, the
``.grad`` of inputs and parameters after ``.backward()``, parameter names and
shapes, ``state_dict`` keys, reprs, default initialisation and error messages."""

from __future__ import annotations

import numpy as np
import pytest

import fad.torch as ft

torch = pytest.importorskip("torch")

TOL = {np.float32: 1e-5, np.float64: 1e-12}
RNG = np.random.default_rng(0)


def _pair(a: np.ndarray, grad: bool = True) -> tuple:
    return (ft.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad))


def _close(got, want, dtype) -> None:
    want = want.detach().numpy()
    got = got.detach().numpy()
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=TOL[dtype], atol=TOL[dtype])


def _compare(name: str, shapes: list, dtype=np.float64, **kw) -> None:
    """``F.<name>`` of random inputs in both libraries: the outputs, then the
    gradients of every input for one random cotangent."""
    arrays = [RNG.standard_normal(s).astype(dtype) for s in shapes]
    pairs = [_pair(a) for a in arrays]
    ours = getattr(ft.nn.functional, name)(*[p[0] for p in pairs], **kw)
    theirs = getattr(torch.nn.functional, name)(*[p[1] for p in pairs], **kw)
    _close(ours, theirs, dtype)
    ct = RNG.standard_normal(tuple(theirs.shape)).astype(dtype)
    (ours * ft.tensor(ct)).sum().backward()
    (theirs * torch.tensor(ct)).sum().backward()
    for (a, b) in pairs:
        _close(a.grad, b.grad, dtype)


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kw", [
    {}, {"stride": 2}, {"padding": 1}, {"padding": (2, 0), "stride": (1, 2)},
    {"dilation": 2, "padding": 1}, {"groups": 2}, {"groups": 4, "stride": 2, "padding": 1},
    {"padding": "same"}, {"padding": "valid"}, {"padding": "same", "dilation": (2, 1)},
])
def test_conv2d(dtype, kw):
    groups = kw.get("groups", 1)
    out = 8 if groups == 4 else 6
    _compare("conv2d", [(2, 4, 7, 6), (out, 4 // groups, 3, 2), (out,)], dtype, **kw)


@pytest.mark.parametrize("kw", [{}, {"stride": 3, "padding": 2}, {"padding": "same"},
                                {"dilation": 3, "groups": 2}])
def test_conv1d(kw):
    g = kw.get("groups", 1)
    _compare("conv1d", [(2, 4, 11), (6, 4 // g, 4)], **kw)
    _compare("conv1d", [(4, 11), (6, 4 // g, 4)], np.float32, **kw)  # unbatched, no bias


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kw", [
    {}, {"stride": 2}, {"stride": 2, "padding": 1, "output_padding": 1},
    {"stride": (2, 3), "padding": (0, 2), "output_padding": (1, 0)},
    {"groups": 2, "dilation": 2}, {"stride": 2, "dilation": 2, "output_padding": 1},
    {"padding": (1, 2)}, {"stride": 3, "padding": 3},
])
def test_conv_transpose2d(dtype, kw):
    g = kw.get("groups", 1)
    _compare("conv_transpose2d", [(2, 4, 5, 4), (4, 6 // g, 3, 3), (6,)], dtype, **kw)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kw", [
    {"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": 3, "stride": 2, "ceil_mode": True},
    {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 1), "ceil_mode": True},
    {"kernel_size": 2, "dilation": 2, "stride": 1}, {"kernel_size": 3, "stride": 3,
                                                    "ceil_mode": True, "padding": 1},
])
def test_max_pool2d(dtype, kw):
    _compare("max_pool2d", [(2, 3, 7, 8)], dtype, **kw)
    _compare("max_pool2d", [(3, 7, 8)], dtype, **kw)  # unbatched


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2,
                                                     "padding": 1, "ceil_mode": True},
                                {"kernel_size": 2, "dilation": 3}])
def test_max_pool1d(kw):
    _compare("max_pool1d", [(2, 3, 10)], **kw)
    _compare("max_pool1d", [(3, 10)], np.float32, **kw)


def test_max_pool_indices():
    a = RNG.standard_normal((2, 3, 7, 9))
    for kw in ({"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1,
                                    "ceil_mode": True, "dilation": 1}):
        out, idx = ft.nn.functional.max_pool2d(ft.tensor(a), return_indices=True, **kw)
        tout, tidx = torch.nn.functional.max_pool2d(torch.tensor(a), return_indices=True, **kw)
        np.testing.assert_array_equal(idx.numpy(), tidx.numpy())
        assert idx.dtype == ft.int64
    out, idx = ft.nn.MaxPool1d(3, 2, return_indices=True)(ft.tensor(a[0]))
    tout, tidx = torch.nn.MaxPool1d(3, 2, return_indices=True)(torch.tensor(a[0]))
    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kw", [
    {"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
    {"kernel_size": 3, "stride": 2, "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
     "count_include_pad": False},
    {"kernel_size": (2, 3), "divisor_override": 5},
])
def test_avg_pool2d(dtype, kw):
    _compare("avg_pool2d", [(2, 3, 7, 8)], dtype, **kw)


@pytest.mark.parametrize("size", [1, 2, (4, 3), (3, 5), (None, 2), 7])
def test_adaptive_avg_pool2d(size):
    _compare("adaptive_avg_pool2d", [(2, 3, 8, 6)], output_size=size)
    _compare("adaptive_avg_pool2d", [(3, 8, 6)], np.float32, output_size=size)


@pytest.mark.parametrize("kw", [{}, {"stride": 2, "padding": (1, 0, 2)}, {"groups": 2}])
def test_conv3d(kw):
    g = kw.get("groups", 1)
    _compare("conv3d", [(2, 4, 5, 4, 6), (6, 4 // g, 2, 3, 2), (6,)], **kw)


@pytest.mark.parametrize("kw", [{}, {"stride": 3, "padding": 1, "output_padding": 2},
                                {"groups": 2, "dilation": 2}])
def test_conv_transpose1d(kw):
    g = kw.get("groups", 1)
    _compare("conv_transpose1d", [(2, 4, 7), (4, 6 // g, 3), (6,)], **kw)


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2,
                                                     "padding": 1, "ceil_mode": True,
                                                     "count_include_pad": False}])
def test_avg_pool1d(kw):
    _compare("avg_pool1d", [(2, 3, 10)], **kw)
    _compare("avg_pool1d", [(3, 10)], np.float32, **kw)


@pytest.mark.parametrize("size", [1, 3, (4,)])
def test_adaptive_avg_pool1d(size):
    _compare("adaptive_avg_pool1d", [(2, 3, 10)], output_size=size)


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": (2, 3), "stride": 2,
                                                     "padding": 1, "dilation": (1, 2)}])
def test_unfold(kw):
    _compare("unfold", [(2, 3, 6, 7)], **kw)


def _copy_params(ours: ft.nn.Module, theirs) -> None:
    with torch.no_grad():
        for (n, p), (m, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            assert n == m and tuple(p.shape) == tuple(q.shape)
            q.copy_(torch.tensor(p.detach().numpy()))


def _lenet(nn):
    return nn.Sequential(nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2, 2),
                         nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(16 * 5 * 5, 10))


def test_lenet_forward_backward():
    ft.manual_seed(0)
    ours, theirs = _lenet(ft.nn), _lenet(torch.nn)
    _copy_params(ours, theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)
    a = RNG.standard_normal((4, 1, 32, 32)).astype(np.float32)
    target = np.array([1, 0, 9, 3])
    x, tx = _pair(a)
    loss = ft.nn.functional.cross_entropy(ours(x), ft.tensor(target))
    tloss = torch.nn.functional.cross_entropy(theirs(tx), torch.tensor(target))
    _close(loss, tloss, np.float32)
    loss.backward()
    tloss.backward()
    _close(x.grad, tx.grad, np.float32)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        _close(p.grad, q.grad, np.float32)


@pytest.mark.parametrize("make", [
    lambda nn: nn.Conv2d(3, 4, 3),
    lambda nn: nn.Conv2d(3, 4, (3, 2), stride=2, padding=1, dilation=2, bias=False,
                         padding_mode="reflect"),
    lambda nn: nn.Conv2d(4, 6, 3, groups=2, padding="same", padding_mode="circular"),
    lambda nn: nn.Conv2d(2, 2, 3, padding=2, padding_mode="replicate"),
    lambda nn: nn.Conv1d(2, 4, 3, padding="same"),
    lambda nn: nn.Conv1d(2, 4, 3, stride=2, padding_mode="reflect", padding=1),
    lambda nn: nn.ConvTranspose2d(2, 4, 3, stride=2, output_padding=1),
    lambda nn: nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, groups=2, bias=False),
    lambda nn: nn.Conv3d(2, 3, (2, 3, 1), padding=1),
    lambda nn: nn.ConvTranspose1d(2, 4, 3, stride=2, output_padding=1),
])
def test_conv_modules(make):
    ft.manual_seed(0)
    ours, theirs = make(ft.nn), make(torch.nn)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _copy_params(ours, theirs)
    cin = theirs.in_channels
    shape = (2, cin) + (9, 7, 8)[:len(theirs.kernel_size)] if len(theirs.kernel_size) != 2 \
        else (2, cin, 7, 8)
    a = RNG.standard_normal(shape).astype(np.float32)
    x, tx = _pair(a)
    out, tout = ours(x), theirs(tx)
    _close(out, tout, np.float32)
    out.square().sum().backward()
    tout.square().sum().backward()
    _close(x.grad, tx.grad, np.float32)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        _close(p.grad, q.grad, np.float32)


def test_default_initialisation():
    """Weights uniform within gain * sqrt(3 / fan_in) (kaiming, a = sqrt(5)), bias
    within 1 / sqrt(fan_in), drawn from the seeded generator."""
    ft.manual_seed(3)
    c = ft.nn.Conv2d(4, 8, 3, groups=2)
    ft.manual_seed(3)
    again = ft.nn.Conv2d(4, 8, 3, groups=2)
    np.testing.assert_array_equal(c.weight.detach().numpy(), again.weight.detach().numpy())
    fan_in = 2 * 9
    w, b = c.weight.detach().numpy(), c.bias.detach().numpy()
    assert w.dtype == np.float32 and w.shape == (8, 2, 3, 3)
    assert np.abs(w).max() <= 1 / np.sqrt(fan_in) and np.abs(w).max() > 0.5 / np.sqrt(fan_in)
    assert np.abs(b).max() <= 1 / np.sqrt(fan_in)
    t = ft.nn.ConvTranspose2d(4, 6, 3, groups=2)
    assert tuple(t.weight.shape) == (4, 3, 3, 3)
    assert np.abs(t.bias.detach().numpy()).max() <= 1 / np.sqrt(27)
    assert ft.nn.Conv2d(1, 2, 3, dtype=ft.float64).weight.dtype == ft.float64


@pytest.mark.parametrize("make", [
    lambda nn: nn.MaxPool2d(2), lambda nn: nn.MaxPool2d(3, 2, 1, ceil_mode=True),
    lambda nn: nn.MaxPool1d(2), lambda nn: nn.AvgPool2d(2),
    lambda nn: nn.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False),
    lambda nn: nn.AdaptiveAvgPool2d((5, 7)), lambda nn: nn.AdaptiveAvgPool2d(3),
    lambda nn: nn.Unflatten(1, (2, 5)), lambda nn: nn.AvgPool1d(3, 2, 1, ceil_mode=True),
    lambda nn: nn.AvgPool1d(2), lambda nn: nn.AdaptiveAvgPool1d(2),
])
def test_pool_reprs(make):
    assert repr(make(ft.nn)) == repr(make(torch.nn))


@pytest.mark.parametrize("call", [
    lambda t: t.nn.functional.max_pool2d(t.arange(-8, 17).reshape(1, 1, 5, 5), 2, padding=1),
    lambda t: t.nn.functional.avg_pool2d(t.arange(-8, 17).reshape(1, 1, 5, 5), 2, padding=1,
                                         ceil_mode=True),
    lambda t: t.nn.functional.max_pool1d(t.ones(0, 2, 5), 3, 2),
    lambda t: t.nn.functional.max_pool2d(t.ones(0, 2, 4, 4), 2),
    lambda t: t.nn.functional.avg_pool2d(t.ones(0, 2, 4, 4), 2),
    lambda t: t.nn.functional.conv2d(t.ones(0, 2, 4, 4), t.ones(3, 2, 3, 3)),
])
def test_integers_and_empty_batches(call):
    """Integer pooling keeps the integer type (the mean truncated); an empty batch
    gives an empty result."""
    ours, theirs = call(ft), call(torch)
    assert ours.dtype.name == str(theirs.dtype).split(".")[1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_unflatten():
    a = RNG.standard_normal((3, 10))
    x, tx = _pair(a)
    out, tout = ft.nn.Unflatten(1, (2, 5))(x), torch.nn.Unflatten(1, (2, 5))(tx)
    _close(out, tout, np.float64)


def test_conv_transpose_output_size():
    ft.manual_seed(0)
    up, tup = ft.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1), \
        torch.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    _copy_params(up, tup)
    a = RNG.standard_normal((1, 2, 4, 4)).astype(np.float32)
    _close(up(ft.tensor(a), output_size=[8, 8]), tup(torch.tensor(a), output_size=[8, 8]),
           np.float32)


def test_grad_fn_names():
    x = ft.randn(1, 2, 6, 6, requires_grad=True)
    F = ft.nn.functional
    assert type(F.conv2d(x, ft.randn(3, 2, 3, 3))).__name__ == "Tensor"
    assert F.conv2d(x, ft.randn(3, 2, 3, 3)).grad_fn.name() == "ConvolutionBackward0"
    assert F.max_pool2d(x, 2).grad_fn.name() == "MaxPool2DWithIndicesBackward0"
    assert F.avg_pool2d(x, 2).grad_fn.name() == "AvgPool2DBackward0"
    assert F.max_pool1d(x[0], 2).grad_fn.name() == "SqueezeBackward1"
    assert F.unfold(x, 2).grad_fn.name() == "Im2ColBackward0"
    assert F.adaptive_avg_pool2d(x, 2).grad_fn.name() == "AdaptiveAvgPool2DBackward0"
    assert F.adaptive_avg_pool2d(x, 1).grad_fn.name() == "MeanBackward1"


def _message(fun) -> tuple:
    with pytest.raises(Exception) as e:
        fun()
    return type(e.value), str(e.value)


@pytest.mark.parametrize("call", [
    lambda t: t.nn.Conv2d(3, 4, 3)(t.ones(1, 3, 5, 5, dtype=t.float64)),
    lambda t: t.nn.Conv2d(3, 4, 3, bias=False)(t.ones(1, 3, 5, 5, dtype=t.float64)),
    lambda t: t.nn.functional.conv2d(t.ones(1, 3, 5, 5), t.ones(4, 3, 3, 3, dtype=t.float64)),
    lambda t: t.nn.Conv2d(3, 4, 3, stride=2, padding="same"),
    lambda t: t.nn.Conv2d(3, 4, 3, groups=2),
    lambda t: t.nn.Conv2d(4, 3, 3, groups=2),
    lambda t: t.nn.Conv2d(3, 4, 3)(t.ones(1, 2, 5, 5)),
    lambda t: t.nn.Conv2d(3, 4, 3)(t.ones(1, 3, 2, 2)),
    lambda t: t.nn.Conv2d(3, 4, 3)(t.ones(5, 5)),
    lambda t: t.nn.functional.conv2d(t.ones(1, 3, 5, 5), t.ones(4, 3, 3, 3), padding="foo"),
    lambda t: t.nn.functional.conv2d(t.ones(1, 4, 5, 5), t.ones(4, 2, 3, 3), groups=3),
    lambda t: t.nn.functional.conv1d(t.ones(1, 3, 5), t.ones(2, 3, 3), stride=0),
    lambda t: t.nn.functional.conv_transpose2d(t.ones(1, 4, 5, 5), t.ones(3, 2, 2, 2)),
    lambda t: t.nn.functional.conv_transpose2d(t.ones(1, 3, 5, 5), t.ones(3, 2, 2, 2),
                                               stride=2, output_padding=2),
    lambda t: t.nn.functional.conv_transpose2d(t.ones(1, 4, 5, 4), t.ones(4, 6, 3, 3),
                                               padding=3),
    lambda t: t.nn.functional.max_pool2d(t.ones(1, 1, 4, 4), 3, padding=2),
    lambda t: t.nn.functional.max_pool2d(t.ones(1, 1, 2, 2), 3),
    lambda t: t.nn.functional.avg_pool2d(t.ones(1, 1, 2, 2), 3),
    lambda t: t.nn.functional.max_pool2d(t.ones(5, 5, 5, 5, 5), 2),
    lambda t: t.nn.functional.max_pool2d(t.ones(1, 0, 4, 4), 2),
    lambda t: t.nn.functional.avg_pool2d(t.ones(5, 1, 1, 4, 4), 2),
    lambda t: t.nn.functional.avg_pool2d(t.ones(0, 4, 4), 2),
    lambda t: t.nn.functional.max_pool1d(t.ones(4), 2),
    lambda t: t.nn.functional.max_pool1d(t.ones(1, 0, 4), 2),
    lambda t: t.nn.functional.max_pool2d(t.ones(1, 1, 2, 2), 0),
    lambda t: t.nn.functional.adaptive_avg_pool2d(t.ones(1, 2, 2, 2), (1, 2, 3)),
    lambda t: t.nn.ConvTranspose2d(3, 4, 3, padding_mode="reflect"),
    lambda t: t.nn.Conv2d(3, 4, 3, groups=0),
    lambda t: t.nn.functional.conv_transpose1d(t.ones(1, 3, 5), t.ones(3, 2, 2), stride=2,
                                               output_padding=2),
    lambda t: t.nn.functional.conv3d(t.ones(5, 5), t.ones(3, 5, 2, 2, 2)),
    lambda t: t.nn.functional.avg_pool1d(t.ones(4), 2),
    lambda t: t.nn.functional.avg_pool1d(t.ones(1, 2), 3),
    lambda t: t.nn.functional.adaptive_avg_pool1d(t.ones(1, 4), (2, 3)),
    lambda t: t.nn.functional.adaptive_avg_pool1d(t.ones(4), 2),
    lambda t: t.nn.functional.conv_transpose1d(t.ones(1, 3, 5, 5), t.ones(3, 2, 2)),
])
def test_errors_like_pytorch(call):
    assert _message(lambda: call(ft)) == _message(lambda: call(torch))


@pytest.mark.parametrize("call, words", [
    (lambda t: t.nn.Conv2d(3, 4, 3, padding="foo"), "Invalid padding string 'foo', should be"),
    (lambda t: t.nn.Conv2d(3, 4, 3, padding_mode="foo"), "padding_mode must be one of"),
])
def test_errors_with_sets(call, words):
    """(PyTorch prints a set here, in an order that changes from run to run.)"""
    with pytest.raises(ValueError, match=words):
        call(ft)
    with pytest.raises(ValueError, match=words):
        call(torch)



def test_second_order():
    """``create_graph=True`` through convolutions and pooling: the gradient of a
    gradient's norm equals PyTorch's (fad's rules differentiate to any order)."""
    a, b = RNG.standard_normal((1, 2, 6, 6)), RNG.standard_normal((3, 2, 3, 3))
    got = []
    for lib in (ft, torch):
        F = lib.nn.functional
        x, w = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        y = F.max_pool2d(F.conv2d(x, w, padding=1), 2, ceil_mode=True)
        y = F.avg_pool2d(F.conv_transpose2d(y, lib.ones(3, 2, 2, 2, dtype=lib.float64),
                                            stride=2), 2, padding=1)
        (gx,) = lib.autograd.grad((y ** 2).sum(), x, create_graph=True)
        (gx ** 2).sum().backward()
        got.append([gx.detach().numpy(), x.grad.numpy(), w.grad.numpy()])
    for u, v in zip(*got):
        np.testing.assert_allclose(u, v, rtol=1e-10, atol=1e-12)
