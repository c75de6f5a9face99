"""The NumPy interpreter: the same program, one array operation per step.

It is the oracle the compiled kernels and the compiled interpreter are tested against, and
what answers while a new program shape's kernel compiles in the background (``run.py``) until
the process has the compiled interpreter (``vm.py``) loaded. It works through the containers
in chunks (on a thread pool for large batches) and drops each step's array after its last use,
so its memory stays bounded per chunk rather than growing with steps x containers.
"""

from __future__ import annotations

from concurrent.futures import Executor

import numpy as np

from prunekit.expr.program.ir import Program

from .inputs import Prepared
from .ops import OPS
from .recipe import DEFAULTS
from .slots import SlotData

CHUNK = 65_536  # containers per pass: each step's array stays in cache (512 KiB at most)


def _constant(value, dtype) -> np.ndarray:
    array = np.full(CHUNK, value, dtype)
    array.flags.writeable = False  # shared by every call: no step may write into its inputs
    return array


# An absent statistic is a slice of one of these shared arrays, not a new array per chunk and
# step (~5% of interpreting a new shape with many leaves): True for exactness flags, else 0 for
# its value and False for its validity.
_ALL_TRUE, _ALL_ZERO, _ALL_FALSE = (_constant(True, bool), _constant(0, np.int64),
                                    _constant(False, bool))


def interpret(program: Program, prepared: Prepared, pool: Executor | None = None) -> np.ndarray:
    """Outcomes (int8) for the ``prepared`` batch; its chunks on ``pool``'s threads if given
    (NumPy releases the GIL inside each array operation)."""
    out = np.empty(prepared.n, np.int8)
    last_use = last_uses(program)

    def fill(start: int) -> None:
        stop = min(prepared.n, start + CHUNK)
        with np.errstate(all="ignore"):
            out[start:stop] = _interpret_range(program, prepared, start, stop, last_use)

    starts = range(0, prepared.n, CHUNK)
    if pool is None or len(starts) < 2:
        for start in starts:
            fill(start)
    else:
        for _ in pool.map(fill, starts):  # re-raises a chunk's error (LongStrings) here
            pass
    return out


def last_uses(program: Program) -> list[int]:
    """Per step, the last step that reads it (itself if none does)."""
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
                value = (_ALL_TRUE if default else _ALL_ZERO if op == "load" else _ALL_FALSE)[:n]
            elif op == "valid":
                value = data.valid_mask(n)
            else:
                value = data.value_array(n)
                if default:  # exactness flags are booleans
                    value = value.astype(bool)
        else:  # under the caller's np.errstate(all="ignore")
            value = OPS[op][1](*(values[a] for a in args))
            for a in args:  # free what no later step reads
                if last_use[a] == i and program.steps[a].op not in ("const", "param", "flag"):
                    values[a] = None
        values[i] = value
    out = np.asarray(values[-1], np.int8)
    return np.broadcast_to(out, (n,))
