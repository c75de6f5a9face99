"""Differential testing: random Parquet datasets, random predicates, three opinions per row group.

For every (dataset, predicate) pair this module computes, per Parquet row group:

- the **truth**: the predicate's value for every row, from ``tests/support/reference.py`` (Spark SQL
  semantics, prunekit's contract, docs/semantics.md §2);
- **prunekit's outcome** from the file's footer statistics (``prunekit.parquet`` when it is
  available, else the footers read here), twice: as the footers say (no ``nan_count``), and with
  the exact ``nan_count`` of each group added (so that NaN handling is tested both ways);
- **DataFusion's pruning**: ``EXPLAIN ANALYZE`` of ``SELECT * FROM t WHERE <predicate>`` over
  the same file, metric ``row_groups_pruned_statistics=N total → M matched``; per group from a
  ``UNION ALL`` over one single-group file per group; and DataFusion's own row-level answer over
  an in-memory copy (to tell "DataFusion prunes unsoundly" from "DataFusion's SQL means
  something else here").

Checks: no prunekit outcome is unsound (docs/semantics.md §3), and every group DataFusion prunes but
prunekit keeps gets a reason (``CATEGORIES``); "unexplained" is a failure.

A dataset is generated from a seed (``numpy.random.Generator``): 1-4 columns of ints, unsigned
ints, floats (NaN, ±0, ±inf), decimals (narrow and 38 digits), strings (shared prefixes,
non-ASCII), binary, dates, timestamps (naive and UTC) and booleans; NULLs and all-null groups;
sorted, clustered or random layouts; 1-12 row groups of 1-8 rows. Predicates come from the
grammar both prunekit (Spark SQL) and DataFusion understand; ``df_sql`` renders DataFusion's
spelling from the same tree.

Failing cases are shrunk (fewer groups, rows, columns, smaller predicate) and written as JSON
(``save_case``) that ``load_case`` / ``check_case`` replay.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import hashlib
import json
import math
import re
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import prunekit as pk
from prunekit.expr.paths import leaf_key
from prunekit.expr.syntax import nodes as n
from prunekit.expr.syntax.node_visitor import NodeVisitor, visit
from tests.support import reference as ref

D = decimal.Decimal
CTX = decimal.Context(prec=120)
INF, NAN = math.inf, math.nan
REGRESSIONS = Path(__file__).parent.parent / "regressions"
UTC = dt.timezone.utc

# ---- types ----------------------------------------------------------------------------------
TYPE_POOL = ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64", "float32",
             "float64", "float64", "decimal(9,2)", "decimal(18,4)", "decimal(38,10)",
             "decimal(5,0)", "string", "string", "binary", "date32", "timestamp(us)",
             "timestamp(ms,UTC)", "timestamp(ns,UTC)", "bool"]
_SIMPLE = {"int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(), "int64": pa.int64(),
           "uint8": pa.uint8(), "uint16": pa.uint16(), "uint32": pa.uint32(),
           "uint64": pa.uint64(), "float32": pa.float32(), "float64": pa.float64(),
           "string": pa.string(), "binary": pa.binary(), "date32": pa.date32(),
           "bool": pa.bool_()}


def parse_type(spec: str) -> pa.DataType:
    """``"decimal(9,2)"``, ``"timestamp(ms,UTC)"``, ``"int8"``... to an Arrow type."""
    if spec in _SIMPLE:
        return _SIMPLE[spec]
    m = re.fullmatch(r"decimal\((\d+),(\d+)\)", spec)
    if m:
        return pa.decimal128(int(m[1]), int(m[2]))
    m = re.fullmatch(r"timestamp\((s|ms|us|ns)(?:,(.+))?\)", spec)
    if m:
        return pa.timestamp(m[1], m[2])
    raise ValueError(f"unknown type spec {spec!r}")


def type_spec(t: pa.DataType) -> str:
    for k, v in _SIMPLE.items():
        if v == t:
            return k
    if pa.types.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    if pa.types.is_timestamp(t):
        return f"timestamp({t.unit}{',' + t.tz if t.tz else ''})"
    raise ValueError(f"no spec for {t}")


def is_float(t: pa.DataType | None) -> bool:
    return t is not None and pa.types.is_floating(t)


def is_nan(v: object) -> bool:
    return isinstance(v, float) and v != v


# ---- values <-> JSON ------------------------------------------------------------------------
def encode_value(v: object, t: pa.DataType) -> object:
    """A row value (reference.py representation) as JSON."""
    if v is None:
        return None
    if pa.types.is_floating(t):
        return repr(float(v))  # 'nan', 'inf', '-0.0' survive as text
    if pa.types.is_decimal(t):
        return str(v)
    if pa.types.is_binary(t):
        return v.hex()
    return v  # int, str, bool; dates as days; timestamps as counts of the unit


def decode_value(x: object, t: pa.DataType) -> object:
    if x is None:
        return None
    if pa.types.is_floating(t):
        return float(x)
    if pa.types.is_decimal(t):
        return D(x)
    if pa.types.is_binary(t):
        return bytes.fromhex(x)
    return x


def _lit_json(value: object) -> dict:
    if value is None:
        return {"null": True}
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": str(value)}
    if isinstance(value, float):
        return {"float": repr(value)}
    if isinstance(value, D):
        return {"decimal": str(value)}
    if isinstance(value, str):
        return {"str": value}
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    if isinstance(value, dt.datetime):
        return {"datetime": value.isoformat()}
    if isinstance(value, dt.date):
        return {"date": value.isoformat()}
    raise TypeError(f"cannot encode literal {value!r}")


def _lit_value(d: dict) -> object:
    (k, x), = ((k, v) for k, v in d.items() if k != "type")
    return {"null": lambda _: None, "bool": bool, "int": int, "float": float, "decimal": D,
            "str": str, "bytes": bytes.fromhex, "datetime": dt.datetime.fromisoformat,
            "date": dt.date.fromisoformat}[k](x)


def tree_to_json(node: n.Node) -> dict:
    """A predicate tree as JSON (the reference evaluates this, not a parse of the SQL text)."""
    return visit(node, _Json())


class _Json(NodeVisitor):
    def visit_column(self, node: n.Column, kids: tuple) -> dict:
        return {"col": node.name}

    def visit_literal(self, node: n.Literal, kids: tuple) -> dict:
        out = _lit_json(node.value)
        if node.type is not None:
            out["type"] = type_spec(node.type)
        return out

    def visit_compare(self, node: n.Compare, kids: tuple) -> dict:
        return {"op": node.op.value, "args": list(kids)}

    def visit_and(self, node: n.And, kids: tuple) -> dict:
        return {"and": list(kids)}

    def visit_or(self, node: n.Or, kids: tuple) -> dict:
        return {"or": list(kids)}

    def visit_not(self, node: n.Not, kids: tuple) -> dict:
        return {"not": kids[0]}

    def visit_is_null(self, node: n.IsNull, kids: tuple) -> dict:
        return {"isnull": kids[0]}

    def visit_is_bool(self, node: n.IsBool, kids: tuple) -> dict:
        return {"isbool": kids[0], "value": node.value}

    def visit_distinct_from(self, node: n.DistinctFrom, kids: tuple) -> dict:
        return {"distinct": list(kids)}

    def visit_in(self, node: n.In, kids: tuple) -> dict:
        return {"in": kids[0], "values": list(kids[1:])}

    def visit_between(self, node: n.Between, kids: tuple) -> dict:
        return {"between": list(kids)}

    def visit_like(self, node: n.Like, kids: tuple) -> dict:
        return {"like": kids[0], "pattern": node.pattern, "escape": node.escape}

    def visit_starts_with(self, node: n.StartsWith, kids: tuple) -> dict:
        return {"startswith": list(kids)}

    def visit_is_nan(self, node: n.IsNan, kids: tuple) -> dict:
        return {"isnan": kids[0]}

    def visit_cast(self, node: n.Cast, kids: tuple) -> dict:
        return {"cast": kids[0], "to": type_spec(node.to), "safe": node.safe}

    def visit_neg(self, node: n.Neg, kids: tuple) -> dict:
        return {"neg": kids[0]}

    def visit_func(self, node: n.Func, kids: tuple) -> dict:
        raise TypeError(f"cannot encode the function {node.name}")

    def visit_opaque(self, node: n.Opaque, kids: tuple) -> dict:
        raise TypeError(f"cannot encode another dialect's {node.text}")


def tree_from_json(d: dict) -> n.Node:
    f = tree_from_json
    if "col" in d:
        return n.Column(d["col"])
    if "op" in d:
        return n.Compare(n.Op(d["op"]), f(d["args"][0]), f(d["args"][1]))
    if "and" in d:
        return n.And(tuple(f(a) for a in d["and"]))
    if "or" in d:
        return n.Or(tuple(f(a) for a in d["or"]))
    if "not" in d:
        return n.Not(f(d["not"]))
    if "isnull" in d:
        return n.IsNull(f(d["isnull"]))
    if "isbool" in d:
        return n.IsBool(f(d["isbool"]), d["value"])
    if "distinct" in d:
        return n.DistinctFrom(f(d["distinct"][0]), f(d["distinct"][1]))
    if "in" in d:
        return n.In(f(d["in"]), tuple(f(v) for v in d["values"]))
    if "between" in d:
        return n.Between(*(f(a) for a in d["between"]))
    if "like" in d:
        return n.Like(f(d["like"]), d["pattern"], d["escape"])
    if "startswith" in d:
        return n.StartsWith(f(d["startswith"][0]), f(d["startswith"][1]))
    if "isnan" in d:
        return n.IsNan(f(d["isnan"]))
    if "cast" in d:
        return n.Cast(f(d["cast"]), parse_type(d["to"]), d["safe"])
    if "neg" in d:
        return n.Neg(f(d["neg"]))
    t = parse_type(d["type"]) if "type" in d else None
    return n.Literal(_lit_value(d), t)


# ---- datasets -------------------------------------------------------------------------------
@dataclasses.dataclass
class Dataset:
    """Columns (name, type) and the rows of each row group (reference.py representation)."""

    columns: list  # [(name, pa.DataType)]
    groups: list  # [[{name: value}]]
    options: dict = dataclasses.field(default_factory=dict)  # Parquet writer options

    @property
    def types(self) -> dict:
        return dict(self.columns)

    @property
    def schema(self) -> pa.Schema:
        return pa.schema(self.columns)

    def group_table(self, rows: list) -> pa.Table:
        return pa.table({c: arrow_array([r[c] for r in rows], t) for c, t in self.columns},
                        schema=self.schema)

    def table(self, with_rid: bool = False) -> pa.Table:
        rows = [r for g in self.groups for r in g]
        table = self.group_table(rows)
        if with_rid:
            table = table.append_column("rid", pa.array(range(len(rows)), pa.int64()))
        return table

    def to_json(self) -> dict:
        return {"columns": [[c, type_spec(t)] for c, t in self.columns],
                "options": self.options,
                "row_groups": [[{c: encode_value(r[c], t) for c, t in self.columns} for r in g]
                               for g in self.groups]}

    @classmethod
    def from_json(cls, d: dict) -> Dataset:
        columns = [(c, parse_type(s)) for c, s in d["columns"]]
        groups = [[{c: decode_value(r.get(c), t) for c, t in columns} for r in g]
                  for g in d["row_groups"]]
        return cls(columns, groups, dict(d.get("options", {})))


def arrow_array(values: list, t: pa.DataType) -> pa.Array:
    if pa.types.is_date32(t):
        return pa.array(values, pa.int32()).cast(t)
    if pa.types.is_timestamp(t):
        return pa.array(values, pa.int64()).cast(t)
    return pa.array(values, t)


def write_parquet(ds: Dataset, path: Path, groups: list | None = None) -> None:
    """One Parquet row group per group of ``ds`` (or of ``groups``)."""
    groups = ds.groups if groups is None else groups
    opts = ds.options
    stats = opts.get("write_statistics", True)
    with pq.ParquetWriter(path, ds.schema, compression="none",
                          use_dictionary=opts.get("use_dictionary", True),
                          write_statistics=stats,
                          store_decimal_as_integer=opts.get("store_decimal_as_integer", False)
                          ) as w:
        for rows in groups:
            w.write_table(ds.group_table(rows), row_group_size=len(rows) + 1)
    md = pq.ParquetFile(path).metadata
    sizes = [md.row_group(i).num_rows for i in range(md.num_row_groups)]
    assert sizes == [len(g) for g in groups], f"writer made row groups {sizes}"


# ---- statistics -----------------------------------------------------------------------------
def footer_statistics(path: Path) -> pa.Table:
    """The footers' statistics in prunekit's canonical layout (until ``prunekit.parquet``)."""
    pf = pq.ParquetFile(path)
    md, schema = pf.metadata, pf.schema_arrow
    data = {"row_count": pa.array([md.row_group(i).num_rows for i in range(md.num_row_groups)],
                                  pa.int64())}
    for j, field in enumerate(schema):
        t = field.type
        temporal = pa.types.is_date(t) or pa.types.is_timestamp(t)
        mins, maxs, nulls = [], [], []
        for i in range(md.num_row_groups):
            s = md.row_group(i).column(j).statistics
            if s is not None and s.has_min_max:
                mins.append(s.min_raw if temporal else s.min)
                maxs.append(s.max_raw if temporal else s.max)
            else:
                mins.append(None)
                maxs.append(None)
            nulls.append(s.null_count if s is not None and s.has_null_count else None)
        data[field.name] = pa.StructArray.from_arrays(
            [arrow_array(mins, t), arrow_array(maxs, t), pa.array(nulls, pa.int64())],
            ["min", "max", "null_count"])
    return pa.table(data)


def _reader():
    try:
        from prunekit.parquet import row_group_statistics
    except ImportError:
        return None
    return row_group_statistics


READER = "auto"  # "auto": prunekit.parquet when importable, else footer_statistics


def read_statistics(path: Path) -> tuple[pa.Table, str]:
    fn = _reader() if READER == "auto" else None
    if fn is None:
        return footer_statistics(path), "footer"
    return fn([str(path)]), "prunekit.parquet"


def with_nan_counts(table: pa.Table, ds: Dataset) -> pa.Table:
    """``table`` with the exact ``nan_count`` of every float column added (Parquet has none)."""
    out = table
    for c, t in ds.columns:
        if not is_float(t) or c not in table.column_names:
            continue
        col = table.column(c).combine_chunks()
        counts = pa.array([sum(is_nan(r[c]) for r in g) for g in ds.groups], pa.int64())
        names = [col.type.field(i).name for i in range(col.type.num_fields)]
        kids = [col.field(i) for i in range(col.type.num_fields)]
        if "nan_count" in names:
            kids[names.index("nan_count")] = counts
        else:
            names.append("nan_count")
            kids.append(counts)
        struct = pa.StructArray.from_arrays(kids, names, mask=col.is_null() if col.null_count
                                            else None)
        out = out.set_column(out.column_names.index(c), c, struct)
    return out


# ---- random generation ----------------------------------------------------------------------
def _pick(rng: np.random.Generator, seq):
    return seq[int(rng.integers(len(seq)))]


def _chance(rng: np.random.Generator, p: float) -> bool:
    return bool(rng.random() < p)


STRING_PREFIXES = ["", "", "ab", "abc", "é", "zz", "€x", "\U0001f600", "A"]
STRING_ALPHABET = ["a", "b", "c", "é", "€", "\U0001f600", "Z", "0", " ", "ÿ", "\x7f", "'"]
BINARY_PREFIXES = [b"", b"", b"ab", b"\xff", b"\x00", b"\xc3"]
BINARY_BYTES = [0x00, 0x01, 0x61, 0x62, 0x7F, 0x80, 0xC3, 0xFE, 0xFF]
_DAY0 = 18_262  # 2020-01-01


def _spread_int(rng: np.random.Generator, lo: int, hi: int) -> int:
    """An integer in [lo, hi] with a random number of digits."""
    width = len(str(max(abs(lo), abs(hi))))
    k = int(rng.integers(1, width + 1))
    mag = int(rng.integers(0, 10**min(k, 18))) * 10 ** max(0, k - 18)
    v = -mag if _chance(rng, 0.5) else mag
    return min(hi, max(lo, v))


def _f32(x: float) -> float:
    with np.errstate(over="ignore"):
        return float(np.float32(x))


def palette(rng: np.random.Generator, t: pa.DataType) -> list:
    """A few distinct non-NULL, non-NaN values of ``t``, on its edges and near each other."""
    k = int(rng.integers(2, 9))
    out: list = []
    for _ in range(k):
        out.append(_value(rng, t))
    uniq, seen = [], set()
    for v in out:
        key = (repr(v), type(v).__name__)
        if key not in seen:
            seen.add(key)
            uniq.append(v)
    return uniq


def _value(rng: np.random.Generator, t: pa.DataType) -> object:
    if pa.types.is_integer(t):
        lo, hi = ref.int_range(t)
        cat = int(rng.integers(4))
        if cat == 0:
            return _pick(rng, [lo, lo + 1, hi - 1, hi, 0])
        if cat == 1:
            return _spread_int(rng, lo, hi)
        return int(rng.integers(max(lo, -10), min(hi, 20) + 1))
    if pa.types.is_floating(t):
        cat = int(rng.integers(4))
        if cat == 0:
            big = 3.4e38 if t == pa.float32() else 1e300
            v = _pick(rng, [0.0, -0.0, INF, -INF, big, -big, 1.5, -2.5, 5e-324])
        elif cat == 1:
            v = float(rng.normal() * 10 ** int(rng.integers(0, 6)))
        else:
            v = float(rng.integers(-10, 20)) + _pick(rng, [0.0, 0.0, 0.5, 0.25])
        return _f32(v) if t == pa.float32() else v
    if pa.types.is_decimal(t):
        top = 10**t.precision - 1
        cat = int(rng.integers(4))
        if cat == 0:
            u = _pick(rng, [top, -top, 0, 1, -1, 10**t.scale])
        elif cat == 1:
            u = _spread_int(rng, -top, top)
        else:
            u = int(rng.integers(-2000, 2000)) if top > 2000 else int(rng.integers(-top, top + 1))
        return D(u).scaleb(-t.scale, context=CTX)
    if ref.is_text(t):
        suffix = "".join(_pick(rng, STRING_ALPHABET) for _ in range(int(rng.integers(0, 4))))
        return _pick(rng, STRING_PREFIXES) + suffix
    if ref.is_bin(t):
        suffix = bytes(_pick(rng, BINARY_BYTES) for _ in range(int(rng.integers(0, 4))))
        return _pick(rng, BINARY_PREFIXES) + suffix
    if pa.types.is_boolean(t):
        return _chance(rng, 0.5)
    if pa.types.is_date(t):
        if _chance(rng, 0.15):
            return _pick(rng, [0, -1, -719_162, 2_932_896])
        return _DAY0 + int(rng.integers(-15, 16))
    per_s = 10**9 // ref.NS_PER_UNIT[t.unit]
    day = 86_400 * per_s
    if _chance(rng, 0.1):
        return _pick(rng, [0, -1, 1, -day])
    base = (_DAY0 + int(rng.integers(-3, 4))) * day
    return base + _pick(rng, [0, 0, 1, -1, per_s, day // 2, int(rng.integers(0, day))])


def _order_key(v: object, t: pa.DataType):
    """Spark's order (NaN greatest, NULL last)."""
    if v is None:
        return (2, 0)
    if is_nan(v):
        return (1, 0)
    if ref.is_text(t):
        return (0, v.encode("utf-8"))
    return (0, v)


