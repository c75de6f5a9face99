"""SQL from other engines: what a predicate written in another dialect may contain so that its
rows are the ones Spark's semantics give, and Spark's double-quote pitfall.

prunekit's rules are Spark's. Text in another dialect is parsed by sqlglot with that dialect
(so its identifier quoting and case rules apply: ``"l_shipmode"`` is a column in DuckDB,
PostgreSQL, Trino and Snowflake, a string in Spark and BigQuery) and then read with Spark's rules
only where every construct means the same in both. Where the dialects part ways, the smallest
boolean part holding the construct (a comparison, a LIKE, a term of an AND, OR or NOT) becomes an
unknown leaf, named in ``explain()``, rather than be read as Spark would read it; the rest of the
predicate still prunes:

================  ======================================================================
construct          why other dialects differ
================  ======================================================================
``/``, ``%``       integer division in PostgreSQL, Trino, DuckDB's ``//``; Spark divides in DOUBLE
string literals    against a non-string column: each dialect coerces its own way; ordered
                   (``<``) against a string column: collations (PostgreSQL's locale order)
number exponents   ``1e3`` is DOUBLE in Spark, NUMERIC in PostgreSQL
wide numbers       beyond 38 digits Spark rounds a DECIMAL into a smaller scale, others
                   compare exactly; a long fraction may become another DOUBLE elsewhere
floats             Trino and BigQuery compare NaN as IEEE does (never equal, never greater);
                   Spark, DuckDB, PostgreSQL and Snowflake put NaN above every number; a
                   FLOAT column meets a number as a DOUBLE in Spark only
functions, casts   names, argument types and time zones differ; only ``CAST('...' AS DATE)``
                   and ``DATE '...'`` are read
LIKE, ILIKE        escapes and case rules differ
``+ - *``          result types and overflow differ
================  ======================================================================

What is accepted everywhere: columns (struct fields too), numbers without an exponent, ``DATE``
literals, ``TRUE``/``FALSE``/``NULL``, a string compared by ``=``, ``<>`` or ``IN`` with a
string column, ``= <> < <= > >=``, ``AND``, ``OR``, ``NOT``, ``IN``, ``BETWEEN``, ``IS [NOT]
NULL``, unary minus. Identifier case: names resolve as Spark's do (exact, else the one
case-insensitive match), which is what a quoted name in PostgreSQL or Snowflake means when the
schema has no two names differing only in case.

What an engine reads as Spark does beyond that is data, one ``Engine`` per dialect
(``ENGINES``), each entry checked against that engine's own rows where the engine is at hand
(DuckDB, DataFusion: tests/expr/test_dialects.py). DuckDB agrees with Spark on more than the
others: NaN's order, ``1e3`` as a DOUBLE, strings ordered by their UTF-8 bytes, ``LIKE`` with a
pattern free of backslashes (``%`` and ``_`` per character, case-sensitive, newlines matched),
an integer or DOUBLE column divided by a nonzero whole number (DOUBLE division in both; DuckDB
divides a FLOAT in FLOAT), ``+ - *`` of integers (exact in both wherever neither overflows;
DuckDB fails the query where one does, which then returns no row to protect), ``IS [NOT]
DISTINCT FROM``, ``year``, ``month`` and ``day`` of a DATE column, ``abs`` of an integer or
DOUBLE column, ``CAST`` of an integer column to BIGINT or DOUBLE, a string column's first ``k``
characters (``substring(s, 1, k)``, ``left(s, k)``, ``k`` a positive whole number), ``ILIKE``
with an ASCII pattern free of ``i`` and ``_``, ``CURRENT_DATE`` plus or minus whole days
against DATE columns, and, in UTC, a ``TIMESTAMP '...'`` wall time against a TIMESTAMP column
without a zone and ``date_trunc`` of one by a unit spelled out.

``dialect="datafusion"`` is PostgreSQL's syntax (``SYNTAX``) with DataFusion 55's semantics,
much as DuckDB's, except: ``1.5`` is a DOUBLE there and ``5`` a BIGINT (``read_engine_numbers``
writes them as such, or a fraction as the DECIMAL DataFusion compares a DECIMAL column with),
an integer divided by an integer truncates (unknown), a FLOAT column against a DOUBLE compares
in DOUBLE as in Spark, ``+ - *`` with a DOUBLE is IEEE 754's as in Spark, the right side of
``IS [NOT] DISTINCT FROM`` runs to the end of its parentheses, an IN list of numbers with a 0
may tell 0 from -0.0 (read but for the zero's sign: ``split_zero_items``) and a NULL in a list
is dropped where its optimizer merges the list with another on its column. In UTC it also
reads the date of a TIMESTAMP and the midnight of a DATE as Spark does
(``timestamps_as_dates``), a ``'yyyy-mm-dd'`` string compared with a DATE as that DATE, and
TIMESTAMP literals and strings against TIMESTAMP columns as its casts make them
(``read_timestamp_literals``).

>>> read_predicate('"Ship Mode" = \\'AIR\\' AND qty > 5', "postgres", {"ship mode": "string",
...                                                                     "qty": "int"}).sql()
"`Ship Mode` = 'AIR' AND qty > 5"
>>> read_predicate("qty / 2 > 5 AND qty < 9", "trino", {"qty": "int"}).display()
'<trino reads qty / 2 otherwise than Spark: qty / 2 > 5> AND qty < 9'
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from prunekit.errors import SqlSyntaxError, TypeMismatchError, UnsupportedError
from prunekit.expr.paths import leaf_key
from prunekit.expr.spark_types.engines import (
    ENGINES,
    LISTED,
    SPARK,
    SYNTAX,
    Engine,
    check_dialect,
    engine,
    syntax,
)
from prunekit.expr.syntax import nodes as n
from prunekit.expr.syntax.column_terms import (
    BOTH_WAYS,
    LEFT_BOUND,
    ZEROS_APART,
    both_ways,
    bounds_one_way,
    left_bound_dropped,
)
from prunekit.expr.syntax.engine_lists import (
    mark_compared_kinds,
    never_true_betweens,
    split_decimal_cast_betweens,
)
from prunekit.expr.syntax.engine_literals import (
    arrow_decimal_doubles,
    bounds_in_one_type,
    drop_integer_casts,
    floats_against_integers,
    fold_null_comparisons,
    identity_arithmetic,
    integer_divisions,
    read_date_strings,
    read_engine_numbers,
    read_timestamp_literals,
    respell_like_escapes,
    split_null_bounds,
    split_zero_items,
)
from prunekit.expr.syntax.engine_operands import is_arrow_cast, is_unknown_part, unknown_part
from prunekit.expr.syntax.list_merges import (
    AT_LEAST_WRITTEN,
    AT_MOST_WRITTEN,
    BUT_AT_ZERO,
    EXACT_BUT_NULL,
    MERGED_LIST,
    NONE_OF,
    NULL_ITEMS_OPTIONAL,
    NULL_KEPT,
    NULL_SIDE,
    OWN_EQUALITY,
    mark_exact_merges,
    merged_at_null,
    without_values,
)
from prunekit.expr.syntax.negations import wrapping_negations
from prunekit.expr.syntax.optimizer_terms import ancestors
from prunekit.expr.syntax.portability import unportable_parts, why_not_portable
from prunekit.expr.syntax.signed_nans import nan_rows_unknown

# The engine table (``spark_types.engines``), the rewrites (``engine_literals``) and the checks
# (``portability``) live in their own modules; their public names are read from here too.
__all__ = ["ENGINES", "LISTED", "SPARK", "SYNTAX", "Engine", "check_dialect", "column_names",
           "engine", "read_engine_numbers", "read_predicate", "syntax", "warn_quoted_names",
           "why_not_portable"]


def column_names(text: str, dialect: str = "spark") -> set[str] | None:
    """The top-level columns a predicate's text names (a struct field's struct), lower-cased
    and spelt as statistics keys (``prunekit.expr.paths.leaf_key``), so that a reader fetches
    only their statistics; None when the text does not parse (read every column: the
    predicate's own parse then says what is wrong). The text of every string literal is
    named too: in Spark a double-quoted ``"x"`` is a string, and the warning that it is not
    the column x needs x's statistics to know the column is there.

    >>> sorted(column_names("address.city = 'Oslo' AND X > 1 AND `a.b` < 2"))
    ['`a.b`', 'address', 'oslo', 'x']
    >>> column_names("x >") is None
    True
    """
    try:
        tree = sqlglot.parse_one(text, read=syntax(check_dialect(dialect)))
    except (ParseError, TokenError):
        return None
    names = [col.parts[0].name for col in tree.find_all(exp.Column) if col.parts]
    names += [lit.this for lit in tree.find_all(exp.Literal) if lit.is_string and lit.this]
    return {leaf_key((name,)).lower() for name in names}


def read_predicate(text: str, dialect: str, types: Mapping[str, object] | None, *,
                   time_zone: str | None = None) -> n.Node:
    """A predicate in ``dialect`` as a tree read with Spark's rules, each part that may not
    mean in ``dialect`` what it means in Spark made an unknown leaf (``nodes.Opaque``): the
    smallest boolean part holding the construct, named in ``explain()``. Errors stay errors:
    text the dialect cannot parse, an unknown column (an unknown leaf's columns are still
    resolved) and a predicate that is surely not a boolean. ``time_zone``: the session zone the
    predicate is read in (``PruningPredicate``'s), where a construct depends on it.

    >>> read_predicate('"Ship Mode" = \\'AIR\\' AND qty > 5', "postgres", {"ship mode": "string",
    ...                                                                   "qty": "int"}).sql()
    "`Ship Mode` = 'AIR' AND qty > 5"
    >>> explained = read_predicate("x ILIKE 'i%' OR x = 'b'", "duckdb", {"x": "string"})
    >>> explained.display()
    "<duckdb reads x ILIKE 'i%' otherwise than Spark: x ILIKE 'i%'> OR x = 'b'"
    """
    from prunekit.expr.syntax.sql import parse

    dialect = check_dialect(dialect)
    if dialect in SPARK:
        return parse(text)
    try:
        tree = sqlglot.parse_one(text, read=syntax(dialect))
    except (ParseError, TokenError) as e:
        first = (getattr(e, "errors", None) or [{}])[0]
        raise SqlSyntaxError(f"malformed SQL in {dialect}: {first.get('description') or e}",
                             first.get("line", 1), first.get("col", 1)) from None
    if tree is None:
        raise SqlSyntaxError(f"not a single boolean expression: {text!r}", 1, 1)
    if not engine(dialect).null_in_lists:  # as the engine's optimizer sees the text
        mark_compared_kinds(tree, types)
        mark_exact_merges(tree, types)
    tree = never_true_betweens(tree, types, engine(dialect).truncating_casts)
    folded = _folded_to_false(tree, dialect, types)
    tree = _unknown_left_bounds(tree, dialect, types)
    tree = wrapping_negations(tree, dialect, types)
    tree = split_null_bounds(identity_arithmetic(tree, dialect, types))
    if engine(dialect).truncating_casts:
        tree = split_decimal_cast_betweens(tree, types)
    respell_like_escapes(tree, dialect)
    tree = read_engine_numbers(tree, dialect, types)
    tree = bounds_in_one_type(tree, dialect, types)
    tree = fold_null_comparisons(tree, types, dialect)
    tree = integer_divisions(tree, dialect, types)
    drop_integer_casts(tree, dialect, types)  # (before the split's own = 0)
    tree = split_zero_items(tree, dialect, types)
    utc = time_zone is not None and time_zone.upper() in ("UTC", "ETC/UTC", "Z", "+00:00")
    if utc:
        read_timestamp_literals(tree, dialect, types)
    read_date_strings(tree, dialect, types)
    floats_against_integers(tree, dialect, types)
    arrow_decimal_doubles(tree, dialect, types)
    parts = _opaque_parts(tree, unportable_parts(tree, dialect, types, utc), dialect)
    if not parts and folded is None:
        return _signed_nans_read(parse(_without_excluded(tree).sql(dialect="spark")), types,
                                 dialect)
    if parts and parts[0][0] is tree and not isinstance(tree, _BOOLEAN) and _surely_not_boolean(
            tree, dialect, types):
        raise TypeMismatchError(f"not a boolean predicate: {tree.sql(dialect=syntax(dialect))}")
    opaque = {}
    for i, (part, why, guard, alone) in enumerate(parts):
        merged_only = alone == MERGED_LIST
        marks = part.unnest().meta
        exact = guard is not None and marks.get(EXACT_BUT_NULL)
        zero = marks.get(BUT_AT_ZERO) if exact else None
        if exact is True and zero is None and marks.get(NULL_KEPT):
            continue  # its merges keep its rows for every value, and NULL where it is
        # Columns as Spark reads their names (struct fields too): bound, so an unknown one is
        # an error, as anywhere else in the predicate.
        shown = part.unnest().expressions[1] if is_unknown_part(part.unnest()) else part
        found = list(part.find_all(exp.Column))
        columns = tuple(parse(c.sql(dialect="spark")) for c in found)
        # (a part the optimizer rewrites with another: its rows are not its own, NULL or not,
        # unless each of its merges is a union that keeps an item)
        together = (MERGED_LIST in why and not marks.get(NULL_KEPT)) or ZEROS_APART in why \
            or LEFT_BOUND in why
        needs = () if together else tuple(k for k, c in enumerate(found) if any(
            c is x for x in null_making_columns(shown)))
        opaque[f"{_PLACEHOLDER}{i}"] = n.Opaque(shown.sql(dialect=syntax(dialect)), why, columns,
                                                needs)
        marker = exp.Anonymous(this=f"{_PLACEHOLDER}{i}", expressions=[])
        capped = merged_only and not exact and marks.get(AT_MOST_WRITTEN)
        if guard is not None and (exact or not marks.get(NULL_KEPT)):
            # NULL or its merge's constant where its column is NULL (where a union keeps an
            # item: NULL, as ``needs`` says); where it holds a value, read as it is if the
            # merges keep the rows of values, or at most as it is
            is_null = exp.Is(this=guard.copy(), expression=exp.Null())
            where_value = _null_items_optional(part, marker.copy()) if (
                exact == NULL_ITEMS_OPTIONAL) else part.copy() if exact else _capped(
                part, marker.copy(), capped) if capped else marker.copy()
            if zero is not None:  # (a zero of its operand: unknown)
                at_zero = exp.EQ(this=zero.copy(), expression=exp.Literal.number(0))
                at_zero.meta[OWN_EQUALITY] = True
                where_value = exp.paren(exp.or_(
                    exp.and_(where_value, exp.not_(at_zero.copy())),
                    exp.and_(at_zero, marker.copy())))
            at_null = exp.null() if marks.get(NULL_KEPT) else merged_at_null(part, marker)
            marker = exp.paren(exp.or_(exp.and_(where_value, exp.not_(is_null.copy())),
                                       exp.and_(is_null, at_null)))
        elif capped:  # its merges keep at most its rows as written
            marker = _capped(part, marker, capped)
        elif alone == ZEROS_APART and (operand := _compared_operand(part)) is not None:
            # its rows as written but where its operand is a zero, and where it is NULL: there
            # NULL or FALSE (a fold to FALSE, a bound kept in its place, NULL too) where only
            # AND and OR stand above it, anything under a NOT (which turns a fold TRUE)
            # and NULL where no fold can be made (bounds one way: one is kept, NULL there)
            is_null = exp.Is(this=operand.copy(), expression=exp.Null())
            zero = exp.EQ(this=operand.copy(), expression=exp.Literal.number(0))
            zero.meta[OWN_EQUALITY] = True
            at_null = exp.null() if bounds_one_way(part.unnest(), types) else exp.paren(
                exp.and_(exp.null(), marker.copy())) if all(
                isinstance(a, (exp.And, exp.Or, exp.Paren)) for a in ancestors(part.parent)
            ) else marker.copy()
            marker = exp.paren(exp.or_(
                exp.and_(part.copy(), exp.not_(exp.paren(exp.or_(is_null.copy(), zero.copy())))),
                exp.and_(zero, marker), exp.and_(is_null, at_null)))
        if part is tree:
            tree = marker
        else:
            part.replace(marker)
    read = parse(_without_excluded(tree).sql(dialect="spark"))
    if folded is not None:  # its own rows, or none where the optimizer folds it to FALSE
        read = n.And((read, folded))
    # Every function call of another dialect is a part made opaque, so after the swap no
    # call left in the tree can have a placeholder's name.
    return _signed_nans_read(n.transform(read, lambda node: opaque.get(
        node.name, node) if isinstance(node, n.Func) and not node.args else node), types,
        dialect)


def _compared_operand(part: exp.Expression) -> exp.Expression | None:
    """The operand of a comparison, IN list or BETWEEN whose other sides are constants (the
    one side reading a column); None for anything else.

    >>> import sqlglot
    >>> _compared_operand(sqlglot.parse_one("-0.0 <= (f / 1)")).sql()
    '(f / 1)'
    """
    x = part.unnest()
    if isinstance(x, (exp.In, exp.Between)):
        sides = [x.this]
        others = [o for k, v in x.args.items() if k != "this"
                  for o in (v if isinstance(v, list) else [v]) if isinstance(o, exp.Expression)]
    elif isinstance(x, (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)):
        sides = [s for s in (x.this, x.expression) if s.find(exp.Column) is not None]
        others = [s for s in (x.this, x.expression) if s.find(exp.Column) is None]
    else:
        return None
    if len(sides) != 1 or any(o.find(exp.Column) is not None for o in others):
        return None
    return sides[0]


def _without_excluded(tree: exp.Expression) -> exp.Expression:
    """``tree`` with each IN list read as Spark reads it (not an unknown part) that lies in an
    AND with a NOT IN conjunct on its operand (``NONE_OF``) without the items that NOT IN
    rules out (``without_values``): the AND is FALSE wherever the operand holds one. In
    place; the tree is returned (another one where the whole predicate was such a list)."""
    for x in list(tree.find_all(exp.In)):
        if x.meta.get(NONE_OF):
            written = without_values(x)
            if x is tree:
                return written
            x.replace(written)
    return tree


def _null_items_optional(part: exp.Expression, unknown: exp.Expression) -> exp.Expression:
    """An IN list with NULL items that a merge may drop (``NULL_ITEMS_OPTIONAL``): TRUE
    where its operand is one of its other items, else NULL or FALSE.

    >>> import sqlglot
    >>> unknown = exp.Anonymous(this="u", expressions=[])
    >>> _null_items_optional(sqlglot.parse_one("x IN (1, NULL)"), unknown).sql()
    '(x IN (1) OR (NULL AND U()))'
    """
    written = part.copy()
    inner = written.unnest()
    maybe_null = exp.paren(exp.and_(exp.null(), unknown))
    values = [i for i in inner.expressions if not isinstance(i.unnest(), exp.Null)]
    if not values:
        return maybe_null
    inner.set("expressions", values)
    return exp.paren(exp.or_(written, maybe_null))


def _capped(part: exp.Expression, unknown: exp.Expression, mark: object) -> exp.Expression:
    """A list or equality whose merges keep at most its rows as written (``AT_MOST_WRITTEN``):
    ``part AND unknown``, without the items a conjunct above rules out (``without_values``);
    for an IN list or ``=`` under NOTs whose merges keep at least its
    rows but its NULL items' (``AT_LEAST_WRITTEN``), ``part OR unknown``, NULL items
    dropped.

    >>> import sqlglot
    >>> unknown = exp.Anonymous(this="u", expressions=[])
    >>> _capped(sqlglot.parse_one("x IN (1, NULL)"), unknown, AT_LEAST_WRITTEN).sql()
    '(x IN (1) OR U())'
    """
    if mark == AT_LEAST_WRITTEN:
        written = part.copy()
        inner = written.unnest()
        if isinstance(inner, exp.In):
            inner.set("expressions", [i for i in inner.expressions
                                      if not isinstance(i.unnest(), exp.Null)])
        return exp.paren(exp.or_(written, unknown))
    return exp.paren(exp.and_(without_values(part), unknown))


def _signed_nans_read(read: n.Node, types: Mapping[str, object] | None, dialect: str
                      ) -> n.Node:
    """Where the engine orders NaNs by their sign, each comparison of an operand that may be
    NaN is unknown on its NaN rows (``nan_rows_unknown``)."""
    return nan_rows_unknown(read, types, dialect) if engine(dialect).signed_nans else read


def _folded_to_false(tree: exp.Expression, dialect: str,
                     types: Mapping[str, object] | None) -> n.Opaque | None:
    """An unknown leaf for the FALSE DataFusion's optimizer may make of a predicate with
    equalities written both ways (``both_ways``), as the text reads before any rewrite;
    None where the engine has no such fold or the predicate no such equalities."""
    from prunekit.expr.syntax.sql import parse

    if engine(dialect).constants_either_side:
        return None
    both = both_ways(tree, types)
    if not both:
        return None
    shown = " AND ".join(x.sql(dialect=syntax(dialect)) for x in both)
    columns = tuple(parse(c.sql(dialect="spark")) for x in both for c in x.find_all(exp.Column))
    return n.Opaque(shown, f"{dialect} reads {shown} {BOTH_WAYS} otherwise than Spark", columns,
                    ())


def _unknown_left_bounds(tree: exp.Expression, dialect: str,
                         types: Mapping[str, object] | None) -> exp.Expression:
    """``tree`` with each bound DataFusion's optimizer may drop (``left_bound_dropped``) an
    unknown part, as the text reads before any rewrite."""
    if engine(dialect).constants_either_side:
        return tree
    for x in [x for x in tree.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE)
              if left_bound_dropped(x, types)]:
        part = unknown_part(LEFT_BOUND, x)
        if x is tree:
            return part
        x.replace(part)
    return tree


_PLACEHOLDER = "__prunekit_opaque_"

# A comparison of these is NULL wherever one of its columns is, in every engine: each is NULL
# where an operand is (a cast, a sum, an IN list's operand, a LIKE's string).
_STRICT_TESTS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.In, exp.Between,
                 exp.Like, exp.ILike)
_STRICT_VALUES = (exp.Column, exp.Identifier, exp.Dot, exp.Literal, exp.Null, exp.Boolean,
                  exp.Cast, exp.TryCast, exp.DataType, exp.DataTypeParam, exp.Neg, exp.Paren,
                  exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv)


def null_making_columns(part: exp.Expression) -> list[exp.Column]:
    """The columns of a boolean part that make it NULL on every row where one is NULL, in any
    engine: those of a comparison or LIKE (or its NOT) of columns, literals, casts and
    arithmetic; of an IN list or a BETWEEN, its operand's alone (``1 IN (1, NULL)`` is TRUE,
    ``1 BETWEEN 2 AND NULL`` FALSE). None for ``IS [NOT] DISTINCT FROM``, ``IS NULL``, AND, OR
    or a function call (but prunekit's own for Arrow's casts, NULL where their column is).

    >>> import sqlglot
    >>> [[c.sql() for c in null_making_columns(sqlglot.parse_one(t))] for t in (
    ...     "NOT (x / 2 IN (1, y))", "x + y > 1", "x IS NULL", "coalesce(x, 0) > 1",
    ...     "__prunekit_arrow_double(d) <> 0.5")]
    [['x'], ['x', 'y'], [], [], ['d']]
    """
    while isinstance(part, (exp.Paren, exp.Not)):
        part = part.this
    if not isinstance(part, _STRICT_TESTS) or (isinstance(part, exp.In) and (
            part.args.get("query") or part.args.get("unnest"))):
        return []
    if not all(isinstance(x, _STRICT_VALUES) or is_arrow_cast(x) for x in part.walk()
               if x is not part):
        return []
    operands = [part.this] if isinstance(part, (exp.In, exp.Between)) else [part]
    return [c for x in operands for c in x.find_all(exp.Column)]


# sqlglot nodes that are booleans whatever their arguments.
_BOOLEAN = (exp.Predicate, exp.Connector, exp.Not, exp.Boolean, exp.IsNan)


def _opaque_parts(tree: exp.Expression, found: list[tuple[exp.Expression, str]], dialect: str
                  ) -> list[tuple[exp.Expression, str, exp.Column | None, str | None]]:
    """The parts of ``tree`` to make unknown leaves, each with why, its NULL guard and
    the one reason it is unknown for where that is the optimizer's rewrite with others on its
    column (MERGED_LIST, ZEROS_APART; None for any other): for each construct found, the
    smallest boolean part holding it (a comparison, a LIKE, a term of an AND, OR or NOT, or
    the whole predicate); a part inside another one is left to it. A part is unknown for its
    merges alone where it is a list or equality found only for the merges of DataFusion's
    optimizer; its guard is then the column (``NULL_SIDE``) its operand is NULL with, and
    with alone. Parts are told apart by identity: sqlglot's equality is structural, and two
    equal parts are both made unknown."""
    chosen: dict[int, list] = {}
    for node, what in found:
        part = node
        while not isinstance(part, _BOOLEAN) and part.parent is not None and not (
                isinstance(part.parent, (exp.And, exp.Or, exp.Not))):
            part = part.parent
        while isinstance(part.parent, exp.Paren):
            part = part.parent
        alone = next((r for r in (MERGED_LIST, ZEROS_APART) if what.endswith(r)), None) if (
            node is part.unnest()) else None
        guard = node.meta.get(NULL_SIDE) if alone == MERGED_LIST else None
        if id(part) not in chosen:
            chosen[id(part)] = [part, what, guard, alone]
        elif alone != chosen[id(part)][3]:  # unknown for another reason too
            chosen[id(part)][2:] = [None, None]
    inner = set()
    for part, *_ in chosen.values():
        ancestor = part.parent
        while ancestor is not None and id(ancestor) not in chosen:
            ancestor = ancestor.parent
        if ancestor is not None:  # left to it, which is then unknown for its own reason too
            inner.add(id(part))
            chosen[id(ancestor)][2:] = [None, None]  # (``x >= a AND x <= a`` holding one)
    return [(part, f"{dialect} reads {what} otherwise than Spark", guard, alone)
            for part, what, guard, alone in chosen.values() if id(part) not in inner]


def _surely_not_boolean(tree: exp.Expression, dialect: str,
                        types: Mapping[str, object] | None) -> bool:
    """Whether sqlglot types the whole predicate in ``dialect`` as something other than a
    boolean (``x + 1``, ``length(s)``); unknown types (a function sqlglot does not know) are
    given the benefit of the doubt."""
    from sqlglot.optimizer.annotate_types import annotate_types
    from sqlglot.optimizer.qualify import qualify

    named = {name: _sql_type(t) for name, t in (types or {}).items()}
    schema = {"t": {name: t for name, t in named.items() if t is not None}}
    try:
        query = qualify(exp.select(tree.copy()).from_("t"), schema=schema, dialect=syntax(dialect),
                        validate_qualify_columns=False)
        got = annotate_types(query, schema=schema, dialect=syntax(dialect)).selects[0].type
    except Exception:  # noqa: BLE001 - sqlglot cannot type it: not surely anything
        return False
    return got is not None and not got.is_type(exp.DataType.Type.BOOLEAN,
                                               exp.DataType.Type.UNKNOWN)


def _sql_type(t: object) -> str | None:
    """A column's type as SQL names it, for sqlglot's typing (``render.type_sql``, Spark's
    names); None for a type without one."""
    from prunekit.expr.syntax.render import type_sql

    if isinstance(t, str):
        return t
    try:
        return type_sql(t)
    except (UnsupportedError, AttributeError, TypeError):
        return None


def warn_quoted_names(text: str, names: set[str]) -> list[str]:
    """In Spark's dialect a double-quoted word is a string, not a column: warn (and return the
    messages) for each one that is a column's name, which is almost always a mistake
    (``"l_shipmode" = 'AIR'`` compares two strings: FALSE for every row).

    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     got = warn_quoted_names('"x" = 5', {"x"})
    >>> got
    ['"x" is a string in Spark SQL, not the column x (write x or `x`)']
    """
    if '"' not in text:  # no double-quoted word: spare a second tokenization of a long list
        return []
    try:
        tokens = sqlglot.Dialect.get_or_raise("spark").tokenize(text)
    except (TokenError, ValueError):
        return []
    out = []
    lower = {n.lower(): n for n in names}
    for t in tokens:
        if t.token_type == sqlglot.TokenType.STRING and text[t.start:t.start + 1] == '"' and \
                t.text.lower() in lower:
            name = lower[t.text.lower()]
            out.append(f'"{t.text}" is a string in Spark SQL, not the column {name} '
                       f"(write {name} or `{name}`)")
    for message in out:
        warnings.warn(message, UserWarning, stacklevel=3)
    return out
