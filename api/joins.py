"""Pruning carried across joins: what the other side of an equality join can still hold,
as a filter on this side's key (the run-time join filters of DataFusion, Spark and Trino,
here from statistics, before any fact row is read).

``SELECT ... FROM store_sales JOIN date_dim ON ss_sold_date_sk = d_date_sk WHERE d_year =
2001``: a row of ``store_sales`` matters only if its ``ss_sold_date_sk`` is the ``d_date_sk``
of a ``date_dim`` row with ``d_year = 2001``. ``prunekit.expr.query`` finds each scan's own
conjuncts and its equality joins (inner and semi joins, and the null-supplying side of an
outer join: a row there appears only beside a matching row); this module carries keys along
them, round after round until nothing changes (at most ``_MAX_ROUNDS``) over the join graph
(a snowflake: one dimension's filter, its keys, the next table's). The keys of the other side
are, for its containers its own predicate keeps:

- from statistics: the union of the key's ``[min, max]``, merged into at most
  ``MAX_RANGES`` ranges (an unknown bound on a container with keys: nothing is carried);
- from rows, when its statistics name ``file`` and ``row_group`` (as prunekit's readers
  give them) and those containers hold at most ``row_budget`` rows: the key column and the
  columns its predicate reads, read with pyarrow, each row judged by prunekit itself as a
  container of one row (exact bounds, so every rule that is exact is exact on a row; a row it
  cannot rule out keeps its key). At most ``MAX_LIST`` keys are carried as an IN list, more
  as ranges.

Sound because every tuple of a join that reaches the result passes every conjunct found for
each of its scans: a row without a partner among the other side's rows that may matter is in
no such tuple (semi-join reduction), and a carried filter only ever keeps a superset of the
keys. Carried only between columns compared exactly by ``=`` in every type Spark would use:
integers and decimals, dates, strings, binary; never floats, never across types.

>>> import numpy as np, pyarrow as pa
>>> from prunekit.statistics import Statistics
>>> def stats(key, lo, hi, extra=None):
...     cols = {key: {"min": np.array(lo), "max": np.array(hi), "null_count": np.zeros(len(lo))}}
...     return Statistics.from_numpy(row_count=np.full(len(lo), 10), columns={**cols,
...                                  **(extra or {})})
>>> dates = stats("d_key", [1, 366, 731], [365, 730, 1095], {"d_year": {
...     "min": np.array([2000, 2001, 2002]), "max": np.array([2000, 2001, 2002]),
...     "null_count": np.zeros(3)}})
>>> sales = stats("s_date", [1, 200, 400, 800], [199, 399, 799, 1095])
>>> tables = {"dates": (dates, {"d_key": pa.int64(), "d_year": pa.int64()}),
...           "sales": (sales, {"s_date": pa.int64()})}
>>> q = "SELECT count(*) FROM sales JOIN dates ON s_date = d_key WHERE d_year = 2001"
>>> found = joint(q, tables)
>>> found["sales"].predicate.sql()
's_date BETWEEN 366 AND 730'
>>> print(found["sales"].carried[0])  # doctest: +NORMALIZE_WHITESPACE
scan 1: s_date BETWEEN 366 AND 730: the keys of dates.d_key by s_date = d_key
    (ranges from the statistics of 1 of 3 containers)
"""

from __future__ import annotations

import datetime as _dt
import decimal
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from prunekit.errors import PrunekitError
from prunekit.expr.binding.bind import bind, bind_conjunction
from prunekit.expr.program.rewrite import Rewriter
from prunekit.expr.query import JoinKey, Pushdown, pushdowns
from prunekit.expr.resolve import leaves
from prunekit.expr.syntax import nodes as n
from prunekit.expr.syntax.moments import fix_moments, instant, zone
from prunekit.kernels.ops import NONE_MATCH

from .evaluation import outcomes
from .statistics import Statistics

DEFAULT_ROW_BUDGET = 100_000  # rows of another table read to carry its exact keys (a dimension)
MAX_LIST = 1_000  # exact keys carried as one IN list; more become ranges
MAX_RANGES = 64  # ranges carried per join, the closest ones merged
_MAX_ROUNDS = 4  # rounds of the fixpoint; each round's filters are sound on their own
_INTERPRET_BELOW = 1 << 17  # containers classified by NumPy while carrying (no compiles)
_EPOCH = _dt.date(1970, 1, 1)