def random_dataset(rng: np.random.Generator, *, types: list = TYPE_POOL,
                   names: list | None = None, group_counts: tuple = (1, 2, 3, 4, 6, 8, 10, 12),
                   max_rows: int = 8, values=palette,
                   partial_statistics: bool = True) -> Dataset:
    """1-4 columns of ``types`` (named a, b, c, d, or drawn from ``names``), ``group_counts``
    row groups of 1 to ``max_rows`` rows drawn from ``values(rng, type)`` in a random, sorted
    or clustered layout, NULLs, NaN and all-NULL groups, and pyarrow writer options (with
    ``partial_statistics``, sometimes statistics for only some columns)."""
    ncols = int(_pick(rng, [1, 2, 2, 3, 3, 4]))
    names = ["a", "b", "c", "d"][:ncols] if names is None else [
        str(x) for x in rng.permutation(names)[:ncols]]
    columns = [(c, parse_type(_pick(rng, types))) for c in names]
    if ncols >= 2 and _chance(rng, 0.4):  # a comparable pair for column-vs-column leaves
        columns[-1] = (columns[-1][0], columns[0][1])
    ngroups = int(_pick(rng, list(group_counts)))
    sizes = [int(rng.integers(1, max_rows + 1)) for _ in range(ngroups)]
    total = sum(sizes)
    layout = _pick(rng, ["random", "sorted", "clustered", "clustered"])
    cols: dict = {}
    for c, t in columns:
        pal = sorted(values(rng, t), key=lambda v, t=t: _order_key(v, t))
        p_null = _pick(rng, [0.0, 0.0, 0.15, 0.4])
        p_nan = _pick(rng, [0.0, 0.1, 0.3]) if is_float(t) else 0.0
        if _chance(rng, 0.04):
            p_null = 1.0
        vals = []
        for i in range(total):
            if _chance(rng, p_null):
                vals.append(None)
            elif _chance(rng, p_nan):
                vals.append(NAN)
            elif layout == "clustered":
                j = int(i * len(pal) / total + rng.integers(-1, 2))
                vals.append(pal[min(len(pal) - 1, max(0, j))])
            else:
                vals.append(_pick(rng, pal))
        cols[c] = vals
    rows = [{c: cols[c][i] for c, _ in columns} for i in range(total)]
    if layout == "sorted":
        c0, t0 = columns[0]
        rows.sort(key=lambda r: _order_key(r[c0], t0))
    groups, at = [], 0
    for k in sizes:
        groups.append(rows[at: at + k])
        at += k
    for _ in range(int(rng.integers(0, 3))):  # all-null groups, for one column or all
        g = groups[int(rng.integers(ngroups))]
        which = [c for c, _ in columns] if _chance(rng, 0.3) else [_pick(rng, names)]
        for r in g:
            for c in which:
                r[c] = None
    options = {"use_dictionary": _chance(rng, 0.5),
               "store_decimal_as_integer": _chance(rng, 0.5)}
    if partial_statistics and _chance(rng, 0.1):
        options["write_statistics"] = [c for c in names if _chance(rng, 0.5)]
    return Dataset(columns, groups, options)


