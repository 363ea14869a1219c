"""``nn.TransformerDecoderLayer``, ``nn.TransformerDecoder`` and ``nn.Transformer``
against PyTorch's (skipped without it): the same ``state_dict`` keys in the same
order, and with PyTorch's weights loaded, the same outputs and gradients (masks,
padding, ``batch_first``, ``norm_first``, gelu), the causal mask and the errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

RNG = np.random.default_rng(7)
SRC, TGT = RNG.standard_normal((5, 2, 8)), RNG.standard_normal((3, 2, 8))


def _pair(make: Any) -> tuple:
    """The module built in both libraries (float64), PyTorch's weights in the facade's."""
    real_torch.manual_seed(0)
    mt, mf = make(real_torch).double().eval(), make(ftorch).double().eval()
    assert list(mf.state_dict()) == list(mt.state_dict())
    mf.load_state_dict({k: ftorch.tensor(v.numpy()) for k, v in mt.state_dict().items()})
    return mf, mt


def _run(t: Any, module: Any, call: Any, batch_first: bool) -> tuple:
    src, tgt = (t.tensor(a.transpose(1, 0, 2).copy() if batch_first else a, requires_grad=True)
                for a in (SRC, TGT))
    out = call(t, module, src, tgt)
    (out * out).sum().backward()
    grads = [p.grad.numpy() for p in module.parameters()]
    return out.detach().numpy(), src.grad.numpy(), tgt.grad.numpy(), grads


def _masks(t: Any) -> dict:
    return {"tgt_mask": t.nn.Transformer.generate_square_subsequent_mask(3).double(),
            "src_key_padding_mask": t.tensor([[False] * 4 + [True], [False] * 5]),
            "memory_key_padding_mask": t.tensor([[False] * 4 + [True], [False] * 5]),
            "tgt_key_padding_mask": t.tensor([[False, False, True], [False] * 3])}


CASES = {
    "transformer": (lambda t, bf, nf: t.nn.Transformer(
        8, 2, 2, 2, 16, 0.1, batch_first=bf, norm_first=nf),
        lambda t, m, s, g: m(s, g)),
    "transformer_masked": (lambda t, bf, nf: t.nn.Transformer(
        8, 2, 1, 2, 16, 0.1, activation="gelu", batch_first=bf, norm_first=nf),
        lambda t, m, s, g: m(s, g, **_masks(t))),
    "decoder": (lambda t, bf, nf: t.nn.TransformerDecoder(t.nn.TransformerDecoderLayer(
        8, 4, 12, 0.1, batch_first=bf, norm_first=nf), 2, t.nn.LayerNorm(8)),
        lambda t, m, s, g: m(g, s, tgt_mask=_masks(t)["tgt_mask"], tgt_is_causal=True)),
    "decoder_layer": (lambda t, bf, nf: t.nn.TransformerDecoderLayer(
        8, 2, 16, 0.1, batch_first=bf, norm_first=nf),
        lambda t, m, s, g: m(g, s, memory_mask=t.zeros(3, 5, dtype=t.float64))),
}


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name, batch_first, norm_first):
    make, call = CASES[name]
    mf, mt = _pair(lambda t: make(t, batch_first, norm_first))
    got, want = _run(ftorch, mf, call, batch_first), _run(real_torch, mt, call, batch_first)
    for g, w in zip(got[:3], want[:3]):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-10)
    for g, w in zip(got[3], want[3]):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-10)


def test_causal_mask_and_errors_as_pytorch():
    def run(t: Any) -> list:
        out = [t.nn.Transformer.generate_square_subsequent_mask(3).tolist()]
        m = t.nn.Transformer(8, 2, 1, 1, 16)
        for src, tgt in ((t.ones(5, 2, 8), t.ones(3, 3, 8)), (t.ones(5, 2, 8), t.ones(3, 2, 6))):
            try:
                m(src, tgt)
            except RuntimeError as e:
                out.append(str(e))
        return out
    assert run(ftorch) == run(real_torch)