@dataclass
class Joint:
    """One table's pruning for a whole query: ``predicate`` (the OR over its scans of their
    own conjuncts and what their joins carried), ``pushdown`` (what the query gave each
    scan) and ``carried`` (one line per join that carried keys, for explain)."""

    table: str
    predicate: n.Node
    pushdown: Pushdown
    carried: list[str] = field(default_factory=list)
    statistics: Statistics | None = None
    schema: pa.Schema | None = None


@dataclass
class _Table:
    name: str
    statistics: Statistics | None
    schema: pa.Schema
    found: Pushdown
    names: dict = field(default_factory=dict)  # lower name -> schema name

    def __post_init__(self) -> None:
        self.names = {f.name.lower(): f.name for f in self.schema}
        self.leaf_keys = frozenset(leaves(self.schema))


def joint(sql: str, tables: Mapping[str, tuple], *, dialect: str = "spark",
          row_budget: int = DEFAULT_ROW_BUDGET, now: _dt.datetime | None = None,
          time_zone: str = "UTC") -> dict[str, Joint]:
    """Per table of ``tables`` (name to ``(Statistics or None, schema)``) that the query
    reads, keyed by its lower-case name: its predicate with the keys its joins carry (module
    docstring). A table without statistics receives keys but gives none. ``now`` and
    ``time_zone`` fix the moment of the query (``prunekit.expr.syntax.moments``), one for all."""
    if not isinstance(row_budget, int) or row_budget < 0:
        raise ValueError(f"row_budget must be a non-negative integer, got {row_budget!r}")
    given = {}
    for name, value in tables.items():
        if not (isinstance(value, tuple) and len(value) == 2):
            raise TypeError(f"tables[{name!r}] must be a (Statistics, schema) pair")
        stats, schema = value
        if stats is not None and not isinstance(stats, Statistics):
            stats = Statistics.from_arrow(stats)
        schema = schema if isinstance(schema, pa.Schema) else pa.schema(list(schema.items()))
        given[name.split(".")[-1].lower()] = (stats, schema)
    found = pushdowns(sql, {k: s for k, (_, s) in given.items()}, dialect)
    at = instant(now)
    for f in found.values():
        f.conjuncts = [None if c is None else tuple(fix_moments(x, at, time_zone) for x in c)
                       for c in f.conjuncts]
    state = _State({k: _Table(k, given[k][0], given[k][1], f) for k, f in found.items()},
                   row_budget, zone(time_zone))
    state.run()
    return {k: state.result(t) for k, t in state.tables.items()}


def prune_query(sql: str, tables: Mapping[str, tuple], *, dialect: str = "spark",
                row_budget: int = DEFAULT_ROW_BUDGET, backend: str = "auto",
                now: _dt.datetime | None = None, time_zone: str = "UTC"
                ) -> dict[str, np.ndarray]:
    """Outcomes (int8 per container: 0 NONE_MATCH, 1 MAYBE_MATCH, 2 ALL_MATCH) of every table
    of ``tables`` (name to ``(Statistics, schema)``) that the query reads, with the keys each
    one's joins carry from the others (``joint``), in one call.

    >>> import numpy as np, pyarrow as pa
    >>> from prunekit.statistics import Statistics
    >>> def stats(lo, hi):
    ...     return Statistics.from_numpy(row_count=np.full(len(lo), 10), columns={"k": {
    ...         "min": np.array(lo), "max": np.array(hi), "null_count": np.zeros(len(lo))}})
    >>> tables = {"dim": (stats([1, 101], [100, 200]), {"k": pa.int64()}),
    ...           "fact": (stats([1, 51, 151, 251], [50, 150, 250, 300]), {"k": pa.int64()})}
    >>> q = "SELECT * FROM fact f JOIN dim d ON f.k = d.k WHERE d.k > 150"
    >>> {name: o.tolist() for name, o in prune_query(q, tables).items()}
    {'dim': [0, 1], 'fact': [0, 1, 1, 0]}
    """
    return {name: outcome for name, (_, outcome) in joint_outcomes(
        sql, tables, dialect=dialect, row_budget=row_budget, backend=backend, now=now,
        time_zone=time_zone).items()}


