"""prunekit under ``dialect="datafusion"`` against DataFusion's rows (and under
``dialect="duckdb"`` against DuckDB's: ``engine``) on a grid: every operand of a column (the
column, its casts, its negation, ``c * 1``; a string's prefix, ``lower``, ``upper``; a time's
DATE and day) compared, listed or bounded with every pair of a fixed set of literal forms
(whole numbers inside and beyond BIGINT, fractions, exponents up to 1e308, -0.0 and -0 (an
integer's 0, no sign), NaN, NULL, casts to DECIMAL, REAL and BIGINT; strings, non-ASCII ones
too; TIMESTAMP, DATE and string times), or
a string matched by LIKE and ILIKE, each predicate maybe under NOT, over one column whose row
groups hold one value each: values around those literals and the type's extremes. A row
group's statistics are then exact, so each is decided as its one row says: a NONE_MATCH group
whose row the engine returns, or an ALL_MATCH group whose row it does not, is unsound.

The random differential (``datafusion_differential``) draws its predicates from a grammar and
rarely meets two literal forms that its optimizer treats apart side by side (a BETWEEN on a
DECIMAL's truncation whose one bound is whole and the other a DECIMAL, an IN list whose
items fold into a type that one item does not fit; a fraction cast to BIGINT, which DuckDB
rounds); the grid meets each pair. It samples the grid (``sample``), the whole of it being
some 70,000 predicates.

    python -m tests.support.engine_grid --predicates 3000 --seed 1 [--engine duckdb]
"""

from __future__ import annotations

import argparse
import datetime as _dt
import decimal
import itertools
import math
import random
import time
from dataclasses import dataclass, field

import pyarrow as pa

import prunekit as pk
from prunekit.errors import PrunekitError
from prunekit.expr.syntax import nodes as n
from tests.support.duckdb_differential import connect
from tests.support.strategies import exact_example

D = decimal.Decimal
# Moments (year, month, day, hour, minute, second, microsecond) around a day's edges.
_MOMENTS = [(2019, 12, 31, 23, 59, 59, 999999), (2020, 1, 1, 0, 0, 0, 0),
            (2020, 1, 1, 0, 0, 0, 1), (2020, 1, 1, 12, 0, 0, 0), (2020, 1, 1, 12, 0, 0, 500000),
            (2020, 1, 2, 0, 0, 0, 0), (1969, 12, 31, 23, 59, 59, 0), (1970, 1, 1, 0, 0, 0, 0)]
_SMALL = ["-3.5", "-2", "-1.5", "-1", "-0.5", "0", "0.5", "1", "1.5", "2", "2.5", "3", "3.5",
          "4"]

