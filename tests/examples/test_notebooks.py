"""Every notebook in notebooks/ runs from top to bottom without an error.

Each ``*.ipynb`` is executed with nbclient in a fresh ``python3`` kernel (the
kernelspec that ipykernel provides in this very environment; jupyter_client
starts it with ``sys.executable``), with the notebook's folder as working
directory and at most 120 s per cell. A cell that raises fails the test and the
failure shows the cell and its traceback.

A notebook that takes more than about 10 s is marked ``slow``: set
``"fad": {"slow": true}`` in its metadata.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "notebooks"
CELL_TIMEOUT = 120  # seconds


def _params() -> list:
    params = []
    for path in sorted(NOTEBOOK_DIR.glob("*.ipynb")):
        try:
            meta = nbformat.read(path, as_version=4).metadata.get("fad", {})
        except Exception:  # noqa: BLE001 - a broken file still gets a (failing) test
            meta = {}
        marks = [pytest.mark.slow] if meta.get("slow") else []
        params.append(pytest.param(path, id=path.name, marks=marks))
    return params


def _kernel_available() -> str | None:
    try:
        from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
        KernelSpecManager().get_kernel_spec("python3")
    except ImportError as exc:
        return f"jupyter_client is not installed ({exc})"
    except NoSuchKernel:
        return "no python3 kernel: pip install ipykernel"
    return None


def test_there_are_notebooks():
    assert list(NOTEBOOK_DIR.glob("*.ipynb")), f"no notebook found in {NOTEBOOK_DIR}"


@pytest.mark.parametrize("path", _params())
def test_notebook_executes(path: Path):
    reason = _kernel_available()
    if reason:
        pytest.skip(reason)
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=CELL_TIMEOUT, kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()        # raises CellExecutionError, with the cell and traceback
    elapsed = time.perf_counter() - start
    errors = [out for cell in nb.cells if cell.cell_type == "code"
              for out in cell.get("outputs", []) if out.get("output_type") == "error"]
    assert not errors, f"{path.name}: {errors[0].get('ename')}: {errors[0].get('evalue')}"
    print(f"{path.name}: executed in {elapsed:.1f} s")