def joint_outcomes(sql: str, tables: Mapping[str, tuple], *, dialect: str = "spark",
                   row_budget: int = DEFAULT_ROW_BUDGET, backend: str = "auto",
                   now: _dt.datetime | None = None, time_zone: str = "UTC"
                   ) -> dict[str, tuple[Joint, np.ndarray]]:
    """``prune_query``'s outcomes with what gave them: per table of ``tables`` that the query
    reads and that has statistics, keyed by its name in ``tables``, its ``Joint`` (the
    predicate it was pruned with, and what its joins carried) and its outcomes.

    >>> import numpy as np, pyarrow as pa
    >>> from prunekit.statistics import Statistics
    >>> stats = Statistics.from_numpy(row_count=np.full(2, 10), columns={"k": {
    ...     "min": np.array([1, 101]), "max": np.array([100, 200]), "null_count": np.zeros(2)}})
    >>> found = joint_outcomes("SELECT * FROM t WHERE k > 150", {"t": (stats, {"k": pa.int64()})})
    >>> j, outcome = found["t"]
    >>> j.predicate.sql(), outcome.tolist()
    ('k > 150', [0, 1])
    """
    found = joint(sql, tables, dialect=dialect, row_budget=row_budget, now=now,
                  time_zone=time_zone)
    names = {name.split(".")[-1].lower(): name for name in tables}
    out = {}
    for key, j in found.items():
        if j.statistics is None:
            continue
        program = Rewriter().program(bind(j.predicate, j.schema, zone(time_zone)))
        # Few containers: interpreted at once, no kernel compiled for a one-off shape.
        small = backend == "auto" and len(j.statistics) < _INTERPRET_BELOW
        out[names[key]] = (j, outcomes(program, j.statistics, frozenset(leaves(j.schema)),
                                       "numpy" if small else backend))
    return out


@dataclass(frozen=True)
class _Carried:
    """What one join carried: the filter on the column, how it was found, and ``sig``, the
    filter as a value (compared between rounds and keyed on, never rendered as SQL)."""

    node: n.Node
    how: str
    sig: tuple


