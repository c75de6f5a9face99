"""Spark's types and time, as binding needs them, before any tree exists:

- ``coercion``: Spark's implicit casts per mode (ANSI and legacy): the type both sides of a
  comparison are cast to, an IN list's or CASE's common type, which casts keep a column's order,
  and a literal cast as Spark casts it;
- ``literals``: a literal placed exactly in a column's type (``Exact``, ``Between``,
  ``BelowMin``...), and ``CAST`` of a literal;
- ``text_casts``: Spark's casts of a string to a number, a boolean, a date or a timestamp;
- ``spark_functions``: what each Spark built-in returns (whether a call can be a predicate);
- ``intervals``: interval literals and DATE/TIMESTAMP arithmetic on literals;
- ``engines``: per engine, which constructs of its SQL it computes as Spark does;
- ``arrow_casts``: numbers as DataFusion types and casts them (a list's common type, Arrow's
  casts between DOUBLE and DECIMAL);
- ``zones`` and ``session``: a session time zone as java.time reads it, held during a binding.
"""
