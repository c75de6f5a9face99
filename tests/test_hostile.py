"""Hostile input: every odd name, literal, size and statistic gives either a clear
prunekit error or a correct answer, never a crash (no raw Numba, Arrow or RecursionError
traceback), a hang or a wrong result.

Correct means sound (docs/semantics.md §3): checked against the rows the statistics were built from
(``tests/support/reference.py``), or an exact outcome where the reason is written beside it.
Malformed statistics are unknown, never trusted (docs/semantics.md §1).
"""

from __future__ import annotations

import decimal
import math

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk
from prunekit.expr.paths import leaf_key
from prunekit.kernels import codegen, run
from tests.support import reference as ref
from tests.support import strategies as strat
from tests.support import tiers
from tests.support.cases import ALL, BACKENDS, MAYBE, NONE

D = decimal.Decimal
NAN, INF = math.nan, math.inf
C, L = pk.col, pk.lit
NAMES = {NONE: "NONE_MATCH", MAYBE: "MAYBE_MATCH", ALL: "ALL_MATCH"}


def struct(**fields) -> pa.StructArray:
    return pa.StructArray.from_arrays(list(fields.values()), list(fields))


def stats(mn, mx, nulls, t=None, **extra) -> pa.StructArray:
    """One statistics struct from Python lists (None is unknown)."""
    fields = {"min": pa.array(mn, t), "max": pa.array(mx, t),
              "null_count": pa.array(nulls, pa.int64())}
    for k, v in extra.items():
        fields[k] = v if isinstance(v, pa.Array) else pa.array(
            v, pa.bool_() if k.endswith("_exact") else pa.int64())
    return struct(**fields)


def outcomes(predicate, schema, table, backend, **options) -> list[int]:
    """Outcomes; any exception that is not a prunekit error fails the test with its type."""
    try:
        pred = pk.PruningPredicate(predicate, schema)
        got = pred.classify(pk.Statistics.from_arrow(table, **options), backend=backend)
    except pk.PrunekitError:
        raise
    except BaseException as e:  # noqa: BLE001 - the point is which exception
        pytest.fail(f"raw {type(e).__module__}.{type(e).__name__}: {e}")
    assert isinstance(got, np.ndarray) and got.dtype == np.int8 and len(got) == table.num_rows
    return got.tolist()


def assert_sound(example: strat.Example, predicate, backend: str, why: str = "") -> list[int]:
    """Classify ``predicate`` (tree or SQL text) over the example's statistics; every outcome
    must agree with the reference value of ``example.predicate`` on the example's rows."""
    got = outcomes(predicate, example.schema, example.table, backend,
                   nan_bounds=example.nan_bounds, no_nan=example.no_nan)
    bad = []
    for i, (o, rows) in enumerate(zip(got, example.containers, strict=True)):
        truths = [ref.evaluate(example.predicate, example.types, r) for r in rows]
        if example.row_counts[i] == 0 and o != NONE:
            bad.append(f"container {i}: empty but {NAMES[o]}")
        if o == NONE and any(t is True for t in truths):
            bad.append(f"container {i}: NONE_MATCH but rows {rows} give {truths}")
        if o == ALL and any(t is not True for t in truths):
            bad.append(f"container {i}: ALL_MATCH but rows {rows} give {truths}")
    label = predicate if isinstance(predicate, str) else predicate.sql()
    assert not bad, f"{label} ({backend}; {why}):\n" + "\n".join(bad) + "\n" + \
        example.describe()
    return got


def quote(name: str) -> str:
    """A Spark SQL quoted identifier: backticks, an inner backtick doubled."""
    return "`" + name.replace("`", "``") + "`"


# ==== 1. hostile column names ===================================================================
HOSTILE_NAMES = [
    "it's", 'say "hi"', "back`tick", "``", "with space", " ", "new\nline", "tab\there", "\r\n",
    "e\u0301", "\U0001f980", "\u05e9\u05dc\u05d5\u05dd", "\u202eevil", "a\x00b", "",
    "__import__('os').system('x')", '"); import os; #', "'''; import os; '''", "x] = 1; #",
    "AND", "or", "null", "x > 5", "\\", "{0}", "%s",
]
PLAIN = "x"


def _name_table(name: str) -> pa.Table:
    # Container 0: all below 5; 1: all above 5; 2: straddles 5; 3: unknown bounds; 4: empty.
    # The statistics column of a top-level column is leaf_key([name]) (backticks for a name
    # holding '.' or '`', or empty: expr/paths.py).
    return pa.table({"row_count": [10, 10, 10, 10, 0],
                     leaf_key([name]): stats([0, 6, 0, None, None], [4, 9, 9, None, None],
                                             [0, 0, 0, 0, 0])})


NAME_EXPECTED = [NONE, ALL, MAYBE, MAYBE, NONE]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=ascii)
def test_hostile_column_name_resolves_and_prunes(name):
    schema = pa.schema([(name, pa.int64()), ("other", pa.int64())])
    table = _name_table(name)
    for predicate in (f"{quote(name)} > 5", C(name) > 5, L(5) < C(name)):
        pred = pk.PruningPredicate(predicate, schema)
        assert pred.required_columns == {leaf_key([name]): ("max", "min", "null_count")}
        for backend in tiers.backends():
            assert outcomes(predicate, schema, table, backend) == NAME_EXPECTED, backend


# Keywords and functions without parentheses: quoted, or they would not read back as columns.
ROUND_TRIP_NAMES = HOSTILE_NAMES + [
    pytest.param(k, id=k) for k in (
        "SELECT", "from", "WHERE", "distinct", "UNION", "AS", "ANY", "RLIKE", "current_date",
        "CURRENT_TIMESTAMP", "current_user")]


@pytest.mark.parametrize("name", ROUND_TRIP_NAMES, ids=ascii)
def test_hostile_column_name_round_trips_through_rendered_sql(name):
    # explain() and error messages show the predicate as SQL; that text must name the same
    # column and mean the same predicate.
    schema = pa.schema([(name, pa.int64())])
    table = _name_table(name)
    text = pk.PruningPredicate(C(name) > 5, schema).expression.sql()
    pred = pk.PruningPredicate(text, schema)
    assert pred.required_columns == {leaf_key([name]): ("max", "min", "null_count")}, text
    assert outcomes(text, schema, table, "numpy") == NAME_EXPECTED, text


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=ascii)
def test_hostile_column_name_in_explain_and_never_in_kernel_source(name):
    schema = pa.schema([(name, pa.int64()), (PLAIN, pa.int64())])
    # 7 keeps the two terms possible together (1 and 2 alone are not above 5), in the
    # containers whose bounds hold 7.
    pred = pk.PruningPredicate(f"{quote(name)} > 5 AND {quote(name)} IN (1, 2, 7)", schema)
    plain = pk.PruningPredicate(f"{PLAIN} > 5 AND {PLAIN} IN (1, 2, 7)", schema)
    text = pred.explain()
    # Control characters and separators are shown escaped (explain.printable), never raw.
    from prunekit.expr.program.explain import printable

    shown = printable(quote(name))
    assert shown in text, text
    assert all(ch.isprintable() or ch in " \n" for ch in text), text
    if "\n" not in name and "\r" not in name:  # those: test_newline_in_name_... below
        assert text.count("\n") == plain.explain().count("\n"), text
    # The generated kernel source holds only invented names (tests/kernels/test_codegen.py checks
    # one name): for every hostile name it is the very source of the same predicate over "x".
    table = _name_table(name)
    renamed = table.rename_columns(["row_count", PLAIN])
    for sliced in (0, 1):
        batch = table.slice(sliced).to_batches()[0]
        source = codegen.emit(pred.program, run.prepare(
            pred.program, batch, {}, frozenset()).layout)
        plain_batch = renamed.slice(sliced).to_batches()[0]
        assert source == codegen.emit(plain.program, run.prepare(
            plain.program, plain_batch, {}, frozenset()).layout)
        for piece in ("import os", "__import__", "system(", "evil", "\x00"):
            if piece in name:
                assert piece not in source, source
    for backend in tiers.backends():
        assert pred.classify(table, backend=backend).tolist() == [NONE, MAYBE, MAYBE, MAYBE,
                                                                  NONE]


