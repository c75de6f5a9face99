"""Classify a Spark DataFrame of statistics with the same kernels as ``PruningPredicate``.

What travels to executors is bytes: the pickled statistics program (plain data), the NaN
semantics and the Arrow types the program was bound with. Each Python worker unpickles it once
per payload and keeps the kernels it compiles or loads in ``prunekit.kernels.run``'s
process-wide cache, so a reused worker (Spark's default) compiles a shape once.

Two ways to ship batches (``method``):

- ``"udf"`` (Spark >= 4.1, the default there): an Arrow UDF over only the statistics the
  predicate reads, one flat column each; the other columns never leave the JVM, which zips
  the outcome back onto each row (and prunes what a later query does not use).
- ``"map"``: ``DataFrame.mapInArrow`` over every column; batches come back unchanged with
  ``outcome`` appended, the output schema declared as the input's plus an int8 column.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import sys
from collections.abc import Iterable, Iterator, Mapping

import numpy as np
import pyarrow as pa

from prunekit.conformance import compatible
from prunekit.errors import PrunekitError, StatisticsError, UnsupportedError
from prunekit.expr.resolve import nest
from prunekit.kernels.inputs import prepare
from prunekit.kernels.ops import NONE_MATCH
from prunekit.kernels.run import evaluate
from prunekit.predicate import PruningPredicate
from prunekit.statistics import Statistics

from . import to_sql as S
from ._spark import F, T, arrow_udf_available, retag, spark_errors

__all__ = ["classify_dataframe", "data_schema", "prune_dataframe", "spark_errors"]

_SPARK_TO_ARROW = {
    "ByteType": pa.int8(), "ShortType": pa.int16(), "IntegerType": pa.int32(),
    "LongType": pa.int64(), "FloatType": pa.float32(), "DoubleType": pa.float64(),
    "BooleanType": pa.bool_(), "StringType": pa.string(), "BinaryType": pa.binary(),
    "DateType": pa.date32(), "TimestampType": pa.timestamp("us", tz="UTC"),
    "TimestampNTZType": pa.timestamp("us"),
}


def _arrow_type(spark_type) -> pa.DataType | None:
    name = type(spark_type).__name__
    if name == "DecimalType":
        return pa.decimal128(spark_type.precision, spark_type.scale)
    if name == "StringType" or name.startswith("CharType") or name.startswith("VarcharType"):
        return pa.string()
    return _SPARK_TO_ARROW.get(name)


def data_schema(stats_schema) -> pa.Schema:
    """The data columns' types read off the statistics structs' ``min``/``max`` fields (a
    Spark TIMESTAMP is an instant: ``timestamp('us', tz='UTC')``; TIMESTAMP_NTZ has no zone).

    >>> from pyspark.sql import types as T
    >>> x = T.StructType([T.StructField("min", T.DateType()), T.StructField("max", T.DateType()),
    ...                   T.StructField("null_count", T.LongType())])
    >>> data_schema(T.StructType([T.StructField("row_count", T.LongType()),
    ...                           T.StructField("x", x), T.StructField("path", T.StringType())]))
    x: date32[day]
    """
    leaf_types = {}
    for f in stats_schema.fields:
        kids = getattr(f.dataType, "fields", None)
        if f.name == "row_count" or kids is None:
            continue
        types = {k.name: _arrow_type(k.dataType) for k in kids if k.name in ("min", "max")}
        t = types.get("min") or types.get("max")
        if t is not None:
            leaf_types[f.name] = t
    return nest(leaf_types)  # leaf keys (address.city) back to struct columns


def _predicate(predicate, schema, stats_df) -> PruningPredicate:
    if isinstance(predicate, PruningPredicate):
        return predicate
    if schema is None:
        schema = data_schema(stats_df.schema)
    elif not isinstance(schema, (pa.Schema, Mapping)) and hasattr(schema, "fields"):
        schema = data_schema_of_spark_types(schema)
    # Text is read as the session reads it: TIMESTAMP literals and calendar functions in its
    # time zone. One Python does not know is refused rather than guessed (a wrong zone would
    # be a wrong answer).
    from ._spark import session_time_zone

    zone = session_time_zone(stats_df.sparkSession)
    if zone is None:
        raise UnsupportedError(
            "prunekit does not know the session time zone "
            f"{stats_df.sparkSession.conf.get('spark.sql.session.timeZone')!r}: pass a "
            "PruningPredicate made with time_zone= (an IANA name such as "
            "'America/Los_Angeles')")
    return PruningPredicate(predicate, schema, time_zone=zone)


def data_schema_of_spark_types(schema) -> pa.Schema:
    """A Spark ``StructType`` of data columns as an Arrow schema (same mapping as above)."""
    out = []
    for f in schema.fields:
        t = _arrow_type(f.dataType)
        if t is None:
            raise UnsupportedError(f"column {f.name!r}: no Arrow type for Spark {f.dataType}")
        out.append(pa.field(f.name, t))
    return pa.schema(out)


# ---- the payload and the executor side -------------------------------------------------------
def _payload(program, nan_bounds, no_nan, backend: str) -> bytes:
    stats = _modes(program, nan_bounds)
    data = (program, stats, frozenset(no_nan), backend)
    return pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)


def _modes(program, nan_bounds) -> dict[str, bool]:
    cols = [c for c, _ in program.column_types]
    if isinstance(nan_bounds, str):
        if nan_bounds not in ("exclude", "include"):
            raise StatisticsError(f"nan_bounds must be 'exclude' or 'include', got "
                                  f"{nan_bounds!r}")
        return dict.fromkeys(cols, nan_bounds == "include")
    return {c: nan_bounds.get(c, "exclude") == "include" for c in cols}


_STATE: dict[str, tuple] = {}  # per worker process: payload digest -> unpickled payload


def _state(payload: bytes) -> tuple:
    key = hashlib.sha256(payload).hexdigest()
    found = _STATE.get(key)
    if found is None:
        _writable_numba_cache()
        found = _STATE[key] = pickle.loads(payload)
    return found


def _writable_numba_cache() -> None:
    """Numba caches its own helpers beside prunekit's source; on executors where that is
    read-only, point it at prunekit's writable cache directory (before Numba is imported)."""
    if "numba" in sys.modules or os.environ.get("NUMBA_CACHE_DIR"):
        return
    from prunekit.kernels import cache

    if not os.access(os.path.dirname(cache.__file__), os.W_OK):
        where = cache.cache_dir()
        if where is not None:
            os.environ["NUMBA_CACHE_DIR"] = str(where.parent / "numba")


