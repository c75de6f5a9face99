"""Statistics of N containers in the canonical Arrow layout.

Layout: an integer column ``row_count``; for each leaf of the data (a top-level column, or a
field of a struct column, at any depth) a struct column with fields ``min``, ``max`` (the
leaf's type), ``null_count`` (int64), and optionally ``nan_count`` (int64), ``min_exact`` /
``max_exact`` (bool), and the *value-set* statistics ``values`` and ``bloom``. An Arrow
null means unknown. Other columns (a file path, a row-group index) are allowed and ignored.

A leaf's statistics column is named by ``prunekit.expr.paths.leaf_key``: the path's parts
joined by ``.``, a part holding ``.`` or a backtick in backticks. Field ``city`` of struct
``address`` is ``address.city``; a top-level column named ``a.b`` is ``"`a.b`"``. A leaf's
``null_count`` counts the rows where the leaf is NULL, including those where a parent struct
is NULL (as Parquet and Delta count them).

Old layout: a top-level column whose name holds a dot used to be keyed by its raw name
(``a.b``). ``PruningPredicate.classify`` still reads such a column when the key is not
ambiguous: the statistics have no ``"`a.b`"`` column and the predicate's schema has no struct
leaf ``a.b`` (:func:`with_legacy_keys`).

Value sets (DataFusion's ``contained``; ``kernels/valuesets.py`` uses them):

- ``values``, a list of the column's type: the container's non-NULL values are all in this
  list (NULL entries in it are ignored; NULLs are ``null_count``'s business). ``x = v`` and
  ``x IN (...)`` are then impossible for values not listed, and certain when every listed value
  is one of the literals and no row is NULL; ``x <> v`` / ``x NOT IN (...)`` the other way
  round. Floats compare as SQL does: ``-0.0 = 0.0``, and ``NaN = NaN`` (Spark).
- ``bloom``, binary: a Parquet split-block bloom filter bitset (blocks of 32 bytes, without
  its Thrift header) of the container's non-NULL values, hashed with XXH64 (seed 0) over the
  PLAIN encoding of the Parquet physical type the column's Arrow type maps to: 4 bytes
  little-endian for 8/16/32-bit integers, date32 and time32; 8 bytes for 64-bit integers,
  timestamps (in their own unit) and time64; IEEE bytes for float32/float64; the raw bytes of
  strings and binary. Other types (decimals, booleans, date64) have no such encoding, so their
  filters are ignored. A filter only proves absence; one whose length is not a positive
  multiple of 32 is unknown. A NaN literal is never ruled out by a filter (NaN has many bit
  patterns), and ``0.0`` is looked up as both zeros.
"""

from __future__ import annotations

import decimal
from collections.abc import Iterable, Mapping

import numpy as np
import pyarrow as pa

from prunekit.conformance import conform_timestamps, values_compatible
from prunekit.errors import StatisticsError
from prunekit.expr.paths import leaf_key, split_leaf_key

REQUIRED_FIELDS = ("min", "max", "null_count")
COUNT_FIELDS = ("null_count", "nan_count")
FLAG_FIELDS = ("min_exact", "max_exact")
VALUE_SET_FIELDS = ("values", "bloom")
ALL_FIELDS = ("min", "max", "null_count", "nan_count", "min_exact", "max_exact", "values",
              "bloom")
NAN_BOUNDS = ("exclude", "include")


