"""Recurrent layers of ``torch.nn``: ``RNN``, ``LSTM``, ``GRU`` and their cells.

The recurrence is a Python loop over time steps of recorded facade operations
(``linear``, ``sigmoid``, ``tanh``...), so ``.backward()`` differentiates it with
fad's own rules. Parameter names, shapes, gate orders and initialisation are
PyTorch's: LSTM gates ``i, f, g, o``; GRU gates ``r, z, n`` with
``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any, Callable

from ... import _functions as F
from ..._creation import empty, zeros
from ...tensor import Tensor
from .. import functional as NF
from .. import init
from ..utils.rnn import PackedSequence, padded_steps
from .module import Module, Parameter

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_State = tuple  # (h,) for RNN and GRU, (h, c) for LSTM
_Weights = tuple  # (w_ih, w_hh, b_ih, b_hh, w_hr); absent ones are None


# ------------------------------------------------------------------ one time step
# Each step takes ``gi = W_ih x + b_ih`` (computed for all time steps at once) and
# the state, and returns the next state; the step's output is the state's ``h``.
def _rnn_step(act: Callable) -> Callable:
    def step(gi: Tensor, state: _State, w: _Weights) -> _State:
        return (act(gi + NF.linear(state[0], w[1], w[3])),)
    return step


def _lstm_step(gi: Tensor, state: _State, w: _Weights) -> _State:
    h, c = state
    i, f, g, o = F.chunk(gi + NF.linear(h, w[1], w[3]), 4, -1)
    c = F.sigmoid(f) * c + F.sigmoid(i) * F.tanh(g)
    h = F.sigmoid(o) * F.tanh(c)
    return (h if w[4] is None else NF.linear(h, w[4]), c)


def _gru_step(gi: Tensor, state: _State, w: _Weights) -> _State:
    h = state[0]
    i_r, i_z, i_n = F.chunk(gi, 3, -1)
    h_r, h_z, h_n = F.chunk(NF.linear(h, w[1], w[3]), 3, -1)
    r = F.sigmoid(i_r + h_r)
    z = F.sigmoid(i_z + h_z)
    n = F.tanh(i_n + r * h_n)
    return ((1 - z) * n + z * h,)


_STEPS: dict[str, Callable] = {"RNN_TANH": _rnn_step(F.tanh), "RNN_RELU": _rnn_step(NF.relu),
                               "LSTM": _lstm_step, "GRU": _gru_step}
_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _run_direction(step: Callable, x: Tensor, state: _State, w: _Weights, reverse: bool,
                   sizes: list | None = None) -> tuple[Tensor, _State]:
    """Run one layer in one direction over ``x`` of shape ``(T, N, I)``; with
    ``sizes`` (a packed batch, longest sequences first) step ``t`` advances the first
    ``sizes[t]`` sequences only, the others keep their state and output zeros."""
    gis = F.unbind(NF.linear(x, w[0], w[2]), 0)
    outs = []
    order = range(len(gis) - 1, -1, -1) if reverse else range(len(gis))
    for t in order:
        b = x.shape[1] if sizes is None else sizes[t]
        if b == x.shape[1]:
            state = step(gis[t], state, w)
            outs.append(state[0])
            continue
        new = step(gis[t][:b], tuple(s[:b] for s in state), w)
        state = tuple(F.cat([a, s[b:]], 0) for a, s in zip(new, state))
        outs.append(F.cat([new[0], zeros(x.shape[1] - b, new[0].shape[1],
                                         dtype=new[0].dtype)], 0))
    if reverse:
        outs.reverse()
    return F.stack(outs, 0), state


# ------------------------------------------------------------------ sequence layers
class RNNBase(Module):
    """The shared machinery of ``RNN``, ``LSTM`` and ``GRU``: parameters, checks, the loop.

    >>> import fad.torch as torch
    >>> torch.nn.GRU(3, 5, num_layers=2).weight_hh_l1.shape
    torch.Size([15, 5])
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        _check_sizes(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)
        self.mode = mode
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        directions = 2 if bidirectional else 1
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * directions
            for suffix in ("", "_reverse")[:directions]:
                shapes = [("weight_ih", (gate_size, layer_input)),
                          ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr", (proj_size, hidden_size))]
                names = []
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(empty(*shape, dtype=dtype, device=device)))
                    names.append(name)
                self._flat_weights_names += names
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw every parameter from ``uniform(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        _reset(self)

    def flatten_parameters(self) -> None:
        """Kept for compatibility: the weights are never flattened into one buffer."""

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters grouped by layer and direction."""
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def _weights(self, index: int) -> _Weights:
        names = self._all_weights[index]
        got = {n.split("_l")[0]: getattr(self, n) for n in names}
        return tuple(got.get(k) for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh",
                                          "weight_hr"))

    def _state_sizes(self, batch: int) -> list[tuple[int, int, int]]:
        lead = self.num_layers * (2 if self.bidirectional else 1)
        h = (lead, batch, self.proj_size if self.proj_size > 0 else self.hidden_size)
        return [h, (lead, batch, self.hidden_size)] if self.mode == "LSTM" else [h]

    def _check_input(self, input: Tensor) -> None:
        wdt = self._flat_weights[0].dtype
        if input.dtype != wdt:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({wdt}). Convert input: input.to({wdt}), or convert model: "
                             f"model.to({input.dtype})")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")

    def _prepare(self, input: Tensor, hx: Any, packed: bool = False
                 ) -> tuple[Tensor, _State, bool]:
        """Check the arguments; return ``(input as (T, N, I), initial state, batched)``
        (``packed``: ``input`` is the time-major padded form of a packed batch)."""
        batch_first = self.batch_first and not packed
        name = "RNN" if self.mode.startswith("RNN") else self.mode
        if input.dim() not in (2, 3):
            tail = " tensor" if name == "RNN" else ""
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D"
                             f"{tail} instead")
        batched = input.dim() == 3
        states = None if hx is None else (tuple(hx) if self.mode == "LSTM" else (hx,))
        if states is not None:
            want = 3 if batched else 2
            if any(s.dim() != want for s in states):
                what = "hx and cx" if self.mode == "LSTM" else "hx"
                got = ", ".join(f"{s.dim()}-D" for s in states)
                got = f"({got}) tensors" if self.mode == "LSTM" else f"{got} tensor"
                raise RuntimeError(f"For {'batched 3-D' if batched else 'unbatched 2-D'} "
                                   f"input, {what} should also be {want}-D but got {got}")
        if not batched:
            input = F.unsqueeze(input, 0 if batch_first else 1)
            states = None if states is None else tuple(F.unsqueeze(s, 1) for s in states)
        if batch_first:
            input = F.transpose(input, 0, 1)
        self._check_input(input)
        sizes = self._state_sizes(input.shape[1])
        if states is None:
            states = tuple(zeros(*s, dtype=input.dtype, device=input.device) for s in sizes)
        else:
            for k, (s, size) in enumerate(zip(states, sizes)):
                if tuple(s.shape) != size:
                    label = f"hidden[{k}]" if self.mode == "LSTM" else "hidden"
                    raise RuntimeError(f"Expected {label} size {size}, got {list(s.shape)}")
        if input.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        return input, states, batched

    def forward(self, input: Any, hx: Any = None) -> tuple[Any, Any]:
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        x, states, batched = self._prepare(input, hx)
        x, h_n = self._layers(x, states)
        if self.batch_first:
            x = F.transpose(x, 0, 1)
        if not batched:
            x = F.squeeze(x, 0 if self.batch_first else 1)
            h_n = tuple(F.squeeze(h, 1) for h in h_n)
        return x, (h_n if self.mode == "LSTM" else h_n[0])

    def _forward_packed(self, input: PackedSequence, hx: Any) -> tuple[Any, Any]:
        """A packed batch: run on its padded form (sorted order), skipping finished
        sequences, and pack the output; ``hx`` and ``h_n`` are in the batch's order."""
        sizes = [int(b) for b in input.batch_sizes.tolist()]
        x = padded_steps(input.data, sizes, len(sizes))
        order = input.sorted_indices
        if hx is not None and order is not None:
            hx = tuple(F.index_select(h, 1, order) for h in hx) if self.mode == "LSTM" \
                else F.index_select(hx, 1, order)
        x, states, _ = self._prepare(x, hx, packed=True)
        x, h_n = self._layers(x, states, sizes)
        data = F.cat([x[t, :b] for t, b in enumerate(sizes)], 0)
        if input.unsorted_indices is not None:
            h_n = tuple(F.index_select(h, 1, input.unsorted_indices) for h in h_n)
        out = PackedSequence(data, input.batch_sizes, input.sorted_indices,
                             input.unsorted_indices)
        return out, (h_n if self.mode == "LSTM" else h_n[0])

    def _layers(self, x: Tensor, states: _State, sizes: list | None = None
                ) -> tuple[Tensor, tuple]:
        """Every layer and direction over ``x`` ``(T, N, I)``: the last layer's output
        and the final states stacked as ``h_n`` (and ``c_n``)."""
        step = _STEPS[self.mode]
        directions = 2 if self.bidirectional else 1
        finals: list[_State] = []
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout > 0 and self.training:
                x = NF.dropout(x, self.dropout, True)
            outs = []
            for d in range(directions):
                k = layer * directions + d
                out, final = _run_direction(step, x, tuple(s[k] for s in states),
                                            self._weights(k), d == 1, sizes)
                outs.append(out)
                finals.append(final)
            x = outs[0] if directions == 1 else F.cat(outs, -1)
        return x, tuple(F.stack([f[j] for f in finals], 0) for j in range(len(states)))

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


def _check_sizes(input_size: Any, hidden_size: Any, num_layers: int, bias: Any,
                 batch_first: Any, dropout: Any, proj_size: int) -> None:
    if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
            or not 0 <= dropout <= 1):
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                      "non-zero dropout expects num_layers greater than 1, but got "
                      f"dropout={dropout} and num_layers={num_layers}", stacklevel=4)
    for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                              ("input_size", input_size, int), ("hidden_size", hidden_size, int)):
        if not isinstance(value, kind):
            raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                            f"{type(value).__name__}")
        if kind is int and value <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


