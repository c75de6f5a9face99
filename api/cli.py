"""The ``prunekit`` command line.

``prunekit scan PATH --where SQL [--dialect NAME] [--format table|json] [--explain]
[--show-all] [--plot PNG]``: PATH is a Parquet file, a directory of Parquet files (searched
recursively) or a glob, a Delta table (a directory with ``_delta_log``), or an Iceberg table's
metadata JSON file (``*.metadata.json``; or ``--catalog URI --table NAME`` instead of PATH, for
a table in a SQL catalog; needs the ``iceberg`` extra). A container is a Parquet row group or
a Delta or Iceberg data file. ``--dialect``: the SQL dialect of ``--where``; in
Spark's, a column name in double quotes (a string there) warns, one line on stderr.
The listing shows the containers that must be read (``--show-all``: every container); the
summary counts containers, rows and bytes per outcome: skipped (NONE_MATCH), read without the
filter (ALL_MATCH), read and filtered (MAYBE_MATCH). Bytes are the compressed column chunks
of a row group, or a Delta or Iceberg file's ``size``.

Exit status: 0 on success, 2 on bad input (unknown column, bad SQL, missing path, unreadable
statistics) with one line on stderr.

``--format json`` prints one object, schema version 1 (fields are only ever added)::

    {"version": 1, "path": str, "format": "parquet" | "delta" | "iceberg", "where": str,
     "listed": "kept" | "all",
     "containers": [{"file": str, "row_group": int | null,
                     "outcome": "NONE_MATCH" | "MAYBE_MATCH" | "ALL_MATCH",
                     "rows": int | null, "bytes": int | null}, ...],
     "summary": {"skip" | "read_without_filter" | "read_and_filter" | "total":
                 {"containers": int, "rows": int, "bytes": int,
                  "containers_without_row_count": int}},
     "explain": str | null, "plot": str | null}

``file`` is relative to PATH when PATH is a directory; ``rows`` sums the known row counts.

>>> import os, tempfile, pyarrow as pa, pyarrow.parquet as pq
>>> d = tempfile.mkdtemp()
>>> pq.write_table(pa.table({"x": list(range(8))}), os.path.join(d, "a.parquet"),
...                row_group_size=4)
>>> main(["scan", d, "--where", "x > 5", "--format", "json"])  # doctest: +ELLIPSIS
{"version": 1, ..."summary": {"skip": {"containers": 1, "rows": 4, ...
0
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

import numpy as np
import pyarrow as pa

from prunekit.errors import PrunekitError
from prunekit.expr.syntax.dialects import column_names
from prunekit.sources import parquet

from .predicate import PruningPredicate
from .statistics import Statistics

OUTCOMES = ("NONE_MATCH", "MAYBE_MATCH", "ALL_MATCH")
GROUPS = (("skip", 0, "skip (NONE_MATCH)"),
          ("read_without_filter", 2, "read without filter (ALL_MATCH)"),
          ("read_and_filter", 1, "read and filter (MAYBE_MATCH)"))
JSON_VERSION = 1


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (argparse prints the usage too)
        raise _BadInput(f"{message} (see 'prunekit {self.prog.split()[-1]} --help')"
                        if " " in self.prog else message)


class _BadInput(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    top = _Parser(prog="prunekit", description="Decide which containers of a dataset a query "
                  "can skip, from their statistics alone.")
    sub = top.add_subparsers(dest="command", parser_class=_Parser)
    scan = sub.add_parser("scan", help="classify the row groups or files of a dataset",
                          description=__doc__.split("\n\n")[1])
    scan.add_argument("path", metavar="PATH", nargs="?",
                      help="a Parquet file, directory or glob, a Delta table directory, or "
                      "an Iceberg metadata JSON file")
    scan.add_argument("--catalog", metavar="URI",
                      help="Iceberg: a SQL catalog's database URI (e.g. sqlite:///c.db), "
                      "with --table instead of PATH")
    scan.add_argument("--table", metavar="NAME", help="Iceberg: the table in --catalog "
                      "(namespace.table)")
    scan.add_argument("--where", required=True, metavar="SQL",
                      help="the filter, in Spark SQL (e.g. \"x > 5 AND s LIKE 'ab%%'\")")
    scan.add_argument("--dialect", default="spark", metavar="NAME",
                      help="the SQL dialect of --where (sqlglot's names: spark, duckdb, "
                      "postgres, trino, snowflake, bigquery...; datafusion; default spark)")
    scan.add_argument("--format", choices=("table", "json"), default="table",
                      help="output format (json: schema version 1, see the module docs)")
    scan.add_argument("--explain", action="store_true",
                      help="also print the statistics program, leaf by leaf")
    scan.add_argument("--show-all", action="store_true",
                      help="list every container, skipped ones included")
    scan.add_argument("--bloom", action="store_true",
                      help="Parquet: also read the bloom filters of columns the filter "
                      "compares with = or IN (one more read per row group and column)")
    scan.add_argument("--plot", metavar="PNG",
                      help="also draw the containers' [min, max] of one column, pruned ones "
                      "greyed (needs matplotlib: pip install 'prunekit[plot]')")
    scan.add_argument("--plot-column", metavar="COLUMN",
                      help="the column to draw (default: the first the filter reads)")
    return top


def program() -> int:
    """The ``prunekit`` program (``python -m prunekit``): :func:`main` on ``sys.argv``, in a
    process that runs as if pandas were not installed.

    pyarrow imports pandas, when it is installed, the first time it converts a value, only
    to recognise pandas objects among its arguments: half a second, a third of a one-file
    scan's time. The command line hands pyarrow no pandas object, so its process makes pandas
    unimportable, a setup pyarrow supports. Only here: a process that calls :func:`main`
    itself keeps its pandas (pyarrow remembers the answer for the whole process).
    """
    if "pandas" not in sys.modules:
        sys.meta_path.insert(0, _NoPandas())
    return main()


class _NoPandas:
    """An import hook under which ``import pandas`` fails as if pandas were not installed."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "pandas":
            raise ModuleNotFoundError(f"No module named {name!r} (prunekit's command line "
                                      "runs without pandas)", name=name)
        return None


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
        return _scan(args)
    except SystemExit as e:  # --help
        return e.code if isinstance(e.code, int) else 0
    except BrokenPipeError:  # `prunekit scan ... | head`: the reader left, not an error
        sys.stdout = open(os.devnull, "w")
        return 0
    except (_BadInput, PrunekitError, OSError, pa.ArrowException) as e:
        text = " ".join(str(e).split()) or type(e).__name__
        print(f"prunekit: error: {text}", file=sys.stderr)
        return 2


