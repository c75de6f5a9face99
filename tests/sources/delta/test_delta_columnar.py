"""The columnar Delta replay (``prunekit.sources.delta``) against the per-file reader it
replaced (``tests/support/delta_reference.py``) on random logs, and its own edges by hand: JSON the
two JSON readers read differently, float32 ties, decimals past their scale, timestamp and date
spellings, cut strings' successors, typed checkpoint statistics, malformed logs."""

import datetime as dt
import decimal
import json
import math
import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import prunekit as pk
import prunekit.delta as pd
from prunekit.parquet import data_schema
from prunekit.sources import delta as D
from prunekit.sources.delta.rules import bound, float32_bounds, string
from prunekit.sources.delta.values import bounds, successors
from tests.support import delta_logs, tiers
from tests.support import delta_reference as ref

UTC = dt.timezone.utc


def _same(a, b) -> bool:
    """Equal values, NaN equal to NaN and -0.0 not to 0.0."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b)
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _reference(root, version):
    meta, adds = ref._snapshot(root, version)
    dvs = {ref._local(root, a["path"]) for a in adds.values() if a.get("deletionVector")}
    return ref._table(root, meta, adds), dvs


def _compare(root, version):
    try:
        expected, dvs = _reference(root, version)
    except pk.StatisticsError as e:
        with pytest.raises(pk.StatisticsError):
            D._SNAPSHOTS.clear()
            D.snapshot(root, version)
        return str(e)
    D._SNAPSHOTS.clear()
    snap = D.snapshot(root, version)
    got = snap.statistics
    assert got.schema == expected.schema
    for name in expected.column_names:
        for i, (x, y) in enumerate(
            zip(got.column(name).to_pylist(), expected.column(name).to_pylist(), strict=True)
        ):
            assert _same(x, y), (name, i, expected.column("path")[i], x, y)
    assert snap.deletion_vectors == dvs
    return None


@pytest.mark.parametrize("seed", range(40))
def test_random_logs_read_as_the_per_file_reader_read_them(tmp_path, seed):
    versions = delta_logs.write_log(str(tmp_path), seed)
    for version in versions:
        _compare(str(tmp_path), version)


@pytest.mark.slow
def test_many_random_logs(tmp_path, examples):
    """``examples`` random logs (tests/conftest.py), from seed 40 on."""
    errors = 0
    for seed in range(40, 40 + examples):
        root = tmp_path / str(seed)
        for version in delta_logs.write_log(str(root), seed):
            errors += _compare(str(root), version) is not None
    assert errors < examples / 9  # most logs read: the comparison is not vacuous


# ---- vector rules against the exact rules, value by value --------------------------------
TYPES = [
    pa.int8(),
    pa.int32(),
    pa.int64(),
    pa.float32(),
    pa.float64(),
    pa.decimal128(5, 2),
    pa.decimal128(38, 10),
    pa.string(),
    pa.date32(),
    pa.timestamp("us", "UTC"),
    pa.timestamp("us"),
    pa.bool_(),
]


def _as_pyarrow_reads(texts: list[str], json_type) -> dict:
    """{text: the value pyarrow.json hands over for it} for the texts it reads as
    ``json_type`` (each read on its own: a failing one fails only itself)."""
    import pyarrow.json as pj

    out = {}
    schema = pa.schema([("v", json_type)])
    for text in texts:
        try:
            read = pj.read_json(
                pa.BufferReader(('{"v": ' + text + "}").encode()),
                parse_options=pj.ParseOptions(explicit_schema=schema),
            )
        except (pa.ArrowInvalid, UnicodeEncodeError):
            continue
        out[text] = read.column("v")[0]
    return out


def _json_type(t):
    from prunekit.sources.delta.stats_json import json_type as _json_type

    return _json_type(t)


@pytest.mark.parametrize("t", TYPES, ids=str)
def test_vector_bounds_agree_with_the_exact_rules(t):
    """Value by value, on what pyarrow.json hands over: the vector rules give the exact
    rules' bound and exactness, or leave the value to them (odd)."""
    rng = np.random.default_rng(7)
    kind = {
        pa.int8(): "byte",
        pa.int32(): "integer",
        pa.int64(): "long",
        pa.float32(): "float",
        pa.float64(): "double",
        pa.string(): "string",
        pa.date32(): "date",
        pa.bool_(): "boolean",
        pa.timestamp("us", "UTC"): "timestamp",
        pa.timestamp("us"): "timestamp_ntz",
    }.get(t, f"decimal({t.precision},{t.scale})" if pa.types.is_decimal(t) else None)
    texts = set()
    for _ in range(tiers.pick(500, 1500)):
        texts.add(delta_logs.dumps(delta_logs.value(rng, kind), ascii_only=False))
        texts.add(delta_logs.dumps(delta_logs.canonical(rng, kind), ascii_only=False))
    if pa.types.is_decimal(t):  # digits past the scale, near the precision's edge
        top = "9" * (t.precision - t.scale)
        texts |= {f"{sign}{top}.{tail}" for sign in ("", "-") for tail in ("9", "995", "5", "0")}
        texts |= {
            str(rng.integers(-(10**6), 10**6) / 10 ** int(rng.integers(0, 8))) for _ in range(300)
        }
    reads = _as_pyarrow_reads(sorted(texts), _json_type(t))
    compared = 0
    for prefix in (32, 8, 3):
        for upper in (False, True):
            values, exact, odd = bounds(pa.array(list(reads.values())), t, prefix, upper)
            for i, text in enumerate(reads):
                if odd[i]:
                    continue
                try:
                    raw = json.loads(text, parse_float=decimal.Decimal)
                except ValueError:  # Inf and the like: no text reaching pyarrow.json
                    continue
                want = bound(raw, t, prefix, upper)
                got = values[i].as_py()
                got = (got, bool(exact[i]) if got is not None else None)
                assert _same(got[0], want[0]) and got[1] == want[1], (t, prefix, upper, text)
                compared += 1
    assert compared > len(reads)  # not vacuous: most values read by the vector rules