def _relabel(kid: pa.DataType, expected: pa.DataType) -> bool:
    """A cast that only re-labels or re-scales the same kind of value (timestamp zone or
    unit, decimal precision, date width); anything else is left for the kernels to refuse."""
    same_kind = (pa.types.is_timestamp, pa.types.is_decimal, pa.types.is_date)
    return not compatible(kid, expected) and any(k(kid) and k(expected) for k in same_kind)


def _conform(batch: pa.RecordBatch, program) -> pa.RecordBatch:
    """Cast min/max to the types the program was bound with where only a label differs
    (Spark sends TIMESTAMP in the session's zone): the values are what Spark sent."""
    columns, changed = list(batch.columns), False
    for name, expected in program.column_types:
        i = batch.schema.get_field_index(name)
        if i < 0 or not pa.types.is_struct(columns[i].type):
            continue
        t = columns[i].type
        todo = [k for k in range(t.num_fields)
                if t.field(k).name in ("min", "max") and _relabel(t.field(k).type, expected)]
        if not todo:
            continue
        kids = columns[i].flatten()
        for k in todo:
            try:
                kids[k] = kids[k].cast(expected)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
                raise StatisticsError(
                    f"statistics {name}.{t.field(k).name} are {kids[k].type}, which cannot "
                    f"stand for column {name!r} of type {expected}: {e}") from None
        columns[i] = pa.StructArray.from_arrays(kids, [t.field(k).name
                                                      for k in range(t.num_fields)])
        changed = True
    if not changed:
        return batch
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names)