# ---- predicates -----------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Operand:
    node: n.Node
    type: pa.DataType
    samples: tuple  # row-representation values of ``type``


def cmp_family(t: pa.DataType) -> str:
    if pa.types.is_integer(t) or pa.types.is_decimal(t):
        return "exact"
    if is_float(t):
        return "float"
    if ref.is_text(t):
        return "text"
    if ref.is_bin(t):
        return "bin"
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_date(t):
        return "date"
    return "tsz" if t.tz else "ts"


def _comparable(a: pa.DataType, b: pa.DataType) -> bool:
    fa, fb = cmp_family(a), cmp_family(b)
    if fa == fb:
        return True
    # int/decimal against float: Spark and DataFusion both compare in DOUBLE, except that
    # DataFusion casts a float to DECIMAL against a decimal (an error on NaN): ints only.
    return {fa, fb} == {"exact", "float"} and not (pa.types.is_decimal(a) or
                                                     pa.types.is_decimal(b))


def _cast_targets(t: pa.DataType) -> list:
    """Order-preserving casts that Spark and DataFusion evaluate alike."""
    if pa.types.is_integer(t):
        return [pa.float64()] + ([pa.int64()] if t.bit_width < 64 or
                                 pa.types.is_signed_integer(t) else [])
    if t == pa.float32():
        return [pa.float64()]
    if pa.types.is_decimal(t):
        return [pa.decimal128(min(38, t.precision + 2), min(38, t.scale + 1))]
    if pa.types.is_date(t):
        return [pa.timestamp("us")]
    if pa.types.is_timestamp(t) and t.tz is None:
        return [pa.date32()]
    return []


def operand(rng: np.random.Generator, ds: Dataset, samples: dict, name: str | None = None
            ) -> Operand:
    name = name or _pick(rng, [c for c, _ in ds.columns])
    t = ds.types[name]
    op = Operand(n.Column(name), t, tuple(samples[name]))
    if _chance(rng, 0.2):
        targets = _cast_targets(t)
        if targets:
            to = _pick(rng, targets)
            op = Operand(n.Cast(op.node, to), to,
                         ref.samples_through(op.samples, lambda v, to=to: ref.cast(v, to), t, to))
    if _chance(rng, 0.1) and (is_float(op.type) or pa.types.is_decimal(op.type)):
        op = Operand(n.Neg(op.node), op.type,
                     ref.samples_through(op.samples, ref.negate, op.type, op.type))
    return op


def _date(days: int) -> dt.date | None:
    try:
        return dt.date(1970, 1, 1) + dt.timedelta(days=days)
    except OverflowError:
        return None


def _datetime(us: int, tz: bool) -> dt.datetime | None:
    try:
        v = dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=us)
    except OverflowError:
        return None
    if not dt.datetime(1, 1, 2) <= v <= dt.datetime(9999, 12, 30):
        return None
    return v.replace(tzinfo=UTC) if tz else v


