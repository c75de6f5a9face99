"""Long differential fuzzing: ``python -m tests.support.fuzz --minutes 30`` (``make fuzz``).

Generates datasets from consecutive seeds (``--seed``, default from the clock, printed so a run
can be repeated), checks ``--predicates`` random predicates on each
(tests/support/differential.py), and writes every failure, shrunk to a minimal case, as JSON
into tests/regressions/ (which ``make test`` replays). Prints progress and the report; writes
the report as JSON with ``--report``. Exit status 1 when anything failed (unsound, unexplained,
SQL/tree mismatch, crash).

Repeat one dataset: ``python -m tests.support.fuzz --seed 1234 --datasets 1``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

from tests.support import differential as diff


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=30.0, help="run time (default 30)")
    ap.add_argument("--seed", type=int, default=None, help="first seed (default: the clock)")
    ap.add_argument("--datasets", type=int, default=None, help="stop after this many datasets")
    ap.add_argument("--predicates", type=int, default=25, help="predicates per dataset")
    ap.add_argument("--no-datafusion", action="store_true", help="soundness only")
    ap.add_argument("--numba-every", type=int, default=10,
                    help="classify every k-th predicate with the compiled kernel (0: never)")
    ap.add_argument("--no-save", action="store_true", help="do not write tests/regressions/")
    ap.add_argument("--report", type=Path, default=None, help="write the report as JSON here")
    args = ap.parse_args(argv)

    first = args.seed if args.seed is not None else int(time.time() * 1000) % 10**12
    seeds = itertools.count(first)
    if args.datasets is not None:
        seeds = range(first, first + args.datasets)
    print(f"fuzz: seeds from {first}, {args.minutes} minutes, {args.predicates} predicates per "
          f"dataset", flush=True)
    report = diff.run(seeds, args.predicates, datafusion=not args.no_datafusion,
                      deadline=time.monotonic() + args.minutes * 60,
                      save_failures=not args.no_save, numba_every=args.numba_every,
                      log=lambda m: print(m, flush=True))
    text = report.text()
    print(text, flush=True)
    if args.report:
        body = {"first_seed": first, **report.to_json()}
        args.report.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n",
                               encoding="utf-8")
    return 1 if report.unsound or report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
