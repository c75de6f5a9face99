"""A brute-force row evaluator: the truth that pruning outcomes are checked against.

``evaluate(tree, types, row)`` gives the value of a predicate tree
(``prunekit.expr.syntax.nodes``) for one row under Spark SQL semantics as docs/semantics.md §2
states them: ``True``, ``False`` or ``None`` (NULL). It is written from the semantics, not from
prunekit's binding or coercion code, and it is slow on purpose: one Python object per value, exact
rationals for every exact number.

Row values (``None`` is NULL):

============================== ===============================================================
column type                    Python value
============================== ===============================================================
int8 .. int64, uint8 .. uint64 ``int``
float32, float64               ``float`` (NaN, ±inf, ±0.0 allowed; float32 values are exact)
decimal128                     ``decimal.Decimal`` (or ``int``)
string, large_string           ``str``
binary                         ``bytes``
bool                           ``bool``
date32, date64                 ``int`` days since 1970-01-01, or ``datetime.date``
timestamp(unit, tz)            ``int`` count of ``unit`` since the epoch (UTC), or ``datetime``
============================== ===============================================================

Semantics, in short: three-valued logic; ``NaN = NaN`` and NaN is greater than every other
number; ``-0.0 = 0.0``; strings and binary compare by (UTF-8) bytes; exact numbers (integers,
decimals, decimal literals such as SQL ``5.5``) compare exactly with each other, and in DOUBLE
as soon as a float (a float column, a DOUBLE literal) takes part; dates compare with timestamps
as their UTC midnight, timestamps as instants (naive ones are UTC). Casts follow Spark's
non-ANSI rules where the value matters for pruning (integer widening, integer to double,
float32 to float64, timestamp to date as a floor to the UTC day, decimal rescaling with HALF_UP
rounding and NULL on overflow); the other casts give a deterministic value.

An unknown function (``Func``) evaluates to an arbitrary but fixed value: a hash of its name and
argument values decides whether it, and anything compared with it, is TRUE, FALSE or NULL
(a comparison with a NULL operand is still NULL).

>>> import pyarrow as pa
>>> from prunekit import col, lit
>>> evaluate(col("x") > lit(5), {"x": pa.int8()}, {"x": 6})
True
>>> evaluate(col("f") == lit(float("nan")), {"f": pa.float64()}, {"f": float("nan")})
True
>>> evaluate(col("x").isin([1, None]), {"x": pa.int64()}, {"x": 2}) is None
True
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import re
import zlib
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pyarrow as pa

from prunekit.expr.syntax import nodes as n
from prunekit.expr.syntax.node_visitor import NodeVisitor, visit

NS_PER_UNIT = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}
NS_PER_DAY = 86_400 * 10**9
_EPOCH_DATE = dt.date(1970, 1, 1)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_F32_MAX = float(np.finfo(np.float32).max)
_F32_OVERFLOW = Fraction(2**128 - 2**103)  # at or above this, float32 rounding gives inf

# Value kinds: "num" an exact rational (Fraction), "float" a double, "bytes" a byte string
# (``text`` marks strings), "bool", "date" (days), "ts" (nanoseconds since the epoch, UTC).
NUMERIC = ("num", "float")
TEMPORAL = ("date", "ts")


@dataclass(frozen=True)
class V:
    """One non-NULL value. ``type`` is the Arrow type it has in SQL, when known."""

    kind: str
    value: object
    type: pa.DataType | None = None
    text: bool = False  # a string (not binary): LIKE matches characters


@dataclass(frozen=True)
class Wild:
    """The value of an unknown function: arbitrary, fixed by ``h``."""

    h: int


def _wild_truth(h: int) -> bool | None:
    return (True, False, None)[h % 3]


def _hash(*parts: object) -> int:
    return zlib.crc32(repr(parts).encode("utf-8", "surrogatepass"))


# ---- type helpers ----------------------------------------------------------------------------
def int_range(t: pa.DataType) -> tuple[int, int]:
    """Smallest and largest value of an integer type."""
    info = np.iinfo(t.to_pandas_dtype())
    return int(info.min), int(info.max)


def is_int(t: pa.DataType | None) -> bool:
    return t is not None and pa.types.is_integer(t)


def is_text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def is_bin(t: pa.DataType) -> bool:
    return pa.types.is_binary(t) or pa.types.is_large_binary(t)


def family(t: pa.DataType) -> str:
    """How values of ``t`` compare: num, bytes, bool or temporal."""
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t):
        return "num"
    if is_text(t) or is_bin(t):
        return "bytes"
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_date(t) or pa.types.is_timestamp(t):
        return "temporal"
    raise TypeError(f"no family for {t}")


# ---- Python values <-> V -------------------------------------------------------------------
def days_of(value: int | dt.date) -> int:
    if isinstance(value, dt.datetime):
        raise TypeError("a date column holds dates, not datetimes")
    return value if isinstance(value, int) else (value - _EPOCH_DATE).days


def ns_of_datetime(value: dt.datetime) -> int:
    """Nanoseconds since the epoch; naive datetimes are UTC."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)
    delta = value - _EPOCH
    return ((delta.days * 86_400 + delta.seconds) * 10**6 + delta.microseconds) * 1000


def from_python(value: object, t: pa.DataType) -> V | None:
    """A column value (in the row representation above) as a V."""
    if value is None:
        return None
    if pa.types.is_integer(t) or pa.types.is_decimal(t):
        return V("num", Fraction(value), t)
    if pa.types.is_floating(t):
        return V("float", float(value), t)
    if is_text(t):
        return V("bytes", value.encode("utf-8"), t, text=True)
    if is_bin(t):
        return V("bytes", bytes(value), t)
    if pa.types.is_boolean(t):
        return V("bool", bool(value), t)
    if pa.types.is_date(t):
        return V("date", days_of(value), t)
    if pa.types.is_timestamp(t):
        if isinstance(value, dt.datetime):
            return V("ts", ns_of_datetime(value), t)
        return V("ts", int(value) * NS_PER_UNIT[t.unit], t)
    raise TypeError(f"unsupported column type {t}")


def to_python(v: V | None, t: pa.DataType) -> object:
    """The row representation of ``v``, a value of type ``t`` (inverse of ``from_python``)."""
    if v is None:
        return None
    if pa.types.is_integer(t):
        return int(v.value)
    if pa.types.is_decimal(t):
        return fraction_to_decimal(v.value, t.scale)
    if pa.types.is_floating(t):
        return float(v.value)
    if is_text(t):
        return v.value.decode("utf-8", "replace")
    if is_bin(t):
        return v.value
    if pa.types.is_boolean(t):
        return bool(v.value)
    if pa.types.is_date(t):
        return v.value
    if pa.types.is_timestamp(t):
        return v.value // NS_PER_UNIT[t.unit]
    raise TypeError(f"unsupported type {t}")


_CTX = decimal.Context(prec=120)


def fraction_to_decimal(x: Fraction, scale: int) -> decimal.Decimal:
    """``x`` (a multiple of 10**-scale) as a Decimal with exactly ``scale`` digits."""
    unscaled = x * 10**scale
    if unscaled.denominator != 1:
        raise ValueError(f"{x} has more than {scale} decimal digits")
    return decimal.Decimal(int(unscaled)).scaleb(-scale, context=_CTX)


def literal_value(node: n.Literal) -> V | None:
    """A literal as a V: int and Decimal are exact, float is DOUBLE; a pinned type applies."""
    value, t = node.value, node.type
    if value is None:
        return None
    if isinstance(value, bool):
        v = V("bool", value)
    elif isinstance(value, (int, decimal.Decimal)):
        v = V("num", Fraction(value))
    elif isinstance(value, float):
        v = V("float", value, pa.float64())
    elif isinstance(value, str):
        v = V("bytes", value.encode("utf-8", "surrogatepass"), text=True)
    elif isinstance(value, bytes):
        v = V("bytes", value)
    elif isinstance(value, dt.datetime):
        v = V("ts", ns_of_datetime(value))
    elif isinstance(value, dt.date):
        v = V("date", days_of(value))
    else:
        raise TypeError(f"unsupported literal {value!r}")
    return cast(v, t) if t is not None else v


# ---- numbers -------------------------------------------------------------------------------
def to_double(v: V) -> float:
    if v.kind == "float":
        return v.value
    if v.kind == "bool":
        return float(v.value)
    return float(v.value)  # Fraction -> nearest double (int / int is correctly rounded)