class Statistics:
    """Per-container statistics, wrapped without copying.

    ``nan_bounds`` says what float bounds mean (docs/semantics.md §4): ``"exclude"`` (Parquet,
    Iceberg, Arrow writers: NaN is left out of min/max; the default) or ``"include"`` (Spark,
    Delta: NaN counts as the greatest value, so a numeric max proves there is no NaN); a dict
    gives it per column. ``no_nan`` names columns the user knows hold no NaN.

    >>> import numpy as np
    >>> stats = Statistics.from_numpy(row_count=np.array([10, 10]),
    ...     columns={"x": {"min": np.array([0, 5]), "max": np.array([4, 9]),
    ...                    "null_count": np.ma.masked_array([0, 0], mask=[False, True])}})
    >>> len(stats), stats.columns
    (2, ['x'])
    """

    def __init__(self, table: pa.Table, nan_bounds: str | Mapping[str, str] = "exclude",
                 no_nan: Iterable[str] = ()):
        self.table = table
        self.columns, self._column_set = _validate(table)
        if isinstance(nan_bounds, str):
            modes = dict.fromkeys(self.columns, nan_bounds)
        else:
            modes = {c: nan_bounds.get(c, "exclude") for c in self.columns}
            _check_named(nan_bounds, self._column_set, "nan_bounds")
        for c, m in modes.items():
            if m not in NAN_BOUNDS:
                raise StatisticsError(f"nan_bounds for {c!r} must be 'exclude' or 'include', "
                                      f"got {m!r}")
        self.nan_in_bounds = {c: m == "include" for c, m in modes.items()}
        self.no_nan = frozenset([no_nan] if isinstance(no_nan, str) else no_nan)
        # A column may lack statistics here and have them elsewhere; but a dotted name that
        # is a top-level column's would leave its NaN rule on without a word.
        _check_named(self.no_nan, self._column_set, "no_nan", every=False)

    def __len__(self) -> int:
        return self.table.num_rows

    def batches_and_caches(self) -> tuple[list[pa.RecordBatch], list[dict]]:
        """The record batches, and a dict per batch where classify keeps work that depends on
        the statistics alone (order-preserving codes of string bounds), so that a second
        predicate over the same Statistics does not redo it. Keep one Statistics object for
        many predicates; the codes cost 16 bytes per container and string column.

        The batches are kept too: pyarrow then keeps the arrays it boxed for one call for the
        next. Both are kept for the table they came from, and made again for another (the
        attribute ``table`` replaced)."""
        kept = self.__dict__.get("_batches")
        if kept is None or kept[0] is not self.table:
            batches = self.table.to_batches()
            kept = self.__dict__["_batches"] = (self.table, batches, [{} for _ in batches])
        return kept[1], kept[2]

    def __getstate__(self) -> dict:
        # The kept batches and their caches are made again from the table where unpickled:
        # pickled, they would hold the table's buffers a second time.
        return {k: v for k, v in self.__dict__.items() if k != "_batches"}

    def __repr__(self) -> str:
        return f"<Statistics: {len(self)} containers, columns {self.columns}>"

    @classmethod
    def from_arrow(cls, data: pa.Table | pa.RecordBatch, *,
                   nan_bounds: str | Mapping[str, str] = "exclude",
                   no_nan: Iterable[str] = ()) -> Statistics:
        """Statistics from a Table or RecordBatch in the canonical layout (not copied).

        >>> x = pa.StructArray.from_arrays([pa.array([1]), pa.array([3]), pa.array([None],
        ...     pa.int64())], ["min", "max", "null_count"])
        >>> Statistics.from_arrow(pa.table({"row_count": [100], "x": x}))
        <Statistics: 1 containers, columns ['x']>
        """
        if isinstance(data, pa.RecordBatch):
            data = pa.Table.from_batches([data])
        if not isinstance(data, pa.Table):
            raise StatisticsError(f"expected a pyarrow Table or RecordBatch, got "
                                  f"{type(data).__name__}")
        return cls(data, nan_bounds=nan_bounds, no_nan=no_nan)

    @classmethod
    def from_numpy(cls, row_count, columns: Mapping[str, Mapping[str, object]], *,
                   types: Mapping[str, pa.DataType] | None = None,
                   nan_bounds: str | Mapping[str, str] = "exclude",
                   no_nan: Iterable[str] = ()) -> Statistics:
        """Statistics from NumPy arrays: plain arrays, masked arrays (masked = unknown) or None
        (not collected). ``types`` pins a column's Arrow type (else inferred from ``min``).

        A DECIMAL column takes ``decimal.Decimal`` objects, whose inferred type is read as the
        predicate's DECIMAL when classifying (a bound with more digits than that type holds is
        unknown), or, with its type in ``types``, integers: the unscaled values, as Parquet
        stores them (1234 is 12.34 in DECIMAL(10, 2)), at any precision.

        A TIMESTAMP column takes ``datetime64`` bounds at any unit (``s``, ``ms``, ``us``,
        ``ns``). Naive ones stand for a column with a time zone (the predicate's schema says
        ``pa.timestamp("us", tz="UTC")``) as UTC instants, which is how Arrow stores such a
        column, and for a naive column (TIMESTAMP_NTZ) as wall-clock times. Units are converted
        exactly when classifying, or here when ``types`` names the column's type: a bound
        finer than the column's unit is widened outwards (``min`` floored, ``max`` ceiled) and
        then marked inexact; NaT is unknown.

        >>> import pyarrow as pa
        >>> t = pa.timestamp("us", tz="UTC")
        >>> s = Statistics.from_numpy(row_count=np.array([3]), columns={"t": {
        ...     "min": np.array(["2024-01-01T00:00:00.0000015"], "datetime64[ns]"),
        ...     "max": np.array(["2024-01-01T00:00:00.0000015"], "datetime64[ns]"),
        ...     "null_count": np.array([0])}}, types={"t": t})
        >>> row = s.table.column("t")[0].as_py()
        >>> row["min"].microsecond, row["max"].microsecond, row["min_exact"], row["max_exact"]
        (1, 2, False, False)

        >>> s = Statistics.from_numpy(row_count=None, columns={"f": {
        ...     "min": np.array([0.5]), "max": np.array([2.0]), "null_count": None}})
        >>> s.table.column("f").type
        StructType(struct<min: double, max: double, null_count: int64>)
        >>> Statistics.from_numpy(row_count=np.array([10]), columns={"p": {
        ...     "min": np.array([1234]), "max": np.array([99999]), "null_count": np.array([0])}},
        ...     types={"p": pa.decimal128(10, 2)}).table.column("p")[0]["max"]
        <pyarrow.Decimal128Scalar: Decimal('999.99')>
        """
        lengths = {"row_count": _length(row_count)}
        for name, stats in columns.items():
            for stat, values in stats.items():
                lengths[f"{name}.{stat}"] = _length(values)
        known = {k: v for k, v in lengths.items() if v is not None}
        if len(set(known.values())) > 1:
            raise StatisticsError(f"statistics arrays have different lengths: {known}")
        n = next(iter(known.values()), 0)
        arrays = {"row_count": _to_arrow(row_count, n, pa.int64())}
        for name, stats in columns.items():
            extra = set(stats) - set(ALL_FIELDS)
            if extra:
                raise StatisticsError(f"unknown statistics for {name!r}: {sorted(extra)}")
            t = (types or {}).get(name) or _infer_type(stats.get("min"), stats.get("max"))
            if t is None:
                raise StatisticsError(f"cannot infer the type of column {name!r}: give min or "
                                      "max values, or types={...}")
            fields, children, widened = [], [], {}
            for stat in ALL_FIELDS:
                values = stats.get(stat)
                if stat in ("min", "max") and _other_unit(values, t):
                    values, widened[f"{stat}_exact"] = _timestamps(values, t, stat)
                if stat not in stats and stat not in REQUIRED_FIELDS and stat not in widened:
                    continue
                st = t if stat in ("min", "max") else pa.list_(t) if stat == "values" else (
                    pa.binary() if stat == "bloom" else
                    pa.bool_() if stat in FLAG_FIELDS else pa.int64())
                arr = _to_arrow(values, n, st) if values is not None or stat in stats else \
                    pa.array(np.ones(n, bool))  # an exactness flag absent: exact
                if stat in widened:  # a widened bound is no value of the container
                    import pyarrow.compute as pc

                    arr = pc.and_kleene(arr, pa.array(~widened[stat]))
                children.append(arr)
                fields.append(stat)
            arrays[name] = pa.StructArray.from_arrays(children, fields)
        return cls(pa.table(arrays), nan_bounds=nan_bounds, no_nan=no_nan)