def test_writers_spellings_need_no_exact_rules(tmp_path, monkeypatch):
    """Statistics as Spark and delta-rs write them are read by the vector rules alone (the
    exact ones are there for odd values, not for every file)."""
    from prunekit.sources.delta import stats as _delta_stats

    rng = np.random.default_rng(11)
    kinds = {f"c{i}": k for i, k in enumerate(delta_logs.KINDS)}
    stats = []
    for _ in range(300):
        sections = {
            section: {n: delta_logs.canonical(rng, k) for n, k in kinds.items()}
            for section in ("minValues", "maxValues")
        }
        sections["nullCount"] = {n: int(rng.integers(0, 9)) for n in kinds}
        text = delta_logs.dumps({"numRecords": 9, **sections}, ascii_only=False)
        stats.append(text.replace("\U0010ffff", "y"))  # no successor past U+10FFFF
    monkeypatch.setattr(_delta_stats, "file_cells", lambda *a: pytest.fail("exact rules"))
    rows = _stats_log_rows(kinds, None, stats, str(tmp_path))
    assert len(rows) == 300 and all(r["c0"]["min"] is not None for r in rows)


def test_float_texts_read_as_the_nearest_double():
    """pyarrow.json parses float text as Python's Decimal-then-float does (correct rounding)."""
    import pyarrow.json as pj

    rng = np.random.default_rng(3)
    texts = [
        "2.2250738585072011e-308",
        "9007199254740993",
        "0.1",
        "1e-400",
        "4.9e-324",
        "123456789012345678901234567890",
        "1.7976931348623157e308",
    ]
    texts += [repr(float(x)) for x in rng.normal(size=300) * 10.0 ** rng.integers(-300, 300, 300)]
    texts += [
        "0." + "".join(rng.choice(list("0123456789"), 30)) + "e" + str(int(e))
        for e in rng.integers(-30, 30, 300)
    ]
    lines = "\n".join(f'{{"a": {t}}}' for t in texts).encode()
    read = (
        pj.read_json(
            pa.BufferReader(lines),
            parse_options=pj.ParseOptions(explicit_schema=pa.schema([("a", pa.float64())])),
        )
        .column("a")
        .to_pylist()
    )
    assert read == [float(decimal.Decimal(t)) for t in texts]


def test_float32_ties_bound_on_the_outer_side(tmp_path):
    """A text read as the double halfway between two float32 values (Java prints some large
    float32 values as that midpoint) bounds with the float32 on the outer side, inexact."""
    halfway = 1 + 2.0**-24
    above = float(np.nextafter(np.float32(1), np.float32(2)))
    v, exact = float32_bounds(np.array([halfway, 1.0, 0.1, 2.0**128 - 2.0**103, 1e39]), True)
    assert v.tolist()[:2] == [above, 1.0] and math.isinf(v[3]) and math.isinf(v[4])
    assert exact.tolist() == [False, True, True, False, True]
    v, exact = float32_bounds(np.array([halfway, -halfway, 2.0**128 - 2.0**103]), False)
    assert v.tolist() == [1.0, -above, float(np.finfo(np.float32).max)]
    rows = _stats_log_rows(
        {"f": "float"},
        None,
        [
            '{"numRecords": 1, "minValues": {"f": 1.000000059604644775390625}, '
            '"maxValues": {"f": 4.881267E7}}'
        ],
        str(tmp_path),
    )
    assert (rows[0]["f"]["min"], rows[0]["f"]["min_exact"]) == (1.0, False)
    assert (rows[0]["f"]["max"], rows[0]["f"]["max_exact"]) == (48812672.0, False)