def _outcomes(state: tuple, batch: pa.RecordBatch) -> np.ndarray:
    program, modes, no_nan, backend = state
    if batch.num_rows == 0:
        return np.empty(0, np.int8)
    try:
        return evaluate(program, [_conform(batch, program)], modes, no_nan, backend=backend)
    except PrunekitError as e:  # tagged, so that spark_errors() can re-raise it on the driver
        raise retag(e, f"prunekit {type(e).__name__}: {e}") from None
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as e:
        raise StatisticsError(f"prunekit StatisticsError: statistics could not be read: "
                              f"{e}") from None


def _map_batches(payload: bytes, column: str, batches: Iterator[pa.RecordBatch],
                 names: tuple[str, ...] | None = None) -> Iterator[pa.RecordBatch]:
    """mapInArrow body: each batch back unchanged with the int8 outcome appended. ``names``:
    the statistics columns' real names, when Spark carried them under placeholders."""
    state = _state(payload)
    for batch in batches:
        named = batch if names is None else pa.RecordBatch.from_arrays(batch.columns, names)
        out = pa.array(_outcomes(state, named), pa.int8())
        yield pa.RecordBatch.from_arrays(
            [*batch.columns, out],
            schema=batch.schema.append(pa.field(column, pa.int8(), nullable=False)))


def _udf_outcomes(payload: bytes, layout: tuple, arrays: tuple) -> pa.Array:
    """Arrow UDF body: one flat array per statistic read (``layout`` names them), put back
    into the canonical layout (row_count and a struct per column) without copying."""
    arrays = [a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a for a in arrays]
    names, columns, at = [], [], 0
    for column, stats in layout:
        if stats is None:  # row_count, or the placeholder of a program that reads nothing
            columns.append(arrays[at])
            at += 1
        else:
            columns.append(pa.StructArray.from_arrays(arrays[at: at + len(stats)], stats))
            at += len(stats)
        names.append(column)
    batch = pa.RecordBatch.from_arrays(columns, names=names)
    return pa.array(_outcomes(_state(payload), batch), pa.int8())


# ---- the driver side --------------------------------------------------------------------------
def _check_on_driver(program, stats_df) -> None:
    """Refuse malformed statistics types now (as prunekit errors), not in an executor."""
    from pyspark.sql.pandas.types import to_arrow_schema

    try:
        arrow = to_arrow_schema(stats_df.schema, timezone="UTC")
    except Exception as e:  # noqa: BLE001 - pyspark raises several kinds
        raise StatisticsError(f"the statistics DataFrame has a column Arrow cannot carry: "
                              f"{e}") from None
    empty = arrow.empty_table()
    Statistics.from_arrow(empty)  # the canonical layout: struct fields, count types
    batch = _conform(pa.RecordBatch.from_pylist([], schema=arrow), program)
    prepare(program, batch, {}, frozenset())  # min/max types against the schema


def _needed(program, stats_df) -> tuple[tuple, list]:
    """The statistics the program reads that the DataFrame has, one flat column each (Spark
    writes flat primitive columns to Arrow about twice as fast as a struct of structs), and
    their layout: ``(("row_count", None), ("x", ("min", "max")), ...)``."""
    fields = S.present_fields(stats_df.schema)
    layout, parts = [], []
    if None in fields:
        layout.append(("row_count", None))
        parts.append(F.col(S.quote("row_count")))
    for column, stats in program.columns_read.items():
        have = tuple(s for s in stats if s in fields.get(column, {}))
        if have:
            ref = F.col(S.quote(column))
            layout.append((column, have))
            parts.extend(ref.getField(s) for s in have)
    if not parts:  # a constant program reads nothing; the UDF needs an argument
        layout.append(("_prunekit", None))
        parts.append(F.lit(None).cast("int"))
    return tuple(layout), parts


