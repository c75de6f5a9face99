"""``PruningPredicate``: a predicate bound to a schema, rewritten once, evaluated many times."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

import numpy as np
import pyarrow as pa

from prunekit.errors import AliasError, TypeMismatchError
from prunekit.expr.binding import bound as b
from prunekit.expr.binding.bind import bind
from prunekit.expr.program.explain import explain_tree, outline, printable
from prunekit.expr.program.rewrite import Rewriter
from prunekit.expr.resolve import leaves
from prunekit.expr.syntax import nodes as n
from prunekit.expr.syntax.moments import fix_moments, instant, uses_moment, zone
from prunekit.expr.syntax.nodes import Node
from prunekit.kernels.ops import NONE_MATCH, OUTCOME_NAMES

from .evaluation import outcomes
from .statistics import Statistics, with_legacy_keys


class PruningPredicate:
    """Decide, per container, whether a predicate can match any row, from statistics alone.

    Parameters
    ----------
    predicate : str or Expression
        Spark SQL text (``"x > 5 AND s LIKE 'ab%'"``) or a tree built with ``prunekit.col``.
        A dotted name reads a field of a struct column (``address.city``, built as
        ``col("address", "city")``); a column whose own name holds a dot is backticked
        (```a.b```). Names resolve per part as Spark's do (case-insensitively); there are no
        table qualifiers. Statistics of a field are keyed by ``leaf_key`` (``address.city``).
    schema : pyarrow.Schema or mapping of name to pyarrow.DataType
        Types of the data columns the predicate may name (struct columns included).
    aliases : mapping of name to SQL text or Expression, optional
        Derived columns (a projection's outputs, DataFusion's PushDownFilter): each reference
        to an alias is replaced by its expression over the schema's columns before binding.
        Aliases may use other aliases; a cycle is an error, and so is an alias named like a
        schema column (names match case-insensitively, as Spark's): an alias never shadows a
        column. ``.expression`` is the rewritten tree.
    now : datetime, optional
        The moment ``current_date()``, ``current_timestamp()``/``now()`` and
        ``localtimestamp()`` read, once for the whole predicate as Spark reads them once per
        query (default: when the predicate is built; a naive datetime is UTC). ``.now`` is the
        instant used (None when the predicate reads none), ``.expression`` the predicate with
        the moment as literals: the answer holds for a query run at that moment.
    dialect : str
        The SQL dialect of predicate text (sqlglot's names: ``"spark"``, the default,
        ``"databricks"``, ``"duckdb"``, ``"postgres"``, ``"trino"``, ``"snowflake"``,
        ``"bigquery"``...; and ``"datafusion"``, PostgreSQL's syntax with DataFusion's
        semantics). Its own quoting and case rules apply; a construct whose rows may
        differ from Spark's (integer division, collations, coercions, NaN) makes the smallest
        boolean part holding it an unknown leaf, named by ``explain()``
        (``prunekit.expr.syntax.dialects``). In Spark's dialect a double-quoted column name
        (``"x" = 5``, a string in Spark) warns.
    time_zone : str
        Spark's session time zone (``spark.sql.session.timeZone``), in which
        ``current_date()`` and ``localtimestamp()`` are read; default UTC. Everything else
        about timestamps is read in UTC (docs/semantics.md §7).

    Examples
    --------
    DataFusion's containers A, B, C for ``x = 5``, plus one whose statistics are unknown and
    one whose rows are all 5 but one NULL:

    >>> import numpy as np, pyarrow as pa, prunekit as pk
    >>> pred = pk.PruningPredicate("x = 5", pa.schema([("x", pa.int64())]))
    >>> stats = pk.Statistics.from_numpy(row_count=np.array([10, 10, 10, 10, 10]), columns={
    ...     "x": {"min": np.ma.masked_array([0, 2, 5, 0, 5], mask=[0, 0, 0, 1, 0]),
    ...           "max": np.ma.masked_array([4, 10, 8, 0, 5], mask=[0, 0, 0, 1, 0]),
    ...           "null_count": np.array([0, 0, 0, 0, 1])}})
    >>> pred.classify(stats).tolist()     # 0 NONE_MATCH, 1 MAYBE_MATCH, 2 ALL_MATCH
    [0, 1, 1, 1, 1]
    >>> pred.prune(stats).tolist()
    [False, True, True, True, True]

    A field of a struct column reads the statistics of its leaf, keyed ``address.city``:

    >>> pk.PruningPredicate("Address.City = 'Oslo'", {"address": pa.struct([("city",
    ...     pa.string())])}).required_columns
    {'address.city': ('bloom', 'max', 'max_exact', 'min', 'min_exact', 'null_count', 'values')}

    The moment of the query, fixed once:

    >>> import datetime as dt
    >>> pk.PruningPredicate("d >= date_sub(current_date(), 7)", {"d": pa.date32()},
    ...     now=dt.datetime(2024, 3, 1, 12, 0)).expression.sql()
    "d >= date_sub(DATE '2024-03-01', 7)"

    A filter on a derived column, rewritten onto the base column:

    >>> pk.PruningPredicate("d = DATE '1994-01-01'", {"ts": pa.timestamp("us")},
    ...                     aliases={"d": "CAST(ts AS DATE)"}).expression.sql()
    "CAST(ts AS DATE) = DATE '1994-01-01'"
    """

    def __init__(self, predicate: str | Node, schema: pa.Schema | Mapping[str, pa.DataType], *,
                 aliases: Mapping[str, str | Node] | None = None,
                 now: dt.datetime | None = None, time_zone: str = "UTC",
                 dialect: str = "spark"):
        schema = _as_schema(schema)
        if isinstance(predicate, str):
            # SQL text loads sqlglot; a builder predicate never does.
            from prunekit.expr.syntax.dialects import (
                SPARK,
                check_dialect,
                read_predicate,
                warn_quoted_names,
            )

            dialect = check_dialect(dialect)
            if dialect in SPARK:
                warn_quoted_names(predicate, set(schema.names))
            self.expression = read_predicate(predicate, dialect,
                                             {f.name.lower(): f.type for f in schema},
                                             time_zone=time_zone)
        elif isinstance(predicate, Node):
            self.expression = predicate
        else:
            raise TypeError("predicate must be SQL text or a prunekit expression, got "
                            f"{type(predicate).__name__}")
        self.aliases = dict(aliases or {})
        if self.aliases:
            self.expression = _expand_aliases(self.expression, self.aliases, schema)
        self.now = instant(now) if uses_moment(self.expression) else None
        self.time_zone = time_zone
        self.expression = fix_moments(self.expression, self.now, time_zone)
        self.schema = schema
        self._leaf_keys = frozenset(leaves(schema))  # for old-layout statistics keys
        self.pushdown = None  # what from_query found (expr.query.Pushdown)
        self.carried: list[str] = []  # what joins carried onto the table (from_query)
        self._rewriter = Rewriter()
        self._bound = bind(self.expression, schema, zone(time_zone))
        self.program = self._rewriter.program(self._bound)
        self._prune_program = None

    @property
    def bound(self) -> b.BPredicate:
        """The predicate bound to the schema (``prunekit.expr.binding.bound``): names resolved,
        literals in the columns' domains, functions rewritten into predicates on columns. The
        program is made from it; walkers read it with a ``BoundVisitor``.

        >>> import pyarrow as pa
        >>> p = PruningPredicate("x > 5 AND s IS NULL", {"x": pa.int32(), "s": pa.string()})
        >>> p.bound
        BAnd(args=(BCompare(col=x, op='gt', value=5), BIsNull(col=s)))
        """
        return self._bound

    @classmethod
    def from_query(cls, sql: str, table: str, schema: pa.Schema | Mapping[str, pa.DataType], *,
                   dialect: str = "spark", statistics: Mapping[str, tuple] | None = None,
                   row_budget: int | None = None, now: dt.datetime | None = None,
                   time_zone: str = "UTC") -> PruningPredicate:
        """The predicate for the scans of ``table`` in a whole query (CTEs, subqueries, joins,
        UNION): the OR over the table's scans of the conjuncts each scan's rows must pass,
        TRUE if some scan has none. Never pushed past a LIMIT or a window, nor onto an
        aggregate; the rules are in ``prunekit.expr.query``. ``explain()`` shows each
        scan's conjuncts and what was not pushed, and why.

        ``statistics`` (name to ``(Statistics, schema)`` of the query's other tables) carries
        across equality joins the keys the other side can still hold (``prunekit.joins``):
        from their statistics, or from their rows when their kept row groups hold at most
        ``row_budget`` rows (default ``prunekit.joins.DEFAULT_ROW_BUDGET``) and their
        statistics name ``file`` and ``row_group``; ``explain()`` says which join carried
        what, and how. ``now`` and ``time_zone``: as for the constructor, one moment for
        every table.

        >>> import pyarrow as pa
        >>> q = '''SELECT o_orderpriority, count(*) FROM orders LEFT JOIN lineitem
        ...        ON l_orderkey = o_orderkey AND l_commitdate < l_receiptdate
        ...        WHERE o_orderdate >= DATE '1993-07-01' GROUP BY o_orderpriority'''
        >>> schema = {"l_orderkey": pa.int64(), "l_commitdate": pa.date32(),
        ...           "l_receiptdate": pa.date32()}
        >>> PruningPredicate.from_query(q, "lineitem", schema).expression.sql()
        'l_commitdate < l_receiptdate'
        """
        from prunekit.expr.query import pushdown

        schema = _as_schema(schema)
        if statistics is None:
            found = pushdown(sql, table, schema, dialect=dialect)
            pred = cls(found.predicate, schema, now=now, time_zone=time_zone)
            pred.pushdown = found
            return pred
        from .joins import DEFAULT_ROW_BUDGET, joint

        key = table.split(".")[-1].lower()
        tables = {k: v for k, v in statistics.items() if k.split(".")[-1].lower() != key}
        mine = [v[0] for k, v in statistics.items() if k.split(".")[-1].lower() == key]
        tables[key] = (mine[0] if mine else None, schema)
        at = instant(now)
        found = joint(sql, tables, dialect=dialect, row_budget=DEFAULT_ROW_BUDGET
                      if row_budget is None else row_budget, now=at, time_zone=time_zone)
        if key not in found:
            pushdown(sql, table, schema, dialect=dialect)  # raises TableNotReadError
        pred = cls(found[key].predicate, schema, now=at, time_zone=time_zone)
        pred.pushdown, pred.carried = found[key].pushdown, found[key].carried
        return pred

    def __repr__(self) -> str:
        return f"PruningPredicate({self.expression.display()!r})"

    @property
    def always_true(self) -> bool:
        """True when no statistics can prune anything (only empty containers are skipped).

        >>> import pyarrow as pa
        >>> PruningPredicate("x > 1 OR my_udf(x)", {"x": pa.int64()}).always_true
        True
        """
        return self.program.always_true

    @property
    def required_columns(self) -> dict[str, tuple[str, ...]]:
        """The statistics read, per data column (``row_count`` is always read).

        >>> import pyarrow as pa
        >>> PruningPredicate("x IS NULL", {"x": pa.int64()}).required_columns
        {'x': ('null_count',)}
        """
        return self.program.columns_read

    def explain(self, statistics: Statistics | pa.Table | pa.RecordBatch | None = None
                ) -> str | Explanation:
        """Without statistics: the rewritten statistics program, readable (each leaf and when
        it may be TRUE, FALSE or NULL). With statistics: an :class:`Explanation` of these
        containers: each one's outcome, and for every conjunct and leaf how many containers it
        alone rules out (its own outcome there is NONE_MATCH).

        >>> import numpy as np, pyarrow as pa
        >>> pred = PruningPredicate("x > 5 AND y < 0", {"x": pa.int64(), "y": pa.int64()})
        >>> stats = Statistics.from_numpy(row_count=np.array([10, 10, 10]), columns={
        ...     "x": {"min": np.array([0, 6, 0]), "max": np.array([4, 9, 9]),
        ...           "null_count": np.array([0, 0, 0])},
        ...     "y": {"min": np.array([0, 0, -5]), "max": np.array([3, 3, 3]),
        ...           "null_count": np.array([0, 0, 0])}})
        >>> e = pred.explain(stats)
        >>> e.outcomes.tolist(), [c.ruled_out for c in e.conjuncts]
        ([0, 0, 1], [1, 2])
        >>> print(e)   # doctest: +NORMALIZE_WHITESPACE
        predicate: x > 5 AND y < 0
        3 containers: 2 NONE_MATCH (skipped), 1 MAYBE_MATCH, 0 ALL_MATCH
        ruled out alone (of 3):
          2  AND
          1      x > 5    [conjunct 1]
          2      y < 0    [conjunct 2]
        container 0: NONE_MATCH  (ruled out by conjuncts 1, 2)
        container 1: NONE_MATCH  (ruled out by conjunct 2)
        container 2: MAYBE_MATCH
        """
        lines = [] if self.pushdown is None else _pushdown_lines(self.pushdown)
        if self.carried:
            lines += ["carried by joins:"] + [f"  {printable(c)}" for c in self.carried]
        lines += [f"alias: {printable(k)} = {printable(_display(v))}"
                  for k, v in self.aliases.items()]
        if statistics is None:
            head, *rest = explain_tree(self._rewriter, self.expression.display()).split("\n")
            return "\n".join([head, *lines, *rest])
        return Explanation(self, self._statistics(statistics), lines)

    def _repr_html_(self) -> str:
        import html  # notebooks only: not on a script's path

        cols = "; ".join(f"{c}: {', '.join(s)}" for c, s in self.required_columns.items())
        return (f"<div><b>PruningPredicate</b> <code>{html.escape(self.expression.display())}"
                f"</code><br>statistics read: {html.escape(cols or 'row_count only')}"
                f"<details><summary>explain</summary><pre>{html.escape(self.explain())}</pre>"
                "</details></div>")

    def classify(self, statistics: Statistics | pa.Table | pa.RecordBatch, *,
                 backend: str = "auto") -> np.ndarray:
        """One outcome per container as int8: NONE_MATCH=0, MAYBE_MATCH=1, ALL_MATCH=2.

        ``backend``: ``"auto"`` runs the compiled kernel for this predicate's shape when it is
        ready (in memory or in the disk cache); until then an interpreter answers: the
        compiled interpreter once the process has it loaded, else NumPy's. Once interpreting a
        shape has cost about what compiling it would (a second in all), its kernel compiles in
        a background process (unless the environment sets ``PRUNEKIT_BACKGROUND_COMPILE=0``),
        which never holds up the process's exit: a one-off call never compiles. ``"numba"``
        always uses the kernel, compiling it first if needed; ``"vm"`` always uses the
        compiled interpreter (one Numba function for every shape); ``"numpy"`` always
        interprets with NumPy. All give identical outcomes.
        """
        if not isinstance(statistics, Statistics):
            statistics = Statistics.from_arrow(statistics)
        return outcomes(self.program, statistics, self._leaf_keys, backend)

    def _statistics(self, statistics: Statistics | pa.Table | pa.RecordBatch) -> Statistics:
        if not isinstance(statistics, Statistics):
            statistics = Statistics.from_arrow(statistics)
        return with_legacy_keys(statistics, (c for c, _ in self.program.column_types),
                                self._leaf_keys)

    @property
    def prune_program(self):
        """The program that tells NONE_MATCH from the rest and nothing more: what ``prune``
        runs (``Rewriter.program(prune_only=True)``: fewer steps and statistics)."""
        if self._prune_program is None:
            self._prune_program = Rewriter().program(self._bound, prune_only=True)
        return self._prune_program

    def prune(self, statistics: Statistics | pa.Table | pa.RecordBatch, *,
              backend: str = "auto") -> np.ndarray:
        """A bool per container: True where it must be read (``classify(...) != NONE_MATCH``,
        computed without what only ALL_MATCH needs). ``backend`` as for ``classify``.

        >>> import numpy as np, pyarrow as pa
        >>> stats = Statistics.from_numpy(row_count=np.array([4, 4]), columns={"x": {
        ...     "min": np.array([0, 10]), "max": np.array([5, 20]), "null_count": np.zeros(2)}})
        >>> PruningPredicate("x > 7", {"x": pa.int64()}).prune(stats).tolist()
        [False, True]
        """
        if not isinstance(statistics, Statistics):
            statistics = Statistics.from_arrow(statistics)
        # The prune program answers NONE_MATCH (0) or MAYBE_MATCH (1) only, so its int8
        # outcomes are already NumPy booleans: a view, not a second array to allocate and fill
        # (at 1M containers a fresh megabyte's page faults cost about what the kernel does).
        return outcomes(self.prune_program, statistics, self._leaf_keys, backend).view(np.bool_)


def _as_schema(schema: pa.Schema | Mapping[str, pa.DataType]) -> pa.Schema:
    if isinstance(schema, Mapping):
        fields = []
        for name, kind in schema.items():
            try:
                fields.append(pa.field(name, kind))
            except (TypeError, ValueError, KeyError):
                raise TypeMismatchError(
                    f"column {name!r}: {kind!r} is not a type (give a pyarrow.DataType, or "
                    "one of pyarrow's names for one, such as 'int64' or 'string')") from None
        schema = pa.schema(fields)
    if not isinstance(schema, pa.Schema):
        raise TypeError(f"schema must be a pyarrow.Schema, got {type(schema).__name__}")
    return schema


def _display(value: str | Node) -> str:
    return value if isinstance(value, str) else value.display()


def _expand_aliases(tree: Node, aliases: Mapping[str, str | Node], schema: pa.Schema) -> Node:
    """Replace references to aliases by their expressions; aliases may use aliases."""
    columns = {name.lower() for name in schema.names}
    table: dict[str, tuple[str, Node]] = {}
    for name, value in aliases.items():
        if not isinstance(name, str):
            raise TypeError(f"alias names must be strings, got {type(name).__name__}")
        key = name.lower()
        if key in columns:
            raise AliasError(f"alias {name!r} is also a column of the schema; rename the alias "
                             "(an alias never shadows a column)")
        if key in table:
            raise AliasError(f"aliases {table[key][0]!r} and {name!r} differ only in case")
        if isinstance(value, str):
            from prunekit.expr.syntax.sql import parse

            value = parse(value)
        elif not isinstance(value, Node):
            raise TypeError(f"alias {name!r} must be SQL text or an expression, got "
                            f"{type(value).__name__}")
        table[key] = (name, value)

    def uses(key: str) -> list[str]:
        return sorted({c.name.lower() for c in table[key][1].walk()
                       if isinstance(c, n.Column) and c.name.lower() in table})

    def substitute(node: Node) -> Node:
        def one(x: Node) -> Node:
            if not isinstance(x, n.Column) or x.name.lower() not in table:
                return x
            if x.fields:  # alias.field would need the field of an expression
                raise AliasError(f"{x.sql()} reads a field of alias {table[x.name.lower()][0]!r}"
                                 "; only a column's struct fields can be read")
            return done[x.name.lower()]

        return n.transform(node, one)

    done: dict[str, Node] = {}
    for start in table:  # depth-first with an explicit path, which names a cycle
        path: list[str] = []
        stack: list[tuple[str, bool]] = [(start, False)]
        while stack:
            key, expanded = stack.pop()
            if key in done:
                continue
            if expanded:
                done[key] = substitute(table[key][1])
                path.pop()
                continue
            if key in path:
                cycle = path[path.index(key):] + [key]
                raise AliasError("aliases refer to each other in a cycle: "
                                 + " -> ".join(table[c][0] for c in cycle))
            path.append(key)
            stack.append((key, True))
            stack.extend((u, False) for u in uses(key) if u not in done)
    return substitute(tree)


def _pushdown_lines(found) -> list[str]:
    count = len(found.scans)
    out = [f"pushed down from the query for table {printable(found.table)}: {count} "
           f"scan{'s' * (count != 1)}{', OR-ed' * (count > 1)}"]
    for i, scan in enumerate(found.scans, 1):
        shown = " AND ".join(scan) if scan else "TRUE (no filter)"
        out.append(f"  scan {i}: {printable(shown)}")
    out += [f"  {printable(note)}" for note in found.notes]
    return out


class ExplainedNode:
    """One node of the bound tree: ``none`` (bool per container, None if it could not be
    evaluated alone) marks where its own outcome is NONE_MATCH; ``ruled_out`` counts them."""

    def __init__(self, depth: int, label: str, none: np.ndarray | None, conjunct: int | None):
        self.depth, self.label, self.conjunct, self.none = depth, label, conjunct, none
        self.ruled_out = None if none is None else int(none.sum())

    def __repr__(self) -> str:
        return f"<ExplainedNode {self.label!r} ruled out {self.ruled_out}>"


class Explanation:
    """What a predicate did to some containers: ``outcomes`` (int8 per container), ``nodes``
    (the bound tree, parents first, each with ``ruled_out``), ``conjuncts`` (the top-level
    ones, numbered from 1). A node "rules a container out alone" when its own outcome there is
    NONE_MATCH, whatever NOT or OR stands above it. ``str()`` is text; notebooks show
    ``_repr_html_``."""

    LIST = 20  # containers listed one per line

    def __init__(self, pred: PruningPredicate, stats: Statistics, header: list[str]):
        self.predicate = pred.expression.display()
        self.header = header
        self.outcomes = pred.classify(stats)
        root = pred.bound
        top = root.args if isinstance(root, b.BAnd) else (root,)
        self.nodes: list[ExplainedNode] = []
        for depth, x, label in outline(root, short=True):
            try:  # the subtree alone, as its own program (interpreted: no kernel to compile)
                none = outcomes(Rewriter().program(x), stats, pred._leaf_keys,
                                "numpy") == NONE_MATCH
            except Exception:  # a subtree that cannot be evaluated alone: no count, no guess
                none = None
            index = next((i for i, t in enumerate(top, 1) if t is x), None)
            self.nodes.append(ExplainedNode(depth, label, none, index))
        self.conjuncts = sorted((nd for nd in self.nodes if nd.conjunct), key=lambda d: d.conjunct)

    def counts(self) -> dict[str, int]:
        """Containers per outcome, by name."""
        got = np.bincount(self.outcomes.astype(np.int64), minlength=3)
        return {name: int(got[i]) for i, name in enumerate(OUTCOME_NAMES)}

    def _why(self, i: int) -> str:
        hit = [str(c.conjunct) for c in self.conjuncts if c.none is not None and c.none[i]]
        if not hit or len(self.conjuncts) < 2:
            return ""
        return f"  (ruled out by conjunct{'s' * (len(hit) > 1)} {', '.join(hit)})"

    def __str__(self) -> str:
        total, c = len(self.outcomes), self.counts()
        lines = [f"predicate: {printable(self.predicate)}", *self.header,
                 f"{total} containers: {c['NONE_MATCH']} NONE_MATCH (skipped), "
                 f"{c['MAYBE_MATCH']} MAYBE_MATCH, {c['ALL_MATCH']} ALL_MATCH",
                 f"ruled out alone (of {total}):"]
        width = len(str(total))
        for nd in self.nodes:
            count = "?" if nd.ruled_out is None else str(nd.ruled_out)
            tag = f"    [conjunct {nd.conjunct}]" if nd.conjunct and len(self.conjuncts) > 1 else ""
            lines.append(f"  {count:>{width}}  {'    ' * nd.depth}{nd.label}{tag}")
        for i in range(min(total, self.LIST)):
            lines.append(f"container {i}: {OUTCOME_NAMES[self.outcomes[i]]}{self._why(i)}")
        if total > self.LIST:
            lines.append(f"... {total - self.LIST} more containers")
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        import html  # notebooks only: not on a script's path

        e, c = html.escape, self.counts()
        rows = "".join(
            f"<tr><td style='text-align:right'>{'?' if nd.ruled_out is None else nd.ruled_out}"
            f"</td><td style='text-align:left;padding-left:{1.5 * nd.depth}em'><code>"
            f"{e(nd.label)}</code>{f' (conjunct {nd.conjunct})' if nd.conjunct else ''}"
            "</td></tr>" for nd in self.nodes)
        listed = "".join(f"<tr><td>{i}</td><td>{OUTCOME_NAMES[o]}</td><td>{e(self._why(i))}"
                         "</td></tr>" for i, o in enumerate(self.outcomes[:self.LIST]))
        more = (f"<p>... {len(self.outcomes) - self.LIST} more containers</p>"
                if len(self.outcomes) > self.LIST else "")
        head = "".join(f"<br>{e(h)}" for h in self.header)
        summary = ", ".join(f"{v} {k}" for k, v in c.items())
        return (f"<div><b>predicate</b> <code>{e(self.predicate)}</code>{head}<br>"
                f"{len(self.outcomes)} containers: {summary}"
                "<table><tr><th>ruled out alone</th><th>node</th></tr>" + rows + "</table>"
                "<table><tr><th>container</th><th>outcome</th><th></th></tr>" + listed
                + "</table>" + more + "</div>")