def _stats_log_rows(kinds, _unused, stats, root, pv=None, partitions=()):
    """The rows of a one-commit log written in ``root`` (a test's folder)."""
    fields = [{"name": n, "type": k, "nullable": True, "metadata": {}} for n, k in kinds.items()]
    meta = {
        "metaData": {
            "schemaString": json.dumps({"type": "struct", "fields": fields}),
            "partitionColumns": list(partitions),
            "configuration": {},
        }
    }
    adds = [
        {"add": {"path": f"f{i}.parquet", "size": 1, "partitionValues": (pv or {}), "stats": s}}
        for i, s in enumerate(stats)
    ]
    os.makedirs(os.path.join(root, "_delta_log"), exist_ok=True)
    with open(os.path.join(root, "_delta_log", f"{0:020d}.json"), "w") as f:
        f.write("\n".join(json.dumps(a) for a in [meta] + adds))
    D._SNAPSHOTS.clear()
    return pd.file_statistics(root).to_pylist()


def test_json_the_two_readers_read_differently(tmp_path):
    """Texts pyarrow.json reads and Python's json does not (or reads otherwise) are read as
    Python reads them: NaN literals, Inf (not JSON to Python: no statistics), a byte order
    mark, two objects on a line, a key written twice, a pretty-printed text."""
    stats = [
        '{"numRecords": 1, "maxValues": {"x": NaN}}',
        '{"numRecords": 2, "maxValues": {"x": Inf}}',
        "\ufeff" + '{"numRecords": 3}',
        '{"numRecords": 4}{"numRecords": 5}',
        '{"numRecords": 6, "numRecords": 7}',
        '{\n "numRecords": 8,\n "minValues": {"x": 1.5}\n}',
        '{"numRecords": 9, "minValues": {"x": -Infinity}}',
        "   ",
        "",
        '{"numRecords": 10, "minValues": {"x": "1.5"}}',
        '{"numRecords": 11, "maxValues": {"x": -NaN}}',
    ]
    rows = _stats_log_rows({"x": "double"}, None, stats, str(tmp_path))
    rows = sorted(rows, key=lambda r: int(os.path.basename(r["path"])[1:-8]))  # f<i>.parquet
    assert [r["row_count"] for r in rows] == [1, None, None, None, 7, 8, 9, None, None, 10, None]
    assert math.isnan(rows[0]["x"]["max"])
    assert rows[5]["x"]["min"] == 1.5
    assert rows[6]["x"]["min"] == -math.inf
    assert rows[9]["x"]["min"] is None  # a string is no double bound


def test_a_bad_row_does_not_spoil_its_batch(tmp_path):
    good = '{"numRecords": 5, "minValues": {"x": 3}, "maxValues": {"x": 4}}'
    stats = [good] * 300
    stats[17] = '{"numRecords": 5, "minValues": {"x": "three"}}'  # pyarrow.json fails
    stats[250] = '{"numRecords": 5, "minValues": {"x": 3.0}}'  # an int64 read fails
    rows = {
        os.path.basename(r["path"]): r
        for r in _stats_log_rows({"x": "long"}, None, stats, str(tmp_path))
    }
    assert rows["f17.parquet"]["x"]["min"] is None and rows["f17.parquet"]["row_count"] == 5
    assert rows["f250.parquet"]["x"]["min"] == 3 and rows["f250.parquet"]["x"]["min_exact"]
    assert all(r["x"]["min"] == 3 for k, r in rows.items() if k != "f17.parquet")


def test_a_few_bad_rows_cost_a_few_rows(tmp_path, monkeypatch):
    """Only the failing rows of a large batch go to the exact rules."""
    from prunekit.sources.delta import stats as _delta_stats

    exact = []
    real = _delta_stats.file_cells
    monkeypatch.setattr(_delta_stats, "file_cells", lambda *a: exact.append(a) or real(*a))
    good = '{"numRecords": 5, "minValues": {"x": 3}}'
    stats = [good] * 20000
    for i in (3, 7001, 7002, 15000, 19999):
        stats[i] = '{"numRecords": 5, "minValues": {"x": true}}'
    rows = _stats_log_rows({"x": "long"}, None, stats, str(tmp_path))
    assert len(exact) == 5 and sum(r["x"]["min"] is None for r in rows) == 5


