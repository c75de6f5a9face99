"""Every Python example in README.md runs, and its printed claims hold."""

import re
import tempfile
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index, capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the examples' temporary folders
    exec(compile(BLOCKS[index], f"README.md[{index}]", "exec"), {})
    out = capsys.readouterr().out
    if index == 0:  # the comments in the first example state its output
        assert "[0 2 1]" in out
        assert "[False  True  True]" in out
        assert "'x': ('max', 'min', 'null_count')" in out
        assert "may be TRUE" in out
    if "prune_query" in BLOCKS[index]:  # the join example's comments state its output
        assert "'store_sales': '79 of 100 skipped'" in out
        assert "ss_sold_date_sk BETWEEN 2451912 AND 2452276" in out


# ---- "What is supported": every claimed form prunes --------------------------------------------
SUPPORTED = README.read_text().split("## What is supported", 1)[1].split("\n## ", 1)[0]
CLAIMS = [" ".join(b.split()) for b in re.findall(r"^- (.*?)(?=^- |^\n|\Z)", SUPPORTED,
                                                   re.S | re.M)]


def _examples(claim: str) -> list[str]:
    return re.findall(r"`([^`]+)`", claim.split(" e.g. ", 1)[1]) if " e.g. " in claim else []


def _rows() -> list[list[dict]]:
    """Ten containers of eight rows; container k holds x = 10k .. 10k + 7, dates and timestamps
    73 days apart, strings starting with the k-th letter; the last holds NULLs, the one before
    a NaN."""
    import datetime as dt
    from decimal import Decimal

    out = []
    for k in range(10):
        rows = []
        for j in range(8):
            x = 10 * k + j
            day = dt.date(2020, 1, 1) + dt.timedelta(days=73 * k + j)
            ts = dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(days=73 * k,
                                                                                 hours=j)
            rows.append({
                "x": x, "y": x + 100, "i": x, "u": x, "f": x + 0.5, "g": x + 0.25,
                "p": Decimal(x) + Decimal("0.25"), "w": Decimal(x) + Decimal("0.0001"),
                "d": day, "ts": ts, "tn": ts.replace(tzinfo=None), "s": f"{chr(97 + k)}{j}",
                "bin": bytes([1, k, j]) if k else bytes([1, 2]), "b": k % 2 == 0,
                "addr": {"city": ["Oslo", "Bergen", "Tromso"][k % 3], "zip": 1000 * k + j}})
        if k == 8:
            rows[3]["f"] = float("nan")
        if k == 9:
            for name in ("x", "s", "f", "d", "addr"):
                rows[7][name] = None
        out.append(rows)
    return out


README_SCHEMA = {
    "x": "int64", "y": "int64", "i": "int32", "u": "uint64", "f": "float64", "g": "float32",
    "p": "decimal128(15, 2)", "w": "decimal128(38, 4)", "d": "date32", "ts": "timestamp_utc",
    "tn": "timestamp_ns", "s": "string", "bin": "binary", "b": "bool", "addr": "struct"}


def _types() -> dict:
    import pyarrow as pa

    named = {"timestamp_utc": pa.timestamp("us", tz="UTC"), "timestamp_ns": pa.timestamp("ns"),
             "decimal128(15, 2)": pa.decimal128(15, 2), "decimal128(38, 4)": pa.decimal128(38, 4),
             "struct": pa.struct([("city", pa.string()), ("zip", pa.int32())])}
    return {k: named.get(v) or pa.type_for_alias(v) for k, v in README_SCHEMA.items()}


