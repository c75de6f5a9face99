"""Random Delta logs for differential tests: a schema (nested structs, column mapping,
partition columns), commits of adds and removes (deletion vectors, encoded paths, re-adds),
JSON statistics with the spellings writers use and the malformed ones readers meet, and maybe
a checkpoint (one or two parts; JSON ``stats`` or typed ``stats_parsed`` with
``partitionValues_parsed``). ``write_log(root, seed)`` writes one and returns the versions
worth reading.

Everything it writes is a log the reader before the columnar replay
(``tests/support/delta_reference.py``) read without failing, so the two can be compared on it.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from tests.support import delta_reference as ref

UTC = dt.timezone.utc
KINDS = [
    "long",
    "integer",
    "short",
    "byte",
    "float",
    "double",
    "decimal(5,2)",
    "decimal(38,10)",
    "decimal(18,0)",
    "string",
    "date",
    "timestamp",
    "timestamp_ntz",
    "boolean",
    "binary",
]
PARTITION_KINDS = [
    "string",
    "integer",
    "long",
    "date",
    "timestamp",
    "timestamp_ntz",
    "decimal(5,2)",
    "double",
    "boolean",
]
LETTERS = [
    "a",
    "z",
    "é",
    "日",
    "\U0001f600",
    "\U0010ffff",
    "\ud7ff",
    "\uffff",
    "\ufffd",
    "~",
    "\x7f",
    "0",
]


class Raw:
    """JSON text written as is (a spelling ``json.dumps`` would not choose)."""

    def __init__(self, text: str):
        self.text = text


def dumps(value, ascii_only: bool) -> str:
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, dict):
        return (
            "{"
            + ",".join(
                json.dumps(k, ensure_ascii=ascii_only) + ":" + dumps(v, ascii_only)
                for k, v in value.items()
            )
            + "}"
        )
    if isinstance(value, decimal.Decimal):
        return str(value)
    return json.dumps(value, ensure_ascii=ascii_only)


# ---- values ------------------------------------------------------------------------------
def _pick(rng, options):
    return options[int(rng.integers(len(options)))]


def _text(rng, long: bool) -> str:
    n = int(rng.integers(25, 70)) if long else int(rng.integers(0, 12))
    return "".join(
        _pick(rng, LETTERS) if rng.random() < 0.4 else _pick(rng, "abcxyz") for _ in range(n)
    )


def _instant(rng) -> dt.datetime:
    return dt.datetime(1970, 1, 1) + dt.timedelta(
        microseconds=int(rng.integers(-2 * 10**15, 4 * 10**15))
    )


def _timestamp_text(rng, zoned: bool) -> str:
    v = _instant(rng)
    sep = "T" if rng.random() < 0.8 else " "
    base = v.strftime(f"%Y-%m-%d{sep}%H:%M:%S")
    digits = _pick(rng, [0, 3, 3, 3, 6, 9, 1])
    frac = f"{v.microsecond:06d}000"[:digits] if digits else ""
    if digits == 3 and rng.random() < 0.5:
        frac = "000"
    zone = (
        _pick(rng, ["Z", "Z", "+02:00", "-05:30", "+0100", ""])
        if zoned
        else _pick(rng, ["", "", "Z"])
    )
    return base + ("." + frac if frac else "") + zone


def canonical(rng, kind: str):
    """A bound as Spark or delta-rs writes it."""
    if kind in ("long", "integer", "short", "byte"):
        bits = {"long": 64, "integer": 32, "short": 16, "byte": 8}[kind]
        return int(rng.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1))
    if kind in ("float", "double"):
        x = float(rng.normal() * 10.0 ** rng.integers(-10, 10))
        if kind == "float":  # Java's Float.toString, or the float32 as a double
            f = np.float32(x)
            return _pick(rng, [Raw(np.format_float_positional(f, unique=True, trim="-")), float(f)])
        return _pick(rng, [x, Raw(repr(x).replace("e", "E"))])
    if kind.startswith("decimal"):
        p, s = (int(v) for v in kind[8:-1].split(","))
        return decimal.Decimal(int(rng.integers(-(10 ** min(p, 18)) + 1, 10 ** min(p, 18)))).scaleb(
            -s
        )
    if kind == "string":
        return _text(rng, rng.random() < 0.3)
    if kind == "date":
        return (dt.date(1970, 1, 1) + dt.timedelta(int(rng.integers(-(10**5), 10**5)))).isoformat()
    if kind in ("timestamp", "timestamp_ntz"):
        v = _instant(rng)
        if kind == "timestamp":
            return v.strftime("%Y-%m-%dT%H:%M:%S.") + f"{v.microsecond // 1000:03d}Z"
        return v.strftime("%Y-%m-%d %H:%M:%S.") + f"{v.microsecond // 1000:03d}"
    if kind == "boolean":
        return bool(rng.random() < 0.5)
    return "abc"


def value(rng, kind: str, mess: float = 1.0):
    """A bound as a writer (or a broken one) might put it in the JSON statistics: one of the
    odd spellings with probability ``mess``."""
    if rng.random() >= mess:
        return canonical(rng, kind)
    r = rng.random()
    if r < 0.04:
        return None
    if r < 0.08:
        return _pick(rng, [True, "x", Raw("[1]"), Raw("{}"), 7, "7"])
    if kind in ("long", "integer", "short", "byte"):
        bits = {"long": 64, "integer": 32, "short": 16, "byte": 8}[kind]
        top = 2 ** (bits - 1)
        return _pick(
            rng,
            [
                int(rng.integers(-1000, 1000)),
                top - 1,
                -top,
                top,
                -top - 1,
                Raw("5.0"),
                Raw("1e3"),
                Raw("-0"),
                2**70,
                int(rng.integers(-1000, 1000)),
                int(rng.integers(-1000, 1000)),
            ],
        )
    if kind in ("float", "double"):
        x = float(rng.normal() * 10.0 ** rng.integers(-10, 10))
        return _pick(
            rng,
            [
                x,
                x,
                float(np.float32(x)),
                Raw(repr(float(np.float32(x)))),
                Raw(np.format_float_positional(np.float32(x), unique=True, trim="-")),
                Raw("1.0E-5"),
                Raw("NaN"),
                "NaN",
                Raw("Infinity"),
                Raw("-Infinity"),
                "Infinity",
                Raw("Inf"),
                0,
                -0.0,
                Raw("-0.0"),
                1e39,
                Raw("1e-50"),
                5e-324,
                Raw("1.0000000596046448"),
                Raw("16777217"),
                2**60 + 1,
                Raw("0.1000000000000000055511151231257827021181583404541015625"),
            ],
        )
    if kind.startswith("decimal"):
        p, s = (int(v) for v in kind[8:-1].split(","))
        digits = int(rng.integers(1, p + 1))
        unscaled = int(rng.integers(0, 10 ** min(digits, 18))) * _pick(rng, [1, -1])
        d = decimal.Decimal(unscaled).scaleb(-s)
        return _pick(
            rng,
            [
                d,
                d,
                d,
                Raw(str(d.normalize())),
                str(d),
                Raw("1.5E1"),
                d + decimal.Decimal("0.0005"),
                Raw("-0.00"),
                decimal.Decimal(10) ** (p - s),
                Raw("1e-50"),
                2.345,
            ],
        )
    if kind == "string":
        return _pick(
            rng,
            [
                _text(rng, False),
                _text(rng, True),
                _text(rng, True),
                "",
                Raw('"ab\\ud800"'),
                Raw('"\\ud83d\\ude00x"'),
                5,
            ],
        )
    if kind == "date":
        day = dt.date(1970, 1, 1) + dt.timedelta(int(rng.integers(-700000, 2900000)))
        return _pick(
            rng,
            [
                day.isoformat(),
                day.isoformat(),
                "2021-02-29",
                "20200229",
                "2020-W09-6",
                "0000-01-01",
                "9999-12-31",
                " 2020-01-01",
                3,
            ],
        )
    if kind in ("timestamp", "timestamp_ntz"):
        return _pick(
            rng,
            [_timestamp_text(rng, kind == "timestamp")] * 6
            + [
                "2021-01-01T10:00",
                "2021-01-01T24:00:00Z",
                "0001-01-01T00:00:00",
                "0001-01-01T00:00:00.000Z",
                "9999-12-31T23:59:59.999Z",
                "9999-12-31T23:59:59.999",
                "٢٠٢١-01-01T00:00:00Z",
                " 2021-01-01T00:00:00Z",
                "2021-01-01T00:00:00.1234567Z",
                1234,
            ],
        )
    if kind == "boolean":
        return _pick(rng, [True, False, True, 1, "true"])
    return _pick(rng, ["abc", 1])  # binary


def _count(rng, mess: float = 1.0):
    if rng.random() >= mess:
        return int(rng.integers(0, 100))
    return _pick(rng, [int(rng.integers(0, 100))] * 6 + [-1, Raw("5.0"), "3", 2**64, True])


# ---- schema ------------------------------------------------------------------------------
def _field(rng, name, kind, mapped, counter):
    meta = {}
    if mapped:
        counter[0] += 1
        meta["delta.columnMapping.physicalName"] = f"col-{counter[0]}"
    return {"name": name, "type": kind, "nullable": True, "metadata": meta}


def schema(rng):
    """(schema fields, partition column names, configuration)."""
    mapped = rng.random() < 0.3
    counter = [0]
    fields = [
        _field(rng, f"c{i}", _pick(rng, KINDS), mapped, counter)
        for i in range(int(rng.integers(1, 7)))
    ]
    if rng.random() < 0.4:
        inner = [_field(rng, f"n{i}", _pick(rng, KINDS), mapped, counter) for i in range(3)]
        deeper = _field(
            rng,
            "deep",
            {"type": "struct", "fields": [_field(rng, "v", _pick(rng, KINDS), mapped, counter)]},
            mapped,
            counter,
        )
        fields.append(
            _field(rng, "s", {"type": "struct", "fields": inner + [deeper]}, mapped, counter)
        )
    parts = [
        _field(rng, f"p{i}", _pick(rng, PARTITION_KINDS), mapped, counter)
        for i in range(int(rng.integers(0, 3)))
    ]
    config = {}
    if mapped:
        config["delta.columnMapping.mode"] = "name"
    if rng.random() < 0.2:
        config["delta.dataSkippingStringPrefixLength"] = str(_pick(rng, [8, 3, 40, "x"]))
    return fields + parts, [p["name"] for p in parts], config


def _leaves(fields, keys=()):
    """(physical key path, kind) of each primitive leaf."""
    out = []
    for f in fields:
        key = (f.get("metadata") or {}).get("delta.columnMapping.physicalName", f["name"])
        if isinstance(f["type"], dict):
            out += _leaves(f["type"]["fields"], (*keys, key))
        else:
            out.append(((*keys, key), f["type"]))
    return out


def _put(tree: dict, keys: tuple, v):
    for k in keys[:-1]:
        tree = tree.setdefault(k, {})
    tree[keys[-1]] = v


def stats_text(rng, leaves, mess: float = 1.0) -> str | None:
    """A file's JSON statistics (or a malformed text)."""
    r = rng.random() / max(mess, 1e-9)
    if r < 0.04:
        return None
    if r < 0.1:
        return _pick(
            rng,
            [
                "not json",
                "",
                "   ",
                "[1]",
                "null",
                '{"numRecords": 1}{"a": 2}',
                '{"numRecords": 1, "numRecords": 2}',
                '{"numRecords": 3} x',
                "\ufeff" + '{"numRecords": 4}',
                '{"numRecords": Inf}',
            ],
        )
    stats: dict = {}
    if rng.random() < 0.9:
        stats["numRecords"] = _count(rng, mess)
    for section in ("minValues", "maxValues", "nullCount"):
        if rng.random() < 0.08:
            continue
        tree: dict = {}
        for keys, kind in leaves:
            if rng.random() < 0.85:
                _put(
                    tree,
                    keys,
                    _count(rng, mess) if section == "nullCount" else value(rng, kind, mess),
                )
        stats[section] = tree if rng.random() > 0.03 * mess else "broken"
    if rng.random() < 0.2:
        stats["tightBounds"] = _pick(rng, [False, True, "false", 0] if mess else [False, True])
    text = dumps(stats, ascii_only=rng.random() < 0.3)
    if rng.random() < 0.05 * mess:
        text = text.replace(",", ",\n ")  # a pretty-printing writer: still JSON
    return text


