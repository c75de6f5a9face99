"""A statistics program as Spark SQL over the statistics columns (no pruning logic of its own).

Each program step becomes one SQL expression with the kernels' meaning (``kernels/ops.py``):
values in the column's kernel domain (days, microseconds, unscaled decimals, UTF-8 bytes),
IEEE float comparisons (Spark orders NaN above every number, NumPy compares it with nothing),
a missing statistic read as the kernels read it (a value that no valid bit lets through), and
literal values as quoted SQL literals, never raw text. Spark evaluates it as a CASE giving the
same 0/1/2 as the kernels (``tests/spark_glue/test_frame.py`` checks it on random containers).

>>> import pyarrow as pa, prunekit as pk
>>> pred = pk.PruningPredicate("x > 5", {"x": pa.int64()})
>>> sql = to_spark_sql(pred)
>>> sql.startswith("CAST(CASE WHEN"), "`x`.`max`" in sql, "5L" in sql
(True, True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pyarrow as pa

from prunekit.errors import UnsupportedError
from prunekit.expr.domains import domain_of, unscaled_to_decimal
from prunekit.expr.program.ir import LEAF_OPS, Program  # noqa: F401 - LEAF_OPS re-used
from prunekit.expr.syntax.render import literal_sql, type_sql
from prunekit.kernels.recipe import DEFAULTS

STAT_FIELDS = ("min", "max", "null_count", "nan_count", "min_exact", "max_exact")
# Inline SQL beyond this many characters is refused (shared steps are repeated in inline text);
# ``classify_dataframe(..., engine="sql")`` names shared steps as columns instead.
MAX_INLINE_CHARS = 2_000_000
_LIST_EXPAND = 64  # IN lists up to this length become ORs (whole-stage codegen), else exists()


def quote(name: str) -> str:
    """A backtick-quoted Spark identifier.

    >>> quote("x"), quote("a`b.c")
    ('`x`', '`a``b.c`')
    """
    return "`" + name.replace("`", "``") + "`"


def present_fields(stats_schema) -> dict[str | None, dict[str, str]]:
    """Per statistics column, the fields present and a kind for each (``None`` keys
    ``row_count``), from a pyspark ``StructType`` or a pyarrow ``Schema`` of the statistics.

    >>> x = pa.struct([("min", pa.date32()), ("max", pa.date32()), ("null_count", pa.int64())])
    >>> present_fields(pa.schema([("row_count", pa.int64()), ("x", x), ("path", pa.string())]))
    {None: {'row_count': 'int'}, 'x': {'min': 'date', 'max': 'date', 'null_count': 'int'}}
    """
    out: dict = {}
    for name, t in _fields_of(stats_schema):
        if name == "row_count":
            out[None] = {"row_count": _kind(t)}
        elif isinstance(t, list):
            out[name] = {f: _kind(ft) for f, ft in t if f in STAT_FIELDS}
    return out


def _fields_of(schema) -> Iterable[tuple[str, object]]:
    if isinstance(schema, pa.Schema):
        for f in schema:
            t = f.type
            yield f.name, ([(c.name, c.type) for c in t] if pa.types.is_struct(t) else t)
        return
    for f in schema.fields:  # pyspark StructType, duck-typed (no pyspark import here)
        t = f.dataType
        kids = getattr(t, "fields", None)
        yield f.name, ([(c.name, c.dataType) for c in kids] if kids is not None else t)


def _kind(t) -> str:
    """The representation a statistic field arrives in: Arrow type or Spark type name."""
    text = str(t).lower()
    if "timestamp" in text:
        return "timestamp_ntz" if ("ntz" in text or text == "timestamp[us]"
                                   or (isinstance(t, pa.TimestampType) and not t.tz)) else \
            "timestamp"
    for word in ("date", "decimal", "string", "binary", "bool", "float", "double", "null"):
        if word in text:
            return word
    return "int"


class _Renderer:
    def __init__(self, program: Program, fields: dict, nan_in_bounds: Mapping[str, bool],
                 no_nan: frozenset[str]):
        self.program, self.fields = program, fields
        self.nan_in_bounds, self.no_nan = nan_in_bounds, no_nan
        self.types = dict(program.column_types)
        self.kinds: list[str] = []  # per step: bool, int, float, bin, dec
        self.nullable: list[bool] = []

    # ---- slots -----------------------------------------------------------------------
    def _field(self, slot) -> str | None:
        """The SQL reference of a slot's field, or None when the statistics lack it."""
        if slot.column is None:
            return quote("row_count") if None in self.fields else None
        present = self.fields.get(slot.column, {})
        if slot.stat not in present or present[slot.stat] == "null":
            return None
        return f"{quote(slot.column)}.{quote(slot.stat)}"

    def load(self, slot) -> tuple[str, str]:
        ref = self._field(slot)
        if slot.stat in ("min_exact", "max_exact"):
            return ("TRUE" if ref is None else f"COALESCE({ref}, FALSE)"), "bool"
        if slot.stat not in ("min", "max"):  # counts
            return ("0L" if ref is None else f"COALESCE(CAST({ref} AS BIGINT), 0L)"), "int"
        t = self.types[slot.column]
        kind, zero = _domain(t)
        if ref is None:
            return zero, kind
        return f"COALESCE({self._to_domain(ref, t, slot)}, {zero})", kind

    def _to_domain(self, ref: str, t: pa.DataType, slot) -> str:
        arrives = self.fields[slot.column][slot.stat]
        if pa.types.is_timestamp(t):
            if t.unit != "us":
                raise UnsupportedError(f"column {slot.column!r} is {t}: Spark statistics are "
                                       "timestamps in microseconds; give the column as "
                                       "timestamp('us')")
            if arrives == "timestamp_ntz":  # wall-clock microseconds, as Arrow carries them
                return f"timestampdiff(MICROSECOND, TIMESTAMP_NTZ '1970-01-01 00:00:00', {ref})"
            return f"unix_micros(CAST({ref} AS TIMESTAMP))"
        if pa.types.is_date32(t):
            return f"unix_date(CAST({ref} AS DATE))"
        if pa.types.is_date64(t):
            return f"(unix_date(CAST({ref} AS DATE)) * 86400000L)"
        if pa.types.is_boolean(t):
            return f"CAST({ref} AS INT)"
        if pa.types.is_decimal(t):
            if domain_of(t) == "code":
                return f"CAST({ref} AS {type_sql(t)})"
            scale = "1" + "0" * t.scale
            return (f"CAST(CAST({ref} AS {type_sql(t)}) * CAST({scale} AS DECIMAL(19, 0)) "
                    "AS BIGINT)")
        if pa.types.is_floating(t):
            return f"CAST({ref} AS DOUBLE)"
        if domain_of(t) == "code":  # strings and binary compare as UTF-8 bytes
            return f"CAST({ref} AS BINARY)"
        return f"CAST({ref} AS BIGINT)"

    def valid(self, slot) -> str:
        ref = self._field(slot)
        if ref is None:
            return "TRUE" if DEFAULTS.get(slot.stat) else "FALSE"
        return f"({ref} IS NOT NULL)"

    # ---- params -----------------------------------------------------------------------
    def param(self, index: int) -> tuple[str, str]:
        p = self.program.params[index]
        t = self.types.get(p.column)
        values = p.value if p.is_list else (p.value,)
        texts = [self._value(v, t) for v in values]
        kind = _domain(t)[0] if t is not None else (
            "float" if any(isinstance(v, float) for v in values) else "int")
        if p.is_list:
            return texts, kind
        return texts[0], kind

    def _value(self, v, t) -> str:
        if isinstance(v, (bytes, bytearray)):
            return "X'" + bytes(v).hex().upper() + "'"
        if isinstance(v, str):
            return "X'" + v.encode("utf-8").hex().upper() + "'"
        if t is not None and pa.types.is_decimal(t) and domain_of(t) == "code":
            text = format(unscaled_to_decimal(v, t.scale), "f")
            return f"CAST('{text}' AS {type_sql(t)})"
        if isinstance(v, float) or (t is not None and pa.types.is_floating(t)):
            return literal_sql(float(v))
        if isinstance(v, bool):
            return str(int(v)) + "L"
        return str(int(v)) + "L"

    # ---- steps ------------------------------------------------------------------------
    def render(self, i: int, arg) -> str:
        """SQL of step ``i``; ``arg(j, want)`` gives an operand's SQL, ``want`` its use."""
        step = self.program.steps[i]
        op, a = step.op, step.args
        kinds = self.kinds

        def num(j):
            return arg(j, "num")

        def boolean(j):
            return arg(j, "bool")

        if op == "and" or op == "or":
            word = " AND " if op == "and" else " OR "
            return "(" + word.join(boolean(j) for j in a) + ")", "bool", False
        if op == "not":
            return f"(NOT {boolean(a[0])})", "bool", False
        if op in ("lt", "le", "gt", "ge", "eq"):
            sym = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "="}[op]
            x, y = num(a[0]), num(a[1])
            text = f"({x} {sym} {y})"
            # IEEE: a comparison with NaN is false (Spark orders NaN above every number).
            guards = [f"NOT isnan({s})" for j, s in zip(a, (x, y), strict=True)
                      if kinds[j] == "float"]
            if guards:
                text = f"({text} AND {' AND '.join(guards)})"
            if any(self.nullable[j] for j in a):
                text = f"COALESCE({text}, FALSE)"
            return text, "bool", False
        if op == "isnan":
            if kinds[a[0]] != "float":
                return "FALSE", "bool", False
            return f"isnan({num(a[0])})", "bool", False
        if op == "add":
            # DOUBLE sums (BFloatOp) stay "float": their NaN (inf - inf) must meet isnan.
            kind = "float" if "float" in (kinds[a[0]], kinds[a[1]]) else "int"
            return f"try_add({num(a[0])}, {num(a[1])})", kind, True
        if op in ("min2", "max2"):
            # Corners of a product: where one is NULL (overflow) or NaN the bounds are unknown
            # (rewrite checks), so least/greatest skipping NULL or ordering NaN is never used.
            kind = "float" if "float" in (kinds[a[0]], kinds[a[1]]) else "int"
            word = "least" if op == "min2" else "greatest"
            return f"{word}({num(a[0])}, {num(a[1])})", kind, True
        if op == "mul":
            return f"try_multiply({num(a[0])}, {num(a[1])})", kinds[a[0]], True
        if op == "within":
            limit = self.program.steps[a[1]]  # a const, or a param (2**62 of BSum, BProd)
            c = (self.program.params[limit.args[0]].value if limit.op == "param"
                 else limit.args[0])
            x = num(a[0])
            return f"({x} >= {-int(c)}L AND {x} <= {int(c)}L)", "bool", False
        if op == "toint":
            return num(a[0]), "int", self.nullable[a[0]]
        if op == "fits_int64":
            return "TRUE", "bool", False
        if op == "tofloat":
            return f"CAST({num(a[0])} AS DOUBLE)", "float", self.nullable[a[0]]
        if op == "tofloat32":
            return f"CAST(CAST({num(a[0])} AS FLOAT) AS DOUBLE)", "float", self.nullable[a[0]]
        if op == "floordiv":
            x, k = num(a[0]), num(a[1])
            # floor(x / k) without overflow: -((-(x + 1)) DIV k) - 1 for negative x.
            return (f"(CASE WHEN {x} >= 0 THEN {x} DIV {k} ELSE -((-({x} + 1L)) DIV {k}) - 1L "
                    "END)"), "int", self.nullable[a[0]]
        if op == "any_in":
            values, lo, lo_ok, hi, hi_ok = arg(a[0], "list"), num(a[1]), boolean(a[2]), \
                num(a[3]), boolean(a[4])
            cond = (f"(NOT {lo_ok} OR {{v}} >= {lo}) AND (NOT {hi_ok} OR {{v}} <= {hi})")
            return self._exists(values, cond), "bool", False
        if op == "covers":
            values, lo, hi = arg(a[0], "list"), num(a[1]), num(a[2])
            count = self._count(values, f"{{v}} >= {lo} AND {{v}} <= {hi}")
            return (f"COALESCE(({count}) > 0 AND try_subtract({hi}, {lo}) = ({count}) - 1, "
                    "FALSE)"), "bool", False
        if op == "outcome":
            t, f, n, empty = (boolean(j) for j in a)
            return (f"CAST(CASE WHEN NOT {t} OR {empty} THEN 0 WHEN NOT {f} AND NOT {n} "
                    "THEN 2 ELSE 1 END AS TINYINT)"), "int", False
        raise UnsupportedError(f"no Spark SQL spelling for program op {op!r}")

    @staticmethod
    def _exists(values: list[str], cond: str) -> str:
        if not values:
            return "FALSE"
        if len(values) <= _LIST_EXPAND:
            return "(" + " OR ".join("(" + cond.format(v=v) + ")" for v in values) + ")"
        return f"exists(array({', '.join(values)}), v -> {cond.format(v='v')})"

    @staticmethod
    def _count(values: list[str], cond: str) -> str:
        if not values:
            return "0"
        if len(values) <= _LIST_EXPAND:
            return " + ".join(f"(CASE WHEN {cond.format(v=v)} THEN 1 ELSE 0 END)"
                              for v in values)
        return f"size(filter(array({', '.join(values)}), v -> {cond.format(v='v')}))"


