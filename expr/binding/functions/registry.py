"""The table of function rules: a function prunekit reasons about is one ``Rule`` in
``RULES``, keyed by its Spark name, which bind looks up (``bind_call``). A rule module
registers its rules when the package imports it (``functions/__init__.py``).

>>> "year" in RULES, RULES["year"].example
(True, 'year(d) = 2024')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pyarrow as pa

from prunekit.expr.syntax import nodes as n

# Functions prunekit knows it must not use, with the reason explain() gives.
NOT_MONOTONE = {"lower": "lower is not monotone in byte order",
                "upper": "upper is not monotone in byte order"}


@dataclass(frozen=True)
class Rule:
    """How bind reads ``name(...)``: ``bind(kids)`` gives the bound value of a call from its
    bound arguments (``applied.Monotone``, a column operand, ``branches.Case``...), or None when
    these arguments are not used (the call is then unknown, and explain() says why).
    ``example`` is a predicate over ``columns`` that the rule prunes; the tests run it.

    >>> RULES["year"].example, RULES["year"].columns
    ('year(d) = 2024', (('d', DataType(date32[day])),))
    """

    name: str
    bind: Callable[[tuple], object | None]
    example: str
    columns: tuple[tuple[str, pa.DataType], ...]


RULES: dict[str, Rule] = {}


def register(*rules: Rule) -> None:
    """Add rules to the table; a name has one rule.

    >>> register(RULES["year"])
    Traceback (most recent call last):
    ...
    ValueError: a rule for year() is already registered
    """
    for rule in rules:
        if rule.name in RULES:
            raise ValueError(f"a rule for {rule.name}() is already registered")
        RULES[rule.name] = rule


def bind_call(node: n.Func, kids: tuple) -> object | None:
    """The bound value of a call by its rule, or None (bind makes it unknown).

    >>> from prunekit.expr.binding.operands import LitOp
    >>> bind_call(n.Func("ceil", (LitOp(2.5),)), (LitOp(2.5),)) is None  # no column: unknown
    True
    >>> bind_call(n.Func("my_udf", ()), ()) is None  # no rule
    True
    """
    rule = RULES.get(node.name)
    return None if rule is None else rule.bind(kids)


def why_not(node: n.Func, kids: tuple) -> str:
    """What explain() says about a function call that is not used for pruning.

    >>> why_not(n.Func("lower", (n.col("s"),)), ())
    'lower(s): lower is not monotone in byte order'
    >>> why_not(n.Func("md5", (n.col("x"),)), ())
    'md5(x) is not used for pruning (not on the whitelist of monotone functions)'
    """
    reason = NOT_MONOTONE.get(node.name)
    if reason:
        return f"{node.display()}: {reason}"
    if node.name in RULES:
        return f"{node.display()}: these arguments are not used for pruning (a column and " \
               "constants as the rule needs)"
    return f"{node.display()} is not used for pruning (not on the whitelist of monotone " \
           "functions)"
