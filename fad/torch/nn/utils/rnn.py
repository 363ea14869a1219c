"""``torch.nn.utils.rnn``: batches of sequences of different lengths, padded
(``pad_sequence``) or packed (``PackedSequence``: the time steps one after the
other, each holding the sequences still running, longest first), as the
recurrent layers take them."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ... import _functions as F
from ..._creation import _place, full, tensor
from ..._graph import host
from ...tensor import Tensor, wrap

__all__ = ["PackedSequence", "pad_sequence", "unpad_sequence", "pack_padded_sequence",
           "pad_packed_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence(NamedTuple):
    """A packed batch: ``data`` holds time step 0 of every sequence, then step 1 of
    those longer than 1, and so on (sequences sorted longest first); ``batch_sizes``
    (int64) how many sequences each step holds; ``sorted_indices`` the batch order
    of the sorted sequences (``None`` when the batch was sorted already) and
    ``unsorted_indices`` its inverse.

    >>> import fad.torch as torch
    >>> from fad.torch.nn.utils.rnn import pack_sequence
    >>> p = pack_sequence([torch.tensor([1.0, 2.0]), torch.tensor([3.0])])
    >>> p.data, p.batch_sizes
    (tensor([1., 3., 2.]), tensor([2, 1]))
    """

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None

    def to(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        return self._replace(data=self.data.to(*args, **kwargs))

    def double(self) -> "PackedSequence":
        return self._replace(data=self.data.double())

    def float(self) -> "PackedSequence":
        return self._replace(data=self.data.float())

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def _lengths(lengths: Any) -> np.ndarray:
    if isinstance(lengths, Tensor):
        return np.asarray(host(lengths._value)).astype(np.int64).reshape(-1)
    return np.asarray(lengths, dtype=np.int64).reshape(-1)


def _index(a: np.ndarray) -> Tensor:
    return wrap(_place(np.ascontiguousarray(a, dtype=np.int64)))


def pad_sequence(sequences: Any, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of shapes ``(L_i, *)`` into ``(L, B, *)`` (``batch_first``:
    ``(B, L, *)``), ``L`` the longest, padding the others with ``padding_value`` on
    ``padding_side``.

    >>> import fad.torch as torch
    >>> from fad.torch.nn.utils.rnn import pad_sequence
    >>> pad_sequence([torch.tensor([1.0, 2.0]), torch.tensor([3.0])], batch_first=True)
    tensor([[1., 2.],
            [3., 0.]])
    """
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    sequences = list(sequences) if not isinstance(sequences, Tensor) else list(
        F.unbind(sequences, 0))
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        extra = longest - s.shape[0]
        width = (0, extra) if padding_side == "right" else (extra, 0)
        padded.append(F.call("pad", s, pad=(0, 0) * (s.dim() - 1) + width,
                             value=padding_value) if extra else s)
    return F.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Any, batch_first: bool = False
                   ) -> list[Tensor]:
    """The sequences of a padded batch, each cut to its length.

    >>> import fad.torch as torch
    >>> from fad.torch.nn.utils.rnn import unpad_sequence
    >>> unpad_sequence(torch.tensor([[1.0, 2.0], [3.0, 0.0]]), [2, 1], batch_first=True)
    [tensor([1., 2.]), tensor([3.])]
    """
    x = padded_sequences if batch_first else F.transpose(padded_sequences, 0, 1)
    return [x[i, :n] for i, n in enumerate(_lengths(lengths).tolist())]


