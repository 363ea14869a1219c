"""Collection for the whole repository: the doctests of optional backends run
only where their library is installed (their tests skip by themselves)."""

import importlib.util


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:
        return False


collect_ignore = [] if _installed("dask") else ["fad/backends/dask_backend.py"]
