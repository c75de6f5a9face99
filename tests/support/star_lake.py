"""A small star lake for the whole-query tests: ``store_sales`` sorted by its date key in
``FACT_FILES`` files of two row groups, ``date_dim`` and ``item`` in one file each; the fact
table also as a Delta table of as many files."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

FACT_FILES = 12
DAYS = 2 * 365  # 2000 and 2001


def write(root) -> tuple[dict[str, str], str]:
    """(table name -> Parquet folder, the Delta folder of ``store_sales``) under ``root``."""
    rng = np.random.default_rng(4)
    dates = pa.table({"d_date_sk": np.arange(1, DAYS + 1),
                      "d_year": np.repeat([2000, 2001], 365),
                      "d_moy": np.tile(np.repeat(np.arange(1, 13), 31)[:365], 2)})
    items = pa.table({"i_item_sk": np.arange(1, 101),
                      "i_category": [f"c{k % 5}" for k in range(100)]})
    n = 24_000
    sales = pa.table({"ss_sold_date_sk": np.sort(rng.integers(1, DAYS + 1, n)),
                      "ss_item_sk": rng.integers(1, 101, n),
                      "ss_quantity": rng.integers(1, 100, n)})
    for name, table in (("date_dim", dates), ("item", items)):
        os.makedirs(root / name)
        pq.write_table(table, root / name / "part-0.parquet")
    os.makedirs(root / "store_sales")
    per = n // FACT_FILES
    for k in range(FACT_FILES):
        pq.write_table(sales.slice(k * per, per), root / "store_sales" / f"part-{k:02d}.parquet",
                       row_group_size=per // 2)
    from deltalake import write_deltalake

    for k in range(FACT_FILES):
        write_deltalake(str(root / "store_sales_delta"), sales.slice(k * per, per),
                        mode="append")
    return {"date_dim": str(root / "date_dim"), "item": str(root / "item"),
            "store_sales": str(root / "store_sales")}, str(root / "store_sales_delta")
