"""Delta statistics bounds for a whole column at once: the rules of ``rules.bound`` as
Arrow and NumPy operations, with no Python object per value.

``bounds(raw, t, prefix, upper)`` takes one leaf's minima or maxima as a reader has them:
from the JSON ``stats`` (read by ``pyarrow.json``: numbers as int64, float64 or a wide
decimal, timestamps and dates as their text) or typed, from a checkpoint's ``stats_parsed``.
It returns the bounds as type ``t``, whether each is exact, and the *odd* cells: values these
vector rules do not cover (a timestamp in another spelling, a bound of another type), which
the caller reads with ``rules``. Every vector rule gives what ``rules.bound``
gives on the values it accepts.

>>> import pyarrow as pa
>>> b, exact, odd = bounds(pa.array(["2024-01-02T10:00:00.123Z", "01/02/2024", None]),
...                        pa.timestamp("us", "UTC"), 32, upper=True)
>>> b[0].as_py().isoformat(), exact.tolist(), odd.tolist()
('2024-01-02T10:00:00.123999+00:00', [False, False, False], [False, True, False])
"""

from __future__ import annotations

import decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from prunekit.expr.calendar import days_from_civil

from .rules import DAY_SLACK, float32_bounds

__all__ = ["bounds", "partition_bounds"]

# Python's datetime range (what the exact rules can hold), in µs since the epoch.
_MIN_US = -62135596800 * 10**6
_MAX_US = 253402300799999999
_UNIT = {"s": 10**6, "ms": 1000, "us": 1}


def bounds(raw: pa.Array, t: pa.DataType, prefix: int, upper: bool):
    """(bounds as an Arrow array of ``t``, exact: bool ndarray, odd: bool ndarray).

    >>> import pyarrow as pa
    >>> b, exact, odd = bounds(pa.array(["x" * 40, "ab"]), pa.string(), 32, upper=True)
    >>> b.to_pylist(), exact.tolist()
    (['xxxxxxxxxxxxxxxxxxxxxxxxxxxxxy', 'ab'], [False, True])
    """
    n = len(raw)
    valid = raw.is_valid().to_numpy(zero_copy_only=False)
    if pa.types.is_null(raw.type) or pa.types.is_binary(t) or not valid.any():
        return pa.nulls(n, t), np.zeros(n, bool), np.zeros(n, bool)
    try:
        out = _convert(raw, t, prefix, upper, valid)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OverflowError):
        out = None  # a value these rules overflow on: the exact rules read the column
    if out is None:
        return pa.nulls(n, t), np.zeros(n, bool), valid
    values, exact, odd = out
    return values, exact & ~odd, odd


def _convert(raw, t, prefix, upper, valid):
    rt = raw.type
    if pa.types.is_integer(t) and pa.types.is_integer(rt):
        v, ok = _ints(raw, valid)
        lo, hi = -(1 << (t.bit_width - 1)), (1 << (t.bit_width - 1)) - 1
        ok &= (v >= lo) & (v <= hi)
        return _from_numpy(np.where(ok, v, 0), ok, pa.int64()).cast(t), ok, np.zeros_like(ok)
    if pa.types.is_boolean(t) and pa.types.is_boolean(rt):
        return raw, valid.copy(), np.zeros_like(valid)
    if pa.types.is_floating(t) and pa.types.is_floating(rt) and rt.bit_width >= 32:
        v = pc.fill_null(raw.cast(pa.float64()), 0.0).to_numpy(zero_copy_only=False)
        exact = valid.copy()
        if t == pa.float32():
            v, fits = float32_bounds(v, upper)
            exact &= fits
        v = np.where(v == 0, 0.0 if upper else -0.0, v)  # a zero bound stands for both zeros
        return _from_numpy(v, valid, pa.float64()).cast(t), exact, np.zeros_like(valid)
    if pa.types.is_decimal(t) and pa.types.is_decimal128(rt):
        return _decimals(raw, t, upper, valid)
    if pa.types.is_string(t) and (pa.types.is_string(rt) or pa.types.is_large_string(rt)):
        return _strings(raw.cast(pa.string()), prefix, upper, valid)
    if pa.types.is_timestamp(t) and pa.types.is_string(rt):
        us, zoned, fine, ok = parse_timestamps(raw)
        return _timestamp_bounds(us, zoned, fine, valid & ok, t, upper, odd=valid & ~ok)
    if pa.types.is_timestamp(t) and pa.types.is_timestamp(rt):
        return _typed_timestamps(raw, t, upper, valid)
    if pa.types.is_date32(t) and pa.types.is_string(rt):
        days, ok = parse_dates(raw)
        ok &= valid
        return _from_numpy(days, ok, pa.int32()).cast(t), ok, valid & ~ok
    if pa.types.is_date32(t) and pa.types.is_date32(rt):
        days = pc.fill_null(raw.cast(pa.int32()), 0).to_numpy(zero_copy_only=False)
        ok = valid & (days >= _DAY_MIN) & (days <= _DAY_MAX)
        return _from_numpy(days, ok, pa.int32()).cast(t), ok, np.zeros_like(ok)
    return pa.nulls(len(raw), t), np.zeros_like(valid), valid  # another type: exact rules


