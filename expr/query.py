"""Query pushdown: from a whole SELECT, the filter every row read by one table's scans must pass.

A row of ``lineitem`` matters to a query only if the query's result could change without it.
For each *scan* of the table (each place the query reads it, a CTE counted once per use) this
module finds conjuncts the scan's rows must satisfy: a row failing one of them can be removed
without changing the result (DataFusion's PushDownFilter: filter(op(data)) = op(filter(data))).
The table's predicate is the OR over its scans, TRUE when any scan has no filter: every scan
reads the same containers.

>>> q = '''WITH big AS (SELECT * FROM lineitem WHERE l_quantity > 45)
...        SELECT o_orderkey FROM orders JOIN big ON o_orderkey = l_orderkey
...        WHERE l_shipdate >= DATE '1994-01-01' + INTERVAL '1' YEAR'''
>>> pushdown(q, "lineitem", ["l_quantity", "l_orderkey", "l_shipdate"]).predicate.sql()
"l_quantity > 45 AND l_shipdate >= DATE '1995-01-01'"

Rules (each keeps a row the query could need; anything not understood pushes nothing):

- WHERE conjuncts naming one source go to it; on the null-supplying side of an outer join only
  when the conjunct cannot be TRUE on a NULL-extended row (``x > 5``, not ``x IS NULL``).
- ON of an inner or semi join: as WHERE over the sources joined so far. ON of ``A LEFT JOIN B``
  goes to ``B`` only (rows of ``A`` failing it still come out, NULL-extended); RIGHT mirrors
  it; FULL pushes nothing; LEFT ANTI pushes to its right side only.
- A filter on a derived table or CTE goes inside with its output columns replaced by their
  expressions, unless the query there has LIMIT/OFFSET, window functions, QUALIFY, DISTINCT ON,
  LATERAL VIEW or generators; through GROUP BY only onto grouping keys (no ROLLUP/CUBE/GROUPING
  SETS), never onto aggregates or a global aggregate. HAVING conjuncts on grouping keys are
  WHERE conjuncts. UNION and INTERSECT pass a filter to every branch by position, EXCEPT to its
  left branch only.
- Subqueries in expressions (EXISTS, IN, scalar) are scans of their own, with their own WHERE;
  correlated conjuncts name an outer source and stay.
- An equality of two columns of two base-table sources, placed as a conjunct would be (WHERE,
  inner/semi ON, the null-supplying side's ON), is recorded as a ``JoinKey`` of each scan it
  constrains, and so is ``x IN (SELECT k FROM t ...)`` reading one base table; ``prunekit.joins``
  carries keys along them.
- A scan with TABLESAMPLE, PIVOT or a column alias list, under a recursive CTE, LATERAL, UNNEST,
  a table function or a parenthesised join, is read unfiltered; so is any scan of the table
  the walk did not reach (a final check over every table reference).
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass, field, replace

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError, TokenError
from sqlglot.optimizer.simplify import simplify

from prunekit.errors import PrunekitError, SqlSyntaxError, TableNotReadError, UnsupportedError
from prunekit.expr.binding.bind import bind
from prunekit.expr.syntax import nodes as n
from prunekit.expr.syntax.dialects import (
    SPARK,
    check_dialect,
    read_engine_numbers,
    syntax,
    warn_quoted_names,
    why_not_portable,
)
from prunekit.expr.syntax.sql import parse

_MARK = "\x00out"  # qualifier of a pushed conjunct's references to a query's output columns
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.Add, exp.Sub,
                exp.Mul, exp.Div)
_GENERATORS = tuple(getattr(exp, "SET_RETURNING_FUNCTIONS", ())) + (exp.Explode, exp.Unnest)


@dataclass(frozen=True)
class JoinKey:
    """An equality join of a scan with a scan of a base table: every row of the scan that
    matters to the result has ``column`` equal to ``key`` of some row of the other scan that
    matters (an inner or semi join, or the null-supplying side of an outer join, on ``=``).
    ``scan`` identifies the other scan (as its ``Pushdown.scan_ids`` entry does)."""

    column: str  # lower-case name in this table
    table: str  # the other table, lower case
    scan: int
    key: str  # lower-case name in the other table
    text: str  # the conjunct, as Spark SQL


class _CarriedKey(exp.Expression):
    """A join key pushed into a derived table or CTE (``_Scope.carry``): a pseudo-conjunct on
    the output column it keys (``this``), so that it moves in as filters do, through
    projections, UNION branches and grouping keys, to the scans it reaches. ``key`` is the
    ``JoinKey`` itself, as data; the column's name in the scan that receives it fills in
    ``JoinKey.column``. It is never a filter and never rendered as SQL."""

    arg_types = {"this": True, "key": True}


@dataclass
class Pushdown:
    """The result: ``predicate`` (a prunekit tree), per scan its conjuncts as SQL text (None:
    read unfiltered) and as trees (``conjuncts``), what identifies the scan in the query
    (``scan_ids``: a CTE read twice gives two scans with one id), its equality joins with
    scans of other tables (``joins``), and notes on what was not pushed and why."""

    table: str
    predicate: n.Node
    scans: list[tuple[str, ...] | None] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    conjuncts: list[tuple[n.Node, ...] | None] = field(default_factory=list)
    scan_ids: list[int] = field(default_factory=list)
    joins: list[tuple[JoinKey, ...]] = field(default_factory=list)


@dataclass
class _Source:
    alias: str
    kind: str  # "target", "query" or "other"
    node: exp.Expression
    env: dict | None = None
    outputs: dict | None = None  # query: lower name -> expression (None: ambiguous)
    star: bool = False  # query: may have more output columns than named (SELECT *)
    rename: dict | None = None  # alias column list: new name -> output name
    table: str | None = None  # other: a base table whose columns are known (lower name)


def pushdown(sql: str, table: str, schema, dialect: str = "spark") -> Pushdown:
    """The predicate a scan of ``table`` may be pruned with, for the whole query ``sql``.
    ``schema``: the table's columns (a pyarrow schema or names; names alone skip binding)."""
    tree = _parse_query(sql, dialect)
    if dialect.lower() in SPARK:
        warn_quoted_names(sql, set(_column_names(schema)))
    return _analyse(tree, table, schema, dialect, {})