def _other_unit(values, t: pa.DataType) -> bool:
    """NumPy datetime64 bounds at another unit than the timestamp column ``t``."""
    return (pa.types.is_timestamp(t) and values is not None and not isinstance(values, pa.Array)
            and np.asarray(values).dtype.kind == "M"
            and np.datetime_data(np.asarray(values).dtype)[0] != t.unit)


def _timestamps(values, t: pa.DataType, stat: str) -> tuple[pa.Array, np.ndarray]:
    """datetime64 bounds as values of the timestamp column ``t``, read at their own unit (naive
    ones as UTC instants when ``t`` has a zone) and converted exactly, a bound finer than ``t``
    widened outwards (``conformance.conform_timestamps``); and where one was widened."""

    data = np.asarray(values.data if isinstance(values, np.ma.MaskedArray) else values)
    unit = np.datetime_data(data.dtype)[0]
    if unit not in ("s", "ms", "us", "ns"):
        raise StatisticsError(f"statistics values of unit {unit!r} do not fit type {t}")
    mask = np.ma.getmaskarray(values) if isinstance(values, np.ma.MaskedArray) else None
    arr = pa.array(data, pa.timestamp(unit), mask=mask)
    return conform_timestamps(arr, t, stat)


def _length(values) -> int | None:
    return None if values is None else len(values)