def round_f32(x: Fraction | float) -> float:
    """The float32 nearest to ``x`` (ties to even), as a double; ±inf on overflow."""
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x):
            return x
        with np.errstate(over="ignore"):
            return float(np.float32(x))  # IEEE double -> single rounds correctly
    if abs(x) >= _F32_OVERFLOW:
        return math.inf if x > 0 else -math.inf
    with np.errstate(over="ignore"):
        c = np.float32(float(x))  # may be off by one ulp (double rounding): fix below
    if math.isinf(c):
        c = np.float32(_F32_MAX if x > 0 else -_F32_MAX)
    candidates = [c, np.nextafter(c, np.float32(np.inf)), np.nextafter(c, np.float32(-np.inf))]
    candidates = [f for f in candidates if math.isfinite(f)]

    def key(f: np.float32) -> tuple:
        return abs(Fraction(float(f)) - x), int(np.array(f).view(np.uint32)) & 1

    return float(min(candidates, key=key))


def _round_half_up(x: Fraction) -> int:
    r = math.floor(abs(x) + Fraction(1, 2))
    return r if x >= 0 else -r


def _wrap(value: int, t: pa.DataType) -> int:
    lo, hi = int_range(t)
    span = hi - lo + 1
    return (value - lo) % span + lo


def compare(a: V, b: V) -> int:
    """-1, 0 or 1: Spark's order of two non-NULL values (NaN equal to itself and greatest)."""
    if a.kind in NUMERIC and b.kind in NUMERIC:
        if a.kind == "float" or b.kind == "float":
            x, y = to_double(a), to_double(b)
            if math.isnan(x) or math.isnan(y):
                return (math.isnan(x) and not math.isnan(y)) - (math.isnan(y) and not
                                                                math.isnan(x))
            return (x > y) - (x < y)
        return (a.value > b.value) - (a.value < b.value)
    if a.kind == "bytes" and b.kind == "bytes":
        return (a.value > b.value) - (a.value < b.value)
    if a.kind == "bool" and b.kind == "bool":
        return int(a.value) - int(b.value)
    if a.kind in TEMPORAL and b.kind in TEMPORAL:
        x = a.value * NS_PER_DAY if a.kind == "date" else a.value
        y = b.value * NS_PER_DAY if b.kind == "date" else b.value
        return (x > y) - (x < y)
    raise TypeError(f"cannot compare {a} with {b}")


