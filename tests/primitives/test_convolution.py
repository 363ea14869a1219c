"""``fad.lax.conv_general_dilated`` and its wrappers: values against SciPy,
PyTorch and JAX; derivatives against PyTorch's autograd and JAX; vmap against a
loop; jit against eager; the errors. (Derivatives against finite differences to
second order: the operator table's ``conv_general_dilated`` row.)"""

import numpy as np
import pytest
import scipy.signal

import fad
import fad.lax as lax

torch = pytest.importorskip("torch")
F = torch.nn.functional
RNG = np.random.default_rng(0)


def normal(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("mode", ["valid", "full"])
@pytest.mark.parametrize("shapes", [((7,), (3,)), ((5, 6), (2, 3))])
def test_single_channel_is_scipy_correlate(mode, shapes):
    x, w = normal(*shapes[0]), normal(*shapes[1])
    pads = "VALID" if mode == "valid" else [(k - 1, k - 1) for k in w.shape]
    got = lax.conv(x[None, None], w[None, None], (1,) * x.ndim, pads)[0, 0]
    np.testing.assert_allclose(got, scipy.signal.correlate(x, w, mode=mode), rtol=1e-12)


TORCH_2D = [  # stride, padding, dilation, groups
    (1, 0, 1, 1), (2, 1, 1, 1), ((2, 1), (0, 2), (1, 2), 2), (1, 1, 2, 4), (3, 2, 1, 4)]


@pytest.mark.parametrize("stride, padding, dilation, groups", TORCH_2D)
def test_conv2d_matches_torch_values_and_gradients(stride, padding, dilation, groups):
    x, w = normal(2, 4, 7, 8), normal(8, 4 // groups, 3, 2)
    pair = lambda v: (v, v) if isinstance(v, int) else v  # noqa: E731
    pads = [(p, p) for p in pair(padding)]

    def f(x, w):
        return lax.conv_general_dilated(x, w, pair(stride), pads, rhs_dilation=pair(dilation),
                                        feature_group_count=groups)
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    yt = F.conv2d(xt, wt, stride=stride, padding=padding, dilation=dilation, groups=groups)
    np.testing.assert_allclose(f(x, w), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    ct = normal(*yt.shape)
    yt.backward(torch.tensor(ct))
    _, pull = fad.vjp(f, x, w)
    gx, gw = pull(ct)
    np.testing.assert_allclose(gx, xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gw, wt.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("stride, padding, dilation, groups", [(1, 0, 1, 1), (2, 2, 2, 3)])
def test_conv1d_matches_torch(stride, padding, dilation, groups):
    x, w = normal(3, 6, 11), normal(9, 6 // groups, 3)
    got = lax.conv_general_dilated(x, w, (stride,), [(padding, padding)],
                                   rhs_dilation=(dilation,), feature_group_count=groups)
    want = F.conv1d(torch.tensor(x), torch.tensor(w), stride=stride, padding=padding,
                    dilation=dilation, groups=groups)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-10, atol=1e-12)


def test_conv3d_matches_torch():
    x, w = normal(2, 2, 4, 5, 3), normal(3, 2, 2, 3, 2)
    got = lax.conv(x, w, (1, 2, 1), "SAME")
    pads = lax.padtype_to_pads((4, 5, 3), (2, 3, 2), (1, 2, 1), "SAME")
    xt = F.pad(torch.tensor(x), [p for pair in reversed(pads) for p in pair])
    want = F.conv3d(xt, torch.tensor(w), stride=(1, 2, 1))
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("stride, padding, output_padding, dilation", [
    (2, 0, 0, 1), (2, 1, 1, 1), (3, 1, 0, 2)])
def test_conv_transpose_is_torch_conv_transpose2d(stride, padding, output_padding, dilation):
    x, w = normal(2, 3, 4, 5), normal(3, 2, 3, 3)  # torch: (in, out, kh, kw)
    want = F.conv_transpose2d(torch.tensor(x), torch.tensor(w), stride=stride, padding=padding,
                              output_padding=output_padding, dilation=dilation).numpy()
    k = dilation * 2 + 1
    pads = [(k - 1 - padding, k - 1 - padding + output_padding)] * 2
    got = lax.conv_transpose(x, w, (stride, stride), pads, rhs_dilation=(dilation, dilation),
                             dimension_numbers=("NCHW", "OIHW", "NCHW"), transpose_kernel=True)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    if output_padding == 0:  # the padding of the forward convolution, as PyTorch names it
        got = lax.conv_transpose(x, w, (stride, stride), [(padding, padding)] * 2,
                                 rhs_dilation=(dilation, dilation),
                                 dimension_numbers=("NCHW", "OIHW", "NCHW"),
                                 transpose_kernel=True, use_consistent_padding=True)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_float32_stays_float32_and_matches_torch():
    x, w = normal(2, 3, 6, 6, dtype=np.float32), normal(4, 3, 3, 3, dtype=np.float32)
    got = lax.conv(x, w, (1, 1), "SAME")
    assert got.dtype == np.float32
    want = F.conv2d(torch.tensor(x), torch.tensor(w), padding=1).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    gx = fad.grad(lambda x: lax.conv(x, w, (1, 1), "SAME").sum())(x)
    assert gx.dtype == np.float32


def test_integer_convolution_and_preferred_element_type():
    x, w = RNG.integers(-3, 4, (1, 2, 5)), RNG.integers(-3, 4, (2, 2, 2))
    got = lax.conv(x, w, (1,), "VALID")
    assert got.dtype == x.dtype
    want = lax.conv(x.astype(float), w.astype(float), (1,), "VALID")
    np.testing.assert_array_equal(got, want)
    assert lax.conv(x, w, (1,), "VALID", preferred_element_type=np.float32).dtype == np.float32


def test_empty_batch_and_empty_output():
    w = normal(2, 3, 3)
    assert lax.conv(np.zeros((0, 3, 5)), w, (1,), "VALID").shape == (0, 2, 3)
    assert lax.conv(normal(1, 3, 2), w, (1,), "VALID").shape == (1, 2, 0)
    g = fad.grad(lambda w: lax.conv(np.zeros((0, 3, 5)), w, (1,), "VALID").sum())(w)
    np.testing.assert_array_equal(g, np.zeros_like(w))


def test_dimension_numbers_as_strings():
    x, w = normal(2, 6, 5, 3), normal(3, 2, 3, 4)  # NHWC input, HWIO kernel
    got = lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                   dimension_numbers=("NHWC", "HWIO", "NHWC"))
    want = lax.conv(x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1), (1, 1), "SAME")
    np.testing.assert_allclose(got, want.transpose(0, 2, 3, 1), rtol=1e-12)
    dn = lax.conv_dimension_numbers(x.shape, w.shape, ("NHWC", "HWIO", "NHWC"))
    assert dn == lax.ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    assert lax.conv_general_shape_tuple(x.shape, w.shape, (2, 1), "SAME",
                                        ("NHWC", "HWIO", "NHWC")) == (2, 3, 5, 4)


def test_matches_jax_everywhere():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jl = jax.lax
    cases = [  # lhs, rhs, kwargs
        ((2, 5, 6, 4), (3, 2, 2, 6), dict(window_strides=(2, 1), padding="SAME_LOWER",
                                           rhs_dilation=(1, 2), feature_group_count=2,
                                           dimension_numbers=("NHWC", "HWIO", "NCHW"))),
        ((4, 3, 7), (4, 3, 2), dict(window_strides=(1,), padding=((2, -1),),
                                    lhs_dilation=(2,), batch_group_count=2)),
        ((2, 2, 5, 5), (4, 1, 3, 3), dict(window_strides=(1, 2), padding=((1, 1), (0, 2)),
                                          lhs_dilation=(2, 1), feature_group_count=2)),
    ]
    for ls, rs, kw in cases:
        x, w = normal(*ls), normal(*rs)
        got = lax.conv_general_dilated(x, w, **kw)
        want = jl.conv_general_dilated(x, w, **kw)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
        ct = normal(*got.shape)
        mine = fad.vjp(lambda a, b: lax.conv_general_dilated(a, b, **kw), x, w)[1](ct)
        theirs = jax.vjp(lambda a, b: jl.conv_general_dilated(a, b, **kw), x, w)[1](ct)
        for m, t in zip(mine, theirs):
            np.testing.assert_allclose(m, t, rtol=1e-10, atol=1e-12)
    x, k = normal(2, 5, 4, 3), normal(3, 2, 3, 4)
    for pad in ["SAME", "VALID", ((1, 2), (0, 1))]:
        np.testing.assert_allclose(lax.conv_transpose(x, k, (2, 1), pad),
                                   jl.conv_transpose(x, k, (2, 1), pad), rtol=1e-10)


@pytest.mark.parametrize("in_axes", [(0, 0), (0, None), (None, 0), (1, 2)])
def test_vmap_matches_a_loop(in_axes):
    x, w = normal(3, 2, 4, 5, 5), normal(3, 6, 2, 3, 3)  # groups of 2 input features
    xs = x if in_axes[0] is not None else x[0]
    ws = w if in_axes[1] is not None else w[0]
    if in_axes == (1, 2):
        xs, ws = np.moveaxis(x, 0, 1), np.moveaxis(w, 0, 2)

    def f(a, b):
        return lax.conv_general_dilated(a, b, (2, 1), ((1, 0), (1, 1)), rhs_dilation=(1, 2),
                                        feature_group_count=2)
    got = fad.vmap(f, in_axes=in_axes)(xs, ws)
    want = [f(x[i] if in_axes[0] is not None else x[0], w[i] if in_axes[1] is not None
              else w[0]) for i in range(3)]
    np.testing.assert_allclose(got, np.stack(want), rtol=1e-12)


def test_jit_matches_eager_and_is_one_equation():
    x, w = normal(2, 3, 6, 6), normal(4, 3, 3, 3)

    def f(x, w):
        return lax.conv_general_dilated(x, w, (2, 2), "SAME", rhs_dilation=(1, 2))
    np.testing.assert_allclose(fad.jit(f)(x, w), f(x, w), rtol=1e-12)
    jaxpr = str(fad.make_jaxpr(f)(x, w))
    assert jaxpr.count("conv_general_dilated") == 1
    g = fad.jit(fad.grad(lambda x, w: (f(x, w) ** 2).sum(), argnums=(0, 1)))(x, w)
    e = fad.grad(lambda x, w: (f(x, w) ** 2).sum(), argnums=(0, 1))(x, w)
    for a, b in zip(g, e):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_second_derivatives():
    x, w = normal(1, 2, 4, 4), normal(2, 1, 2, 2)
    fad.check_grads(lambda x, w: lax.conv_general_dilated(
        x, w, (2, 1), ((1, 0), (0, 1)), lhs_dilation=(1, 2), feature_group_count=2),
        (x, w), order=2)


def test_errors_name_the_function_and_the_fix():
    x, w = normal(1, 3, 5), normal(2, 3, 2)
    with pytest.raises(TypeError, match="same dtype"):
        lax.conv(x, w.astype(np.float32), (1,), "VALID")
    with pytest.raises(ValueError, match="feature_group_count=2"):
        lax.conv_general_dilated(x, w, (1,), "VALID", feature_group_count=2)
    with pytest.raises(ValueError, match="conv_transpose"):
        lax.conv_general_dilated(x, w, (1,), "SAME", lhs_dilation=(2,))
    with pytest.raises(ValueError, match="padding"):
        lax.conv(x, w, (1,), "FULL")
    with pytest.raises(ValueError, match="window_strides"):
        lax.conv(x, w, (1, 1), "VALID")
    with pytest.raises(TypeError, match="exactly once"):
        lax.conv_general_dilated(x, w, (1,), "VALID", dimension_numbers=("NNH", "OIH", "NCH"))


def test_other_backends_without_sliding_windows_say_so():
    xp = pytest.importorskip("array_api_strict")
    x, w = xp.asarray(normal(1, 1, 4)), xp.asarray(normal(1, 1, 2))
    with pytest.raises(NotImplementedError, match="conv_general_dilated.*array_api_strict"):
        lax.conv(x, w, (1,), "VALID")


def test_dask_arrays_stay_dask_arrays():
    da = pytest.importorskip("dask.array")
    x, w = normal(2, 3, 6, 6), normal(4, 3, 3, 3)

    def loss(x):
        return (lax.conv(x, da.from_array(w), (1, 1), "SAME") ** 2).sum()
    y = lax.conv(da.from_array(x), da.from_array(w), (1, 1), "SAME")
    assert isinstance(y, da.Array)
    np.testing.assert_allclose(np.asarray(y), lax.conv(x, w, (1, 1), "SAME"), rtol=1e-12)
    g = fad.grad(loss)(da.from_array(x))
    assert isinstance(g, da.Array)
    np.testing.assert_allclose(np.asarray(g), fad.grad(loss)(x), rtol=1e-12)


@pytest.mark.parametrize("groups", [1, 3])
def test_per_example_gradients_of_a_grouped_convolution(groups):
    # vmap of grad: the kernel's cotangent is a convolution with batch groups,
    # batched in both operands
    x, w = normal(4, 1, 3, 5, 5), normal(6, 3 // groups, 3, 3)

    def loss(w, x):
        return (lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                         feature_group_count=groups) ** 2).sum()
    got = fad.vmap(fad.grad(loss), in_axes=(None, 0))(w, x)
    want = np.stack([fad.grad(loss)(w, x[i]) for i in range(4)])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    got_x = fad.vmap(fad.grad(loss, argnums=1), in_axes=(0, 0))(np.stack([w, -w]), x[:2])
    want_x = np.stack([fad.grad(loss, argnums=1)(v, x[i]) for i, v in enumerate([w, -w])])
    np.testing.assert_allclose(got_x, want_x, rtol=1e-12)


def test_the_two_contractions_agree():
    """The kernel's im2col (gather) and col2im (scatter) ways give the same values
    for unit-stride convolutions with any padding (cropping too) and dilations."""
    from fad.primitives.convolution import _conv_gather, _conv_scatter
    from fad.primitives.windows import window_count
    rng = np.random.default_rng(1)
    for _ in range(60):
        nsp = int(rng.integers(1, 4))
        cells = tuple(int(v) for v in rng.integers(1, 6, nsp))
        window = tuple(int(v) for v in rng.integers(1, 4, nsp))
        ld = tuple(int(v) for v in rng.integers(1, 3, nsp))
        rd = tuple(int(v) for v in rng.integers(1, 3, nsp))
        pads = tuple((int(lo), int(hi)) for lo, hi in rng.integers(-2, 5, (nsp, 2)))
        out = tuple(window_count(n, k, 1, p, a, d)
                    for n, k, p, a, d in zip(cells, window, pads, ld, rd))
        if 0 in out:
            continue
        b, f, o = (int(v) for v in rng.integers(1, 4, 3))
        x, w = normal(b, f, *cells), normal(o, f, *window)
        gathered = _conv_gather(np, x, w, (1,) * nsp, pads, ld, rd, out)
        scattered = _conv_scatter(x, w, pads, ld, rd, out)
        assert scattered.shape == gathered.shape == (b, o, *out)
        np.testing.assert_allclose(scattered, gathered, rtol=1e-10, atol=1e-12)


def test_an_input_cotangent_matches_torch_on_either_contraction():
    """LeNet's second layer: the input's cotangent (the kernel picks col2im) and the
    kernel's (im2col), against PyTorch."""
    x, w = normal(8, 6, 14, 14, dtype=np.float32), normal(16, 6, 5, 5, dtype=np.float32)
    ct = normal(8, 16, 10, 10, dtype=np.float32)
    _, vjp = fad.vjp(lambda x, w: lax.conv(x, w, (1, 1), "VALID"), x, w)
    dx, dw = vjp(ct)
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    F.conv2d(xt, wt).backward(torch.tensor(ct))
    np.testing.assert_allclose(dx, xt.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dw, wt.grad.numpy(), rtol=1e-4, atol=1e-4)