def pushdowns(sql: str, schemas: dict, dialect: str = "spark") -> dict[str, Pushdown]:
    """``pushdown`` for each table of ``schemas`` (name to schema) that the query reads, keyed
    by lower-case name, over one parse of the query: each scan's ``joins`` name the other
    tables' scans by their ids. Knowing every table's columns also resolves unqualified names
    (``ss_sold_date_sk = d_date_sk``).

    >>> q = "SELECT count(*) FROM sales, dates WHERE s_date = d_key AND d_year = 2001"
    >>> found = pushdowns(q, {"sales": ["s_date"], "dates": ["d_key", "d_year"]})
    >>> found["dates"].scans
    [('d_year = 2001',)]
    >>> [(k.column, k.table, k.key) for k in found["sales"].joins[0]]
    [('s_date', 'dates', 'd_key')]
    """
    tree = _parse_query(sql, dialect)
    if dialect.lower() in SPARK:
        warn_quoted_names(sql, {c for s in schemas.values() for c in _column_names(s)})
    known = {name.split(".")[-1].lower(): {c.lower() for c in _column_names(schema)}
             for name, schema in schemas.items()}
    out = {}
    for name, schema in schemas.items():
        try:
            out[name.split(".")[-1].lower()] = _analyse(tree, name, schema, dialect, known)
        except TableNotReadError:
            continue
    return out


def tables_read(sql: str, dialect: str = "spark") -> list[str]:
    """The base tables the query reads, as written (a qualified name keeps its qualifiers),
    each once, in the order of their first reference. A name that is a CTE of the query is not
    a base table; a join hint (``/*+ BROADCAST(d) */``) names none.

    An ``UnsupportedError`` when the text reads tables some other way, or a CTE shares its name
    with a table the query reads (which one a reference means depends on where it stands):
    a table function other than ``range`` (``IDENTIFIER('t')``, ``TABLE(t)``).

    >>> tables_read("WITH w AS (SELECT * FROM a) SELECT /*+ BROADCAST(b) */ * FROM w "
    ...             "JOIN db.b ON w.k = b.k WHERE w.k IN (SELECT k FROM A)")
    ['a', 'db.b']
    >>> tables_read("SELECT * FROM IDENTIFIER('a')")
    Traceback (most recent call last):
    ...
    prunekit.errors.UnsupportedError: the query reads a table through IDENTIFIER('a')
    """
    tree = _parse_query(sql, dialect)
    ctes: dict[str, list[exp.CTE]] = {}
    for c in tree.find_all(exp.CTE):
        ctes.setdefault(c.alias.lower(), []).append(c)
    refs = []
    for t in tree.find_all(exp.Table):
        if t.find_ancestor(exp.Hint) is not None:
            continue
        if not isinstance(t.this, exp.Identifier):
            call = t.this
            if not (isinstance(call, exp.Anonymous) and call.name.lower() == "range"):
                raise UnsupportedError(f"the query reads a table through {call.sql('spark')}")
            continue
        refs.append(t)
    refs.sort(key=lambda t: t.this.meta.get("start", 0))  # the order of the text
    out: dict[str, str] = {}
    for t in refs:
        parts = [p.name for p in t.parts]
        name = ".".join(parts)
        if len(parts) == 1 and name.lower() in ctes:
            # The CTE, where its WITH can see it: its query, outside its own body.
            if not any(_within(t, c.parent.parent) and not _within(t, c)
                       for c in ctes[name.lower()]):
                raise UnsupportedError(f"{name!r} names a CTE and a table the query reads")
            continue
        out.setdefault(name.lower(), name)
    return list(out.values())


def _within(node: exp.Expression, scope: exp.Expression | None) -> bool:
    while node is not None:
        if node is scope:
            return True
        node = node.parent
    return False


