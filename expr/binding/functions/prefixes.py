"""``left(s, k)`` and ``substring(s, 1, k)``: the first k characters. Byte order is code
point order, and a prefix of k characters is a byte prefix of s, so each comparison with a
literal is one on s itself (a prefix successor where the literal is longer than k).

>>> import pyarrow as pa
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.syntax.sql import parse
>>> bind(parse("left(s, 2) = 'ab'"), pa.schema([("s", pa.string())]))  # doctest: +ELLIPSIS
BRewritten(arg=BAnd(args=(BCompare(col=s, op='ge', value=b'ab'), BNot(arg=BCompare(col=s, \
op='ge', value=b'ac')))), text="left(s, 2) = 'ab'")
"""

from __future__ import annotations

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.applied import Monotone
from prunekit.expr.binding.functions.registry import Rule, register
from prunekit.expr.binding.likes import prefix_successor
from prunekit.expr.binding.operands import ColOp, LitOp
from prunekit.expr.domains import is_text


def _prefix_of(x: ColOp, k: int, label: str) -> object | None:
    """``left(s, k)``: the first k characters. Byte order is code point order, and a prefix of
    k characters is a byte prefix of s, so for a literal m of j characters: ``left(s, k) >= m``
    is ``s >= m`` when j <= k, else ``s >= succ(m[:k])`` (nothing starting with m[:k] reaches
    m); ``left(s, k) > m`` is ``s > m`` when j < k, else ``s >= succ(m[:k])``."""
    col = x.col
    if x.negated or not isinstance(col, b.BColumn) or not is_text(col.type):
        return None
    def chars(m: bytes) -> str:
        return m.decode("utf-8", "surrogatepass")

    def at_least_succ(m: bytes) -> object:
        succ = prefix_successor(chars(m)[:k].encode("utf-8", "surrogatepass"))
        return b.BNonNull(col, False) if succ is None else b.BCompare(col, "ge", succ)

    def ge(m: bytes) -> object:
        if k <= 0:
            return b.BNonNull(col, m == b"")  # '' >= m
        return b.BCompare(col, "ge", m) if len(chars(m)) <= k else at_least_succ(m)

    def gt(m: bytes) -> object:
        if k <= 0:
            return b.BNonNull(col, False)
        return b.BCompare(col, "gt", m) if len(chars(m)) < k else at_least_succ(m)

    return Monotone(label, x, pa.string(), ge, gt)


def _int_literal(x: object) -> int | None:
    if isinstance(x, LitOp) and isinstance(x.value, int) and not isinstance(x.value, bool):
        return x.value
    return None


def _bind(name: str):
    def bind(kids: tuple) -> object | None:
        k = len(kids)
        if not kids or not isinstance(kids[0], ColOp):
            return None
        start = 1 if name == "left" else _int_literal(kids[1]) if k >= 2 else None
        length = _int_literal(kids[-1]) if (name == "left" and k == 2) or k == 3 else None
        if start in (0, 1) and length is not None:  # Spark reads position 0 as 1
            shown = f"{name}({kids[0].col.label()}, " + (
                f"{start}, " if name == "substring" else "") + f"{length})"
            return _prefix_of(kids[0], length, shown)
        if name == "substring" and k == 2 and start in (0, 1) and not kids[0].negated and \
                isinstance(kids[0].col, b.BColumn) and is_text(kids[0].col.type):
            return kids[0]  # the whole string (another type is cast to its text)
        return None

    return bind


_S = (("s", pa.string()),)
register(Rule("left", _bind("left"), "left(s, 2) = 'ab'", _S),
         Rule("substring", _bind("substring"), "substring(s, 1, 2) = 'ab'", _S))