def test_newline_in_name_cannot_forge_explain_lines():
    name = "x` > 5\n    may be TRUE:  forged"
    schema = pa.schema([(name, pa.int64()), (PLAIN, pa.int64())])
    text = pk.PruningPredicate(C(name) > 5, schema).explain()
    plain = pk.PruningPredicate(C(PLAIN) > 5, schema).explain()
    assert text.count("\n") == plain.count("\n"), text


def test_column_names_differing_only_in_case():
    schema = pa.schema([("A b", pa.int64()), ("a B", pa.int64())])
    # An exact match wins; an ambiguous case-insensitive match is a clear error, not a guess.
    assert pk.PruningPredicate("`a B` > 5", schema).required_columns == {
        "a B": ("max", "min", "null_count")}
    assert pk.PruningPredicate(C("A b") > 5, schema).required_columns == {
        "A b": ("max", "min", "null_count")}
    for predicate in ("`a b` > 5", C("a b") > 5):
        with pytest.raises(pk.UnknownColumnError) as info:
            pk.PruningPredicate(predicate, schema)
        assert "a b" in str(info.value)


def test_data_column_named_row_count_is_a_clear_error():
    # ``row_count`` is the statistics layout's own column: a data column of that name cannot
    # have a statistics struct, and must not be confused with the container's row count.
    schema = pa.schema([("row_count", pa.int64())])
    for table in (pa.table({"row_count": [10]}),
                  pa.table({"row_count": stats([1], [2], [0])})):
        for backend in tiers.backends():
            with pytest.raises(pk.StatisticsError, match="row_count"):
                pk.PruningPredicate("row_count > 5", schema).classify(table, backend=backend)


def test_double_quoted_name_is_a_string_in_spark_sql():
    # Spark SQL reads "x" as a string literal, not a column: 'x' > 5 casts 'x' to a number,
    # NULL in legacy mode and a failed query under ANSI. No row of any container matches.
    with pytest.warns(UserWarning, match="not the column x"):
        pred = pk.PruningPredicate('"x" > 5', pa.schema([("x", pa.int64())]))
    assert pred.required_columns == {}
    stats = pk.Statistics.from_numpy(row_count=np.array([3]), columns={
        "x": {"min": np.array([10]), "max": np.array([20]), "null_count": np.array([0])}})
    assert pred.classify(stats).tolist() == [pk.NONE_MATCH]


# ==== 2. hostile string literals and statistics =================================================
HOSTILE_STRINGS = [
    "it's", 'say "hi"', "back\\slash", "\\'", "'", "\\", "nul\x00byte", "\x00", "tab\tnl\n",
    "%_", "a%", "e\u0301", "\U0001f980", "\U0010ffff", "\u202eevil", "'); import os; #",
    "\u00ff", "",
]