def literal(rng: np.random.Generator, op: Operand, null: bool = True) -> n.Literal:
    """A literal near ``op``'s values, of a kind that compares the same in Spark and DataFusion.
    """
    t = op.type
    if null and _chance(rng, 0.04):
        return n.Literal(None)
    v = _pick(rng, op.samples) if op.samples and _chance(rng, 0.85) else _value(rng, t)
    if pa.types.is_integer(t):
        lo, hi = ref.int_range(t)
        return n.Literal(_pick(rng, [
            v, v, v + 1, v - 1, lo, hi, hi + 1, lo - 1, CTX.add(D(v), D("0.5")),
            CTX.subtract(D(v), D("0.5")), D(f"{v}.0"), float(v), float(v) + 0.5, 0]))
    if pa.types.is_decimal(t):
        ulp = D(1).scaleb(-t.scale, context=CTX)
        half = CTX.divide(ulp, 2)
        cands = [v, v, CTX.add(v, ulp), CTX.subtract(v, ulp), CTX.add(v, half), int(v),
                 CTX.subtract(v, half), D(0)]  # no DOUBLE: DataFusion compares it as DECIMAL
        # Spark refuses a literal of more than 38 digits (v +- half ulp on DECIMAL(38, 10)).
        return n.Literal(_pick(rng, [c for c in cands if _digits(c) <= 38]))
    if is_float(t):
        if math.isfinite(v):
            near = [math.nextafter(v, INF), math.nextafter(v, -INF), D(repr(v)), int(v),
                    v + 1, v - 0.5]
        else:
            near = [v]
        return n.Literal(_pick(rng, [v, v, NAN, INF, -INF, 0.0, -0.0, *near]))
    if ref.is_text(t):
        cands = [v, v, v[: len(v) // 2], v + "a", v + "\x00", v[:-1], "", "é", "b"]
        if v and ord(v[-1]) < 0x10FFFF and not 0xD7FF <= ord(v[-1]) <= 0xDFFF:
            cands.append(v[:-1] + chr(ord(v[-1]) + 1))
        return n.Literal(_pick(rng, cands))
    if ref.is_bin(t):
        cands = [v, v, v[: len(v) // 2], v + b"\x00", v + b"\xff", v[:-1], b"", b"\xff"]
        if v and v[-1] < 0xFF:
            cands.append(v[:-1] + bytes([v[-1] + 1]))
        return n.Literal(_pick(rng, cands))
    if pa.types.is_boolean(t):
        return n.Literal(bool(v))
    if pa.types.is_date(t):
        d = _date(v + _pick(rng, [0, 0, 1, -1, 7]))
        return n.Literal(d) if d is not None else n.Literal(dt.date(2020, 1, 1))
    # At the column's unit or coarser: DataFusion casts a finer literal to the column's unit.
    unit_us = max(1, ref.NS_PER_UNIT[t.unit] // 1000)
    ns = v * ref.NS_PER_UNIT[t.unit]
    us = ns // 1000 // unit_us * unit_us + unit_us * _pick(rng, [0, 0, 0, 1, -1, 500]) + \
        _pick(rng, [0, 0, 86_400 * 10**6])
    x = _datetime(us, t.tz is not None)
    return n.Literal(x if x is not None else _datetime(_DAY0 * 86_400 * 10**6, t.tz is not None))


def _maybe_not(rng: np.random.Generator, node: n.Node) -> n.Node:
    return n.Not(node) if _chance(rng, 0.25) else node


LEAF_KINDS = (["cmp"] * 10 + ["colcmp"] * 3 + ["isnull"] * 2 + ["in"] * 3 + ["between"] * 3 +
              ["like"] * 3 + ["startswith"] + ["bool"] * 2 + ["isnan"] * 2 + ["distinct"] * 2)


def leaf(rng: np.random.Generator, ds: Dataset, samples: dict) -> n.Node:
    types = ds.types
    fams = {cmp_family(t) for t in types.values()}
    kind = _pick(rng, LEAF_KINDS)
    if (kind in ("like", "startswith") and "text" not in fams or kind == "bool" and
            "bool" not in fams or kind == "isnan" and "float" not in fams):
        kind = "cmp"
    if kind == "cmp":
        op = operand(rng, ds, samples)
        lit = literal(rng, op)
        cmp = _pick(rng, list(n.Op))
        return n.Compare(cmp, op.node, lit) if _chance(rng, 0.7) else \
            n.Compare(cmp.flipped, lit, op.node)
    if kind == "colcmp":
        a = operand(rng, ds, samples)
        others = [c for c, t in types.items() if _comparable(a.type, t)]
        b = operand(rng, ds, samples, _pick(rng, others)) if others else a
        if not _comparable(a.type, b.type):
            b = Operand(a.node, a.type, a.samples)
        return n.Compare(_pick(rng, list(n.Op)), a.node, b.node)
    if kind == "isnull":
        return _maybe_not(rng, n.IsNull(operand(rng, ds, samples).node))
    if kind == "in":
        op = operand(rng, ds, samples)
        items = [literal(rng, op, null=False) for _ in range(int(rng.integers(1, 5)))]
        if pa.types.is_integer(op.type) or pa.types.is_decimal(op.type):
            # one kind of number per list: DataFusion coerces the list to one type
            items = [x for x in items if not isinstance(x.value, float)] or [n.Literal(0)]
        if _chance(rng, 0.25):
            items.insert(int(rng.integers(len(items) + 1)), n.Literal(None))
        node = n.In(op.node, tuple(items))
        return n.Not(node) if _chance(rng, 0.4) else node
    if kind == "between":
        op = operand(rng, ds, samples)
        return _maybe_not(rng, n.Between(op.node, literal(rng, op), literal(rng, op)))
    if kind in ("like", "startswith"):
        name = _pick(rng, [c for c, t in types.items() if cmp_family(t) == "text"])
        v = _pick(rng, samples[name]) if samples[name] else ""
        if kind == "startswith":
            prefix = v[: int(rng.integers(0, len(v) + 1))] + _pick(rng, ["", "", "a"])
            return _maybe_not(rng, n.StartsWith(n.Column(name), n.Literal(prefix)))
        k = int(rng.integers(0, len(v) + 1))
        pattern = v[:k] + _pick(rng, ["%", "%", "", "_%", "_", "%a", "a%"])
        if "'" in pattern:  # quoting differs between the dialects' LIKE paths: keep it plain
            pattern = pattern.replace("'", "")
        return _maybe_not(rng, n.Like(n.Column(name), pattern))
    if kind == "bool":
        name = _pick(rng, [c for c, t in types.items() if cmp_family(t) == "bool"])
        form = int(rng.integers(3))
        if form == 0:
            return n.Compare(_pick(rng, [n.Op.EQ, n.Op.NE]), n.Column(name),
                             n.Literal(_chance(rng, 0.5)))
        return _maybe_not(rng, n.Column(name))
    if kind == "isnan":
        name = _pick(rng, [c for c, t in types.items() if is_float(t)])
        return _maybe_not(rng, n.IsNan(operand(rng, ds, samples, name).node))
    op = operand(rng, ds, samples)  # distinct
    other = literal(rng, op) if _chance(rng, 0.8) else n.Literal(None)
    return _maybe_not(rng, n.DistinctFrom(op.node, other))


def predicate(rng: np.random.Generator, ds: Dataset, samples: dict, depth: int = 3) -> n.Node:
    if depth <= 0 or _chance(rng, 0.45):
        return leaf(rng, ds, samples)
    kind = _pick(rng, ["and", "and", "or", "or", "not", "isbool"])
    if kind in ("and", "or"):
        kids = tuple(predicate(rng, ds, samples, depth - 1)
                     for _ in range(int(rng.integers(2, 4))))
        return n.And(kids) if kind == "and" else n.Or(kids)
    kid = predicate(rng, ds, samples, depth - 1)
    if kind == "not":
        return n.Not(kid)
    return _maybe_not(rng, n.IsBool(kid, _chance(rng, 0.5)))


def column_samples(ds: Dataset) -> dict:
    out = {}
    for c, _ in ds.columns:
        seen = []
        for g in ds.groups:
            for r in g:
                v = r[c]
                if v is not None and not is_nan(v) and v not in seen:
                    seen.append(v)
        out[c] = seen
    return out


# ---- DataFusion SQL -------------------------------------------------------------------------
def operand_type(node: n.Node, types: dict) -> pa.DataType | None:
    if isinstance(node, n.Column):
        return types[node.name]
    if isinstance(node, n.Cast):
        return node.to
    if isinstance(node, n.Neg):
        return operand_type(node.arg, types)
    return None


def _df_literal(value: object, t: pa.DataType | None, float_ctx: bool) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) or (float_ctx and isinstance(value, (int, D))):
        kind = "REAL" if t == pa.float32() else "DOUBLE"
        if isinstance(value, float):
            text = "NaN" if math.isnan(value) else repr(value)
        else:
            text = str(value)
        return f"CAST('{text}' AS {kind})"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, D):
        text = format(value, "f")
        return text if "." in text else text + ".0"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, bytes):
        return "X'" + value.hex().upper() + "'"
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            text = value.astimezone(UTC).replace(tzinfo=None).isoformat() + "Z"
            return f"arrow_cast('{text}', 'Timestamp(Microsecond, Some(\"UTC\"))')"
        return f"CAST('{value.isoformat()}' AS TIMESTAMP)"
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    raise TypeError(f"cannot render {value!r} for DataFusion")


def _digits(value: D | int) -> int:
    """The precision of the DECIMAL Spark reads a number literal as.

    >>> _digits(D("-0.00000000005")), _digits(D("12.50")), _digits(10**38)
    (11, 4, 39)
    """
    _, digits, exponent = D(value).as_tuple()
    return max(len(digits) + max(0, exponent), -exponent, 1)


def _df_type(t: pa.DataType) -> str:
    if pa.types.is_decimal(t):
        return f"DECIMAL({t.precision}, {t.scale})"
    if pa.types.is_timestamp(t):
        return "TIMESTAMP"
    return {pa.int64(): "BIGINT", pa.float64(): "DOUBLE", pa.float32(): "REAL",
            pa.date32(): "DATE", pa.int32(): "INT"}[t]


def df_sql(node: n.Node, types: dict, float_ctx: bool = False) -> str:
    """DataFusion's spelling of ``node`` (numbers against a float operand as DOUBLE, as Spark
    compares them)."""

    def sub(x: n.Node, fc: bool = False) -> str:
        return df_sql(x, types, fc)

    def ctx(*kids: n.Node) -> bool:
        return any(is_float(operand_type(k, types)) for k in kids)

    if isinstance(node, n.Column):
        return '"' + node.name.replace('"', '""') + '"'
    if isinstance(node, n.Literal):
        return _df_literal(node.value, node.type, float_ctx)
    if isinstance(node, n.Compare):
        fc = ctx(node.left, node.right)
        return f"({sub(node.left, fc)} {node.op.value} {sub(node.right, fc)})"
    if isinstance(node, (n.And, n.Or)):
        word = " AND " if isinstance(node, n.And) else " OR "
        return "(" + word.join(sub(a) for a in node.args) + ")"
    if isinstance(node, n.Not):
        return f"(NOT {sub(node.arg)})"
    if isinstance(node, n.IsNull):
        return f"({sub(node.arg)} IS NULL)"
    if isinstance(node, n.IsBool):
        return f"({sub(node.arg)} IS {'TRUE' if node.value else 'FALSE'})"
    if isinstance(node, n.DistinctFrom):
        fc = ctx(node.left, node.right)
        return f"({sub(node.left, fc)} IS DISTINCT FROM {sub(node.right, fc)})"
    if isinstance(node, n.In):
        fc = ctx(node.arg)
        return f"({sub(node.arg)} IN ({', '.join(sub(v, fc) for v in node.values)}))"
    if isinstance(node, n.Between):
        fc = ctx(node.arg)
        return f"({sub(node.arg)} BETWEEN {sub(node.low, fc)} AND {sub(node.high, fc)})"
    if isinstance(node, n.Like):
        assert node.escape == "\\"
        return f"({sub(node.arg)} LIKE {_df_literal(node.pattern, None, False)})"
    if isinstance(node, n.StartsWith):
        return f"starts_with({sub(node.arg)}, {sub(node.prefix)})"
    if isinstance(node, n.IsNan):
        return f"isnan({sub(node.arg)})"
    if isinstance(node, n.Cast):
        return f"CAST({sub(node.arg)} AS {_df_type(node.to)})"
    if isinstance(node, n.Neg):
        return f"(-{sub(node.arg)})"
    raise TypeError(f"cannot render {type(node).__name__} for DataFusion")


# ---- DataFusion -----------------------------------------------------------------------------
_METRIC = re.compile(r"row_groups_pruned_statistics=(\d+) total → (\d+) matched"
                     r"(?: -> (\d+) fully matched)?")
_FILES = re.compile(r"files_ranges_pruned_statistics=(\d+) total → (\d+) matched")
_PATH = re.compile(r"file_groups=\{[^}]*?([^/\[\],\s]+\.parquet)")


@dataclasses.dataclass
class Scan:
    """One DataSourceExec of an EXPLAIN ANALYZE: row groups total / kept / fully matched."""

    file: str
    total: int | None
    kept: int | None
    fully: int | None


def datafusion_kept(path, where: str, groups: int) -> int:
    """Row groups of one Parquet file that DataFusion's statistics pruning keeps for ``SELECT *
    FROM t WHERE <where>`` (read off EXPLAIN ANALYZE; ``groups`` when it builds no pruning
    predicate, so reads every group)."""
    from datafusion import SessionConfig, SessionContext

    ctx = SessionContext(SessionConfig().with_target_partitions(1)
                         .set("datafusion.execution.parquet.pruning", "true")
                         .set("datafusion.execution.parquet.pushdown_filters", "false"))
    ctx.register_parquet("t", str(path))
    rows = ctx.sql(f"EXPLAIN ANALYZE SELECT * FROM t WHERE {where}").to_arrow_table().to_pylist()
    (scan,) = parse_scans("\n".join(r["plan"] for r in rows))
    return groups if scan.kept is None else scan.kept


def parse_scans(plan: str) -> list[Scan]:
    out = []
    for line in plan.splitlines():
        if "DataSourceExec" not in line:
            continue
        m_path = _PATH.search(line)
        m = _METRIC.search(line)
        f = _FILES.search(line)
        file = m_path[1] if m_path else "?"
        if f and int(f[2]) == 0:  # the whole file pruned from its statistics
            out.append(Scan(file, None, 0, 0))
        elif m and int(m[1]) > 0:
            out.append(Scan(file, int(m[1]), int(m[2]), int(m[3]) if m[3] else None))
        else:  # no pruning predicate, or its evaluation failed ("0 total"): every group read
            out.append(Scan(file, None, None, None))
    return out


class DataFusion:
    """A session over one dataset: ``t`` (the file), ``g<i>`` (one file per group), ``m`` (an
    in-memory copy with a row id ``rid``, for DataFusion's own row-level answer)."""

    def __init__(self, ds: Dataset, path: Path, group_paths: list):
        from datafusion import SessionConfig, SessionContext

        cfg = (SessionConfig().with_target_partitions(1)
               .set("datafusion.sql_parser.parse_float_as_decimal", "true")
               .set("datafusion.execution.parquet.pruning", "true")
               .set("datafusion.execution.parquet.pushdown_filters", "false")
               .set("datafusion.execution.parquet.bloom_filter_on_read", "false"))
        self.ctx = SessionContext(cfg)
        self.ctx.register_parquet("t", str(path))
        for i, p in enumerate(group_paths):
            self.ctx.register_parquet(f"g{i}", str(p))
            self.ctx.register_parquet(f"h{i}", str(Path(p).with_name(f"h{i}.parquet")))
        self.ctx.register_record_batches("m", [ds.table(with_rid=True).to_batches()])
        self.ds = ds
        self.ngroups = len(group_paths)
        self.last_plan_empty = False
        self.sizes = [len(g) for g in ds.groups]

    def _plan(self, sql: str) -> str:
        rows = self.ctx.sql("EXPLAIN ANALYZE " + sql).to_arrow_table().to_pylist()
        return "\n".join(r["plan"] for r in rows)

    def file_counts(self, where: str) -> tuple[int, int, int | None]:
        """(total, kept, fully matched) for the whole file; a plan without a scan (the
        planner folded the filter to FALSE) keeps nothing."""
        scans = [s for s in parse_scans(self._plan(f"SELECT * FROM t WHERE {where}"))]
        self.last_plan_empty = not scans
        if not scans:
            return self.ngroups, 0, 0
        (s,) = scans
        return (self.ngroups, self.ngroups if s.kept is None else s.kept, s.fully)

    def per_group(self, where: str, expected: int) -> tuple[list[bool], list[bool]]:
        """(kept, fully matched) per group, from files of (the group, the group, all rows):
        DataFusion keeps ``2 * kept + kept(all rows)`` of their row groups. When that does not
        add up to the ``expected`` count of the whole file, from files of (the group, the
        group, one middling row)."""
        for prefix in ("g", "h"):
            kept, fully = self._per_group(where, prefix)
            if sum(kept) == expected:
                break
        return kept, fully

    def _per_group(self, where: str, prefix: str) -> tuple[list[bool], list[bool]]:
        sql = " UNION ALL ".join(f"SELECT * FROM {prefix}{i} WHERE {where}" for i in
                                 range(self.ngroups))
        scans = {s.file: s for s in parse_scans(self._plan(sql))}
        kept, fully = [], []
        for i in range(self.ngroups):
            s = scans.get(f"{prefix}{i}.parquet")
            kept.append(s is not None and (s.kept is None or s.kept // 2 > 0))
            fully.append(s is not None and (s.fully or 0) // 2 > 0)
        return kept, fully

    def rows(self, where: str) -> set:
        t = self.ctx.sql(f"SELECT rid FROM m WHERE {where}").to_arrow_table()
        return set(t.column(0).to_pylist())

    def rows_of(self, rows: list, where: str) -> set:
        """The positions of ``rows`` (not the dataset's) for which ``where`` is TRUE."""
        table = self.ds.group_table(rows)
        table = table.append_column("rid", pa.array(range(len(rows)), pa.int64()))
        self.ctx.register_record_batches("w", [table.to_batches()])
        try:
            t = self.ctx.sql(f"SELECT rid FROM w WHERE {where}").to_arrow_table()
        finally:
            self.ctx.deregister_table("w")
        return set(t.column(0).to_pylist())


# ---- checking one predicate -----------------------------------------------------------------
NAMES = {0: "NONE_MATCH", 1: "MAYBE_MATCH", 2: "ALL_MATCH"}

# Why DataFusion may prune a row group that prunekit keeps. Anything else is "unexplained".
CATEGORIES = {
    "nan-no-nan-count": "docs/semantics.md §4: Parquet footers leave NaN out of min/max and "
                        "carry no nan_count, so prunekit cannot rule out a NaN, which is "
                        "greater than every number; with the group's exact nan_count prunekit "
                        "prunes too. DataFusion assumes there is no NaN.",
    "nan-bounds": "docs/semantics.md §4: the group holds NaN; Parquet bounds leave it out, so "
                  "prunekit must assume a NaN may satisfy a leaf (an all-NaN group has no "
                  "bounds at all). From exact Spark/Delta-style statistics (NaN the greatest "
                  "bound, nan_count) prunekit prunes the group too. DataFusion ignores NaN.",
    "nan-caused": "docs/semantics.md §4: the group holds NaN, and with those NaN replaced by NULL "
                  "prunekit prunes it too: prunekit lets a NaN satisfy a leaf where Spark says "
                  "it can (NaN is the greatest value; -NaN is NaN), DataFusion's min/max rules "
                  "ignore NaN (its pruning of a leaf can be unsound, saved here by another "
                  "conjunct). Gaps seen here: prunekit does not use 'every value is NaN' in "
                  "column-vs-column comparisons or under unary minus.",
    "nan-present": "docs/semantics.md §4: the group holds a NaN that the bounds do not show; "
                   "DataFusion ignores it and happens to be right only because the NaN rows do "
                   "not satisfy the whole predicate.",
    "df-unsound-nan": "DataFusion is unsound: a NaN row makes the predicate TRUE (in Spark "
                      "and in DataFusion's own row semantics: NaN is greatest), but DataFusion "
                      "pruned from bounds that leave NaN out.",
    "df-unsound": "DataFusion pruned a group holding a row for which both Spark semantics and "
                  "DataFusion's own row evaluation give TRUE.",
    "self-compare": "prunekit reads a column compared with itself (x = x, x < x) as two "
                    "columns' bounds; DataFusion simplifies x = x to x IS NOT NULL. Spelled out "
                    "(x IS NOT NULL OR NULL), prunekit prunes the group too.",
    "planner-false": "DataFusion's optimizer folds the whole filter to FALSE by reasoning "
                     "across leaves (x = 'a' AND x = 'b'); prunekit's three-valued lattice "
                     "(docs/semantics.md §3) judges each leaf on its own, so two leaves that are "
                     "each possible in the group keep it.",
    "weakened": "docs/semantics.md §5: prunekit weakens a sub-expression it does not reason about "
                "to 'anything' (the reason in brackets is explain()'s 'weakened:' line, or the "
                "guard under which explain() shows a leaf WIDENED, such as unary minus at the "
                "type's minimum, where integers wrap), even for a group whose column is all "
                "NULL; DataFusion evaluates it on min/max.",
    "df-semantics": "DataFusion's SQL means something else for this predicate (its row-level "
                    "answer differs from Spark's), so its pruning is not comparable here.",
    "df-leaf-semantics": "A leaf of the predicate means something else in DataFusion's SQL on "
                         "this group's rows, though the whole predicate's rows agree (another "
                         "leaf is FALSE there): DataFusion prunes by its own reading of that "
                         "leaf, which prunekit, reading Spark's, cannot. Seen: a decimal "
                         "literal of more scale than its column, which Spark rounds into the "
                         "column's scale (b <= 0.00000000005 on DECIMAL(38, 10) is b <= 1E-10) "
                         "and DataFusion compares exactly. A BETWEEN counts as its two "
                         "comparisons.",
    "df-bounds-semantics": "A row that a group of these bounds and null counts could hold "
                           "(after the colon: one of its rows with one column set next to a "
                           "literal) is TRUE in Spark's semantics and not in DataFusion's SQL, "
                           "though the group's own rows read alike: no pruner reading Spark's "
                           "semantics may skip the group. Seen: a BIGINT BETWEEN a DOUBLE and a "
                           "DECIMAL, which DataFusion compares in one DECIMAL type and Spark "
                           "bound by bound.",
}


@dataclasses.dataclass
class Outcome:
    """Everything known about one (dataset, predicate)."""

    spark_sql: str
    df: str
    truths: list  # per group, per row: True / False / None
    outcomes: list | None = None  # prunekit, footers as they are
    outcomes_nan: list | None = None  # prunekit, with exact nan_count
    error: str | None = None  # prunekit raised
    unsound: list = dataclasses.field(default_factory=list)  # messages
    df_error: str | None = None
    df_counts: tuple | None = None  # (total, kept, fully)
    df_kept: list | None = None
    df_fully: list | None = None
    df_rows_agree: bool | None = None
    df_planner_false: bool = False  # DataFusion's optimizer folded the filter to FALSE
    df_more: dict = dataclasses.field(default_factory=dict)  # group -> category
    pk_more: int = 0  # groups prunekit prunes and DataFusion keeps
    df_fully_more: int = 0  # groups DataFusion calls fully matched and prunekit not ALL_MATCH
    df_fully_unsound: int = 0  # ... of which hold a row that is not TRUE
    roundtrip: str | None = None  # SQL text and tree disagree


def violations(outcomes: list, truths: list) -> list[str]:
    out = []
    for i, (o, ts) in enumerate(zip(outcomes, truths, strict=True)):
        if o == 0 and any(t is True for t in ts):
            out.append(f"group {i}: NONE_MATCH but row values {ts}")
        elif o == 2 and any(t is not True for t in ts):
            out.append(f"group {i}: ALL_MATCH but row values {ts}")
        elif o not in NAMES:
            out.append(f"group {i}: outcome {o!r}")
    return out


EXPECTED_ERRORS = (pk.UnsupportedError, pk.TypeMismatchError)


def classify(tree: n.Node, sql: str, schema: pa.Schema, table: pa.Table, backend: str,
             check_tree: bool = True) -> tuple[list, str | None]:
    """prunekit's outcomes from the SQL text (so the parser is tested), and whether the tree
    itself gives the same."""
    stats = pk.Statistics.from_arrow(table)
    got = pk.PruningPredicate(sql, schema).classify(stats, backend=backend).tolist()
    mismatch = None
    if check_tree:
        direct = pk.PruningPredicate(tree, schema).classify(stats, backend="numpy").tolist()
        if direct != got:
            mismatch = f"SQL text gives {got} ({backend}), the tree gives {direct} (numpy)"
    return got, mismatch


def _float_columns(tree: n.Node, types: dict) -> set:
    return {x.name for x in tree.walk() if isinstance(x, n.Column) and is_float(types[x.name])}


def check(ds: Dataset, tree: n.Node, stats: pa.Table, schema: pa.Schema,
          df: DataFusion | None, backend: str = "numpy") -> Outcome:
    types = ds.types
    truths = [[ref.evaluate(tree, types, r) for r in g] for g in ds.groups]
    res = Outcome(tree.sql(), df_sql(tree, types), truths)
    try:
        res.outcomes, res.roundtrip = classify(tree, res.spark_sql, schema, stats, backend)
        res.outcomes_nan, _ = classify(tree, res.spark_sql, schema,
                                       with_nan_counts(stats, ds), backend, check_tree=False)
    except EXPECTED_ERRORS as e:
        res.error = f"{type(e).__name__}: {e}"
        return res
    for label, outs in (("footers", res.outcomes), ("footers+nan_count", res.outcomes_nan)):
        res.unsound += [f"[{label}] {v}" for v in violations(outs, truths)]
    if df is None:
        return res
    try:
        res.df_counts = df.file_counts(res.df)
        res.df_planner_false = df.last_plan_empty
        total, kept_n, fully_n = res.df_counts
        if 0 < kept_n < total:
            kept, fully = df.per_group(res.df, kept_n)
        else:  # all or nothing: no attribution needed
            kept = [kept_n == total] * total
            fully = [bool(fully_n) and fully_n == total] * total
        true_rows = df.rows(res.df)
    except Exception as e:  # noqa: BLE001 - DataFusion's errors are data here
        res.df_error = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
        return res
    res.df_kept, res.df_fully = kept, fully
    rid, spark_rows = 0, set()
    rid_of = []
    for ts in truths:
        rid_of.append(list(range(rid, rid + len(ts))))
        spark_rows |= {rid + k for k, t in enumerate(ts) if t is True}
        rid += len(ts)
    res.df_rows_agree = spark_rows == true_rows
    if sum(kept) != res.df_counts[1]:
        res.df_more[-1] = (f"unexplained: the file's metric keeps {res.df_counts[1]}, the "
                           f"single-group files keep {sum(kept)}")
    for i, o in enumerate(res.outcomes):
        if fully[i] and o != 2:
            res.df_fully_more += 1
            res.df_fully_unsound += any(t is not True for t in truths[i])
    floats = _float_columns(tree, types)
    for i, o in enumerate(res.outcomes):
        if o == 0 and kept[i]:
            res.pk_more += 1
        if o == 0 or kept[i]:
            continue
        spark_true = [r for r, t in zip(rid_of[i], truths[i], strict=True) if t is True]
        nan_rows = any(is_nan(r[c]) for r in ds.groups[i] for c in floats)
        if spark_true:
            if not any(r in true_rows for r in spark_true):
                res.df_more[i] = "df-semantics"
            else:
                res.df_more[i] = "df-unsound-nan" if nan_rows else "df-unsound"
        elif res.outcomes_nan[i] == 0:
            res.df_more[i] = "nan-no-nan-count"
        elif nan_rows and _prunes_with_nan_bounds(res.spark_sql, schema, stats, ds, i, backend):
            res.df_more[i] = "nan-bounds"
        elif nan_rows and _prunes_without_nan(tree, res.spark_sql, schema, stats, ds, i, backend):
            res.df_more[i] = "nan-present"
        elif nan_rows and _prunes_nan_as_null(tree, ds, i, backend):
            res.df_more[i] = "nan-caused"
        elif not res.df_rows_agree:
            res.df_more[i] = "df-semantics"
        elif _prunes_rewritten(tree, schema, stats, i, backend):
            res.df_more[i] = "self-compare"
        elif res.df_counts[1] == 0 and res.df_planner_false:
            res.df_more[i] = "planner-false"
        elif weakened(res.spark_sql, schema):
            res.df_more[i] = "weakened[" + "; ".join(weakened(res.spark_sql, schema)) + "]"
        elif _a_leaf_reads_otherwise(tree, types, ds.groups[i], rid_of[i], df):
            res.df_more[i] = "df-leaf-semantics"
        elif witness := _a_possible_row_reads_otherwise(tree, types, ds.groups[i], df):
            res.df_more[i] = f"df-bounds-semantics: {witness}"
        else:
            res.df_more[i] = "unexplained"
    return res


def _leaves(tree: n.Node) -> list[n.Node]:
    """The operands of the predicate's AND, OR and NOT, all the way down; a BETWEEN as its
    two comparisons (prunekit judges each on its own)."""
    out, stack = [], [tree]
    while stack:
        x = stack.pop()
        if isinstance(x, (n.And, n.Or, n.Not)):
            stack.extend(x.children())
        elif isinstance(x, n.Between):
            stack.extend((x.arg >= x.low, x.arg <= x.high))
        else:
            out.append(x)
    return out


def _a_leaf_reads_otherwise(tree: n.Node, types: dict, group: list, rids: list,
                            df: DataFusion) -> bool:
    """Whether some leaf is TRUE on other rows of the group in DataFusion's SQL than in
    Spark's semantics (the reference evaluator)."""
    for leaf in _leaves(tree):
        spark = {rid for rid, r in zip(rids, group, strict=True)
                 if ref.evaluate(leaf, types, r) is True}
        try:
            theirs = df.rows(df_sql(leaf, types)) & set(rids)
        except Exception:  # noqa: BLE001, S112 - a leaf DataFusion cannot run alone
            continue
        if spark != theirs:
            return True
    return False


def _near_literals(tree: n.Node, t: pa.DataType, lo, hi) -> list:
    """Values of type ``t`` in [lo, hi] next to the predicate's numeric literals (each
    literal's floor and ceiling in the type, and their neighbours), with ``lo`` and ``hi``:
    where two readings of a literal part, they part next to it."""
    out = {lo, hi}
    for lit in tree.walk():
        v = lit.value if isinstance(lit, n.Literal) else None
        if isinstance(v, bool) or not isinstance(v, (int, float, D)) or is_nan(v):
            continue
        if is_float(t):
            x = np.array(v, t.to_pandas_dtype())
            out |= {float(np.nextafter(x, x.dtype.type(k) * np.inf)) if k else float(x)
                    for k in (-1, 0, 1)}
        elif (ref.is_int(t) or pa.types.is_decimal(t)) and math.isfinite(v):
            scale = t.scale if pa.types.is_decimal(t) else 0
            with decimal.localcontext(decimal.Context(prec=100)):
                units = D(v).scaleb(scale)
                out |= {D(whole + k).scaleb(-scale) for whole in (math.floor(units),
                        math.ceil(units)) for k in (-1, 0, 1)}
    values = (x for x in out if lo <= x <= hi)
    return sorted(int(x) if ref.is_int(t) else x for x in values)


def _a_possible_row_reads_otherwise(tree: n.Node, types: dict, group: list,
                                    df: DataFusion) -> str | None:
    """A row that a group of these bounds and null counts could hold, TRUE in Spark's
    semantics and not in DataFusion's SQL, as text (None if none is found): one of the
    group's rows with one column set to a value within the column's bounds next to a literal.
    No pruner reading Spark's semantics can skip such a group."""
    for c in sorted({x.name for x in tree.walk() if isinstance(x, n.Column)}):
        t = types[c]
        present = [r[c] for r in group if r[c] is not None and not is_nan(r[c])]
        if not present:
            continue
        witnesses = [{**r, c: v} for v in _near_literals(tree, t, min(present), max(present))
                     for r in group if r[c] is not None]
        witnesses = [w for w in witnesses if ref.evaluate(tree, types, w) is True]
        if not witnesses:
            continue
        theirs = df.rows_of(witnesses, df_sql(tree, types))
        for k, w in enumerate(witnesses):
            if k not in theirs:
                return f"{c} = {w[c]!r}"
    return None


def without_self_compare(tree: n.Node) -> n.Node:
    """``x = x`` (also <=, >=) as ``x IS NOT NULL OR NULL``; ``x < x`` (also >, <>) as
    ``x IS NULL AND NULL``: the same value for every row (NaN = NaN in Spark)."""

    def step(x: n.Node) -> n.Node:
        if isinstance(x, n.Compare) and x.left.same_as(x.right):
            if x.op in (n.Op.EQ, n.Op.LE, n.Op.GE):
                return n.Or((n.Not(n.IsNull(x.left)), n.Literal(None)))
            return n.And((n.IsNull(x.left), n.Literal(None)))
        return x

    return n.transform(tree, step)


def _prunes_rewritten(tree, schema, stats, i, backend) -> bool:
    """Would prunekit prune group ``i`` if self-comparisons were spelled out?"""
    other = without_self_compare(tree)
    if other.same_as(tree):
        return False
    out = pk.PruningPredicate(other, schema).classify(pk.Statistics.from_arrow(stats),
                                                      backend=backend)
    return int(out[i]) == 0


def weakened(sql: str, schema: pa.Schema) -> list[str]:
    """What prunekit's explain() says it gave up on, columns named ``<col>``: sub-expressions
    weakened to "anything" (``weakened: ...``) and guards where a leaf is widened to anything
    (``WIDENED``, e.g. unary minus at the type's minimum), numbers as ``N``."""
    out = []
    lines = pk.PruningPredicate(sql, schema).explain().splitlines()
    for k, line in enumerate(lines):
        if line.startswith("weakened:"):
            reason = line.split(":", 1)[1].strip()
        elif line.strip().startswith("WIDENED") and k + 1 < len(lines):
            guard = re.sub(r"-?\d[\d.]*(E[+-]?\d+)?", "N", lines[k + 1].strip())
            reason = f"widened where {guard}"
        else:
            continue
        for name in schema.names:
            reason = re.sub(rf"(?<![\w']){re.escape(name)}(?= \(| AS | =| IS)", "<col>",
                            reason)
        out.append(reason)
    return sorted(set(out))


def _prunes_with_nan_bounds(sql, schema, stats, ds, i, backend) -> bool:
    """Would prunekit prune group ``i`` from exact float statistics as Spark and Delta keep them
    (NaN the greatest bound, so min = NaN means every value is NaN; exact nan_count)?"""
    one = stats.slice(i, 1)
    rows = ds.groups[i]
    floats = [c for c, t in ds.columns if is_float(t) and c in one.column_names]
    for c in floats:
        t = ds.types[c]
        vals = [r[c] for r in rows]
        present = [v for v in vals if v is not None]
        nums = [v for v in present if not is_nan(v)]
        nans = len(present) - len(nums)
        lo = min(nums) if nums else (NAN if nans else None)
        hi = NAN if nans else (max(nums) if nums else None)
        struct = pa.StructArray.from_arrays(
            [pa.array([lo], t), pa.array([hi], t), pa.array([len(vals) - len(present)],
                                                            pa.int64()),
             pa.array([nans], pa.int64())], ["min", "max", "null_count", "nan_count"])
        one = one.set_column(one.column_names.index(c), c, struct)
    stats_i = pk.Statistics.from_arrow(one, nan_bounds=dict.fromkeys(floats, "include"))
    return int(pk.PruningPredicate(sql, schema).classify(stats_i, backend=backend)[0]) == 0


def _prunes_nan_as_null(tree, ds, i, backend) -> bool:
    """Would prunekit prune group ``i`` (alone, rewritten and re-read) if its NaNs were NULL?
    Then NaN is what keeps the group."""
    rows = [{c: None if is_nan(v) else v for c, v in r.items()} for r in ds.groups[i]]
    one = dataclasses.replace(ds, groups=[rows])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "nan-as-null.parquet"
        write_parquet(one, path)
        stats, _ = read_statistics(path)
        schema = pq.read_schema(path)
    out = pk.PruningPredicate(tree.sql(), schema).classify(pk.Statistics.from_arrow(stats),
                                                           backend=backend)
    return int(out[0]) == 0


def _prunes_without_nan(tree, sql, schema, stats, ds, i, backend) -> bool:
    """Would prunekit prune group ``i`` if its float columns held no NaN?"""
    floats = [leaf_key([c]) for c, t in ds.columns if is_float(t)]
    floats = [c for c in floats if c in stats.column_names]
    pred = pk.PruningPredicate(sql, schema)
    out = pred.classify(pk.Statistics.from_arrow(stats, no_nan=floats), backend=backend)
    return int(out[i]) == 0


# ---- one dataset ----------------------------------------------------------------------------
@dataclasses.dataclass
class Report:
    datasets: int = 0
    predicates: int = 0
    groups_checked: int = 0
    unsound: int = 0
    none_match: int = 0
    all_match: int = 0
    df_predicates: int = 0
    df_pruned: int = 0
    df_more: Counter = dataclasses.field(default_factory=Counter)
    pk_more: int = 0
    df_fully_more: int = 0
    df_fully_unsound: int = 0
    df_errors: Counter = dataclasses.field(default_factory=Counter)
    df_rows_differ: int = 0
    pk_errors: Counter = dataclasses.field(default_factory=Counter)
    roundtrip: int = 0
    reader: str = ""
    seconds: float = 0.0
    failures: list = dataclasses.field(default_factory=list)  # saved JSON paths or messages
    notes: list = dataclasses.field(default_factory=list)  # DataFusion findings

    def add(self, res: Outcome) -> None:
        self.predicates += 1
        if res.error:
            self.pk_errors[res.error.split(":")[0]] += 1
            return
        self.groups_checked += len(res.outcomes)
        self.unsound += bool(res.unsound)
        self.none_match += res.outcomes.count(0)
        self.all_match += res.outcomes.count(2)
        self.roundtrip += res.roundtrip is not None
        if res.df_error:
            self.df_errors[_error_kind(res.df_error)] += 1
        elif res.df_kept is not None:
            self.df_predicates += 1
            self.df_pruned += res.df_kept.count(False)
            self.df_rows_differ += not res.df_rows_agree
            self.pk_more += res.pk_more
            self.df_fully_more += res.df_fully_more
            self.df_fully_unsound += res.df_fully_unsound
            for cat in res.df_more.values():
                self.df_more[cat.split(":")[0]] += 1

    def text(self) -> str:
        lines = [
            f"differential run ({self.reader} statistics, {self.seconds:.0f} s): "
            f"{self.datasets} datasets, {self.predicates} predicates, "
            f"{self.groups_checked} row groups checked",
            f"  prunekit: unsound = {self.unsound}, NONE_MATCH {self.none_match}, "
            f"ALL_MATCH {self.all_match}, SQL/tree mismatches {self.roundtrip}, "
            f"errors {dict(self.pk_errors)}",
            f"  DataFusion: {self.df_predicates} predicates compared, {self.df_pruned} groups "
            f"pruned; row-level answer differs from Spark's on {self.df_rows_differ}; errors "
            f"{sum(self.df_errors.values())} {dict(self.df_errors)}",
            f"  groups prunekit prunes and DataFusion keeps: {self.pk_more}",
            f"  groups DataFusion calls fully matched and prunekit not ALL_MATCH: "
            f"{self.df_fully_more} (holding a row that is not TRUE: {self.df_fully_unsound})",
            f"  groups DataFusion prunes and prunekit keeps: {sum(self.df_more.values())}",
        ]
        described = set()
        for cat, k in self.df_more.most_common():
            base = cat.split("[")[0]
            why = "" if base in described else ": " + describe_category(cat)
            described.add(base)
            lines.append(f"    {k:6d}  {cat}{why}")
        if self.notes:
            lines.append(f"  DataFusion findings: {len(self.notes)}")
            lines += [f"    {m}" for m in self.notes]
        if self.failures:
            lines.append(f"  FAILURES: {len(self.failures)}")
            lines += [f"    {f}" for f in self.failures]
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {f.name: dict(getattr(self, f.name)) if isinstance(getattr(self, f.name), Counter)
                else getattr(self, f.name) for f in dataclasses.fields(self)}


def describe_category(cat: str) -> str:
    return CATEGORIES.get(cat.split("[")[0], "NOT EXPLAINED")


def _error_kind(msg: str) -> str:
    msg = re.sub(r"\d+", "N", msg)
    return msg[:90]


class Workspace:
    """A dataset written to a temporary directory: the file, one file per group, DataFusion."""

    def __init__(self, ds: Dataset, root: Path, datafusion: bool = True):
        self.ds = ds
        self.dir = Path(tempfile.mkdtemp(dir=root))
        self.path = self.dir / "data.parquet"
        write_parquet(ds, self.path)
        self.stats, self.reader = read_statistics(self.path)
        self.schema = pq.read_schema(self.path)
        self.df = None
        if datafusion:
            paths = []
            middle = {}  # one row of middling values: bounds for context, rarely extreme
            for c, t in ds.columns:
                vals = sorted((r[c] for h in ds.groups for r in h if r[c] is not None and
                               not is_nan(r[c])), key=lambda v, t=t: _order_key(v, t))
                middle[c] = vals[len(vals) // 2] if vals else None
            for i, g in enumerate(ds.groups):
                # The group twice, then every row as one group: DataFusion prunes a group of an
                # all-NULL column only when the file has bounds for that column somewhere, so
                # the last group gives the file the context the whole dataset gives it.
                # And with one middling row as context: a context group whose bounds break
                # DataFusion's evaluation (a CAST that overflows) makes it keep everything.
                p = self.dir / f"g{i}.parquet"
                write_parquet(ds, p, [g, g, [r for h in ds.groups for r in h]])
                write_parquet(ds, self.dir / f"h{i}.parquet", [g, g, [middle]])
                paths.append(p)
            self.df = DataFusion(ds, self.path, paths)

    def check(self, tree: n.Node, backend: str = "numpy") -> Outcome:
        return check(self.ds, tree, self.stats, self.schema, self.df, backend)

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


def failure_kind(res: Outcome) -> str | None:
    if res.unsound:
        return "unsound"
    if res.roundtrip:
        return "roundtrip"
    if any(c.startswith("unexplained") for c in res.df_more.values()):
        return "unexplained"
    return None


# ---- shrinking ------------------------------------------------------------------------------
def _subpredicates(tree: n.Node) -> list[n.Node]:
    """Smaller candidate predicates: boolean subtrees, and And/Or with one child fewer."""
    out = []
    for x in tree.walk():
        if x is tree:
            continue
        if isinstance(x, (n.And, n.Or, n.Not, n.IsBool, n.Compare, n.IsNull, n.In, n.Between,
                          n.Like, n.StartsWith, n.IsNan, n.DistinctFrom)):
            out.append(x)
    if isinstance(tree, (n.And, n.Or)):
        for k in range(len(tree.args)):
            rest = tree.args[:k] + tree.args[k + 1:]
            out.append(rest[0] if len(rest) == 1 else type(tree)(rest))
    if isinstance(tree, n.In) and len(tree.values) > 1:
        for k in range(len(tree.values)):
            out.append(n.In(tree.arg, tree.values[:k] + tree.values[k + 1:]))
    # shrink inside: replace one child by each of its candidates
    kids = tree.children()
    for k, kid in enumerate(kids):
        if isinstance(kid, (n.And, n.Or, n.Not, n.IsBool, n.In)):
            for small in _subpredicates(kid)[:8]:
                out.append(tree.with_children(kids[:k] + (small,) + kids[k + 1:]))
    return out


def shrink(ds: Dataset, tree: n.Node, fails, budget_s: float = 60.0) -> tuple[Dataset, n.Node]:
    """Greedy: fewer groups, fewer rows, fewer columns, smaller predicate, while ``fails``."""
    deadline = time.monotonic() + budget_s
    changed = True
    while changed and time.monotonic() < deadline:
        changed = False
        for cand_ds, cand_tree in _candidates(ds, tree):
            if time.monotonic() > deadline:
                break
            try:
                bad = fails(cand_ds, cand_tree)
            except Exception:  # noqa: BLE001 - a candidate that breaks differently is skipped
                bad = False
            if bad:
                ds, tree, changed = cand_ds, cand_tree, True
                break
    return ds, tree


def _candidates(ds: Dataset, tree: n.Node):
    if len(ds.groups) > 1:
        for i in range(len(ds.groups)):
            yield dataclasses.replace(ds, groups=[ds.groups[i]]), tree
        for i in range(len(ds.groups)):
            yield dataclasses.replace(ds, groups=ds.groups[:i] + ds.groups[i + 1:]), tree
    for i, g in enumerate(ds.groups):
        if len(g) > 1:
            for k in range(len(g)):
                groups = list(ds.groups)
                groups[i] = g[:k] + g[k + 1:]
                yield dataclasses.replace(ds, groups=groups), tree
    used = {x.name for x in tree.walk() if isinstance(x, n.Column)}
    for c, _ in ds.columns:
        if c not in used and len(ds.columns) > 1:
            cols = [(a, t) for a, t in ds.columns if a != c]
            groups = [[{a: r[a] for a, _ in cols} for r in g] for g in ds.groups]
            opts = dict(ds.options)
            if isinstance(opts.get("write_statistics"), list):
                opts["write_statistics"] = [a for a in opts["write_statistics"] if a != c]
            yield Dataset(cols, groups, opts), tree
    for small in _subpredicates(tree):
        yield ds, small
    if ds.options:
        yield dataclasses.replace(ds, options={}), tree


# ---- cases as JSON --------------------------------------------------------------------------
def case_json(ds: Dataset, tree: n.Node, kind: str, seed: object, res: Outcome | None,
              note: str = "") -> dict:
    d = {"kind": kind, "seed": seed, "note": note, **ds.to_json(),
         "predicate": tree_to_json(tree), "spark_sql": tree.sql(),
         "datafusion_sql": df_sql(tree, ds.types)}
    if res is not None:
        d["expected"] = {"row_truths": res.truths}
        d["got"] = {"prunekit": res.outcomes, "prunekit_nan_count": res.outcomes_nan,
                    "datafusion_kept": res.df_kept, "unsound": res.unsound,
                    "df_more": {str(k): v for k, v in res.df_more.items()},
                    "roundtrip": res.roundtrip}
    return d


def save_case(d: dict, directory: Path = REGRESSIONS) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    body = json.dumps(d, indent=1, ensure_ascii=False, sort_keys=False)
    digest = hashlib.sha1((d["spark_sql"] + json.dumps(d["row_groups"])).encode()).hexdigest()
    path = directory / f"{d['kind']}-{digest[:10]}.json"
    path.write_text(body + "\n", encoding="utf-8")
    return path


def load_case(path: Path) -> tuple[Dataset, n.Node, dict]:
    d = json.loads(Path(path).read_text(encoding="utf-8"))
    return Dataset.from_json(d), tree_from_json(d["predicate"]), d


def check_case(ds: Dataset, tree: n.Node, root: Path, datafusion: bool = True,
               backend: str = "numpy") -> Outcome:
    ws = Workspace(ds, root, datafusion)
    try:
        return ws.check(tree, backend)
    finally:
        ws.close()


def shrink_and_save(ds: Dataset, tree: n.Node, kind: str, seed: object, root: Path,
                    budget_s: float = 60.0) -> Path:
    """Shrink while the failure (or, for kind "datafusion", DataFusion's unsound pruning)
    persists; save the minimal case."""
    datafusion = kind in ("unexplained", "datafusion")

    def fails(d, t):
        res = check_case(d, t, root, datafusion)
        if kind == "datafusion":
            return "df-unsound" in res.df_more.values()
        return failure_kind(res) == kind

    small_ds, small_tree = shrink(ds, tree, fails, budget_s)
    res = check_case(small_ds, small_tree, root, datafusion)
    note = "; ".join(res.unsound) or res.roundtrip or json.dumps(
        {str(k): v for k, v in res.df_more.items()})
    return save_case(case_json(small_ds, small_tree, kind, seed, res, note))


# ---- a run ----------------------------------------------------------------------------------
def run(seeds, predicates_per_dataset: int = 20, datafusion: bool = True,
        deadline: float | None = None, save_failures: bool = True, backend: str = "numpy",
        numba_every: int = 0, log=None) -> Report:
    """Generate a dataset per seed and ``predicates_per_dataset`` predicates on it; check all.
    Stops at ``deadline`` (time.monotonic()) if given."""
    report = Report()
    start = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="prunekit-diff-"))
    try:
        for seed in seeds:
            if deadline is not None and time.monotonic() > deadline:
                break
            rng = np.random.default_rng(seed)
            ds = random_dataset(rng)
            samples = column_samples(ds)
            try:
                ws = Workspace(ds, root, datafusion)
            except Exception as e:  # noqa: BLE001 - the writer or the reader broke
                report.failures.append(f"seed {seed}: dataset crash {e!r}")
                if save_failures:
                    save_case(case_json(ds, n.Literal(True), "crash", [seed], None, repr(e)))
                continue
            report.reader = ws.reader
            report.datasets += 1
            try:
                for k in range(predicates_per_dataset):
                    tree = predicate(rng, ds, samples)
                    use = "numba" if numba_every and k % numba_every == 0 else backend
                    try:
                        res = ws.check(tree, use)
                    except Exception as e:  # noqa: BLE001 - a crash is a failure to report
                        report.predicates += 1
                        report.pk_errors[f"crash {type(e).__name__}"] += 1
                        report.failures.append(f"seed {seed} predicate {k}: crash {e!r} on "
                                               f"{tree.sql()}")
                        continue
                    report.add(res)
                    if "df-unsound" in res.df_more.values():  # a finding about DataFusion
                        msg = f"seed {seed} predicate {k}: DataFusion unsound: {res.spark_sql}"
                        if save_failures:
                            msg += " -> " + shrink_and_save(ds, tree, "datafusion", [seed, k],
                                                            root).name
                        report.notes.append(msg)
                        if log:
                            log(msg)
                    kind = failure_kind(res)
                    if kind:
                        msg = f"seed {seed} predicate {k}: {kind}: {res.spark_sql}"
                        if save_failures:
                            path = shrink_and_save(ds, tree, kind, [seed, k], root)
                            msg += f" -> {path.name}"
                        report.failures.append(msg)
                        if log:
                            log(msg)
            finally:
                ws.close()
            if log and report.datasets % 10 == 0:
                log(f"{report.datasets} datasets, {report.predicates} predicates, "
                    f"{report.groups_checked} groups, unsound {report.unsound}, "
                    f"{time.monotonic() - start:.0f} s")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report.seconds = time.monotonic() - start
    return report
