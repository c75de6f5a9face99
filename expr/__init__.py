"""Predicate trees to statistics programs, in stages (each package's ``__init__`` is its map;
a stage imports only the ones before it):

- at the top, what the stages share and the other layers read too: ``paths`` (statistics keys),
  ``domains`` (types and how kernels compare them), ``calendar``, ``resolve`` (column paths
  against a schema), ``remainders`` (the bounds of ``x % c``);
- ``spark_types``: Spark's implicit casts, literal typing and time zones;
- ``syntax``: SQL text and the Python builder to one tree, and back to Spark SQL;
- ``binding``: the tree bound to a schema, each function rewritten onto its column;
- ``program``: the bound tree rewritten into the program the kernels run;
- ``query``: a whole query to the predicate of each of its tables (it binds, so it is last).

Imports nothing from ``kernels`` or ``sources`` (data flows one way).
"""