def _scan(args) -> int:
    path = args.path
    if (args.catalog is None) != (args.table is None) or (args.catalog is None) == (
            path is None):
        raise _BadInput("give PATH, or --catalog URI and --table NAME (not both)")
    # Only the columns the predicate names: a wide table costs what those cost.
    named = column_names(args.where, args.dialect)
    # Each format's reader is imported for its format only: a Parquet scan never loads them.
    if args.catalog is not None or path.endswith(".json"):
        from prunekit.sources import iceberg

        path = path or args.table
        kind, stats = "iceberg", iceberg.statistics(_iceberg_table(args), columns=named)
        table = stats.table
        files = table.column("path").to_pylist()
        groups = [None] * len(files)
        sizes = table.column("size").to_pylist()
    elif os.path.isdir(os.path.join(path, "_delta_log")):  # delta.is_delta_table
        from prunekit.sources import delta

        kind, stats = "delta", delta.statistics(path, columns=named)
        table = stats.table
        files = [_relative(p, path) for p in table.column("path").to_pylist()]
        groups = [None] * len(files)
        sizes = table.column("size").to_pylist()
    else:
        if os.path.isdir(path) and not parquet.parquet_files(path):
            raise _BadInput(f"{path}: no Parquet files and no _delta_log (not a Parquet "
                            "dataset nor a Delta table)")
        # The row groups' bytes come from the same footers, in a column named as no leaf key
        # can be (a dot outside backticks), so no data column clashes with it.
        size_column = "bytes."
        kind, stats = "parquet", parquet.statistics(path, columns=named,
                                                    bytes_column=size_column)
        table = stats.table
        names = table.column("file").to_pylist()
        groups = table.column("row_group").to_pylist()
        sizes = table.column(size_column).to_pylist()
        relative = {p: _relative(p, path) for p in set(names)}  # per file, not per row group
        files = [relative[p] for p in names]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pred = PruningPredicate(args.where, parquet.data_schema(table), dialect=args.dialect)
    for w in caught:  # one line each, before the answer
        print(f"prunekit: warning: {w.message}", file=sys.stderr)
    wanted = [c for c, used in pred.required_columns.items() if "bloom" in used]
    if args.bloom and kind == "parquet" and wanted:
        from prunekit.sources.parquet.bloom import attach_bloom_filters

        stats = Statistics.from_arrow(attach_bloom_filters(table, wanted))
    outcome = pred.classify(stats)
    rows = table.column("row_count").to_pylist()
    listed = range(len(files)) if args.show_all else np.flatnonzero(outcome).tolist()
    report = {
        "version": JSON_VERSION, "path": path, "format": kind, "where": args.where,
        "listed": "all" if args.show_all else "kept",
        "containers": [{"file": files[i], "row_group": groups[i],
                        "outcome": OUTCOMES[outcome[i]], "rows": rows[i], "bytes": sizes[i]}
                       for i in listed],
        "summary": _summary(outcome, rows, sizes),
        "explain": pred.explain() if args.explain else None,
        "plot": _plot(pred, stats, args) if args.plot else None,
    }
    if args.format == "json":
        print(json.dumps(report))
    else:
        print(_render(report, len(set(files))))
    return 0