def pack_padded_sequence(input: Tensor, lengths: Any, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch ``(T, B, *)`` (``batch_first``: ``(B, T, *)``) of sequences
    of ``lengths``; unless ``enforce_sorted``, the sequences are sorted longest first
    and ``sorted_indices`` records the order.

    >>> import fad.torch as torch
    >>> from fad.torch.nn.utils.rnn import pack_padded_sequence
    >>> x = torch.tensor([[1.0, 2.0], [3.0, 0.0]])
    >>> pack_padded_sequence(x, [2, 1], batch_first=True).data
    tensor([1., 3., 2.])
    """
    n = _lengths(lengths)
    if enforce_sorted:
        if np.any(np.diff(n) > 0):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability.")
        order = None
    else:
        order = np.argsort(-n, kind="stable")
        n = n[order]
    if n.size and n.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    x = F.transpose(input, 0, 1) if batch_first else input
    if x.shape[1] != n.size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{n.size} (batch_size={x.shape[1]})")
    if order is not None:
        x = F.index_select(x, 1, _index(order))
    sizes = [int((n > t).sum()) for t in range(int(n.max()) if n.size else 0)]
    data = F.cat([x[t, :b] for t, b in enumerate(sizes)], 0)
    return _packed(data, sizes, order)


def _packed(data: Tensor, sizes: list, order: np.ndarray | None) -> PackedSequence:
    if order is None:
        return PackedSequence(data, tensor(sizes, dtype=np.int64))
    return PackedSequence(data, tensor(sizes, dtype=np.int64), _index(order),
                          _index(np.argsort(order)))


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0, total_length: int | None = None
                        ) -> tuple[Tensor, Tensor]:
    """The padded batch ``(T, B, *)`` (``batch_first``: ``(B, T, *)``) of a packed one,
    in the original batch order, and the lengths (int64).

    >>> import fad.torch as torch
    >>> from fad.torch.nn.utils.rnn import pack_sequence, pad_packed_sequence
    >>> p = pack_sequence([torch.tensor([1.0]), torch.tensor([2.0, 3.0])], False)
    >>> pad_packed_sequence(p, batch_first=True)
    (tensor([[1., 0.],
            [2., 3.]]), tensor([1, 2]))
    """
    sizes = _lengths(sequence.batch_sizes).tolist()
    steps = len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {steps}")
        steps = total_length
    x = padded_steps(sequence.data, sizes, steps, padding_value)
    lengths = np.array([sum(1 for b in sizes if b > i) for i in range(sizes[0])], np.int64)
    if sequence.unsorted_indices is not None:
        x = F.index_select(x, 1, sequence.unsorted_indices)
        lengths = lengths[np.asarray(host(sequence.unsorted_indices._value))]
    return (F.transpose(x, 0, 1) if batch_first else x), _index(lengths)


def padded_steps(data: Tensor, sizes: list, steps: int, value: float = 0.0) -> Tensor:
    """The ``(steps, B, *)`` batch of packed ``data`` whose step ``t`` holds
    ``sizes[t]`` sequences, padded with ``value`` (in the packed, sorted order).

    >>> import fad.torch as torch
    >>> padded_steps(torch.tensor([1.0, 3.0, 2.0]), [2, 1], 2).tolist()
    [[1.0, 3.0], [2.0, 0.0]]
    """
    batch, tail = sizes[0], tuple(data.shape[1:])
    rows, start = [], 0
    for t in range(steps):
        b = sizes[t] if t < len(sizes) else 0
        step = data[start:start + b]
        start += b
        if b < batch:
            filler = full((batch - b,) + tail, value, dtype=data.dtype)
            step = F.cat([step, filler], 0) if b else filler
        rows.append(step)
    return F.stack(rows, 0)


def pack_sequence(sequences: list, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences ``(L_i, *)`` (longest first unless not
    ``enforce_sorted``).

    >>> import fad.torch as torch
    >>> from fad.torch.nn.utils.rnn import pack_sequence
    >>> pack_sequence([torch.tensor([1.0]), torch.tensor([2.0, 3.0])], False).data
    tensor([2., 1., 3.])
    """
    return pack_padded_sequence(pad_sequence(sequences), [s.shape[0] for s in sequences],
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences of a packed batch, in the original order.

    >>> import fad.torch as torch
    >>> from fad.torch.nn.utils.rnn import pack_sequence, unpack_sequence
    >>> unpack_sequence(pack_sequence([torch.tensor([1.0]), torch.tensor([2.0, 3.0])], False))
    [tensor([1.]), tensor([2., 3.])]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
