"""Normalisation and attention layers of the facade against PyTorch's: outputs,
gradients of inputs and parameters, running statistics, ``train``/``eval``,
``state_dict`` keys, ``repr`` and error messages (skipped without torch)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import DTYPES, close  # noqa: E402

import fad.torch as ftorch  # noqa: E402


def twins(make: Any, dtype: str, randomize: bool = True) -> tuple:
    """The PyTorch module and the facade's, with the same (random) parameters."""
    real_torch.manual_seed(0)
    mt = make(real_torch).to(getattr(real_torch, dtype))
    if randomize:
        with real_torch.no_grad():
            for p in mt.parameters():
                p.copy_(real_torch.randn_like(p))
    mf = make(ftorch).to(getattr(ftorch, dtype))
    assert list(mf.state_dict()) == list(mt.state_dict())
    mf.load_state_dict({k: ftorch.tensor(v.numpy()) for k, v in mt.state_dict().items()})
    return mt, mf


def inputs(shape: tuple, dtype: str, seed: int = 0) -> tuple:
    x = np.random.default_rng(seed).normal(size=shape).astype(dtype)
    return (real_torch.tensor(x, requires_grad=True), ftorch.tensor(x, requires_grad=True))


def run_both(mt: Any, mf: Any, xs: tuple, dtype: str, *args: Any, **kw: Any) -> None:
    """Forward and backward (a non-trivial cotangent) through both; compare."""
    outs = []
    for m, x in zip((mt, mf), xs):
        out = m(x, *args, **kw)
        out = out[0] if isinstance(out, tuple) else out
        w = np.cos(np.arange(out.numel())).reshape(tuple(out.shape)).astype(dtype)
        (out * (real_torch if m is mt else ftorch).tensor(w)).sum().backward()
        outs.append(out)
    close(outs[1], outs[0], dtype)
    close(xs[1].grad, xs[0].grad, dtype)
    for (n, pt), (n2, pf) in zip(mt.named_parameters(), mf.named_parameters()):
        assert n == n2
        close(pf.grad, pt.grad, dtype)


# ------------------------------------------------------------------ batch norm
@DTYPES
@pytest.mark.parametrize("cls,shape", [("BatchNorm1d", (5, 3)), ("BatchNorm1d", (4, 3, 6)),
                                       ("BatchNorm2d", (4, 3, 2, 5))])
@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm_training_steps_and_running_stats(cls: str, shape: tuple, momentum: Any,
                                                     dtype: str) -> None:
    mt, mf = twins(lambda t: getattr(t.nn, cls)(3, momentum=momentum), dtype)
    for step in range(3):
        for m in (mt, mf):
            m.zero_grad()
        run_both(mt, mf, inputs(shape, dtype, step), dtype)
        for name in ("running_mean", "running_var"):
            close(getattr(mf, name), getattr(mt, name), dtype)
        assert int(mf.num_batches_tracked) == int(mt.num_batches_tracked) == step + 1
        assert mf.num_batches_tracked.dtype is ftorch.int64
    mt.eval()
    mf.eval()
    run_both(mt, mf, inputs(shape, dtype, 9), dtype)
    close(mf.running_mean, mt.running_mean, dtype)  # eval leaves the statistics alone
    assert int(mf.num_batches_tracked) == 3


@pytest.mark.parametrize("affine,track,bias", [(False, True, True), (True, False, True),
                                               (False, False, True), (True, True, False)])
def test_batch_norm_options(affine: bool, track: bool, bias: bool) -> None:
    dtype = "float64"
    mt, mf = twins(lambda t: t.nn.BatchNorm1d(3, affine=affine, track_running_stats=track,
                                              bias=bias), dtype)
    assert repr(mf) == repr(mt)
    assert [n for n, _ in mf.named_buffers()] == [n for n, _ in mt.named_buffers()]
    for train in (True, False):
        mt.train(train)
        mf.train(train)
        run_both(mt, mf, inputs((6, 3), dtype, int(train)), dtype)


def test_batch_norm_train_and_eval_differ_and_defaults() -> None:
    bn = ftorch.nn.BatchNorm2d(2)
    assert repr(bn) == "BatchNorm2d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, " \
        "track_running_stats=True)"
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                     "num_batches_tracked"]
    np.testing.assert_array_equal(bn.weight.detach().numpy(), [1.0, 1.0])
    x = ftorch.randn(4, 2, 3, 3) * 3 + 1
    train = bn(x)
    bn.eval()
    ev = bn(x)
    assert not np.allclose(train.detach().numpy(), ev.detach().numpy())
    assert ev.grad_fn.name() == "NativeBatchNormBackward0"


