"""Re-execute every notebook in this folder in place, saving its outputs.

Run it from the repository root (or anywhere)::

    python notebooks/regenerate.py                 # every notebook
    python notebooks/regenerate.py 04_lenet_digits.ipynb   # only some

Each notebook runs top to bottom with nbclient in a fresh ``python3`` kernel,
with this folder as working directory, exactly as ``tests/examples/test_notebooks.py``
runs it; the executed notebook (text, printed results and inline plots) is written
back over the file, without per-cell timestamps (so a re-run changes only real
outputs). A cell that raises stops the script with the cell's traceback.

The kernel imports whichever ``fad`` this Python finds: an installed copy
(``pip install -e .``) or, to use a particular checkout, ``PYTHONPATH=. python
notebooks/regenerate.py``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import nbclient
import nbformat

NOTEBOOK_DIR = Path(__file__).resolve().parent
CELL_TIMEOUT = 600  # seconds


def regenerate(path: Path) -> float:
    """Execute the notebook at ``path`` in place; return the seconds it took."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    client = nbclient.NotebookClient(
        nb, timeout=CELL_TIMEOUT, kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()
    elapsed = time.perf_counter() - start
    nbformat.write(nb, path)
    return elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*",
                        help="notebook file names in notebooks/ (default: all of them)")
    args = parser.parse_args(argv)
    paths = ([NOTEBOOK_DIR / Path(name).name for name in args.notebooks]
             or sorted(NOTEBOOK_DIR.glob("*.ipynb")))
    for path in paths:
        print(f"{path.name}: executing ...", flush=True)
        print(f"{path.name}: done in {regenerate(path):.1f} s", flush=True)


if __name__ == "__main__":
    main()