def test_decimals_far_beyond_their_precision_are_unknown(tmp_path):
    """pyarrow.json wraps 17084.3 read into DECIMAL(38, 35) around to about 70.18: such a
    bound must not be read (the exact rules: beyond DECIMAL(5, 2), unknown)."""
    stats = [
        '{"numRecords": 1, "minValues": {"d": 17084.3, "e": -17084.3}, '
        '"maxValues": {"d": 99999999999999999999999999999999999999, "e": 1E+5}}'
    ]
    rows = _stats_log_rows({"d": "decimal(5,2)", "e": "decimal(38,35)"}, None, stats, str(tmp_path))
    assert [rows[0][c][k] for c in "de" for k in ("min", "max")] == [None] * 4


def test_timestamp_and_date_spellings(tmp_path):
    texts = {
        "2021-06-01T12:00:00.123+02:00": (dt.datetime(2021, 6, 1, 10, 0, 0, 123000, UTC), False),
        "2021-06-01 12:00:00Z": (dt.datetime(2021, 6, 1, 12, 0, 0, 0, UTC), False),
        "2021-06-01T12:00:00.123456Z": (dt.datetime(2021, 6, 1, 12, 0, 0, 123456, UTC), True),
        "2021-06-01T12:00Z": (dt.datetime(2021, 6, 1, 12, 0, tzinfo=UTC), False),
        "2021-06-01T12:00:00+0200": (dt.datetime(2021, 6, 1, 10, 0, tzinfo=UTC), False),
        "2021-06-01T12:00:00": (dt.datetime(2021, 5, 31, 22, 0, tzinfo=UTC), False),
        "2021-06-31T12:00:00Z": (None, None),
        "2021-06-01T12:00:60Z": (None, None),
        "0001-01-01T00:00:00": (None, None),  # widened by 14 hours: before year 1
        "9999-12-31T23:59:59.999Z": (dt.datetime(9999, 12, 31, 23, 59, 59, 999000, UTC), False),
    }
    stats = [json.dumps({"numRecords": 1, "minValues": {"ts": t, "d": t[:10]}}) for t in texts]
    rows = _stats_log_rows({"ts": "timestamp", "d": "date"}, None, stats, str(tmp_path))
    for row, (text, (want, exact)) in zip(rows, texts.items(), strict=True):
        assert (row["ts"]["min"], row["ts"]["min_exact"]) == (want, exact), text
    assert rows[6]["d"]["min"] is None and rows[0]["d"]["min"] == dt.date(2021, 6, 1)


def test_successors_of_cut_strings():
    values, ok = successors(
        pa.array(
            [
                "ab\ud7ff",
                "a\ud7ff",
                "a\U0010ffff",
                "\U0010ffffa",
                "aé",
                "a\U0001f600b",
                "é",
                "\x7f",
                "\u07ff",
                "\uffff",
            ]
        ),
        4,
    )
    assert values.to_pylist() == [
        "ac",
        "a\ue000",
        "b",
        None,
        "aê",
        "b",
        "ê",
        "\x80",
        "\u0800",
        "\U00010000",
    ]
    assert ok.tolist() == [True, True, True, False, True, True, True, True, True, True]
    # U+10FFFF is carried into the character before by the exact rules
    assert bound("a\U0010ffff" * 20, pa.string(), 7, True) == ("b", False)
    rng = np.random.default_rng(2)
    texts = [
        "".join(rng.choice(delta_logs.LETTERS + ["\U0010ffff"] * 3, int(rng.integers(1, 9))))
        for _ in range(2000)
    ]
    texts = [t + "x" * 80 for t in texts]  # long texts: always cut
    for limit in (1, 2, 3, 4, 5, 9):
        values, ok = successors(pa.array(texts), limit)
        for text, v, good in zip(texts, values.to_pylist(), ok.tolist(), strict=True):
            want = string(text, limit + 2, True)[0]
            assert (v if good else want) == want, (text, limit, v, want)


def test_wide_decimals_keep_every_digit(tmp_path):
    big = "1234567890123456789012345678.0123456789"  # 38 digits
    stats = [f'{{"numRecords": 1, "minValues": {{"d": {big}}}, "maxValues": {{"d": {big}5}}}}']
    rows = _stats_log_rows({"d": "decimal(38,10)"}, None, stats, str(tmp_path))
    assert rows[0]["d"]["min"] == decimal.Decimal(big) and rows[0]["d"]["min_exact"]
    assert rows[0]["d"]["max"] == decimal.Decimal("1234567890123456789012345678.0123456790")
    assert rows[0]["d"]["max_exact"] is False


