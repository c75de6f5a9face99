"""The table of function rules (``prunekit.expr.functions.RULES``): every rule is drawn by the
property tests' generator, so its soundness is checked against the reference evaluator, and
every rule's own example is used for pruning, as explain() shows."""

import re

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, Phase, find, settings

import prunekit as pk
from prunekit.expr import nodes as n
from prunekit.expr.functions import RULES
from tests import strategies as strat


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RULES))
def test_every_rule_is_drawn_by_the_property_tests(name, without_local_constants):
    """The generator of tests/test_property.py draws a call of the function (a search over at
    most 5,000 of its examples, not shrunk)."""
    found = find(strat.examples(), lambda ex: any(
        isinstance(x, n.Func) and x.name == name for x in ex.predicate.walk()),
        settings=settings(max_examples=5000, database=None, derandomize=True,
                          phases=[Phase.generate], suppress_health_check=list(HealthCheck)))
    assert any(isinstance(x, n.Func) and x.name == name for x in found.predicate.walk())


@pytest.mark.parametrize("name", sorted(RULES))
def test_every_rule_prunes_its_example(name):
    rule = RULES[name]
    text = pk.PruningPredicate(rule.example, pa.schema(list(rule.columns))).explain()
    assert "not used for pruning" not in text and "not monotone" not in text, text
    column = rule.columns[0][0]
    # the column's own statistics, or the column moved by constant steps (date_add: d + 30)
    assert re.search(rf"may be TRUE:  {column}( [-+*] -?\d+)* has values", text), text