def _parse_query(sql: str, dialect: str) -> exp.Query:
    dialect = check_dialect(dialect)
    try:
        trees = sqlglot.parse(sql, read=syntax(dialect))
    except (ParseError, TokenError) as e:
        first = (getattr(e, "errors", None) or [{}])[0]
        raise SqlSyntaxError(f"malformed SQL in query: {first.get('description') or e}",
                             first.get("line", 1), first.get("col", 1)) from None
    trees = [t for t in trees if t is not None]
    if len(trees) != 1 or not isinstance(trees[0], exp.Query):
        raise UnsupportedError("from_query needs exactly one SELECT query")
    return read_engine_numbers(trees[0], dialect)


def _column_names(schema) -> list[str]:
    return [f.name for f in schema] if hasattr(schema, "names") else list(schema)


def _analyse(tree: exp.Query, table: str, schema, dialect: str, known: dict) -> Pushdown:
    dialect = dialect.lower()
    names = _column_names(schema)
    walker = _Walker(table.split(".")[-1].lower(), {c.lower() for c in names}, dialect, known)
    walker.query(tree, {}, [])
    for t in tree.find_all(exp.Table):  # every scan of the table must have been seen
        if walker.is_target(t) and id(t) not in walker.visited:
            walker.unfiltered(t, "a reference the walk did not analyse")
    if not walker.scans:
        raise TableNotReadError(f"table {table!r} is not read by the query")
    return _result(walker, table, schema if hasattr(schema, "names") else None)


def _result(w: _Walker, table: str, schema) -> Pushdown:
    types = None if schema is None else {f.name.lower(): f.type for f in schema}
    out = Pushdown(table, n.Literal(True), notes=w.notes, scan_ids=w.scan_ids)
    alternatives: list[tuple[frozenset, n.Node]] = []
    for conjs, keys in zip(w.scans, w.scan_joins, strict=True):
        kept: dict[str, n.Node] = {}
        keys = list(keys)
        for c in conjs or ():
            if isinstance(c, _CarriedKey):  # a join key carried in from a query above
                if isinstance(c.this, exp.Column) and isinstance(c.this.this, exp.Identifier):
                    keys.append(replace(c.args["key"], column=c.this.name.lower()))
                continue
            text = _fold(_strip(c)).sql(dialect="spark")
            if why_not_portable(_strip(c), w.dialect, types) is not None:
                out.notes.append(f"not pushed: {text} (it may not mean in {w.dialect} what it "
                                 "means in Spark)")
                continue
            try:
                node = parse(text)
                if schema is not None:
                    bind(node, schema)
            except PrunekitError as e:
                out.notes.append(f"not pushed: {text} ({e})")
                continue
            kept.setdefault(node.sql(), node)
        out.scans.append(tuple(kept) or None)
        out.conjuncts.append(tuple(kept.values()) if kept else None)
        out.joins.append(tuple(dict.fromkeys(keys)))
        if kept:
            alt = n.and_(*kept.values()) if len(kept) > 1 else next(iter(kept.values()))
            alternatives.append((frozenset(kept), alt))
    # A OR (A AND B) is A: drop a scan's filter that contains another's.
    alternatives = [(k, a) for i, (k, a) in enumerate(alternatives) if not any(
        o < k or (o == k and j < i) for j, (o, _) in enumerate(alternatives))]
    if all(out.scans) and alternatives:
        nodes = [a for _, a in alternatives]
        out.predicate = nodes[0] if len(nodes) == 1 else n.or_(*nodes)
    return out


