"""Predicate text and trees, before they meet a schema:

- ``nodes``: the frozen tree SQL text and the Python builder both make, and its builder
  operators; each node class names its kind;
- ``node_visitor``: ``NodeVisitor``, one method per node kind, and ``visit`` (bottom-up,
  iterative); every walk over a tree is one;
- ``sql``: Spark-dialect text to a tree through sqlglot, errors with their position;
- ``dialects``: text of another dialect, kept only where it has Spark's rows, as Spark SQL;
  ``engine_literals`` writes the engine's literals for Spark first (``engine_lists`` an IN
  list or BETWEEN compared in one type), ``portability`` checks each construct against the
  engine's entry, ``engine_operands`` types their operands;
- ``render``: a tree back to Spark SQL; ``identifiers``: names quoted only where needed;
- ``moments``: ``current_date()`` and friends made literals of one instant.
"""