def _domain(t: pa.DataType | None) -> tuple[str, str]:
    """(kind, SQL of a placeholder value) of a column type's kernel domain."""
    if t is None:
        return "int", "0L"
    if pa.types.is_floating(t):
        return "float", "CAST(0 AS DOUBLE)"
    if pa.types.is_decimal(t) and domain_of(t) == "code":
        return "dec", f"CAST(0 AS {type_sql(t)})"
    if domain_of(t) == "code":
        return "bin", "X''"
    return "int", "0L"


def render_steps(program: Program, fields: dict, nan_in_bounds: Mapping[str, bool],
                 no_nan: Iterable[str], name) -> list[str]:
    """SQL of every step, in order; ``name(i)`` is called for steps to reference by name
    (returns the SQL to use for step ``i`` in its users, or None to inline it)."""
    r = _Renderer(program, fields, nan_in_bounds, frozenset(no_nan))
    texts: list = []
    steps = program.steps
    for i, step in enumerate(steps):
        op = step.op
        if op == "load":
            text, kind = r.load(program.slots[step.args[0]])
            nullable = False
        elif op == "valid":
            text, kind, nullable = r.valid(program.slots[step.args[0]]), "bool", False
        elif op == "param":
            text, kind = r.param(step.args[0])
            nullable = False
        elif op == "flag":
            col, flag = program.flags[step.args[0]]
            on = (col in r.no_nan) if flag == "no_nan" else bool(r.nan_in_bounds.get(col))
            text, kind, nullable = ("TRUE" if on else "FALSE"), "bool", False
        elif op == "const":
            v = step.args[0]
            text, kind, nullable = v, ("bool" if isinstance(v, bool) else "int"), False
        else:
            def arg(j, want):
                if steps[j].op == "const":  # True == 1 in Python: one step, two readings
                    v = steps[j].args[0]
                    if want == "bool":
                        return "TRUE" if v else "FALSE"
                    return f"{int(v)}L"
                return texts[j]

            text, kind, nullable = r.render(i, arg)
            if op not in LEAF_OPS:
                text = name(i, text) or text
        r.kinds.append(kind)
        r.nullable.append(nullable)
        texts.append(text)
    return texts