def sql_string(value: str) -> str:
    """A Spark SQL string literal: backslash and quote escaped with a backslash."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


@pytest.mark.parametrize("value", HOSTILE_STRINGS, ids=ascii)
def test_hostile_string_literals(value):
    # Rows hold the literal itself, strings just above and below it in byte order, and NULLs.
    rows = [[value], [value + "\x00"], [value, None], ["\x00" if value else "a"],
            [value + "\U0010ffff", "\x7f"], []]
    example = strat.exact_example({"s": (pa.string(), rows)}, C("s") == L(value))
    spellings = [  # (tree for the reference, the same predicate as SQL text)
        (C("s") == L(value), f"s = {sql_string(value)}"),
        (C("s") != L(value), f"s <> {sql_string(value)}"),
        (C("s") < L(value), f"s < {sql_string(value)}"),
        (C("s") >= L(value), f"{sql_string(value)} <= s"),
        (C("s").isin([value, value + "z", None]),
         f"s IN ({sql_string(value)}, {sql_string(value + 'z')}, NULL)"),
        (C("s").startswith(value), f"startswith(s, {sql_string(value)})"),
    ]
    for backend in tiers.backends():
        # Compiled kernels on two shapes keep the suite quick; the interpreter checks them all.
        for tree, sql in spellings if backend == "numpy" else spellings[::4]:
            example.predicate = tree
            for predicate in (tree, sql):
                got = assert_sound(example, predicate, backend)
            if tree.sql().startswith("s = "):
                assert got[0] == ALL and got[1] == NONE, got  # exact min = max = the value
    pred = pk.PruningPredicate(C("s") == L(value), example.schema)
    source = codegen.emit(pred.program, run.prepare(
        pred.program, example.table.to_batches()[0], {}, frozenset()).layout)
    for piece in ("import os", "\u202e", "\U0001f980", "\x00", "nul", "say"):
        if piece in value:
            assert piece not in source
    assert pk.PruningPredicate(pred.expression.sql(), example.schema).classify(
        example.table).tolist() == pred.classify(example.table).tolist()


def test_like_patterns_with_escapes_and_nul():
    rows = [["a%b"], ["ab"], ["a\x00c"], ["a\\b"], ["a_"], []]
    for tree, sql in [
        (C("s").like("a\\%%"), "s LIKE 'a\\\\%%'"),  # escaped % : prefix 'a%'
        (C("s").like("a\x00%"), "s LIKE 'a\x00%'"),
        (C("s").like("a\\\\%"), "s LIKE 'a\\\\\\\\%'"),  # escaped backslash: prefix 'a\'
        (C("s").like("a\\_%"), "s LIKE 'a\\\\_%'"),
    ]:
        example = strat.exact_example({"s": (pa.string(), rows)}, tree)
        for backend in tiers.backends():
            for predicate in (tree, sql):
                assert_sound(example, predicate, backend)


def invalid_utf8(values: list[bytes | None], t: pa.DataType) -> pa.Array:
    """A (large_)string array holding raw bytes that need not be UTF-8 (no validation)."""
    big = pa.types.is_large_string(t) or pa.types.is_large_binary(t)
    lengths = [0 if v is None else len(v) for v in values]
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64 if big else np.int32)
    validity = None
    if any(v is None for v in values):
        validity = pa.py_buffer(np.packbits([v is not None for v in values],
                                            bitorder="little").tobytes())
    data = pa.py_buffer(b"".join(v or b"" for v in values))
    return pa.Array.from_buffers(t, len(values), [validity, pa.py_buffer(offsets.tobytes()),
                                                  data])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("t", [pa.string(), pa.large_string(), pa.binary()], ids=str)
def test_invalid_utf8_statistics_are_never_trusted_wrongly(t, backend):
    # Parquet truncates string bounds by bytes: a truncated min, or a max whose last byte was
    # incremented, is often not UTF-8, but it still bounds the rows in byte order. Decoding it
    # (lossily, U+FFFD = EF BF BD) would move the bound and lose rows.
    mins = invalid_utf8([b"\xc3", b"\xf0", b"a\xff", b"\xff\xfe", None], t)
    maxs = invalid_utf8([b"\xc4", b"\xff", b"a\xff\xff", b"\xff\xff", b"\xff"], t)
    if pa.types.is_string(t):
        with pytest.raises(pa.ArrowInvalid):  # the arrays really are invalid UTF-8
            maxs.validate(full=True)
    table = pa.table({"row_count": [10] * 5, "s": struct(
        min=mins, max=maxs, null_count=pa.array([0] * 5),
        min_exact=pa.array([False] * 5), max_exact=pa.array([False] * 5))})
    schema = pa.schema([("s", pa.string())])
    crab = "\U0001f980"  # F0 9F A6 80: inside [F0, FF], above U+FFFD's EF BF BD
    cases = [  # predicate, a row each container may hold (None: no claim)
        ("s = 'é'", ["é", None, None, None, None]),
        (f"s = '{crab}'", [None, crab, None, None, crab]),
        ("s > '\uffff'", [None, crab, None, None, crab]),
        (f"s >= '{crab}'", [None, crab, None, None, crab]),
        ("s LIKE 'é%'", ["é!", None, None, None, None]),
        (f"s IN ('é', '{crab}')", ["é", crab, None, None, crab]),
    ]
    for sql, witnesses in cases:
        got = outcomes(sql, schema, table, backend)
        tree = pk.PruningPredicate(sql, schema).expression
        for i, (o, w) in enumerate(zip(got, witnesses, strict=True)):
            if w is not None:  # a row the bounds allow makes the predicate TRUE
                assert ref.evaluate(tree, {"s": pa.string()}, {"s": w}) is True
                assert o != NONE, f"{sql}: container {i} holds {w!r} but was pruned"
    # Where bytes order decides, the answer follows bytes (or is unknown), never decoded text.
    assert outcomes("s < 'z'", schema, table, backend)[0] in (NONE, MAYBE)  # C3.. > 'z'
    assert outcomes("s > 'z'", schema, table, backend)[0] in (ALL, MAYBE)
    assert outcomes("s = 'a'", schema, table, backend)[2] in (NONE, MAYBE)  # 'a' < 'a\xff'


@pytest.mark.parametrize("backend", BACKENDS)
def test_binary_literal_against_invalid_utf8_bounds(backend):
    mins = invalid_utf8([b"\x80", b"\xff"], pa.string())
    maxs = invalid_utf8([b"\xfe", b"\xff\xff"], pa.string())
    table = pa.table({"row_count": [3, 3], "s": struct(min=mins, max=maxs,
                                                       null_count=pa.array([0, 0]))})
    schema = pa.schema([("s", pa.string())])
    # X'FF' is above every byte of container 0 and equal to container 1's exact min.
    assert outcomes("s = X'FF'", schema, table, backend) == [NONE, MAYBE]
    assert outcomes("s < X'FF'", schema, table, backend) == [ALL, NONE]


# ==== 3. sizes: 100,000 IN values, 10,000-deep chains ===========================================
BIG = 100_000
IN_VALUES = list(range(0, 3 * BIG, 3))  # multiples of 3 up to 299,997
SIZE_SCHEMA = pa.schema([("x", pa.int64()), ("y", pa.int64()), ("s", pa.string())])


@pytest.fixture(scope="module")
def size_table() -> pa.Table:
    return pa.table({
        "row_count": [10, 10, 10, 10, 10, 0],
        # 1 (not a multiple of 3); beyond the list; 150,000 = 3 * 50,000 exactly; a range
        # holding listed values; all NULL; empty.
        "x": stats([1, 300_001, 150_000, 0, None, None], [1, 300_002, 150_000, 299_997, None,
                                                          None], [0, 0, 0, 0, 10, 0]),
        "y": stats([0, 0, 0, 5, None, None], [1, 1, 1, 9, None, None], [0, 0, 0, 0, 10, 0]),
        "s": stats(["v1", "zz", "v99999", "a", None, None], ["v1", "zzz", "v99999", "w", None,
                                                               None], [0, 0, 0, 0, 10, 0]),
    })


@pytest.fixture(scope="module")
def big_in_sql() -> pk.PruningPredicate:
    return pk.PruningPredicate("x IN (" + ", ".join(map(str, IN_VALUES)) + ")", SIZE_SCHEMA)


@pytest.fixture(scope="module")
def big_in_builder() -> dict:
    return {"in": pk.PruningPredicate(C("x").isin(IN_VALUES), SIZE_SCHEMA),
            "not in": pk.PruningPredicate(~C("x").isin(IN_VALUES), SIZE_SCHEMA),
            "not in null": pk.PruningPredicate(~C("x").isin([*IN_VALUES, None]), SIZE_SCHEMA)}


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_in_list_of_100000_values(big_in_sql, big_in_builder, size_table, backend):
    expected = [NONE, NONE, ALL, MAYBE, NONE, NONE]
    assert big_in_sql.classify(size_table, backend=backend).tolist() == expected
    assert big_in_builder["in"].classify(size_table, backend=backend).tolist() == expected
    # NOT IN: 1 and the values beyond the list differ from all of them; 150,000 is listed.
    assert big_in_builder["not in"].classify(size_table, backend=backend).tolist() == [
        ALL, ALL, NONE, MAYBE, NONE, NONE]
    # With a NULL in the list, NOT IN is never TRUE.
    assert big_in_builder["not in null"].classify(size_table, backend=backend).tolist() == [
        NONE] * 6


@pytest.mark.parametrize("backend", BACKENDS)
def test_string_in_list_of_100000_values(size_table, backend):
    words = [f"v{i}" for i in range(BIG)] + ["it's", "\x00", "\U0001f980"]
    pred = pk.PruningPredicate(C("s").isin(words), SIZE_SCHEMA)
    # 'v1' and 'v99999' are listed; nothing in ['zz', 'zzz'] is; 'a'..'w' holds listed ones.
    assert pred.classify(size_table, backend=backend).tolist() == [
        ALL, NONE, ALL, MAYBE, NONE, NONE]


DEPTH = 10_000


def _expected_chain(table: pa.Table) -> list[int]:
    # x > 0 AND y < 2 AND y < 3 AND ... : the same as x > 0 AND y < 2.
    return pk.PruningPredicate("x > 0 AND y < 2", SIZE_SCHEMA).classify(
        table, backend="numpy").tolist()


def test_expected_chain_outcome_is_what_the_rows_say(size_table):
    # Container 0: x = 1, y in [0, 1]: every row matches; 3: x may be 0; 4: all NULL; 5: empty.
    assert _expected_chain(size_table) == [ALL, ALL, ALL, NONE, NONE, NONE]


def test_left_deep_and_chain_in_sql(size_table):
    text = " AND ".join(["x > 0"] + [f"y < {i + 2}" for i in range(DEPTH)])
    pred = pk.PruningPredicate(text, SIZE_SCHEMA)
    assert pred.classify(size_table, backend="numpy").tolist() == _expected_chain(size_table)


@pytest.mark.slow
def test_left_deep_or_chain_from_the_builder(size_table):
    tree = C("x") == 1
    for i in range(1, DEPTH):
        tree = tree | (C("x") == 3 * i + 1)  # 1, 4, 7, ...: 150,000 and 300,001.. are not
    pred = pk.PruningPredicate(tree, SIZE_SCHEMA)
    assert pred.classify(size_table, backend="numpy").tolist() == [
        ALL, NONE, NONE, MAYBE, NONE, NONE]
    assert len(pred.explain()) > DEPTH and len(tree.sql()) > DEPTH


def test_right_deep_and_chain_from_the_builder(size_table):
    tree = C("x") > 0
    for i in range(DEPTH):
        tree = (C("y") < i + 2) & tree
    pred = pk.PruningPredicate(tree, SIZE_SCHEMA)
    assert pred.classify(size_table, backend="numpy").tolist() == _expected_chain(size_table)


def _deep_sql_or_clear_error(text: str, table: pa.Table, expected: list[int]) -> None:
    """A very deep SQL text gives the right answer or a clear SqlSyntaxError saying why."""
    try:
        pred = pk.PruningPredicate(text, SIZE_SCHEMA)
    except pk.SqlSyntaxError as e:
        assert "deep" in str(e) and "prunekit.col" in str(e), str(e)
        return
    assert pred.classify(table, backend="numpy").tolist() == expected


def test_right_deep_and_chain_in_sql(size_table):
    text = "".join(f"y < {i + 2} AND (" for i in range(DEPTH)) + "x > 0" + ")" * DEPTH
    _deep_sql_or_clear_error(text, size_table, _expected_chain(size_table))


def test_nested_parentheses_in_sql(size_table):
    text = "(" * DEPTH + "x = 1" + ")" * DEPTH
    _deep_sql_or_clear_error(text, size_table, [ALL, NONE, NONE, MAYBE, NONE, NONE])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("extra", [0, 1], ids=["even", "odd"])
def test_not_not_not_deep(size_table, backend, extra):
    n = DEPTH + extra
    plain = [ALL, NONE, NONE, MAYBE, NONE, NONE]  # x = 1
    negated = [NONE, ALL, ALL, MAYBE, NONE, NONE]  # NOT x = 1 (NULL rows: neither)
    expected = plain if n % 2 == 0 else negated
    tree = C("x") == 1
    for _ in range(n):
        tree = ~tree
    for predicate in ("NOT " * n + "x = 1", tree):
        pred = pk.PruningPredicate(predicate, SIZE_SCHEMA)
        assert pred.classify(size_table, backend=backend).tolist() == expected


def test_deep_chain_with_the_compiled_kernel(size_table):
    tree = C("x") > 0
    for i in range(DEPTH):
        tree = tree & (C("y") < i + 2)
    pred = pk.PruningPredicate(tree, SIZE_SCHEMA)
    try:
        got = pred.classify(size_table, backend="numba").tolist()
    except pk.PrunekitError:
        return  # a clear error is acceptable too
    assert got == _expected_chain(size_table)


# ==== 4. NaN, ±inf and ±0 literals against float and int columns ================================
NAN_SQL, INF_SQL, NINF_SQL = "CAST('NaN' AS DOUBLE)", "CAST('Infinity' AS DOUBLE)", \
    "CAST('-inf' AS DOUBLE)"


def _float_cases(c: str) -> list:
    """(tree for the reference, the same predicate as Spark SQL text)."""
    col = C(c)
    return [
        (col == L(NAN), f"{c} = {NAN_SQL}"), (col > L(NAN), f"{c} > double('NaN')"),
        (col >= L(NAN), f"{c} >= CAST('nan' AS DOUBLE)"), (col < L(NAN), f"{c} < {NAN_SQL}"),
        (col <= L(NAN), f"{NAN_SQL} >= {c}"), (col != L(NAN), f"{c} <> {NAN_SQL}"),
        (col == L(INF), f"{c} = {INF_SQL}"), (col > L(INF), f"{c} > 1e400"),
        (col >= L(-INF), f"{c} >= {NINF_SQL}"), (col < L(-INF), f"{c} < -1e400"),
        (col <= L(INF), f"{c} <= CAST('inf' AS DOUBLE)"),
        (col == L(-0.0), f"{c} = CAST('-0.0' AS DOUBLE)"), (col > L(-0.0), f"{c} > -0.0"),
        (col < L(0.0), f"{c} < 0.0"), (col <= L(-0.0), f"{c} <= -CAST(0.0 AS DOUBLE)"),
        (col >= L(0.0), f"{c} >= 0D"), (col != L(-0.0), f"{c} != -0.0D"),
        (col.isin([NAN, -0.0]), f"{c} IN ({NAN_SQL}, CAST('-0.0' AS DOUBLE))"),
        (~col.isin([NAN, INF]), f"{c} NOT IN ({NAN_SQL}, {INF_SQL})"),
        (pk.isnan(col), f"isnan({c})"), (~pk.isnan(col), f"NOT isnan({c})"),
    ]


FLOAT_ROWS = [[NAN], [NAN, 1.0], [0.0], [-0.0], [-0.0, 0.0], [INF], [-INF], [INF, -INF, NAN],
              [1.0, None], [None], [], [-0.0, NAN], [5e-324, -5e-324]]
INT_ROWS = [[0], [-1, 1], [2**63 - 1], [-2**63], [None], [], [0, None], [-2**63, 2**63 - 1]]


def _flip_zero_bounds(table: pa.Table, column: str) -> pa.Table:
    """The same statistics with each 0.0 bound written as -0.0 and back (docs/semantics.md §4:
    a zero bound stands for both zeros)."""
    s = table.column(column).combine_chunks()
    fields = {s.type.field(i).name: s.field(i) for i in range(s.type.num_fields)}
    for b in ("min", "max"):
        vals = [None if v is None else (-v if v == 0 else v) for v in fields[b].to_pylist()]
        fields[b] = pa.array(vals, fields[b].type)
    return table.set_column(table.schema.get_field_index(column), column, struct(**fields))


def _without_nan_count(table: pa.Table, column: str) -> pa.Table:
    s = table.column(column).combine_chunks()
    fields = {s.type.field(i).name: s.field(i) for i in range(s.type.num_fields)
              if s.type.field(i).name != "nan_count"}
    return table.set_column(table.schema.get_field_index(column), column, struct(**fields))


@pytest.mark.parametrize("nan_bounds", ["exclude", "include"])
@pytest.mark.parametrize("t", [pa.float64(), pa.float32()], ids=str)
def test_nan_inf_and_zero_literals_against_float_columns(t, nan_bounds):
    rows = [[strat.f32(v) if v is not None and t == pa.float32() else v for v in c]
            for c in FLOAT_ROWS]
    example = strat.exact_example({"f": (t, rows)}, C("f") == L(NAN), nan_bounds=nan_bounds)
    tables = [example.table, _flip_zero_bounds(example.table, "f"),
              _without_nan_count(example.table, "f")]
    for i, (tree, sql) in enumerate(_float_cases("f")):
        example.predicate = tree
        for k, table in enumerate(tables):
            example.table = table
            # The compiled kernel on a sample of shapes (compiling costs); NumPy on all.
            compiled = k == 0 and t == pa.float64() and i % 4 == 0
            backends = tiers.backends() if compiled else ("numpy",)
            for backend in backends:
                for predicate in (tree, sql):
                    got = assert_sound(example, predicate, backend, f"variant {k}")
                    if tree.sql().startswith("f > CAST('NaN'"):
                        assert set(got) == {NONE}, got  # nothing is above NaN
        example.table = tables[0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_nan_inf_and_zero_literals_against_int_columns(backend):
    example = strat.exact_example({"x": (pa.int64(), INT_ROWS)}, C("x") == L(NAN))
    for tree, sql in _float_cases("x")[:-2]:  # isnan of an integer is not a float question
        example.predicate = tree
        for predicate in (tree, sql):
            assert_sound(example, predicate, backend)
    # Exactly (no NULL in container 0..3): an integer is never NaN and always below NaN and
    # +inf; -0.0 equals 0.
    schema, table = example.schema, example.table
    assert outcomes(f"x = {NAN_SQL}", schema, table, backend) == [NONE] * 8
    assert outcomes(f"x < {NAN_SQL}", schema, table, backend)[:4] == [ALL] * 4
    assert outcomes(f"x > {INF_SQL}", schema, table, backend) == [NONE] * 8
    assert outcomes(f"x >= {NINF_SQL}", schema, table, backend)[:4] == [ALL] * 4
    assert outcomes("x = CAST('-0.0' AS DOUBLE)", schema, table, backend)[:4] == [
        ALL, MAYBE, NONE, NONE]  # [-1, 1] holds no 0 but its bounds do


# ==== 5. int64 / uint64 / decimal(38) extremes ==================================================
I64_MIN, I64_MAX, U64_MAX = -2**63, 2**63 - 1, 2**64 - 1
D38 = 10**38 - 1
DIGITS39 = "9" * 39
EXTREME_COLUMNS = {
    "x": (pa.int64(), [[I64_MIN], [I64_MAX], [0], [I64_MIN, I64_MAX], [None], []]),
    "u": (pa.uint64(), [[0], [U64_MAX], [2**63], [0, U64_MAX], [None], []]),
    "d": (pa.decimal128(38, 0), [[D(-D38)], [D(D38)], [D(0)], [D(-D38), D(D38)], [None], []]),
    "e": (pa.decimal128(38, 10), [[D("-" + "9" * 28 + ".9999999999")],
                                  [D("9" * 28 + ".9999999999")], [D(0)],
                                  [D("-0.0000000001"), D("0.0000000001")], [None], []]),
}
N_EXT = 6
EXTREMES = [  # (tree, SQL, exact outcomes per container or None)
    (C("x") > L(I64_MAX), "x > 9223372036854775807", [NONE] * N_EXT),
    (C("x") >= L(I64_MAX), "x >= 9223372036854775807", [NONE, ALL, NONE, MAYBE, NONE, NONE]),
    (C("x") == L(I64_MIN), "x = -9223372036854775808", [ALL, NONE, NONE, MAYBE, NONE, NONE]),
    (C("x") == L(I64_MIN - 1), "x = -9223372036854775809", [NONE] * N_EXT),
    (C("x") < L(I64_MIN - 1), "x < -9223372036854775809", [NONE] * N_EXT),
    (C("x") > L(I64_MIN - 1), "x > -9223372036854775809", [ALL] * 4 + [NONE, NONE]),
    (C("x") != L(I64_MAX + 1), "x <> 9223372036854775808", [ALL] * 4 + [NONE, NONE]),
    (C("x").isin([I64_MAX + 1, I64_MIN - 1]), "x IN (9223372036854775808, "
     "-9223372036854775809)", [NONE] * N_EXT),
    (C("x").isin([I64_MAX, D38]), f"x IN (9223372036854775807, {D38})",
     [NONE, ALL, NONE, MAYBE, NONE, NONE]),
    (C("x") < L(D38), f"x < {D38}", [ALL] * 4 + [NONE, NONE]),
    (C("x") > L(-D38), f"x > -{D38}", [ALL] * 4 + [NONE, NONE]),
    (C("x") == L(D("9223372036854775807.0")), "x = 9223372036854775807.0",
     [NONE, ALL, NONE, MAYBE, NONE, NONE]),
    (C("x") > L(D("9223372036854775806.5")), "x > 9223372036854775806.5",
     [NONE, ALL, NONE, MAYBE, NONE, NONE]),
    (C("u") > L(U64_MAX), "u > 18446744073709551615", [NONE] * N_EXT),
    (C("u") >= L(U64_MAX), "u >= 18446744073709551615", [NONE, ALL, NONE, MAYBE, NONE, NONE]),
    (C("u") == L(U64_MAX + 1), "u = 18446744073709551616", [NONE] * N_EXT),
    (C("u") < L(U64_MAX + 1), "u < 18446744073709551616", [ALL] * 4 + [NONE, NONE]),
    (C("u") == L(-1), "u = -1", [NONE] * N_EXT),
    (C("u") > L(-1), "u > -1", [ALL] * 4 + [NONE, NONE]),
    (C("u") <= L(0), "u <= 0", [ALL, NONE, NONE, MAYBE, NONE, NONE]),
    (C("u") == L(2**63), "u = 9223372036854775808", [NONE, NONE, ALL, MAYBE, NONE, NONE]),
    (C("u") < L(I64_MIN), "u < -9223372036854775808", [NONE] * N_EXT),
    (C("u").isin([0, U64_MAX, U64_MAX + 1, -1]),
     "u IN (0, 18446744073709551615, 18446744073709551616, -1)",
     [ALL, ALL, NONE, MAYBE, NONE, NONE]),  # bounds alone cannot prove the values between
    (C("d") == L(D38), f"d = {D38}", [NONE, ALL, NONE, MAYBE, NONE, NONE]),
    (C("d") == L(-D38), f"d = -{D38}", [ALL, NONE, NONE, MAYBE, NONE, NONE]),
    (C("d") > L(D38), f"d > {D38}", [NONE] * N_EXT),
    (C("d") < L(-D38), f"d < -{D38}", [NONE] * N_EXT),
    (C("d") >= L(D38), f"d >= {D38}", [NONE, ALL, NONE, MAYBE, NONE, NONE]),
    (C("d").isin([D38, -D38, 1]), f"d IN ({D38}, -{D38}, 1)",
     [ALL, ALL, NONE, MAYBE, NONE, NONE]),
    (C("e") == L(D("9" * 28 + ".9999999999")), "e = " + "9" * 28 + ".9999999999",
     [NONE, ALL, NONE, NONE, NONE, NONE]),
    (C("e") > L(D("9" * 28 + ".9999999998")), "e > " + "9" * 28 + ".9999999998",
     [NONE, ALL, NONE, NONE, NONE, NONE]),
    (C("e") < L(D("-" + "9" * 27 + ".99999999985")), "e < -" + "9" * 27 + ".99999999985",
     [ALL, NONE, NONE, NONE, NONE, NONE]),
    # DECIMAL(38, 10) against DECIMAL(11, 11) needs 39 digits: Spark compares in DECIMAL(38, 10),
    # the literal rounded half up to 1E-10 (so 1E-10 = 0.00000000005 is TRUE in Spark 4.3).
    (C("e") > L(D("0.00000000005")), "e > 0.00000000005", [NONE, ALL, NONE, NONE, NONE, NONE]),
    (C("e") == L(D("0.00000000005")), "e = 0.00000000005",
     [NONE, NONE, NONE, MAYBE, NONE, NONE]),
]


@pytest.fixture(scope="module")
def extremes_example() -> strat.Example:
    return strat.exact_example(EXTREME_COLUMNS, C("x") > 0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("tree", "sql", "expected"), EXTREMES, ids=[s for _, s, _ in EXTREMES])
def test_integer_and_decimal_extremes(extremes_example, tree, sql, expected, backend):
    example = extremes_example
    example.predicate = tree
    for predicate in (tree, sql):
        got = assert_sound(example, predicate, backend)
        assert got == expected, f"{predicate}: {got}"


# More than 38 digits: no DECIMAL holds the literal and Spark's parser refuses the query, so
# prunekit refuses the predicate rather than prune for a query no engine runs.
REFUSED_EXTREMES = [
    (C("x").isin([I64_MAX, int(DIGITS39)]), f"x IN (9223372036854775807, {DIGITS39})"),
    (C("x") < L(int(DIGITS39)), f"x < {DIGITS39}"),
    (C("x") > L(2**200), "x > " + str(2**200)),
    (C("d") == L(D38 + 1), f"d = {D38 + 1}"),
    (C("d") > L(-int(DIGITS39)), f"d > -{DIGITS39}"),
    (C("d").isin([D38, -D38, int(DIGITS39)]), f"d IN ({D38}, -{D38}, {DIGITS39})"),
    (C("e") < L(D("-" + "9" * 28 + ".99999999985")), "e < -" + "9" * 28 + ".99999999985"),
]


@pytest.mark.parametrize(("tree", "sql"), REFUSED_EXTREMES, ids=[s for _, s in REFUSED_EXTREMES])
def test_a_literal_of_more_than_38_digits_is_refused(extremes_example, tree, sql):
    for predicate in (tree, sql):
        with pytest.raises(pk.TypeMismatchError, match=r"has (39|61) digits, more than the 38"):
            pk.PruningPredicate(predicate, extremes_example.schema)


@pytest.mark.parametrize("backend", BACKENDS)
def test_int64_column_statistics_beyond_a_narrow_column_type(backend):
    # int64 statistics for an int8 column (a writer that widened): bounds outside int8 still
    # bound, and a literal outside int8 still folds to FALSE.
    table = pa.table({"row_count": [10, 10], "i8": stats([-1000, -5], [1000, 5], [0, 0])})
    schema = pa.schema([("i8", pa.int8())])
    assert outcomes("i8 > 128", schema, table, backend) == [NONE, NONE]
    assert outcomes("i8 >= -129", schema, table, backend) == [ALL, ALL]
    assert outcomes("i8 > 4", schema, table, backend) == [MAYBE, MAYBE]
    assert outcomes("i8 < 6", schema, table, backend) == [MAYBE, ALL]


# ==== 6. malformed statistics: unknown, never trusted ===========================================
MALFORMED_TYPES = [  # type, a large value, a small value, a value between (as SQL)
    (pa.int64(), 9, 1, "5"), (pa.uint64(), U64_MAX, 0, "9223372036854775808"),
    (pa.float64(), 9.0, 1.0, "5.0"), (pa.float32(), 9.0, 1.0, "5.0"),
    (pa.string(), "z", "a", "'m'"), (pa.binary(), b"\xff", b"\x00", "X'80'"),
    (pa.decimal128(10, 2), D("9.00"), D("1.00"), "5.00"),
    (pa.decimal128(38, 0), D(D38), D(-D38), "0"),
    (pa.date32(), 20_000, 10_000, "DATE '2000-01-01'"),
    (pa.timestamp("us", "UTC"), 2 * 10**15, 10**15, "TIMESTAMP '2010-01-01 00:00:00'"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("t", "big", "small", "between"), MALFORMED_TYPES,
                         ids=[str(m[0]) for m in MALFORMED_TYPES])
def test_min_above_max_makes_both_bounds_unknown(t, big, small, between, backend):
    # Trusting max alone would prune c > between; trusting min alone would prove it for all.
    schema = pa.schema([("c", t)])
    table = pa.table({"row_count": [10, 10, 0], "c": stats([big, big, big], [small, small, small],
                                                           [0, 3, 0], t, nan_count=[0, 0, 0])})
    for op in (">", "<", "=", "<>", ">=", "<=") if backend == "numpy" else (">", "="):
        got = outcomes(f"c {op} {between}", schema, table, backend)
        assert got == [MAYBE, MAYBE, NONE], f"c {op} {between}: {got}"
    assert outcomes(f"c IN ({between}, {between})", schema, table, backend) == [
        MAYBE, MAYBE, NONE]
    assert outcomes(f"c BETWEEN {between} AND {between}", schema, table, backend) == [
        MAYBE, MAYBE, NONE]


@pytest.mark.parametrize("backend", BACKENDS)
def test_boolean_min_above_max(backend):
    schema = pa.schema([("b", pa.bool_())])
    table = pa.table({"row_count": [10], "b": stats([True], [False], [0], pa.bool_())})
    for sql in ("b", "NOT b", "b = TRUE", "b IS FALSE", "b IS NOT TRUE"):
        assert outcomes(sql, schema, table, backend) == [MAYBE], sql


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("t", "value", "literal"), [
    (pa.string(), "m", "'m'"), (pa.float64(), 5.0, "5.0"), (pa.decimal128(38, 0), D(7), "7"),
    (pa.uint64(), U64_MAX, "18446744073709551615"), (pa.bool_(), True, "TRUE"),
], ids=str)
def test_impossible_null_counts_are_unknown(t, value, literal, backend):
    # min = max = value, exact. A null_count of -1, 11 of 10 rows or beyond int64 is unknown:
    # the rows may all be value (TRUE) or hold NULLs (not TRUE), so only MAYBE is right.
    schema = pa.schema([("c", t)])
    counts = pa.array([-1, 11, 2**63 - 1, None], pa.int64())
    table = pa.table({"row_count": [10] * 4, "c": struct(
        min=pa.array([value] * 4, t), max=pa.array([value] * 4, t), null_count=counts,
        nan_count=pa.array([0] * 4))})
    for sql in (f"c = {literal}", "c IS NULL", "c IS NOT NULL", f"c <=> {literal}",
                f"c IS DISTINCT FROM {literal}")[:5 if backend == "numpy" else 2]:
        assert outcomes(sql, schema, table, backend) == [MAYBE] * 4, sql


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("nan", [-1, 11, -2**63, 2**63 - 1, None])
def test_impossible_nan_counts_are_unknown(nan, backend):
    # min = max = 5.0, 10 rows, no NULL: every row is 5.0 or NaN; an impossible nan_count
    # (negative, above row_count) must not be read as "no NaN" nor as "all NaN".
    schema = pa.schema([("f", pa.float64())])
    table = pa.table({"row_count": [10], "f": stats([5.0], [5.0], [0], nan_count=[nan])})
    for sql in ("f = 5", "f < 10", "isnan(f)", "NOT isnan(f)", f"f = {NAN_SQL}", "f <> 5"):
        assert outcomes(sql, schema, table, backend) == [MAYBE], sql
    assert outcomes("f >= 5", schema, table, backend) == [ALL]  # 5.0 and NaN both >= 5


@pytest.mark.parametrize("backend", BACKENDS)
def test_nan_bounds_where_bounds_exclude_nan(backend):
    schema = pa.schema([("f", pa.float64())])
    table = pa.table({"row_count": [10, 10, 10], "f": stats(
        [NAN, NAN, 1.0], [NAN, 5.0, NAN], [0, 0, 0], nan_count=[0, None, 0])})
    # Both bounds NaN: both unknown; a NaN min: unknown min; a NaN max: unknown max.
    assert outcomes("f = 3", schema, table, backend) == [MAYBE, MAYBE, MAYBE]
    assert outcomes("f < 0", schema, table, backend) == [MAYBE, MAYBE, NONE]
    assert outcomes("f > 6", schema, table, backend) == [MAYBE, MAYBE, MAYBE]


@pytest.mark.parametrize("backend", BACKENDS)
def test_nan_min_above_numeric_max_where_bounds_include_nan(backend):
    schema = pa.schema([("f", pa.float64())])
    table = pa.table({"row_count": [10], "f": stats([NAN], [5.0], [0])})
    for sql in ("f = 5", "isnan(f)", f"f = {NAN_SQL}", "f < 3"):
        assert outcomes(sql, schema, table, backend, nan_bounds="include") == [MAYBE], sql


# ---- counts and bounds beyond what the kernels can read (fixed in kernels/inputs.py) -----------
@pytest.mark.parametrize("backend", BACKENDS)
def test_uint64_counts_compare_exactly(backend):
    # 2**53 NULLs of 2**53 + 1 rows: one row is not NULL. In float64 (how NumPy and Numba compare
    # uint64 with int64) the two counts are equal and the container looked all NULL.
    big = 2**53
    schema = pa.schema([("x", pa.int64())])
    for rc_type, nc_type in ((pa.uint64(), pa.int64()), (pa.int64(), pa.uint64()),
                             (pa.uint64(), pa.uint64())):
        beyond = U64_MAX if rc_type == pa.uint64() else -1
        table = pa.table({"row_count": pa.array([big + 1, big, beyond, 10], rc_type),
                          "x": struct(min=pa.array([1, 1, 1, 1]), max=pa.array([1, 1, 1, 1]),
                                      null_count=pa.array([big, big, big, U64_MAX
                                                           if nc_type == pa.uint64() else -1],
                                                          nc_type))})
        # big + 1 rows, big NULLs: mixed; big of big: all NULL; row_count beyond int64 and a
        # null_count beyond int64 (or negative): unknown.
        assert outcomes("x IS NOT NULL", schema, table, backend) == [
            MAYBE, NONE, MAYBE, MAYBE], (rc_type, nc_type)
        assert outcomes("x IS NULL", schema, table, backend) == [MAYBE, ALL, MAYBE, MAYBE]
        assert outcomes("x = 1", schema, table, backend) == [MAYBE, NONE, MAYBE, MAYBE]


@pytest.mark.parametrize("backend", BACKENDS)
def test_uint64_nan_count(backend):
    schema = pa.schema([("f", pa.float64())])
    table = pa.table({"row_count": [10, 10, 2**53 + 1], "f": struct(
        min=pa.array([5.0, 5.0, 5.0]), max=pa.array([5.0, 5.0, 5.0]),
        null_count=pa.array([0, 0, 0]), nan_count=pa.array([0, U64_MAX, 2**53], pa.uint64()))})
    assert outcomes("f = 5", schema, table, backend) == [ALL, MAYBE, MAYBE]
    assert outcomes("isnan(f)", schema, table, backend) == [NONE, MAYBE, MAYBE]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("column_type", [pa.float64(), pa.float32(), pa.float16()], ids=str)
def test_float16_statistics(column_type, backend):
    # Numba has no float16: half-float bounds (exact in float64) used to raise a raw
    # NotImplementedError from Numba.
    h = [np.float16(v) for v in (1.0, 6.0, NAN, 0.0)]
    hi = [np.float16(v) for v in (2.0, 7.0, 9.0, -0.0)]
    table = pa.table({"row_count": [10] * 4, "f": struct(
        min=pa.array(np.array(h, np.float16)), max=pa.array(np.array(hi, np.float16)),
        null_count=pa.array([0] * 4), nan_count=pa.array([0] * 4))})
    schema = pa.schema([("f", column_type)])
    for sql, expected in (("f > 5", [NONE, ALL, MAYBE, NONE]),
                          ("f = -0.0", [NONE, NONE, MAYBE, ALL])):
        got = outcomes(sql, schema, table, backend)
        if column_type == pa.float16():  # a float16 column need not be supported: sound only
            assert all(g in (e, MAYBE) for g, e in zip(got, expected, strict=True)), got
        else:
            assert got == expected, (sql, got)


def _decimal_words(values: list[int | None], t: pa.DataType) -> pa.Array:
    """decimal128 from raw unscaled 128-bit integers, precision not checked (as a foreign
    writer could hand over)."""
    words = []
    for v in values:
        v = 0 if v is None else v
        words += [v & (2**64 - 1), (v >> 64) & (2**64 - 1)]
    validity = None
    if None in values:
        validity = pa.py_buffer(np.packbits([v is not None for v in values],
                                            bitorder="little").tobytes())
    data = pa.py_buffer(np.array(words, np.uint64).tobytes())
    return pa.Array.from_buffers(t, len(values), [validity, data])


@pytest.mark.parametrize("backend", BACKENDS)
def test_decimal_bounds_beyond_their_precision_are_unknown(backend):
    # decimal(10, 0) bounds of 2**64 + 5 and -2**64: the kernel reads a decimal of precision
    # <= 18 from its low 64 bits, which would have read them as 5 and 0.
    t = pa.decimal128(10, 0)
    maxs = _decimal_words([2**64 + 5, 9, 9, None, 10**15], t)
    mins = _decimal_words([0, -2**64, 1, 0, 1], t)
    with pytest.raises(pa.ArrowInvalid):
        maxs.validate(full=True)
    table = pa.table({"row_count": [10] * 5, "d": struct(min=mins, max=maxs,
                                                         null_count=pa.array([0] * 5))}
                     ).slice(0)
    schema = pa.schema([("d", t)])
    # Container 4: 10**15 is beyond precision 10 but an exact int64: still an upper bound.
    assert outcomes("d > 10", schema, table, backend) == [MAYBE, NONE, NONE, MAYBE, MAYBE]
    assert outcomes("d < 1", schema, table, backend) == [MAYBE, MAYBE, NONE, MAYBE, NONE]
    assert outcomes("d <= 9", schema, table, backend) == [MAYBE, ALL, ALL, MAYBE, MAYBE]
    sliced = table.slice(1)  # the same at a nonzero offset
    assert outcomes("d > 10", schema, sliced, backend) == [NONE, NONE, MAYBE, MAYBE]


# ---- shapes: lengths, zero containers, chunks, slices, missing and mistyped statistics -------
def test_from_numpy_lengths_that_disagree():
    good = np.array([1, 2, 3])
    variants = {
        "masked min": {"min": np.ma.masked_array([1, 2], mask=[0, 1]), "max": good,
                       "null_count": good},
        "arrow max": {"min": good, "max": pa.array([1, 2, 3, 4]), "null_count": good},
        "nan_count": {"min": good * 1.0, "max": good * 1.0, "null_count": good,
                      "nan_count": np.array([0])},
        "flags": {"min": good, "max": good, "null_count": good,
                  "min_exact": np.array([True] * 5)},
    }
    for name, columns in variants.items():
        for row_count in (np.array([9, 9, 9]), None):
            with pytest.raises(pk.StatisticsError, match="length") as info:
                pk.Statistics.from_numpy(row_count=row_count, columns={"x": columns})
            assert "x." in str(info.value), (name, str(info.value))


EMPTY_SCHEMA = pa.schema([("x", pa.int64()), ("s", pa.string()), ("b", pa.bool_())])


def _empty_tables() -> dict:
    full = pa.table({"row_count": [10], "x": stats([1], [2], [0]),
                     "s": stats(["a"], ["b"], [0]), "b": stats([True], [True], [0], pa.bool_())})
    return {
        "no rows": full.slice(0, 0), "sliced past the end": full.slice(1),
        "no batches": pa.Table.from_batches([], full.schema),
        "empty batches": pa.Table.from_batches(
            [pa.RecordBatch.from_pylist([], schema=full.schema)] * 3),
        "row_count only": pa.table({"row_count": pa.array([], pa.int64())}),
        "record batch": pa.record_batch({"row_count": pa.array([], pa.int64())}),
        "from_numpy": pk.Statistics.from_numpy(row_count=np.array([], np.int64), columns={
            "x": {"min": np.array([], np.int64), "max": np.array([], np.int64),
                  "null_count": np.array([], np.int64)}}),
    }


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(_empty_tables()))
def test_zero_containers(name, backend):
    table = _empty_tables()[name]
    for sql in ("x > 5", "s LIKE 'a%' OR b", "x IN (1, 2, 3) AND s IS NULL"):
        pred = pk.PruningPredicate(sql, EMPTY_SCHEMA)
        got = pred.classify(table, backend=backend)
        assert isinstance(got, np.ndarray) and got.dtype == np.int8 and got.shape == (0,)
        pruned = pred.prune(table)
        assert pruned.dtype == np.bool_ and pruned.shape == (0,)


LAYOUT_SCHEMA = pa.schema([("x", pa.int64()), ("s", pa.string()), ("b", pa.bool_()),
                           ("d", pa.decimal128(10, 2)), ("w", pa.decimal128(38, 0)),
                           ("f", pa.float64())])
LAYOUT_PREDICATES = ["x > 5", "s >= 'm'", "b", "d < 1.5", "w = 7", "f <= 0",
                     "x > 5 AND s >= 'm' AND NOT b", "d < 1.5 OR w = 7 OR f > 0"]


@pytest.fixture(scope="module")
def layout_example() -> strat.Example:
    """41 containers of random rows (NULLs included) and their exact statistics."""
    rng = np.random.default_rng(3)
    words = ["", "a", "m", "ma", "z", "\U0001f980"]

    def cells(draw):
        k = int(rng.integers(0, 4))
        return [None if rng.random() < 0.15 else draw() for _ in range(k)]

    n = 41
    columns = {
        "x": (pa.int64(), [cells(lambda: int(rng.integers(0, 10))) for _ in range(n)]),
        "s": (pa.string(), [cells(lambda: words[rng.integers(0, 6)]) for _ in range(n)]),
        "b": (pa.bool_(), [cells(lambda: bool(rng.random() < 0.5)) for _ in range(n)]),
        "d": (pa.decimal128(10, 2), [cells(lambda: D(int(rng.integers(0, 300))).scaleb(-2))
                                     for _ in range(n)]),
        "w": (pa.decimal128(38, 0), [cells(lambda: D(int(rng.integers(5, 9))))
                                     for _ in range(n)]),
        "f": (pa.float64(), [cells(lambda: float(rng.choice([-1.0, -0.0, 0.0, 2.0, NAN])))
                             for _ in range(n)]),
    }
    sizes = [len(c) for c in columns["x"][1]]
    for name in columns:  # the same number of rows per container in every column
        t, per = columns[name]
        columns[name] = (t, [(c + [None] * k)[:k] for c, k in zip(per, sizes, strict=True)])
    return strat.exact_example(columns, C("x") > 5)


def _rebuilt_with_offsets(table: pa.Table, lead: int, child_lead: int) -> pa.Table:
    """The same statistics, each struct at offset ``lead`` over children at ``child_lead``
    (neither a multiple of 8), with the struct's own validity bitmap sliced too."""
    out = {}
    for name in table.column_names:
        col = table.column(name).combine_chunks()
        if not pa.types.is_struct(col.type):
            out[name] = pa.concat_arrays([pa.nulls(lead, col.type), col]).slice(lead)
            continue
        kids = []
        for i in range(col.type.num_fields):
            child = col.field(i)
            pad = pa.nulls(lead + child_lead, child.type)
            kids.append(pa.concat_arrays([pad, child]).slice(child_lead))
        mask = pa.array([True] * lead + [not v for v in col.is_valid().to_pylist()])
        names = [col.type.field(i).name for i in range(col.type.num_fields)]
        out[name] = pa.StructArray.from_arrays(kids, names, mask=mask).slice(lead)
    return pa.table(out)