class _Walker:
    def __init__(self, table: str, columns: set[str], dialect: str, known: dict):
        self.table, self.columns, self.dialect = table, columns, dialect
        self.known = known  # every table given: lower name -> lower column names
        self.scans: list[list[exp.Expression] | None] = []
        self.scan_ids: list[int] = []
        self.scan_joins: list[list[JoinKey]] = []
        self.notes: list[str] = []
        self.visited: set[int] = set()

    def is_target(self, t: exp.Table) -> bool:
        # Liberal on purpose: ``other_db.lineitem`` counts as a scan too (one more OR branch).
        return isinstance(t.this, exp.Identifier) and t.name.lower() == self.table

    def unfiltered(self, node: exp.Expression, why: str) -> None:
        self.visited.add(id(node))
        self.scans.append(None)
        self.scan_ids.append(id(node))
        self.scan_joins.append([])
        self.notes.append(f"a scan of {self.table} is read unfiltered: {why}")

    def note_dropped(self, pushed: list, why: str) -> None:
        """Note filters from above that stop here; carried join keys are not filters."""
        if any(not isinstance(c, _CarriedKey) for c in pushed):
            self.notes.append(why)

    # ---- queries -----------------------------------------------------------------------
    def query(self, q: exp.Expression, env: dict, pushed: list) -> None:
        if isinstance(q, exp.Subquery):
            if pushed and any(q.args.get(k) for k in ("limit", "offset", "fetch")):
                self.note_dropped(pushed, "not pushed below a LIMIT/OFFSET")
                pushed = []
            return self.query(q.this, env, pushed)
        w = q.args.get("with_")
        if w is not None:
            if w.args.get("recursive"):
                return self.taint(q, env, "recursive CTE")
            env = dict(env)
            for cte in w.expressions:
                cols = [c.name.lower() for c in cte.args["alias"].columns]
                env[cte.alias_or_name.lower()] = (cte.this, dict(env), cols)
        if isinstance(q, exp.Select):
            return self.select(q, env, pushed)
        if isinstance(q, exp.SetOperation):
            return self.setop(q, env, pushed)
        return self.taint(q, env, f"unsupported {q.key}")

    def taint(self, node: exp.Expression, env: dict, why: str) -> None:
        """Scans inside a construct not analysed: read unfiltered; a CTE used there is analysed
        without filters from outside."""
        for t in node.find_all(exp.Table):
            if id(t) in self.visited:
                continue
            if not t.args.get("db") and t.name.lower() in env:
                self.visited.add(id(t))
                body, cenv, _ = env[t.name.lower()]
                self.query(body, cenv, [])
            elif self.is_target(t):
                self.unfiltered(t, why)

    def setop(self, q: exp.SetOperation, env: dict, pushed: list) -> None:
        if pushed and any(q.args.get(k) for k in ("limit", "offset", "fetch")):
            self.note_dropped(pushed, "not pushed below a LIMIT/OFFSET")
            pushed = []
        names = _names(q)
        for branch in (q.this, q.expression):
            mine = _names(branch)
            if isinstance(q, exp.Except) and branch is q.expression:
                self.query(branch, env, [])
            elif names is None or mine is None or len(mine) != len(names):
                self.note_dropped(pushed, f"not pushed into a {q.key} branch with SELECT *")
                self.query(branch, env, [])
            else:
                pos = {}
                for i, name in enumerate(names):
                    pos.setdefault(name, i)
                self.query(branch, env, [c for c in (_remark(c, pos, mine) for c in pushed) if c])

    def select(self, q: exp.Select, env: dict, pushed: list) -> None:
        joins = q.args.get("joins") or []
        items = ([q.args["from_"].this] if q.args.get("from_") else []) + [j.this for j in joins]
        sources = [self.source(item, env) for item in items]
        for key, value in q.args.items():
            if key == "laterals" and value:
                for lat in value:
                    self.taint(lat, env, "LATERAL VIEW")
            elif key not in ("from_", "with_", "joins"):
                for sub in _inner_queries(value):
                    self.query(sub, env, [])
        for j in joins:
            for sub in _inner_queries(j.args.get("on")):
                self.query(sub, env, [])
        using = {i.name.lower() for j in joins for i in j.args.get("using") or ()}
        natural = any(j.args.get("method") for j in joins)
        scope = _Scope(self, sources, using, natural, env)
        filters: list[list] = [[] for _ in sources]
        nullable = [False] * len(sources)
        for k, j in enumerate(joins, 1):
            side, kind = (j.side or "").upper(), (j.kind or "").upper()
            on = _conjuncts(j.args.get("on"))
            if j.args.get("method"):  # NATURAL, ASOF, POSITIONAL: nothing assumed
                nullable = [True] * len(sources)
            elif kind in ("SEMI", "ANTI") and side in ("", "LEFT"):
                allowed = range(k + 1) if kind == "SEMI" else (k,)
                scope.place(on, allowed, nullable, filters)
                scope.hidden.add(k)  # the right side's columns are out of scope after its ON
            elif not side and kind in ("", "INNER", "CROSS"):
                scope.place(on, range(k + 1), nullable, filters)
            elif side == "LEFT" and kind in ("", "OUTER"):
                scope.place(on, (k,), nullable, filters)
                nullable[k] = True
            elif side == "RIGHT" and kind in ("", "OUTER"):
                scope.place(on, range(k), nullable, filters)
                nullable[:k] = [True] * k
            else:  # FULL or unknown
                nullable = [True] * len(sources)
        where = q.args.get("where")
        local = _conjuncts(where.this if where else None)
        local += self.having(q, scope) + self.through(q, scope, pushed)
        scope.place(local, range(len(sources)), nullable, filters)
        for src, conjs, keys in zip(sources, filters, scope.joins, strict=True):
            if src.kind == "target":
                self.visited.add(id(src.node))
                self.scans.append(conjs)
                self.scan_ids.append(id(src.node))
                self.scan_joins.append(keys)
            elif src.kind == "query":
                marked = [_mark(c, src) for c in conjs]
                self.query(src.node, src.env, [c for c in marked if c is not None])

    def source(self, item: exp.Expression, env: dict) -> _Source:
        alias = item.alias_or_name.lower()
        tail = item.args.get("alias")
        cols = [c.name.lower() for c in tail.columns] if isinstance(tail, exp.TableAlias) else []
        if isinstance(item, exp.Table) and isinstance(item.this, exp.Identifier) and \
                not item.args.get("joins"):
            name = item.name.lower()
            if not item.args.get("db") and name in env:
                self.visited.add(id(item))
                body, cenv, ccols = env[name]
                if item.args.get("pivots") or item.args.get("sample"):
                    self.query(body, cenv, [])
                    return _Source(alias, "other", item)
                return self._derived(alias, body, cenv, cols or ccols)
            if self.is_target(item):
                odd = [k for k in ("sample", "pivots", "version", "when") if item.args.get(k)]
                if odd or cols:
                    self.unfiltered(item, f"{(odd or ['column aliases'])[0]} on the scan")
                    return _Source(alias, "other", item)
                return _Source(alias, "target", item)
            base = None if item.args.get("db") or name not in self.known else name
            return _Source(alias, "other", item, table=base)
        if isinstance(item, exp.Subquery) and isinstance(item.this, exp.Query) and \
                not item.args.get("pivots"):
            return self._derived(alias, item, env, cols)
        self.taint(item, env, f"{item.key} in FROM")
        return _Source(alias, "other", item)

    def _derived(self, alias: str, body: exp.Expression, env: dict, cols: list) -> _Source:
        inner = body.this if isinstance(body, exp.Subquery) else body
        src = _Source(alias, "query", body, env, {})
        names = _names(inner)
        if isinstance(inner, exp.Select):
            for p in inner.selects:
                if _is_star(p):
                    src.star = True
                elif p.alias_or_name:
                    key = p.alias_or_name.lower()
                    src.outputs[key] = None if key in src.outputs else p.unalias()
        elif names is not None:
            src.outputs = {name: None for name in names}
        if src.star:  # columns a star certainly passes through, for resolving names
            src.outputs = {**dict.fromkeys(self._star_names(inner, env, 0)), **src.outputs}
        if cols:  # (SELECT ...) AS s(a, b): renamed by position
            if names is None or len(names) != len(cols):
                return _Source(alias, "query", body, env, {}, False, {})
            src.rename = dict(zip(cols, names, strict=True))
            src.outputs = {c: src.outputs.get(o) for c, o in src.rename.items()}
            src.star = False
        return src

    def _star_names(self, sel: exp.Select, env: dict, depth: int) -> set[str]:
        """Names the stars of ``sel`` certainly output (the table's columns through a star
        over its scan, recursively through CTEs and derived tables)."""
        out: set[str] = set()
        if depth > 16:
            return out
        w = sel.args.get("with_")
        if w is not None:
            env = dict(env)
            for cte in w.expressions:
                cols = [c.name.lower() for c in cte.args["alias"].columns]
                env[cte.alias_or_name.lower()] = (cte.this, dict(env), cols)
        joins = sel.args.get("joins") or []
        items = ([sel.args["from_"].this] if sel.args.get("from_") else []) + [
            j.this for j in joins if (j.kind or "").upper() not in ("SEMI", "ANTI")]
        for st in (p for p in sel.selects if _is_star(p)):
            qual = st.table.lower() if isinstance(st, exp.Column) else None
            for item in items:
                if qual and item.alias_or_name.lower() != qual:
                    continue
                tail = item.args.get("alias")
                cols = [c.name.lower() for c in tail.columns] if tail else []
                inner = item.this if isinstance(item, exp.Subquery) else None
                if isinstance(item, exp.Table) and isinstance(item.this, exp.Identifier):
                    name = item.name.lower()
                    if not item.args.get("db") and name in env:
                        body, cenv, ccols = env[name]
                        out |= set(cols or ccols or self._names_of(body, cenv, depth + 1))
                    elif self.is_target(item) and not item.args.get("pivots"):
                        out |= set(cols) if cols else self.columns
                elif isinstance(inner, exp.Query):
                    out |= set(cols or self._names_of(inner, env, depth + 1))
        return out

    def _names_of(self, q: exp.Expression, env: dict, depth: int) -> set[str]:
        while isinstance(q, (exp.Subquery, exp.SetOperation)):
            q = q.this
        if not isinstance(q, exp.Select):
            return set()
        named = {p.alias_or_name.lower() for p in q.selects if not _is_star(p)}
        return named | self._star_names(q, env, depth)

    # ---- filters entering a SELECT from above, and HAVING --------------------------------
    def through(self, q: exp.Select, scope: _Scope, pushed: list) -> list:
        """Pushed conjuncts (over q's outputs) as conjuncts over q's FROM, where they commute."""
        if not pushed:
            return []
        why = _blocks(q)
        if why:
            self.note_dropped(pushed, f"not pushed below {why}")
            return []
        outs: dict = {}
        stars = [p for p in q.selects if _is_star(p)]
        # One star passes its source's columns through under their names; ``o.*`` only o's.
        star = len(stars) == 1
        qual = stars[0].table if star and isinstance(stars[0], exp.Column) else None
        for p in q.selects:
            if p.alias_or_name and not _is_star(p):
                key = p.alias_or_name.lower()
                outs[key] = None if key in outs else p.unalias()
        keys = _group_keys(q)
        out = []
        for c in pushed:
            ok = True

            def sub(x: exp.Expression) -> exp.Expression:
                nonlocal ok
                if not (isinstance(x, exp.Column) and x.table == _MARK):
                    return x
                name = x.name.lower()
                e = outs.get(name) if name in outs else (exp.column(
                    x.this.copy(), table=qual) if star else None)
                if e is None or (keys is not None and not scope.is_key(e, keys)):
                    ok = False
                    return x
                return e.copy()

            new = c.copy().transform(sub)
            if ok:
                out.append(new)
            elif not isinstance(c, _CarriedKey):
                self.notes.append(f"not pushed onto an aggregate or unknown output: "
                                  f"{_strip(c).sql()}")
        return out

    def having(self, q: exp.Select, scope: _Scope) -> list:
        h, keys = q.args.get("having"), _group_keys(q)
        if h is None:
            return []
        aliases = {p.alias.lower(): p.unalias() for p in q.selects if isinstance(p, exp.Alias)}
        out = []
        for c in _conjuncts(h.this):
            ok = keys is not None and not c.find(exp.AggFunc, exp.Window, exp.Query)
            for col in list(c.find_all(exp.Column)) if ok else ():
                e = col
                if not col.table and col.name.lower() in aliases:
                    e = aliases[col.name.lower()]
                    # a name that is both a column and an alias: which one is read is moot
                    ok = ok and (scope.resolve(col) is None or e == col)
                ok = ok and scope.is_key(e, keys)
            if ok:
                out.append(c.transform(lambda x: aliases[x.name.lower()].copy() if isinstance(
                    x, exp.Column) and not x.table and x.name.lower() in aliases else x))
            else:
                self.notes.append(f"HAVING not pushed (aggregate or not a grouping key): "
                                  f"{c.sql()}")
        return out