class _State:
    def __init__(self, tables: dict[str, _Table], row_budget: int, tz: _dt.tzinfo):
        self.tables, self.row_budget, self.zone = tables, row_budget, tz
        self.carried: dict[tuple[str, int, JoinKey], _Carried] = {}
        self._programs: dict[tuple, object] = {}
        self._bound: dict[str, dict] = {}  # per table, its filters' conjuncts bound
        self._kept: dict[tuple, np.ndarray] = {}
        self._rows: dict[tuple, pa.Table | None] = {}
        self._exact: dict[tuple, tuple[list, str] | None] = {}

    def run(self) -> None:
        for _ in range(_MAX_ROUNDS):
            changed = False
            for t in self.tables.values():
                for i, keys in enumerate(t.found.joins):
                    for key in keys:
                        got = self.carry(t, key)
                        old = self.carried.get((t.name, i, key))
                        # An earlier round's keys stay sound: they came from sound filters.
                        if got is not None and (old is None or old.sig != got.sig):
                            self.carried[(t.name, i, key)] = got
                            changed = True
            if not changed:
                return

    def scan_filter(self, t: _Table, i: int) -> tuple[tuple, n.Node | None]:
        """The conjuncts scan ``i`` of ``t`` must pass (None: none), carried keys included,
        and a key naming that filter."""
        own = list(t.found.conjuncts[i] or ())
        mine = [(k, c) for (name, j, k), c in self.carried.items() if name == t.name and j == i]
        parts = own + [c.node for _, c in mine]
        sig = (t.name, i, tuple(c.sig for _, c in mine))
        return sig, None if not parts else parts[0] if len(parts) == 1 else n.and_(*parts)

    def result(self, t: _Table) -> Joint:
        scans: dict[tuple, n.Node] = {}
        unfiltered = False
        for i in range(len(t.found.scans)):
            _, f = self.scan_filter(t, i)
            if f is None:
                unfiltered = True
            else:  # scans with the same conjuncts and keys: one branch of the OR
                own = tuple(c.sql() for c in t.found.conjuncts[i] or ())
                scans.setdefault((own, self.scan_filter(t, i)[0][2]), f)
        if unfiltered or not scans:
            predicate = n.Literal(True)
        else:
            predicate = n.or_(*scans.values()) if len(scans) > 1 else next(iter(scans.values()))
        lines = [f"scan {j + 1}: {key.column} {_shown(c.node)}: the keys of {key.table}."
                 f"{key.key} by {key.text} ({c.how})"
                 for (name, j, key), c in self.carried.items() if name == t.name]
        return Joint(t.name, predicate, t.found, lines, t.statistics, t.schema)

    # ---- the keys one join carries ------------------------------------------------------
    def carry(self, t: _Table, key: JoinKey) -> _Carried | None:
        other = self.tables.get(key.table)
        if other is None or other.statistics is None or key.column not in t.names or \
                key.key not in other.names:
            return None
        mine, theirs = t.schema.field(t.names[key.column]), other.schema.field(
            other.names[key.key])
        if not _comparable(mine.type, theirs.type):
            return None
        filters = [self.scan_filter(other, i) for i, s in enumerate(other.found.scan_ids)
                   if s == key.scan]
        if not filters:
            return None
        kept = np.zeros(len(other.statistics), dtype=bool)
        for sig, f in filters:
            kept |= self.kept(other, sig, f)
        column = n.col(mine.name)
        exact = self.exact_keys(other, theirs.name, kept, filters)
        if exact is not None:
            keys, how = exact
            how = f"{len(keys):,} keys, from {how}"
            runs = _runs(keys)
            # Points as one IN list (searched per container); consecutive keys as ranges.
            few_runs = 2 * len(runs) <= len(keys) and len(runs) <= MAX_RANGES
            if 1 < len(keys) <= MAX_LIST and not few_runs:
                values = keys.to_pylist()
                return _Carried(column.isin(values), how, ("in", tuple(values)))
            node, ranges = _ranges_filter(column, runs)
            return _Carried(node, how, ("ranges", ranges))
        spans = _key_spans(other.statistics, theirs.name, kept)
        if spans is None:
            return None
        node, ranges = _ranges_filter(column, spans)
        return _Carried(node, f"ranges from the statistics of {int(kept.sum()):,} of "
                        f"{len(kept):,} containers", ("ranges", ranges))

    def program(self, t: _Table, sig: tuple, f: n.Node):
        """The program of a scan filter, built once. Carrying asks only which containers
        (rows) a filter keeps, so it is ``prune_only``: the steps that tell ALL_MATCH apart
        are never built nor run."""
        if sig not in self._programs:
            parts = f.args if isinstance(f, n.And) else (f,)
            bound = bind_conjunction(parts, t.schema, self.zone,
                                     self._bound.setdefault(t.name, {}))
            self._programs[sig] = Rewriter().program(bound, prune_only=True)
        return self._programs[sig]

    def kept(self, t: _Table, sig: tuple, f: n.Node | None) -> np.ndarray:
        """The containers of ``t`` a scan filter keeps."""
        stats = t.statistics
        if f is None:
            return np.ones(len(stats), dtype=bool)
        if sig not in self._kept:
            try:
                backend = "numpy" if len(stats) < _INTERPRET_BELOW else "auto"
                out = outcomes(self.program(t, sig, f), stats, t.leaf_keys,
                               backend) != NONE_MATCH
            except PrunekitError:  # statistics the filter cannot read: keep everything
                out = np.ones(len(stats), dtype=bool)
            self._kept[sig] = out
        return self._kept[sig]

    def exact_keys(self, t: _Table, key: str, kept: np.ndarray, filters: list
                   ) -> tuple[pa.Array, str] | None:
        """The distinct keys, sorted, of the rows of the kept containers that a filter may
        pass, or None (too many rows, no ``file``/``row_group``, columns not plain, a read
        failed)."""
        cache_key = (t.name, key, tuple(sig for sig, _ in filters), kept.tobytes())
        if cache_key not in self._exact:
            self._exact[cache_key] = self._exact_keys(t, key, kept, filters)
        return self._exact[cache_key]

    def _exact_keys(self, t: _Table, key: str, kept: np.ndarray, filters: list
                    ) -> tuple[pa.Array, str] | None:
        import pyarrow.compute as pc  # here, not at `import prunekit`

        rows = self.read_rows(t, key, kept, filters)
        if rows is None:
            return None
        single = _row_statistics(rows, t.schema)
        mask = np.zeros(rows.num_rows, dtype=bool)
        for sig, f in filters:
            if f is None:
                mask[:] = True
                break
            mask |= outcomes(self.program(t, sig, f), single, t.leaf_keys,
                             "numpy") != NONE_MATCH
        keys = pc.unique(pc.drop_null(rows.column(key).combine_chunks().filter(mask)))
        keys = keys.take(pc.sort_indices(keys))
        how = (f"rows of {int(kept.sum()):,} of {len(kept):,} containers, {int(mask.sum()):,} "
               f"of {rows.num_rows:,} rows")
        return keys, how

    def read_rows(self, t: _Table, key: str, kept: np.ndarray, filters: list
                  ) -> pa.Table | None:
        table = t.statistics.table
        if not {"file", "row_group", "row_count"} <= set(table.column_names):
            return None
        counts = table.column("row_count").to_numpy(zero_copy_only=False)
        if np.isnan(counts[kept].astype(float)).any() or counts[kept].sum() > self.row_budget:
            return None
        columns = {key}
        for sig, f in filters:
            if f is not None:
                program = self.program(t, sig, f)
                columns |= {s.column for s in program.slots if s.column is not None}
        if not columns <= set(t.schema.names):
            return None  # a struct field: read as statistics only
        cache_key = (t.name, tuple(sorted(columns)), np.flatnonzero(kept).tobytes())
        if cache_key not in self._rows:
            self._rows[cache_key] = _read(table, kept, sorted(columns), t.schema,
                                          int(counts[kept].sum()))
        return self._rows[cache_key]