def _layouts(table: pa.Table) -> dict:
    n = table.num_rows
    empty = pa.RecordBatch.from_pylist([], schema=table.schema)
    cuts = [0, 0, 1, 1, 4, 4, 11, 12, 12, 30, n, n]  # empty chunks included
    batches = []
    for a, z in zip(cuts, cuts[1:], strict=False):
        batches += table.slice(a, z - a).to_batches() or [empty]
    chunked = pa.Table.from_batches(batches, table.schema)
    assert any(b.num_rows == 0 for b in chunked.to_batches())
    return {
        "plain": (table, slice(None)),
        "chunked with empty chunks": (chunked, slice(None)),
        "one container per chunk": (pa.Table.from_batches(table.to_batches(max_chunksize=1)),
                                    slice(None)),
        "sliced at 3": (table.slice(3), slice(3, None)),
        "sliced 9..22": (table.slice(9, 13), slice(9, 22)),
        "offsets 5 over 3": (_rebuilt_with_offsets(table, 5, 3), slice(None)),
        "offsets 13 over 7, then sliced": (_rebuilt_with_offsets(table, 13, 7).slice(2),
                                           slice(2, None)),
        "columns chunked differently": (pa.table({
            name: pa.chunked_array(
                [table.column(name).combine_chunks().slice(a, z - a)
                 for a, z in zip(c, c[1:], strict=False)])
            for name, c in zip(table.column_names, [[0, 7, n], [0, 3, 3, n], [0, n],
                                                    [0, 20, 21, n], [0, 1, n], [0, 9, n],
                                                    [0, 40, n]], strict=False)}),
            slice(None)),
    }