# ---- typed checkpoint statistics ---------------------------------------------------------
def test_a_checkpoint_without_json_stats_reads_stats_parsed(tmp_path):
    """delta-rs with ``writeStatsAsStruct``: the checkpoint holds only typed statistics; the
    bounds hold for the rows and a cut timestamp stays inexact."""
    from deltalake import DeltaTable, write_deltalake

    path = str(tmp_path / "t")
    rng = np.random.default_rng(1)
    for k in range(3):
        n = 20
        write_deltalake(
            path,
            pa.table(
                {
                    "x": pa.array(rng.integers(0, 100, n), pa.int64()),
                    "f": pa.array(rng.normal(size=n), pa.float32()),
                    "ts": pa.array(rng.integers(0, 10**12, n), pa.timestamp("us", "UTC")),
                    "ntz": pa.array(rng.integers(0, 10**12, n), pa.timestamp("us")),
                    "d": pa.array(
                        [decimal.Decimal(int(v)).scaleb(-2) for v in rng.integers(0, 99999, n)],
                        pa.decimal128(7, 2),
                    ),
                    "s": pa.array(["x" * int(v) for v in rng.integers(0, 50, n)]),
                    "p": pa.array([str(k)] * n),
                }
            ),
            partition_by=["p"],
            mode="append",
            configuration={
                "delta.checkpoint.writeStatsAsStruct": "true",
                "delta.checkpoint.writeStatsAsJson": "false",
            },
        )
    before = pd.file_statistics(path)
    DeltaTable(path).create_checkpoint()
    for v in range(3):
        os.remove(os.path.join(path, "_delta_log", f"{v:020d}.json"))
    D._SNAPSHOTS.clear()
    after = pd.file_statistics(path, version=2)
    for name in before.column_names:
        assert after.column(name).to_pylist() == before.column(name).to_pylist(), name
    for row in after.to_pylist():
        data = pq.read_table(row["path"])
        for c in ("x", "f", "ts", "ntz", "d"):
            values = data.column(c).to_pylist()
            assert row[c]["min"] <= min(values) and row[c]["max"] >= max(values), c
        assert not row["ts"]["max_exact"] and row["p"]["min_exact"]


def _typed_checkpoint(
    tmp_path, parsed_type, parsed, pv=None, pv_parsed=None, extra=None, schema_extra=()
):
    schema = {
        "type": "struct",
        "fields": [
            {"name": n, "type": k, "nullable": True, "metadata": {}}
            for n, k in [
                *schema_extra,
                ("x", "long"),
                ("ts", "timestamp"),
                ("ntz", "timestamp_ntz"),
                ("f", "float"),
                ("p", "integer"),
                ("q", "timestamp"),
            ]
        ],
    }
    log = tmp_path / "_delta_log"
    log.mkdir()
    fields = [
        ("path", pa.string()),
        ("size", pa.int64()),
        ("partitionValues", pa.map_(pa.string(), pa.string())),
        ("stats_parsed", parsed_type),
    ]
    row = {
        "path": "a.parquet",
        "size": 1,
        "partitionValues": pv if isinstance(pv, list) else list((pv or {}).items()),
        "stats_parsed": parsed,
    }
    if pv_parsed is not None:
        fields.append(("partitionValues_parsed", pv_parsed[0]))
        row["partitionValues_parsed"] = pv_parsed[1]
    for k, (t, v) in (extra or {}).items():
        fields.append((k, t))
        row[k] = v
    md = pa.struct(
        [
            ("schemaString", pa.string()),
            ("partitionColumns", pa.list_(pa.string())),
            ("configuration", pa.map_(pa.string(), pa.string())),
        ]
    )
    pq.write_table(
        pa.table(
            {
                "add": pa.array([row, None], pa.struct(fields)),
                "metaData": pa.array(
                    [
                        None,
                        {
                            "schemaString": json.dumps(schema),
                            "partitionColumns": ["p", "q"],
                            "configuration": [],
                        },
                    ],
                    md,
                ),
            }
        ),
        log / f"{0:020d}.checkpoint.parquet",
    )
    D._SNAPSHOTS.clear()
    return pd.file_statistics(str(tmp_path)).to_pylist()[0]