def _from_numpy(values: np.ndarray, ok: np.ndarray, t: pa.DataType) -> pa.Array:
    return pa.array(values, t, mask=~ok)


def _ints(raw: pa.Array, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if raw.type == pa.uint64():  # above int64: out of every column's range
        big = pc.fill_null(pc.greater(raw, 2**63 - 1), False).to_numpy(zero_copy_only=False)
        raw = pc.if_else(big, 0, raw)
        valid = valid & ~big
    v = pc.fill_null(raw.cast(pa.int64()), 0).to_numpy(zero_copy_only=False)
    return v, valid.copy()


def _decimals(raw, t, upper, valid):
    """Rounded outwards to the column's scale (inexact where digits were dropped); unknown
    beyond its precision, as ``rules.value``."""
    s, digits = t.scale, t.precision - t.scale
    rs = raw.type.scale
    wide = raw.cast(pa.decimal128(38, rs))
    ok = valid.copy()
    if digits + rs <= 38:  # else every value of ``wide`` is below 10**digits
        # What rounds (up for a maximum, down for a minimum) to 10**digits or beyond is out:
        # above the greatest value below 10**digits at the column's scale on the rounded
        # side, at or beyond 10**digits on the other (the greatest below it at ``rs``).
        # Compared as numbers, which also drops the 10**38 pyarrow.json may read into a
        # DECIMAL(38, rs) (no value of that type).
        def below_limit(scale):
            return pa.scalar(
                decimal.Decimal(("9" * digits or "0") + ("." + "9" * scale if scale else "")),
                pa.decimal128(38, rs),
            )

        rounded_side, other_side = below_limit(min(s, rs)), below_limit(rs)
        if upper:
            inside = pc.and_(
                pc.less_equal(wide, rounded_side),
                pc.greater_equal(wide, pc.negate(other_side)),
            )
        else:
            inside = pc.and_(
                pc.greater_equal(wide, pc.negate(rounded_side)),
                pc.less_equal(wide, other_side),
            )
        ok &= pc.fill_null(inside, False).to_numpy(zero_copy_only=False)
        wide = pc.if_else(pa.array(ok), wide, pa.scalar(None, wide.type))
    if rs > s:
        rounded = pc.round(wide, s, round_mode="up" if upper else "down")
        exact = pc.fill_null(pc.equal(rounded, wide), False).to_numpy(zero_copy_only=False)
    else:
        rounded, exact = wide, ok
    return rounded.cast(t), ok & exact, np.zeros_like(ok)


# ---- strings -----------------------------------------------------------------------------
def _string_buffers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, bytes) of a string array, offsets indexing the bytes."""
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], np.int32)[arr.offset : arr.offset + len(arr) + 1]
    data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    return offsets.astype(np.int64), data


def _strings(raw, prefix, upper, valid):
    """A bound of L - 2 UTF-8 bytes or more may have been cut (``rules.string``)."""
    size = pc.fill_null(pc.binary_length(raw), 0).to_numpy(zero_copy_only=False)
    cut = valid & (size >= prefix - 2)
    exact = valid & ~cut
    if not cut.any() or not upper:  # a cut minimum is still a lower bound, inexact
        return raw, exact, np.zeros_like(valid)
    succ, ok = successors(raw.filter(pa.array(cut)), prefix - 2)
    at = np.cumsum(cut) - 1
    index = pa.array(np.where(cut, at, 0), mask=~cut)
    spread = succ.take(index)
    values = pc.if_else(pa.array(cut), spread, raw)
    bad = np.zeros_like(valid)
    bad[cut] = ~ok
    return values, exact, bad


def successors(raw: pa.Array, limit: int) -> tuple[pa.Array, np.ndarray]:
    """Per string, the successor of its longest prefix of at most ``limit`` UTF-8 bytes (its
    last character plus one; U+D800 becomes U+E000), and where that is defined here (not for
    an empty prefix or a last character U+10FFFF: the exact rules decide those).

    >>> s, ok = successors(pa.array(["abcdef", "aé€x", "\U0010ffff"]), 4)
    >>> s.to_pylist(), ok.tolist()
    (['abce', 'aê', None], [True, True, False])
    """
    offsets, data = _string_buffers(raw)
    start, end = offsets[:-1], offsets[1:]
    stop = np.minimum(end, start + limit)
    pad = np.concatenate([data, np.zeros(4, np.uint8)])

    def continuation(i):
        return (pad[i] & 0xC0) == 0x80

    # Back off to a character boundary (never inside the prefix's last character).
    for _ in range(3):
        stop = np.where((stop > start) & (stop < end) & continuation(stop), stop - 1, stop)
    last = stop - 1
    for _ in range(3):
        last = np.where((last > start) & continuation(last), last - 1, last)
    ok = stop > start
    last = np.where(ok, last, start)
    lead = pad[last].astype(np.int64)
    width = np.where(lead < 0x80, 1, np.where(lead < 0xE0, 2, np.where(lead < 0xF0, 3, 4)))
    code = np.where(
        width == 1,
        lead,
        np.where(width == 2, lead & 0x1F, np.where(width == 3, lead & 0x0F, lead & 0x07)),
    )
    for j in range(1, 4):
        code = np.where(width > j, (code << 6) | (pad[last + j].astype(np.int64) & 0x3F), code)
    code = code + 1
    code = np.where(code == 0xD800, 0xE000, code)
    ok &= code <= 0x10FFFF
    code = np.where(ok, code, 0x41)
    new = np.where(code < 0x80, 1, np.where(code < 0x800, 2, np.where(code < 0x10000, 3, 4)))
    keep = np.where(ok, last - start, 0)
    lengths = keep + np.where(ok, new, 0)
    out_off = np.zeros(len(raw) + 1, np.int64)
    np.cumsum(lengths, out=out_off[1:])
    out = np.zeros(out_off[-1], np.uint8)
    # The kept bytes of each prefix, then its new last character.
    total = keep.sum()
    row = np.repeat(np.arange(len(raw)), keep)
    within = np.arange(total) - np.repeat(np.cumsum(keep) - keep, keep)
    if total:
        out[out_off[:-1][row] + within] = data[start[row] + within]
    base = out_off[:-1] + keep
    for j in range(4):  # UTF-8: a lead byte, then 6 bits per continuation byte
        if j == 0:
            byte = np.where(
                new == 1,
                code,
                np.where(
                    new == 2,
                    0xC0 | (code >> 6),
                    np.where(new == 3, 0xE0 | (code >> 12), 0xF0 | (code >> 18)),
                ),
            )
        else:
            byte = 0x80 | ((code >> (6 * np.maximum(new - 1 - j, 0))) & 0x3F)
        put = ok & (new > j)
        out[base[put] + j] = byte[put]
    values = pa.StringArray.from_buffers(
        len(raw),
        pa.py_buffer(out_off.astype(np.int32)),
        pa.py_buffer(out),
        pa.py_buffer(np.packbits(ok, bitorder="little")),
    )
    return values, ok


# ---- dates and timestamps ----------------------------------------------------------------
_DAY_MIN = int(days_from_civil(np.array([1]), np.array([1]), np.array([1]))[0])
_DAY_MAX = int(days_from_civil(np.array([9999]), np.array([12]), np.array([31]))[0])


def _window(raw: pa.Array, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(the first ``width`` bytes of each string, zeros past its end; its length)."""
    offsets, data = _string_buffers(raw)
    pad = np.concatenate([data, np.zeros(width, np.uint8)])
    start, length = offsets[:-1], np.diff(offsets)
    win = np.lib.stride_tricks.sliding_window_view(pad, width)[start]  # one row copy each
    return np.where(np.arange(width) < length[:, None], win, 0).astype(np.uint8), length


