"""Reliability of the edges: backends found by identity, the allocator switch,
pytree messages and depth, shape hints under ``jit``, hints naming real functions."""

from __future__ import annotations

import types

import numpy as np
import pytest
from concurrency import run_in_threads

import fad
import fad.numpy as fnp
from fad import backends


# ---------------------------------------------------------------- backends by identity
class _FakeArray:
    """An array whose namespace is a module that calls itself ``numpy``."""

    def __init__(self, data: object):
        self.data = np.asarray(data)

    def __array_namespace__(self, api_version: object = None) -> types.ModuleType:
        return _FAKE

    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        return self.data if dtype is None else self.data.astype(dtype)

    shape = property(lambda self: self.data.shape)
    dtype = property(lambda self: self.data.dtype)
    ndim = property(lambda self: self.data.ndim)


_FAKE = types.ModuleType("numpy")
_FAKE.asarray = lambda x, **kw: _FakeArray(np.asarray(x))
_FAKE.zeros = lambda shape, **kw: _FakeArray(np.zeros(shape, **kw))
_FAKE.sin = lambda x: _FakeArray(np.sin(x.data))


@pytest.fixture
def clean_registry(monkeypatch):
    monkeypatch.setattr(backends, "_BACKENDS", dict(backends._BACKENDS))
    monkeypatch.setattr(backends, "_BY_NAMESPACE", dict(backends._BY_NAMESPACE))
    monkeypatch.setattr(backends, "_BY_TYPE", dict(backends._BY_TYPE))


def test_a_namespace_named_numpy_does_not_replace_numpy(clean_registry):
    numpy_backend = backends.get_backend("numpy")
    a = _FakeArray([1.0, 2.0, 3.0])
    out = fnp.einsum("i,i->", a, a)  # a primitive that asks for the backend's extras
    assert isinstance(out, _FakeArray) and float(np.asarray(out)) == 14.0
    fake = backends.backend_for(_FAKE)
    assert fake.xp is _FAKE and fake.name != "numpy" and fake is not numpy_backend
    assert backends.get_backend("numpy") is numpy_backend
    assert backends.backend_for(np) is numpy_backend and numpy_backend.xp is np
    fad.set_backend("numpy")
    assert backends.default_xp() is np
    assert type(fnp.zeros(3)) is np.ndarray
    g = fad.grad(lambda x: fnp.sum(fnp.sin(x) * fnp.ones(3)))(np.ones(3))
    assert type(g) is np.ndarray
    np.testing.assert_allclose(g, np.cos(np.ones(3)))


def test_two_namespaces_with_one_name_get_two_backends(clean_registry):
    other = types.ModuleType("numpy")
    first, second = backends.backend_for(_FAKE), backends.backend_for(other)
    assert first is not second and first.xp is _FAKE and second.xp is other
    assert len({"numpy", first.name, second.name}) == 3
    assert backends.get_backend(first.name) is first
    assert backends.backend_for(_FAKE) is first  # found again by identity


# ---------------------------------------------------------------- the allocator switch
_FAULTS = """
import json, resource, sys
import numpy as np
import fad

def faults():  # page faults per 1 MiB array allocated and freed
    for _ in range(20):
        np.ones(1 << 17)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(50):
        np.ones(1 << 17)
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 50

seen = [fad.config.fad_tune_malloc, faults()]
for value in json.loads(sys.argv[1]):
    fad.config.update("fad_tune_malloc", value)
    seen += [fad.config.fad_tune_malloc, faults()]
print(json.dumps(seen))
"""


def _switch(steps: list, **env: str) -> list:
    import json
    import os
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", _FAULTS, json.dumps(steps)], check=True,
                         capture_output=True, text=True, cwd=os.path.dirname(fad.__path__[0]),
                         env={**os.environ, "PYTHONPATH": os.path.dirname(fad.__path__[0]),
                              **env})
    return json.loads(out.stdout)


def _glibc() -> bool:
    import platform
    return platform.libc_ver()[0] == "glibc"


@pytest.mark.skipif(not _glibc(), reason="glibc's malloc only")
def test_the_allocator_switch_turns_tuning_off_and_on_at_run_time(monkeypatch):
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    on, f_on, off, f_off, again, f_again = _switch([False, True], FAD_TUNE_MALLOC="1")
    assert (on, off, again) == (True, False, True)
    # off: glibc's starting thresholds, its sliding threshold stays off (mallopt
    # turned it off): a 1 MiB array is mmap-ed and faulted in afresh (256 pages)
    assert f_on < 16 and f_off > 128 and f_again < 16, (f_on, f_off, f_again)