def partition_text(rng, kind):
    r = rng.random()
    if r < 0.1:
        return None
    if r < 0.15:
        return ""
    if r < 0.2:
        return _pick(rng, ["abc", "1.5", "NaN", "2021-13-01"])
    if kind == "string":
        return _text(rng, rng.random() < 0.3)
    if kind in ("integer", "long"):
        return str(int(rng.integers(-50, 50)))
    if kind == "date":
        return (dt.date(2020, 1, 1) + dt.timedelta(int(rng.integers(0, 999)))).isoformat()
    if kind in ("timestamp", "timestamp_ntz"):
        v = _instant(rng).strftime("%Y-%m-%d %H:%M:%S")
        return v + _pick(rng, ["", "", ".123456", "Z", "+01:00"])
    if kind.startswith("decimal"):
        return _pick(rng, ["1.50", "-3", "2.345", "999.99"])
    if kind == "double":
        return _pick(rng, ["0.0", "-0.0", "2.5", "1e300", "Infinity"])
    return _pick(rng, ["true", "false"])


# ---- typed checkpoint statistics ---------------------------------------------------------
def _arrow_type(kind):
    t = ref._arrow_type(kind)
    return None if t is None or pa.types.is_binary(t) else t


def typed_value(rng, t):
    if rng.random() < 0.1:
        return None
    if pa.types.is_integer(t):
        return int(rng.integers(-(2 ** (t.bit_width - 1)), 2 ** (t.bit_width - 1) - 1))
    if pa.types.is_floating(t):
        x = float(rng.normal() * 10.0 ** rng.integers(-5, 5))
        return _pick(rng, [x, float("nan"), float("inf"), -0.0, 0.0, x])
    if pa.types.is_decimal(t):
        return decimal.Decimal(int(rng.integers(-999, 999))).scaleb(-t.scale)
    if pa.types.is_string(t):
        return _text(rng, rng.random() < 0.5)
    if pa.types.is_date32(t):
        return dt.date(2000, 1, 1) + dt.timedelta(int(rng.integers(0, 9000)))
    if pa.types.is_timestamp(t):
        v = _instant(rng)
        if rng.random() < 0.6:
            v = v.replace(microsecond=v.microsecond // 1000 * 1000)
        return v.replace(tzinfo=UTC) if t.tz else v
    return bool(rng.random() < 0.5)


def _struct_type(leaves, leaf_type):
    tree: dict = {}
    for keys, kind in leaves:
        t = leaf_type(kind)
        if t is not None:
            _put(tree, keys, t)

    def build(node):
        return pa.struct([(k, build(v) if isinstance(v, dict) else v) for k, v in node.items()])

    return build(tree) if tree else None


def _typed_stats(rng, leaves):
    parsed: dict = {
        "numRecords": int(rng.integers(0, 100)),
        "tightBounds": _pick(rng, [None, None, False, True]),
    }
    for section in ("minValues", "maxValues"):
        tree: dict = {}
        for keys, kind in leaves:
            t = _arrow_type(kind)
            if t is not None:
                _put(tree, keys, typed_value(rng, t))
        parsed[section] = tree
    tree = {}
    for keys, _ in leaves:
        _put(tree, keys, int(rng.integers(0, 9)) if rng.random() < 0.9 else None)
    parsed["nullCount"] = tree
    return parsed


# ---- the log -----------------------------------------------------------------------------
def _dv(rng):
    if rng.random() > 0.2:
        return None
    dv = {
        "storageType": _pick(rng, ["u", "i"]),
        "pathOrInlineDv": _pick(rng, ["ab", "cd"]),
        "sizeInBytes": 1,
        "cardinality": int(rng.integers(0, 120)),
    }
    if rng.random() < 0.7:
        dv["offset"] = int(rng.integers(0, 3))
    return dv


def _path(rng, i, root):
    return _pick(
        rng,
        [
            f"f{i}.parquet",
            f"f{i}.parquet",
            f"p=a%20b/f{i}.parquet",
            f"d/f {i}.parquet",
            f"file://{root}/abs/f{i}.parquet",
            f"s3://bucket/f{i}.parquet",
        ],
    )


def write_log(root: str, seed: int) -> list[int | None]:
    """A random log under ``root``; the versions to read (None: the latest)."""
    rng = np.random.default_rng(seed)
    mess = _pick(rng, [0.0, 0.0, 0.005, 0.02, 0.1, 1.0])  # how often a value is spelt oddly
    log = os.path.join(root, "_delta_log")
    os.makedirs(log)
    fields, partitions, config = schema(rng)
    leaves = _leaves([f for f in fields if f["name"] not in partitions])
    part_keys = [
        (f.get("metadata") or {}).get("delta.columnMapping.physicalName", f["name"])
        for f in fields
        if f["name"] in partitions
    ]
    part_kinds = {
        k: f["type"]
        for k, f in zip(part_keys, [f for f in fields if f["name"] in partitions], strict=True)
    }
    meta = {
        "id": "t",
        "format": {"provider": "parquet", "options": {}},
        "schemaString": json.dumps({"type": "struct", "fields": fields}),
        "partitionColumns": partitions,
        "configuration": config,
    }
    live: dict = {}  # the reference's replay, to write a checkpoint of
    commits = int(rng.integers(1, 5))
    checkpoint = int(rng.integers(0, commits)) if rng.random() < 0.5 else None
    next_file = 0
    for version in range(commits):
        actions = (
            [{"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}, {"metaData": meta}]
            if version == 0
            else []
        )
        for _ in range(int(rng.integers(0, 25))):
            r = rng.random()
            if r < 0.2 and live:  # remove a live file (its key, or a key it does not have)
                add = live[_pick(rng, list(live))]
                action = {"path": add["path"], "dataChange": True}
                if add.get("deletionVector") and rng.random() < 0.8:
                    action["deletionVector"] = add["deletionVector"]
                actions.append({"remove": action})
            else:
                if r < 0.3 and live:  # the same path again (a new deletion vector, or not)
                    path = live[_pick(rng, list(live))]["path"]
                else:
                    path = _path(rng, next_file, root)
                    next_file += 1
                pv = {
                    k: partition_text(rng, part_kinds[k]) for k in part_keys if rng.random() < 0.95
                }
                add = {
                    "path": path,
                    "partitionValues": pv,
                    "size": int(rng.integers(1, 10**6)),
                    "modificationTime": 0,
                    "dataChange": True,
                    "stats": stats_text(rng, leaves, mess),
                }
                dv = _dv(rng)
                if dv is not None:
                    add["deletionVector"] = dv
                actions.append({"add": add})
            ref._apply(json.loads(json.dumps(actions[-1])), live)
        with open(os.path.join(log, f"{version:020d}.json"), "w") as f:
            f.write("\n".join(json.dumps(a) for a in actions))
        if version == checkpoint:
            _write_checkpoint(rng, log, version, meta, live, leaves, part_keys, part_kinds)
    versions = [None, int(rng.integers(0, commits))]
    if checkpoint is not None and rng.random() < 0.5:  # the log before it is gone
        for v in range(checkpoint):
            os.remove(os.path.join(log, f"{v:020d}.json"))
        versions = [None, checkpoint]
    return versions


def _write_checkpoint(rng, log, version, meta, live, leaves, part_keys, part_kinds):
    typed = rng.random() < 0.4
    rows = []
    for add in live.values():
        row = {
            "path": add["path"],
            "size": add["size"],
            "stats": add.get("stats"),
            "partitionValues": list(add["partitionValues"].items()),
            "deletionVector": add.get("deletionVector"),
        }
        if typed:
            row["stats"] = None  # only the typed statistics
            row["stats_parsed"] = _typed_stats(rng, leaves)
            row["partitionValues_parsed"] = {
                k: _typed_partition(add["partitionValues"].get(k), part_kinds[k]) for k in part_keys
            }
        rows.append(row)
    fields = [
        ("path", pa.string()),
        ("size", pa.int64()),
        ("stats", pa.string()),
        ("partitionValues", pa.map_(pa.string(), pa.string())),
        (
            "deletionVector",
            pa.struct(
                [
                    ("storageType", pa.string()),
                    ("pathOrInlineDv", pa.string()),
                    ("offset", pa.int32()),
                    ("sizeInBytes", pa.int32()),
                    ("cardinality", pa.int64()),
                ]
            ),
        ),
    ]
    if typed:
        sections = [
            ("numRecords", pa.int64()),
            ("tightBounds", pa.bool_()),
            ("minValues", _struct_type(leaves, _arrow_type)),
            ("maxValues", _struct_type(leaves, _arrow_type)),
            ("nullCount", _struct_type(leaves, lambda kind: pa.int64())),
        ]
        fields.append(("stats_parsed", pa.struct([s for s in sections if s[1] is not None])))
        if part_keys:
            fields.append(
                (
                    "partitionValues_parsed",
                    pa.struct([(k, _arrow_type(part_kinds[k])) for k in part_keys]),
                )
            )
    add_type = pa.struct(fields)
    md = {
        "schemaString": meta["schemaString"],
        "partitionColumns": meta["partitionColumns"],
        "configuration": list(meta["configuration"].items()),
    }
    md_type = pa.struct(
        [
            ("schemaString", pa.string()),
            ("partitionColumns", pa.list_(pa.string())),
            ("configuration", pa.map_(pa.string(), pa.string())),
        ]
    )
    parts = 2 if rng.random() < 0.3 and len(rows) > 1 else 1
    cut = len(rows) // 2 if parts == 2 else len(rows)
    for k, chunk in enumerate([rows[:cut], rows[cut:]][:parts]):
        adds = pa.array(chunk + [None], add_type)
        metas = pa.array([None] * len(chunk) + [md], md_type)
        name = (
            f"{version:020d}.checkpoint.parquet"
            if parts == 1
            else f"{version:020d}.checkpoint.{k + 1:010d}.{parts:010d}.parquet"
        )
        pq.write_table(pa.table({"add": adds, "metaData": metas}), os.path.join(log, name))


def _typed_partition(text, kind):
    """The typed value a checkpoint writer would give the text (None where not exact)."""
    t = _arrow_type(kind)
    if t is None or text is None or text == "":
        return None
    lo, hi, _, lo_exact, hi_exact = ref._partition(text, t, None)
    if not (lo_exact and hi_exact) or hi is None:
        return None
    return hi
