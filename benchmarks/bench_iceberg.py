"""Planning an Iceberg scan of 10,000 data files: ``prunekit.iceberg.file_statistics`` plus
``classify`` (and the same with ``predicate=``, which skips manifests by their partition
summaries) against pyiceberg's own ``table.scan(row_filter=...).plan_files()`` for the same
filter. Both read the same manifests (prunekit with its own Avro decoder, pyiceberg with its
reader); neither opens a data file.

The table is made cheaply and once (``table_location``): data files are committed by hand
(``fast_append`` of ``DataFile`` entries with their metrics, ten commits, so ten manifests)
without writing the Parquet files they name, since planning never reads them. It is cached
under ``PRUNEKIT_BENCH_DIR`` (else ``<tmp>/prunekit-bench-<uid>``), keyed by the generator's
source. ``python -m benchmarks.bench_iceberg [files]`` measures by hand: interleaved calls in
one process, medians.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import inspect
import os
import statistics
import sys
import time

FILES = 10_000
COMMITS = 10
EPOCH = dt.datetime(2024, 1, 1)


def generate(root: str, files: int) -> str:
    """A SQLite catalog under ``root`` holding table ``bench.t``: ``files`` data files of 100
    rows, file k holding ids [100k, 100k + 99] and timestamps of day k // 100, partitioned by
    day; returns the metadata file's location."""
    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.conversions import to_bytes
    from pyiceberg.manifest import DataFile, DataFileContent, FileFormat
    from pyiceberg.transforms import DayTransform
    from pyiceberg.typedef import Record
    from pyiceberg.types import LongType, StringType, TimestampType

    catalog = SqlCatalog("bench", uri=f"sqlite:///{root}/catalog.db", warehouse=f"file://{root}")
    catalog.create_namespace("bench")
    schema = pa.schema([("id", pa.int64()), ("ts", pa.timestamp("us")), ("s", pa.string())])
    table = catalog.create_table("bench.t", schema, properties={"format-version": "2"})
    with table.update_spec() as u:
        u.add_field("ts", DayTransform(), "ts_day")
    spec = table.spec()
    day0 = (EPOCH - dt.datetime(1970, 1, 1)).days
    us0 = day0 * 86_400 * 10**6
    per_commit = files // COMMITS
    for c in range(COMMITS):
        with table.transaction() as tx, tx.update_snapshot().fast_append() as append:
            for k in range(c * per_commit, (c + 1) * per_commit):
                day = k // 100
                start = us0 + day * 86_400 * 10**6
                letter = chr(ord("a") + k % 26)
                f = DataFile.from_args(
                    content=DataFileContent.DATA, file_path=f"{root}/data/{k:06d}.parquet",
                    file_format=FileFormat.PARQUET, partition=Record(day0 + day),
                    record_count=100, file_size_in_bytes=2_000,
                    value_counts={1: 100, 2: 100, 3: 100}, null_value_counts={1: 0, 2: 0, 3: 3},
                    lower_bounds={1: to_bytes(LongType(), 100 * k),
                                  2: to_bytes(TimestampType(), start),
                                  3: to_bytes(StringType(), letter)},
                    upper_bounds={1: to_bytes(LongType(), 100 * k + 99),
                                  2: to_bytes(TimestampType(), start + 3_600 * 10**6),
                                  3: to_bytes(StringType(), letter + "zzz")})
                f.spec_id = spec.spec_id
                append.append_data_file(f)
    return catalog.load_table("bench.t").metadata_location


_VERSION = hashlib.sha256(inspect.getsource(generate).encode()).hexdigest()[:12]


def table_location(files: int = FILES) -> str:
    """The benchmark table's metadata file, generated on first use."""
    from .workload import data_dir

    base = data_dir()
    root = os.path.join(base, f"iceberg-{files}-{_VERSION}")
    done = os.path.join(root, "metadata-location")
    if not os.path.exists(done):
        os.makedirs(root, exist_ok=True)
        if os.path.exists(os.path.join(root, "catalog.db")):  # an interrupted generation
            os.remove(os.path.join(root, "catalog.db"))
        location = generate(root, files)
        with open(done, "w") as f:
            f.write(location)
    with open(done) as f:
        return f.read()