@pytest.mark.parametrize("sql", LAYOUT_PREDICATES)
def test_chunked_and_sliced_statistics(layout_example, sql):
    example = layout_example
    pred = pk.PruningPredicate(sql, example.schema)
    base_table = example.table
    example.predicate = pred.expression
    base = assert_sound(example, sql, "numpy")
    assert set(base) >= {NONE, MAYBE}, base  # the predicate really prunes here
    for name, (table, part) in _layouts(base_table).items():
        assert table.num_rows == len(base[part]), name
        for backend in tiers.backends():
            got = pred.classify(table, backend=backend).tolist()
            assert got == base[part], f"{name} ({backend}): {got} != {base[part]}"


@pytest.mark.parametrize("backend", BACKENDS)
def test_column_without_statistics_is_unknown(backend):
    # The API (kernels/inputs.py) reads a column that has no statistics struct as every
    # statistic unknown: MAYBE for non-empty containers; the other columns still prune.
    schema = pa.schema([("x", pa.int64()), ("nostats", pa.int64())])
    table = pa.table({"row_count": [10, 10, 0, None], "x": stats([0, 6, 0, 0], [4, 9, 9, 9],
                                                                   [0, 0, 0, 0])})
    assert outcomes("nostats > 5", schema, table, backend) == [MAYBE, MAYBE, NONE, MAYBE]
    assert outcomes("nostats IS NULL", schema, table, backend) == [MAYBE, MAYBE, NONE, MAYBE]
    assert outcomes("x > 5 AND nostats = 1", schema, table, backend) == [
        NONE, MAYBE, NONE, MAYBE]
    assert outcomes("x > 5 OR nostats = 1", schema, table, backend) == [
        MAYBE, ALL, NONE, MAYBE]
    assert pk.PruningPredicate("nostats > 5", schema).required_columns == {
        "nostats": ("max", "min", "null_count")}
    # A statistics column the schema does not name is ignored.
    extra = table.append_column("unrelated", stats([1] * 4, [2] * 4, [0] * 4))
    assert outcomes("x > 5", schema, extra, backend) == [NONE, ALL, NONE, MAYBE]


