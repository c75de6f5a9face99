"""Which data manifests of an Iceberg snapshot a predicate needs opened, from the partition
summaries of the manifest list (for ``prunekit.sources.iceberg``).

Each manifest becomes one container: per partition field, its summary's ``lower_bound`` and
``upper_bound`` (values of the transform's result, every file's partition value between them)
are carried back to the source column through the transform (``values``), which
keeps order: the source lies in ``[start of the lower one's range, end of the upper one's]``.
``contains_null = false`` means no NULL in the source. Nothing else is known (no row count),
bounds are never exact, and a manifest whose spec is unknown is always opened. The predicate
then classifies the manifests as it would files: NONE_MATCH ones are skipped.
"""

from __future__ import annotations

import pyarrow as pa

from prunekit.statistics import Statistics

from . import values as values

__all__ = ["manifests_to_open"]


def manifests_to_open(manifests: list, specs: dict, schema, predicate) -> list:
    """The manifests ``predicate`` (a ``PruningPredicate``) cannot rule out from their
    partition summaries, in their order.

    >>> manifests_to_open([], {}, None, None)
    []
    """
    if not manifests:
        return []
    fields = {f.field_id: (f, str(f.field_type)) for f in _top_level(schema)}
    cells: dict[int, list] = {}  # source field id -> per manifest [lo, hi, null_count]
    for k, m in enumerate(manifests):
        spec = specs.get(m.partition_spec_id)
        summaries = m.partitions or []
        if spec is None or len(summaries) != len(spec.fields):
            continue
        for pf, summary in zip(spec.fields, summaries, strict=True):
            if pf.source_id not in fields:
                continue
            source, kind = fields[pf.source_id]
            column = cells.setdefault(pf.source_id, [[None, None, None] for _ in manifests])
            _narrow(column[k], pf.transform, source.field_type, kind, summary)
    if not cells:
        return list(manifests)
    table = {"row_count": pa.array([None] * len(manifests), pa.int64())}
    for field_id, column in cells.items():
        source, kind = fields[field_id]
        t = values.arrow_type(kind)
        lo, hi = [[c[i] for c in column] for i in (0, 1)]
        if pa.types.is_temporal(t):
            width = pa.int32() if t == pa.date32() else pa.int64()
            lo, hi = pa.array(lo, width).view(t), pa.array(hi, width).view(t)
        table[source.name] = pa.StructArray.from_arrays(
            [pa.array(lo, t), pa.array(hi, t), pa.array([c[2] for c in column], pa.int64()),
             pa.array([False] * len(manifests)), pa.array([False] * len(manifests))],
            ["min", "max", "null_count", "min_exact", "max_exact"])
    names = {f.name for f in predicate.schema} if hasattr(predicate.schema, "names") else None
    if names is not None:
        table = {c: a for c, a in table.items() if c == "row_count" or c in names}
    outcome = predicate.classify(Statistics.from_arrow(pa.table(table)))
    return [m for m, o in zip(manifests, outcome, strict=True) if o != 0]


def _top_level(schema) -> list:
    """Partition sources are top-level primitive columns here (a struct field's summary is
    left unused: its statistics key would need the path)."""
    return [f for f in schema.fields if f.field_type.is_primitive and
            values.arrow_type(str(f.field_type)) is not None]


def _narrow(cell: list, transform, source_type, kind: str, summary) -> None:
    name = str(transform)
    try:
        result_kind = str(transform.result_type(source_type))
    except Exception:  # a transform pyiceberg cannot type: nothing learnt
        return
    if summary.contains_null is False and name != "void":
        cell[2] = 0
    lower = values.decode_bound(result_kind, summary.lower_bound, upper=False)
    upper = values.decode_bound(result_kind, summary.upper_bound, upper=True)
    if lower is None or upper is None:
        return
    lo_range = values.partition_range(name, kind, lower)
    hi_range = values.partition_range(name, kind, upper)
    if lo_range is None or hi_range is None:
        return
    lo, hi = lo_range[0], hi_range[1]
    if kind in ("float", "double"):
        lo, hi = (-0.0 if lo == 0 else lo), (0.0 if hi == 0 else hi)
    if cell[0] is None or lo > cell[0]:
        cell[0] = lo
    if cell[1] is None or hi < cell[1]:
        cell[1] = hi