def test_typed_timestamps_by_unit_and_zone(tmp_path):
    t = pa.struct(
        [
            ("numRecords", pa.int64()),
            (
                "minValues",
                pa.struct(
                    [
                        ("ts", pa.timestamp("ns")),
                        ("ntz", pa.timestamp("ms", "UTC")),
                        ("x", pa.string()),
                        ("f", pa.float64()),
                    ]
                ),
            ),
            (
                "maxValues",
                pa.struct(
                    [
                        ("ts", pa.timestamp("ns")),
                        ("ntz", pa.timestamp("us")),
                        ("x", pa.int8()),
                        ("f", pa.float64()),
                    ]
                ),
            ),
        ]
    )
    when = dt.datetime(2021, 1, 1, 0, 0, 0, 5000)
    row = _typed_checkpoint(
        tmp_path,
        t,
        {
            "numRecords": 3,
            "minValues": {
                "ts": pa.scalar(1_000_000_001, pa.timestamp("ns")),
                "ntz": when,
                "x": "12",
                "f": 1.0000000596046448,
            },
            "maxValues": {"ts": when, "ntz": when, "x": 7, "f": 0.0},
        },
        pv={"p": "5", "q": "2021-01-01 00:00:00"},
        pv_parsed=(
            pa.struct([("p", pa.int32()), ("q", pa.timestamp("us", "UTC"))]),
            {"p": 5, "q": when},
        ),
    )
    # a naive INT96-style value in a TIMESTAMP column is UTC; nanoseconds widen outwards
    assert row["ts"]["min"] == dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC)
    assert not row["ts"]["min_exact"]
    assert row["ts"]["max"] == when.replace(microsecond=5999, tzinfo=UTC)
    assert row["ntz"]["min"] is None  # an instant for a column of local times: unknown
    assert row["ntz"]["max"] == when.replace(microsecond=5999) and not row["ntz"]["max_exact"]
    assert row["x"]["min"] == 12 and row["x"]["max"] == 7  # other types: the exact rules
    # the typed double halfway between two float32 values: the outer one, inexact; a zero
    # bound stands for both zeros
    assert row["f"]["min"] == 1.0 and row["f"]["min_exact"] is False
    assert row["f"]["max"] == 0.0
    assert row["p"] == {"min": 5, "max": 5, "null_count": 0, "min_exact": True, "max_exact": True}
    # a TIMESTAMP partition value is read from its text (no zone: widened), not typed
    assert row["q"]["min"] == dt.datetime(2020, 12, 31, 10, tzinfo=UTC)
    assert not row["q"]["min_exact"]


def test_typed_decimals_round_outwards(tmp_path):
    t = pa.struct(
        [
            ("numRecords", pa.int64()),
            ("minValues", pa.struct([("d", pa.decimal128(10, 4))])),
            ("maxValues", pa.struct([("d", pa.decimal128(10, 4))])),
        ]
    )
    row = _typed_checkpoint(
        tmp_path,
        t,
        {
            "numRecords": 2,
            "minValues": {"d": decimal.Decimal("-1.2345")},
            "maxValues": {"d": decimal.Decimal("999.9951")},
        },
        extra={},
        schema_extra=[("d", "decimal(5,2)")],
    )
    assert (row["d"]["min"], row["d"]["min_exact"]) == (decimal.Decimal("-1.24"), False)
    assert row["d"]["max"] is None  # rounds up to 1000.00: beyond DECIMAL(5, 2)


def test_an_empty_partition_text_is_unknown_whatever_is_typed(tmp_path):
    t = pa.struct([("numRecords", pa.int64())])
    row = _typed_checkpoint(
        tmp_path,
        t,
        {"numRecords": 2},
        pv={"p": ""},
        pv_parsed=(pa.struct([("p", pa.int32())]), {"p": 5}),
    )
    assert row["p"] == dict.fromkeys(["min", "max", "null_count", "min_exact", "max_exact"])


def test_a_partition_value_written_twice_reads_as_its_last(tmp_path):
    t = pa.struct([("numRecords", pa.int64())])
    row = _typed_checkpoint(
        tmp_path, t, {"numRecords": 2}, pv=[("p", "1"), ("q", None), ("p", "2")]
    )
    assert row["p"]["min"] == 2 and row["q"]["null_count"] == 2