def _tail(raw: pa.Array, width: int) -> np.ndarray:
    """The last ``width`` bytes of each string (zeros before a shorter one's start)."""
    offsets, data = _string_buffers(raw)
    pad = np.concatenate([np.zeros(width, np.uint8), data])
    start, end = offsets[:-1], offsets[1:]
    win = np.lib.stride_tricks.sliding_window_view(pad, width)[end]
    return np.where(np.arange(width)[::-1] < (end - start)[:, None], win, 0).astype(np.uint8)


def _number(win: np.ndarray, first: int, count: int) -> np.ndarray:
    out = np.zeros(len(win), np.int64)
    for j in range(first, first + count):
        out = out * 10 + win[:, j].astype(np.int64) - 48
    return out


def _date_part(win: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(days since the epoch, valid) of ``YYYY-MM-DD`` at the start of each window."""
    digit = (win >= 48) & (win <= 57)
    ok = digit[:, [0, 1, 2, 3, 5, 6, 8, 9]].all(axis=1) & (win[:, 4] == 45) & (win[:, 7] == 45)
    y, m, d = _number(win, 0, 4), _number(win, 5, 2), _number(win, 8, 2)
    leap = ((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0)
    month_days = np.array([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
    dim = month_days[np.clip(m - 1, 0, 11)] + ((m == 2) & leap)
    ok &= (y >= 1) & (m >= 1) & (m <= 12) & (d >= 1) & (d <= dim)
    return np.where(ok, days_from_civil(y, m, d), 0), ok


def parse_dates(raw: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(days since the epoch, read) of ``YYYY-MM-DD`` texts; other texts are not read.

    >>> parse_dates(pa.array(["1970-01-02", "2021-02-29", "20210101"]))[1].tolist()
    [True, False, False]
    """
    win, length = _window(raw, 10)
    days, ok = _date_part(win)
    ok &= length == 10
    return np.where(ok, days, 0), ok


def parse_timestamps(raw: pa.Array):
    """(µs since the epoch, has a zone, has sub-millisecond digits, read) of timestamp texts
    in ISO form with seconds (``2024-01-02T10:00:00.123Z``, ``2024-01-02 10:00:00+02:00``):
    ``YYYY-MM-DD[T ]hh:mm:ss[.f{1,6}][Z|+hh:mm|-hh:mm]``; other spellings are not read.

    >>> us, zoned, fine, ok = parse_timestamps(pa.array(["1970-01-01T00:00:01.5+00:30"]))
    >>> int(us[0]), bool(zoned[0]), bool(fine[0]), bool(ok[0])
    (-1798500000, True, False, True)
    """
    win, length = _window(raw, 32)
    n = len(win)
    digit = (win >= 48) & (win <= 57)
    days, ok = _date_part(win)
    ok &= (length >= 19) & (length <= 32) & ((win[:, 10] == ord("T")) | (win[:, 10] == 32))
    ok &= digit[:, [11, 12, 14, 15, 17, 18]].all(axis=1)
    ok &= (win[:, 13] == ord(":")) & (win[:, 16] == ord(":"))
    h, mi, sec = _number(win, 11, 2), _number(win, 14, 2), _number(win, 17, 2)
    ok &= (h < 24) & (mi < 60) & (sec < 60)

    tail = _tail(raw, 6).astype(np.int64)  # where a zone offset would be
    tail_digit = (tail >= 48) & (tail <= 57)
    z = tail[:, 5] == ord("Z")
    sign = tail[:, 0]
    offset = (length >= 25) & ((sign == ord("+")) | (sign == ord("-"))) & (tail[:, 3] == ord(":"))
    offset &= tail_digit[:, [1, 2, 4, 5]].all(axis=1)
    zone = np.where(z, 1, np.where(offset, 6, 0))
    frac = length - zone - 20  # digits after the point (-1: no point)
    ok &= (frac == -1) | ((frac >= 1) & (frac <= 6) & (win[:, 19] == ord(".")))
    micros = np.zeros(n, np.int64)
    for j in range(6):
        inside = frac > j
        ok &= ~inside | digit[:, 20 + j]
        micros = micros * 10 + np.where(inside, win[:, 20 + j].astype(np.int64) - 48, 0)
    minutes = (
        ((tail[:, 1] - 48) * 10 + tail[:, 2] - 48) * 60 + (tail[:, 4] - 48) * 10 + tail[:, 5] - 48
    )
    shift = np.where(offset, np.where(sign == ord("+"), 1, -1) * minutes * 60 * 10**6, 0)
    us = (days * 86400 + (h * 60 + mi) * 60 + sec) * 10**6 + micros - shift
    return np.where(ok, us, 0), z | offset, frac > 3, ok


def _timestamp_bounds(us, zoned, fine, ok, t, upper, odd):
    """Delta's timestamp rules (``rules.bound``) on µs values read from text."""
    if t.tz is None:
        ok = ok & ~zoned  # an instant for a column of local times: unknown
    local = ~zoned if t.tz is not None else np.zeros_like(zoned)  # unknown zone: widen
    exact = fine & ~local
    if upper:
        v = us + np.where(local, DAY_SLACK + 999, np.where(fine, 0, 999))
    else:
        v = us - np.where(local, DAY_SLACK, 0)
    outside = ok & ((v < _MIN_US) | (v > _MAX_US))  # beyond datetime: the exact rules say
    ok &= ~outside
    return _from_numpy(np.where(ok, v, 0), ok, pa.int64()).cast(t), exact & ok, odd | outside


def _typed_timestamps(raw, t, upper, valid):
    """``stats_parsed`` timestamps: written from the JSON statistics, so a value on a whole
    millisecond was cut to it (as its JSON text would have three digits); a local time
    (no zone) in a TIMESTAMP column is taken as UTC, as the JSON form says."""
    rt = raw.type
    if t.tz is None and rt.tz is not None:
        return pa.nulls(len(raw), t), np.zeros_like(valid), np.zeros_like(valid)
    v = pc.fill_null(raw.cast(pa.int64()), 0).to_numpy(zero_copy_only=False)
    if rt.unit == "ns":
        sub = v % 1000 != 0  # finer than the column: widened outwards, inexact
        us = v // 1000 + (upper & sub)
    else:
        sub = np.zeros_like(valid)
        us = v * _UNIT[rt.unit]
    fine = (us % 1000 != 0) & ~sub
    out = np.where(upper & ~fine & ~sub, us + 999, us) if upper else us
    ok = valid & (out >= _MIN_US) & (out <= _MAX_US)
    return (
        _from_numpy(np.where(ok, out, 0), ok, pa.int64()).cast(t),
        fine & ok,
        np.zeros_like(valid),
    )


# ---- partition values --------------------------------------------------------------------
def partition_bounds(raw: pa.Array, t: pa.DataType):
    """(min, max, usable) of typed partition values (``partitionValues_parsed``): each value
    is the file's one value, exact; where not ``usable`` (a type these rules do not take, a
    TIMESTAMP whose zone the text decides) the caller reads the text instead.

    >>> lo, hi, ok = partition_bounds(pa.array([0.0, 2.5]), pa.float64())
    >>> lo.to_pylist(), hi.to_pylist(), ok.tolist()
    ([-0.0, 2.5], [0.0, 2.5], [True, True])
    """
    n = len(raw)
    valid = raw.is_valid().to_numpy(zero_copy_only=False)
    rt = raw.type
    none = (pa.nulls(n, t), pa.nulls(n, t), np.zeros(n, bool))
    if (
        pa.types.is_string(t)
        and pa.types.is_string(rt)
        or pa.types.is_boolean(t)
        and pa.types.is_boolean(rt)
        or pa.types.is_date32(t)
        and pa.types.is_date32(rt)
    ):
        lo, exact, odd = bounds(raw, t, 10**9, upper=False)  # no string is cut here
        ok = exact & ~odd
        return lo, lo, ok
    if (
        pa.types.is_timestamp(t)
        and t.tz is None
        and pa.types.is_timestamp(rt)
        and rt.tz is None
        and rt.unit != "ns"
    ):
        v = pc.fill_null(raw.cast(pa.int64()), 0).to_numpy(zero_copy_only=False) * _UNIT[rt.unit]
        ok = valid & (v >= _MIN_US) & (v <= _MAX_US)
        out = _from_numpy(np.where(ok, v, 0), ok, pa.int64()).cast(t)
        return out, out, ok
    if (
        (pa.types.is_integer(t) and pa.types.is_integer(rt))
        or (pa.types.is_floating(t) and pa.types.is_floating(rt))
        or (pa.types.is_decimal(t) and pa.types.is_decimal128(rt))
    ):
        lo, lo_exact, lo_odd = bounds(raw, t, 0, upper=False)
        hi, hi_exact, hi_odd = bounds(raw, t, 0, upper=True)
        return lo, hi, lo_exact & hi_exact & ~lo_odd & ~hi_odd
    return none
