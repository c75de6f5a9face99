"""The benchmark workload is deterministic and every benchmark query binds and runs."""

import numpy as np
import pytest

from benchmarks import workload


def test_workload_is_deterministic():
    a, b = workload.statistics(2_000, seed=3), workload.statistics(2_000, seed=3)
    assert a.table.equals(b.table)


@pytest.mark.parametrize("query", sorted(workload.QUERIES))
def test_every_query_runs_and_prunes_something(query):
    stats = workload.statistics(20_000)
    outcome = workload.predicate(query).classify(stats)
    assert len(outcome) == 20_000 and set(np.unique(outcome)) <= {0, 1, 2}
    assert (outcome == 0).any(), f"{query} prunes nothing on the benchmark workload"