# Each column: its type and its values, one per row group.
COLUMNS: dict[str, tuple[pa.DataType, list]] = {
    "d": (pa.decimal128(18, 4), [D(v) for v in _SMALL] + [D("99999999999999.9999")]),
    "w": (pa.decimal128(38, 10), [D(v) for v in _SMALL] + [D("9223372036854775807.5")]),
    "q": (pa.decimal128(5, 1), [D(v) for v in _SMALL] + [D("-9999.9")]),
    "f": (pa.float64(), [float(v) for v in _SMALL] + [-0.0, 16777217.0, 1e300, -math.inf]),
    "g": (pa.float32(), [float(v) for v in _SMALL] + [-0.0, 16777216.0]),
    "i": (pa.int8(), [-128, -3, -1, 0, 1, 2, 3, 4, 127]),
    "l": (pa.int64(), [-(2**63), -3, -1, 0, 1, 3, 2**31, 2**63 - 1]),
    "u": (pa.uint64(), [0, 1, 3, 2**63, 2**64 - 1]),
    "s": (pa.string(), ["", "a", "A", "ab", "abc", "a%", "a_b", "aé", "b", "ba", "é", "éa",
                        "z", "\u00ff", "a\nb"]),
    "t": (pa.timestamp("us"), [_dt.datetime(*v) for v in _MOMENTS]),
    "z": (pa.timestamp("us", "UTC"), [_dt.datetime(*v, tzinfo=_dt.timezone.utc)
                                       for v in _MOMENTS]),
    "e": (pa.date32(), sorted({_dt.date(*v[:3]) for v in _MOMENTS})),
}
# What is compared, and with what, by the family of a column's type.
OPERANDS = {
    "number": ["{c}", "CAST({c} AS BIGINT)", "CAST({c} AS INT)", "CAST({c} AS DOUBLE)",
               "-{c}", "{c} * 1"],
    "string": ["{c}", "substring({c}, 1, 2)", "left({c}, 1)", "lower({c})", "upper({c})"],
    "time": ["{c}", "CAST({c} AS DATE)", "date_trunc('day', {c})", "CAST({c} AS TIMESTAMP)"],
}
LITERALS = {
    "number": ["3", "-1", "0", "1.5", "-1.5", "3e0", "-0.0", "CAST(3 AS DECIMAL(5,2))",
               "CAST(-1.5 AS DECIMAL(5,2))", "CAST(3 AS REAL)", "9223372036854775808",
               "-9223372036854775808", "2147483648", "NULL", "CAST(1.5 AS BIGINT)",
               "CAST('NaN' AS DOUBLE)", "1e308", "-0", "CAST(-0 AS DOUBLE)"],
    "string": ["''", "'a'", "'A'", "'ab'", "'a%'", "'b'", "'é'", "'aé'", "'z'", "NULL"],
    "time": ["TIMESTAMP '2020-01-01 00:00:00'", "TIMESTAMP '2020-01-01 12:00:00.5'",
             "DATE '2020-01-01'", "DATE '2019-12-31'", "'2020-01-01'", "'2020-01-01 12:00:00'",
             "TIMESTAMP '1970-01-01 00:00:00'", "NULL"],
}
# A string operand is matched against each pattern by each of these.
PATTERNS = ["'a%'", "'ab%'", "'a_'", "'%b'", "'é%'", "'A%'", "'%'", "'_'", "'a%b'"]
LIKES = ["LIKE", "NOT LIKE", "ILIKE", "NOT ILIKE"]
COMPARISONS = ["=", "<>", "<", "<=", ">", ">=", "IS DISTINCT FROM", "IS NOT DISTINCT FROM"]


def family(column: str) -> str:
    """"number", "string" or "time": which operands and literals a column meets."""
    kind = COLUMNS[column][0]
    return "string" if pa.types.is_string(kind) else "time" if pa.types.is_temporal(
        kind) else "number"


def forms(operand: str, kind: str = "number") -> list[str]:
    """Every predicate of the grid on ``operand`` of a column of family ``kind``: each
    comparison with each literal (on either side), each IN and NOT IN of two literals, each
    BETWEEN and NOT BETWEEN, and of a string each LIKE and ILIKE."""
    literals = LITERALS[kind]
    out = [f"{operand} {op} {a}" for op in COMPARISONS for a in literals]
    out += [f"{a} {op} {operand}" for op in COMPARISONS[:6] for a in literals]
    for a, b in itertools.permutations(literals, 2):
        out += [f"{operand} IN ({a}, {b})", f"{operand} NOT IN ({a}, {b})",
                f"{operand} BETWEEN {a} AND {b}", f"{operand} NOT BETWEEN {a} AND {b}"]
    if kind == "string":
        out += [f"{operand} {like} {p}" for like in LIKES for p in PATTERNS]
    return out


def grid() -> list[tuple[str, str]]:
    """(column, predicate) for every column, operand and form."""
    return [(c, text) for c in COLUMNS for x in OPERANDS[family(c)]
            for text in forms(x.format(c=c), family(c))]


@dataclass
class Summary:
    predicates: int = 0
    engine_refused: int = 0  # the engine runs no query of it
    groups: int = 0  # groups checked (a row whose query fails there is left out)
    read_in_full: int = 0
    decided: int = 0  # groups NONE_MATCH or ALL_MATCH
    unsound: list = field(default_factory=list)  # (column, predicate, value, outcome)
    refused: list = field(default_factory=list)  # (column, predicate, error) the engine runs

    def line(self) -> str:
        return (f"{self.predicates} predicates ({self.engine_refused} refused by the engine), "
                f"{self.groups} groups, {self.decided} decided, {self.read_in_full} read in "
                f"full; unsound {len(self.unsound)}, refused by prunekit {len(self.refused)}")