def test_batch_norm_errors_like_pytorch() -> None:
    for torch in (real_torch, ftorch):
        with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
            torch.nn.BatchNorm1d(3)(torch.ones(2, 3, 1, 1))
        with pytest.raises(ValueError, match=r"expected 4D input \(got 2D input\)"):
            torch.nn.BatchNorm2d(3)(torch.ones(2, 3))
        with pytest.raises(ValueError, match="Expected more than 1 value per channel when "
                           r"training, got input size torch.Size\(\[1, 3\]\)"):
            torch.nn.BatchNorm1d(3)(torch.ones(1, 3))


# ------------------------------------------------------------------ layer / group norm
@DTYPES
@pytest.mark.parametrize("shape,kw", [((4,), {}), ((3, 4), {}), ((4,), {"bias": False}),
                                      ((4,), {"elementwise_affine": False})])
def test_layer_norm(shape: tuple, kw: dict, dtype: str) -> None:
    mt, mf = twins(lambda t: t.nn.LayerNorm(shape, eps=1e-3, **kw), dtype)
    assert repr(mf) == repr(mt)
    run_both(mt, mf, inputs((2, 3, 4), dtype), dtype)


@DTYPES
@pytest.mark.parametrize("groups,kw", [(2, {}), (1, {}), (6, {}), (3, {"affine": False}),
                                       (2, {"bias": False})])
def test_group_norm(groups: int, kw: dict, dtype: str) -> None:
    mt, mf = twins(lambda t: t.nn.GroupNorm(groups, 6, **kw), dtype)
    assert repr(mf) == repr(mt)
    run_both(mt, mf, inputs((2, 6, 5), dtype), dtype)
    run_both(mt, mf, inputs((3, 6, 2, 2), dtype), dtype)


def test_norm_errors_like_pytorch() -> None:
    for torch in (real_torch, ftorch):
        with pytest.raises(RuntimeError) as e:
            torch.nn.functional.layer_norm(torch.ones(2, 3), (4,))
        assert str(e.value) == "Given normalized_shape=[4], expected input with shape " \
            "[*, 4], but got input of size[2, 3]"
        with pytest.raises(RuntimeError) as e:
            torch.nn.functional.group_norm(torch.ones(2, 6, 4), 4)
        assert str(e.value) == "Expected number of channels in input to be divisible by " \
            "num_groups, but got input of shape [2, 6, 4] and num_groups=4"
        with pytest.raises(ValueError,
                           match=r"num_channels \(6\) must be divisible by num_groups \(4\)"):
            torch.nn.GroupNorm(4, 6)


NORMS = {"batch": lambda t: t.nn.BatchNorm1d(3), "layer": lambda t: t.nn.LayerNorm(3),
         "group": lambda t: t.nn.GroupNorm(1, 3)}


@pytest.mark.parametrize("kind", list(NORMS))
def test_norms_refuse_mixed_dtypes_like_pytorch(kind: str) -> None:
    """Parameters of another dtype than the input are PyTorch's errors, not a silent
    promotion (float32 parameters of a half input excepted), in eval mode too."""
    messages = []
    for torch in (real_torch, ftorch):
        got = []
        for x_dtype in ("float16", "float32", "float64"):
            for p_dtype in ("float16", "float32", "float64"):
                m = NORMS[kind](torch).to(getattr(torch, p_dtype))
                for mode in (m.train, m.eval):
                    mode()
                    try:
                        got.append(str(m(torch.ones(4, 3, dtype=getattr(torch, x_dtype))).dtype))
                    except RuntimeError as e:
                        got.append(str(e))
        messages.append(got)
    assert messages[1] == messages[0]
    assert "mixed dtype (CPU): all inputs must share same datatype." in messages[0]


@pytest.mark.parametrize("kind", list(NORMS))
def test_norms_of_half_inputs_with_float32_parameters(kind: str) -> None:
    """Half inputs with float32 parameters: computed in float32, the result and the
    input's gradient half, the parameters' gradients float32 -- PyTorch's to the bit."""
    grads = []
    for torch in (real_torch, ftorch):
        m = NORMS[kind](torch)
        x = torch.tensor(np.arange(12.0).reshape(4, 3) ** 2, dtype=torch.float16,
                         requires_grad=True)
        y = m(x)
        (y * torch.arange(12.0).reshape(4, 3)).sum().backward()
        assert y.dtype == torch.float16 and x.grad.dtype == torch.float16
        assert m.weight.grad.dtype == torch.float32
        grads.append([v.detach().float().numpy() for v in (y, x.grad, m.weight.grad)])
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=1e-3, atol=1e-3)


