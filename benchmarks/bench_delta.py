"""File statistics of a Delta table of 10,000 and 100,000 files: ``prunekit.delta``'s log replay
(checkpoint, then JSON commits; the snapshot a process keeps dropped before each call) against
delta-rs ``DeltaTable(...).get_add_actions(flatten=True)``, which replays the same log in Rust
into one Arrow table. Neither opens a data file.

The table is only a log (``generate``): ten JSON commits of ``add`` actions with statistics
(BIGINT, DOUBLE, STRING and TIMESTAMP columns, a string partition column), then a checkpoint
written by delta-rs, so both sides read the checkpoint as a table at that version does; the
``*_commits`` timings read the version before it, replayed from nine JSON commits. It is
cached under ``PRUNEKIT_BENCH_DIR`` (else ``<tmp>/prunekit-bench-<uid>``), keyed by the
generator's source. ``python -m benchmarks.bench_delta [files] [rounds]`` measures by hand:
interleaved calls in one process, medians, min and max.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import statistics
import sys

COMMITS = 10


def generate(root: str, files: int) -> None:
    """A Delta log under ``root``: ``files`` adds over ten commits and a checkpoint."""
    from deltalake import DeltaTable

    log = os.path.join(root, "_delta_log")
    os.makedirs(log, exist_ok=True)
    schema = {"type": "struct", "fields": [
        {"name": n, "type": t, "nullable": True, "metadata": {}}
        for n, t in (("id", "long"), ("price", "double"), ("s", "string"),
                     ("ts", "timestamp"), ("part", "string"))]}
    per = files // COMMITS
    for c in range(COMMITS):
        actions = []
        if c == 0:
            actions += [{"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
                        {"metaData": {"id": "bench", "format": {"provider": "parquet",
                                                                 "options": {}},
                                      "schemaString": json.dumps(schema),
                                      "partitionColumns": ["part"], "configuration": {},
                                      "createdTime": 0}}]
        for k in range(c * per, (c + 1) * per):
            stats = {"numRecords": 100,
                     "minValues": {"id": 100 * k, "price": k * 0.5, "s": f"a{k:07d}",
                                   "ts": "2024-01-01T00:00:00.000Z"},
                     "maxValues": {"id": 100 * k + 99, "price": k * 0.5 + 9.75,
                                   "s": f"z{k:07d}", "ts": "2024-01-02T10:00:00.123Z"},
                     "nullCount": {"id": 0, "price": 1, "s": 0, "ts": 0}}
            actions.append({"add": {"path": f"part={k % 7}/f{k:07d}.parquet",
                                    "partitionValues": {"part": str(k % 7)}, "size": 1_000,
                                    "modificationTime": 0, "dataChange": True,
                                    "stats": json.dumps(stats)}})
        with open(os.path.join(log, f"{c:020d}.json"), "w") as f:
            f.write("\n".join(json.dumps(a) for a in actions) + "\n")
    DeltaTable(root).create_checkpoint()


_VERSION = hashlib.sha256(inspect.getsource(generate).encode()).hexdigest()[:12]


def table_path(files: int) -> str:
    """The benchmark table's directory, generated on first use."""
    from .workload import data_dir

    base = data_dir()
    root = os.path.join(base, f"delta-log-{files}-{_VERSION}")
    done = os.path.join(root, "generated")
    if not os.path.exists(done):
        if os.path.isdir(os.path.join(root, "_delta_log")):  # an interrupted generation
            for name in os.listdir(os.path.join(root, "_delta_log")):
                os.remove(os.path.join(root, "_delta_log", name))
        generate(root, files)
        open(done, "w").close()
    return root


def prunekit_statistics(root: str, version: int | None = None):
    from prunekit.sources import delta

    delta._SNAPSHOTS.clear()  # measure the log replay, not the snapshot a process keeps
    return delta.file_statistics(root, version)


def delta_rs_add_actions(root: str, version: int | None = None):
    from deltalake import DeltaTable

    return DeltaTable(root, version=version).get_add_actions(flatten=True)


class FileStatistics:
    params = [10_000, 100_000]
    param_names = ["files"]
    timeout = 900

    def setup(self, files):
        self.root = table_path(files)

    def time_prunekit(self, files):
        prunekit_statistics(self.root)

    def time_delta_rs(self, files):
        delta_rs_add_actions(self.root)

    def time_prunekit_commits(self, files):
        prunekit_statistics(self.root, COMMITS - 2)

    def time_delta_rs_commits(self, files):
        delta_rs_add_actions(self.root, COMMITS - 2)


def measure(files: int = 10_000, rounds: int = 5) -> None:
    """Interleaved calls in one process (after one untimed call each: imports); medians and
    spreads (min to max) in seconds, from the checkpoint and from the JSON commits."""
    from .workload import interleaved

    root = table_path(files)
    for version, label in ((None, "checkpoint"), (COMMITS - 2, "JSON commits")):
        calls = {"prunekit": lambda v=version: prunekit_statistics(root, v),
                 "delta-rs get_add_actions": lambda v=version: delta_rs_add_actions(root, v)}
        for call in calls.values():
            call()
        runs = interleaved(calls, rounds)
        base = statistics.median(runs["delta-rs get_add_actions"])
        for name, times in runs.items():
            m = statistics.median(times)
            print(f"{files:,} files, {label:12s} {name:26s} median {m:7.3f} s  (min "
                  f"{min(times):.3f}, max {max(times):.3f}, {rounds} rounds)  this / "
                  f"delta-rs = {m / base:.2f}")


if __name__ == "__main__":
    measure(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000,
            int(sys.argv[2]) if len(sys.argv) > 2 else 5)