class Grid:
    """The engine's sessions over each column's values, as one table (``t_<column>``, a row
    id ``rid``) and as one table per row (``<column>_<g>``, for a predicate whose query fails
    on some row), and prunekit's exact statistics of each. ``engine``: "datafusion" or
    "duckdb" (its dialect, and the engine whose rows decide)."""

    def __init__(self, engine: str = "datafusion"):
        self.engine = engine
        if engine == "datafusion":
            import datafusion

            ctx = datafusion.SessionContext()
            self._register = lambda name, table: ctx.register_record_batches(
                name, [table.to_batches()])
            self._rows = lambda sql: ctx.sql(sql).to_pydict()["rid"]
        else:
            self._con = connect("UTC")
            self._register = self._con.register
            self._rows = lambda sql: [r[0] for r in self._con.execute(sql).fetchall()]
        self.stats = {}
        for c, (kind, values) in COLUMNS.items():
            table = pa.table({c: pa.array(values, kind), "rid": range(len(values))})
            self._register(f"t_{c}", table)
            for g in range(len(values)):
                self._register(f"{c}_{g}", table.slice(g, 1))
            self.stats[c] = exact_example({c: (kind, [[v] for v in values])},
                                          n.Literal(True)).statistics()

    def close(self) -> None:
        if self.engine == "duckdb":
            self._con.close()

    def returned(self, column: str, text: str) -> dict[int, bool] | None:
        """Per row group, whether the engine returns its row (a row whose query fails left
        out); None where the engine runs no query of the predicate."""
        values = COLUMNS[column][1]
        try:
            rows = set(self._rows(f"SELECT rid FROM t_{column} WHERE {text}"))
            return {g: g in rows for g in range(len(values))}
        except Exception:  # noqa: BLE001 - a failing row, or no plan at all: row by row
            pass
        out = {}
        for g in range(len(values)):
            try:
                out[g] = bool(self._rows(f"SELECT rid FROM {column}_{g} WHERE {text}"))
            except Exception:  # noqa: BLE001 - this row fails the query: no answer to keep
                continue
        return out or None

    def check(self, column: str, text: str, summary: Summary) -> None:
        summary.predicates += 1
        returned = self.returned(column, text)
        if returned is None:
            summary.engine_refused += 1
            return
        try:
            pred = pk.PruningPredicate(text, {column: COLUMNS[column][0]}, dialect=self.engine)
        except PrunekitError as e:
            summary.refused.append((column, text, str(e).splitlines()[0]))
            return
        outcomes = pred.classify(self.stats[column]).tolist()
        summary.read_in_full += " reads " not in pred.explain()
        for g, hit in returned.items():
            summary.groups += 1
            summary.decided += outcomes[g] != pk.MAYBE_MATCH
            if outcomes[g] == (pk.NONE_MATCH if hit else pk.ALL_MATCH):
                summary.unsound.append((column, text, COLUMNS[column][1][g], outcomes[g]))


def sample(predicates: int, seed: int, minutes: float | None = None,
           engine: str = "datafusion") -> Summary:
    """``predicates`` of the grid drawn with ``seed`` (each under NOT with odds of one in
    three), checked against ``engine``'s rows; stops early after ``minutes``."""
    rng = random.Random(seed)
    cases = rng.sample(grid(), predicates)
    checker, summary = Grid(engine), Summary()
    deadline = None if minutes is None else time.monotonic() + 60 * minutes
    try:
        for column, text in cases:
            checker.check(column, f"NOT ({text})" if rng.random() < 1 / 3 else text, summary)
            if deadline is not None and time.monotonic() > deadline:
                break
    finally:
        checker.close()
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--predicates", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=None, help="default: the clock")
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long")
    parser.add_argument("--engine", choices=("datafusion", "duckdb"), default="datafusion")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else time.time_ns() % 10**9
    summary = sample(min(args.predicates, len(grid())), seed, args.minutes, args.engine)
    print(f"{args.engine} grid (seed {seed}): {summary.line()}")
    for column, text, value, outcome in summary.unsound:
        print(f"  UNSOUND {column} = {value!r}: {text} -> {outcome}")
    for column, text, error in summary.refused:
        print(f"  REFUSED {column}: {text}: {error}")
    raise SystemExit(1 if summary.unsound or summary.refused else 0)


if __name__ == "__main__":
    main()
