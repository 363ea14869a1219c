"""fad benchmark suite: every figure is a ratio to hand-written NumPy timed in the same run.

Usage::

    python benchmarks/run.py                 # every case, full size (a few minutes)
    python benchmarks/run.py --quick         # smaller sizes, fewer repeats (smoke run)
    python benchmarks/run.py --only mlp      # one case (repeatable: --only mlp --only hvp)
    python benchmarks/run.py --list          # the registered cases and their description
    python benchmarks/run.py --profile chain100   # cProfile one call of the fad contender
    python benchmarks/run.py --update-readme # also rewrite the table in benchmarks/README.md

Method (see benchmarks/README.md): one BLAS thread for every library; each case
builds *problems*, each with a list of *contenders* whose first entry is the
hand-written NumPy reference (forward plus hand-derived backward).  Every
contender's gradient is checked against the reference before it is timed; the
contenders are then timed round-robin (the order rotates each round), after a
warm-up, and a contender's figure is the median over rounds of its time divided
by the reference's time in the same round.  Peak memory is measured with
``tracemalloc`` (NumPy reports its buffers to it) for the NumPy-based contenders.

The machinery is the ``harness`` package beside this script; the cases are the
modules of the ``cases`` package, one per family.  A new case is one function
decorated with ``@case(name, bars=...)`` in a module of ``cases``, returning its
problems; ``bars`` turns the measured figures into pass/fail targets.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cases  # noqa: F401 - importing the package registers every case, in order
from harness import CASES
from harness.libs import torch
from harness.measure import profile_fad, run_case
from harness.report import machine, report

HERE = Path(__file__).resolve().parent
RESULTS_JSON = HERE / "results.json"
QUICK_JSON = HERE / "results-quick.json"
README = HERE / "README.md"
README_START = "<!-- results:start -->"
README_END = "<!-- results:end -->"


def limit_threads() -> Any:
    """One BLAS / OpenMP thread for every library (returns the threadpoolctl context)."""
    if torch is not None:
        torch.set_num_threads(1)
    from threadpoolctl import threadpool_limits
    return threadpool_limits(limits=1)


def load_results(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {"cases": {}}


def update_readme(text: str) -> None:
    body = README.read_text()
    start, end = body.find(README_START), body.find(README_END)
    if start < 0 or end < 0:
        raise SystemExit(f"{README} lacks the {README_START} / {README_END} markers")
    body = body[:start + len(README_START)] + "\n" + text + body[end:]
    README.write_text(body)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    ap.add_argument("--only", action="append", choices=sorted(CASES), metavar="NAME",
                    help=f"run only this case (repeatable): {', '.join(CASES)}")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--profile", choices=sorted(CASES), metavar="NAME",
                    help="cProfile the fad contender(s) of one case and exit")
    ap.add_argument("--json", type=Path, default=None,
                    help="results file (cases run now replace their entry); default "
                         "benchmarks/results.json, or results-quick.json with --quick")
    ap.add_argument("--update-readme", action="store_true",
                    help="rewrite the results section of benchmarks/README.md")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    mode = "quick" if args.quick else "full"
    json_path = args.json or (RESULTS_JSON if mode == "full" else QUICK_JSON)
    if args.list:
        for c in CASES.values():
            print(f"{c.name}:\n    " + c.doc.replace("\n", "\n    ") + "\n")
        return 0
    with limit_threads():
        if args.profile:
            print(profile_fad(args.profile, mode))
            return 0
        data = load_results(json_path)
        data["machine"] = machine()
        for name in args.only or list(CASES):
            print(f"running {name} ({mode}) ...", file=sys.stderr, flush=True)
            data["cases"][name] = run_case(name, mode)
            print(f"  done in {data['cases'][name]['seconds']:.1f} s", file=sys.stderr)
    json_path.write_text(json.dumps(data, indent=1, default=str) + "\n")
    text = report(data)
    print(text)
    if args.update_readme:
        update_readme(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