class _Scope:
    """Column resolution inside one SELECT (innermost scope first, as SQL does)."""

    def __init__(self, w: _Walker, sources: list[_Source], using: set, natural: bool,
                 env: dict):
        self.w, self.sources, self.using, self.natural = w, sources, using, natural
        self.env = env  # CTE names, which shadow tables in subqueries
        self.hidden: set[int] = set()
        self.joins: list[list[JoinKey]] = [[] for _ in sources]  # per source, found by place

    def has(self, s: _Source, name: str) -> bool:
        if s.kind == "target":
            return name in self.w.columns
        if s.kind == "other":
            return s.table is not None and name in self.w.known[s.table]
        return name in s.outputs

    def resolve(self, col: exp.Column) -> int | None:
        if col.args.get("db") or col.args.get("catalog") or col.table == _MARK or \
                not isinstance(col.this, exp.Identifier):
            return None
        name = col.name.lower()
        if col.table:
            hits = [i for i, s in enumerate(self.sources)
                    if s.alias == col.table.lower() and i not in self.hidden]
            if len(hits) != 1:
                return None  # an outer (correlated) reference, or ambiguous
            s = self.sources[hits[0]]
            return hits[0] if self.has(s, name) or s.kind == "other" or s.star else None
        if self.natural or name in self.using:
            return None  # USING/NATURAL columns may be merged from both sides
        # A valid query names a column unqualified only if one source has it.
        hits = [i for i, s in enumerate(self.sources) if self.has(s, name) and
                i not in self.hidden]
        return hits[0] if len(hits) == 1 else None

    def refs(self, c: exp.Expression) -> set[int] | None:
        if c.find(exp.AggFunc, exp.Window, exp.Query, exp.Subquery, exp.Placeholder, *_GENERATORS):
            return None
        out = set()
        for col in c.find_all(exp.Column):
            i = self.resolve(col)
            if i is None:
                return None
            out.add(i)
        return out

    def is_key(self, e: exp.Expression, keys: list) -> bool:
        if any(e == k for k in keys):
            return True
        if isinstance(e, exp.Column):
            me = self.resolve(e)
            return me is not None and any(
                isinstance(k, exp.Column) and k.name.lower() == e.name.lower() and
                self.resolve(k) == me for k in keys)
        return False

    def place(self, conjs: list, allowed, nullable: list, filters: list) -> None:
        allowed = set(allowed)
        for c in conjs:
            self.in_key(c, allowed, filters)
            refs = self.refs(c)
            if refs is not None and len(refs) == 2:
                self.join_key(c, allowed, filters)
            if refs is None or len(refs) != 1:
                continue  # several sources, an outer reference, a subquery: stays above
            (i,) = refs
            if i in allowed and (not nullable[i] or _never_true_on_nulls(c)):
                filters[i].append(c)


    def in_key(self, c: exp.Expression, allowed: set, filters: list) -> None:
        """``x IN (SELECT k FROM t WHERE ...)`` or ``x = (SELECT k FROM t ...)`` as a
        conjunct: a semi join of x's scan with that scan of ``t``, when the subquery reads one
        base table and outputs a plain column of it (its rows, grouped, distinct or limited,
        hold only keys of rows passing that scan's conjuncts; a scalar subquery without a row
        is NULL, which equals nothing)."""
        if isinstance(c, exp.In) and isinstance(c.args.get("query"), exp.Subquery):
            col, sub = c.this, c.args["query"]
        elif isinstance(c, exp.EQ) and isinstance(c.expression, exp.Subquery):
            col, sub = c.this, c.expression
        elif isinstance(c, exp.EQ) and isinstance(c.this, exp.Subquery):
            col, sub = c.expression, c.this
        else:
            return
        if not isinstance(col, exp.Column):
            return
        i, q = self.resolve(col), sub.this
        if i is None or i not in allowed or not isinstance(q, exp.Select) or \
                q.args.get("joins") or q.args.get("laterals") or len(q.selects) != 1 or \
                not q.args.get("from_"):
            return
        t, out = q.args["from_"].this, q.selects[0].unalias()
        if not (isinstance(t, exp.Table) and isinstance(t.this, exp.Identifier) and
                not t.args.get("db") and isinstance(out, exp.Column) and
                isinstance(out.this, exp.Identifier)) or out.table and \
                out.table.lower() != t.alias_or_name.lower():
            return
        name = t.name.lower()
        columns = self.w.columns if name == self.w.table else self.w.known.get(name, set())
        if name in self.env or out.name.lower() not in columns:
            return  # a CTE of that name, or not one of the table's columns
        self.carry(i, col, JoinKey("", name, id(t), out.name.lower(),
                                   _strip(c).sql(dialect="spark")), filters)

    def join_key(self, c: exp.Expression, allowed: set, filters: list) -> None:
        """Record ``a.x = b.y`` between a scan (or a derived table) and a scan of a base table
        for each side in ``allowed``: rows that matter there pass the conjunct, which is FALSE
        or NULL unless the other side is a row of its table with an equal key (never TRUE on a
        NULL-extended row)."""
        while isinstance(c, exp.Paren):
            c = c.this
        if not isinstance(c, exp.EQ):
            return
        sides = [c.this, c.expression]
        while any(isinstance(x, exp.Paren) for x in sides):
            sides = [x.this if isinstance(x, exp.Paren) else x for x in sides]
        if not all(isinstance(x, exp.Column) for x in sides):
            return
        at = [self.resolve(x) for x in sides]
        if None in at or at[0] == at[1]:
            return
        text = _strip(c).sql(dialect="spark")
        for me, other in ((0, 1), (1, 0)):
            theirs = self.sources[at[other]]
            table = self.w.table if theirs.kind == "target" else theirs.table
            if at[me] in allowed and table is not None:
                self.carry(at[me], sides[me], JoinKey("", table, id(theirs.node),
                                                      sides[other].name.lower(), text), filters)

    def carry(self, i: int, col: exp.Column, key: JoinKey, filters: list) -> None:
        """A join key onto source ``i``: recorded for a scan of the table; for a derived table
        or CTE, a conjunct on its output column, pushed in as filters are (through
        projections, UNION branches and grouping keys) to the scans it reaches."""
        src = self.sources[i]
        if src.kind == "target":
            self.joins[i].append(replace(key, column=col.name.lower()))
        elif src.kind == "query":
            filters[i].append(_CarriedKey(this=col.copy(), key=key))


