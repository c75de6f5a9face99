"""The statistics cache: a repeat opens no footer it has seen, and after files are added,
rewritten and removed it equals a fresh read."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from prunekit.sources import cache as C
from prunekit.sources import parquet


@pytest.fixture
def opened(monkeypatch) -> list[str]:
    """The footers read, by path."""
    seen: list[str] = []
    real = parquet._read_footer
    monkeypatch.setattr(parquet, "_read_footer", lambda p: (seen.append(p), real(p))[1])
    return seen


def _write(folder, name: str, values: list, **kw) -> str:
    path = os.path.join(folder, name)
    pq.write_table(pa.table({"x": pa.array(values, pa.int64()),
                             "s": pa.array([str(v) for v in values])}), path, **kw)
    return path


def test_a_repeat_opens_no_footer_and_changes_are_exact(tmp_path, opened):
    data, cache = tmp_path / "data", tmp_path / "stats.parquet"
    data.mkdir()
    for k in range(5):
        _write(data, f"p{k}.parquet", list(range(k * 10, k * 10 + 6)), row_group_size=3)
    first = C.cached_row_group_statistics(str(data), cache)
    assert len(opened) == 5 and first.equals(parquet.row_group_statistics(str(data)))
    opened.clear()

    assert C.cached_row_group_statistics(str(data), cache).equals(first)
    assert opened == []

    os.remove(data / "p1.parquet")
    added = _write(data, "p9.parquet", [None, 7, 8])
    changed = _write(data, "p3.parquet", [-5, 500, 501, 502])  # another size
    opened.clear()
    after = C.cached_row_group_statistics(str(data), cache)
    assert sorted(opened) == sorted([added, changed])
    fresh = parquet.row_group_statistics(str(data))
    assert after.equals(fresh), (after.to_pydict(), fresh.to_pydict())

    opened.clear()
    assert C.cached_row_group_statistics(str(data), cache).equals(fresh) and opened == []


def test_a_file_rewritten_with_the_same_size_but_a_new_time_is_read_again(tmp_path, opened):
    data = tmp_path / "data"
    data.mkdir()
    path = _write(data, "a.parquet", [1, 2, 3])
    cache = tmp_path / "c.parquet"
    C.cached_row_group_statistics(str(data), cache)
    _write(data, "a.parquet", [7, 8, 9])  # same layout, same size
    os.utime(path, ns=(os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns + 10**9))
    opened.clear()
    got = C.cached_row_group_statistics(str(data), cache)
    assert opened == [path]
    assert got.column("x").to_pylist()[0]["min"] == 7


def test_a_broken_or_foreign_cache_is_rebuilt_not_trusted(tmp_path, opened):
    data = tmp_path / "data"
    data.mkdir()
    _write(data, "a.parquet", [1, 2, 3])
    for content in (b"not parquet at all", None):
        cache = tmp_path / "c.parquet"
        if content is None:  # a valid Parquet file that is no cache of ours
            pq.write_table(pa.table({"file": ["a.parquet"]}), cache)
        else:
            cache.write_bytes(content)
        opened.clear()
        got = C.cached_row_group_statistics(str(data), cache)
        assert len(opened) == 1 and got.equals(parquet.row_group_statistics(str(data)))


def test_a_cache_inside_the_dataset_is_not_read_as_data(tmp_path):
    _write(tmp_path, "a.parquet", [1])
    got = C.cached_row_group_statistics(str(tmp_path), tmp_path / "stats.parquet")
    again = C.cached_row_group_statistics(str(tmp_path), tmp_path / "stats.parquet")
    assert got.column("file").to_pylist() == again.column("file").to_pylist() == [
        str(tmp_path / "a.parquet")]
