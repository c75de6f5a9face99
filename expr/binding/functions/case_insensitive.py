"""``s ILIKE 'pattern'``: Spark's ``lower(s) LIKE lower('pattern')``, for a pattern of ASCII
characters.

Every match starts with the pattern's literal prefix once lowercased, so it starts with one of
the prefix's spellings: each letter in either case, plus the two characters beyond ASCII that
lowercase to an ASCII letter, ``İ`` (U+0130) to ``i`` and the Kelvin sign (U+212A) to ``k``
(in Java, which Spark's ``lower`` is, and in DuckDB's). The predicate is the OR of a prefix
leaf per spelling, exact where the pattern is a prefix and a ``%`` run and the spelling holds
no ``İ`` (Java lowercases it to two characters, ``i`` and a combining dot; DuckDB to ``i``).
Beyond ``_MAX_SPELLINGS`` spellings the prefix is cut short: still implied, no longer exact.
A pattern with characters beyond ASCII stays unknown: its lowercase depends on the engine's
Unicode tables.

>>> import pyarrow as pa
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.syntax.sql import parse
>>> bind(parse("s ILIKE 'a1%'"), pa.schema([("s", pa.string())]))  # doctest: +NORMALIZE_WHITESPACE
BRewritten(arg=BOr(args=(BPrefix(col=s, prefix=b'a1', exact=True),
    BPrefix(col=s, prefix=b'A1', exact=True))), text="s ILIKE 'a1%'")
"""

from __future__ import annotations

import itertools

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.functions.registry import Rule, register
from prunekit.expr.binding.likes import shape
from prunekit.expr.binding.operands import ColOp, LitOp
from prunekit.expr.domains import is_text

# Characters beyond ASCII whose lowercase is (Java: begins with) an ASCII letter.
_BEYOND_ASCII = {"i": ("\u0130",), "k": ("\u212a",)}
_MAX_SPELLINGS = 64  # an OR of at most this many prefix leaves


def spellings(prefix: str) -> tuple[list[str], bool]:
    """The strings whose lowercase starts as ``prefix`` (lowercase ASCII) does, for as many of
    its characters as ``_MAX_SPELLINGS`` allows, and whether that is all of them.

    >>> spellings("b1")
    (['b1', 'B1'], True)
    >>> len(spellings("k")[0]), spellings("abcdefg")[1]  # k, K and the Kelvin sign; cut short
    (3, False)
    """
    choices: list[tuple[str, ...]] = []
    count = 1
    for ch in prefix:
        options = (ch, ch.upper(), *_BEYOND_ASCII.get(ch, ())) if ch.isalpha() else (ch,)
        if count * len(options) > _MAX_SPELLINGS:
            break
        choices.append(options)
        count *= len(options)
    return ["".join(p) for p in itertools.product(*choices)], len(choices) == len(prefix)


def _ilike(kids: tuple) -> object | None:
    if len(kids) not in (2, 3) or not isinstance(kids[0], ColOp) or kids[0].negated:
        return None
    col = kids[0].col
    pattern = kids[1].value if isinstance(kids[1], LitOp) else None
    escape = kids[2].value if len(kids) == 3 and isinstance(kids[2], LitOp) else "\\"
    if not (isinstance(col, b.BColumn) and is_text(col.type) and isinstance(pattern, str)
            and pattern.isascii() and isinstance(escape, str) and escape.isascii()
            and len(escape) == 1):
        return None
    form = shape(pattern.lower(), escape)  # Spark lowers the pattern, not its escape
    if not form.prefix:
        return None
    spelled, whole = spellings(form.prefix)
    exact = whole and form.kind == "prefix"
    leaves = tuple(b.BPrefix(col, s.encode("utf-8"), exact and "\u0130" not in s)
                   for s in spelled)
    text = f"{col.label()} ILIKE {pattern!r}"
    return b.BRewritten(leaves[0] if len(leaves) == 1 else b.BOr(leaves), text)


register(Rule("ilike", _ilike, "s ILIKE 'ab%'", (("s", pa.string()),)))
