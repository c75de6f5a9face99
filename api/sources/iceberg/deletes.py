"""Which delete files may apply to a data file of an Iceberg table (for
``prunekit.sources.iceberg``), as Iceberg's planning decides it, erring towards "may": a
delete file naming one data file (a deletion vector's ``referenced_data_file``, or position
deletes whose ``file_path`` bounds are one path) applies to that file; one of an unpartitioned
spec to every file; any other to the files of its spec and partition; each only to data files
whose sequence number is at most its own.
"""

from __future__ import annotations

__all__ = ["PATH_FIELD_ID", "DeleteIndex", "partition_key"]

PATH_FIELD_ID = 2147483546  # the file_path column of position delete files


class DeleteIndex:
    """Live delete files by the data file path they name, by (spec, partition), and the global
    ones (an unpartitioned spec's equality deletes apply to every file); each with its
    sequence number. A data file counts those at or after its own sequence number (position
    deletes apply at equal numbers, equality deletes after; counting both is the safe side).

    >>> from types import SimpleNamespace as NS
    >>> index = DeleteIndex({0: NS(fields=[]), 1: NS(fields=["day"])})
    >>> index.add(NS(sequence_number=5, data_file=NS(spec_id=1, partition=[7],
    ...     referenced_data_file=None, lower_bounds={}, upper_bounds={})))
    >>> index.count("a.parquet", 1, [7], seq=4), index.count("a.parquet", 1, [8], seq=4)
    (1, 0)
    >>> index.count("a.parquet", 1, [7], seq=6)   # written after the deletes
    0
    """

    def __init__(self, specs):
        self.unpartitioned = {i for i, s in specs.items() if not s.fields}
        self.by_path: dict[str, list[int]] = {}
        self.by_partition: dict[tuple, list[int]] = {}
        self.everywhere: list[int] = []

    def add(self, entry) -> None:
        f = entry.data_file
        seq = entry.sequence_number or 0
        path = getattr(f, "referenced_data_file", None) or _named_path(f)
        if path is not None:
            self.by_path.setdefault(path, []).append(seq)
        elif f.spec_id in self.unpartitioned or f.spec_id is None:
            self.everywhere.append(seq)
        else:
            self.by_partition.setdefault((f.spec_id, partition_key(f.partition)), []).append(seq)

    def add_decoded(self, spec_id, named: list, keys: list, seqs: list) -> None:
        """Delete files decoded by column (``entries``): per file the data file path
        it names (or None), its partition values as a tuple, its sequence number.

        >>> index = DeleteIndex({0: type("Spec", (), {"fields": ["day"]})()})
        >>> index.add_decoded(0, [None, "a.parquet"], [(7,), (8,)], [5, 5])
        >>> index.count("a.parquet", 0, [8], seq=4), index.count("b.parquet", 0, [7], seq=4)
        (1, 1)
        """
        for path, key, seq in zip(named, keys, seqs, strict=True):
            if path is not None:
                self.by_path.setdefault(path, []).append(seq)
            elif spec_id in self.unpartitioned or spec_id is None:
                self.everywhere.append(seq)
            else:
                self.by_partition.setdefault((spec_id, key), []).append(seq)

    def count(self, path: str, spec_id: int, partition, seq: int) -> int:
        found = self.by_path.get(path, []) + self.everywhere
        if self.by_partition:
            found = found + self.by_partition.get((spec_id, partition_key(partition)), [])
        return sum(s >= seq for s in found)


def _named_path(f) -> str | None:
    lo, hi = f.lower_bounds or {}, f.upper_bounds or {}
    a, b = lo.get(PATH_FIELD_ID), hi.get(PATH_FIELD_ID)
    if a is not None and a == b:
        try:
            return bytes(a).decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None


def partition_key(partition) -> tuple:
    """A partition record's values as a tuple (records of different specs may be equal).

    >>> partition_key(None)
    ()
    """
    return tuple(partition[i] for i in range(len(partition))) if partition is not None else ()
