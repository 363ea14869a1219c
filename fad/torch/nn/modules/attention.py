"""Attention layers of ``torch.nn``: ``MultiheadAttention``, the Transformer's
encoder and decoder layers and stacks, and ``Transformer``."""

from __future__ import annotations

import copy
import math
from typing import Any, Callable

from ... import _functions as F
from ..._creation import empty, full, zeros
from ...tensor import Tensor
from .. import functional as NF
from .. import init
from .layers import Dropout, Linear, ModuleList
from .module import Module, Parameter
from .normalization import LayerNorm

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


class NonDynamicallyQuantizableLinear(Linear):
    """``MultiheadAttention``'s output projection (a ``Linear``, named as PyTorch names it)."""


def _additive(mask: Tensor | None, dtype: Any) -> Tensor | None:
    """A mask to add to the attention scores: a boolean one (``True``: masked out)
    becomes ``-inf`` where ``True`` and ``0`` elsewhere."""
    if mask is None or mask.dtype.name != "bool":
        return mask
    return F.masked_fill(zeros(*mask.shape, dtype=dtype), mask, -math.inf)


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of ``embed_dim / num_heads`` features, with the
    packed input projection ``in_proj_weight`` (``3 * embed_dim`` rows: query, key,
    value) and the output projection ``out_proj``. Returns the output and the attention
    weights (averaged over the heads unless ``average_attn_weights=False``; ``None``
    when ``need_weights=False``).

    >>> import fad.torch as torch
    >>> mha = torch.nn.MultiheadAttention(4, 2)
    >>> out, w = mha(torch.ones(3, 1, 4), torch.ones(5, 1, 4), torch.ones(5, 1, 4))
    >>> tuple(out.shape), tuple(w.shape)
    ((3, 1, 4), (1, 3, 5))
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: Any = None,
                 dtype: Any = None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(empty(3 * embed_dim, embed_dim, dtype=dtype))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            for name, d in (("q_proj", embed_dim), ("k_proj", self.kdim),
                            ("v_proj", self.vdim)):
                self.register_parameter(f"{name}_weight",
                                        Parameter(empty(embed_dim, d, dtype=dtype)))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        if add_bias_kv:  # one learnt key and value appended to every sequence
            self.bias_k = Parameter(empty(1, 1, embed_dim, dtype=dtype))
            self.bias_v = Parameter(empty(1, 1, embed_dim, dtype=dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn  # (and a zero key and value, after the heads split)
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def _project(self, x: Tensor, i: int) -> Tensor:
        """Projection ``i`` (0 query, 1 key, 2 value) of ``x``, ``(T, N, E)``, as
        ``(N * heads, T, head_dim)`` (keys and values with the extra ones appended)."""
        e = self.embed_dim
        b = None if self.in_proj_bias is None else self.in_proj_bias[i * e:(i + 1) * e]
        w = self.in_proj_weight[i * e:(i + 1) * e] if self._qkv_same_embed_dim else \
            (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)[i]
        y = NF.linear(x, w, b)
        if i and self.bias_k is not None:
            extra = self.bias_k if i == 1 else self.bias_v
            y = F.cat([y, extra.expand(1, y.shape[1], e)])
        y = y.reshape(y.shape[0], y.shape[1] * self.num_heads, self.head_dim).transpose(0, 1)
        if i and self.add_zero_attn:
            y = F.cat([y, zeros(y.shape[0], 1, self.head_dim, dtype=y.dtype)], 1)
        return y

    def _extra(self, mask: Tensor | None) -> Tensor | None:
        """``mask`` widened by one unmasked column per appended key."""
        k = (self.bias_k is not None) + bool(self.add_zero_attn)
        return mask if mask is None or not k else NF.pad(mask, (0, k))

    def forward(self, query: Tensor, key: Tensor, value: Tensor,
                key_padding_mask: Tensor | None = None, need_weights: bool = True,
                attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use "
                               "the Transformer module method `generate_square_subsequent_mask`"
                               " to create this mask.")
        batched = query.dim() == 3
        if not batched:  # one sequence: a batch of one, along dim 1
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        n_tgt, n, e = query.shape
        n_src, h = key.shape[0], self.num_heads
        _check_mask(attn_mask, (n_tgt, n_src), n * h, batched)
        mask, key_padding_mask = self._extra(attn_mask), self._extra(key_padding_mask)
        n_src += (self.bias_k is not None) + bool(self.add_zero_attn)
        mask = _additive(mask, query.dtype)
        if mask is not None and mask.dim() == 2:
            mask = mask.unsqueeze(0)
        pad = _additive(key_padding_mask, query.dtype)
        if pad is not None:  # (N, S) -> (N * heads, 1, S)
            pad = pad.reshape(n, 1, 1, n_src).expand(n, h, 1, n_src).reshape(n * h, 1, n_src)
            mask = pad if mask is None else mask + pad
        out, weights = NF._attend(self._project(query, 0), self._project(key, 1),
                                  self._project(value, 2), mask,
                                  self.dropout if self.training else 0.0, None)
        out = out.transpose(0, 1).reshape(n_tgt * n, e)
        out = NF.linear(out, self.out_proj.weight, self.out_proj.bias).reshape(n_tgt, n, e)
        if not batched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1)
        if not need_weights:
            return out, None
        weights = weights.reshape(n, h, n_tgt, n_src)
        if average_attn_weights:
            weights = weights.mean(1)
        return out, (weights if batched else weights.squeeze(0))


def _check_mask(mask: Tensor | None, shape: tuple, heads: int, batched: bool) -> None:
    """PyTorch's messages for an ``attn_mask`` of the wrong shape."""
    if mask is None:
        return
    if mask.dim() == 2 and tuple(mask.shape) != shape:
        raise RuntimeError(f"The shape of the 2D attn_mask is {mask.shape}, but should be "
                           f"{shape}.")
    if mask.dim() == 3 and tuple(mask.shape) != (heads,) + shape:
        raise RuntimeError(f"The shape of the 3D attn_mask is {mask.shape}, but should be "
                           f"{(heads,) + shape}.")
    if mask.dim() not in (2, 3):
        raise RuntimeError(f"For {'batched (3-D)' if batched else 'unbatched (2-D)'} `query`, "
                           "expected `attn_mask` to be `None`, 2-D or 3-D but found "
                           f"{mask.dim()}-D tensor instead")


def _activation(activation: str | Callable) -> Callable:
    if callable(activation):
        return activation
    if activation in ("relu", "gelu"):
        return getattr(NF, activation)
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


class _TransformerLayer(Module):
    """What PyTorch's encoder and decoder layers share, in its registration order:
    self-attention (and, with ``cross``, attention over the memory), the feed-forward
    block, the norms and the dropouts."""

    _cross = False

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable = "relu",
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None):
        super().__init__()
        cross = self._cross

        def attention() -> MultiheadAttention:
            return MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                      batch_first=batch_first, dtype=dtype)
        self.self_attn = attention()
        if cross:
            self.multihead_attn = attention()
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        blocks = 3 if cross else 2
        for k in range(1, blocks + 1):
            setattr(self, f"norm{k}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias,
                                                dtype=dtype))
        for k in range(1, blocks + 1):
            setattr(self, f"dropout{k}", Dropout(dropout))
        self.activation = _activation(activation)
        self._ff_dropout = f"dropout{blocks}"

    def _sa_block(self, x: Tensor, mask: Any, pad: Any, is_causal: bool) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=pad, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return getattr(self, self._ff_dropout)(x)


