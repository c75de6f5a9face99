"""A tree bound to a schema: names resolved, every comparison typed as Spark types it, each
function rewritten into a predicate on its column (``functions/``):

- ``bind``: the fold from a tree to a bound tree; ``bound``: the bound tree's classes and
  ``BoundVisitor``;
- the rules it folds with: ``comparisons`` (a comparison per mode, placed exactly),
  ``in_lists``, ``column_pairs``, ``likes`` (LIKE patterns' facts), ``operand_rules`` and
  ``operands`` (values before they are compared), ``applied`` (values a function makes),
  ``arith`` and ``quotient`` (``+ - * /`` on the column side), ``wall_clock`` (wall time in a
  session zone as ranges of instants);
- ``equalities``: conjuncts implied by column equalities;
- ``functions/``: one module per family of Spark functions, a table keyed by name.
"""