def classify_dataframe(stats_df, predicate, schema=None, *,
                       nan_bounds: str | Mapping[str, str] = "exclude",
                       no_nan: Iterable[str] = (), column: str = "outcome",
                       engine: str = "kernels", method: str = "auto", backend: str = "numba",
                       _prune_only: bool = False):
    """``stats_df`` with an int8 column ``outcome`` per container: 0 NONE_MATCH, 1
    MAYBE_MATCH, 2 ALL_MATCH, exactly as ``PruningPredicate.classify`` on the same statistics.

    Parameters
    ----------
    stats_df : pyspark.sql.DataFrame
        Statistics in the canonical layout (``row_count`` and one struct per data column with
        ``min``, ``max``, ``null_count`` and optionally ``nan_count``, ``min_exact``,
        ``max_exact``; a null means unknown). Other columns pass through untouched.
    predicate : str, Expression or PruningPredicate
    schema : pyarrow.Schema, mapping, pyspark StructType or None
        The data columns' types; None reads them off the structs' ``min``/``max`` types.
    nan_bounds, no_nan : as in ``Statistics`` (Spark and Delta statistics include NaN).
    engine : ``"kernels"`` (the Numba kernels in Python workers) or ``"sql"`` (the same
        program as Spark SQL, evaluated by Spark; see ``to_spark_sql``).
    method : ``"udf"`` (an Arrow UDF over only the statistics read; Spark >= 4.1), ``"map"``
        (``mapInArrow`` over every column) or ``"auto"`` (``"udf"`` where available).
    backend : the kernels' backend in executors (``"numba"``, ``"numpy"`` or ``"auto"``).

    Lazy like every DataFrame: an error in an executor surfaces at the action; run the action
    inside ``with prunekit.spark_glue.spark_errors():`` to get it as the prunekit error.
    """
    pred = _predicate(predicate, schema, stats_df)
    if column in stats_df.columns:
        raise ValueError(f"the statistics DataFrame already has a column {column!r}; pass "
                         "column=... to name the outcome column")
    if engine == "sql":
        from .sqlframe import classify_with_sql

        return classify_with_sql(stats_df, pred, nan_bounds=nan_bounds, no_nan=no_nan,
                                 column=column)
    if engine != "kernels":
        raise ValueError(f"engine must be 'kernels' or 'sql', got {engine!r}")
    if backend not in ("numba", "numpy", "auto"):
        raise ValueError(f"backend must be 'numba', 'numpy' or 'auto', got {backend!r}")
    if method == "auto":
        method = "udf" if arrow_udf_available() else "map"
    program = pred.prune_program if _prune_only else pred.program
    _check_on_driver(program, stats_df)
    payload = _payload(program, nan_bounds, no_nan, backend)
    if method == "map":
        names = tuple(stats_df.columns)
        if any("." in c or "`" in c for c in names):
            # pyspark's mapInArrow reads each column as df[name], which parses "address.city"
            # (a leaf key) as a field path: carry the columns under placeholders instead.
            inner = stats_df.toDF(*(f"_prunekit_{i}" for i in range(len(names))))
            return _map_in_arrow(inner, payload, column, names).toDF(*names, column)
        return _map_in_arrow(stats_df, payload, column, None)
    if method != "udf":
        raise ValueError(f"method must be 'udf', 'map' or 'auto', got {method!r}")
    from pyspark.sql.functions import arrow_udf

    layout, parts = _needed(program, stats_df)
    return stats_df.withColumn(column, arrow_udf(_udf_for(payload, layout), T.ByteType())(
        *parts))


def _map_in_arrow(df, payload: bytes, column: str, names: tuple[str, ...] | None):
    out_schema = T.StructType([*df.schema.fields, T.StructField(column, T.ByteType(), False)])
    return df.mapInArrow(functools.partial(_map_batches, payload, column, names=names),
                         out_schema)


def _udf_for(payload: bytes, layout: tuple):
    # A closure over bytes and names (no dispatcher, no program object): Spark pickles it
    # once per task.
    def outcomes(*arrays: pa.Array) -> pa.Array:
        return _udf_outcomes(payload, layout, arrays)

    return outcomes


def prune_dataframe(stats_df, predicate, schema=None, **options):
    """The containers that may hold a matching row (``outcome != NONE_MATCH``), with
    ``stats_df``'s columns unchanged. Options as in ``classify_dataframe``."""
    column = options.pop("column", "_prunekit_outcome")
    # The program that only tells NONE_MATCH apart (the SQL engine renders the full one).
    out = classify_dataframe(stats_df, predicate, schema, column=column,
                             _prune_only=options.get("engine", "kernels") == "kernels",
                             **options)
    return out.filter(F.col(S.quote(column)) != NONE_MATCH).drop(column)