# ------------------------------------------------------------------ attention
@DTYPES
@pytest.mark.parametrize("case", ["plain", "bool_mask", "float_mask", "causal", "scale"])
def test_scaled_dot_product_attention(case: str, dtype: str) -> None:
    qs, ks, vs = (inputs((2, 3, 4, 5), dtype, s) for s in range(3))
    mask = np.random.default_rng(5).random((4, 6)) > 0.3
    mask[:, 0] = True  # (no fully masked row)
    kw: dict = {}
    outs, grads = [], []
    for i, torch in enumerate((real_torch, ftorch)):
        k = ks[i].repeat(1, 1, 2, 1)[:, :, :6]
        v = vs[i].repeat(1, 1, 2, 1)[:, :, :6]
        if case == "bool_mask":
            kw = {"attn_mask": torch.tensor(mask)}
        elif case == "float_mask":
            kw = {"attn_mask": torch.tensor(np.where(mask, 0.5, -2.0).astype(dtype))}
        elif case == "causal":
            kw = {"is_causal": True}
        elif case == "scale":
            kw = {"scale": 0.3}
        out = torch.nn.functional.scaled_dot_product_attention(qs[i], k, v, **kw)
        (out * torch.tensor(np.sin(np.arange(out.numel())).reshape(tuple(out.shape))
                            .astype(dtype))).sum().backward()
        outs.append(out)
        grads.append([t.grad for t in (qs[i], ks[i], vs[i])])
    close(outs[1], outs[0], dtype)
    for gf, gt in zip(grads[1], grads[0]):
        close(gf, gt, dtype)


def _mha(torch: Any, **kw: Any) -> Any:
    return torch.nn.MultiheadAttention(6, 3, **kw)


@DTYPES
@pytest.mark.parametrize("case", ["plain", "batch_first", "unbatched", "masks", "no_bias",
                                  "per_head", "kdim_vdim"])
def test_multihead_attention(case: str, dtype: str) -> None:
    kw = {"batch_first": True} if case == "batch_first" else \
        {"bias": False} if case == "no_bias" else \
        {"kdim": 3, "vdim": 4} if case == "kdim_vdim" else {}
    mt, mf = twins(lambda t: _mha(t, **kw), dtype)
    assert repr(mf) == repr(mt)
    shapes = {"unbatched": ((4, 6), (5, 6)), "batch_first": ((2, 4, 6), (2, 5, 6))}
    qshape, kvshape = shapes.get(case, ((4, 2, 6), (5, 2, 6)))
    q = inputs(qshape, dtype, 0)
    kv = inputs(kvshape, dtype, 1)
    v = kv
    if case == "kdim_vdim":
        kv = inputs((5, 2, 3), dtype, 1)
        v = inputs((5, 2, 4), dtype, 2)
    results = []
    for i, (m, torch) in enumerate(((mt, real_torch), (mf, ftorch))):
        call_kw: dict = {"average_attn_weights": case != "per_head"}
        if case == "masks":
            call_kw["attn_mask"] = torch.tensor(np.triu(np.ones((4, 5), bool), 2))
            call_kw["key_padding_mask"] = torch.tensor(np.array([[0, 0, 0, 0, 1],
                                                                 [0, 0, 0, 0, 0]], bool))
        out, w = m(q[i], kv[i], v[i], **call_kw)
        (out * torch.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape))
                            .astype(dtype))).sum().backward()
        results.append((out, w))
    (ot, wt), (of, wf) = results
    close(of, ot, dtype)
    close(wf, wt, dtype)
    close(q[1].grad, q[0].grad, dtype)
    close(kv[1].grad, kv[0].grad, dtype)
    close(v[1].grad, v[0].grad, dtype)
    for (n, pt), (n2, pf) in zip(mt.named_parameters(), mf.named_parameters()):
        assert n == n2
        close(pf.grad, pt.grad, dtype)
    out, w = mf(q[1], kv[1], v[1], need_weights=False)
    assert w is None and tuple(out.shape) == tuple(ot.shape)


def test_multihead_attention_layout_and_errors() -> None:
    mf = ftorch.nn.MultiheadAttention(4, 2)
    assert list(mf.state_dict()) == ["in_proj_weight", "in_proj_bias", "out_proj.weight",
                                     "out_proj.bias"]
    assert mf.in_proj_weight.shape == (12, 4) and float(mf.in_proj_bias.abs().sum()) == 0.0
    for torch in (real_torch, ftorch):
        with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
            torch.nn.MultiheadAttention(5, 2)
        m = torch.nn.MultiheadAttention(4, 2)
        x = torch.ones(3, 1, 4)
        with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal"):
            m(x, x, x, is_causal=True)