def test_deletion_vectors_never_prove_every_row(tmp_path):
    dv = {
        "storageType": "u",
        "pathOrInlineDv": "ab",
        "offset": 1,
        "sizeInBytes": 1,
        "cardinality": 1,
    }
    t = pa.struct(
        [
            ("numRecords", pa.int64()),
            ("minValues", pa.struct([("x", pa.int64())])),
            ("maxValues", pa.struct([("x", pa.int64())])),
            ("nullCount", pa.struct([("x", pa.int64())])),
        ]
    )
    dv_type = pa.struct(
        [
            ("storageType", pa.string()),
            ("pathOrInlineDv", pa.string()),
            ("offset", pa.int32()),
            ("sizeInBytes", pa.int32()),
            ("cardinality", pa.int64()),
        ]
    )
    row = _typed_checkpoint(
        tmp_path,
        t,
        {"numRecords": 3, "minValues": {"x": 4}, "maxValues": {"x": 4}, "nullCount": {"x": 0}},
        extra={"deletionVector": (dv_type, dv)},
    )
    assert row["row_count"] == 2 and row["x"]["null_count"] is None
    assert row["x"]["min_exact"] is False
    D._SNAPSHOTS.clear()
    stats = pd.statistics(str(tmp_path))
    pred = pk.PruningPredicate(
        "x = 4", data_schema(stats.table).remove(data_schema(stats.table).get_field_index("q"))
    )
    assert pred.classify(stats).tolist() == [pk.MAYBE_MATCH]
    assert D.snapshot(str(tmp_path)).deletion_vectors == {str(tmp_path / "a.parquet")}


# ---- malformed logs ----------------------------------------------------------------------
def test_malformed_logs_are_errors_naming_the_file(tmp_path):
    schema = json.dumps({"type": "struct", "fields": [{"name": "x", "type": "long"}]})
    meta = json.dumps({"metaData": {"schemaString": schema, "partitionColumns": []}})
    cases = {
        "not json": meta + "\n{nope",
        "no path": meta + '\n{"add": {"size": 1}}',
        "not UTF-8": meta + '\n{"add": {"path": "a\xff"}}',
    }
    for k, (name, text) in enumerate(cases.items()):
        root = tmp_path / str(k)
        (root / "_delta_log").mkdir(parents=True)
        commit = root / "_delta_log" / f"{0:020d}.json"
        commit.write_bytes(text.encode("latin-1"))
        with pytest.raises(pk.StatisticsError, match=f"{commit}"):
            pd.file_statistics(str(root))
        assert name


def test_odd_checkpoint_columns_are_unknown(tmp_path):
    """A stats_parsed whose numRecords is text and whose bounds are a list: unknown."""
    t = pa.struct(
        [("numRecords", pa.string()), ("minValues", pa.struct([("x", pa.list_(pa.int64()))]))]
    )
    row = _typed_checkpoint(tmp_path, t, {"numRecords": "3", "minValues": {"x": [1]}})
    assert row["row_count"] is None and row["x"]["min"] is None


# ---- the log's actions ---------------------------------------------------------------------
def _commits(root, commits, fields=(("x", "long"),)):
    """Commits of actions (a str: a raw line) after a metaData action; the live files."""
    schema = {"type": "struct", "fields": [{"name": n, "type": k} for n, k in fields]}
    meta = {"metaData": {"schemaString": json.dumps(schema), "partitionColumns": []}}
    os.makedirs(os.path.join(root, "_delta_log"), exist_ok=True)
    for v, actions in enumerate(commits):
        lines = ([json.dumps(meta)] if v == 0 else []) + [
            a if isinstance(a, str) else json.dumps(a) for a in actions
        ]
        with open(os.path.join(root, "_delta_log", f"{v:020d}.json"), "w", newline="") as f:
            f.write("\n".join(lines))
    D._SNAPSHOTS.clear()
    return D.snapshot(root)


def _dv(cardinality, offset=1):
    return {
        "storageType": "u",
        "pathOrInlineDv": "ab",
        "offset": offset,
        "sizeInBytes": 1,
        "cardinality": cardinality,
    }


def test_removes_match_adds_url_decoded(tmp_path):
    stats = json.dumps({"numRecords": 9})
    snap = _commits(
        str(tmp_path),
        [
            [
                {"add": {"path": "a%20b.parquet", "stats": stats}},
                {"add": {"path": "c d.parquet", "stats": stats}},
                {"add": {"path": "e.parquet", "stats": stats}},
            ],
            [{"remove": {"path": "a b.parquet"}}, {"remove": {"path": "c%20d.parquet"}}],
        ],
    )
    assert [os.path.basename(p) for p in snap.statistics.column("path").to_pylist()] == [
        "e.parquet"
    ]


