"""Bounds of ``x % c`` and ``pmod(x, c)`` (a constant ``c``) from the bounds of x, as program
steps with the ops every backend has (floor division by a positive constant, products with
constants, sums, min2/max2): the rewriter's facts of ``bound.BRemainder``. A leaf module.

The remainder is monotone only within one block of the divisor: ``pmod(x, c)`` (``c > 0``) over
``[k*c, (k+1)*c - 1]``; Java's ``%`` (the sign of the dividend, ``|c|`` alone matters) over
the values with one quotient rounded toward zero, ``(-(k+1)*|c|, -k*|c|]`` below 0, ``(-|c|,
|c|)`` around it, ``[k*|c|, (k+1)*|c|)`` above. Where x's min and max fall in one block, the
remainder's bounds are theirs, shifted (exact where theirs are); else the general range:
``[0, c-1]`` for pmod, and for ``%`` ``[max(min(lo, 0), 1-|c|), min(max(hi, 0), |c|-1)]``
(the result has x's sign and is no larger than x in size). The two cases meet without a
select: ``diff`` is 0 in one block, else 1, and ``min2(r(lo), g_lo + (1 - diff) * 2|c|)`` is
``r(lo)`` or ``g_lo`` (``g_lo <= r(lo) <= |c| - 1``).

No step overflows int64 for ``2 <= |c| <= 2**61``: ``x`` is split as ``2 * h + e`` (``e`` 0 or
1) so no product reaches beyond ``x`` itself (``floordiv(MIN, 3) * 3`` would).

>>> from prunekit.expr.program.ir import ProgramBuilder
>>> p = ProgramBuilder()
>>> lo, hi, ok = p.load(p.slot("x", "min")), p.load(p.slot("x", "max")), p.const(True)
>>> lo2, hi2, same = remainder_bounds(p, lo, hi, 7, floor=True)
>>> p.steps[same].op
'eq'
"""

from __future__ import annotations

MAX_DIVISOR = 2**61


def floor_parts(p, x: int, a: int) -> tuple[int, int]:
    """Steps for ``(x // a, x mod a)`` (floor division, remainder in ``[0, a-1]``) of an int64
    ``x`` and a constant ``2 <= a <= 2**61``, without an intermediate overflow.

    >>> from prunekit.expr.program.ir import ProgramBuilder
    >>> p = ProgramBuilder()
    >>> q, r = floor_parts(p, p.load(p.slot("x", "min")), 3)
    >>> p.steps[r].op
    'add'
    """
    def c(v: int) -> int:
        return p.const(v)

    h = p.op("floordiv", x, c(2))  # >= -2**62: 2 * h never overflows
    e = p.op("add", x, p.op("mul", h, c(-2)))  # 0 or 1
    qh = p.op("floordiv", h, c(a))
    rh = p.op("add", h, p.op("mul", qh, c(-a)))  # in [0, a-1]; qh * a >= h - a + 1
    y = p.op("add", p.op("mul", rh, c(2)), e)  # in [0, 2a - 1]
    qy = p.op("floordiv", y, c(a))  # 0 or 1
    r = p.op("add", y, p.op("mul", qy, c(-a)))
    return p.op("add", p.op("mul", qh, c(2)), qy), r


def _toward_zero(p, x: int, a: int) -> tuple[int, int]:
    """Steps for the quotient rounded toward zero and Java's remainder (x's sign)."""
    one, zero = p.const(1), p.const(0)
    q, r = floor_parts(p, x, a)
    negative = p.op("min2", one, p.op("max2", zero, p.op("mul", q, p.const(-1))))  # x < 0
    shifted = p.op("min2", negative, p.op("min2", one, r))  # x < 0 and not a multiple of a
    return p.op("add", q, shifted), p.op("add", r, p.op("mul", shifted, p.const(-a)))


def remainder_bounds(p, lo: int, hi: int, divisor: int, floor: bool) -> tuple[int, int, int]:
    """Steps for ``(lo', hi', same)``: bounds of ``pmod(x, divisor)`` (``floor``, a positive
    divisor) or of ``x % divisor`` (Java's remainder) for x in ``[lo, hi]`` (both known), and
    whether lo and hi share a block (the bounds are then exact where x's are)."""
    a = abs(divisor)
    c = p.const
    lo, hi = p.op("toint", lo), p.op("toint", hi)  # in int64, whatever the column's width
    if floor:
        (q_lo, r_lo), (q_hi, r_hi) = floor_parts(p, lo, a), floor_parts(p, hi, a)
        g_lo, g_hi = c(0), c(a - 1)
    else:
        (q_lo, r_lo), (q_hi, r_hi) = _toward_zero(p, lo, a), _toward_zero(p, hi, a)
        g_lo = p.op("max2", p.op("min2", lo, c(0)), c(1 - a))
        g_hi = p.op("min2", p.op("max2", hi, c(0)), c(a - 1))
    diff = p.op("add", q_hi, p.op("mul", q_lo, c(-1)))
    apart = p.op("min2", c(1), p.op("max2", diff, p.op("mul", diff, c(-1))))  # 0 or 1
    together = p.op("add", c(1), p.op("mul", apart, c(-1)))  # 1 - apart
    lo_out = p.op("min2", r_lo, p.op("add", g_lo, p.op("mul", together, c(2 * a))))
    hi_out = p.op("max2", r_hi, p.op("add", g_hi, p.op("mul", together, c(-2 * a))))
    return lo_out, hi_out, p.eq(q_lo, q_hi)
