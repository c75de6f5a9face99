"""Function rules: monotone functions, ``coalesce`` and ``CASE WHEN`` in predicates.

A whitelist, as a table (``registry.RULES``): each rule is one module here that registers
itself, and adding a function is a new module plus its import below. Each function of a
column is rewritten, when compared with a literal, into a predicate on the column itself, so
no kernel op is new: a non-decreasing ``f`` whose every preimage is an interval has ``f(x) >=
m`` exactly when ``x >= A(m)`` for one threshold ``A(m)``, and ``f(x) > m`` exactly when ``x >=
A'(m)``. Every comparison is one of those or its negation
(``f(x) < m`` is ``NOT f(x) >= m``, exact in three-valued logic: f is NULL exactly when x is),
and ``f(x) = m`` is ``f(x) >= m AND NOT f(x) > m``. Inexact bounds of ``x`` stay what they are:
the leaves compare the column, which is what its statistics describe.

==================================== ======================================================
function (Spark)                      ``f(x) >= m`` as a predicate on ``x``
==================================== ======================================================
``year(d)`` (dates, timestamps)       ``d >= m-01-01``
``date_trunc(u, t)``, ``trunc(d, u)`` ``t >= m`` if m starts a u-period, else the next start
``floor(x)`` DOUBLE/FLOAT (BIGINT)    ``x >= m`` (real); NaN rows are 0, ±inf saturate
``ceil(x)``                           ``x > m - 1``
``floor``/``ceil`` of DECIMAL, ints   the same, exactly (integers: ``floor(x)`` is ``x``)
``left(s, k)``, ``substring(s,1,k)``  ``s >= m`` (m of at most k characters), else
                                      ``s >= succ(m[:k])`` (prefix successor, bytes)
``s ILIKE 'p'`` (ASCII p)             an OR of prefixes: each spelling of p's literal prefix
                                      whose lowercase it is (``case_insensitive.py``)
``add_months(d, k)``, ``d + INTERVAL  ``d >= A(m)``, the least day with add_months(d, k) >= m
k MONTH`` (DATE)                      (bisection over day counts)
``unix_seconds(t)``, ``unix_millis``, ``t >= m`` seconds (milliseconds, microseconds);
``unix_micros``, ``unix_timestamp``   ``unix_timestamp`` of a TIMESTAMP rounds toward zero, of a
                                      DATE is its midnight in a fixed-offset session zone
``timestamp_seconds(x)`` (``_millis``, ``x >= ceil(m / 10**6)`` (``10**3``, 1): microseconds
``_micros``; integer x)               (``epoch.py``)
``months_between(d, lit)`` (DATEs),   ``d >= A(m)`` / ``d <= B(m)`` (bisection); a literal at
``months_between(lit, d)``            the end of February breaks the order: unknown
``from_unixtime(x)`` (integer x,      ``A(m) <= x <= X9``: the text's byte order is time order
default format, fixed-offset zone)    in years 0000-9999; beyond them a sign starts the text
``round(x, k)``, ``bround(x, k)``     ``x >= r - 10**-k / 2`` (r: least multiple of 10**-k
                                      >= m; the tie by HALF_UP / HALF_EVEN); integers beyond
                                      their type and DECIMAL beyond 38 digits: anything;
                                      DOUBLE: the doubles next to a tie point: anything
==================================== ======================================================

Not monotone, but with a preimage of at most a few intervals (``absolute.py``):

==================================== ======================================================
``abs(x) op m``                       ``|x|`` in the results accepted, ``[a, b]``: x in
                                      ``[a, b]`` or ``[-b, -a]``; an integer minimum by its
                                      legacy value (itself); NaN by NaN
``sign(x)``, ``signum(x)`` (DOUBLE)   an OR of ``x < 0``, ``x = 0``, ``x > 0``, ``isnan(x)``
``negative(x)``                       ``-x`` (unary minus)
``greatest(a, ...)``, ``least``       ``greatest > m``: ``OR (a_i > m) IS TRUE``, NULL when
                                      every argument is (``extremes.py``)
==================================== ======================================================

``x % c``, ``mod``, ``pmod(x, c)`` (integer x, literal c, ``remainder.py``) are computed in the
program per container: x's bounds shifted where both fall in one block of c, else the
remainder's general range; ``c = 0`` is NULL (legacy mode; ANSI fails the query).

Steps of a column rather than thresholds (``date_shifts``): ``date_add``, ``date_sub``, a DATE
plus a DAY interval and ``datediff`` against a DATE literal move the day count by a constant;
a TIMESTAMP plus a day-time interval moves its ticks; all through ``arith``'s affine
conversion (bounds unknown where a step could overflow). On literals all of them fold.

``coalesce(x, c) op lit`` is ``(x op lit) IS TRUE`` when ``c op lit`` is FALSE, else ``NOT (x op
lit) IS FALSE`` (``x op lit`` is NULL exactly where x is, and there c decides);
and ``CASE WHEN c1 THEN v1 ... ELSE v END op lit`` is ``OR_i (sel_i AND v_i op lit)``, where
``sel_i`` = ``c_i IS TRUE AND NOT c_j IS TRUE (j < i)`` is never NULL (a row takes the first
branch whose condition is TRUE). Both are exact in three-valued logic.

The rules: ``dates`` (year, month, day, hour, minute, second, date_trunc, trunc),
``date_shifts`` (date_add, date_sub, add_months, datediff, interval arithmetic),
``rounding`` (floor, ceil; ``__prunekit_arrow_double``, ``__prunekit_arrow_bigint`` and
``__prunekit_arrow_decimal``: DataFusion's CAST of a wide DECIMAL to DOUBLE and to BIGINT and
of a DOUBLE to DECIMAL, which only its dialect writes), ``halfround`` (round, bround),
``absolute`` (abs, sign, signum, negative), ``extremes`` (greatest, least), ``prefixes``
(left, substring), ``case_insensitive`` (ilike), ``branches`` (coalesce, if), ``epoch``
(unix_seconds, unix_millis, unix_micros, unix_timestamp, timestamp_seconds, timestamp_millis,
timestamp_micros), ``unixtime`` (from_unixtime),
``months`` (months_between), ``remainder`` (%, pmod); the shared ``Monotone`` operand is
``binding.applied``, the comparisons they build on ``binding.comparisons``.

Timestamps: ``year``, ``month``, ``day``, ``hour``, ``minute``, ``second``, ``to_date``,
``trunc`` and ``date_trunc`` of a TIMESTAMP read its wall time in Spark's session time zone
(``bind``'s ``zone``, ``spark_types.session``), as do timestamp literals without an offset.
In a zone other than UTC a threshold on the wall time is a union of a few intervals of
instants, exact across DST (``prunekit.expr.binding.wall_clock``); ``dates`` says which uses are
unknown there (the clock fields in a zone whose offset changes).

>>> sorted(RULES)
['%', '__prunekit_arrow_bigint', '__prunekit_arrow_decimal', '__prunekit_arrow_double', 'abs', \
'add_months', 'bround', 'ceil', 'coalesce', 'date_add', 'date_sub', 'date_trunc', 'datediff', \
'day', 'dayofmonth', 'floor', 'from_unixtime', 'greatest', 'hour', 'if', 'ilike', 'least', \
'left', 'minute', 'month', 'months_between', 'negative', 'pmod', 'round', 'second', 'sign', \
'signum', 'substring', 'timestamp_micros', 'timestamp_millis', 'timestamp_seconds', 'trunc', \
'unix_micros', 'unix_millis', 'unix_seconds', 'unix_timestamp', 'year']
"""

# Each module registers its rules as it is imported.
from . import (absolute, branches, case_insensitive, date_shifts, dates,  # noqa: E402, F401, I001
               epoch, extremes, halfround, months, prefixes, remainder, rounding, unixtime)
from prunekit.expr.binding.functions.registry import RULES, Rule, bind_call, register, why_not

__all__ = ["RULES", "Rule", "bind_call", "register", "why_not"]