@pytest.mark.parametrize("kw", [{}, {"norm_first": True}, {"activation": "gelu"},
                                {"batch_first": True}])
def test_transformer_encoder_layer(kw: dict) -> None:
    dtype = "float64"
    mt, mf = twins(lambda t: t.nn.TransformerEncoderLayer(6, 2, dim_feedforward=8, **kw),
                   dtype)
    assert repr(mf) == repr(mt)
    mt.eval()
    mf.eval()
    run_both(mt, mf, inputs((4, 3, 6), dtype), dtype)
    mask = np.triu(np.ones((4, 4), bool), 1)
    mt.zero_grad()
    mf.zero_grad()
    outs = [m(x, src_mask=t.tensor(mask), is_causal=True) for m, x, t in
            ((mt, inputs((4, 4, 6), dtype)[0], real_torch),
             (mf, inputs((4, 4, 6), dtype)[1], ftorch))]
    close(outs[1], outs[0], dtype)


def test_transformer_encoder() -> None:
    dtype = "float64"

    def make(t: Any) -> Any:
        layer = t.nn.TransformerEncoderLayer(6, 2, dim_feedforward=8, dropout=0.0)
        return t.nn.TransformerEncoder(layer, 2, norm=t.nn.LayerNorm(6),
                                       enable_nested_tensor=False)

    mt, mf = twins(make, dtype)
    run_both(mt, mf, inputs((4, 3, 6), dtype), dtype)
    p0 = mf.layers[0].linear1.weight
    assert p0 is not mf.layers[1].linear1.weight  # deep copies


def test_training_step_with_norm_layers() -> None:
    """A small model with batch and layer norm trains (the loss goes down)."""
    ftorch.manual_seed(0)
    nn = ftorch.nn
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.LayerNorm(8),
                          nn.Linear(8, 1))
    opt = ftorch.optim.SGD(model.parameters(), lr=0.1)
    x = ftorch.randn(32, 4)
    y = x.sum(1, keepdim=True)
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]


def test_second_derivatives_of_norms() -> None:
    """``create_graph=True`` through layer, group and batch norm, against PyTorch."""
    dtype = "float64"
    xs = inputs((3, 4, 2), dtype)
    w = np.linspace(0.5, 2.0, 4)
    grads = []
    for x, torch in zip(xs, (real_torch, ftorch)):
        F = torch.nn.functional
        weight = torch.tensor(w, requires_grad=True)
        y = (F.layer_norm(x, (2,)) ** 3).sum() + (F.group_norm(x, 2, weight) ** 3).sum() \
            + (F.batch_norm(x, None, None, weight, None, True) ** 3).sum()
        (gx,) = torch.autograd.grad(y, x, create_graph=True)
        (gx * gx).sum().backward()
        grads.append((x.grad, weight.grad))
    close(grads[1][0], grads[0][0], dtype)
    close(grads[1][1], grads[0][1], dtype)


def test_attention_dropout_only_in_training() -> None:
    ftorch.manual_seed(0)
    m = ftorch.nn.MultiheadAttention(4, 2, dropout=0.5)
    x = ftorch.randn(5, 2, 4)
    a, wa = m(x, x, x)
    b, wb = m(x, x, x)
    assert not np.allclose(wa.detach().numpy(), wb.detach().numpy())
    m.eval()
    c, wc = m(x, x, x)
    d, wd = m(x, x, x)
    np.testing.assert_array_equal(c.detach().numpy(), d.detach().numpy())
    np.testing.assert_allclose(wc.detach().numpy().sum(-1), 1.0, rtol=1e-6)


def test_batch_norm_under_vmap() -> None:
    """Running statistics cannot take per-example updates (PyTorch's error); without
    them, ``vmap`` normalises each example's batch on its own."""
    x = ftorch.randn(2, 4, 3)
    with pytest.raises(RuntimeError, match="Batch norm got a batched tensor as input"):
        ftorch.func.vmap(ftorch.nn.BatchNorm1d(3))(x)
    out = ftorch.func.vmap(ftorch.nn.BatchNorm1d(3, track_running_stats=False))(x)
    for i in range(2):
        np.testing.assert_allclose(out[i].detach().numpy(), ftorch.nn.BatchNorm1d(3)(x[i]).detach()
                                   .numpy(), rtol=1e-5, atol=1e-5)