def _iceberg_table(args):
    """A metadata file's location as it is (read by ``StaticTable``), or a SQL catalog's
    table."""
    if args.catalog is None:
        return args.path
    if args.catalog.startswith("sqlite:///") and not os.path.exists(args.catalog[10:]):
        raise _BadInput(f"{args.catalog}: no such file")  # SQLite would create one
    try:
        import sqlalchemy
        from pyiceberg.catalog.sql import SqlCatalog

        # A SQL catalog keys tables by the catalog's name too: take the one holding the table.
        namespace, _, name = args.table.rpartition(".")
        with sqlalchemy.create_engine(args.catalog).connect() as con:
            names = [r[0] for r in con.execute(sqlalchemy.text(
                "SELECT DISTINCT catalog_name FROM iceberg_tables WHERE table_namespace = :n "
                "AND table_name = :t"), {"n": namespace, "t": name})]
        return SqlCatalog(names[0] if len(names) == 1 else "default",
                          uri=args.catalog).load_table(args.table)
    except ImportError:
        raise _BadInput("--catalog needs pyiceberg: pip install 'prunekit[iceberg]'") from None
    except Exception as e:  # no such table, a database that is no catalog...
        raise _BadInput(f"{args.catalog}: cannot load table {args.table} "
                        f"({type(e).__name__}: {str(e).splitlines()[0]})") from None


def _plot(pred: PruningPredicate, stats, args) -> str:
    from prunekit.plot import plot  # imports matplotlib itself, when called

    types = {f.name: f.type for f in pred.schema} if hasattr(pred.schema, "names") else dict(
        pred.schema)
    drawable = [c for c in pred.required_columns if pa.types.is_integer(types[c]) or
                pa.types.is_floating(types[c]) or pa.types.is_temporal(types[c])]
    column = args.plot_column or (drawable[0] if drawable else None)
    if column is None:
        raise _BadInput("--plot: the filter reads no numeric or temporal column; name one "
                        "with --plot-column")
    try:
        plot(pred, stats, column, path=args.plot)
    except (ImportError, KeyError, TypeError) as e:  # no matplotlib, no such column, a type
        raise _BadInput(f"--plot: {e}") from None
    return args.plot


def _relative(p: str, root: str) -> str:
    if os.path.isdir(root):
        return os.path.relpath(p, root)
    return os.path.basename(p) if os.path.isfile(root) else p


def _summary(outcome: np.ndarray, rows: list, sizes: list) -> dict:
    def total(mask) -> dict:
        idx = np.flatnonzero(mask).tolist()
        return {"containers": len(idx),
                "rows": sum(rows[i] for i in idx if rows[i] is not None),
                "bytes": sum(sizes[i] for i in idx if sizes[i] is not None),
                "containers_without_row_count": sum(rows[i] is None for i in idx)}
    out = {key: total(outcome == code) for key, code, _ in GROUPS}
    out["total"] = total(np.ones(len(outcome), bool))
    return out


def _bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:,} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024
    return str(n)


def _render(report: dict, n_files: int) -> str:
    s = report["summary"]
    n = s["total"]["containers"]
    what = (f"Parquet, {n:,} row groups in {n_files:,} files" if report["format"] == "parquet"
            else f"{report['format'].capitalize()} table, {n:,} data files")
    lines = [f"{report['path']}: {what}", f"where {report['where']}", ""]
    if report["containers"]:
        parquet_ = report["format"] == "parquet"
        head = ("file", "row group", "outcome", "rows", "bytes")
        cells = [(c["file"], "" if c["row_group"] is None else str(c["row_group"]),
                  c["outcome"], "?" if c["rows"] is None else f"{c['rows']:,}",
                  "?" if c["bytes"] is None else _bytes(c["bytes"]))
                 for c in report["containers"]]
        w = [max(len(r[k]) for r in [head, *cells]) for k in range(5)]
        for r in [head, *cells]:
            group = f"  {r[1]:>{w[1]}}" if parquet_ else ""
            lines.append(f"{r[0]:<{w[0]}}{group}  {r[2]:<{w[2]}}  {r[3]:>{w[3]}}  "
                         f"{r[4]:>{w[4]}}")
        lines.append("")
    elif report["listed"] == "kept":
        lines += ["no container can hold a matching row", ""]
    all_ = s["total"]
    label_w = max(len(label) for _, _, label in GROUPS)
    lines.append(f"{'':<{label_w}}  {'containers':>16}  {'rows':>20}  {'bytes':>20}")
    for key, _, label in [*GROUPS, ("total", None, "total")]:
        g = s[key]
        cells = []
        for stat, fmt in (("containers", "{:,}"), ("rows", "{:,}"), ("bytes", None)):
            share = g[stat] / all_[stat] if all_[stat] else 0.0
            text = _bytes(g[stat]) if fmt is None else fmt.format(g[stat])
            cells.append(f"{text} ({share:6.1%})")
        lines.append(f"{label:<{label_w}}  {cells[0]:>16}  {cells[1]:>20}  {cells[2]:>20}")
    if all_["containers_without_row_count"]:
        lines.append(f"({all_['containers_without_row_count']:,} containers have no row "
                     "count; their rows are not counted)")
    if report["explain"] is not None:
        lines += ["", report["explain"]]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(program())