def _statistics(containers: list[list[dict]], types: dict):
    import math

    import pyarrow as pa

    import prunekit as pk

    leaves = [(k, (k,), t) for k, t in types.items() if not pa.types.is_struct(t)]
    leaves += [(f"{k}.{f.name}", (k, f.name), f.type) for k, t in types.items()
               if pa.types.is_struct(t) for f in t]
    columns = {"row_count": pa.array([len(c) for c in containers], pa.int64())}
    for key, path, t in leaves:
        mins, maxs, nulls, nans = [], [], [], []
        for rows in containers:
            values = []
            for row in rows:
                v = row[path[0]]
                for part in path[1:]:
                    v = None if v is None else v[part]
                values.append(v)
            real = [v for v in values if v is not None and not (isinstance(v, float) and
                                                                 math.isnan(v))]
            mins.append(min(real) if real else None)
            maxs.append(max(real) if real else None)
            nulls.append(sum(v is None for v in values))
            nans.append(len(values) - len(real) - nulls[-1])
        fields = {"min": pa.array(mins, t), "max": pa.array(maxs, t),
                  "null_count": pa.array(nulls, pa.int64())}
        if pa.types.is_floating(t):
            fields["nan_count"] = pa.array(nans, pa.int64())
        columns[key] = pa.StructArray.from_arrays(list(fields.values()), list(fields))
    return pk.Statistics.from_arrow(pa.table(columns))


# The README's implicit casts as Spark's analyser writes them in both modes (the same in each
# for these rows: legacy compares x IN (55, '56') as strings, and '55' is the text of 55 only),
# for the reference evaluator, which types literals of the column's own kind only.
SPARK_READS = {"d >= '2020-06-01'": "d >= DATE '2020-06-01'", "x = '55'": "x = 55",
               "x IN (55, '56')": "x IN (55, 56)",
               "ts < '2020-03-01'": "ts < TIMESTAMP '2020-03-01 00:00:00'"}


def test_supported_list_gives_examples_for_every_form():
    assert len(CLAIMS) >= 20, CLAIMS
    missing = [c for c in CLAIMS if not _examples(c)]
    assert not missing, missing


@pytest.mark.parametrize("example", [e for c in CLAIMS for e in _examples(c)])
def test_supported_example_prunes_soundly(example):
    import prunekit as pk
    from tests.support import reference

    types = _types()
    containers = _rows()
    pred = pk.PruningPredicate(example, types)
    got = pred.classify(_statistics(containers, types), backend="numpy").tolist()
    assert any(o != pk.MAYBE_MATCH for o in got), f"{example} prunes nothing: {got}"
    truth_of = pk.PruningPredicate(SPARK_READS.get(example, example), types).expression
    for outcome, rows in zip(got, containers, strict=True):
        truths = [reference.evaluate(truth_of, types, row) for row in rows]
        assert outcome != pk.NONE_MATCH or True not in truths, (example, rows)
        assert outcome != pk.ALL_MATCH or all(t is True for t in truths), (example, rows)


def _quoted_after(phrase: str) -> list[str]:
    """The backticked examples in the parentheses that follow ``phrase`` in the section."""
    text = " ".join(SUPPORTED.split())
    rest = text.split(phrase, 1)[1].split("(", 1)[1]
    quoted = False
    for i, ch in enumerate(rest):  # up to the closing parenthesis outside backticks
        quoted ^= ch == "`"
        if ch == ")" and not quoted:
            return re.findall(r"`([^`]+)`", rest[:i])
    raise AssertionError(f"no closing parenthesis after {phrase!r}")


def test_supported_names_what_is_accepted_unknown_and_what_is_an_error():
    import prunekit as pk

    types, stats = _types(), _statistics(_rows(), _types())
    unknown = _quoted_after("Anything else Spark types as a BOOLEAN")
    errors = _quoted_after("A predicate that is not a BOOLEAN") + _quoted_after(
        "refuses in both modes")
    assert len(unknown) >= 3 and len(errors) >= 4, (unknown, errors)
    for example in unknown:
        got = pk.PruningPredicate(example, types).classify(stats).tolist()
        assert set(got) == {pk.MAYBE_MATCH}, (example, got)
    for example in errors:
        with pytest.raises(pk.TypeMismatchError):
            pk.PruningPredicate(example, types)
