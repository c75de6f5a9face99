"""The NumPy interpreter: the same program, one array operation per step.

It is the oracle the compiled kernels are tested against, and what answers while a new
program shape's kernel compiles in the background (``run.py``). It works through the containers
in chunks and drops each step's array after its last use, so its memory stays bounded per chunk
rather than growing with steps x containers.
"""

from __future__ import annotations

import numpy as np

from prunekit.expr.program import Program

from .inputs import DEFAULTS, Prepared, SlotData
from .ops import OPS

CHUNK = 65_536  # containers per pass: each step's array stays in cache (512 KiB at most)


def interpret(program: Program, prepared: Prepared) -> np.ndarray:
    """Outcomes (int8) for the ``prepared`` batch."""
    out = np.empty(prepared.n, np.int8)
    last_use = _last_uses(program)
    for start in range(0, prepared.n, CHUNK):
        stop = min(prepared.n, start + CHUNK)
        out[start:stop] = _interpret_range(program, prepared, start, stop, last_use)
    return out


def _last_uses(program: Program) -> list[int]:
    last = list(range(len(program.steps)))
    for i, step in enumerate(program.steps):
        if step.op not in ("const", "param", "flag", "load", "valid"):
            for a in step.args:
                last[a] = i
    return last


def _window(data: SlotData, start: int, stop: int) -> SlotData:
    """Containers ``start .. stop`` of a slot, without copying (bitmaps cut at whole bytes)."""
    if data.values is None:
        return data
    values, bitmap, offset = data.values, data.bitmap, data.bit_offset + start
    first, end = offset >> 3, (offset + stop - start + 7) >> 3
    if data.bits:
        values = values[first:end]
    elif data.keys_of is not None:  # string offsets: one more than entries
        values = values[start:stop + 1]
    else:
        values = values[start:stop]
    if bitmap is not None:
        bitmap = bitmap[first:end]
    return SlotData(values, bitmap, offset & 7 if (bitmap is not None or data.bits) else 0,
                    data.bits, data.keys_of)


def _interpret_range(program: Program, prepared: Prepared, start: int, stop: int,
                     last_use: list[int]) -> np.ndarray:
    n = stop - start
    values: list = [None] * len(program.steps)
    for i, step in enumerate(program.steps):
        op, args = step.op, step.args
        if op == "const":
            value = args[0]
        elif op == "param":
            value = prepared.params[args[0]]
        elif op == "flag":
            value = prepared.flags[args[0]]
        elif op in ("load", "valid"):
            slot = program.slots[args[0]]
            data = _window(prepared.slots[args[0]], start, stop)
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
        else:
            with np.errstate(all="ignore"):
                value = OPS[op][1](*(values[a] for a in args))
            for a in args:  # free what no later step reads
                if last_use[a] == i and program.steps[a].op not in ("const", "param", "flag"):
                    values[a] = None
        values[i] = value
    out = np.asarray(values[-1], np.int8)
    return np.broadcast_to(out, (n,))