# ---- casts ---------------------------------------------------------------------------------
def cast(v: V | Wild | None, to: pa.DataType) -> V | Wild | None:
    """``CAST(v AS to)`` with Spark's non-ANSI rules (NULL where a value does not fit)."""
    if v is None or isinstance(v, Wild):
        return v
    if pa.types.is_integer(to):
        return _cast_int(v, to)
    if pa.types.is_float64(to):
        if v.kind in NUMERIC or v.kind == "bool":
            return V("float", to_double(v), to)
        return None
    if pa.types.is_float32(to):
        if v.kind == "float":
            return V("float", round_f32(v.value), to)
        if v.kind in ("num", "bool"):
            return V("float", round_f32(Fraction(v.value)), to)
        return None
    if pa.types.is_decimal(to):
        if v.kind == "float":
            if not math.isfinite(v.value):
                return None
            x = Fraction(v.value)
        elif v.kind in ("num", "bool"):
            x = Fraction(v.value)
        else:
            return None
        unscaled = _round_half_up(x * 10**to.scale)
        if abs(unscaled) >= 10**to.precision:
            return None
        return V("num", Fraction(unscaled, 10**to.scale), to)
    if is_text(to) or is_bin(to):
        if v.kind == "bytes":
            return V("bytes", v.value, to, text=is_text(to))
        return V("bytes", _display(v).encode("utf-8"), to, text=is_text(to))
    if pa.types.is_boolean(to):
        if v.kind == "bool":
            return v
        if v.kind in NUMERIC:
            return V("bool", to_double(v) != 0 if v.kind == "float" else v.value != 0, to)
        return None
    if pa.types.is_date(to):
        if v.kind == "date":
            return V("date", v.value, to)
        if v.kind == "ts":
            return V("date", v.value // NS_PER_DAY, to)  # floor to the UTC day
        return None
    if pa.types.is_timestamp(to):
        unit = NS_PER_UNIT[to.unit]
        if v.kind == "date":
            return V("ts", v.value * NS_PER_DAY, to)
        if v.kind == "ts":
            return V("ts", v.value // unit * unit, to)
        return None
    raise TypeError(f"no cast to {to}")


def _cast_int(v: V, to: pa.DataType) -> V | None:
    if v.kind == "bool":
        return V("num", Fraction(int(v.value)), to)
    if v.kind == "num":
        whole = math.trunc(v.value)
        if isinstance(v.type, pa.Decimal128Type) or v.type is None:
            lo, hi = int_range(to)
            if not lo <= whole <= hi:
                return None  # decimal overflow is NULL
        return V("num", Fraction(_wrap(whole, to)), to)
    if v.kind == "float":
        x = v.value
        if math.isnan(x):
            return V("num", Fraction(0), to)
        # JVM: saturate to long (or int), then narrow by wrapping.
        wide = pa.int64() if to.bit_width == 64 else pa.int32()
        lo, hi = int_range(wide)
        whole = max(lo, min(hi, math.trunc(x))) if math.isfinite(x) else (hi if x > 0 else lo)
        return V("num", Fraction(_wrap(whole, to)), to)
    return None


def try_cast_int(v: V, to: pa.DataType) -> V | None:
    """Spark's ``TRY_CAST`` of a number to an integer type: toward zero, NULL for NaN and
    beyond the type (where ``CAST`` outside ANSI mode saturates or wraps)."""
    if v.kind == "float" and not math.isfinite(v.value):
        return None
    whole = math.trunc(v.value)
    lo, hi = int_range(to)
    return V("num", Fraction(whole), to) if lo <= whole <= hi else None


def _display(v: V) -> str:
    """Spark's text for a value (only used by casts to STRING, which prunekit cannot prune)."""
    if v.kind == "num":
        if isinstance(v.type, pa.Decimal128Type):
            return str(fraction_to_decimal(v.value, v.type.scale))
        return str(v.value.numerator) if v.value.denominator == 1 else str(v.value)
    if v.kind == "float":
        return repr(v.value)
    if v.kind == "bool":
        return "true" if v.value else "false"
    if v.kind == "date":
        return f"date{v.value}"
    return f"ts{v.value}"


def samples_through(samples: tuple, f, t_from: pa.DataType, t_to: pa.DataType) -> tuple:
    """Row values of type ``t_from`` mapped by ``f`` (on V values) to row values of ``t_to``,
    dropping NULL and NaN results (samples for literals near what an expression takes)."""
    out = []
    for s in samples:
        v = f(from_python(s, t_from))
        if v is not None and not (v.kind == "float" and math.isnan(v.value)):
            out.append(to_python(v, t_to))
    return tuple(out)


def negate(v: V | Wild | None) -> V | Wild | None:
    """``-v``: integers wrap at their type's minimum, as Spark's non-ANSI arithmetic does."""
    if v is None or isinstance(v, Wild):
        return v
    if v.kind == "float":
        return V("float", -v.value, v.type)
    if v.kind == "num":
        if is_int(v.type):
            return V("num", Fraction(_wrap(-int(v.value), v.type)), v.type)
        return V("num", -v.value, v.type)
    raise TypeError(f"cannot negate {v}")


NOT_INTEGER = object()


def _integer_type(arg: n.Node, v: V | Wild | None) -> pa.DataType | None:
    """Spark's type of an integer operand: a signed integer column or cast keeps its type; a
    bare integer literal is INT when it fits, else BIGINT. None: not integer arithmetic."""
    if isinstance(v, V) and v.kind == "num" and v.type is not None:
        return v.type if pa.types.is_signed_integer(v.type) else None
    if isinstance(arg, n.Literal) and isinstance(arg.value, int) and not isinstance(
            arg.value, bool) and arg.type is None:
        for t in (pa.int32(), pa.int64()):
            lo, hi = int_range(t)
            if lo <= arg.value <= hi:
                return t
    return None


def int_arithmetic(node: n.Func, kids: tuple) -> V | Wild | None | object:
    """``a + b``, ``a - b``, ``a * b`` over integers, in the wider operand type, wrapping on
    overflow as Spark's non-ANSI arithmetic does (ANSI mode fails the query instead);
    NOT_INTEGER for any other operands."""
    a, b = kids
    if a is None or b is None:
        return None  # NULL in arithmetic is NULL, whatever the types
    types = [_integer_type(arg, v) for arg, v in zip(node.args, kids, strict=True)]
    if None in types:
        return NOT_INTEGER
    if isinstance(a, Wild) or isinstance(b, Wild):
        return Wild(_hash(node.name, kids))
    t = max(types, key=lambda x: x.bit_width)
    x, y = int(a.value), int(b.value)
    exact = x + y if node.name == "+" else x - y if node.name == "-" else x * y
    return V("num", Fraction(_wrap(exact, t)), t)


def double_arithmetic(node: n.Func, kids: tuple) -> V | Wild | None | object:
    """``a + b``, ``a - b``, ``a * b`` in DOUBLE when a DOUBLE column (or DOUBLE arithmetic)
    takes part and the other side is one too or a numeric literal (cast to DOUBLE, rounded to
    nearest); IEEE arithmetic as Python's floats do it (NaN, infinities, -0.0 included)."""
    def side(arg: n.Node, v) -> float | None:
        if isinstance(v, V) and v.kind == "float" and v.type == pa.float64():
            return v.value
        if isinstance(arg, n.Literal) and isinstance(v, V) and v.kind == "num" and (
                arg.type is None or not pa.types.is_floating(arg.type) or
                arg.type == pa.float64()):
            return float(v.value)
        return None

    a, b = kids
    if a is None or b is None:
        return None
    if isinstance(a, Wild) or isinstance(b, Wild):
        return NOT_INTEGER
    x, y = side(node.args[0], a), side(node.args[1], b)
    columns = [isinstance(v, V) and v.kind == "float" for v in kids]
    if x is None or y is None or not any(columns):
        return NOT_INTEGER
    value = x + y if node.name == "+" else x - y if node.name == "-" else x * y
    return V("float", value, pa.float64())


def _operand_kind(arg: n.Node, v: V) -> tuple[str, pa.DataType | None] | None:
    """Spark's kind of an arithmetic operand: ("int", type), ("dec", decimal type), ("double",
    None) or ("float", None) (FLOAT); None for anything else. A bare integer literal next to a
    decimal takes the fewest digits that hold it (``spark.sql.legacy.literal.
    pickMinimumPrecision``, default true): ``p + 1`` is DECIMAL(1, 0) + p."""
    bare = isinstance(arg, n.Literal) and arg.type is None
    if v.kind == "float":
        return ("double", None) if v.type in (None, pa.float64()) else ("float", None)
    if v.kind != "num":
        return None
    if bare and isinstance(arg.value, int):
        digits = max(len(str(abs(arg.value))), 1)
        return ("int", _integer_type(arg, v), pa.decimal128(min(digits, 38), 0))
    if bare and isinstance(arg.value, decimal.Decimal):
        _, digits, exp = arg.value.as_tuple()
        scale = max(-exp, 0)
        return ("dec", pa.decimal128(min(max(len(digits) + max(exp, 0), scale, 1), 38), scale))
    if is_int(v.type) and pa.types.is_signed_integer(v.type):
        digits = {8: 3, 16: 5, 32: 10, 64: 20}[v.type.bit_width]  # Spark's DecimalType.forType
        return ("int", v.type, pa.decimal128(digits, 0))
    if v.type is not None and pa.types.is_decimal(v.type):
        return ("dec", v.type)
    return None


def _adjust(p: int, s: int) -> pa.DataType:
    """Spark's result type when precision exceeds 38 (allowPrecisionLoss, the default): keep
    the integer digits, cut the scale down to no less than min(s, 6)."""
    if p <= 38:
        return pa.decimal128(p, s)
    return pa.decimal128(38, max(38 - (p - s), min(s, 6)))


def decimal_result_type(op: str, t1: pa.DataType, t2: pa.DataType) -> pa.DataType:
    """Spark's DECIMAL result type of ``t1 op t2`` (DecimalPrecision)."""
    p1, s1, p2, s2 = t1.precision, t1.scale, t2.precision, t2.scale
    if op in ("+", "-"):
        s = max(s1, s2)
        return _adjust(max(p1 - s1, p2 - s2) + s + 1, s)
    if op == "*":
        return _adjust(p1 + p2 + 1, s1 + s2)
    s = max(6, s1 + p2 + 1)
    return _adjust(p1 - s1 + s2 + s, s)


def _to_scale(x: Fraction, t: pa.DataType) -> V | None:
    """``x`` rounded HALF_UP to ``t``'s scale; NULL when it needs more digits than ``t`` has
    (legacy mode; ANSI mode fails the query)."""
    unscaled = _round_half_up(x * 10**t.scale)
    if abs(unscaled) >= 10**t.precision:
        return None
    return V("num", Fraction(unscaled, 10**t.scale), t)


def arithmetic(node: n.Func, kids: tuple) -> V | Wild | None | object:
    """``a + b``, ``a - b``, ``a * b``, ``a / b`` as Spark types and computes them (legacy mode
    on overflow); NOT_INTEGER where this evaluator does not model the operands (FLOAT with an
    integer literal is DOUBLE under ANSI but FLOAT in legacy mode: two truths).

    - integers: ``+ - *`` in the wider type, wrapping; ``/`` in DOUBLE;
    - a DOUBLE (column, literal, arithmetic) with any number, FLOAT with a decimal, and ``/``
      without decimals: DOUBLE, IEEE (FLOAT widened);
    - FLOAT with FLOAT (``+ - *``): FLOAT, the exact result rounded to the nearest FLOAT;
    - a DECIMAL with integers or decimals: Spark's result type (``decimal_result_type``), the
      exact result rounded HALF_UP to its scale (division first to 38 places, as Spark's
      ``Decimal./``), NULL beyond its precision;
    - a zero divisor: NULL.
    """
    a, b = kids
    if a is None or b is None:
        return None  # NULL in arithmetic is NULL, whatever the types
    if isinstance(a, Wild) or isinstance(b, Wild):
        return Wild(_hash(node.name, kids))
    ka, kb = (_operand_kind(arg, v) for arg, v in zip(node.args, kids, strict=True))
    if ka is None or kb is None:
        return NOT_INTEGER
    kinds = {ka[0], kb[0]}
    op = node.name
    if "double" in kinds or kinds == {"float", "dec"} or op == "/" and "dec" not in kinds:
        x, y = to_double(a), to_double(b)
        if op == "/":
            return None if y == 0 else V("float", x / y, pa.float64())
        return V("float", x + y if op == "+" else x - y if op == "-" else x * y, pa.float64())
    if kinds == {"float"} and op != "/":  # FLOAT op FLOAT: in FLOAT, in both modes
        x, y = a.value, b.value
        if math.isfinite(x) and math.isfinite(y):
            fx, fy = Fraction(x), Fraction(y)
            return V("float", round_f32(fx + fy if op == "+" else fx - fy if op == "-" else
                                        fx * fy), pa.float32())
        # infinities and NaN: IEEE in DOUBLE gives the same inf or NaN
        return V("float", x + y if op == "+" else x - y if op == "-" else x * y, pa.float32())
    if "float" in kinds:
        return NOT_INTEGER
    if kinds == {"int"}:
        return int_arithmetic(node, kids)
    t = decimal_result_type(op, ka[-1], kb[-1])
    x, y = a.value, b.value
    if op == "/":
        if y == 0:
            return None
        q = x / y  # Spark divides to 38 places (HALF_UP), then rounds to the result scale
        return _to_scale(Fraction(_round_half_up(q * 10**38), 10**38), t)
    return _to_scale(x + y if op == "+" else x - y if op == "-" else x * y, t)


# ---- functions -------------------------------------------------------------------------------
def civil(days: int) -> tuple[int, int, int]:
    """(year, month, day) of a day count since 1970-01-01, any year: the proleptic Gregorian
    calendar repeats every 400 years (146,097 days), so shift into Python's date range."""
    cycles, rest = divmod(days, 146_097)
    d = _EPOCH_DATE + dt.timedelta(days=rest)
    return d.year + 400 * cycles, d.month, d.day


def civil_days(y: int, m: int, d: int) -> int:
    cycles, y0 = divmod(y - 1970, 400)
    return (dt.date(1970 + y0, m, d) - _EPOCH_DATE).days + cycles * 146_097


def _day_of(v: V) -> int | None:
    """The UTC day of a date or timestamp (Spark casts a TIMESTAMP to DATE in the session
    zone: UTC here); None for anything else."""
    if v.kind == "date":
        return v.value
    if v.kind == "ts":
        return v.value // NS_PER_DAY
    return None


def _calendar(field: int):
    def f(v):
        if v is None or isinstance(v, Wild):
            return v
        day = _day_of(v)
        if day is None:
            return NOT_INTEGER
        return V("num", Fraction(civil(day)[field]), pa.int32())

    return f


def _clock(period: int, unit: int):
    """``hour``, ``minute``, ``second`` of a timestamp's wall time (UTC here): the count of
    ``unit`` nanoseconds within its ``period``."""
    def f(v):
        if v is None or isinstance(v, Wild):
            return v
        if v.kind != "ts":
            return NOT_INTEGER
        return V("num", Fraction(v.value % period // unit), pa.int32())

    return f


_FIXED_NS = {"week": 7 * NS_PER_DAY, "day": NS_PER_DAY, "dd": NS_PER_DAY, "hour": 3600 * 10**9,
             "minute": 60 * 10**9, "second": 10**9, "millisecond": 10**6, "microsecond": 1000}
_MONTHS = {"year": 12, "yyyy": 12, "yy": 12, "quarter": 3, "month": 1, "mm": 1, "mon": 1}


def _trunc_ns(ns: int, unit: str) -> int | None:
    """The start of ``unit`` containing the instant ``ns`` (UTC); weeks start on Monday."""
    if unit in _MONTHS:
        y, m, _ = civil(ns // NS_PER_DAY)
        return civil_days(y, m - (m - 1) % _MONTHS[unit], 1) * NS_PER_DAY
    if unit == "week":
        monday = 4 * NS_PER_DAY  # 1970-01-05
        return (ns - monday) // _FIXED_NS[unit] * _FIXED_NS[unit] + monday
    if unit in _FIXED_NS:
        return ns // _FIXED_NS[unit] * _FIXED_NS[unit]
    return None  # Spark: NULL for an unknown unit


def _unit_of(u) -> str | None:
    return u.value.decode().lower() if isinstance(u, V) and u.kind == "bytes" else None


def _date_trunc(unit, v):
    """Spark's ``date_trunc(unit, x)``: a TIMESTAMP; a DATE is its midnight first."""
    if v is None or unit is None:
        return None
    if isinstance(v, Wild) or isinstance(unit, Wild):
        return Wild(_hash("date_trunc", unit, v))
    ns = v.value * NS_PER_DAY if v.kind == "date" else v.value if v.kind == "ts" else None
    u = _unit_of(unit)
    if ns is None or u is None:
        return NOT_INTEGER
    out = _trunc_ns(ns, u)
    return None if out is None else V("ts", out, pa.timestamp("us", "UTC"))


def _trunc(v, unit):
    """Spark's ``trunc(date, unit)``: a DATE; units of a week or more, else NULL."""
    if v is None or unit is None:
        return None
    if isinstance(v, Wild) or isinstance(unit, Wild):
        return Wild(_hash("trunc", unit, v))
    day, u = _day_of(v), _unit_of(unit)
    if day is None or u is None:
        return NOT_INTEGER
    if u not in _MONTHS and u != "week":
        return None
    return V("date", _trunc_ns(day * NS_PER_DAY, u) // NS_PER_DAY, pa.date32())


def _rounded(up: bool):
    """Spark's ``floor``/``ceil``: integers as BIGINT, DECIMAL(p, s) as DECIMAL(p - s + 1, 0),
    DOUBLE/FLOAT as BIGINT with NaN 0 and values beyond BIGINT saturated (legacy mode; ANSI
    mode fails the query)."""
    def f(v):
        if v is None or isinstance(v, Wild):
            return v
        if v.kind == "num" and is_int(v.type):
            return V("num", v.value, pa.int64())
        if v.kind == "num" and isinstance(v.type, pa.Decimal128Type):
            r = math.ceil(v.value) if up else math.floor(v.value)
            return V("num", Fraction(r), pa.decimal128(min(38, v.type.precision - v.type.scale
                                                           + 1), 0))
        if v.kind == "float":
            x = v.value
            lo, hi = int_range(pa.int64())
            if math.isnan(x):
                r = 0
            elif math.isinf(x):
                r = hi if x > 0 else lo
            else:
                r = max(lo, min(hi, math.ceil(x) if up else math.floor(x)))
            return V("num", Fraction(r), pa.int64())
        return NOT_INTEGER

    return f


def _left(v, k, start=None):
    """The first ``k`` characters of a string (bytes of a binary value); '' for k <= 0."""
    if v is None or k is None:
        return None
    if isinstance(v, Wild) or isinstance(k, Wild) or v.kind != "bytes" or k.kind != "num":
        return NOT_INTEGER
    n_ = max(0, int(k.value))
    if v.text:
        try:
            text = v.value.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:  # a binary cast to STRING: not modelled, left unknown
            return Wild(_hash("left", v, k))
        out = text[:n_].encode("utf-8", "surrogatepass")
    else:
        out = v.value[:n_]
    return V("bytes", out, v.type, text=v.text)


def _substring(v, pos, length=None):
    if pos is None:
        return None
    if isinstance(pos, Wild) or pos.kind != "num" or pos.value not in (0, 1):
        return NOT_INTEGER  # only prefixes are modelled
    if length is None:
        return v
    return _left(v, length)


def _typed(v, others: tuple):
    """A branch value in the type of the typed branches (Spark types coalesce and CASE by
    their common type: a literal beside a DOUBLE column is a DOUBLE). Beside an integer or
    DECIMAL column a number keeps its value: the common type of exact numbers holds both
    (``if(c, 0.5, -b)`` with b SMALLINT is DECIMAL(6, 1)), and a DOUBLE literal makes the
    column's values DOUBLE, not itself an integer."""
    if not isinstance(v, V) or v.type is not None:
        return v
    for o in others:
        if isinstance(o, V) and o.type is not None and family(o.type) != "bool":
            if v.kind == "num" and family(o.type) == "num" and not pa.types.is_floating(o.type):
                return v
            return cast(v, o.type)
    return v


def _coalesce(*values):
    for v in values:
        if isinstance(v, Wild):
            return Wild(_hash("coalesce", values))
        if v is not None:
            return _typed(v, values)
    return None


def _if(cond, a, b):
    return _typed(a if truth(cond) is True else b, (a, b))


def _abs(v):
    """Spark's ``abs``: the argument's type; an integer type's minimum is itself (legacy mode
    wraps; ANSI fails the query), NaN is NaN, -0.0 is 0.0."""
    if v is None or isinstance(v, Wild):
        return v
    if v.kind == "float":
        return V("float", abs(v.value), v.type)
    if v.kind == "num" and v.type is not None:
        if is_int(v.type):
            return V("num", Fraction(_wrap(abs(int(v.value)), v.type)), v.type)
        return V("num", abs(v.value), v.type)
    return NOT_INTEGER


def _sign(v):
    """Spark's ``sign``/``signum``: DOUBLE -1.0, 0.0 or 1.0, NaN for NaN."""
    if v is None or isinstance(v, Wild):
        return v
    if v.kind not in NUMERIC:
        return NOT_INTEGER
    x = v.value
    if v.kind == "float" and math.isnan(x):
        return V("float", x, pa.float64())
    return V("float", 1.0 if x > 0 else -1.0 if x < 0 else 0.0, pa.float64())


def _arrow_double(v):
    """DataFusion's ``CAST(d AS DOUBLE)`` of a DECIMAL (prunekit's ``__prunekit_arrow_double``):
    Arrow rounds the unscaled integer to the nearest DOUBLE, then divides it by 10.0 to the
    power s as LLVM's ``powi`` computes that (squaring: inexact beyond 10**22)."""
    if v is None or isinstance(v, Wild):
        return v
    if v.kind != "num" or not isinstance(v.type, pa.Decimal128Type):
        return NOT_INTEGER
    scale = v.type.scale
    units = v.value * 10**scale
    assert units.denominator == 1, v
    power, square, k = 1.0, 10.0, scale
    while k:
        power, square, k = power * square if k % 2 else power, square * square, k // 2
    return V("float", float(units.numerator) / power, pa.float64())


def _arrow_decimal(v, precision, scale):
    """DataFusion's cast of a DOUBLE to DECIMAL(precision, scale) (prunekit's
    ``__prunekit_arrow_decimal``): the DOUBLE times 10**scale, itself a DOUBLE, rounded half
    away from zero; NaN, the infinities and values beyond the precision fail the query."""
    if v is None or precision is None or scale is None:
        return None
    if isinstance(v, Wild):
        return v
    if v.kind == "num" and isinstance(v.type, pa.Decimal128Type):
        v = _arrow_double(v)  # a DECIMAL column's DOUBLE, as Arrow casts it
    if v.kind != "float":
        return NOT_INTEGER
    p, s = int(precision.value), int(scale.value)
    product = v.value * float(10**s)
    if not math.isfinite(product):
        return Wild(_hash("arrow decimal", v.value, p, s))  # the query fails there
    units = int(decimal.Decimal(product).to_integral_value(decimal.ROUND_HALF_UP))
    if abs(units) >= 10**p:
        return Wild(_hash("arrow decimal", v.value, p, s))
    return V("num", Fraction(units, 10**s), pa.decimal128(p, s))


def _arrow_bigint(v):
    """DataFusion's ``CAST(d AS BIGINT)`` of a DECIMAL (prunekit's ``__prunekit_arrow_bigint``):
    truncated toward zero; beyond BIGINT the query fails."""
    if v is None or isinstance(v, Wild):
        return v
    if v.kind != "num" or not isinstance(v.type, pa.Decimal128Type):
        return NOT_INTEGER
    whole = math.trunc(v.value)
    if not -(2**63) <= whole < 2**63:
        return Wild(_hash("arrow bigint", v.value))  # the query fails there
    return V("num", Fraction(whole), pa.int64())


def _negative(v):
    if v is None or isinstance(v, Wild):
        return v
    return negate(v) if v.kind in NUMERIC and v.type is not None else NOT_INTEGER


def round_to(x: Fraction, k: int, half_even: bool) -> Fraction:
    """``x`` rounded to ``k`` decimal places (negative: tens, hundreds...), ties HALF_UP (away
    from zero) or HALF_EVEN."""
    unit = Fraction(10) ** -k
    q = x / unit
    r = math.floor(q)
    rest = q - r
    if rest > Fraction(1, 2) or rest == Fraction(1, 2) and (r % 2 == 1 if half_even else x > 0):
        r += 1
    return r * unit


_SIGNED = {pa.uint8(): pa.int16(), pa.uint16(): pa.int32(), pa.uint32(): pa.int64(),
           pa.uint64(): pa.decimal128(20, 0)}


def round_type(t: pa.DataType, k: int) -> pa.DataType:
    """Spark 4's result type of ``round(x, k)`` (``RoundBase.dataType``)."""
    t = _SIGNED.get(t, t)
    if not pa.types.is_decimal(t):
        return t
    p, s = t.precision, t.scale
    if k < 0:
        return pa.decimal128(min(max(p - s + 1, 1 - k), 38), 0)
    return pa.decimal128(min(p - s + 1 + min(s, k), 38), min(s, k))


def _to_double_exact(x: Fraction) -> float:
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def _round(half_even: bool):
    """Spark 4's ``round`` / ``bround``: integers keep their type (``k < 0`` rounds, then
    wraps into the type as legacy mode does); DECIMAL by ``round_type``, a failed query beyond
    38 digits (any value: an unknown); DOUBLE and FLOAT from ``Double.toString`` of the value
    (``BigDecimal.valueOf``: Python's ``repr``, the shortest decimal, as JDK 19 on), converted
    back correctly rounded; NaN and infinities are themselves."""
    def f(v, k=V("num", Fraction(0))):
        if v is None or k is None:
            return None
        if isinstance(v, Wild) or isinstance(k, Wild):
            return Wild(_hash("round", half_even, v, k))
        if k.kind != "num" or v.kind not in NUMERIC or v.type is None:
            return NOT_INTEGER
        scale = int(k.value)
        t = round_type(v.type, scale)
        if v.kind == "float":
            x = v.value
            if math.isnan(x) or math.isinf(x):
                return v
            if v.type == pa.float32():
                r = round_to(Fraction(decimal.Decimal(repr(float(x)))), scale, half_even)
                return V("float", round_f32(r), v.type)
            r = round_to(Fraction(decimal.Decimal(repr(x))), scale, half_even)
            return V("float", _to_double_exact(r), v.type)
        r = round_to(v.value, scale, half_even)
        if pa.types.is_decimal(t):
            if abs(r) >= 10**t.precision / Fraction(10) ** t.scale:
                return Wild(_hash("round overflow", v, k))  # Spark fails the query
            return V("num", r, t)
        return V("num", Fraction(_wrap(int(r), t)), t)

    return f


def _extreme(largest: bool):
    """``greatest`` / ``least``: NULL arguments skipped, NULL when all are; NaN greatest."""
    def f(*values):
        if any(isinstance(v, Wild) for v in values):
            return Wild(_hash("extreme", largest, values))
        present = [v for v in values if v is not None]
        if not present:
            return None
        best = present[0]
        for v in present[1:]:
            c = compare(v, best)  # exact: prunekit uses only types holding every argument
            if c > 0 if largest else c < 0:
                best = v
        return _typed(best, values)

    return f


def _int_arg(k) -> int | None:
    """An INT argument's value (date_add's days, add_months' months)."""
    if isinstance(k, V) and k.kind == "num" and k.value.denominator == 1 and \
            -(2**31) <= k.value < 2**31:
        return int(k.value)
    return None


def _date_shift(kind: str):
    """``date_add``, ``date_sub`` (days) and ``add_months`` (months, the day clamped to the
    month's end) of a DATE, or of a TIMESTAMP cast to its UTC day; a result beyond INT days
    is not modelled (Spark fails or wraps)."""
    def f(v, k):
        if v is None or k is None:
            return None
        if isinstance(v, Wild) or isinstance(k, Wild):
            return Wild(_hash(kind, v, k))
        day, c = _day_of(v), _int_arg(k)
        if day is None or c is None:
            return NOT_INTEGER
        if kind == "add_months":
            y, m, d = civil(day)
            total = y * 12 + m - 1 + c
            y2, m2 = divmod(total, 12)
            last = (civil_days(y2 + (m2 == 11), (m2 + 1) % 12 + 1, 1) -
                    civil_days(y2, m2 + 1, 1))
            out = civil_days(y2, m2 + 1, min(d, last))
        else:
            out = day + (c if kind == "date_add" else -c)
        return V("date", out, pa.date32()) if -(2**31) <= out < 2**31 else NOT_INTEGER

    return f


def _datediff(a, b):
    """``datediff(end, start)``: days from start to end, INT."""
    if a is None or b is None:
        return None
    if isinstance(a, Wild) or isinstance(b, Wild):
        return Wild(_hash("datediff", a, b))
    x, y = _day_of(a), _day_of(b)
    if x is None or y is None:
        return NOT_INTEGER
    return V("num", Fraction(x - y), pa.int32()) if -(2**31) <= x - y < 2**31 else NOT_INTEGER


def _micros_of(v: V) -> int | None:
    """Spark's microseconds of a TIMESTAMP (with a zone; a nanosecond column is not
    modelled: Spark reads none), None for anything else."""
    if v.kind != "ts" or v.type is None or not pa.types.is_timestamp(v.type) or \
            v.type.tz is None or v.type.unit == "ns":
        return None
    return v.value // 1000


def _unix(per: int, toward_zero: bool = False):
    """``unix_seconds`` (per = 10**6, rounding down), ``unix_millis``, ``unix_micros``, and
    ``unix_timestamp`` (rounding toward zero; a DATE is its midnight, UTC here): BIGINT."""
    def f(v, fmt=None):
        if v is None:
            return None
        if isinstance(v, Wild) or isinstance(fmt, Wild):
            return Wild(_hash("unix", per, v, fmt))
        if toward_zero and v.kind == "date" and v.type == pa.date32():
            return V("num", Fraction(v.value * 86_400), pa.int64())
        us = _micros_of(v)
        if us is None:
            return NOT_INTEGER
        q = abs(us) // per if toward_zero else us // per
        return V("num", Fraction(-q if toward_zero and us < 0 else q), pa.int64())

    return f


def _from_count(per: int):
    """``timestamp_seconds`` (per = 10**6), ``timestamp_millis``, ``timestamp_micros`` of a
    signed integer: a TIMESTAMP, a failed query beyond BIGINT microseconds."""
    def f(v):
        if v is None:
            return None
        if isinstance(v, Wild):
            return Wild(_hash("timestamp_from", per, v))
        if v.kind != "num" or v.type is None or not pa.types.is_signed_integer(v.type):
            return NOT_INTEGER
        us = int(v.value) * per
        if not -(2**63) <= us < 2**63:
            return Wild(_hash("timestamp overflow", per, v))  # Spark fails the query
        return V("ts", us * 1000, pa.timestamp("us", "UTC"))

    return f


def _java_remainder(x: int, c: int) -> int:
    r = abs(x) % abs(c)
    return -r if x < 0 else r


def _integral_divide(a, c):
    """``x div c`` of signed integers: Spark's BIGINT quotient, truncated toward zero; NULL for
    ``c = 0`` (legacy mode; ANSI fails the query), the one overflow (BIGINT's least by -1)
    wrapping as in legacy mode."""
    if a is None or c is None:
        return None
    if isinstance(a, Wild) or isinstance(c, Wild):
        return Wild(_hash("div", a, c))
    if a.kind != "num" or c.kind != "num" or not is_int(a.type) or \
            not pa.types.is_signed_integer(a.type) or c.value.denominator != 1:
        return NOT_INTEGER
    x, k = int(a.value), int(c.value)
    if k == 0:
        return None
    q = abs(x) // abs(k)
    q = q if (x >= 0) == (k > 0) else -q
    return V("num", Fraction(q if q < 2**63 else q - 2**64), pa.int64())


def _remainder(pmod: bool):
    """``x % c`` (Java's remainder, the dividend's sign) and ``pmod(x, c)`` (``r + c`` of a
    negative remainder, again ``% c``) of signed integers: the wider type; NULL for ``c = 0``
    (legacy mode; ANSI fails the query)."""
    def f(a, c):
        if a is None or c is None:
            return None
        if isinstance(a, Wild) or isinstance(c, Wild):
            return Wild(_hash("remainder", pmod, a, c))
        if a.kind != "num" or c.kind != "num" or not is_int(a.type) or \
                not pa.types.is_signed_integer(a.type) or c.value.denominator != 1:
            return NOT_INTEGER
        if c.type is not None and not pa.types.is_signed_integer(c.type):
            return NOT_INTEGER
        x, k = int(a.value), int(c.value)
        ct = c.type or (pa.int32() if -(2**31) <= k < 2**31 else pa.int64())
        t = a.type if a.type.bit_width >= ct.bit_width else ct
        if k == 0:
            return None
        r = _java_remainder(x, k)
        if pmod and r < 0:
            r = _java_remainder(r + k, k)
        return V("num", Fraction(r), t)

    return f


def months_between_seconds(t1: int, t2: int, round_off: bool = True) -> float:
    """Spark's ``months_between`` of two instants in seconds since the epoch, read in UTC
    (``DateTimeUtils.monthsBetween``): whole months when the days of the month are equal or
    both are their months' last; else the months plus the difference in seconds over 31 days,
    in doubles, rounded to 8 digits (``Math.round``, ties up) if ``round_off``."""
    (day1, sec1), (day2, sec2) = divmod(t1, 86_400), divmod(t2, 86_400)
    (y1, m1, d1), (y2, m2, d2) = civil(day1), civil(day2)
    months = float((y1 * 12 + m1) - (y2 * 12 + m2))
    last1 = civil(day1 + 1)[2] == 1
    last2 = civil(day2 + 1)[2] == 1
    if d1 == d2 or (last1 and last2):
        return months
    diff = months + float((d1 - d2) * 86_400 + sec1 - sec2) / float(31 * 86_400)
    if not round_off:
        return diff
    return math.floor(Fraction(diff * 1e8) + Fraction(1, 2)) / 1e8


def _seconds_of(v: V) -> int | None:
    """A DATE's midnight or a TIMESTAMP's whole seconds (rounded down), UTC."""
    if v.kind == "date":
        return v.value * 86_400
    if v.kind == "ts":
        return v.value // 10**9
    return None


def _months_between(a, b, round_off=V("bool", True)):
    if a is None or b is None or round_off is None:
        return None
    if any(isinstance(x, Wild) for x in (a, b, round_off)):
        return Wild(_hash("months_between", a, b, round_off))
    t1, t2 = _seconds_of(a), _seconds_of(b)
    if t1 is None or t2 is None or round_off.kind != "bool":
        return NOT_INTEGER
    return V("float", months_between_seconds(t1, t2, round_off.value), pa.float64())


def from_unixtime_text(x: int, offset: int = 0) -> str:
    """Spark's ``from_unixtime(x)`` (``yyyy-MM-dd HH:mm:ss``) at ``offset`` seconds east of UTC:
    the count times 10**6 wraps in BIGINT; a year below 0 is signed (``-0001``), above 9999
    too (``+10000``)."""
    us = (x * 10**6 + 2**63) % 2**64 - 2**63
    days, sec = divmod(us // 10**6 + offset, 86_400)
    y, m, d = civil(days)
    year = f"{y:04d}" if 0 <= y <= 9999 else f"-{-y:04d}" if y < 0 else f"+{y}"
    return f"{year}-{m:02d}-{d:02d} {sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}"


_DEFAULT_TIME_FORMAT = V("bytes", b"yyyy-MM-dd HH:mm:ss", pa.string(), text=True)


def _from_unixtime(v, fmt=_DEFAULT_TIME_FORMAT):
    if v is None or fmt is None:
        return None
    if isinstance(v, Wild) or isinstance(fmt, Wild):
        return Wild(_hash("from_unixtime", v, fmt))
    if v.kind != "num" or not is_int(v.type) or fmt.kind != "bytes" or fmt.value not in (
            b"yyyy-MM-dd HH:mm:ss", b"%Y-%mstrict-%dstrict %Hstrict:%Mstrict:%Sstrict"):
        return NOT_INTEGER
    return V("bytes", from_unixtime_text(int(v.value)).encode(), pa.string(), text=True)


FUNCTIONS = {"year": _calendar(0), "month": _calendar(1), "day": _calendar(2),
             "dayofmonth": _calendar(2), "date_trunc": _date_trunc, "trunc": _trunc,
             "floor": _rounded(False), "ceil": _rounded(True), "left": _left,
             "substring": _substring, "coalesce": _coalesce, "if": _if, "abs": _abs,
             "sign": _sign, "signum": _sign, "negative": _negative, "round": _round(False),
             "bround": _round(True), "greatest": _extreme(True), "least": _extreme(False),
             "date_add": _date_shift("date_add"), "date_sub": _date_shift("date_sub"),
             "add_months": _date_shift("add_months"), "datediff": _datediff,
             "hour": _clock(NS_PER_DAY, 3600 * 10**9), "minute": _clock(3600 * 10**9, 60 * 10**9),
             "second": _clock(60 * 10**9, 10**9),
             "unix_seconds": _unix(10**6), "unix_millis": _unix(10**3), "unix_micros": _unix(1),
             "unix_timestamp": _unix(10**6, toward_zero=True),
             "timestamp_seconds": _from_count(10**6), "timestamp_millis": _from_count(10**3),
             "timestamp_micros": _from_count(1), "%": _remainder(False), "pmod": _remainder(True),
             "div": _integral_divide, "__prunekit_arrow_double": _arrow_double,
             "__prunekit_arrow_decimal": _arrow_decimal, "__prunekit_arrow_bigint": _arrow_bigint,
             "months_between": _months_between, "from_unixtime": _from_unixtime}
ARITY = {"year": (1,), "month": (1,), "day": (1,), "dayofmonth": (1,), "date_trunc": (2,),
         "trunc": (2,), "floor": (1,), "ceil": (1,), "left": (2,), "substring": (2, 3),
         "coalesce": range(1, 100), "if": (3,), "abs": (1,), "sign": (1,), "signum": (1,),
         "negative": (1,), "round": (1, 2), "bround": (1, 2), "greatest": range(2, 100),
         "least": range(2, 100), "date_add": (2,), "date_sub": (2,), "add_months": (2,),
         "datediff": (2,), "hour": (1,), "minute": (1,), "second": (1,),
         "unix_seconds": (1,), "unix_millis": (1,), "unix_micros": (1,),
         "unix_timestamp": (1, 2), "timestamp_seconds": (1,), "timestamp_millis": (1,),
         "timestamp_micros": (1,), "%": (2,), "pmod": (2,), "div": (2,), "months_between": (2, 3),
         "__prunekit_arrow_double": (1,), "__prunekit_arrow_decimal": (3,),
         "__prunekit_arrow_bigint": (1,),
         "from_unixtime": (1, 2), "ilike": (2, 3)}


# ---- LIKE ----------------------------------------------------------------------------------
def like_regex(pattern: str, escape: str) -> re.Pattern:
    """``%`` any run, ``_`` one character, ``escape`` makes the next character literal."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == escape:
            if i + 1 >= len(pattern):
                raise ValueError(f"LIKE pattern {pattern!r} ends with its escape character")
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if ch == "%" else "." if ch == "_" else re.escape(ch))
        i += 1
    return re.compile("".join(out), re.DOTALL)


def _ilike(arg, pattern, escape=None) -> V | Wild | None:
    """Spark's ``ilike(s, pattern[, escape])``: ``lower(s) LIKE lower(pattern)``, the escape
    as given; Python's ``str.lower`` is Java's full case mapping (``İ`` to ``i`` and a
    combining dot)."""
    if arg is None or pattern is None:  # (escape None: none given)
        return None
    if any(isinstance(x, Wild) for x in (arg, pattern, escape)):
        return Wild(_hash("ilike", arg, pattern, escape))
    if pattern.kind != "bytes" or arg.kind != "bytes" or (escape is not None and (
            escape.kind != "bytes" or len(escape.value.decode()) != 1)):
        return NOT_INTEGER
    esc = "\\" if escape is None else escape.value.decode()
    text = arg.value.decode("utf-8", "replace").lower()
    return _b(like_regex(pattern.value.decode().lower(), esc).fullmatch(text) is not None)


FUNCTIONS["ilike"] = _ilike


# ---- the evaluator -------------------------------------------------------------------------
def truth(v: V | Wild | None) -> bool | None:
    """A value used as a predicate: TRUE, FALSE or NULL."""
    if v is None:
        return None
    if isinstance(v, Wild):
        return _wild_truth(v.h)
    if v.kind != "bool":
        raise TypeError(f"{v} is not a boolean")
    return v.value


def _b(x: bool | None) -> V | None:
    return None if x is None else V("bool", x, pa.bool_())


def _eq(a: V | Wild | None, b: V | Wild | None) -> bool | None:
    """``a = b`` in three-valued logic."""
    if a is None or b is None:
        return None
    if isinstance(a, Wild) or isinstance(b, Wild):
        return _wild_truth(_hash("=", a, b))
    a, b = _in_decimal(a, b)
    if a is None or b is None:
        return None
    return compare(a, b) == 0


_INT_DIGITS = {8: 3, 16: 5, 32: 10, 64: 20}
_WIDE = decimal.Context(prec=200)


def _decimal(x: Fraction) -> decimal.Decimal:
    """A Fraction with a finite decimal expansion (every exact number here) as a Decimal."""
    return _WIDE.divide(decimal.Decimal(x.numerator), decimal.Decimal(x.denominator))


def _exact_type(v: V) -> tuple[int, int, bool] | None:
    """(precision, scale, is a DECIMAL) of an exact number as Spark types it where it meets a
    DECIMAL: a column's type; a literal's from its value (an integer literal has just its own
    digits there, Spark's DecimalPrecision)."""
    t = v.type
    if t is not None and pa.types.is_decimal(t):
        return t.precision, t.scale, True
    if t is not None and pa.types.is_integer(t):
        return (20 if t == pa.uint64() else _INT_DIGITS[t.bit_width]), 0, t == pa.uint64()
    if t is not None or not isinstance(v.value, Fraction):
        return None
    if v.value.denominator == 1:
        n = abs(v.value.numerator)
        return len(str(n)), 0, n >= 2**63
    d = _decimal(v.value).normalize(_WIDE)
    _, digits, exponent = d.as_tuple()
    scale = max(0, -exponent)
    return max(len(digits) + max(0, exponent), scale), scale, True


def _in_decimal(a: V, b: V) -> tuple[V | None, V | None]:
    """Two exact numbers, one a DECIMAL, as Spark compares them: in one DECIMAL of at most 38
    digits. Where the two would need more, Spark keeps the integer digits and cuts the scale
    (to no less than 6): both sides round half up to it, and a side with too many integer
    digits is NULL (legacy mode; ANSI fails the query)."""
    if a.kind != "num" or b.kind != "num":
        return a, b
    ta, tb = _exact_type(a), _exact_type(b)
    if ta is None or tb is None or not (ta[2] or tb[2]) or max(ta[0], tb[0]) > 38:
        return a, b  # not a DECIMAL comparison, or beyond Spark's DECIMAL: exact
    scale = max(ta[1], tb[1])
    whole = max(ta[0] - ta[1], tb[0] - tb[1])
    if whole + scale <= 38:
        return a, b
    scale = max(38 - whole, min(scale, 6))
    unit = decimal.Decimal(1).scaleb(-scale)

    def rounded(v: V) -> V | None:
        d = _decimal(v.value)
        q = (d.quantize(unit, rounding=decimal.ROUND_HALF_UP, context=_WIDE) if
             v.value.denominator != 1 else d)
        if q != 0 and q.adjusted() >= 38 - scale:
            return None
        return V("num", Fraction(q), v.type)

    return rounded(a), rounded(b)


_OPS = {n.Op.EQ: lambda c: c == 0, n.Op.NE: lambda c: c != 0, n.Op.LT: lambda c: c < 0,
        n.Op.LE: lambda c: c <= 0, n.Op.GT: lambda c: c > 0, n.Op.GE: lambda c: c >= 0}


def _cmp(op: n.Op, a: V | Wild | None, b: V | Wild | None) -> bool | None:
    if a is None or b is None:
        return None
    if isinstance(a, Wild) or isinstance(b, Wild):
        return _wild_truth(_hash(op.value, a, b))
    a, b = _in_decimal(a, b)
    if a is None or b is None:
        return None
    return _OPS[op](compare(a, b))


def _and(values: tuple) -> bool | None:
    ts = [truth(v) for v in values]
    if any(t is False for t in ts):
        return False
    return None if any(t is None for t in ts) else True


def _or(values: tuple) -> bool | None:
    ts = [truth(v) for v in values]
    if any(t is True for t in ts):
        return True
    return None if any(t is None for t in ts) else False


def _in(arg, values: tuple) -> bool | None:
    # Spark compares the list in one common type of the argument and every element: beside a
    # DOUBLE or FLOAT, exact numbers become DOUBLE first (InConversion; FLOAT with an integer
    # argument is DOUBLE under ANSI, the reading modelled here). 2**53 IN (2**53 + 1, 1.0E0).
    if any(isinstance(v, V) and v.kind == "float" for v in (arg, *values)):
        arg, *values = (V("float", to_double(v), pa.float64())
                        if isinstance(v, V) and v.kind == "num" else v for v in (arg, *values))
    results = [_eq(arg, v) for v in values]
    if any(r is True for r in results):
        return True
    return None if any(r is None for r in results) else False


def _like(node: n.Like, arg) -> V | Wild | None:
    """Spark matches the value decoded from UTF-8 (an invalid sequence is U+FFFD), one code
    point per ``_``; a pattern without escape character whose only wildcards are ``%`` at
    its ends it compares as bytes (``LikeSimplification``), the same answer for valid UTF-8,
    which is all LIKE is drawn on."""
    if arg is None or isinstance(arg, Wild):
        return arg if arg is None else Wild(_hash("like", node.pattern, arg))
    text = arg.value.decode("utf-8", "replace")
    return _b(like_regex(node.pattern, node.escape).fullmatch(text) is not None)


def _starts(arg, prefix) -> V | Wild | None:
    if arg is None or prefix is None:
        return None
    if isinstance(arg, Wild) or isinstance(prefix, Wild):
        return Wild(_hash("startswith", arg, prefix))
    return _b(arg.value.startswith(prefix.value))


def _is_nan(arg) -> V:
    if isinstance(arg, Wild):
        return _b(_hash("isnan", arg) % 2 == 0)
    return _b(arg is not None and arg.kind == "float" and math.isnan(arg.value))


def _distinct(a, b) -> V:
    if isinstance(a, Wild) or isinstance(b, Wild):
        return _b(_hash("distinct", a, b) % 2 == 0)
    if a is None or b is None:
        return _b((a is None) != (b is None))
    a, b = _in_decimal(a, b)  # in the common DECIMAL type, as = compares (a side may be NULL)
    if a is None or b is None:
        return _b((a is None) != (b is None))
    return _b(compare(a, b) != 0)


def _is_null(a) -> V:
    if isinstance(a, Wild):
        return _b(_hash("isnull", a) % 2 == 0)
    return _b(a is None)


def column_value(node: n.Column, types: dict[str, pa.DataType], row: dict[str, object]):
    """A column, or a field of a struct column (``node.fields``; a struct is a dict in a row):
    NULL when a struct on the way is NULL (Spark's GetStructField). A whole struct is a V of
    kind "struct", which only IS NULL reads."""
    value, t = row[node.name], types[node.name]
    for f in node.fields:
        if value is None:
            return None
        value, t = value[f], t.field(f).type
    if pa.types.is_struct(t):
        return None if value is None else V("struct", repr(value), t)
    return from_python(value, t)


def evaluate(tree: n.Node, types: dict[str, pa.DataType], row: dict[str, object]) -> bool | None:
    """The value of predicate ``tree`` for one ``row``: True, False or None (NULL)."""
    return truth(evaluate_value(tree, types, row))


def evaluate_value(tree: n.Node, types: dict[str, pa.DataType], row: dict[str, object]):
    """The value of any expression ``tree`` for one ``row``: a V, a Wild, or None (NULL)."""
    return visit(tree, _RowValue(types, row))


class _RowValue(NodeVisitor):
    """Each node's value on one row, from its children's (Spark's three-valued logic)."""

    def __init__(self, types: dict[str, pa.DataType], row: dict[str, object]) -> None:
        self.types, self.row = types, row

    def visit_column(self, node: n.Column, kids: tuple):
        return column_value(node, self.types, self.row)

    def visit_literal(self, node: n.Literal, kids: tuple):
        return literal_value(node)

    def visit_compare(self, node: n.Compare, kids: tuple):
        return _b(_cmp(node.op, kids[0], kids[1]))

    def visit_and(self, node: n.And, kids: tuple):
        return _b(_and(kids))

    def visit_or(self, node: n.Or, kids: tuple):
        return _b(_or(kids))

    def visit_not(self, node: n.Not, kids: tuple):
        t = truth(kids[0])
        return _b(None if t is None else not t)

    def visit_is_null(self, node: n.IsNull, kids: tuple):
        return _is_null(kids[0])

    def visit_is_bool(self, node: n.IsBool, kids: tuple):
        return _b(truth(kids[0]) is node.value)

    def visit_distinct_from(self, node: n.DistinctFrom, kids: tuple):
        return _distinct(kids[0], kids[1])

    def visit_in(self, node: n.In, kids: tuple):
        return _b(_in(kids[0], kids[1:]))

    def visit_between(self, node: n.Between, kids: tuple):
        return _b(_and((_b(_cmp(n.Op.GE, kids[0], kids[1])), _b(_cmp(n.Op.LE, kids[0], kids[2])))))

    def visit_like(self, node: n.Like, kids: tuple):
        return _like(node, kids[0])

    def visit_starts_with(self, node: n.StartsWith, kids: tuple):
        return _starts(kids[0], kids[1])

    def visit_is_nan(self, node: n.IsNan, kids: tuple):
        return _is_nan(kids[0])

    def visit_cast(self, node: n.Cast, kids: tuple):
        if node.safe and pa.types.is_integer(node.to) and isinstance(kids[0], V) and (
                kids[0].kind in ("num", "float")):
            return try_cast_int(kids[0], node.to)
        return cast(kids[0], node.to)

    def visit_neg(self, node: n.Neg, kids: tuple):
        return negate(kids[0])

    def visit_func(self, node: n.Func, kids: tuple):
        if node.name in FUNCTIONS:
            value = FUNCTIONS[node.name](*kids) if len(kids) in ARITY[node.name] else \
                NOT_INTEGER
            if value is not NOT_INTEGER:
                return value
        if node.name in ("+", "-", "*", "/") and len(kids) == 2:
            value = arithmetic(node, kids)
            if value is not NOT_INTEGER:
                return value
        return Wild(_hash(node.name, kids))

    def visit_opaque(self, node: n.Opaque, kids: tuple):
        return Wild(_hash(node.text, kids))  # another dialect's construct: any value


# ---- session time zones (tests/expr/test_zones.py) -------------------------------------------
# Spark's readings of an instant in a session zone, computed with Python's zoneinfo alone (not
# prunekit's transition search): instants and wall times are microseconds since 1970. A wall
# time becomes an instant as java.time's ZonedDateTime.of does, which is Python's fold=0 (the
# earlier instant of an overlap; in a gap, the wall time moved forward by the gap).
_UTC_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
US_PER_DAY = 86_400 * 10**6


def zone_datetime(us: int, tz: dt.tzinfo) -> dt.datetime:
    """The aware local datetime of an instant."""
    return (_UTC_EPOCH + dt.timedelta(microseconds=us)).astimezone(tz)


def zone_wall(us: int, tz: dt.tzinfo) -> int:
    """The wall time of an instant in ``tz``."""
    local = zone_datetime(us, tz).replace(tzinfo=dt.timezone.utc)
    return (local - _UTC_EPOCH) // dt.timedelta(microseconds=1)


def _wall_datetime(wall: int, tz: dt.tzinfo, fold: int = 0) -> dt.datetime:
    naive = dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=wall)
    return naive.replace(tzinfo=tz, fold=fold)


def zone_instant(wall: int, tz: dt.tzinfo, fold: int = 0) -> int:
    """The instant of a wall time (ZonedDateTime.of: Python's fold=0)."""
    return (_wall_datetime(wall, tz, fold) - _UTC_EPOCH) // dt.timedelta(microseconds=1)


def zone_day_start(day: int, tz: dt.tzinfo) -> int:
    """Spark's DATE to TIMESTAMP (LocalDate.atStartOfDay): midnight, or where a gap holding it
    ends: the least instant whose wall time is at or after midnight, searched near it."""
    midnight = day * US_PER_DAY
    at = zone_instant(midnight, tz)
    if zone_wall(at, tz) == midnight:
        return at
    lo, hi = at - US_PER_DAY, at  # wall(lo) < midnight <= wall(hi): bisect to the second
    while hi - lo > 10**6:
        mid = (lo + hi) // 2 // 10**6 * 10**6
        lo, hi = (mid, hi) if zone_wall(mid, tz) < midnight else (lo, mid)
    return hi


def zone_truncated(us: int, unit: str, tz: dt.tzinfo) -> int:
    """Spark's ``date_trunc(unit, ts)`` in ``tz``: seconds and finer in UTC; minute, hour, day
    truncate the wall time and keep the instant's offset where it is valid there (else the
    earlier one; in a gap, fold=0); date units start the truncated DATE (atStartOfDay)."""
    if unit in ("second", "millisecond", "microsecond"):
        k = {"second": 10**6, "millisecond": 10**3, "microsecond": 1}[unit]
        return us // k * k
    wall = zone_wall(us, tz)
    if unit in ("minute", "hour", "day", "dd"):
        k = {"minute": 60, "hour": 3600, "day": 86_400, "dd": 86_400}[unit] * 10**6
        target = wall // k * k
        offset = wall - us
        valid = [zone_instant(target, tz, f) for f in (0, 1)]
        valid = [v for v in valid if zone_wall(v, tz) == target]
        for v in valid:
            if target - v == offset:
                return v
        return valid[0] if valid else zone_instant(target, tz)
    day = wall // US_PER_DAY
    y, m, _ = civil(day)
    if unit == "week":
        return zone_day_start(day - (day - 4) % 7, tz)
    months = _MONTHS[unit]
    return zone_day_start(civil_days(y, m - (m - 1) % months, 1), tz)


def zone_field(us: int, field: str, tz: dt.tzinfo) -> int:
    """``year``, ``month``, ``day``, ``hour``, ``minute``, ``second`` of the wall time."""
    wall = zone_wall(us, tz)
    y, m, d = civil(wall // US_PER_DAY)
    rest = wall % US_PER_DAY // 10**6
    return {"year": y, "month": m, "day": d, "hour": rest // 3600, "minute": rest // 60 % 60,
            "second": rest % 60}[field]
