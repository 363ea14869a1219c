"""Loading a checkpoint never runs its code: ``fad.torch.load`` defaults to
``weights_only=True`` (only tensors, NumPy arrays, dtypes, containers and plain
values are rebuilt), ``fad.torch.save`` writes PyTorch's zip format, and
checkpoints written by real PyTorch (zip and legacy formats) load with their
exact values."""

from __future__ import annotations

import collections
import dataclasses
import importlib.util
import io
import os
import pathlib
import pickle
import zipfile

import numpy as np
import pytest

import fad.torch as torch

DATA = pathlib.Path(__file__).parent / "data"


def _script():
    spec = importlib.util.spec_from_file_location("make_torch_checkpoints",
                                                  DATA / "make_torch_checkpoints.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


SCRIPT = _script()


# ---------------------------------------------------------------- malicious files
class _Reduce:
    """Pickles as ``func(*args)``: what a malicious checkpoint does."""

    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


def _payloads(target: pathlib.Path) -> list:
    return [
        _Reduce(os.system, f"touch {target}"),
        _Reduce(eval, f"open({str(target)!r}, 'w').close()"),
        _Reduce(exec, f"open({str(target)!r}, 'w').close()"),
        _Reduce(open, str(target), "w"),
    ]


def _global_name(func) -> str:
    return f"{func.__module__}.{func.__name__}"


@pytest.mark.parametrize("protocol", [0, 2, 4, 5])
@pytest.mark.parametrize("which", range(4))
def test_malicious_pickle_is_rejected_and_its_code_never_runs(tmp_path, protocol, which):
    target = tmp_path / "pwned"
    evil = _payloads(target)[which]
    path = tmp_path / "evil.pt"
    path.write_bytes(pickle.dumps({"weight": [evil]}, protocol=protocol))
    with pytest.raises(pickle.UnpicklingError) as info:
        torch.load(path)
    msg = str(info.value)
    assert "Weights only load failed" in msg
    assert _global_name(evil.func) in msg
    assert "weights_only=False" in msg and "add_safe_globals" in msg
    assert not target.exists()
    # the opt-out is real: weights_only=False is full pickle and runs the code
    torch.load(path, weights_only=False)
    assert target.exists()


def _checkpoint_with_data_pkl(tmp_path, edit) -> object:
    """A checkpoint of ``{"w": ones(2)}`` in PyTorch's zip layout whose ``data.pkl``
    is replaced by ``edit(data.pkl)``; returns its path."""
    good = io.BytesIO()
    torch.save({"w": torch.ones(2)}, good)
    path = tmp_path / "edited.pt"
    with zipfile.ZipFile(io.BytesIO(good.getvalue())) as src, \
            zipfile.ZipFile(path, "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            dst.writestr(name, edit(data) if name.endswith("/data.pkl") else data)
    return path


def test_malicious_data_pkl_inside_a_zip_checkpoint_is_rejected(tmp_path):
    target = tmp_path / "pwned"
    path = _checkpoint_with_data_pkl(
        tmp_path, lambda _: pickle.dumps({"w": _Reduce(os.system, f"touch {target}")},
                                         protocol=2))
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed.*system"):
        torch.load(path)
    assert not target.exists()


def test_malicious_legacy_pytorch_checkpoint(tmp_path):
    real = pytest.importorskip("torch")
    log = tmp_path / "ran"
    path = tmp_path / "legacy.pt"
    evil = _Reduce(exec, f"open({str(log)!r}, 'a').write('x')")
    real.save({"w": real.ones(2), "evil": evil}, path, _use_new_zipfile_serialization=False)
    with pytest.raises(pickle.UnpicklingError, match="builtins.exec"):
        torch.load(path)
    assert torch.serialization.get_unsafe_globals_in_checkpoint(path) == ["builtins.exec"]
    assert not log.exists()
    out = torch.load(path, weights_only=False)  # trusted: the code runs, exactly once
    assert log.read_text() == "x" and out["w"].tolist() == [1.0, 1.0]


def test_getattr_and_other_builtins_are_not_reachable(tmp_path):
    for name in (b"builtins\ngetattr", b"builtins\n__import__", b"os\nsystem",
                 b"subprocess\nPopen", b"fad.torch.serialization\n_load"):
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
            torch.load(io.BytesIO(b"\x80\x02c" + name + b"\n."))


def test_opcodes_cannot_mutate_allowed_objects():
    # BUILD on the torch.float32 singleton would rewrite its NumPy dtype
    build = (b"\x80\x02cfad.torch._dtype\nfloat32\nN}X\x02\x00\x00\x00npcnumpy\nint8\n"
             b"s\x86b.")
    # SETITEM on a NumPy array would run ndarray.__setitem__
    setitem = (b"\x80\x02cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\nK\x00\x85"
               b"C\x01b\x87RK\x00K\x01s.")
    before = torch.float32.np
    try:
        for payload in (build, setitem):
            with pytest.raises(pickle.UnpicklingError):
                torch.load(io.BytesIO(payload))
    finally:
        object.__setattr__(torch.float32, "np", before) if torch.float32.np != before else None
    assert torch.float32.np == np.dtype(np.float32)


def test_loaded_objects_keep_their_classes_methods():
    # an OrderedDict whose instance __dict__ would shadow its ``items`` method
    payload = (b"\x80\x02ccollections\nOrderedDict\n)R}X\x05\x00\x00\x00itemsK\x01sb.")
    assert pickle.loads(payload).items == 1  # what plain pickle gives
    with pytest.raises(pickle.UnpicklingError, match="OrderedDict"):
        torch.load(io.BytesIO(payload))


def test_files_of_earlier_fad_versions_load_without_running_code():
    old = pickle.dumps({"w": torch.ones(2, requires_grad=True),
                        "p": torch.nn.Parameter(torch.zeros(1))})
    out = torch.load(io.BytesIO(old))
    assert out["w"].requires_grad and out["w"].tolist() == [1.0, 1.0]
    assert type(out["p"]) is torch.nn.Parameter
    # the class argument of fad's old rebuild function is checked
    from fad.torch.tensor import _rebuild
    forged = pickle.dumps(_Reduce(_rebuild, np.ones(2), False, collections.OrderedDict))
    with pytest.raises(pickle.UnpicklingError, match="invalid fad tensor"):
        torch.load(io.BytesIO(forged))


def test_object_arrays_are_not_weights():
    payload = pickle.dumps(np.array([1, "a"], dtype=object), protocol=2)
    with pytest.raises(pickle.UnpicklingError, match="objects"):
        torch.load(io.BytesIO(payload))
    assert torch.load(io.BytesIO(payload), weights_only=False).tolist() == [1, "a"]


def test_tampered_tensor_layout_cannot_read_outside_its_storage(tmp_path):
    def grow(data: bytes) -> bytes:
        assert b"K\x02\x85" in data  # the size (2,)
        return data.replace(b"K\x02\x85", b"K\x40\x85", 1)
    path = _checkpoint_with_data_pkl(tmp_path, grow)
    with pytest.raises(pickle.UnpicklingError, match="corrupt"):
        torch.load(path)


# ---------------------------------------------------------------- allowing globals
@dataclasses.dataclass
class Config:
    lr: float
    name: str
    weight: object = None


def test_add_safe_globals_lets_a_user_class_through(tmp_path):
    from fad.torch import serialization as ser
    path = tmp_path / "cfg.pt"
    torch.save(Config(0.1, "run", torch.arange(3)), path)
    with pytest.raises(pickle.UnpicklingError, match=f"{__name__}.Config"):
        torch.load(path)
    assert ser.get_unsafe_globals_in_checkpoint(path) == [f"{__name__}.Config"]
    try:
        ser.add_safe_globals([Config])
        assert Config in ser.get_safe_globals()
        assert ser.get_unsafe_globals_in_checkpoint(path) == []
        cfg = torch.load(path)
        assert cfg.lr == 0.1 and cfg.name == "run" and cfg.weight.tolist() == [0, 1, 2]
    finally:
        ser.clear_safe_globals()
    assert ser.get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError):
        torch.load(path)


def test_safe_globals_context_manager_is_scoped(tmp_path):
    from fad.torch.serialization import get_safe_globals, safe_globals
    path = tmp_path / "cfg.pt"
    torch.save([Config(1.0, "a")], path)
    with safe_globals([(Config, f"{__name__}.Config")]):
        assert torch.load(path)[0].name == "a"
        assert Config in get_safe_globals()
    assert Config not in get_safe_globals()
    with pytest.raises(pickle.UnpicklingError, match="Config"):
        torch.load(path)


# ---------------------------------------------------------------- round trips
def _is_torch_zip(path) -> bool:
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
    prefix = names[0].split("/")[0]
    return {f"{prefix}/data.pkl", f"{prefix}/byteorder", f"{prefix}/version"} <= set(names)


def test_module_state_dict_round_trip(tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    path = tmp_path / "m.pt"
    torch.save(model.state_dict(), path)
    assert _is_torch_zip(path)
    state = torch.load(path)
    assert list(state) == list(model.state_dict())
    other = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    other.load_state_dict(state)
    x = torch.randn(5, 3)
    assert np.array_equal(other(x).detach().numpy(), model(x).detach().numpy())
    # keep_vars: Parameters stay Parameters, with requires_grad
    torch.save(model.state_dict(keep_vars=True), path)
    params = torch.load(path)
    assert all(type(p) is torch.nn.Parameter and p.requires_grad for p in params.values())


@pytest.mark.parametrize("make", [
    lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9),
    lambda ps: torch.optim.Adam(ps, lr=0.05, betas=(0.8, 0.9)),
])
def test_optimizer_state_round_trip_resumes_exactly(tmp_path, make):
    def step(model, opt, x):
        opt.zero_grad()
        (model(x) ** 2).sum().backward()
        opt.step()

    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    opt = make(model.parameters())
    x = torch.randn(4, 3)
    step(model, opt, x)
    state = opt.state_dict()
    assert all(isinstance(v, torch.Tensor) for s in state["state"].values()
               for v in s.values())  # PyTorch's layout: tensors
    path = tmp_path / "ckpt.pt"
    torch.save({"model": model.state_dict(), "opt": state}, path)
    assert _is_torch_zip(path)
    step(model, opt, x)
    step(model, opt, x)

    ckpt = torch.load(path)
    model2 = torch.nn.Linear(3, 2)
    model2.load_state_dict(ckpt["model"])
    opt2 = make(model2.parameters())
    opt2.load_state_dict(ckpt["opt"])
    step(model2, opt2, x)
    step(model2, opt2, x)
    for p, q in zip(model.parameters(), model2.parameters()):
        assert np.array_equal(p.detach().numpy(), q.detach().numpy())


def test_nested_containers_dtypes_and_flags_round_trip(tmp_path):
    leaf = torch.tensor([1.0, 2.0], requires_grad=True)
    leaf.tag = "kept"  # Python attributes travel with the tensor, as in PyTorch
    obj = {
        "list": [torch.arange(3), (torch.tensor(True), None)],
        "ordered": collections.OrderedDict(b=torch.zeros(2, 0), a=torch.tensor(2.5)),
        "leaf": leaf, "same": leaf,
        "param": torch.nn.Parameter(torch.ones(2)),
        "frozen": torch.nn.Parameter(torch.ones(1), requires_grad=False),
        "dtypes": [torch.float16, torch.int8, torch.bool, torch.complex64],
        "values": {1, 2}, "bytes": b"\x00\xff", "complex": 1 + 2j, "float": 0.5,
        "size": torch.Size([2, 3]), "device": torch.device("cpu"),
        "numpy": np.arange(4, dtype=np.int16).reshape(2, 2),
        "half": torch.tensor([0.5, -1.0], dtype=torch.float16),
        "view": torch.arange(12.0).reshape(3, 4).t(),
    }
    for f in (tmp_path / "o.pt", str(tmp_path / "o2.pt"), io.BytesIO()):
        torch.save(obj, f)
        if isinstance(f, io.BytesIO):
            f.seek(0)
        else:
            assert _is_torch_zip(f)
        out = torch.load(f)
        assert out["list"][0].tolist() == [0, 1, 2] and out["list"][0].dtype is torch.int64
        assert type(out["list"][1]) is tuple and out["list"][1][0].item() is True
        assert type(out["ordered"]) is collections.OrderedDict
        assert list(out["ordered"]) == ["b", "a"]
        assert out["ordered"]["b"].shape == (2, 0) and out["ordered"]["a"].shape == ()
        assert out["leaf"].requires_grad and out["leaf"].is_leaf and out["same"] is out["leaf"]
        assert out["leaf"].tag == "kept"
        assert type(out["param"]) is torch.nn.Parameter and out["param"].requires_grad
        assert type(out["frozen"]) is torch.nn.Parameter and not out["frozen"].requires_grad
        assert out["dtypes"] == obj["dtypes"] and out["dtypes"][0] is torch.float16
        assert out["values"] == {1, 2} and out["bytes"] == b"\x00\xff"
        assert out["complex"] == 1 + 2j and out["float"] == 0.5
        assert out["size"] == torch.Size([2, 3]) and type(out["size"]) is torch.Size
        assert out["device"] == torch.device("cpu")
        assert np.array_equal(out["numpy"], obj["numpy"]) and out["numpy"].dtype == np.int16
        assert out["half"].dtype is torch.float16
        assert out["view"].tolist() == obj["view"].tolist()


def test_a_whole_module_needs_trust(tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    path = tmp_path / "model.pt"
    torch.save(model, path)
    assert _is_torch_zip(path)
    with pytest.raises(pickle.UnpicklingError, match="fad.torch.nn.modules.Sequential"):
        torch.load(path)
    loaded = torch.load(path, weights_only=False)
    x = torch.randn(2, 3)
    assert np.array_equal(loaded(x).detach().numpy(), model(x).detach().numpy())


# ---------------------------------------------------------------- real PyTorch's files
def _check_tensors(out: dict, expected: dict) -> None:
    got = SCRIPT.flatten(out)
    assert sorted(got) == sorted(expected)
    for path, want in expected.items():
        assert got[path].dtype == want.dtype, path
        assert got[path].shape == want.shape, path
        assert np.array_equal(got[path], want), path
    for path in SCRIPT.REQUIRES_GRAD:
        assert out[path].requires_grad and out[path].is_leaf
    assert type(out["param"]) is torch.nn.Parameter
    assert not out["float32"].requires_grad
    assert out["bfloat16"].dtype is torch.float32  # fad has no bfloat16
    assert out["scalar"].shape == () and out["empty"].shape == (0, 3)
    assert out["dtype"] is torch.float16 and out["step"] == 7
    assert type(out["nested"]["list"][1]) is tuple
    for k in ("base", "transposed", "column", "row"):  # copies that own their memory
        assert out[k].numpy().flags.owndata, k


def test_loads_the_state_dict_real_pytorch_wrote():
    state = torch.load(DATA / "torch_mlp.pt")
    expected = np.load(DATA / "torch_mlp.npz")
    assert type(state) is collections.OrderedDict
    assert list(state) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    for k, v in state.items():
        assert type(v) is torch.Tensor and v.dtype is torch.float32
        assert np.array_equal(v.numpy(), expected[k])
    assert state._metadata[""] == {"version": 1}


def test_facade_model_gives_pytorchs_outputs_from_its_state_dict():
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    model.load_state_dict(torch.load(DATA / "torch_mlp.pt", map_location="cpu"))
    expected = np.load(DATA / "torch_mlp.npz")
    y = model(torch.from_numpy(expected["x"])).detach().numpy()
    np.testing.assert_allclose(y, expected["y"], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["torch_tensors.pt", "torch_tensors_legacy.pt"])
def test_loads_tensors_real_pytorch_wrote(name):
    with open(DATA / name, "rb") as f:
        out = torch.load(f)
    _check_tensors(out, dict(np.load(DATA / "torch_tensors.npz")))


def test_fresh_checkpoints_of_installed_pytorch(tmp_path):
    real = pytest.importorskip("torch")
    obj, expected = SCRIPT.tensors(real)
    for legacy in (False, True):
        path = tmp_path / f"t{legacy}.pt"
        real.save(obj, path, _use_new_zipfile_serialization=not legacy)
        _check_tensors(torch.load(path), expected)
    state, expected = SCRIPT.mlp(real)
    real.save(state, tmp_path / "m.pt")
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    model.load_state_dict(torch.load(tmp_path / "m.pt"))
    y = model(torch.from_numpy(expected["x"])).detach().numpy()
    np.testing.assert_allclose(y, expected["y"], rtol=1e-6, atol=1e-7)


def test_installed_pytorch_loads_what_fad_saves(tmp_path):
    real = pytest.importorskip("torch")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    obj = {"model": model.state_dict(), "params": list(model.parameters()),
           "ints": torch.arange(5, dtype=torch.int32), "flags": torch.tensor([True, False]),
           "scalar": torch.tensor(1.5, dtype=torch.float64), "empty": torch.zeros(0, 2),
           "leaf": torch.ones(2, requires_grad=True), "view": torch.arange(6.0).reshape(2, 3).t(),
           "dtype": torch.float16, "size": torch.Size([3]), "meta": {"epoch": 3, "name": "x"}}
    obj["leaf"].tag = "kept"
    path = tmp_path / "fad.pt"
    torch.save(obj, path)
    out = real.load(path, weights_only=True)
    assert out["leaf"].tag == "kept"
    assert SCRIPT.flatten(out).keys() == SCRIPT.flatten(obj).keys()
    for k, v in SCRIPT.flatten(obj).items():
        assert np.array_equal(SCRIPT.flatten(out)[k], v), k
    assert all(type(p) is real.nn.Parameter and p.requires_grad for p in out["params"])
    assert out["leaf"].requires_grad and not out["ints"].requires_grad
    assert out["ints"].dtype is real.int32 and out["scalar"].shape == ()
    assert out["dtype"] is real.float16 and out["size"] == real.Size([3])
    assert out["meta"] == {"epoch": 3, "name": "x"}
    # and a real torch model takes the facade's state dict
    ref = real.nn.Sequential(real.nn.Linear(3, 4), real.nn.ReLU(), real.nn.Linear(4, 2))
    ref.load_state_dict(out["model"])
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(ref(real.from_numpy(x)).detach().numpy(),
                               model(torch.from_numpy(x)).detach().numpy(), rtol=1e-6)


def test_pytorchs_optimizer_state_resumes_in_the_facade(tmp_path):
    real = pytest.importorskip("torch")
    real.manual_seed(0)
    ref = real.nn.Linear(3, 2)
    opt = real.optim.Adam(ref.parameters(), lr=0.05)
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)

    def real_step():
        opt.zero_grad()
        (ref(real.from_numpy(x)) ** 2).sum().backward()
        opt.step()

    real_step()
    real_step()
    real.save({"model": ref.state_dict(), "opt": opt.state_dict()}, tmp_path / "c.pt")
    real_step()

    ckpt = torch.load(tmp_path / "c.pt")
    model = torch.nn.Linear(3, 2)
    model.load_state_dict(ckpt["model"])
    fopt = torch.optim.Adam(model.parameters(), lr=0.05)
    fopt.load_state_dict(ckpt["opt"])
    fopt.zero_grad()
    (model(torch.from_numpy(x)) ** 2).sum().backward()
    fopt.step()
    for p, q in zip(ref.parameters(), model.parameters()):
        np.testing.assert_allclose(q.detach().numpy(), p.detach().numpy(), rtol=1e-5, atol=1e-7)


def test_pytorch_tensor_attributes_and_dtypes_fad_lacks(tmp_path):
    real = pytest.importorskip("torch")
    t = real.ones(2)
    t.tag = "hi"
    p = real.nn.Parameter(real.zeros(1))
    p.note = 3
    real.save({"t": t, "p": p}, tmp_path / "a.pt")
    out = torch.load(tmp_path / "a.pt")
    assert out["t"].tag == "hi" and out["t"].tolist() == [1.0, 1.0]
    assert type(out["p"]) is torch.nn.Parameter and out["p"].note == 3
    real.save({"u": real.tensor([1, 2], dtype=real.uint16)}, tmp_path / "u.pt")
    with pytest.raises(pickle.UnpicklingError, match="torch.uint16"):
        torch.load(tmp_path / "u.pt")


# ---------------------------------------------------------------- NumPy dtypes and memory
class _Built(_Reduce):
    """Pickles as ``func(*args)`` followed by BUILD with ``state``."""

    def __init__(self, func, args, state):
        super().__init__(func, *args)
        self.state = state

    def __reduce__(self):
        return self.func, self.args, self.state


def _void_dtype(names, fields, itemsize=8, subarray=None):
    return _Built(np.dtype, ("V8", False, True),
                  (3, "|", subarray, names, fields, itemsize, 1, 0))


def _f8_dtype() -> bytes:
    return b"cnumpy\ndtype\nX\x02\x00\x00\x00f8\x89\x88\x87R"


@pytest.mark.parametrize("dtype", [
    _void_dtype(("a",), {"a": (np.dtype("f8"), 1000)}),                       # past the item
    _void_dtype(("a",), {"a": (np.dtype("f8"), 0), "b": (np.dtype("f8"), 10**6)}),  # extra entry
    _void_dtype(None, None, subarray=(np.dtype("f8"), (10**6,))),             # subarray > item
    _void_dtype(("a",), {"a": (np.dtype("f8"), 0)}, itemsize=64),             # grows the item
], ids=["offset", "extra-field", "subarray", "itemsize"])
def test_a_numpy_dtype_from_a_file_cannot_reach_outside_its_items(dtype):
    frombuffer = np.zeros(1).__reduce_ex__(5)[0]  # what protocol 5 pickles arrays with
    payload = pickle.dumps(_Reduce(frombuffer, b"\x00" * 8, dtype, (1,), "C"), protocol=2)
    with pytest.raises(pickle.UnpicklingError, match="invalid NumPy dtype state"):
        torch.load(io.BytesIO(payload))


def test_a_dtype_cannot_be_rebuilt_under_an_array_made_with_it():
    # D = dtype('V8'); a = _frombuffer(8 bytes, D); then BUILD D to 64-byte items:
    # a's one item would span 56 bytes past its buffer
    payload = (b"\x80\x02cnumpy\ndtype\nX\x02\x00\x00\x00V8\x89\x88\x87Rq\x000"
               b"cnumpy.core.numeric\n_frombuffer\n(C\x08" + b"\x00" * 8
               + b"h\x00K\x01\x85X\x01\x00\x00\x00CtR"
               b"h\x00(K\x03X\x01\x00\x00\x00|NX\x01\x00\x00\x00a\x85}X\x01\x00\x00\x00a"
               + _f8_dtype() + b"K\x00\x86sK@K\x01K\x00tb\x86.")
    with pytest.raises(pickle.UnpicklingError, match="invalid NumPy dtype state"):
        torch.load(io.BytesIO(payload))


def test_numpy_values_of_every_kind_of_dtype_round_trip(tmp_path):
    dtypes = [np.dtype([(("title", "a"), "f8"), ("b", [("c", "i2", (2,))])], align=True),
              np.dtype([("a", ">i4"), ("b", "f8", (2, 3))]),
              np.dtype({"names": ["x", "y"], "formats": ["u1", "f4"], "offsets": [8, 0],
                        "itemsize": 16}),
              np.dtype(">f8"), np.dtype("M8[ms]"), np.dtype("m8[2D]"), np.dtype("S5"),
              np.dtype("U3"), np.dtype("V7"), np.dtype(("f4", (2, 2))), np.dtype([])]
    for d in dtypes:
        a = np.zeros(3, d)
        values = [d, a] + ([a[0]] if d.subdtype is None else [])
        path = tmp_path / "d.pt"
        torch.save(values, path)
        out = torch.load(path)
        assert out[0] == d and out[0].fields == d.fields and out[0].itemsize == d.itemsize
        assert out[1].tobytes() == a.tobytes() and out[1].dtype.fields == d.fields
        if len(out) > 2:
            assert out[2].tobytes() == a[0].tobytes()


def test_a_few_bytes_of_file_cannot_ask_for_any_amount_of_memory():
    # bytearray(2**44) and an uninitialised 2**40-element NumPy array, from ~40 bytes
    for payload in (b"\x80\x02c__builtin__\nbytearray\n\x8a\x06\x00\x00\x00\x00\x00\x10\x85R.",
                    b"\x80\x02cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\n"
                    b"\x8a\x06\x00\x00\x00\x00\x00\x01\x85C\x01b\x87R."):
        with pytest.raises(pickle.UnpicklingError, match="in the file"):
            torch.load(io.BytesIO(payload))
    # what pickle itself writes for bytes and bytearrays, at every protocol, still loads
    for obj in (b"", bytearray(), bytearray(b"xy"), b"\xff"):
        for protocol in range(6):
            buf = io.BytesIO()
            torch.save([obj], buf, pickle_protocol=protocol)
            buf.seek(0)
            out = torch.load(buf)[0]
            assert out == obj and type(out) is type(obj)


def _with_layout(tmp_path, size, stride):
    def edit(data: bytes) -> bytes:
        assert b"K\x02\x85" in data and b"K\x01\x85" in data  # size (2,), stride (1,)
        data = data.replace(b"K\x02\x85", pickle.dumps(size, 2)[2:-1], 1)
        return data.replace(b"K\x01\x85", pickle.dumps(stride, 2)[2:-1], 1)
    return _checkpoint_with_data_pkl(tmp_path, edit)


def test_an_expanded_tensor_is_not_materialised_on_load(tmp_path):
    # 10**6 x 10**6 float32 from a one-element storage: 3.6 TiB as a copy
    big = torch.load(_with_layout(tmp_path, (10**6, 10**6), (0, 0)))["w"]
    assert big.shape == (10**6, 10**6) and big[123, 456].item() == 1.0
    small = torch.load(_with_layout(tmp_path, (3, 2), (0, 1)))["w"]
    assert small.stride() == (0, 1)
    with pytest.raises(RuntimeError, match="refers to a single memory location"):
        small.add_(1)  # PyTorch's refusal too: its elements share memory cells
    small = small.clone()
    small.add_(1)
    assert small.tolist() == [[2.0, 2.0]] * 3
    for size, stride in (((2**62, 2**62), (0, 0)), ((2**63,), (0,)), ((1, 1), (2**70, 0))):
        with pytest.raises(pickle.UnpicklingError, match="invalid tensor layout"):
            torch.load(_with_layout(tmp_path, size, stride))


def test_many_tensors_of_one_storage_do_not_copy_it_many_times(tmp_path):
    # data.pkl rebuilds the tensor of its 2-element storage 5000 more times, with 4
    # bytes each (its function and arguments are memoized): copies would take 2.5
    # times the bytes of the file, and a bigger storage any multiple of it
    path = _checkpoint_with_data_pkl(
        tmp_path, lambda data: data[:-1] + b"(" + b"h\x02h\x0cR" * 5000 + b"l\x86.")
    state, views = torch.load(path)
    assert len(views) == 5000 and all(v.tolist() == [1.0, 1.0] for v in views)
    owned = [t.numpy() for t in [state["w"], *views] if t.numpy().flags.owndata]
    assert sum(a.nbytes for a in owned) <= 4 * 8  # the others are views of the storage
    views[-1].add_(1)  # a view is copied on its first in-place write
    assert views[-1].tolist() == [2.0, 2.0] and views[-2].tolist() == [1.0, 1.0]


def test_one_safe_globals_block_shared_by_two_threads(tmp_path):
    import threading
    from fractions import Fraction
    path = tmp_path / "f.pt"
    torch.save(Fraction(1, 3), path)
    block = torch.serialization.safe_globals([Fraction])
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict = {}

    def record(name, fn):
        try:
            seen[name] = fn()
        except Exception as e:  # noqa: BLE001 (compared below)
            seen[name] = e

    def first():
        with block:
            first_in.set()
            second_in.wait(5)
        first_out.set()
        record("first after", lambda: torch.load(path))

    def second():
        first_in.wait(5)
        with block:
            second_in.set()
            first_out.wait(5)
            record("second inside", lambda: torch.load(path))
        record("second after", lambda: torch.load(path))

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen["second inside"] == Fraction(1, 3)
    for name in ("first after", "second after"):  # each thread's block ended with it
        assert isinstance(seen[name], pickle.UnpicklingError), (name, seen[name])


def test_extension_codes_are_checked_even_after_a_trusted_load():
    import copyreg
    copyreg.add_extension("os", "system", 0xF00)
    try:
        payload = b"\x80\x02\x83\x00\x0f."  # EXT2 0x0f00: os.system, by its code
        assert pickle.loads(payload) is os.system  # fills copyreg's cache of codes
        with pytest.raises(pickle.UnpicklingError, match="os.system"):
            torch.load(io.BytesIO(payload))
        assert torch.serialization.get_unsafe_globals_in_checkpoint(
            io.BytesIO(payload)) == ["os.system"]
    finally:
        copyreg.remove_extension("os", "system", 0xF00)


@pytest.mark.parametrize("names, fields", [
    (("a",), {"a": ("not a dtype", 0)}),  # NumPy accepts it; copying the array crashes
    (("a",), {"a": 1}),
    ((1,), {}),                            # NumPy's C code fails inside (SystemError)
], ids=["str-field", "int-field", "int-name"])
def test_a_malformed_dtype_state_never_reaches_numpy(names, fields):
    frombuffer = np.zeros(1).__reduce_ex__(5)[0]
    dtype = _void_dtype(names, fields)
    payload = pickle.dumps(_Reduce(frombuffer, b"\x00" * 8, dtype, (1,), "C"), protocol=2)
    with pytest.raises(pickle.UnpicklingError, match="invalid NumPy dtype state"):
        torch.load(io.BytesIO(payload))


def test_a_bytearray8_opcode_reads_before_it_allocates():
    # BYTEARRAY8 claiming 2**44 bytes, in 11 bytes of protocol 5
    payload = b"\x80\x05\x96" + (2**44).to_bytes(8, "little") + b"."
    with pytest.raises(pickle.UnpicklingError, match="bytearray"):
        torch.load(io.BytesIO(payload))
    with pytest.raises(pickle.UnpicklingError, match="bytearray"):
        torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(payload))
    buf = io.BytesIO()
    torch.save(bytearray(b"abc"), buf, pickle_protocol=5)
    buf.seek(0)
    assert torch.load(buf) == bytearray(b"abc")