def where(files: int) -> tuple[str, tuple]:
    """The filter, as SQL and as (low id, high id, least s, first day, day after): the ids of
    2% of the files, from 40% of the way in, a third of their strings, and their days (so
    that manifests, which cover a tenth of the days each, can be skipped)."""
    first = files * 2 // 5
    low, high = 100 * first, 100 * (first + files // 50) - 1
    day = (EPOCH + dt.timedelta(first // 100)).isoformat()
    after = (EPOCH + dt.timedelta((first + files // 50) // 100 + 1)).isoformat()
    text = (f"id BETWEEN {low} AND {high} AND s >= 'r' AND ts >= TIMESTAMP_NTZ '{day}' "
            f"AND ts < TIMESTAMP_NTZ '{after}'")
    return text, (low, high, "r", day, after)


def _iceberg_filter(bounds: tuple):
    from pyiceberg.expressions import And, GreaterThanOrEqual, LessThan, LessThanOrEqual

    low, high, least, *days = bounds
    terms = [GreaterThanOrEqual("id", low), LessThanOrEqual("id", high),
             GreaterThanOrEqual("s", least)]
    if days:
        terms += [GreaterThanOrEqual("ts", days[0]), LessThan("ts", days[1])]
    return And(*terms)


def prunekit_plan(table, predicate, skip_manifests: bool = False, repeated: bool = False):
    """The files to read: statistics of every live file, then classify. A first plan of the
    snapshot unless ``repeated`` (then its statistics are the process's cached ones)."""
    import prunekit as pk
    import prunekit.iceberg as pi
    from prunekit.sources import iceberg as source

    if not repeated:
        source._CACHE.clear()  # measure reading the manifests, not the cache

    stats = pi.statistics(table, predicate=predicate if skip_manifests else None,
                          columns=predicate.required_columns)
    outcome = predicate.classify(stats)
    return [p for p, o in zip(stats.table.column("path").to_pylist(), outcome.tolist(),
                              strict=True) if o != pk.NONE_MATCH]


def pyiceberg_plan(table, bounds: tuple):
    return [task.file.file_path
            for task in table.scan(row_filter=_iceberg_filter(bounds)).plan_files()]


class PlanFiles:
    timeout = 600

    def setup_cache(self):
        return table_location(FILES)

    def setup(self, location):
        import prunekit as pk
        import prunekit.iceberg as pi

        self.table = pi.load_table(location)
        text, self.bounds = where(FILES)
        self.predicate = pk.PruningPredicate(text, pi.data_schema(self.table))
        prunekit_plan(self.table, self.predicate)  # the kernel compiled or loaded

    def time_prunekit(self, location):
        prunekit_plan(self.table, self.predicate)

    def time_prunekit_skipping_manifests(self, location):
        prunekit_plan(self.table, self.predicate, skip_manifests=True)

    def time_prunekit_repeated(self, location):
        prunekit_plan(self.table, self.predicate, repeated=True)

    def time_pyiceberg_plan_files(self, location):
        pyiceberg_plan(self.table, self.bounds)


def measure(files: int = FILES, rounds: int = 7) -> None:
    """Interleaved calls in one process; medians and spreads (min to max) in seconds."""
    import prunekit as pk
    import prunekit.iceberg as pi

    from .workload import interleaved

    started = time.perf_counter()
    location = table_location(files)
    print(f"{files:,} files: table ready in {time.perf_counter() - started:.1f} s")
    table = pi.load_table(location)
    text, bounds = where(files)
    predicate = pk.PruningPredicate(text, pi.data_schema(table))
    kept = prunekit_plan(table, predicate)
    planned = pyiceberg_plan(table, bounds)
    print(f"kept by prunekit {len(kept):,}, by pyiceberg {len(planned):,}")
    # Without the ts conjuncts no manifest can be skipped: both sides read every manifest.
    every = pk.PruningPredicate(text.split(" AND ts")[0], pi.data_schema(table))
    # "planned before" right after "prunekit", which leaves the snapshot's statistics cached.
    calls = {"prunekit": lambda: prunekit_plan(table, predicate),
             "prunekit, snapshot planned before": lambda: prunekit_plan(table, predicate,
                                                                          repeated=True),
             "prunekit skipping manifests": lambda: prunekit_plan(table, predicate, True),
             "pyiceberg plan_files": lambda: pyiceberg_plan(table, bounds),
             "prunekit, id and s only": lambda: prunekit_plan(table, every),
             "pyiceberg, id and s only": lambda: pyiceberg_plan(table, bounds[:3])}
    runs = interleaved(calls, rounds)
    for name, times in runs.items():
        base = statistics.median(runs["pyiceberg, id and s only" if "only" in name else
                                      "pyiceberg plan_files"])
        m = statistics.median(times)
        print(f"{name:28s} median {m:7.3f} s  (min {min(times):.3f}, max {max(times):.3f})"
              f"  pyiceberg / this = {base / m:.2f}")


if __name__ == "__main__":
    measure(int(sys.argv[1]) if len(sys.argv) > 1 else FILES)