# ---- helpers ---------------------------------------------------------------------------

def _conjuncts(e: exp.Expression | None) -> list:
    out, stack = [], [e] if e is not None else []
    while stack:
        x = stack.pop()
        if isinstance(x, exp.Paren):
            stack.append(x.this)
        elif isinstance(x, exp.And):
            stack.extend([x.expression, x.this])
        else:
            out.append(x)
    return out


def _inner_queries(value) -> list:
    """Queries inside an expression (or list), not descending into them."""
    out, stack = [], list(value) if isinstance(value, list) else [value]
    while stack:
        x = stack.pop()
        if isinstance(x, (exp.Query, exp.Subquery)):
            out.append(x)
        elif isinstance(x, exp.Expression):
            stack.extend(x.iter_expressions())
    return out


def _is_star(p: exp.Expression) -> bool:
    return isinstance(p, exp.Star) or isinstance(p, exp.Column) and isinstance(p.this, exp.Star)


def _names(q: exp.Expression) -> list[str] | None:
    """Output column names by position (the leftmost branch names a set operation)."""
    while isinstance(q, (exp.Subquery, exp.SetOperation)):
        q = q.this
    if not isinstance(q, exp.Select) or any(_is_star(p) for p in q.selects):
        return None
    return [p.alias_or_name.lower() for p in q.selects]


