"""The NumPy reference interpreter: the same program, one whole-array operation per step.

It is the oracle the compiled kernels are tested against, and the fallback when a kernel cannot
be built. It allocates an array per step, so it is for checking, not for speed.
"""

from __future__ import annotations

import numpy as np

from prunekit.expr.program import Program

from .inputs import DEFAULTS, Prepared
from .ops import OPS


def interpret(program: Program, prepared: Prepared) -> np.ndarray:
    """Outcomes (int8) for the ``prepared`` batch."""
    n = prepared.n
    values: list = []
    for step in program.steps:
        op, args = step.op, step.args
        if op == "const":
            values.append(args[0])
        elif op == "param":
            values.append(prepared.params[args[0]])
        elif op == "flag":
            values.append(prepared.flags[args[0]])
        elif op in ("load", "valid"):
            slot, data = program.slots[args[0]], prepared.slots[args[0]]
            default = DEFAULTS.get(slot.stat)
            if data.values is None:
                value = np.full(n, bool(default)) if default else (
                    np.zeros(n, np.int64) if op == "load" else np.zeros(n, bool))
            elif op == "valid":
                value = data.valid_mask(n)
            else:
                value = data.value_array(n)
                if default:  # exactness flags are booleans
                    value = value.astype(bool)
            values.append(value)
        else:
            with np.errstate(all="ignore"):
                values.append(OPS[op][1](*(values[a] for a in args)))
    out = np.asarray(values[-1], np.int8)
    return np.broadcast_to(out, (n,)).copy()
