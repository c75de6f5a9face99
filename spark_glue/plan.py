"""A DataFrame's optimized plan read as one query in Spark SQL that prunekit's whole-query
pruning reads, and the same plan again with some scans reading fewer files.

A DataFrame built with the DataFrame API has no query text, but Spark's optimized logical plan
of it is a tree of scans (``LogicalRelation`` over files), filters, projections, joins and
aggregates. ``read`` renders the part prunekit understands as one flat SELECT over the scans,
each scan a table ``t0``, ``t1``… and each column qualified by its table (``t0.k``), so names
the DataFrame API lets repeat (``k`` on both sides of a join) never clash, and a join's keys
are the columns prunekit carries keys between:

- A scan of Parquet files without partition or bucket columns is a table of its own.
- A filter's conjuncts and a join's condition are written by Spark itself
  (``Expression.sql``) over the qualified columns. A conjunct that reads a column not
  rendered, or that Spark cannot write, is left out: fewer conjuncts keep more. A filter goes
  in the WHERE clause, or, below the side of an outer join that may come out NULL, in that
  join's ON clause, where it means the same; below a full join, its side is a table of its
  own (``(SELECT …) AS q1``), which nothing is carried through.
- A projection passes on its columns and what it computes from them.
- An aggregate with grouping passes on its grouping columns: a group is there only if its
  rows are. Without grouping (one row out of none) it is not understood.
- At the root, what is done to the rows that reach it (sort, limit, aggregate, window,
  projection) does not change which rows of the scans reach it: it is left out.
- Anything else (a limit or a window under a join, a union, a cached or local relation…) is a
  table ``n<i>`` of its output columns with no statistics: nothing is carried from it, and the
  scans under it are read as they are.

``with_relations`` puts new relations in place of scans (over the kept files) and makes a
DataFrame of the plan again.

>>> _JOINS["LEFT OUTER"]
'LEFT JOIN'
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

_PLAIN_OPTIONS = {"path", "paths", "basepath", "mergeschema"}
_PASS_ON = {"Sort", "Repartition", "RepartitionByExpression", "RebalancePartitions"}
_ROOT_ONLY = _PASS_ON | {"GlobalLimit", "LocalLimit", "Offset", "Tail", "Project", "Aggregate",
                         "Window", "Deduplicate", "Distinct"}
_JOINS = {"INNER": "JOIN", "LEFT OUTER": "LEFT JOIN", "RIGHT OUTER": "RIGHT JOIN",
          "FULL OUTER": "FULL JOIN", "LEFT SEMI": "LEFT SEMI JOIN",
          "LEFT ANTI": "LEFT ANTI JOIN", "CROSS": "CROSS JOIN"}


@dataclass
class Scan:
    """A scan of the plan prunekit may narrow: its table name in the query text, the
    ``LogicalRelation`` (a py4j object), and the folder or file it reads."""

    name: str
    relation: object
    path: str


@dataclass
class PlanText:
    """The query text of a plan, its scans by table name (in the plan's order), and the
    tables standing for parts not understood, each with its Spark schema."""

    sql: str
    scans: dict[str, Scan] = field(default_factory=dict)
    opaque: dict[str, object] = field(default_factory=dict)


class _NotRendered(Exception):
    """An expression reads a column not rendered, or Spark cannot write it."""


def read(df) -> PlanText:
    """The optimized plan of ``df`` as query text (module docstring)."""
    reader = _Reader()
    text = reader.query(df._jdf.queryExecution().optimizedPlan())
    return PlanText(text, reader.scans, reader.opaque)


def with_relations(df, relations: dict[int, object]):
    """``df``'s optimized plan with the ``LogicalRelation`` at each position of ``relations``
    (its place among the plan's relations, in the order ``read`` numbers scans) replaced,
    as a DataFrame."""
    from pyspark.sql import DataFrame

    spark = df.sparkSession
    jvm = _jvm()
    seen = [0]

    def rebuild(p):
        if _kind(p) == "LogicalRelation":
            at = seen[0]
            seen[0] += 1
            return relations.get(at, p)
        kids = _items(p.children())
        if not kids:
            return p
        new = [rebuild(k) for k in kids]
        if all(a is b for a, b in zip(new, kids, strict=True)):
            return p
        return p.withNewChildren(_seq(new))

    plan = rebuild(df._jdf.queryExecution().optimizedPlan())
    try:
        dataset = jvm.org.apache.spark.sql.classic.Dataset  # Spark 4
        jdf = dataset.ofRows(spark._jsparkSession, plan)
    except Exception:  # noqa: BLE001 - Spark 3.5 keeps Dataset in org.apache.spark.sql
        jdf = jvm.org.apache.spark.sql.Dataset.ofRows(spark._jsparkSession, plan)
    return DataFrame(jdf, spark)


def schema_of(relation):
    """The Spark schema (pyspark ``StructType``) a ``LogicalRelation`` reads its files with."""
    from pyspark.sql.types import StructType

    return StructType.fromJson(json.loads(relation.relation().dataSchema().json()))


def relation_over(old, new):
    """``old`` (a ``LogicalRelation``) reading what ``new`` reads (the analyzed plan of a read
    of the kept files: a ``LogicalRelation``, or an empty ``LocalRelation`` when no file is
    kept), with ``old``'s attributes, so the plan above it still resolves; None if ``new`` is
    neither or reads the columns otherwise."""
    jvm = _jvm()
    if _kind(new) == "LocalRelation" and new.data().isEmpty() and \
            old.schema().equals(new.schema()):
        args = [new.productElement(k) for k in range(new.productArity())]
        args[0] = old.output()
        return jvm.org.apache.spark.sql.catalyst.plans.logical.LocalRelation(*args)
    if _kind(new) != "LogicalRelation" or \
            not old.relation().dataSchema().equals(new.relation().dataSchema()):
        return None
    args = [old.productElement(k) for k in range(old.productArity())]
    args[0] = new.relation()  # its other fields (output, catalog table…) stay old's
    return jvm.org.apache.spark.sql.execution.datasources.LogicalRelation(*args)


def _jvm():
    from pyspark import SparkContext

    return SparkContext._jvm


@dataclass
class _Part:
    """A rendered part of the plan: a FROM clause (tables and joins), the conditions on its
    rows not yet placed, and each output attribute's expression over its tables (a py4j
    ``Expression``: a qualified column, or what a projection computes)."""

    source: str
    where: list[str]
    names: dict[int, object]
    joined: bool = False  # the FROM clause holds a join


class _Reader:
    """Renders a plan as one flat SELECT (``read``): a tree of joins over tables, with each
    filter in the WHERE clause or, below the side of an outer join that may be NULL, in that
    join's ON clause, where it means the same."""

    def __init__(self):
        self.scans: dict[str, Scan] = {}
        self.opaque: dict[str, object] = {}
        self.relations = 0  # LogicalRelations met, in the order with_relations meets them
        self.derived = 0

    def query(self, p) -> str:
        # What the root does to the rows it is given (order, cut, aggregate, project) does
        # not change which rows of the scans reach it, so nothing to render: the filters,
        # joins and scans under it are the query. Under a join it is another matter.
        while _kind(p) in _ROOT_ONLY:
            p = _items(p.children())[0]
        part = self.node(p)
        where = f" WHERE {' AND '.join(part.where)}" if part.where else ""
        return f"SELECT 1 FROM {part.source}{where}"

    def node(self, p) -> _Part:
        kind = _kind(p)
        if kind == "LogicalRelation":
            return self._relation(p)
        if kind in _PASS_ON:
            return self.node(_items(p.children())[0])
        if kind == "Filter":
            part = self.node(p.child())
            part.where += [c for c in (_expr(x, part.names) for x in _conjuncts(p.condition()))
                           if c]
            return part
        if kind == "Project":
            part = self.node(p.child())
            names = {}
            for e in _items(p.projectList()):
                inner = e.child() if _kind(e) == "Alias" else e
                rebuilt = _rebuilt(inner, part.names)
                if rebuilt is not None:
                    names[e.exprId().id()] = rebuilt
            return _Part(part.source, part.where, names, part.joined)
        if kind == "Aggregate" and _items(p.groupingExpressions()):
            # No aggregate over no rows: a group is there only if its rows are. (Without
            # grouping one row comes out of none, count(*) = 0: not rendered.)
            part = self.node(p.child())
            groups = {e.exprId().id() for e in _items(p.groupingExpressions())
                      if _kind(e) == "AttributeReference"}
            names = {}
            for e in _items(p.aggregateExpressions()):
                inner = e.child() if _kind(e) == "Alias" else e
                if _kind(inner) == "AttributeReference" and inner.exprId().id() in groups \
                        and inner.exprId().id() in part.names:
                    names[e.exprId().id()] = part.names[inner.exprId().id()]
            return _Part(part.source, part.where, names, part.joined)
        if kind == "Join" and p.joinType().sql() in _JOINS:
            return self._join(p)
        return self._opaque(p)

    def _join(self, p) -> _Part:
        how = _JOINS[p.joinType().sql()]
        left, right = self.node(p.left()), self.node(p.right())
        if right.joined:  # a JOIN b ON (c JOIN d): c JOIN d as a table of its own
            right = self._derive(right)
        # Filters below the side that may come out NULL go in the ON clause (the same rows);
        # a full join has no such side, so there they stay inside a table of their own.
        if how == "FULL JOIN":
            left, right = (self._derive(x) if x.where else x for x in (left, right))
        names = {**left.names, **right.names}
        on, where = [], []
        if how in ("JOIN", "CROSS JOIN"):
            where = left.where + right.where
        elif how in ("LEFT JOIN", "LEFT SEMI JOIN", "LEFT ANTI JOIN"):
            on, where = list(right.where), list(left.where)
        elif how == "RIGHT JOIN":
            on, where = list(left.where), list(right.where)
        condition = p.condition()
        if condition.isDefined():
            on = [c for c in (_expr(x, names) for x in _conjuncts(condition.get())) if c] + on
        if how == "CROSS JOIN" and on:
            how = "JOIN"
        source = f"{left.source} {how} {right.source}"
        if how != "CROSS JOIN":
            source += f" ON {' AND '.join(on) or 'TRUE'}"
        if how in ("LEFT SEMI JOIN", "LEFT ANTI JOIN"):
            names = left.names
        return _Part(source, where, names, joined=True)

    def _relation(self, p) -> _Part:
        at = self.relations
        self.relations += 1
        path = parquet_path(p)
        if path is None:
            return self._opaque(p, counted=True)
        name = f"t{at}"
        self.scans[name] = Scan(name, p, path)
        return _Part(name, [], {a.exprId().id(): _qualified(a, a.name(), name)
                                for a in _items(p.output())})

    def _opaque(self, p, counted: bool = False) -> _Part:
        """A part not understood: a table of its output columns (``c<id>``), with no
        statistics; the relations under it are read as they are."""
        if not counted:
            self._count_relations(p)
        name = f"n{len(self.opaque)}"
        from pyspark.sql.types import StructType

        columns = _items(p.output())
        self.opaque[name] = StructType.fromJson({"type": "struct", "fields": [
            {"name": f"c{a.exprId().id()}", "type": json.loads(a.dataType().json()),
             "nullable": True, "metadata": {}} for a in columns]})
        return _Part(name, [], {a.exprId().id(): _qualified(a, f"c{a.exprId().id()}", name)
                                for a in columns})

    def _derive(self, part: _Part) -> _Part:
        """``part`` as a table of its own, its columns ``c<id>``: names and filters inside it
        are not seen from outside (nothing is carried through it), which is always sound."""
        self.derived += 1
        alias = f"q{self.derived}"
        items = ", ".join(f"{e.sql()} AS c{i}" for i, e in part.names.items())
        where = f" WHERE {' AND '.join(part.where)}" if part.where else ""
        source = f"(SELECT {items or '1 AS one'} FROM {part.source}{where}) AS {alias}"
        names = {i: _qualified(e, f"c{i}", alias) if _kind(e) == "AttributeReference"
                 else None for i, e in part.names.items()}
        return _Part(source, [], {i: e for i, e in names.items() if e is not None})

    def _count_relations(self, p) -> None:
        """Number the relations under a part not understood, as ``with_relations`` meets them."""
        if _kind(p) == "LogicalRelation":
            self.relations += 1
            return
        for k in _items(p.children()):
            self._count_relations(k)


def parquet_path(p) -> str | None:
    """The folder or file a logical plan node reads, if it is a ``LogicalRelation`` of a plain
    Parquet read (no partitions, buckets or reading options), else None.

    >>> parquet_path(None) is None
    True
    """
    if p is None or _kind(p) != "LogicalRelation":
        return None
    rel = p.relation()
    if _kind(rel) != "HadoopFsRelation" or p.isStreaming():
        return None
    if _kind(rel.fileFormat()) != "ParquetFileFormat" or not rel.partitionSchema().isEmpty() \
            or rel.bucketSpec().isDefined():
        return None
    # Options that read values otherwise (datetime rebasing, for one): not a plain read.
    if not set(_items(rel.options().keys().toSeq())) <= _PLAIN_OPTIONS:
        return None
    roots = _items(rel.location().rootPaths())
    if len(roots) != 1:
        return None
    uri = roots[0].toUri()
    return uri.getPath() if uri.getScheme() in (None, "file") else None


def _rebuilt(e, names: dict[int, object]):
    """Expression ``e`` with each attribute replaced by its expression in ``names`` (a
    qualified column, or what a projection computes), or None if it reads one not there."""
    from py4j.protocol import Py4JError

    def rebuild(x):
        if _kind(x) == "AttributeReference":
            found = names.get(x.exprId().id())
            if found is None:
                raise _NotRendered
            return found
        kids = _items(x.children())
        if not kids:
            return x
        return x.withNewChildren(_seq([rebuild(k) for k in kids]))

    try:
        return rebuild(e)
    except (_NotRendered, Py4JError):
        return None


def _expr(e, names: dict[int, object]) -> str | None:
    """Spark's own SQL for expression ``e`` over the columns of ``names`` (``_rebuilt``), or
    None if it reads a column not there or Spark cannot write it."""
    from py4j.protocol import Py4JError

    rebuilt = _rebuilt(e, names)
    if rebuilt is None:
        return None
    try:
        return rebuilt.sql()
    except Py4JError:
        return None


def _qualified(attribute, name: str, table: str):
    """``attribute`` spelt ``table.name`` in Spark's SQL."""
    return attribute.withName(name).withQualifier(_seq([table]))


def _conjuncts(e) -> list:
    out, stack = [], [e]
    while stack:
        x = stack.pop()
        if _kind(x) == "And":
            stack += [x.right(), x.left()]
        else:
            out.append(x)
    return out


def _kind(x) -> str:
    return x.getClass().getSimpleName()


def _items(seq) -> list:
    return [seq.apply(k) for k in range(seq.size())]


def _seq(items: list):
    """A Scala immutable Seq of ``items`` (py4j objects)."""
    jvm = _jvm()
    values = jvm.java.util.ArrayList()
    for x in items:
        values.add(x)
    return jvm.scala.jdk.javaapi.CollectionConverters.asScala(values).toSeq()
