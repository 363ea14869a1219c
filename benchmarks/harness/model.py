"""What a case builds (``Problem``s of ``Contender``s, ``Bar``s), the timing
knobs of the run modes, and the registry of cases (``@case``)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Sequence


@dataclass
class Contender:
    """One implementation of a problem's gradient computation.

    ``fn()`` runs one complete gradient computation (forward and backward) and
    returns the gradient; ``skip`` non-empty means the contender is unavailable
    (the library is missing), ``error`` that its set-up failed: both are
    reported, not timed.
    """

    name: str
    fn: Callable[[], Any] | None
    tracemalloc: bool = True  # NumPy-based: its memory is visible to tracemalloc
    skip: str = ""
    error: str = ""  # setting the contender up failed (reported as an error)
    compiles: bool = False  # jitted: the first call traces and compiles (time it, report it)
    first_call_s: float | None = None  # set by verify(): time of the first (warm-up) call


def guarded(name: str, setup: Callable[[], Callable[[], Any]], tracemalloc: bool = True,
            compiles: bool = False) -> Contender:
    """A contender whose set-up may fail (a library under construction): the
    failure is reported in the table instead of aborting the run."""
    try:
        return Contender(name, setup(), tracemalloc, compiles=compiles)
    except Exception as exc:  # noqa: BLE001 - report the failure, keep benchmarking
        return Contender(name, None, tracemalloc, error=describe(exc, "set-up"),
                         compiles=compiles)


def describe(exc: BaseException, when: str) -> str:
    return f"error in {when}: {type(exc).__name__}: {str(exc)[:200]}"


@dataclass
class Problem:
    """One size of one case: contenders[0] is the hand-written NumPy reference."""

    label: str
    contenders: list[Contender]
    n_ops: int | None = None  # elementwise ops in the function, for the µs/op column
    rtol: float = 1e-6
    memory: bool = True


@dataclass
class Bar:
    """A target of the project: ``met`` is None when it could not be evaluated."""

    text: str
    value: str
    met: bool | None


@dataclass
class Case:
    name: str
    doc: str
    build: Callable[[str], list[Problem]]
    bars: Callable[[list[dict]], list[Bar]]


@dataclass
class Settings:
    """Timing knobs of one run mode."""

    target: float  # seconds per measurement (a measurement repeats the call `number` times)
    min_rounds: int
    max_rounds: int
    budget: float  # seconds of timing per problem, spread over the rounds


MODES = {
    "full": Settings(target=0.05, min_rounds=3, max_rounds=15, budget=12.0),
    "quick": Settings(target=0.01, min_rounds=2, max_rounds=5, budget=1.5),
}

CASES: dict[str, Case] = {}


def case(name: str, bars: Callable[[list[dict]], list[Bar]] | None = None) -> Callable:
    """Register ``build(size) -> list[Problem]`` as the case ``name``."""
    def register(build: Callable[[str], list[Problem]]) -> Callable[[str], list[Problem]]:
        CASES[name] = Case(name, inspect.getdoc(build) or "", build, bars or (lambda r: []))
        return build
    return register


def order_cases(names: Sequence[str]) -> None:
    """Put the registry in the order ``names``, the order in which the cases are
    listed, run and tabulated; ``names`` names every registered case once."""
    if sorted(names) != sorted(CASES):
        raise ValueError(f"the case order {list(names)} does not name every registered "
                         f"case once: {list(CASES)}")
    ordered = {name: CASES[name] for name in names}
    CASES.clear()
    CASES.update(ordered)
