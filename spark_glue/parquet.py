"""Parquet row-group statistics read by Spark executors, for datasets with more files than one
machine should open.

The driver lists the file names and reads one footer, for the schema; executors read the other
footers with ``prunekit.parquet`` and return one row per row group in the canonical layout.
Types Spark has no name for are widened exactly (uint8/16/32 to the next signed width, uint64
to DECIMAL(20, 0), date64 to DATE), and timestamps in other units become microseconds with
the minimum rounded down and the maximum rounded up, marked inexact, so every bound still holds.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from prunekit.errors import StatisticsError
from prunekit.sources import parquet

_WIDER = {pa.uint8(): pa.int16(), pa.uint16(): pa.int32(), pa.uint32(): pa.int64(),
          pa.uint64(): pa.decimal128(20, 0), pa.date64(): pa.date32()}


def _spark_type(t: pa.DataType) -> pa.DataType:
    if pa.types.is_timestamp(t):
        return pa.timestamp("us", t.tz)
    if pa.types.is_large_string(t):
        return pa.string()
    if pa.types.is_large_binary(t):
        return pa.binary()
    return _WIDER.get(t, t)


def _rounded(t: pa.StructType) -> bool:
    """Whether a struct's bounds are nanosecond timestamps, rounded to microseconds."""
    i = t.get_field_index("min")
    return i >= 0 and pa.types.is_timestamp(t.field(i).type) and t.field(i).type.unit == "ns"


def spark_schema(schema: pa.Schema) -> pa.Schema:
    """The statistics schema with every bound type one Spark can hold."""
    fields = []
    for f in schema:
        if not pa.types.is_struct(f.type):
            fields.append(pa.field(f.name, _spark_type(f.type)))
            continue
        kids = [f.type.field(i) for i in range(f.type.num_fields)]
        kids = [pa.field(k.name, _spark_type(k.type)) if k.name in ("min", "max") else k
                for k in kids if not (_rounded(f.type) and k.name.endswith("_exact"))]
        if _rounded(f.type):
            kids += [pa.field("min_exact", pa.bool_()), pa.field("max_exact", pa.bool_())]
        fields.append(pa.field(f.name, pa.struct(kids)))
    return pa.schema(fields)


def _bound(arr: pa.Array, target: pa.DataType, upper: bool) -> pa.Array:
    if arr.type == target:
        return arr
    if pa.types.is_timestamp(arr.type) and arr.type.unit == "ns":
        round_ = pc.ceil_temporal if upper else pc.floor_temporal
        return round_(arr, unit="microsecond").cast(target)
    return arr.cast(target)  # widening, s/ms to us, large to plain strings: exact


def conform(table: pa.Table, target: pa.Schema) -> pa.Table:
    """``table`` (statistics of some files) in ``target``'s layout: missing columns unknown
    (all NULL), extra ones dropped, bounds converted so that they still hold (nanosecond
    bounds rounded outwards and marked inexact)."""
    n = table.num_rows
    columns = []
    for f in target:
        if f.name not in table.column_names:
            columns.append(pa.nulls(n, f.type))
            continue
        col = table.column(f.name).combine_chunks()
        if not pa.types.is_struct(f.type):
            columns.append(col.cast(f.type))
            continue
        have = {col.type.field(i).name for i in range(col.type.num_fields)}
        rounded = _rounded(col.type)
        kids = []
        for i in range(f.type.num_fields):
            k = f.type.field(i)
            if rounded and k.name.endswith("_exact"):
                kids.append(pa.array([False] * n, pa.bool_()))
            elif k.name not in have:
                kids.append(pa.nulls(n, k.type))
            elif k.name in ("min", "max"):
                kids.append(_bound(col.field(k.name), k.type, upper=k.name == "max"))
            else:
                kids.append(col.field(k.name).cast(k.type))
        names = [f.type.field(i).name for i in range(f.type.num_fields)]
        columns.append(pa.StructArray.from_arrays(kids, names, mask=col.is_null()))
    return pa.table(columns, schema=target)


def parquet_statistics(spark, path, *, files_per_task: int = 64, columns=None):
    """A Spark DataFrame of row-group statistics (canonical layout, plus ``file`` and
    ``row_group``) of the Parquet files at ``path``, read by executors; ``columns``: only
    those leaves (as ``prunekit.parquet.row_group_statistics`` takes them).

    >>> callable(parquet_statistics)
    True
    """
    from pyspark.sql.pandas.types import from_arrow_schema

    files = parquet.parquet_files(path)
    if not files:
        raise StatisticsError(f"{path}: no Parquet files")
    target = spark_schema(parquet.row_group_statistics(files[:1], columns=columns).schema)
    names = spark.createDataFrame([(f,) for f in files], "file string")
    names = names.repartition(max(1, -(-len(files) // files_per_task)))

    def read(batches):
        for batch in batches:
            paths = batch.column(0).to_pylist()
            if paths:
                yield from conform(parquet.row_group_statistics(paths, progress=False,
                                                                columns=columns),
                                   target).to_batches()

    return names.mapInArrow(read, from_arrow_schema(target))
