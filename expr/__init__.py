"""Predicate trees: parse SQL or build in Python, bind to a schema, rewrite into a statistics
program. Imports nothing from ``kernels`` (data flows one way)."""
