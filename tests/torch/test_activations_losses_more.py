"""More activations, losses and layers of the facade against PyTorch's: outputs,
dtypes, gradients of inputs and parameters in float32 and float64, ``grad_fn``
names, ``repr``, ``state_dict`` keys and error messages (skipped without torch)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
from torch_compare import DTYPES, close  # noqa: E402

import fad.torch as ftorch  # noqa: E402


def both(make: Any, dtype: str) -> tuple:
    """PyTorch's module and the facade's, with the same parameters."""
    mt = make(real_torch).to(getattr(real_torch, dtype))
    mf = make(ftorch).to(getattr(ftorch, dtype))
    assert repr(mf) == repr(mt)
    assert list(mf.state_dict()) == list(mt.state_dict())
    with real_torch.no_grad():
        for p in mt.parameters():
            p.copy_(real_torch.randn_like(p))
    mf.load_state_dict({k: ftorch.tensor(v.numpy()) for k, v in mt.state_dict().items()})
    return mt, mf


def arrays(shapes: list, dtype: str, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    return [rng.normal(size=s).astype(dtype) for s in shapes]


def compare(ft: Any, ff: Any, xs: list, dtype: str, grads: tuple | None = None,
            params: tuple = ((), ()), grad_tol: float | None = None) -> None:
    """``ft(*tensors)`` in PyTorch and ``ff(*tensors)`` in the facade: outputs,
    ``grad_fn`` names and the gradients of the inputs listed in ``grads`` (all the
    floating ones by default) and of ``params`` (PyTorch's, the facade's)."""
    grads = tuple(i for i, x in enumerate(xs) if x.dtype.kind == "f") if grads is None \
        else grads
    tt = [real_torch.tensor(x, requires_grad=i in grads) for i, x in enumerate(xs)]
    tf = [ftorch.tensor(x, requires_grad=i in grads) for i, x in enumerate(xs)]
    outs = []
    for lib, f, ts, ps in ((real_torch, ft, tt, params[0]), (ftorch, ff, tf, params[1])):
        out = f(*ts)
        w = np.cos(np.arange(out.numel())).reshape(tuple(out.shape)).astype(dtype)
        if grads or ps:
            (out * lib.tensor(w)).sum().backward()
        outs.append(out)
    close(outs[1], outs[0], dtype)
    if outs[0].grad_fn is not None:
        assert outs[1].grad_fn.name() == outs[0].grad_fn.name()
    for i in grads:
        close(tf[i].grad, tt[i].grad, dtype, grad_tol)
    for pt, pf in zip(*params):
        close(pf.grad, pt.grad, dtype)


# ------------------------------------------------------------------ activations
ACTIVATIONS = [("selu", {}), ("celu", {}), ("celu", {"alpha": 2.0}), ("mish", {}),
               ("hardswish", {}), ("hardsigmoid", {}), ("softsign", {}), ("tanhshrink", {}),
               ("softshrink", {}), ("softshrink", {"lambd": 1.2}), ("hardshrink", {}),
               ("hardshrink", {"lambd": 0.1}), ("threshold", {"threshold": 0.3, "value": -2.0}),
               ("glu", {}), ("glu", {"dim": 1}), ("logsigmoid", {}), ("hardtanh", {}),
               ("softmin", {"dim": 1}), ("elu", {}), ("leaky_relu", {"negative_slope": 0.2}),
               ("rrelu", {"lower": 0.2, "upper": 0.4})]


@DTYPES
@pytest.mark.parametrize("name,kw", ACTIVATIONS)
def test_functional_activations(name: str, kw: dict, dtype: str) -> None:
    x = arrays([(4, 6)], dtype)[0] * 3
    x[0, :3] = [0.0, 0.5, -3.0]  # kinks
    # (PyTorch's float64 hardsigmoid derivative is the float32 number nearest 1/6)
    tol = 1e-7 if (name, dtype) == ("hardsigmoid", "float64") else None
    compare(lambda t: getattr(real_torch.nn.functional, name)(t, **kw),
            lambda t: getattr(ftorch.nn.functional, name)(t, **kw), [x], dtype, grad_tol=tol)


MODULES = ["SELU()", "SELU(inplace=True)", "CELU()", "CELU(2.0, inplace=True)", "Mish()",
           "Hardswish()", "Hardsigmoid()", "Hardtanh()", "Hardtanh(-2.0, 2.5)",
           "Hardtanh(min_val=-0.5, max_val=0.5, inplace=True)", "Softsign()", "Softmin(1)",
           "Softmax2d()", "LogSigmoid()", "Tanhshrink()", "Softshrink()", "Softshrink(0.2)",
           "Hardshrink()", "Hardshrink(1.5)", "Threshold(0.1, 20.0)",
           "Threshold(-0.2, 1, inplace=True)", "GLU()", "GLU(1)", "PReLU()", "PReLU(4)",
           "PReLU(4, init=0.1)", "ReLU(inplace=True)", "ReLU6()", "ReLU6(True)", "ELU()",
           "ELU(0.5, True)", "LeakyReLU()", "LeakyReLU(0.2, True)", "GELU('tanh')",
           "SiLU(inplace=True)", "Softplus(beta=2)", "RReLU()", "RReLU(0.1, 0.3, True)"]


@DTYPES
@pytest.mark.parametrize("src", MODULES)
def test_activation_modules(src: str, dtype: str) -> None:
    mt, mf = both(lambda t: eval("t.nn." + src), dtype)
    x = arrays([(2, 4, 3, 2)], dtype)[0] * 2
    inplace = "True" in src
    if src.startswith("RReLU"):  # (random slopes in training)
        mt.eval()
        mf.eval()

    def run(m: Any, lib: Any) -> Any:
        return (lambda t: m(t * 1)) if inplace else m

    tol = 1e-7 if (src, dtype) == ("Hardsigmoid()", "float64") else None
    compare(run(mt, real_torch), run(mf, ftorch), [x], dtype,
            params=(list(mt.parameters()), list(mf.parameters())), grad_tol=tol)


def test_prelu_parameter_and_init_like_pytorch() -> None:
    for n, init in ((1, 0.25), (5, 0.1)):
        mt, mf = real_torch.nn.PReLU(n, init), ftorch.nn.PReLU(n, init)
        assert repr(mf) == repr(mt) == f"PReLU(num_parameters={n})"
        assert [(k, tuple(v.shape)) for k, v in mf.named_parameters()] == \
            [(k, tuple(v.shape)) for k, v in mt.named_parameters()]
        np.testing.assert_array_equal(mf.weight.detach().numpy(), mt.weight.detach().numpy())
        assert mf.weight.dtype is ftorch.float32
    x = ftorch.randn(2, 5, requires_grad=True)
    assert ftorch.nn.PReLU(5)(x).grad_fn.name() == "PreluKernelBackward0"
    for lib in (real_torch, ftorch):  # one-d input: a single channel
        assert lib.nn.functional.prelu(lib.tensor([-1.0, 2.0]), lib.tensor([0.5])).tolist() \
            == [-0.5, 2.0]


def test_activation_errors_like_pytorch() -> None:
    for lib in (real_torch, ftorch):
        F = lib.nn.functional
        with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension "
                           "1 is size 3"):
            F.glu(lib.ones(2, 3), 1)
        with pytest.raises(RuntimeError, match="glu does not support scalars"):
            F.glu(lib.tensor(1.0))
        with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input "
                           "channel size. Found parameter numbers = 3 and channel size = 4"):
            lib.nn.PReLU(3)(lib.ones(2, 4))
        for dtype, word in (("float32", r"3.40282e\+38\] for input dtype Float"),
                            ("float64", r"1.79769e\+308\] for input dtype Double")):
            with pytest.raises(RuntimeError, match=r"lambda must be in range \[0, " + word +
                               ", but found -1.5"):
                F.softshrink(lib.ones(2, dtype=getattr(lib, dtype)), -1.5)
        with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got "
                           "2D instead"):
            lib.nn.Softmax2d()(lib.ones(2, 3))


def test_inplace_activations_write_the_input() -> None:
    for name in ("selu_", "celu_", "elu_", "leaky_relu_", "hardtanh_"):
        xt, xf = real_torch.tensor([-2.0, 0.3, 2.0]), ftorch.tensor([-2.0, 0.3, 2.0])
        getattr(real_torch.nn.functional, name)(xt)
        out = getattr(ftorch.nn.functional, name)(xf)
        assert out is xf
        np.testing.assert_allclose(xf.numpy(), xt.numpy(), rtol=1e-6)
    xf = ftorch.tensor([-2.0, 0.3, 2.0])
    ftorch.nn.functional.threshold_(xf, 0.5, 7.0)
    assert xf.tolist() == [7.0, 7.0, 2.0]


def test_gumbel_softmax_samples() -> None:
    F = ftorch.nn.functional
    ftorch.manual_seed(0)
    logits = ftorch.tensor(np.log([[0.7, 0.2, 0.1]] * 4000), requires_grad=True)
    y = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(y.sum(-1).detach().numpy(), 1.0, rtol=1e-12)
    hard = F.gumbel_softmax(logits, hard=True)
    h = hard.detach().numpy()
    assert set(np.unique(h)) <= {0.0, 1.0} and (h.sum(-1) == 1).all()
    # the class frequencies of hard samples are the softmax of the logits
    np.testing.assert_allclose(h.mean(0), [0.7, 0.2, 0.1], atol=0.03)
    (hard * ftorch.arange(3.0)).sum().backward()  # straight-through: the soft gradient
    assert logits.grad is not None and np.abs(logits.grad.numpy()).sum() > 0
    assert F.gumbel_softmax(ftorch.zeros(2, 3, dtype=ftorch.float32), dim=0).dtype \
        is ftorch.float32


# ------------------------------------------------------------------ losses
def _signs(x: np.ndarray) -> np.ndarray:
    return np.where(x > 0, 1.0, -1.0).astype(x.dtype)


LOSSES = {  # name: (functional call, inputs, indices of the inputs differentiated)
    "cosine_embedding": (lambda F, a, b, y, **k: F.cosine_embedding_loss(a, b, y, 0.1, **k),
                         lambda a, b, c: [a, b, _signs(c[:, 0])], (0, 1)),
    "cosine_embedding_1d": (lambda F, a, b, y, **k: F.cosine_embedding_loss(a, b, y, **k),
                            lambda a, b, c: [a[0], b[0], _signs(c[0, :1])[0]], (0, 1)),
    "margin_ranking": (lambda F, a, b, y, **k: F.margin_ranking_loss(a, b, y, 0.2, **k),
                       lambda a, b, c: [a[:, 0], b[:, 0], _signs(c[:, 0])], (0, 1)),
    "hinge_embedding": (lambda F, a, y, **k: F.hinge_embedding_loss(a, y, 0.7, **k),
                        lambda a, b, c: [a, _signs(b)], (0,)),
    "triplet": (lambda F, a, b, c, **k: F.triplet_margin_loss(a, b, c, **k),
                lambda a, b, c: [a, b, c], (0, 1, 2)),
    "triplet_swap_p1": (lambda F, a, b, c, **k: F.triplet_margin_loss(a, b, c, 2.0, 1, 1e-3,
                                                                      True, **k),
                        lambda a, b, c: [a, b, c], (0, 1, 2)),
    "soft_margin": (lambda F, a, y, **k: F.soft_margin_loss(a, y, **k),
                    lambda a, b, c: [a, _signs(b)], (0,)),
    "multilabel_soft_margin": (lambda F, a, y, w, **k: F.multilabel_soft_margin_loss(
        a, y, w, **k), lambda a, b, c: [a, (b > 0).astype(a.dtype), np.abs(c[0])], (0,)),
    "multi_margin": (lambda F, a, y, **k: F.multi_margin_loss(a, y, **k),
                     lambda a, b, c: [a, np.array([0, 1, 4, 2, 3, 3])], (0,)),
    "multi_margin_p2_weight": (lambda F, a, y, w, **k: F.multi_margin_loss(
        a, y, 2, 0.5, w, **k), lambda a, b, c: [a, np.array([0, 1, 4, 2, 3, 3]),
                                                np.abs(c[0])], (0,)),
    "multi_margin_1d": (lambda F, a, y, **k: F.multi_margin_loss(a, y, **k),
                        lambda a, b, c: [a[0], np.array(2)], (0,)),
    "poisson_nll": (lambda F, a, y, **k: F.poisson_nll_loss(a, y, **k),
                    lambda a, b, c: [a, np.abs(b) * 2], (0,)),
    "poisson_nll_full": (lambda F, a, y, **k: F.poisson_nll_loss(a, y, False, True, **k),
                         lambda a, b, c: [np.abs(a) + 0.1, np.round(np.abs(b) * 3)], (0,)),
    "gaussian_nll": (lambda F, a, b, v, **k: F.gaussian_nll_loss(a, b, v, **k),
                     lambda a, b, c: [a, b, np.abs(c) + 1e-7], (0, 1, 2)),
    "gaussian_nll_shared_full": (lambda F, a, b, v, **k: F.gaussian_nll_loss(
        a, b, v, full=True, **k), lambda a, b, c: [a, b, np.abs(c[:, 0])], (0, 1, 2)),
    "multilabel_margin": (lambda F, a, y, **k: F.multilabel_margin_loss(a, y, **k),
                          lambda a, b, c: [a, np.array([[3, 0, -1, 1, 2]] * 3 + [[0, 1, 2, 3, 4]]
                                                       + [[-1, 0, 0, 0, 0], [4, 4, -1, 0, 0]])],
                          (0,)),
    "multilabel_margin_1d": (lambda F, a, y, **k: F.multilabel_margin_loss(a, y, **k),
                             lambda a, b, c: [a[0], np.array([2, 0, -1, 3, 3])], (0,)),
    "triplet_with_distance": (lambda F, a, b, c, **k: F.triplet_margin_with_distance_loss(
        a, b, c, margin=1.5, swap=True, **k), lambda a, b, c: [a, b, c], (0, 1, 2)),
    "triplet_with_cosine": (lambda F, a, b, c, **k: F.triplet_margin_with_distance_loss(
        a, b, c, distance_function=lambda x, y: 1 - F.cosine_similarity(x, y), **k),
        lambda a, b, c: [a, b, c], (0, 1, 2)),
    "bce_weight": (lambda F, p, y, w, **k: F.binary_cross_entropy(p, y, w, **k),
                   lambda a, b, c: [1 / (1 + np.exp(-a)), (b > 0).astype(a.dtype),
                                    np.abs(c[0])], (0,)),
}


@DTYPES
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", list(LOSSES))
def test_functional_losses(name: str, reduction: str, dtype: str) -> None:
    call, make, grads = LOSSES[name]
    xs = make(*arrays([(6, 5), (6, 5), (6, 5)], dtype))
    compare(lambda *ts: call(real_torch.nn.functional, *ts, reduction=reduction),
            lambda *ts: call(ftorch.nn.functional, *ts, reduction=reduction), xs, dtype,
            grads)


def test_legacy_reduction_flags() -> None:
    a, b = arrays([(3, 4), (3, 4)], "float64")
    for kw in ({"size_average": False}, {"reduce": False}):
        out = [lib.nn.functional.soft_margin_loss(lib.tensor(a), lib.tensor(_signs(b)), **kw)
               for lib in (real_torch, ftorch)]
        close(out[1], out[0], "float64")


LOSS_MODULES = ["CosineEmbeddingLoss()", "MarginRankingLoss(margin=0.5)",
                "HingeEmbeddingLoss(2.0, reduction='sum')", "TripletMarginLoss(p=1.0)",
                "SoftMarginLoss()", "MultiLabelSoftMarginLoss(t.ones(5) / 2)",
                "MultiMarginLoss(2, weight=t.arange(5.0))", "PoissonNLLLoss(full=True)",
                "GaussianNLLLoss(full=True, reduction='none')", "BCELoss(weight=t.ones(5) * 2)",
                "BCEWithLogitsLoss(pos_weight=t.ones(5))", "CrossEntropyLoss(t.ones(5))",
                "MultiLabelMarginLoss()", "TripletMarginWithDistanceLoss(margin=0.5)"]


@pytest.mark.parametrize("src", LOSS_MODULES)
def test_loss_modules(src: str) -> None:
    mt, mf = (eval("t.nn." + src, {"t": t}) for t in (real_torch, ftorch))
    assert repr(mf) == repr(mt)
    assert list(mf.state_dict()) == list(mt.state_dict())
    for k, v in mt.state_dict().items():
        np.testing.assert_array_equal(mf.state_dict()[k].numpy(), v.numpy())
    a, b, c = arrays([(6, 5), (6, 5), (6, 5)], "float32")
    name = src.split("(")[0]
    xs = {"CosineEmbeddingLoss": [a, b, _signs(c[:, 0])],
          "MarginRankingLoss": [a, b, _signs(c)], "TripletMarginLoss": [a, b, c],
          "MultiMarginLoss": [a, np.array([0, 1, 4, 2, 3, 3])],
          "MultiLabelMarginLoss": [a, np.array([[3, 0, -1, 1, 2]] * 6)],
          "TripletMarginWithDistanceLoss": [a, b, c],
          "PoissonNLLLoss": [a, np.round(np.abs(b) * 3)],
          "GaussianNLLLoss": [a, b, np.abs(c)],
          "BCELoss": [1 / (1 + np.exp(-a)), (b > 0).astype(a.dtype)],
          "MultiLabelSoftMarginLoss": [a, (b > 0).astype(a.dtype)],
          "BCEWithLogitsLoss": [a, (b > 0).astype(a.dtype)],
          "CrossEntropyLoss": [a, np.array([0, 1, 4, 2, 3, 3])]}.get(name, [a, _signs(b)])
    compare(mt, mf, xs, "float32", (0,))


def test_loss_errors_like_pytorch() -> None:
    for lib in (real_torch, ftorch):
        F, nn = lib.nn.functional, lib.nn
        with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
            F.multi_margin_loss(lib.ones(2, 3), lib.tensor([0, 1]), p=3)
        with pytest.raises(ValueError, match="margin must be greater than 0, got 0"):
            F.triplet_margin_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 3), margin=0)
        with pytest.raises(ValueError, match="TripletMarginLoss: expected margin to be "
                           "greater than 0, got -1 instead"):
            nn.TripletMarginLoss(margin=-1)
        with pytest.raises(ValueError, match="MultiMarginLoss: expected weight to be None or "
                           "1D tensor, got 2D instead"):
            nn.MultiMarginLoss(weight=lib.ones(2, 2))
        with pytest.raises(ValueError, match="var is of incorrect size"):
            F.gaussian_nll_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(3, 2))
        with pytest.raises(ValueError, match="var has negative entry/entries"):
            F.gaussian_nll_loss(lib.ones(2, 3), lib.ones(2, 3), -lib.ones(2, 3))
        with pytest.raises(ValueError, match="wrong is not a valid value for reduction"):
            F.soft_margin_loss(lib.ones(2), lib.ones(2), reduction="wrong")
        with pytest.raises(RuntimeError, match=r"1D target tensor expects 2D input tensors, "
                           r"but found inputs with sizes \[3\] and \[3\]"):
            F.cosine_embedding_loss(lib.ones(3), lib.ones(3), lib.ones(3))
        with pytest.raises(RuntimeError, match="margin_ranking_loss : All input tensors should "
                           "have same dimension"):
            F.margin_ranking_loss(lib.ones(3), lib.ones(3, 1), lib.ones(3))
        with pytest.raises(RuntimeError, match="The anchor, positive, and negative tensors are "
                           "expected to have the same number of dimensions, but got: anchor "
                           "2D, positive 1D, and negative 2D inputs"):
            F.triplet_margin_loss(lib.ones(2, 3), lib.ones(3), lib.ones(2, 3))


@DTYPES
def test_distances(dtype: str) -> None:
    for dim, shapes in ((1, [(4, 5), (4, 5)]), (-1, [(3, 4, 5), (1, 4, 5)]),
                        (0, [(5,), (5,)])):
        compare(lambda a, b: real_torch.nn.functional.cosine_similarity(a, b, dim),
                lambda a, b: ftorch.nn.functional.cosine_similarity(a, b, dim),
                arrays(shapes, dtype), dtype)
    a, b = arrays([(4, 5), (4, 5)], dtype)
    b[0] = 1e-9  # a norm below eps: clamped, the clamp not differentiated
    for eps in (1e-8, 1e-3):
        compare(lambda x, y: real_torch.nn.functional.cosine_similarity(x, y, eps=eps),
                lambda x, y: ftorch.nn.functional.cosine_similarity(x, y, eps=eps), [a, b],
                dtype)
    for kw in ({}, {"p": 1.0, "keepdim": True}, {"eps": 0.0, "p": 3.0}):
        compare(lambda x, y: real_torch.nn.functional.pairwise_distance(x, y, **kw),
                lambda x, y: ftorch.nn.functional.pairwise_distance(x, y, **kw), [a, b], dtype)


# ------------------------------------------------------------------ layers
LAYERS = [("ZeroPad1d(2)", (2, 3, 5)), ("ZeroPad2d(1)", (2, 3, 4, 5)),
          ("ZeroPad2d((1, 0, 2, -1))", (2, 3, 4, 5)), ("ConstantPad1d(2, 3.5)", (3, 5)),
          ("ConstantPad2d((1, 2, 0, 1), 1.0)", (2, 3, 4, 5)), ("ReflectionPad1d(2)", (2, 3, 5)),
          ("ReflectionPad1d((3, 1))", (3, 5)), ("ReflectionPad2d((1, 1, 2, 0))", (2, 3, 4, 5)),
          ("ReflectionPad2d(3)", (3, 4, 5)), ("ReflectionPad2d((-1, 2, 1, -2))", (2, 3, 4, 5)),
          ("ReplicationPad1d((1, 3))", (2, 3, 5)), ("ReplicationPad2d(2)", (2, 3, 4, 5)),
          ("ReplicationPad2d((0, 1, 3, 2))", (3, 4, 5)), ("CircularPad1d(2)", (2, 3, 5)),
          ("CircularPad2d((1, 2, 4, 0))", (2, 3, 4, 5)),
          ("Upsample(scale_factor=2)", (2, 3, 4, 5)),
          ("Upsample(scale_factor=(2, 3))", (2, 3, 4, 5)),
          ("Upsample(size=7, mode='linear')", (2, 3, 5)),
          ("Upsample(size=(5, 8), mode='bilinear', align_corners=True)", (2, 3, 4, 5)),
          ("UpsamplingNearest2d(scale_factor=2)", (1, 2, 3, 3)),
          ("UpsamplingBilinear2d(size=(5, 6))", (1, 2, 3, 3)),
          ("PixelShuffle(2)", (2, 8, 3, 4)), ("PixelShuffle(3)", (9, 2, 3)),
          ("PixelShuffle(2)", (2, 1, 4, 3, 4)), ("PixelUnshuffle(2)", (2, 3, 4, 6)),
          ("PixelUnshuffle(3)", (1, 3, 6)), ("InstanceNorm1d(3)", (2, 3, 5)),
          ("InstanceNorm1d(3, affine=True)", (3, 5)),
          ("InstanceNorm2d(3, eps=1e-3, affine=True)", (2, 3, 4, 5)),
          ("InstanceNorm2d(3)", (3, 4, 5)), ("LocalResponseNorm(2)", (2, 5, 3)),
          ("LocalResponseNorm(3, alpha=0.5, beta=0.6, k=2.0)", (2, 6, 3, 4)),
          ("LocalResponseNorm(4, alpha=1.0)", (1, 5, 2, 2, 3)),
          ("Dropout1d()", (2, 3, 4)), ("Dropout2d(0.2)", (2, 3, 4, 5)),
          ("Dropout3d()", (2, 3, 1, 2, 2)), ("AlphaDropout(0.3)", (3, 4)),
          ("FeatureAlphaDropout()", (2, 3, 4)), ("ZeroPad3d((1, 0, 2, 1, 0, 1))", (1, 2, 2, 3, 2)),
          ("ConstantPad3d(1, -1.0)", (2, 2, 3, 2)), ("ReflectionPad3d(1)", (1, 2, 2, 3, 2)),
          ("ReplicationPad3d((2, 0, 1, 1, 0, 2))", (2, 2, 3, 2)),
          ("CircularPad3d(1)", (1, 2, 2, 3, 2)),
          ("InstanceNorm3d(2, affine=True)", (2, 2, 3, 2, 2)),
          ("InstanceNorm3d(2)", (2, 3, 2, 2)), ("RMSNorm(5)", (2, 3, 5)),
          ("RMSNorm([3, 5], eps=1e-3)", (2, 3, 5)),
          ("RMSNorm(5, elementwise_affine=False)", (4, 5)), ("ChannelShuffle(3)", (2, 6, 2, 2)),
          ("ChannelShuffle(2)", (1, 4, 3))]


@DTYPES
@pytest.mark.parametrize("src,shape", LAYERS)
def test_layers(src: str, shape: tuple, dtype: str) -> None:
    mt, mf = both(lambda t: eval("t.nn." + src), dtype)
    if "Dropout" in src:  # (identities in eval mode; training mode is random)
        mt.eval()
        mf.eval()
    compare(mt, mf, arrays([shape], dtype), dtype,
            params=(list(mt.parameters()), list(mf.parameters())))


def test_instance_norm_running_statistics() -> None:
    dtype = "float64"
    mt, mf = both(lambda t: t.nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
                  dtype)
    assert list(mf.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                     "num_batches_tracked"]
    for step in range(2):
        compare(mt, mf, arrays([(2, 3, 4, 5)], dtype, step), dtype,
                params=(list(mt.parameters()), list(mf.parameters())))
        for name in ("running_mean", "running_var", "num_batches_tracked"):
            np.testing.assert_allclose(getattr(mf, name).numpy(), getattr(mt, name).numpy(),
                                       rtol=1e-12)
    mt.eval()
    mf.eval()
    compare(mt, mf, arrays([(2, 3, 4, 5)], dtype, 5), dtype)
    x = arrays([(2, 3, 5)], dtype)[0]
    rm = [lib.zeros(3, dtype=lib.float64) for lib in (real_torch, ftorch)]
    rv = [lib.ones(3, dtype=lib.float64) for lib in (real_torch, ftorch)]
    compare(lambda t: real_torch.nn.functional.instance_norm(t, rm[0], rv[0], momentum=0.3),
            lambda t: ftorch.nn.functional.instance_norm(t, rm[1], rv[1], momentum=0.3), [x],
            dtype)
    np.testing.assert_allclose(rm[1].numpy(), rm[0].numpy(), rtol=1e-12)
    np.testing.assert_allclose(rv[1].numpy(), rv[0].numpy(), rtol=1e-12)
    for lib in (real_torch, ftorch):
        with pytest.raises(ValueError, match="running_mean and running_var must either both "
                           "be None or neither be None"):
            lib.nn.functional.instance_norm(lib.tensor(x), lib.zeros(3, dtype=lib.float64))


def test_layer_reprs_and_defaults() -> None:
    for src in ("Upsample(scale_factor=2)", "Upsample(size=4, mode='linear')",
                "UpsamplingBilinear2d(size=(3, 3))", "PixelShuffle(2)", "PixelUnshuffle(3)",
                "InstanceNorm1d(3)", "InstanceNorm2d(4, affine=True)", "LocalResponseNorm(2)",
                "CosineSimilarity()", "PairwiseDistance(p=1.0)", "Dropout1d()",
                "AlphaDropout(0.2)", "ConstantPad2d((1, 2, 0, 1), 1.0)", "ZeroPad2d(1)",
                "ReplicationPad1d(1)", "CircularPad2d(2)"):
        mt, mf = (eval("t.nn." + src, {"t": t}) for t in (real_torch, ftorch))
        assert repr(mf) == repr(mt), src
        assert list(mf.state_dict()) == list(mt.state_dict()), src
    m = ftorch.nn.InstanceNorm2d(4, affine=True)
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.ones(4))
    assert ftorch.nn.UpsamplingBilinear2d(size=3).align_corners is True
    x = ftorch.randn(1, 4, 3, 3, requires_grad=True)
    assert ftorch.nn.functional.pixel_shuffle(x, 2).grad_fn.name() == "PixelShuffleBackward0"
    assert ftorch.nn.functional.pad(x, (1, 1, 1, 1), "circular").grad_fn.name() == \
        "torch::autograd::CopySlices"


@pytest.mark.parametrize("src,shape", [(s, sh) for s, sh in LAYERS if "Dropout" in s and
                                       "Alpha" not in s])
def test_channel_dropout_drops_whole_channels(src: str, shape: tuple) -> None:
    ftorch.manual_seed(0)
    m = eval("ftorch.nn." + src)
    p = m.p
    x = ftorch.ones(*((50,) + shape[1:]), requires_grad=True)
    out = m(x)
    flat = out.detach().numpy().reshape(50 * shape[1], -1)
    # each channel is all zeros or all 1 / (1 - p), and about a fraction p are dropped
    assert np.all((flat == 0).all(1) | np.isclose(flat, 1 / (1 - p)).all(1))
    assert abs((flat == 0).all(1).mean() - p) < 0.1
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), out.detach().numpy())


def test_alpha_dropout_keeps_mean_and_variance() -> None:
    ftorch.manual_seed(0)
    x = ftorch.randn(200000, dtype=ftorch.float64)
    for p in (0.2, 0.5):
        out = ftorch.nn.AlphaDropout(p)(x).numpy()
        assert abs(out.mean()) < 0.01 and abs(out.std() - 1) < 0.01
        assert np.unique(out[np.abs(out - x.numpy()) > 1e-9].round(9)).size <= 1 + (
            out.size - 1)  # the dropped elements share one value
        sat = 1.7580993408473766
        a = 1 / np.sqrt((sat * sat * p + 1) * (1 - p))
        dropped = np.isclose(out, -sat * a + sat * a * p)
        assert abs(dropped.mean() - p) < 0.01
    feat = ftorch.nn.FeatureAlphaDropout(0.5)(ftorch.ones(4, 100, 3)).numpy()
    assert (feat == feat[..., :1]).all()  # whole channels
    assert ftorch.nn.functional.alpha_dropout(x, 1.0, True).abs().sum().item() == 0.0


def test_layer_errors_like_pytorch() -> None:
    for lib in (real_torch, ftorch):
        F, nn = lib.nn.functional, lib.nn
        x = lib.ones(1, 2, 4, 5)
        with pytest.raises(NotImplementedError, match="Padding size 2 is not supported for 4D "
                           "input tensor"):
            F.pad(x, (1, 2), mode="reflect")
        with pytest.raises(RuntimeError, match=r"Argument #4: Padding size should be less than "
                           r"the corresponding input dimension, but got: padding \(5, 5\) at "
                           r"dimension 3 of input \[1, 2, 4, 5\]"):
            F.pad(x, (5, 5, 1, 1), mode="reflect")
        with pytest.raises(RuntimeError, match="Argument #6: .* padding \\(1, 4\\) at "
                           "dimension 2"):
            nn.ReflectionPad2d((1, 1, 1, 4))(x)
        with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
            F.pad(x, (1, 2, 3))
        with pytest.raises(RuntimeError, match="Padding value causes wrapping around more "
                           "than once"):
            F.pad(x, (6, 6, 1, 1), mode="circular")
        with pytest.raises(NotImplementedError, match="Unrecognised padding mode bogus"):
            F.pad(x, (1, 1), mode="bogus")
        with pytest.raises(RuntimeError, match="pixel_shuffle expects its input's 'channel' "
                           "dimension to be divisible by the square of upscale_factor, but "
                           r"input.size\(-3\)=2 is not divisible by 4"):
            nn.PixelShuffle(2)(x)
        with pytest.raises(RuntimeError, match="pixel_shuffle expects input to have at least "
                           "3 dimensions, but got input with 2 dimension"):
            F.pixel_shuffle(lib.ones(4, 4), 2)
        with pytest.raises(RuntimeError, match="pixel_unshuffle expects width to be divisible "
                           r"by downscale_factor, but input.size\(-1\)=5 is not divisible by 2"):
            nn.PixelUnshuffle(2)(x)
        with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but "
                           "received a 4D input"):
            nn.Dropout1d()(x)
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, "
                           "but got 1.5"):
            nn.Dropout2d(1.5)
        with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
            nn.InstanceNorm1d(2)(x)
        with pytest.raises(ValueError, match=r"expected input's size at dim=1 to match "
                           r"num_features \(3\), but got: 2."):
            nn.InstanceNorm2d(3, affine=True)(x)
        with pytest.warns(UserWarning, match="input's size at dim=1 does not match "
                          "num_features"):
            nn.InstanceNorm2d(3)(x)
        with pytest.raises(ValueError, match="Expected more than 1 spatial element when "
                           "training"):
            F.instance_norm(lib.ones(2, 3, 1))
        with pytest.raises(ValueError, match=r"Expected 3D or higher dimensionality\s+input "
                           r"\(got 2 dimensions\)"):
            nn.LocalResponseNorm(2)(lib.ones(2, 3))
        with pytest.warns(UserWarning, match="dropout2d: Received a 3D input"):
            F.dropout2d(lib.ones(2, 3, 4))
        with pytest.raises(RuntimeError, match="Number of channels must be divisible by groups. "
                           "Got 6 channels and 4 groups."):
            F.channel_shuffle(lib.ones(2, 6, 3), 4)
        with pytest.raises(RuntimeError, match=r"channel_shuffle expects input with > 2 dims, "
                           r"but got input with sizes \[2, 6\]"):
            nn.ChannelShuffle(2)(lib.ones(2, 6))
        with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[2\], expected input "
                           r"with shape \[\*2\], but got input of size\[2, 3\]"):
            F.rms_norm(lib.ones(2, 3), (2,))


@pytest.mark.filterwarnings("ignore:`nn.functional.upsample")
def test_upsample_functions() -> None:
    x = arrays([(1, 2, 3, 4)], "float64")[0]
    for name, kw in (("upsample", {"scale_factor": 2, "mode": "bilinear"}),
                     ("upsample_nearest", {"size": (5, 7)}),
                     ("upsample_bilinear", {"scale_factor": 2})):
        compare(lambda t: getattr(real_torch.nn.functional, name)(t, **kw),
                lambda t: getattr(ftorch.nn.functional, name)(t, **kw), [x], "float64")
    with pytest.warns(UserWarning, match="`nn.functional.upsample` is deprecated"):
        ftorch.nn.functional.upsample(ftorch.ones(1, 1, 2), size=3)


def test_rrelu_training_draws_slopes_in_range() -> None:
    ftorch.manual_seed(0)
    x = ftorch.tensor(-np.ones(20000), requires_grad=True)
    m = ftorch.nn.RReLU(0.1, 0.3)
    out = m(x)
    slopes = -out.detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and abs(slopes.mean() - 0.2) < 0.005
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), slopes)  # the gradient is the slope drawn
    assert out.grad_fn.name() == "RreluWithNoiseBackward0"
    m.eval()
    assert m(ftorch.tensor([-1.0], dtype=ftorch.float64)).tolist() == [-0.2]


def test_rms_norm_half_and_default_eps() -> None:
    x = arrays([(3, 4)], "float32")[0]
    out = [lib.nn.functional.rms_norm(lib.tensor(x).half(), (4,)) for lib in (real_torch, ftorch)]
    assert out[1].dtype is ftorch.float16
    np.testing.assert_allclose(out[1].float().numpy(), out[0].float().numpy(), rtol=1e-3)
    tiny = np.full((1, 4), 1e-5, np.float32)  # eps matters: float32's machine epsilon
    close(ftorch.nn.functional.rms_norm(ftorch.tensor(tiny), (4,)),
          real_torch.nn.functional.rms_norm(real_torch.tensor(tiny), (4,)), "float32")


@DTYPES
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy_at_saturated_probabilities(dtype: str, reduction: str) -> None:
    """``F.binary_cross_entropy`` where the probability is exactly 0 or 1 (a float32
    sigmoid from 17 on) or within 1e-12 of it: PyTorch's clamped value and its finite
    gradient ``(p - t) / max(p (1 - p), 1e-12)``; the gradient of the targets agrees
    where ``0 < p < 1`` (at 0 and 1 PyTorch's is infinite, the facade's is the
    clamped logarithms' difference, -100 or 100)."""
    p = np.array([1.0, 0.0, 1.0, 0.0, 0.5, 1 - 1e-7, 1e-30, 0.3, 1e-13])
    t = np.array([1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.2, 0.0])
    got = []
    for lib in (real_torch, ftorch):
        pt = lib.tensor(p, dtype=getattr(lib, dtype), requires_grad=True)
        tt = lib.tensor(t, dtype=getattr(lib, dtype), requires_grad=True)
        loss = lib.nn.functional.binary_cross_entropy(pt, tt, reduction=reduction)
        loss.backward(lib.ones_like(loss))
        got.append((loss, pt.grad, tt.grad, loss.grad_fn.name()))
    (lt, gpt, gtt, nt), (lf, gpf, gtf, nf) = got
    assert nf == nt
    close(lf, lt, dtype)
    close(gpf, gpt, dtype)
    inside = (p > 0) & (p < 1) if dtype == "float64" else (p > 0) & (p < 1 - 1e-7)
    close(gtf.numpy()[inside], gtt.numpy()[inside], dtype)
    assert np.all(np.abs(gtf.numpy()[~inside]) <= 100)