def _blocks(q: exp.Select) -> str | None:
    if any(q.args.get(k) for k in ("limit", "offset", "fetch")):
        return "a LIMIT/OFFSET"
    d = q.args.get("distinct")
    if d is not None and d.args.get("on"):
        return "DISTINCT ON"
    if q.args.get("qualify") or q.args.get("windows") or any(p.find(exp.Window)
                                                             for p in q.selects):
        return "a window function"
    if q.args.get("laterals") or any(p.find(*_GENERATORS) for p in q.selects):
        return "a generator (LATERAL VIEW, explode)"
    if _group_keys(q) is None and _aggregates(q):
        return "an aggregate"
    return None


def _aggregates(q: exp.Select) -> bool:
    return bool(q.args.get("group") or q.args.get("having")) or any(
        a.find_ancestor(exp.Window) is None for p in q.selects for a in p.find_all(exp.AggFunc))


def _group_keys(q: exp.Select) -> list | None:
    """GROUP BY expressions (ordinals resolved); None without a plain GROUP BY."""
    g = q.args.get("group")
    if g is None or any(g.args.get(k) for k in ("rollup", "cube", "grouping_sets", "totals")):
        return None
    keys = []
    for k in g.expressions:
        if isinstance(k, exp.Literal) and not k.is_string and k.this.isdigit():
            i = int(k.this) - 1
            if 0 <= i < len(q.selects):
                keys.append(q.selects[i].unalias())
        elif not isinstance(k, (exp.Rollup, exp.Cube, exp.GroupingSets)):
            keys.append(k)
        else:
            return None
    return keys or None