class TransformerEncoderLayer(_TransformerLayer):
    """Self-attention then a feed-forward block, each with a residual connection and a
    ``LayerNorm`` (after it, or before it with ``norm_first=True``).

    >>> import fad.torch as torch
    >>> layer = torch.nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0)
    >>> tuple(layer(torch.ones(3, 2, 4)).shape)
    (3, 2, 4)
    """

    _cross = False

    def forward(self, src: Tensor, src_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None, is_causal: bool = False
                ) -> Tensor:
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` applied in turn, then ``norm``.

    >>> import fad.torch as torch
    >>> layer = torch.nn.TransformerEncoderLayer(4, 2, dim_feedforward=8)
    >>> enc = torch.nn.TransformerEncoder(layer, 2)
    >>> len(enc.layers), tuple(enc(torch.ones(3, 2, 4)).shape)
    (2, (3, 2, 4))
    """

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int,
                 norm: Module | None = None, enable_nested_tensor: bool = True,
                 mask_check: bool = True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src: Tensor, mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None, is_causal: bool | None = None
                ) -> Tensor:
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                        is_causal=bool(is_causal))
        return out if self.norm is None else self.norm(out)


class TransformerDecoderLayer(_TransformerLayer):
    """Self-attention over the target, attention over the encoder's output
    (``memory``), then a feed-forward block, each with a residual connection and a
    ``LayerNorm`` (after it, or before it with ``norm_first=True``).

    >>> import fad.torch as torch
    >>> layer = torch.nn.TransformerDecoderLayer(4, 2, dim_feedforward=8, dropout=0.0)
    >>> tuple(layer(torch.ones(3, 2, 4), torch.ones(5, 2, 4)).shape)
    (3, 2, 4)
    """

    _cross = True

    def _mha_block(self, x: Tensor, memory: Tensor, mask: Any, pad: Any,
                   is_causal: bool) -> Tensor:
        x = self.multihead_attn(x, memory, memory, attn_mask=mask, key_padding_mask=pad,
                                need_weights=False, is_causal=is_causal)[0]
        return self.dropout2(x)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                           memory_is_causal))
        return self.norm3(x + self._ff_block(x))


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer`` applied in turn, then ``norm``.

    >>> import fad.torch as torch
    >>> layer = torch.nn.TransformerDecoderLayer(4, 2, dim_feedforward=8)
    >>> dec = torch.nn.TransformerDecoder(layer, 2)
    >>> len(dec.layers), tuple(dec(torch.ones(3, 2, 4), torch.ones(5, 2, 4)).shape)
    (2, (3, 2, 4))
    """

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int,
                 norm: Module | None = None):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask,
                        memory_key_padding_mask=memory_key_padding_mask,
                        tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return out if self.norm is None else self.norm(out)


class Transformer(Module):
    """The encoder-decoder Transformer: ``num_encoder_layers`` encoder layers over
    ``src`` (then a ``LayerNorm``), ``num_decoder_layers`` decoder layers over
    ``tgt`` attending to that (then a ``LayerNorm``); matrices initialised by
    ``xavier_uniform_``, as PyTorch's.

    >>> import fad.torch as torch
    >>> model = torch.nn.Transformer(8, 2, 1, 1, dim_feedforward=16, dropout=0.0)
    >>> tuple(model(torch.ones(5, 2, 8), torch.ones(3, 2, 8)).shape)
    (3, 2, 8)
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable = "relu",
                 custom_encoder: Module | None = None, custom_decoder: Module | None = None,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None):
        super().__init__()
        layer = dict(dim_feedforward=dim_feedforward, dropout=dropout, activation=activation,
                     layer_norm_eps=layer_norm_eps, batch_first=batch_first,
                     norm_first=norm_first, bias=bias, dtype=dtype)
        self.encoder = custom_encoder if custom_encoder is not None else TransformerEncoder(
            TransformerEncoderLayer(d_model, nhead, **layer), num_encoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        self.decoder = custom_decoder if custom_decoder is not None else TransformerDecoder(
            TransformerDecoderLayer(d_model, nhead, **layer), num_decoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None,
                tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        batched = src.dim() == 3
        axis = 0 if self.batch_first else 1
        if batched and src.shape[axis] != tgt.shape[axis]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None
                                        ) -> Tensor:
        """The causal mask: ``-inf`` above the diagonal (a later position), ``0`` elsewhere.

        >>> import fad.torch as torch
        >>> torch.nn.Transformer.generate_square_subsequent_mask(2)
        tensor([[0., -inf],
                [0., 0.]])
        """
        return F.triu(full((sz, sz), -math.inf, dtype=dtype), 1)
