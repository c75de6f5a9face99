"""``classify_dataframe(..., engine="sql")``: the statistics program as Spark columns.

Steps shared by several others (a column's facts, a node's bits) become hidden columns, one
projection per dependency level, so the SQL grows with the program instead of with the number
of paths through it; Spark keeps such projections apart (CollapseProject does not duplicate
expressions) and code-generates each.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from . import to_sql as S
from ._spark import F


def classify_with_sql(stats_df, pred, *, nan_bounds: str | Mapping[str, str] = "exclude",
                      no_nan: Iterable[str] = (), column: str = "outcome"):
    """``stats_df`` with ``column`` computed by Spark from the program's SQL."""
    program = pred.program
    shared = S.shared_steps(program)
    last = len(program.steps) - 1
    taken = set(stats_df.columns)
    names: dict[int, str] = {}
    defs: list[tuple[int, str]] = []

    def name(i: int, text: str) -> str | None:
        if i not in shared or i == last:
            return None
        base = f"__prunekit_s{i}"
        while base in taken:
            base += "_"
        names[i] = base
        defs.append((i, text))
        return S.quote(base)

    texts = S.render_steps(program, S.present_fields(stats_df.schema),
                           S.nan_modes(program, nan_bounds), no_nan, name)
    # Level of each step: 1 + the deepest named step it reads (named steps are columns).
    level = [0] * len(program.steps)
    for i, step in enumerate(program.steps):
        if step.op in S.LEAF_OPS:
            continue
        deep = max((level[j] for j in step.args), default=0)
        level[i] = deep + 1 if i in names else deep
    out = stats_df
    by_level: dict[int, list] = {}
    for i, text in defs:
        by_level.setdefault(level[i], []).append(F.expr(text).alias(names[i]))
    for lv in sorted(by_level):
        out = out.select("*", *by_level[lv])
    out = out.withColumn(column, F.expr(texts[-1]))
    return out.drop(*names.values()) if names else out