# Naive timestamp bounds at another unit are converted, not refused
# (tests/kernels/test_inputs.py).
WRONG_TYPES = [  # column type, statistics type, min, max, predicate
    (pa.timestamp("us"), pa.timestamp("us", "UTC"), 0, 10,
     "t > TIMESTAMP_NTZ '2020-01-01 00:00:00'"),
    (pa.timestamp("us", "UTC"), pa.timestamp("us", "Europe/Paris"), 0, 10,
     "t > TIMESTAMP '2020-01-01 00:00:00'"),
    (pa.decimal128(10, 0), pa.int64(), 0, 1, "t > 5"),
    (pa.int64(), pa.decimal128(18, 0), D(0), D(1), "t > 5"),
    (pa.date32(), pa.date64(), 0, 86_400_000, "t > DATE '2021-01-01'"),
    (pa.int64(), pa.bool_(), False, True, "t > 5"),
    (pa.bool_(), pa.int64(), 0, 1, "t"),
    (pa.decimal128(38, 0), pa.string(), "1", "2", "t > 5"),
    (pa.string(), pa.decimal128(38, 0), D(1), D(2), "t > 'a'"),
    (pa.uint64(), pa.uint32(), 1, 2, "t > 5"),
    (pa.int64(), pa.time64("us"), 0, 1, "t > 5"),
    (pa.int64(), pa.duration("s"), 0, 1, "t > 5"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("column", "stat", "lo", "hi", "sql"), WRONG_TYPES,
                         ids=[f"{w[0]} with {w[1]}" for w in WRONG_TYPES])
def test_statistics_type_contradicts_schema(column, stat, lo, hi, sql, backend):
    # Each must be a clear StatisticsError naming the column and both types (reading the
    # values as the column's type would misplace every bound).
    table = pa.table({"row_count": [10], "t": stats([lo], [hi], [0], stat)})
    with pytest.raises(pk.StatisticsError) as info:
        pk.PruningPredicate(sql, pa.schema([("t", column)])).classify(table, backend=backend)
    message = str(info.value)
    assert "'t'" in message and str(stat) in message and str(column) in message, message


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("column", "stat", "lo", "hi", "sql", "expected"), [
    (pa.int64(), pa.uint32(), [0, 6], [2**32 - 1, 9], "t > 5", [MAYBE, ALL]),
    (pa.int8(), pa.int64(), [-1000, 6], [1000, 9], "t > 5", [MAYBE, ALL]),
    (pa.string(), pa.string_view(), ["a", "n"], ["b", "z"], "t >= 'm'", [NONE, ALL]),
    (pa.string(), pa.binary_view(), [b"a", b"n"], [b"b", b"z"], "t >= 'm'", [NONE, ALL]),
    (pa.string(), pa.large_binary(), [b"a", b"n"], [b"b", b"z"], "t >= 'm'", [NONE, ALL]),
    (pa.binary(), pa.string(), ["a", "n"], ["b", "z"], "t >= X'6D'", [NONE, ALL]),
    (pa.float32(), pa.float64(), [0.5, 6.0], [1.5, 9.0], "t > 5", [NONE, ALL]),
    (pa.int64(), pa.null(), [None, None], [None, None], "t > 5", [MAYBE, MAYBE]),
    # DECIMAL bounds are values: read as the column's DECIMAL where they are one, else unknown
    # (1.005 is no DECIMAL(10, 2)); never rounded.
    (pa.decimal128(10, 2), pa.decimal128(10, 3), [D("1.000"), D("1.005")],
     [D("2.000"), D("9.000")], "t > 5", [NONE, MAYBE]),
    (pa.decimal128(10, 2), pa.decimal128(12, 2), [D("1.00"), D("6.00")],
     [D("2.00"), D("9999999999.00")], "t < 7.5", [ALL, MAYBE]),
    (pa.decimal128(38, 2), pa.decimal128(10, 2), [D("1.00"), D("6.00")], [D("2.00"), D("7.00")],
     "t > 5", [NONE, ALL]),
], ids=str)
def test_statistics_type_differs_but_orders_the_same(column, stat, lo, hi, sql, expected,
                                                     backend):
    table = pa.table({"row_count": [10, 10], "t": stats(lo, hi, [0, 0], stat,
                                                        nan_count=[0, 0])})
    assert outcomes(sql, pa.schema([("t", column)]), table, backend) == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_unknown_exactness_reads_alike_in_any_batch(backend):
    # A NULL min_exact is unknown, so not exact, whether or not the rest of its batch is NULL
    # too (Spark hands prunekit batches of 10,000 containers: each must answer as the table).
    def table(flags):
        k = len(flags)
        x = pa.StructArray.from_arrays(
            [pa.array([5] * k), pa.array([5] * k), pa.array([0] * k, pa.int64()),
             pa.array(flags, pa.bool_()), pa.array([True] * k)],
            ["min", "max", "null_count", "min_exact", "max_exact"])
        return pa.table({"row_count": pa.array([10] * k, pa.int64()), "x": x})

    pred = pk.PruningPredicate("x = 5", {"x": pa.int64()})
    alone = pred.classify(table([None]), backend=backend).tolist()
    mixed = pred.classify(table([None, True]), backend=backend).tolist()
    assert alone == [MAYBE] and mixed == [MAYBE, ALL]
