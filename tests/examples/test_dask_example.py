"""The Dask logistic-regression example, run as a script on a local cluster."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("dask.array")
pytest.importorskip("distributed")
pytest.importorskip("tqdm")

ROOT = Path(__file__).resolve().parents[2]


def test_the_example_trains_and_the_loss_falls():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "dask_logistic_regression.py"),
         "--rows", "2000", "--cols", "4", "--chunks", "4", "--steps", "5", "--no-progress"],
        capture_output=True, text=True, env=env, timeout=300, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    line = next(l for l in run.stdout.splitlines() if l.startswith("loss:"))
    first, last = (float(v) for v in line.split()[1:4:2])
    assert abs(first - 0.693147) < 1e-5  # zero weights: log 2
    assert last < first - 0.01
    assert "in 4 chunks" in run.stdout


def test_the_example_s_docstring_examples():
    import doctest
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "dask_logistic_regression", ROOT / "examples" / "dask_logistic_regression.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = doctest.testmod(module)
    assert result.attempted >= 2 and result.failed == 0
