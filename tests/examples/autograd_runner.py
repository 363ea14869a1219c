"""Runs one program of HIPS autograd's ``examples/`` folder in a fresh
interpreter and records the numbers it produces.

``python autograd_runner.py DIR NAME EDITS OUT`` runs ``DIR/NAME.py`` as
``__main__`` with the working directory and ``sys.path`` set to ``DIR`` (the
examples import each other and read files next to them), matplotlib drawing
off-screen with ``show``/``pause`` doing nothing, and a fixed synthetic MNIST
standing in for the download. ``EDITS`` is a JSON file: a list of ``[old,
new]`` textual replacements (regular expressions), applied in order to the
source of the program and of every module it imports from ``DIR`` as they are
loaded; the files themselves are left as they are (some examples read their
own source as training text). It pickles to ``OUT`` a dict: ``stdout`` (what
the program printed), ``values`` (every module-level number, array, or
container of them after the run, as float64 or complex128 NumPy arrays) and
``error`` (``None``, or the exception the run ended with).

>>> _numeric([1, (2.0, 3)]).tolist()
[1.0, 2.0, 3.0]
>>> edit("import autograd.numpy as np", [[r"\\bautograd\\b", "fad"]])
'import fad.numpy as np'
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.util
import io
import json
import os
import pickle
import re
import sys
import traceback
import types

import numpy as np


def _fake_mnist() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A fixed synthetic stand-in for MNIST: uint8 images of 28x28 and labels
    0-9 (300 training and 100 test images), the same on every call."""
    rs = np.random.RandomState(1234)
    labels = rs.randint(0, 10, size=400).astype(np.uint8)
    # each class a blurred blob at its own place, plus noise: learnable, not trivial
    yy, xx = np.mgrid[0:28, 0:28]
    centres = [(7 + 7 * (k % 3), 7 + 5 * (k // 3)) for k in range(10)]
    images = np.stack([np.exp(-((yy - centres[k][0]) ** 2 + (xx - centres[k][1]) ** 2) / 18.0)
                       for k in labels])
    images = np.clip(255 * (0.8 * images + 0.3 * rs.rand(400, 28, 28)), 0, 255)
    images = images.astype(np.uint8)
    return images[:300], labels[:300], images[300:], labels[300:]


def _numeric(value: object) -> np.ndarray | None:
    """``value`` as a float64 array when it is a number, an array, or a
    (nested) list/tuple of them (flattened), else ``None``."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, float, complex, np.number)):
        return np.asarray(value, dtype=np.complex128 if np.iscomplexobj(value) else np.float64)
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fiuc" and value.size < 10**6:
            return value.astype(np.complex128 if value.dtype.kind == "c" else np.float64)
        return None
    if isinstance(value, (list, tuple)) and value and len(value) < 10**4:
        parts = [_numeric(v) for v in value]
        if all(p is not None for p in parts):
            return np.concatenate([np.ravel(p) for p in parts])
    if isinstance(value, dict) and value and len(value) < 10**4:
        parts = [_numeric(value[k]) for k in sorted(value, key=str)]
        if all(p is not None for p in parts):
            return np.concatenate([np.ravel(p) for p in parts])
    return None


def edit(source: str, edits: list) -> str:
    """``source`` with each ``[pattern, replacement]`` of ``edits`` applied in turn."""
    for old, new in edits:
        source = re.sub(old, new, source, flags=re.MULTILINE)
    return source


class _EditingFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    # imports the top-level modules of ``directory`` from their edited source
    def __init__(self, directory: str, edits: list):
        self.directory, self.edits = directory, edits

    def find_spec(self, name, path, target=None):
        file = os.path.join(self.directory, name + ".py")
        if path is not None or "." in name or not os.path.isfile(file):
            return None
        return importlib.util.spec_from_file_location(name, file, loader=self)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        with open(module.__file__) as fh:
            source = edit(fh.read(), self.edits)
        exec(compile(source, module.__file__, "exec"), module.__dict__)


def run(directory: str, name: str, edits: list) -> dict:
    """Run ``directory/name.py``, edited, as ``__main__``; return what it
    printed, its module-level numbers and the error it ended with (or ``None``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.show = lambda *args, **kwargs: None
    plt.pause = lambda *args, **kwargs: None
    mnist = types.ModuleType("data_mnist")
    mnist.mnist = _fake_mnist
    sys.modules["data_mnist"] = mnist
    os.chdir(directory)
    sys.path.insert(0, directory)
    sys.meta_path.insert(0, _EditingFinder(directory, edits))
    sys.dont_write_bytecode = True
    np.random.seed(0)
    file = os.path.join(directory, name + ".py")
    out, error = io.StringIO(), None
    env = {"__name__": "__main__", "__file__": file, "__builtins__": __builtins__}
    with contextlib.redirect_stdout(out):
        try:
            with open(file) as fh:
                source = edit(fh.read(), edits)
            exec(compile(source, file, "exec"), env)
        except BaseException as exc:  # noqa: BLE001  (recorded, compared by the test)
            error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            error += "\n" + "".join(traceback.format_tb(exc.__traceback__)[-3:])
    values = {}
    for key, value in env.items():
        if key.startswith("__"):
            continue
        arr = _numeric(value)
        if arr is not None:
            values[key] = arr
    return {"stdout": out.getvalue(), "values": values, "error": error}


if __name__ == "__main__":
    directory, name, edits_file, target = sys.argv[1:5]
    with open(edits_file) as fh:
        result = run(directory, name, json.load(fh))
    with open(target, "wb") as fh:
        pickle.dump(result, fh)