def _infer_type(*candidates) -> pa.DataType | None:
    for values in candidates:
        if values is not None:
            data = values.data if isinstance(values, np.ma.MaskedArray) else values
            if not len(data):
                return pa.int64()
            if _python_ints(data):
                return _int_type(data)
            return pa.array(np.asarray(data)).type
    return None


def _python_ints(values) -> bool:
    """A Python list or tuple of ints (and Nones). NumPy would make one that mixes values of
    2**63 and above with others a float64 array, where 2**53 + 1 is 2**53: bounds rounded
    past the values they bound. They go to pyarrow as they are.

    >>> _python_ints([1, None, 2**64 - 1]), _python_ints([1.5]), _python_ints(np.array([1]))
    (True, False, False)
    """
    return isinstance(values, (list, tuple)) and any(v is not None for v in values) and all(
        v is None or type(v) is int for v in values)


def _int_type(values) -> pa.DataType:
    """BIGINT when every value fits it, else uint64 when every one fits that.

    >>> _int_type([-1, 5]), _int_type([5, 2**63])
    (DataType(int64), DataType(uint64))
    """
    known = [v for v in values if v is not None]
    if all(-(2**63) <= v < 2**63 for v in known):
        return pa.int64()
    if all(0 <= v < 2**64 for v in known):
        return pa.uint64()
    raise StatisticsError(f"statistics values {min(known)} .. {max(known)} fit no integer type; "
                          "give types={...}")


def _to_arrow(values, n: int, t: pa.DataType) -> pa.Array:
    if values is None:
        return pa.nulls(n, t)
    if pa.types.is_decimal(t) and _integers(values):
        return _unscaled(values, t)
    try:
        if isinstance(values, np.ma.MaskedArray):
            return pa.array(np.asarray(values.data), mask=np.ma.getmaskarray(values), type=t)
        if isinstance(values, pa.Array):
            return values.cast(t)
        if pa.types.is_list(t) or pa.types.is_binary(t):  # lists and bytes: one per container
            return pa.array([None if v is None else
                             (v if isinstance(v, bytes) else list(v)) for v in values], type=t)
        if pa.types.is_integer(t) and _python_ints(values):
            return pa.array(list(values), type=t)  # exactly, or an error naming the value
        return pa.array(np.asarray(values), type=t)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError) as e:
        raise StatisticsError(f"statistics values do not fit type {t}: {e}") from None


def _integers(values) -> bool:
    """NumPy integers, or Python ints in a list or an object array (bools are not integers
    here)."""
    if _python_ints(values):
        return True
    data = np.asarray(values.data if isinstance(values, np.ma.MaskedArray) else values)
    if data.dtype.kind in "iu":
        return True
    return data.dtype == object and len(data) > 0 and all(
        v is None or isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in data)


