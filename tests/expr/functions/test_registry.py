"""The table of function rules (``prunekit.expr.binding.functions.RULES``): every rule is
drawn by the property tests' generator, so its soundness is checked against the reference evaluator,
and every rule's own example is used for pruning, as explain() shows."""

import re

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample

import prunekit as pk
from prunekit.expr.binding.functions import RULES
from prunekit.expr.syntax import nodes as n
from tests.support import strategies as strat


def test_every_rule_is_drawn_by_the_property_tests(without_local_constants, examples):
    """The property tests' generator draws a call of every function among its first
    ``examples`` calls (``strategies.function_calls``, the calls it puts in predicates): one
    search (derandomized, not shrunk) that stops once every rule has been drawn."""
    drawn: set[str] = set()

    def all_seen(call) -> bool:
        drawn.update(x.name for x in call.walk() if isinstance(x, n.Func))
        return set(RULES) <= drawn

    try:
        find(strat.function_calls(), all_seen,
             settings=settings(max_examples=examples, database=None, derandomize=True,
                               phases=[Phase.generate], suppress_health_check=list(HealthCheck)))
    except NoSuchExample:
        pass  # some rule was never drawn: named below
    assert set(RULES) - drawn == set(), f"not drawn in {examples} calls"


@pytest.mark.parametrize("name", sorted(RULES))
def test_every_rule_prunes_its_example(name):
    rule = RULES[name]
    text = pk.PruningPredicate(rule.example, pa.schema(list(rule.columns))).explain()
    assert "not used for pruning" not in text and "not monotone" not in text, text
    column = rule.columns[0][0]
    # the column's own statistics, or the column moved by constant steps (date_add: d + 30)
    assert re.search(rf"may be TRUE:  {column}( [-+*] -?\d+)* has values", text), text