def _read(table: pa.Table, kept: np.ndarray, columns: list[str], schema: pa.Schema,
          expected: int) -> pa.Table | None:
    """The rows of the kept row groups, or None when a file cannot be read as its
    statistics say (missing, another row count, a column absent such as a Delta partition)."""
    import pyarrow.parquet as pq

    files = table.column("file").to_pylist()
    groups = table.column("row_group").to_pylist()
    wanted: dict[str, list[int]] = {}
    for i in np.flatnonzero(kept):
        if files[i] is None or groups[i] is None:
            return None
        wanted.setdefault(files[i], []).append(int(groups[i]))
    parts = []
    try:
        for path, rgs in wanted.items():
            part = pq.ParquetFile(path).read_row_groups(rgs, columns=columns)
            parts.append(part.select(columns).cast(pa.schema([schema.field(c) for c in columns])))
    except (OSError, KeyError, ValueError, pa.ArrowException):
        return None
    rows = pa.concat_tables(parts) if parts else pa.table(
        {c: pa.array([], schema.field(c).type) for c in columns})
    return rows if rows.num_rows == expected else None


def _row_statistics(rows: pa.Table, schema: pa.Schema) -> Statistics:
    """Each row as a container of one row: exact bounds, a NULL as null_count 1, a NaN as
    nan_count 1 with unknown bounds."""
    import pyarrow.compute as pc

    cols = {"row_count": pa.array(np.ones(rows.num_rows, dtype=np.int64))}
    for name in rows.column_names:
        values = rows.column(name).combine_chunks()
        nulls = pc.cast(pc.is_null(values), pa.int64())
        fields = {"min": values, "max": values, "null_count": nulls}
        t = values.type
        if pa.types.is_floating(t):
            nan = pc.fill_null(pc.is_nan(values), False)
            fields["min"] = fields["max"] = pc.if_else(nan, pa.scalar(None, t), values)
            fields["nan_count"] = pc.cast(nan, pa.int64())
        if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or \
                pa.types.is_large_binary(t):
            exact = pa.array(np.ones(rows.num_rows, dtype=bool))
            fields["min_exact"] = fields["max_exact"] = exact
        cols[name] = pa.StructArray.from_arrays(list(fields.values()), list(fields))
    return Statistics.from_arrow(pa.table(cols))


def _comparable(a: pa.DataType, b: pa.DataType) -> bool:
    """Whether ``a = b`` compares the two values exactly in Spark's common type."""
    def family(t: pa.DataType) -> str | None:
        if pa.types.is_integer(t) or pa.types.is_decimal(t):
            return "number"
        if pa.types.is_date32(t):
            return "date"
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            return "string"
        if pa.types.is_binary(t) or pa.types.is_large_binary(t):
            return "binary"
        return None

    return family(a) is not None and family(a) == family(b)


def _key_spans(stats: Statistics, key: str, kept: np.ndarray) -> list[tuple] | None:
    """The ``[min, max]`` of ``key`` over the kept containers that may hold a key, or None
    when one of them has an unknown bound."""
    table = stats.table
    if key not in table.column_names:
        return None
    s = table.column(key).combine_chunks()
    rows = table.column("row_count").to_pylist()
    lo, hi, nulls = (s.field(f).to_pylist() for f in ("min", "max", "null_count"))
    spans = []
    for i in np.flatnonzero(kept):
        if rows[i] == 0 or (nulls[i] is not None and rows[i] is not None and nulls[i] >= rows[i]):
            continue  # no row, or every key NULL: nothing to join with
        if lo[i] is None or hi[i] is None:
            return None
        spans.append((lo[i], hi[i]))
    return spans


