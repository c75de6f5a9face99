"""Column names in Spark SQL text: written bare when they read back as that column, else
backtick-quoted.

>>> quote_identifier("price"), quote_identifier("select"), quote_identifier("a b")
('price', '`select`', '`a b`')
"""

from __future__ import annotations

import functools
import re

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_RESERVED = {"and", "or", "not", "null", "true", "false", "is", "in", "like", "between", "case"}


def quote_identifier(name: str) -> str:
    """Backtick-quote a column name unless it is a plain identifier.

    >>> quote_identifier("x"), quote_identifier("a b"), quote_identifier("a`b")
    ('x', '`a b`', '`a``b`')
    """
    if _PLAIN.match(name) and name.lower() not in _RESERVED:
        if reads_as_column(name):
            return name
    return "`" + name.replace("`", "``") + "`"


@functools.lru_cache(maxsize=4096)  # two parses per name; a query names its columns again
def reads_as_column(name: str) -> bool:
    """Whether ``name`` written bare reads back as that column: not a keyword (``SELECT``),
    not a function without parentheses (``current_date``).

    >>> reads_as_column("price"), reads_as_column("select"), reads_as_column("current_date")
    (True, False, False)
    """
    import sqlglot  # here: a builder predicate never names a column for text, nor loads it
    from sqlglot import exp
    from sqlglot.errors import ParseError, TokenError

    def plain_column(node: object) -> bool:
        return isinstance(node, exp.Column) and not node.table and node.name == name and \
            not node.this.args.get("quoted")

    try:  # alone, and as an operand (INTERVAL and friends read the next token)
        alone = sqlglot.parse_one(name, read="spark")
        compared = sqlglot.parse_one(f"{name} > 0", read="spark")
    except (ParseError, TokenError):
        return False
    return plain_column(alone) and isinstance(compared, exp.GT) and plain_column(compared.this)