def to_spark_sql(predicate, stats_schema=None, *, nan_bounds: str | Mapping[str, str] = "exclude",
                 no_nan: Iterable[str] = ()) -> str:
    """The predicate's outcome as one Spark SQL expression over the statistics columns:
    ``0`` NONE_MATCH, ``1`` MAYBE_MATCH, ``2`` ALL_MATCH (a TINYINT), the same as
    ``PruningPredicate.classify`` on the same statistics.

    ``stats_schema`` (a pyspark ``StructType`` or pyarrow ``Schema`` of the statistics) says
    which statistics exist; by default ``row_count`` and ``min``, ``max``, ``null_count``,
    ``nan_count`` of every column. ``nan_bounds`` and ``no_nan`` as in ``Statistics``.

    >>> import pyarrow as pa, prunekit as pk
    >>> pred = pk.PruningPredicate("s LIKE 'ab%'", {"s": pa.string()})
    >>> "X'6162'" in to_spark_sql(pred)      # literals as quoted bytes, never raw text
    True
    """
    program = predicate.program
    fields = default_fields(program) if stats_schema is None else present_fields(stats_schema)
    texts = render_steps(program, fields, nan_modes(program, nan_bounds), no_nan,
                         lambda i, text: None)
    if len(texts[-1]) > MAX_INLINE_CHARS:
        raise UnsupportedError(
            f"the predicate's outcome is {len(texts[-1]):,} characters of Spark SQL when "
            "inlined; use classify_dataframe(..., engine='sql'), which names shared steps")
    return texts[-1]


def default_fields(program: Program) -> dict:
    out: dict = {None: {"row_count": "int"}}
    for c, t in program.column_types:
        k = _kind(t)
        out[c] = {"min": k, "max": k, "null_count": "int", "nan_count": "int"}
    return out


def nan_modes(program: Program, nan_bounds: str | Mapping[str, str]) -> dict[str, bool]:
    cols = [c for c, _ in program.column_types]
    if isinstance(nan_bounds, str):
        return dict.fromkeys(cols, nan_bounds == "include")
    return {c: nan_bounds.get(c, "exclude") == "include" for c in cols}


def shared_steps(program: Program) -> set[int]:
    """Non-leaf steps used more than once: named once instead of repeated."""
    uses = [0] * len(program.steps)
    for s in program.steps:
        if s.op not in LEAF_OPS:
            for j in s.args:
                uses[j] += 1
    return {i for i, s in enumerate(program.steps) if s.op not in LEAF_OPS and uses[i] > 1}
