"""The statistics program: what a bound predicate becomes and the kernels run.

- ``ir``: the program itself (slots of statistics, literal params, NaN flags, a DAG of scalar
  steps) and its builder, with common subexpressions shared and constants folded; the
  kernels' vocabulary, re-exported here;
- ``rewrite``: a bound tree to a program: per column the facts its statistics give, the
  three-valued lattice of TRUE, FALSE and NULL over them, and the outcome;
- ``leaves``: one rule per leaf kind, each with its derivation;
- ``impossible``: the nodes no row makes TRUE (or FALSE), whatever the statistics: terms on one
  column that no value meets together, way by way; and the ways a row making the root TRUE
  may take, as a predicate each container must be able to meet;
- ``explain``: the program as text for people.

>>> from prunekit.expr.program import Program, ir
>>> Program is ir.Program
True
"""

from .ir import (
    ALL_OPS,
    BOOL_OPS,
    COMPARE_OPS,
    LEAF_OPS,
    OTHER_OPS,
    STATS,
    Param,
    Program,
    ProgramBuilder,
    Slot,
    Step,
)

__all__ = ["ALL_OPS", "BOOL_OPS", "COMPARE_OPS", "LEAF_OPS", "OTHER_OPS", "STATS", "Param",
           "Program", "ProgramBuilder", "Slot", "Step"]
