"""Print the latest asv run as one table: per query and size, classify against its baselines.

    python -m benchmarks.summary [results.json]

Ratios come from one run (one results file): ``floor x`` is classify / floor (target <= 1.5),
``pyarrow x`` and ``numpy x`` are baseline / classify (target >= 3 for pyarrow). The
``interleaved`` columns are the ``Ratios.track_*`` benchmarks (best of k, alternating calls in
one process), the ones to trust on a noisy machine.
"""

from __future__ import annotations

import glob
import itertools
import json
import math
import os
import sys

RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       ".asv", "results")


def latest(results_dir: str = RESULTS) -> str:
    files = [f for f in glob.glob(os.path.join(results_dir, "*", "*.json"))
             if os.path.basename(f) != "machine.json"]
    if not files:
        raise SystemExit(f"no asv results under {results_dir}: run `make bench` first")
    return max(files, key=os.path.getmtime)


def load(path: str) -> dict:
    """benchmark name -> {param tuple: value} (None where failed or skipped)."""
    with open(path) as f:
        data = json.load(f)
    columns = data["result_columns"]
    out = {}
    for name, row in data["results"].items():
        entry = dict(zip(columns, row, strict=False))
        values, params = entry.get("result"), entry.get("params") or []
        if values is None:
            continue
        keys = list(itertools.product(*params)) if params else [()]
        out[name] = {tuple(_unquote(p) for p in k): _num(v)
                     for k, v in zip(keys, values, strict=False)}
    return out


def _unquote(p: str) -> str:
    return p[1:-1] if len(p) > 1 and p[0] == p[-1] and p[0] in "'\"" else p


