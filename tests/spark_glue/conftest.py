"""The star lake the whole-query tests read (``tests/support/star_lake.py``), once per module."""

from __future__ import annotations

import pytest

from tests.support import star_lake


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    """(table name -> Parquet folder, the Delta folder of ``store_sales``)."""
    return star_lake.write(tmp_path_factory.mktemp("lake"))