@pytest.mark.skipif(not _glibc(), reason="glibc's malloc only")
def test_fad_tune_malloc_0_starts_off_and_the_switch_turns_it_on(monkeypatch):
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    start, f_start, on, f_on = _switch([True], FAD_TUNE_MALLOC="0")
    assert (start, on) == (False, True) and f_on < 16, f_on


def test_the_users_malloc_variables_win_over_the_switch(monkeypatch):
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "131072")
    assert _switch([True, False])[::2] == [False, False, False]


def test_config_names_its_options():
    with pytest.raises(AttributeError, match="fad_tune_malloc"):
        fad.config.update("fad_tune_maloc", False)
    with pytest.raises(TypeError, match="bool"):
        fad.config.update("fad_tune_malloc", "no")


# ---------------------------------------------------------------- pytrees
@pytest.mark.parametrize("transform", ["tree_flatten", "grad", "jit", "vmap"])
def test_mixed_dict_keys_say_that_keys_are_sorted(transform):
    tree = {1: np.ones(2), "b": np.ones(2)}
    f = lambda d: fnp.sum(d[1] * d["b"])
    call = {"tree_flatten": lambda: fad.tree.tree_flatten(tree),
            "grad": lambda: fad.grad(f)(tree), "jit": lambda: fad.jit(f)(tree),
            "vmap": lambda: fad.vmap(f)(tree)}[transform]
    with pytest.raises(TypeError, match=r"keys of types int and str \(1, 'b'\).*sorts a "
                                        r"dict's keys to flatten it"):
        call()


def _deep(depth: int, leaf: object) -> object:
    tree = leaf
    for i in range(depth):
        tree = [tree] if i % 3 == 0 else (tree, leaf) if i % 3 == 1 else {"k": tree}
    return tree


def _innermost(tree: object) -> object:
    while isinstance(tree, list | tuple | dict):
        tree = tree["k"] if isinstance(tree, dict) else tree[0]
    return tree


def test_deeply_nested_pytrees_flatten_and_unflatten():
    x = np.arange(2.0)
    tree = _deep(1000, x)
    leaves, treedef = fad.tree.tree_flatten(tree)
    assert len(leaves) == 334 and treedef.num_leaves == 334
    assert treedef == fad.tree.tree_structure(_deep(1000, x + 1))
    assert treedef != fad.tree.tree_structure(_deep(999, x))
    assert len(repr(treedef)) > 1000
    back = fad.tree.tree_unflatten(treedef, leaves)
    assert fad.tree.tree_structure(back) == treedef and _innermost(back) is x
    doubled = fad.tree.tree_map(lambda a, b: a + b, tree, tree)
    np.testing.assert_array_equal(_innermost(doubled), 2 * x)


def test_deeply_nested_pytrees_through_transformations():
    f = lambda t: fnp.sum(_innermost(t) ** 2)
    tree = _deep(1000, np.arange(2.0))
    g = fad.grad(f)(tree)
    np.testing.assert_array_equal(_innermost(g), [0.0, 2.0])
    assert float(fad.jit(f)(tree)) == 1.0
    out = fad.vmap(f)(_deep(1000, np.ones((3, 2))))
    np.testing.assert_array_equal(out, [2.0, 2.0, 2.0])


# ---------------------------------------------------------------- shapes under jit
_SHAPE_CASES = {
    "zeros": (lambda x, n: fnp.zeros(n) + x[0], "n", 1),
    "ones": (lambda x, n: fnp.ones((n, 2)) + x[0], "n", 1),
    "slice": (lambda x, n: x[:n], "n", 1),
    "arange": (lambda x, n: fnp.arange(n) + x[0], "n", 1),
    "reshape": (lambda x, n: x.reshape(n, -1), "n", 1),
}


@pytest.mark.parametrize("case", sorted(_SHAPE_CASES))
def test_a_traced_shape_under_jit_names_the_argument_to_make_static(case):
    f, name, pos = _SHAPE_CASES[case]
    with pytest.raises(fad.ConcretizationError) as info:
        fad.jit(f)(np.ones(6), 3)
    msg = str(info.value)
    assert "shape" in msg and "traced array i64[]" in msg
    assert f"argument {name!r} (position {pos})" in msg
    assert f"static_argnames={name!r}" in msg and f"static_argnums={pos}" in msg
    # the fix the message names works
    out = fad.jit(f, static_argnames=name)(np.ones(6), 3)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(f(np.ones(6), 3)))


def test_a_shape_computed_from_an_argument_names_it():
    def model(x, n, k=0):
        return fnp.zeros(2 * n + k) + x[0]
    with pytest.raises(fad.ConcretizationError,
                       match=r"computed from argument 'n' \(position 1\) and keyword "
                             r"argument 'k' of model: fad\.jit\(model, "
                             r"static_argnames=\('n', 'k'\)\)"):
        fad.jit(model)(np.ones(2), 2, k=1)
    assert fad.jit(model, static_argnames=("n", "k"))(np.ones(2), 2, k=1).shape == (5,)