def _reset(module: Module) -> None:
    stdv = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -stdv, stdv)


class RNN(RNNBase):
    """A multi-layer Elman RNN: ``h_t = tanh(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh)``
    (``nonlinearity="relu"`` for ReLU).

    >>> import fad.torch as torch
    >>> rnn = torch.nn.RNN(4, 3, num_layers=2, batch_first=True)
    >>> out, h_n = rnn(torch.randn(2, 5, 4))
    >>> tuple(out.shape), tuple(h_n.shape)
    ((2, 5, 3), (2, 2, 3))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, device: Any = None,
                 dtype: Any = None, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if kwargs:
            raise TypeError(f"RNN.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)


class LSTM(RNNBase):
    """A multi-layer long short-term memory network (gates ``i, f, g, o``; ``proj_size``
    projects ``h`` with ``weight_hr``). Returns ``(output, (h_n, c_n))``.

    >>> import fad.torch as torch
    >>> lstm = torch.nn.LSTM(4, 3, bidirectional=True)
    >>> out, (h_n, c_n) = lstm(torch.randn(5, 2, 4))
    >>> tuple(out.shape), tuple(h_n.shape), tuple(c_n.shape)
    ((5, 2, 6), (2, 2, 3), (2, 2, 3))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device, dtype)


class GRU(RNNBase):
    """A multi-layer gated recurrent unit network (gates ``r, z, n``).

    >>> import fad.torch as torch
    >>> gru = torch.nn.GRU(4, 3)
    >>> out, h_n = gru(torch.randn(5, 4))  # unbatched: (L, H_in)
    >>> tuple(out.shape), tuple(h_n.shape)
    ((5, 3), (1, 3))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, device: Any = None, dtype: Any = None,
                 **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if kwargs:
            raise TypeError(f"GRU.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)


# ------------------------------------------------------------------ cells
class RNNCellBase(Module):
    """The shared parameters of the cells: ``weight_ih``, ``weight_hh``, ``bias_ih``,
    ``bias_hh`` with ``gates * hidden_size`` rows.

    >>> import fad.torch as torch
    >>> torch.nn.LSTMCell(3, 2).weight_ih.shape
    torch.Size([8, 3])
    """

    _mode = ""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        rows = num_chunks * hidden_size
        self.weight_ih = Parameter(empty(rows, input_size, dtype=dtype, device=device))
        self.weight_hh = Parameter(empty(rows, hidden_size, dtype=dtype, device=device))
        for name in ("bias_ih", "bias_hh"):
            if bias:
                setattr(self, name, Parameter(empty(rows, dtype=dtype, device=device)))
            else:
                self.register_parameter(name, None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw every parameter from ``uniform(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        _reset(self)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _step(self, input: Tensor, hx: Any) -> _State:
        """Check ranks, add the batch dimension if missing, run one step, remove it again."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        states = None if hx is None else (tuple(hx) if self._mode == "LSTM" else (hx,))
        for k, s in enumerate(states or ()):
            if s.dim() not in (1, 2):
                which = f"hx[{k}]" if self._mode == "LSTM" else "hidden"
                raise ValueError(f"{name}: Expected {which} to be 1D or 2D, got {s.dim()}D "
                                 "instead")
        batched = input.dim() == 2
        if not batched:
            input = F.unsqueeze(input, 0)
            states = None if states is None else tuple(F.unsqueeze(s, 0) for s in states)
        if states is None:
            z = zeros(input.shape[0], self.hidden_size, dtype=input.dtype, device=input.device)
            states = (z, z) if self._mode == "LSTM" else (z,)
        w = (self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh, None)
        out = _STEPS[self._mode](NF.linear(input, w[0], w[2]), states, w)
        return out if batched else tuple(F.squeeze(s, 0) for s in out)


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: ``h' = tanh(W_ih x + b_ih + W_hh h + b_hh)``.

    >>> import fad.torch as torch
    >>> cell = torch.nn.RNNCell(4, 3, nonlinearity="relu")
    >>> tuple(cell(torch.randn(2, 4)).shape)
    (2, 3)
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    @property
    def _mode(self) -> str:
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        return self._step(input, hx)[0]


class LSTMCell(RNNCellBase):
    """One step of an LSTM; returns ``(h', c')``.

    >>> import fad.torch as torch
    >>> h, c = torch.nn.LSTMCell(4, 3)(torch.randn(4))
    >>> tuple(h.shape), tuple(c.shape)
    ((3,), (3,))
    """

    _mode = "LSTM"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
                ) -> tuple[Tensor, Tensor]:
        return self._step(input, hx)


class GRUCell(RNNCellBase):
    """One step of a GRU.

    >>> import fad.torch as torch
    >>> tuple(torch.nn.GRUCell(4, 3)(torch.randn(2, 4), torch.zeros(2, 3)).shape)
    (2, 3)
    """

    _mode = "GRU"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        return self._step(input, hx)[0]