def test_files_of_one_path_keep_the_order_they_were_last_added_in(tmp_path):
    """Two live entries of one path (different deletion vectors) come in the order their key
    was last added, as the per-file reader's dict kept them."""
    stats = json.dumps({"numRecords": 9})
    snap = _commits(
        str(tmp_path),
        [
            [
                {"add": {"path": "p.parquet", "stats": stats, "deletionVector": _dv(1, 1)}},
                {"add": {"path": "p.parquet", "stats": stats, "deletionVector": _dv(2, 2)}},
            ],
            [
                {"remove": {"path": "p.parquet", "deletionVector": _dv(1, 1)}},
                {"add": {"path": "p.parquet", "stats": stats, "deletionVector": _dv(3, 1)}},
                {"add": {"path": "p.parquet", "stats": stats, "deletionVector": _dv(4, 2)}},
            ],
        ],
    )
    # key 2 was never removed (its add replaced in place), key 1 came back after it
    assert snap.statistics.column("row_count").to_pylist() == [5, 6]


def test_commit_lines_pyarrow_json_must_not_read(tmp_path):
    """Indented lines, blank lines and CRLF endings read line by line; a bare null is an
    error naming the commit, never given to pyarrow.json (it crashes on one)."""
    stats = json.dumps({"numRecords": 9})
    snap = _commits(
        str(tmp_path / "a"),
        [
            [
                "  " + json.dumps({"add": {"path": "a.parquet", "stats": stats}}) + "\r",
                "",
                json.dumps({"add": {"path": "b.parquet", "stats": stats}}) + "\r",
            ]
        ],
    )
    assert snap.statistics.column("row_count").to_pylist() == [9, 9]
    with pytest.raises(pk.StatisticsError, match="1.json: line 1 is not a JSON object"):
        _commits(str(tmp_path / "b"), [[], ["null"]])


def test_typed_rows_are_never_read_by_the_exact_rules(tmp_path):
    """A checkpoint's typed rows stay typed when the JSON texts around them mostly fail: a
    naive (INT96) timestamp in a TIMESTAMP column is UTC, as the vector rules read it."""
    log = tmp_path / "_delta_log"
    log.mkdir()
    schema = {"type": "struct", "fields": [{"name": "ts", "type": "timestamp"}]}
    parsed = pa.struct(
        [("numRecords", pa.int64()), ("minValues", pa.struct([("ts", pa.timestamp("us"))]))]
    )
    when = dt.datetime(2021, 1, 1, 0, 0, 0, 5000)
    rows = []
    for i in range(40):
        typed = i % 4 == 0
        rows.append(
            {
                "path": f"f{i:02d}.parquet",
                "size": 1,
                "partitionValues": [],
                "stats": None if typed else '{"minValues": {"ts": 5}}',
                "stats_parsed": {"numRecords": 1, "minValues": {"ts": when}} if typed else None,
            }
        )
    add = pa.array(
        rows + [None],
        pa.struct(
            [
                ("path", pa.string()),
                ("size", pa.int64()),
                ("partitionValues", pa.map_(pa.string(), pa.string())),
                ("stats", pa.string()),
                ("stats_parsed", parsed),
            ]
        ),
    )
    md = pa.array(
        [None] * 40 + [{"schemaString": json.dumps(schema), "partitionColumns": []}],
        pa.struct([("schemaString", pa.string()), ("partitionColumns", pa.list_(pa.string()))]),
    )
    pq.write_table(pa.table({"add": add, "metaData": md}), log / f"{0:020d}.checkpoint.parquet")
    D._SNAPSHOTS.clear()
    got = pd.file_statistics(str(tmp_path)).column("ts").to_pylist()
    assert [r["min"] for r in got[::4]] == [when.replace(tzinfo=UTC)] * 10
    assert all(r["min"] is None for i, r in enumerate(got) if i % 4)


def test_a_checkpoint_naming_a_file_twice_keeps_its_last_add(tmp_path):
    log = tmp_path / "_delta_log"
    log.mkdir()
    schema = {"type": "struct", "fields": [{"name": "x", "type": "long"}]}
    add = pa.array(
        [None] + [{"path": p, "size": s} for p, s in (("b", 1), ("a", 2), ("b", 3))],
        pa.struct([("path", pa.string()), ("size", pa.int64())]),
    )
    md = pa.array(
        [{"schemaString": json.dumps(schema), "partitionColumns": []}] + [None] * 3,
        pa.struct([("schemaString", pa.string()), ("partitionColumns", pa.list_(pa.string()))]),
    )
    pq.write_table(pa.table({"add": add, "metaData": md}), log / f"{0:020d}.checkpoint.parquet")
    D._SNAPSHOTS.clear()
    got = pd.file_statistics(str(tmp_path)).select(["path", "size"]).to_pylist()
    assert [(os.path.basename(r["path"]), r["size"]) for r in got] == [("a", 2), ("b", 3)]