def _ranges_filter(column: n.Column, spans: list[tuple]) -> tuple[n.Node, tuple]:
    """``column`` within the union of ``spans``, merged to at most ``MAX_RANGES`` ranges (the
    smallest gaps closed first where values have a distance, neighbours otherwise), and the
    ranges.

    >>> node, ranges = _ranges_filter(n.col("k"), [(1, 3), (2, 5), (6, 7), (9, 9), (20, 30)])
    >>> node.sql(), ranges
    ('k BETWEEN 1 AND 7 OR k = 9 OR k BETWEEN 20 AND 30', ((1, 7), (9, 9), (20, 30)))
    """
    if not spans:
        return n.Literal(False), ()
    merged: list[list] = []
    for lo, hi in sorted(spans):
        if merged and (lo <= merged[-1][1] or _distance(merged[-1][1], lo) == 1):
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    if len(merged) > MAX_RANGES:
        merged = _fewer(merged)
    parts = [column == lo if lo == hi else column.between(lo, hi) for lo, hi in merged]
    return (parts[0] if len(parts) == 1 else n.or_(*parts)), tuple(map(tuple, merged))


def _runs(keys: pa.Array) -> list[tuple]:
    """Sorted distinct keys as ranges: runs of consecutive integers or dates are one range
    (the same keys), any other value its own; at most ``MAX_RANGES`` where there are many
    integer or date runs (the closest merged), found with NumPy.

    >>> _runs(pa.array([1, 2, 3, 7, 9, 10]))
    [(1, 3), (7, 7), (9, 10)]
    """
    t = keys.type
    if pa.types.is_integer(t) or pa.types.is_date32(t):
        v = keys.cast(pa.int32() if pa.types.is_date32(t) else t).to_numpy().astype(np.int64)
        if not len(v):
            return []
        breaks = np.flatnonzero(np.diff(v) != 1)
        starts, ends = v[np.r_[0, breaks + 1]], v[np.r_[breaks, len(v) - 1]]
        if len(starts) > 2 * MAX_RANGES and len(v) > MAX_LIST:  # an IN list is out: merge now
            gaps = starts[1:] - ends[:-1]
            cut = np.sort(np.argpartition(gaps, len(gaps) - MAX_RANGES + 1)[
                len(gaps) - MAX_RANGES + 1:])
            starts, ends = starts[np.r_[0, cut + 1]], ends[np.r_[cut, len(ends) - 1]]

        def back(x: int):
            return _EPOCH + _dt.timedelta(days=int(x)) if pa.types.is_date32(t) else int(x)

        return [(back(a), back(b)) for a, b in zip(starts, ends, strict=True)]
    out: list[list] = []
    for v in keys.to_pylist():
        if out and _distance(out[-1][1], v) == 1 and not isinstance(v, decimal.Decimal):
            out[-1][1] = v
        else:
            out.append([v, v])
    return [(lo, hi) for lo, hi in out]


def _shown(node: n.Node) -> str:
    """A carried filter, short: ``IN (365 keys)`` rather than the keys."""
    if isinstance(node, n.In):
        return f"IN ({len(node.values):,} keys)"
    if isinstance(node, n.Or):
        return f"within {len(node.args)} ranges"
    if isinstance(node, n.Literal):
        return "matches no key (nothing to join with)"
    return node.sql().split(" ", 1)[1]


def _fewer(merged: list[list]) -> list[list]:
    """At most MAX_RANGES ranges covering ``merged`` (sorted, disjoint)."""
    gaps = [_distance(a[1], b[0]) for a, b in zip(merged[:-1], merged[1:], strict=True)]
    if None in gaps:  # strings: join neighbours in equal runs
        step = -(-len(merged) // MAX_RANGES)
        return [[merged[i][0], merged[min(i + step, len(merged)) - 1][1]]
                for i in range(0, len(merged), step)]
    keep = set(sorted(range(len(gaps)), key=lambda i: gaps[i])[len(gaps) - MAX_RANGES + 1:])
    out = [list(merged[0])]
    for i, r in enumerate(merged[1:]):
        if i in keep:
            out.append(list(r))
        else:
            out[-1][1] = r[1]
    return out


def _distance(a, b):
    if isinstance(a, _dt.date):
        return (b - a).days
    if isinstance(a, (int, decimal.Decimal)):
        return b - a
    return None
