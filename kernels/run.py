"""Run a statistics program over record batches: prepare inputs, pick a kernel, fill the output.

>>> import pyarrow as pa
>>> from prunekit.expr.sql import parse
>>> from prunekit.expr.bind import bind
>>> from prunekit.expr.rewrite import rewrite
>>> prog = rewrite(bind(parse("x = 5"), pa.schema([("x", pa.int64())])))
>>> x = pa.StructArray.from_arrays([pa.array([0, 2, 5]), pa.array([4, 10, 8]),
...                                 pa.array([0, 0, 0])], ["min", "max", "null_count"])
>>> batch = pa.record_batch({"row_count": pa.array([10, 10, 10]), "x": x})
>>> evaluate(prog, [batch], {}, frozenset()).tolist()
[0, 1, 1]
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from prunekit.expr.program import Program

from .codegen import emit, kernel_args, load_kernel
from .inputs import prepare
from .interpret import interpret

_sources: dict[tuple, str] = {}


def kernel_for(program: Program, layout: tuple):
    """The compiled kernel for this program shape and batch layout (source cached by key)."""
    key = (program.steps, tuple(s.stat for s in program.slots), len(program.params),
           len(program.flags), layout)
    source = _sources.get(key)
    if source is None:
        source = _sources[key] = emit(program, layout)
    return load_kernel(source)


def evaluate(program: Program, batches: list[pa.RecordBatch], nan_in_bounds: dict[str, bool],
             no_nan: frozenset[str], backend: str = "numba") -> np.ndarray:
    """Outcomes for every container of ``batches``, in order, as one int8 array."""
    total = sum(b.num_rows for b in batches)
    out = np.empty(total, np.int8)
    start = 0
    for batch in batches:
        n = batch.num_rows
        if n == 0:
            continue
        prepared = prepare(program, batch, nan_in_bounds, no_nan)
        if backend == "numpy":
            out[start: start + n] = interpret(program, prepared)
        else:
            kernel = kernel_for(program, prepared.layout)
            kernel(n, out[start: start + n], *kernel_args(program, prepared))
        start += n
    return out