def _num(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else v


def _ms(v) -> str:
    return "-" if v is None else f"{1e3 * v:.1f}"


def _x(a, b) -> str:
    return "-" if a is None or b is None or not b else f"{a / b:.2f}"


def _r(v) -> str:
    return "-" if v is None else f"{v:.2f}"


def table(results: dict) -> str:
    get = lambda name: results.get(name, {})  # noqa: E731
    classify = get("bench_classify.Classify.time_classify")
    floor = get("bench_classify.Floor.time_floor")
    floor_t = get("bench_classify.Floor.time_floor_threads")
    cached = get("bench_classify.ClassifyCached.time_classify_cached")
    pyarrow = get("bench_classify.PyArrow.time_pyarrow_compute")
    numpy = get("bench_classify.NumPy.time_numpy")
    r_floor = get("bench_classify.Ratios.track_classify_over_floor")
    r_pa = get("bench_classify.Ratios.track_pyarrow_over_classify")
    peak = get("bench_classify.PeakMemory.peakmem_classify")
    extra = get("bench_classify.PeakMemory.track_classify_extra_peak_mb")
    head = (f"{'N':>10} {'query':5} {'classify ms':>11} {'floor ms':>9} {'floor x':>8} "
            f"{'pyarrow x':>9} {'numpy x':>8} | {'interleaved: floor x':>20} "
            f"{'pyarrow x':>9} | {'floor 2T x':>10} {'cached ms':>9}")
    lines = [head, "-" * len(head)]
    for key in sorted(set(classify) | set(r_floor), key=lambda k: (int(k[0]), k[1])):
        c = classify.get(key)
        lines.append(
            f"{int(key[0]):>10,} {key[1]:5} {_ms(c):>11} {_ms(floor.get(key)):>9} "
            f"{_x(c, floor.get(key)):>8} {_x(pyarrow.get(key), c):>9} "
            f"{_x(numpy.get(key), c):>8} | {_r(r_floor.get(key)):>20} {_r(r_pa.get(key)):>9}"
            f" | {_x(c, floor_t.get(key)):>10} {_ms(cached.get(key)):>9}")
    lines.append("targets: floor x <= 1.5, pyarrow x >= 3 (per query, 1M and 10M). "
                 "floor 2T x: classify / floor on all cores (classify splits large batches over "
                 "threads); cached: repeated classify on one Statistics (string codes kept)")
    if peak:
        lines.append("")
        lines.append("peak memory at 10M (process RSS incl. statistics / extra during classify):")
        for key in sorted(peak, key=lambda k: k[1]):
            total, more = peak.get(key), extra.get(key)
            lines.append(f"  {key[1]}: {'-' if total is None else f'{total / 2**20:.0f} MB'}"
                         f" / {'-' if more is None else f'{more:.0f} MB'}")
    prune = get("bench_classify.Prune.time_prune")
    r_prune = get("bench_classify.Ratios.track_prune_over_floor")
    keeps = [(peer, get(f"bench_classify.Ratios.track_{peer}_keep_over_prune"))
             for peer in ("pyarrow", "polars", "duckdb")]
    if prune or r_prune:
        lines.append("")
        head = (f"{'N':>10} {'query':5} {'prune ms':>9} {'floor x':>8} | interleaved: "
                + " ".join(f"{peer + ' keep x':>14}" for peer, _ in keeps))
        lines += [head, "-" * len(head)]
        for key in sorted(set(prune) | set(r_prune), key=lambda k: (int(k[0]), k[1])):
            lines.append(f"{int(key[0]):>10,} {key[1]:5} {_ms(prune.get(key)):>9} "
                         f"{_r(r_prune.get(key)):>8} |              "
                         + " ".join(f"{_r(values.get(key)):>14}" for _, values in keeps))
        lines.append("targets: prune floor x (interleaved, against the faster of one and two "
                     "threads) <= 1.2 at 10M, <= 1.5 at 1M; keep x (hand-written keep mask / "
                     "prune) > 1")
    fixed = [(what, get(f"bench_classify.FixedCost.track_{what}_us"))
             for what in ("classify", "prune", "classify_one_statistics")]
    if fixed[0][1]:
        lines.append("")
        lines.append("fixed cost per call (median us; target <= 50 for Q1-Q5 at 1,000):")
        for key in sorted(fixed[0][1], key=lambda k: (int(k[0]), k[1])):
            lines.append(f"  {int(key[0]):>7,} {key[1]:5} " + "  ".join(
                f"{what} {_r(values.get(key))}" for what, values in fixed))
    latency = [
        ("new shape, first result (asv time, 1 sample in --quick)",
         get("bench_latency.NewShape.time_new_shape_first_result"), 1e3, "ms", True),
        ("new shape, first result (median of 3)",
         get("bench_latency.NewShape.track_new_shape_first_result_ms"), 1, "ms", True),
        ("new shape, first compiled result (backend='numba', median of 3)",
         get("bench_latency.NewShape.track_new_shape_compiled_result_ms"), 1, "ms", False),
        ("fresh process, warm cache: import + first classify",
         get("bench_latency.FreshProcess.track_fresh_process_warm_cache_s"), 1, "s", 0.8),
        ("fresh process, cold cache: import + first classify",
         get("bench_latency.FreshProcess.track_fresh_process_cold_cache_s"), 1, "s", None),
        ("fresh process, cold cache: whole process (waits for its compile)",
         get("bench_latency.FreshProcess.track_fresh_process_cold_cache_wall_s"), 1, "s", None),
    ]
    lines.append("")
    lines.append("latency (a new shape in a warm process; a fresh process at 1M containers):")
    for label, values, scale, unit, target in latency:
        for key, v in sorted(values.items()):
            goal_value = target
            if len(key) == 2:  # a new shape: (containers, kind), 100 ms at 1M, 300 at 10M
                what = f"{label} {int(key[0]):,} {key[1]}"
                if target is True:
                    goal_value = 100 if int(key[0]) <= 1_000_000 else 300
            else:
                what = f"{label}{' ' + key[0] if key else ''}"
            shown = "-" if v is None else f"{v * scale:.2f} {unit}"
            goal = (f"   (target <= {goal_value} {unit})" if goal_value not in (None, False)
                    else "")
            lines.append(f"  {what:62} {shown:>10}{goal}")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    path = argv[1] if len(argv) > 1 else latest()
    print(f"asv results: {os.path.relpath(path)}")
    print(table(load(path)))


if __name__ == "__main__":
    main(sys.argv)