def test_a_keyword_only_shape_says_it_cannot_be_static():
    def model(x, *, k):
        return fnp.zeros(k) + x[0]
    with pytest.raises(fad.ConcretizationError,
                       match=r"is keyword argument 'k' of model \(keyword-only 'k' cannot "
                             r"be static: make it a positional parameter\)"):
        fad.jit(model)(np.ones(2), k=1)


def test_a_shape_from_star_args_names_the_position():
    with pytest.raises(fad.ConcretizationError, match=r"argument 1 of <lambda>: "
                                                      r"fad\.jit\(f, static_argnums=1\)"):
        fad.jit(lambda *xs: fnp.zeros(xs[1]))(np.ones(2), 3)


def test_python_control_flow_on_an_argument_names_it_too():
    def f(x, n):
        return x if n > 0 else -x
    with pytest.raises(fad.ConcretizationError, match=r"computed from argument 'n'"):
        fad.jit(f)(np.ones(2), 1)


# ---------------------------------------------------------------- matmul's message
@pytest.mark.parametrize("fn", ["matmul", "dot", "@"])
@pytest.mark.parametrize("where", ["jvp", "grad", "jit"])
def test_matmul_shape_error_shows_the_users_shapes(fn, where):
    w = np.ones((4, 2))
    op = {"matmul": fnp.matmul, "dot": fnp.dot, "@": lambda a, b: a @ b}[fn]
    f = lambda x: fnp.sum(op(x, w))
    x = np.ones(3)
    call = {"jvp": lambda: fad.jvp(f, (x,), (x,)), "grad": lambda: fad.grad(f)(x),
            "jit": lambda: fad.jit(f)(x)}[where]
    with pytest.raises(fad.ShapeError) as info:
        call()
    if fn != "@":  # (NumPy arrays' own @ is NumPy's)
        with pytest.raises(fad.ShapeError, match=r"first operand \(3,\) has length 3"):
            op(x, w)
    msg = str(info.value)
    assert ("the last axis of the first operand (3,) has length 3 but the second "
            "operand (4, 2) has 4 rows") in msg
    assert "test_reliability_messages.py" in msg  # the user's line
    assert "gufunc" not in msg and "signature" not in msg and "[1,3]" not in msg


# ---------------------------------------------------------------- hints name real functions
def _named_functions() -> set[str]:
    """Every ``fad.x.y`` / ``fnp.x`` written in a string of fad's source."""
    import ast
    import pathlib
    import re
    names, in_fstrings = set(), set()
    for path in pathlib.Path(fad.__path__[0]).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):  # (an f-string before its parts)
            if node in in_fstrings:
                continue
            parts = [node]
            if isinstance(node, ast.JoinedStr):
                parts = node.values
                in_fstrings.update(parts)
            for i, part in enumerate(parts):
                if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                    continue
                for m in re.finditer(r"\b(?:fad|fnp)\.[A-Za-z_][A-Za-z0-9_.]*", part.value):
                    at_end = m.end() == len(part.value) and i + 1 < len(parts)
                    if not at_end:  # (not a name completed by an f-string field)
                        names.add(m.group().rstrip("."))
    return names


def _resolves(name: str) -> bool:
    """``fad.a.b.c`` names an attribute or module (a module may be shadowed by a
    function of the same name in its package: ``fad.torch.tensor``)."""
    import importlib
    parts = [p for p in name.split(".") if p != "py"]  # (a file name: fad/backends/malloc.py)
    if parts[0] == "fnp":
        parts[:1] = ["fad", "numpy"]
    for split in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        try:
            for part in parts[split:]:
                obj = getattr(obj, part)
            return True
        except AttributeError:
            continue
    return False


def test_messages_name_only_functions_that_exist():
    missing = [name for name in sorted(_named_functions()) if not _resolves(name)]
    assert not missing, missing


def test_threads_meeting_new_namespaces_at_once(clean_registry):
    import threading
    for i in range(3000):  # a long registry: a registration that iterates it is slow
        backends.backend_for(types.ModuleType(f"lib{i}"))
    spaces = [[types.ModuleType("lib") for _ in range(50)] for _ in range(8)]
    errors: list = []
    start = threading.Barrier(len(spaces))

    def meet(mine: list) -> None:
        start.wait()
        try:
            for xp in mine:
                backends.backend_for(xp)
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    run_in_threads(meet, [(s,) for s in spaces])
    assert errors == []
    found = [backends.backend_for(xp) for s in spaces for xp in s]
    assert len({b.name for b in found}) == len(found)  # one name each
    assert all(backends.get_backend(b.name) is b and b.xp is xp
               for b, xp in zip(found, (xp for s in spaces for xp in s)))