def _mark(c: exp.Expression, src: _Source) -> exp.Expression | None:
    """A conjunct over a derived source's columns, as references to that query's outputs."""
    ok = True

    def sub(x: exp.Expression) -> exp.Expression:
        nonlocal ok
        if not isinstance(x, exp.Column):
            return x
        name = x.name.lower()
        if src.rename is not None:
            name = src.rename.get(name)
            ok = ok and name is not None
        return exp.column(exp.to_identifier(name or "?"), table=exp.to_identifier(_MARK))

    out = c.copy().transform(sub)
    return out if ok else None


def _remark(c: exp.Expression, pos: dict, mine: list) -> exp.Expression | None:
    """A pushed conjunct over a set operation's outputs, renamed for one branch by position."""
    ok = True

    def sub(x: exp.Expression) -> exp.Expression:
        nonlocal ok
        if isinstance(x, exp.Column) and x.table == _MARK:
            i = pos.get(x.name.lower())
            if i is None or not mine[i]:
                ok = False
                return x
            return exp.column(exp.to_identifier(mine[i]), table=exp.to_identifier(_MARK))
        return x

    out = c.copy().transform(sub)
    return out if ok else None


def _strip(c: exp.Expression) -> exp.Expression:
    return c.copy().transform(
        lambda x: exp.column(x.this.copy()) if isinstance(x, exp.Column) else x)


def _nullish(e: exp.Expression) -> bool:
    """NULL whenever the columns it names are NULL (they all belong to one source)."""
    if isinstance(e, exp.Column):
        return True
    if isinstance(e, (exp.Paren, exp.Neg, exp.Cast, exp.Not, exp.Between, exp.In, _CarriedKey)):
        return _nullish(e.this)  # x BETWEEN a AND b, x IN (...): NULL when x is
    if isinstance(e, exp.Escape):
        return _nullish(e.this)
    if isinstance(e, _COMPARISONS):
        return _nullish(e.this) or _nullish(e.expression)
    return False


def _never_true_on_nulls(c: exp.Expression) -> bool:
    """Cannot be TRUE on a row NULL-extended by an outer join (syntactic null rejection)."""
    if isinstance(c, exp.Paren):
        return _never_true_on_nulls(c.this)
    if isinstance(c, exp.And):
        return _never_true_on_nulls(c.this) or _never_true_on_nulls(c.expression)
    if isinstance(c, exp.Or):
        return _never_true_on_nulls(c.this) and _never_true_on_nulls(c.expression)
    if isinstance(c, exp.Not) and isinstance(c.this, exp.Is) and \
            isinstance(c.this.expression, exp.Null):
        return _nullish(c.this.this)  # x IS NOT NULL
    return _nullish(c)


def _fold(c: exp.Expression) -> exp.Expression:
    """Fold constant date and decimal arithmetic (``DATE '1994-01-01' + INTERVAL '1' YEAR``,
    ``0.06 - 0.01``). Date folding is sqlglot's simplify, accepted only when it yields a typed
    literal; numbers are folded here, exactly, within INT range for integers."""
    def fold(x: exp.Expression) -> exp.Expression:
        if not isinstance(x, (exp.Add, exp.Sub, exp.Mul)) or x.find(exp.Column):
            return x
        a, b = _number(x.this), _number(x.expression)
        if a is not None and b is not None:
            v = a + b if isinstance(x, exp.Add) else a - b if isinstance(x, exp.Sub) else a * b
            if all(isinstance(t, int) for t in (a, b)) and not -2**31 <= v < 2**31:
                return x
            lit = exp.Literal.number(str(abs(v)))
            return exp.Neg(this=lit) if v < 0 else lit
        if isinstance(x, exp.Mul) or not x.find(exp.Interval):
            return x
        try:
            y = simplify(x.copy())
        except SqlglotError:
            return x
        typed = isinstance(y, exp.Cast) and isinstance(y.this, exp.Literal) and \
            y.this.is_string and y.to.this in (exp.DataType.Type.DATE,)
        return y if typed else x

    for _ in range(8):
        before = c.sql()
        c = c.transform(fold)
        if c.sql() == before:
            break
    return c


def _number(e: exp.Expression):
    neg = False
    while isinstance(e, (exp.Paren, exp.Neg)):
        neg ^= isinstance(e, exp.Neg)
        e = e.this
    if not isinstance(e, exp.Literal) or e.is_string or "e" in e.this.lower():
        return None
    v = decimal.Decimal(e.this) if "." in e.this else int(e.this)
    return -v if neg else v
