"""``FAD_TEST_BACKEND``, the switch choosing the backend of the law module
(``test_backend_laws.py``): its default, its opt-out tables, a backend that
cannot run here skipping the module with one sentence and exit code 0, and an
unknown value stopping pytest with a usage error. The runs of pytest are
subprocesses on the law module (a skip happens while collecting: fast)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from law_backends import DEFAULT, ENV, LAW_BACKENDS, chosen
from operator_table import BY_NAME, OPS

from fad.backends.cupy_backend import NO_CUPY, NO_DEVICE, probe_cupy

ROOT = Path(__file__).resolve().parents[2]
LAWS = "tests/backends/test_backend_laws.py"


def run_laws(value: str, *paths: Path) -> subprocess.CompletedProcess:
    """``pytest`` on the law module with ``FAD_TEST_BACKEND=value`` (``paths``
    first on ``PYTHONPATH``), from the repository's root."""
    env = {**os.environ, ENV: value,
           "PYTHONPATH": os.pathsep.join([*map(str, paths), str(ROOT)])}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           LAWS], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("name", sorted(LAW_BACKENDS))
def test_the_opt_outs_are_rows_with_reasons(name):
    """Every row a backend opts out of is a row of the table, and says why."""
    backend = LAW_BACKENDS[name]
    assert backend.name == name
    assert set(backend.not_on) <= set(BY_NAME)
    assert all(len(why) > 10 for why in backend.not_on.values())
    assert backend.skipped() | backend.real_only() == set(backend.not_on)
    assert len([op for op in OPS if op.name not in backend.skipped()]) + \
        len(backend.skipped()) == len(OPS)


def test_cupy_runs_what_the_standard_lacks():
    """CuPy has cbrt, special functions and NumPy's indexing: those rows run there."""
    cupy = LAW_BACKENDS["cupy"].skipped()
    for row in ("cbrt", "logaddexp2", "erf", "polygamma", "getitem_mask", "methods"):
        assert row in LAW_BACKENDS["array_api_strict"].skipped() and row not in cupy


@pytest.mark.parametrize("value", [None, ""])
def test_the_default_is_array_api_strict(monkeypatch, value):
    if value is None:
        monkeypatch.delenv(ENV, raising=False)
    else:
        monkeypatch.setenv(ENV, value)
    assert chosen().name == DEFAULT == "array_api_strict"


def test_an_unknown_value_names_the_choices(monkeypatch):
    monkeypatch.setenv(ENV, "tpu")
    with pytest.raises(pytest.UsageError,
                       match=r"^FAD_TEST_BACKEND='tpu' is not a backend of the law tests; "
                             r"use one of: array_api_strict \(the default\), cupy$"):
        chosen()


def test_an_unknown_value_stops_pytest_with_a_usage_error():
    run = run_laws("gpu")
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.stdout + run.stderr
    assert ("ERROR: FAD_TEST_BACKEND='gpu' is not a backend of the law tests; use one of: "
            "array_api_strict (the default), cupy") in run.stderr
    assert "Traceback" not in run.stdout + run.stderr


def test_cupy_without_cupy_skips_with_the_reason():
    if probe_cupy()[0] is not None:
        pytest.skip("CuPy and a GPU are present here: the laws run on them")
    run = run_laws("cupy")
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert f"FAD_TEST_BACKEND=cupy: {probe_cupy()[1]}" in out
    assert "passed" not in out and "Traceback" not in out and "ImportError" not in out


def test_cupy_without_a_gpu_skips_with_the_reason(tmp_path):
    """A CuPy whose CUDA runtime finds no device (a stand-in package first on
    the path): the module skips with one sentence, no CUDA stack trace."""
    fake = tmp_path / "cupy"
    fake.mkdir()
    (fake / "__init__.py").write_text(
        "class CUDARuntimeError(RuntimeError):\n    pass\n\n"
        "class _Runtime:\n"
        "    @staticmethod\n"
        "    def getDeviceCount():\n"
        "        raise CUDARuntimeError('cudaErrorNoDevice: no CUDA-capable device is "
        "detected')\n\n"
        "class cuda:\n    runtime = _Runtime\n")
    run = run_laws("cupy", tmp_path)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert (f"FAD_TEST_BACKEND=cupy: {NO_DEVICE} (CuPy says: cudaErrorNoDevice: no "
            "CUDA-capable device is detected)") in out
    assert NO_CUPY not in out
    assert "passed" not in out and "Traceback" not in out