def _unscaled(values, t: pa.DataType) -> pa.Array:
    """DECIMAL bounds from their unscaled integers, as Parquet stores them: 1234 is 12.34 in
    DECIMAL(p, 2). A value with more than p digits is an error naming it."""
    masked = isinstance(values, np.ma.MaskedArray)
    data = np.array(values, object) if _python_ints(values) else np.asarray(
        values.data if masked else values)
    mask = np.ma.getmaskarray(values) if masked else np.array(
        [v is None for v in data], bool) if data.dtype == object else np.zeros(len(data), bool)
    limit = 10**t.precision

    def too_wide(v: int) -> StatisticsError:
        return StatisticsError(f"unscaled value {v} has more than {t.precision} digits: no "
                               f"value of {t}")

    if (data.dtype.kind == "i" or data.dtype.kind == "u" and data.dtype.itemsize < 8) and \
            t.bit_width >= 128:
        # Two's complement words, least significant first: the int64 and its sign.
        v = data.astype(np.int64)
        if limit <= 2**63:  # at most 18 digits: an int64 can have more
            wide = (np.abs(v) >= limit) & ~mask
            if wide.any():
                raise too_wide(int(v[wide][0]))
        words = np.empty((len(v), t.bit_width // 64), np.int64)
        words[:, 0] = v
        words[:, 1:] = (v >> 63)[:, None]
        validity = pa.array(~mask).buffers()[1] if mask.any() else None
        return pa.Array.from_buffers(t, len(v), [validity, pa.py_buffer(words)],
                                     null_count=int(mask.sum()))
    ints = [None if m else int(v) for v, m in zip(data.tolist(), mask.tolist(), strict=True)]
    for v in ints:
        if v is not None and not -limit < v < limit:
            raise too_wide(v)
    exact = decimal.Context(prec=t.precision + 2)  # the default 28 digits would round
    return pa.array([None if v is None else decimal.Decimal(v).scaleb(-t.scale, context=exact)
                     for v in ints], t)


# Schemas that passed ``_validate``, newest last, with their columns: a pipeline wraps one
# schema's statistics again and again, and checking it field by field cost more than the rest
# of a prune call on 1,000 containers. Compared with ``Schema.equals`` (a pointer check for the
# same schema object); a few are kept, never a mutable list handed out.
_VALID_SCHEMAS: list[tuple[pa.Schema, tuple[str, ...], frozenset[str]]] = []
_KEEP_SCHEMAS = 8


def _check_named(names: Iterable[str], columns: frozenset[str], argument: str,
                 every: bool = True) -> None:
    """Every name in ``names`` must be a column with statistics (``every``), or at least not
    a top-level column's name where its statistics are keyed otherwise (``"x.y"`` for the
    column keyed ``"`x.y`"``): that one names the field y of a struct x."""
    unknown = sorted(set(names) - columns)
    misread = [c for c in unknown if leaf_key([c]) in columns]
    if not misread and (not unknown or not every):
        return
    hints = ", ".join(f"{leaf_key([c])!r} for the column named {c!r}" for c in misread)
    raise StatisticsError(f"{argument} names columns without statistics: "
                          f"{unknown if every else misread}"
                          + (f" (statistics are keyed by leaf path: {hints})" if hints else ""))


def _validate(table: pa.Table) -> tuple[list[str], frozenset[str]]:
    """Check the canonical layout; return the data columns that have statistics, as a list
    and as a set (what ``with_legacy_keys`` asks of every call)."""
    schema = table.schema
    for known, columns, column_set in reversed(_VALID_SCHEMAS):
        if schema.equals(known):
            return list(columns), column_set
    names = _check_layout(schema)
    _VALID_SCHEMAS.append((schema, tuple(names), frozenset(names)))
    del _VALID_SCHEMAS[:-_KEEP_SCHEMAS]
    return names, _VALID_SCHEMAS[-1][2]


def _check_layout(schema: pa.Schema) -> list[str]:
    names = []
    for field in schema:
        t = field.type
        if field.name == "row_count":
            if not pa.types.is_integer(t) and not pa.types.is_null(t):
                raise StatisticsError(f"row_count must be an integer column, got {t}")
            continue
        if not pa.types.is_struct(t):
            continue  # extra columns (file path, row-group index) are allowed
        try:
            split_leaf_key(field.name)
        except StatisticsError as e:
            raise StatisticsError(f"{e}; name a leaf's statistics with "
                                  "prunekit.expr.paths.leaf_key(path)") from None
        sub = {t.field(i).name: t.field(i).type for i in range(t.num_fields)}
        missing = [f for f in REQUIRED_FIELDS if f not in sub]
        if missing:
            raise StatisticsError(f"statistics struct {field.name!r} has no field "
                                  f"{missing[0]!r} (it needs min, max and null_count)")
        if sub["min"] != sub["max"] and not (pa.types.is_null(sub["min"]) or
                                             pa.types.is_null(sub["max"])):
            raise StatisticsError(f"{field.name}.min is {sub['min']} but {field.name}.max is "
                                  f"{sub['max']}")
        for f in COUNT_FIELDS:
            if f in sub and not (pa.types.is_integer(sub[f]) or pa.types.is_null(sub[f])):
                raise StatisticsError(f"{field.name}.{f} must be an integer, got {sub[f]}")
        for f in FLAG_FIELDS:
            if f in sub and not (pa.types.is_boolean(sub[f]) or pa.types.is_null(sub[f])):
                raise StatisticsError(f"{field.name}.{f} must be a boolean, got {sub[f]}")
        _validate_value_sets(field.name, sub)
        names.append(field.name)
    return names


def with_legacy_keys(stats: Statistics, wanted: Iterable[str],
                     schema_leaves: Iterable[str]) -> Statistics:
    """``stats`` with old-layout columns renamed to the keys in ``wanted`` they stand for.

    A top-level column ``a.b`` is keyed ``"`a.b`"``; statistics built before nested fields
    may call it ``a.b``. That raw column is used when nothing else can be meant: ``wanted``
    (the keys a predicate reads) holds ``"`a.b`"``, ``stats`` has no such column, and
    ``a.b`` is not a leaf of the data schema (``schema_leaves``) nor wanted itself. Returns
    ``stats`` itself when nothing is renamed; the renamed copy is kept on ``stats`` for the next
    call, so string codes are ranked once.

    >>> import numpy as np
    >>> old = Statistics.from_numpy(row_count=[1], columns={"a.b": {
    ...     "min": np.array([1]), "max": np.array([2]), "null_count": [0]}})
    >>> with_legacy_keys(old, ["`a.b`"], ["`a.b`"]).columns
    ['`a.b`']
    >>> with_legacy_keys(old, ["`a.b`"], ["`a.b`", "a.b"]).columns   # a.b is a struct leaf
    ['a.b']
    """
    have = stats._column_set
    wanted = wanted if isinstance(wanted, (set, frozenset)) else set(wanted)
    if wanted <= have:  # every call but an old layout's: no set of the schema's leaves built
        return stats
    missing = wanted - have
    leaves = set(schema_leaves)
    renames = {}
    for key in missing:
        parts = split_leaf_key(key)
        raw = parts[0]
        if len(parts) == 1 and raw != key and raw in have and raw not in leaves | wanted:
            renames[raw] = key
    if not renames:
        return stats
    memo = stats.__dict__.setdefault("_legacy", {})
    found = memo.get(tuple(sorted(renames.items())))
    if found is None:
        table = stats.table.rename_columns([renames.get(c, c) for c in stats.table.column_names])
        modes = {renames.get(c, c): "include" if v else "exclude"
                 for c, v in stats.nan_in_bounds.items()}
        found = Statistics(table, nan_bounds=modes,
                           no_nan=[renames.get(c, c) for c in stats.no_nan])
        memo[tuple(sorted(renames.items()))] = found
    return found


def _validate_value_sets(name: str, sub: dict) -> None:
    """``values`` must be a list of the column's type, ``bloom`` binary (module docstring)."""
    if "values" in sub:
        t = sub["values"]
        if not pa.types.is_null(t):
            if not (pa.types.is_list(t) or pa.types.is_large_list(t)):
                raise StatisticsError(f"{name}.values must be a list of the column's values, "
                                      f"got {t}")
            bound = sub["min"] if not pa.types.is_null(sub["min"]) else sub["max"]
            if not pa.types.is_null(bound) and not values_compatible(t.value_type, bound):
                raise StatisticsError(f"{name}.values holds {t.value_type}, but {name}.min is "
                                      f"{bound}")
    if "bloom" in sub:
        t = sub["bloom"]
        if not (pa.types.is_null(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t)):
            raise StatisticsError(f"{name}.bloom must be binary (a Parquet split-block bloom "
                                  f"filter bitset), got {t}")
