"""The machinery of the benchmark suite.

A case module imports what it builds from here (``case``, ``Problem``,
``Contender``, ``Bar``, the contender builders and the bar helpers) and the
optional libraries from ``harness.libs``; ``run.py`` drives ``harness.measure``
(checking, timing, memory, profiles) and ``harness.report`` (the tables).
"""

from .bars import find, jit_speedup_bar, pair_bar, ratio_bar, relative_bar
from .contenders import (
    autograd_call,
    autograd_contender,
    facade_contender,
    fad_contender,
    jit_contender,
    torch_contender,
    torch_func_contender,
)
from .libs import missing
from .model import CASES, Bar, Case, Contender, Problem, case, guarded, order_cases

__all__ = [
    "CASES", "Bar", "Case", "Contender", "Problem", "autograd_call", "autograd_contender",
    "case", "facade_contender", "fad_contender", "find", "guarded", "jit_contender",
    "jit_speedup_bar", "missing", "order_cases", "pair_bar", "ratio_bar", "relative_bar",
    "torch_contender", "torch_func_contender",
]
