"""``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` and their cells against PyTorch's (skipped
without torch): outputs, final states and the gradients of inputs, initial states and
every parameter after ``.backward()``, with the same weights in both; ``state_dict``
keys, printed forms, errors, initialisation, dropout and a short training run."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import fad.torch as ftorch  # noqa: E402

# PyTorch's own notice that its oneDNN path lacks projections
pytestmark = pytest.mark.filterwarnings("ignore:LSTM with projections:UserWarning")

TOL = {"float32": 1e-5, "float64": 1e-12}

# (class, constructor keywords): each recurrence, with and without projection/bias
LAYERS = {
    "rnn_tanh": ("RNN", {}),
    "rnn_relu": ("RNN", {"nonlinearity": "relu"}),
    "lstm": ("LSTM", {}),
    "lstm_proj": ("LSTM", {"proj_size": 2}),
    "gru": ("GRU", {}),
    "gru_nobias": ("GRU", {"bias": False}),
}
# (num_layers, bidirectional, batch_first, batched, initial state given)
SHAPES = {
    "1layer": (1, False, False, True, True),
    "2layer_bidir_bf": (2, True, True, True, False),
    "2layer_bidir_unbatched": (2, True, False, False, True),
    "1layer_bf_unbatched": (1, False, True, False, False),
}
T, N, I, H = 4, 3, 3, 4


def _copy_weights(real: Any, fad: Any) -> None:
    fad.load_state_dict({k: ftorch.tensor(v.detach().numpy())
                         for k, v in real.state_dict().items()})


def _pair(cls: str, args: tuple, kw: dict, dtype: str) -> tuple:
    real = getattr(real_torch.nn, cls)(*args, **kw, dtype=getattr(real_torch, dtype))
    fad = getattr(ftorch.nn, cls)(*args, **kw, dtype=getattr(ftorch, dtype))
    _copy_weights(real, fad)
    return real, fad


def _run(torch: Any, module: Any, arrays: list, call: Any) -> tuple:
    """Forward with leaf tensors made from ``arrays``, backward of a weighted sum of every
    output; return the outputs, the leaves' gradients and the parameters' gradients."""
    leaves = [torch.tensor(a, requires_grad=True) for a in arrays]
    outs = call(module, leaves)
    rng = np.random.default_rng(1)
    loss = sum((o * torch.tensor(rng.standard_normal(tuple(o.shape)).astype(arrays[0].dtype))
                ).sum() for o in outs)
    loss.backward()
    grads = {name: p.grad for name, p in module.named_parameters()}
    return ([o.detach().numpy() for o in outs], [x.grad.numpy() for x in leaves],
            {k: g.numpy() for k, g in grads.items()})


def _assert_same(r: tuple, f: tuple, tol: float) -> None:
    for a, b in zip(r[0] + r[1], f[0] + f[1]):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(b, a, rtol=tol, atol=tol)
    assert list(r[2]) == list(f[2])
    for k in r[2]:
        np.testing.assert_allclose(f[2][k], r[2][k], rtol=tol, atol=tol, err_msg=k)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("layer", LAYERS)
def test_layer_values_states_and_gradients_match_pytorch(layer, shape, dtype):
    cls, kw = LAYERS[layer]
    layers, bidir, batch_first, batched, with_state = SHAPES[shape]
    real, fad = _pair(cls, (I, H, layers), dict(kw, bidirectional=bidir,
                                                batch_first=batch_first), dtype)
    rng = np.random.default_rng(0)
    x_shape = ((N, T) if batch_first else (T, N)) if batched else (T,)
    arrays = [rng.standard_normal(x_shape + (I,)).astype(dtype)]
    lead = (layers * (2 if bidir else 1),) + ((N,) if batched else ())
    if with_state:
        arrays.append(rng.standard_normal(lead + (kw.get("proj_size") or H,)).astype(dtype))
        if cls == "LSTM":
            arrays.append(rng.standard_normal(lead + (H,)).astype(dtype))

    def call(m: Any, leaves: list) -> list:
        hx = None if len(leaves) == 1 else (leaves[1] if cls != "LSTM" else tuple(leaves[1:]))
        out, state = m(leaves[0], hx)
        return [out, *(state if cls == "LSTM" else (state,))]

    _assert_same(_run(real_torch, real, arrays, call), _run(ftorch, fad, arrays, call),
                 TOL[dtype])


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_second_order_gradients_match_pytorch(cls):
    real, fad = _pair(cls, (I, H), {}, "float64")

    def run(torch: Any, m: Any) -> tuple:
        x = torch.tensor(np.linspace(-1, 1, T * I).reshape(T, I), requires_grad=True)
        out, state = m(x)
        h = state[0] if cls == "LSTM" else state
        (g,) = torch.autograd.grad((out ** 2).sum() + h.sum(), x, create_graph=True)
        (g ** 2).sum().backward()
        return x.grad.numpy(), m.weight_hh_l0.grad.numpy()

    for a, b in zip(run(real_torch, real), run(ftorch, fad)):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)


CELLS = {"rnn_tanh": ("RNNCell", {}), "rnn_relu": ("RNNCell", {"nonlinearity": "relu"}),
         "lstm": ("LSTMCell", {}), "gru": ("GRUCell", {}),
         "gru_nobias": ("GRUCell", {"bias": False})}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batched,with_state", [(True, True), (False, True), (True, False)])
@pytest.mark.parametrize("cell", CELLS)
def test_cell_values_and_gradients_match_pytorch(cell, batched, with_state, dtype):
    cls, kw = CELLS[cell]
    real, fad = _pair(cls, (I, H), kw, dtype)
    rng = np.random.default_rng(0)
    lead = (N,) if batched else ()
    arrays = [rng.standard_normal(lead + (I,)).astype(dtype)]
    if with_state:
        arrays += [rng.standard_normal(lead + (H,)).astype(dtype)
                   for _ in range(2 if cls == "LSTMCell" else 1)]

    def call(m: Any, leaves: list) -> list:
        hx = None if len(leaves) == 1 else (leaves[1] if len(leaves) == 2 else tuple(leaves[1:]))
        out = m(leaves[0], hx)
        return list(out) if cls == "LSTMCell" else [out]

    _assert_same(_run(real_torch, real, arrays, call), _run(ftorch, fad, arrays, call),
                 TOL[dtype])


CONFIGS = [("RNN", (3, 5), {}), ("RNN", (3, 5, 2), {"nonlinearity": "relu", "bias": False}),
           ("LSTM", (3, 5, 2), {"bidirectional": True, "proj_size": 3}),
           ("LSTM", (2, 4), {"batch_first": True, "dropout": 0.0}),
           ("GRU", (3, 5, 3), {"dropout": 0.25, "bidirectional": True, "bias": False}),
           ("RNNCell", (3, 5), {"nonlinearity": "relu", "bias": False}),
           ("LSTMCell", (3, 5), {}), ("GRUCell", (3, 5), {"bias": False})]


@pytest.mark.parametrize("cls,args,kw", CONFIGS)
def test_state_dict_repr_and_initialisation_like_pytorch(cls, args, kw):
    real = getattr(real_torch.nn, cls)(*args, **kw)
    fad = getattr(ftorch.nn, cls)(*args, **kw)
    r, f = real.state_dict(), fad.state_dict()
    assert list(r) == list(f)
    assert [tuple(v.shape) for v in r.values()] == [tuple(v.shape) for v in f.values()]
    assert repr(real) == repr(fad)
    bound = 1 / np.sqrt(args[1])
    for v in f.values():
        assert v.dtype == ftorch.float32
        assert np.all(np.abs(v.numpy()) <= bound) and np.unique(v.numpy()).size > 1


def test_initialisation_follows_the_seeded_generator():
    ftorch.manual_seed(3)
    a = ftorch.nn.LSTM(3, 4, 2).state_dict()
    ftorch.manual_seed(3)
    b = ftorch.nn.LSTM(3, 4, 2).state_dict()
    for k in a:
        np.testing.assert_array_equal(a[k].numpy(), b[k].numpy())
    assert not np.array_equal(a["weight_ih_l0"].numpy(), a["weight_ih_l1"].numpy()[:, :3])


def _error(fn: Any) -> tuple:
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value)


BAD = {
    "nonlinearity": lambda t: t.nn.RNN(3, 4, nonlinearity="sigmoid"),
    "proj_rnn": lambda t: t.nn.GRU(3, 4, proj_size=2),
    "proj_big": lambda t: t.nn.LSTM(3, 4, proj_size=4),
    "proj_negative": lambda t: t.nn.LSTM(3, 4, proj_size=-1),
    "dropout": lambda t: t.nn.GRU(3, 4, dropout=1.5),
    "hidden": lambda t: t.nn.RNN(3, 0),
    "layers": lambda t: t.nn.RNN(3, 4, num_layers=0),
    "bias_type": lambda t: t.nn.LSTM(3, 4, bias=1),
    "input_rank": lambda t: t.nn.RNN(3, 4)(t.zeros(1, 2, 3, 3)),
    "lstm_rank": lambda t: t.nn.LSTM(3, 4)(t.zeros(3)),
    "gru_rank": lambda t: t.nn.GRU(3, 4)(t.zeros(3)),
    "input_size": lambda t: t.nn.RNN(3, 4)(t.zeros(2, 2)),
    "hx_rank": lambda t: t.nn.RNN(3, 4)(t.zeros(2, 3), t.zeros(1, 1, 4)),
    "hx_rank_batched": lambda t: t.nn.GRU(3, 4)(t.zeros(2, 1, 3), t.zeros(1, 4)),
    "hx_size": lambda t: t.nn.RNN(3, 4)(t.zeros(2, 3), t.zeros(2, 4)),
    "lstm_hx_rank": lambda t: t.nn.LSTM(3, 4)(t.zeros(2, 1, 3), (t.zeros(1, 4), t.zeros(1, 4))),
    "lstm_c_size": lambda t: t.nn.LSTM(3, 4)(t.zeros(2, 1, 3),
                                             (t.zeros(1, 1, 4), t.zeros(1, 2, 4))),
    "dtype": lambda t: t.nn.GRU(3, 4)(t.zeros(2, 1, 3, dtype=t.float64)),
    "empty_sequence": lambda t: t.nn.LSTM(3, 4)(t.zeros(0, 1, 3)),
    "cell_rank": lambda t: t.nn.GRUCell(3, 4)(t.zeros(1, 1, 3)),
    "cell_hidden_rank": lambda t: t.nn.RNNCell(3, 4)(t.zeros(1, 3), t.zeros(1, 1, 4)),
    "lstm_cell_hx_rank": lambda t: t.nn.LSTMCell(3, 4)(t.zeros(1, 3),
                                                       (t.zeros(1, 4), t.zeros(1, 1, 4))),
}


@pytest.mark.parametrize("case", BAD)
def test_errors_match_pytorch(case):
    assert _error(lambda: BAD[case](ftorch)) == _error(lambda: BAD[case](real_torch))


def test_dropout_between_layers_only_in_training():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        ftorch.nn.GRU(3, 4, dropout=0.5)
    m = ftorch.nn.GRU(3, 4, num_layers=2, dropout=0.5)
    plain = ftorch.nn.GRU(3, 4, num_layers=2)
    plain.load_state_dict(m.state_dict())
    x = ftorch.randn(5, 2, 3)
    np.testing.assert_array_equal(m.eval()(x)[0].detach().numpy(), plain(x)[0].detach().numpy())
    assert not np.allclose(m.train()(x)[0].detach().numpy(), plain(x)[0].detach().numpy())


def test_double_converts_the_weights():
    m = ftorch.nn.LSTM(3, 4).double()
    out, (h, c) = m(ftorch.randn(2, 1, 3, dtype=ftorch.float64))
    assert out.dtype == h.dtype == c.dtype == ftorch.float64


def test_character_model_trains_with_adam():
    torch, nn = ftorch, ftorch.nn
    text = "hello world, hello fad. " * 2
    chars = sorted(set(text))
    ids = torch.tensor([chars.index(ch) for ch in text])
    torch.manual_seed(0)

    class CharModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(len(chars), 8)
            self.lstm = nn.LSTM(8, 16, batch_first=True)
            self.head = nn.Linear(16, len(chars))

        def forward(self, x):
            out, _ = self.lstm(self.embed(x))
            return self.head(out)

    model = CharModel()
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    x, y = ids[:-1].reshape(1, -1), ids[1:]
    losses = []
    for _ in range(8):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x).reshape(-1, len(chars)), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.6 * losses[0]
