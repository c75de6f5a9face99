"""Run a statistics program over record batches: prepare inputs, pick a kernel, fill the output.

>>> import pyarrow as pa
>>> from prunekit.expr.syntax.sql import parse
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.program.rewrite import rewrite
>>> prog = rewrite(bind(parse("x = 5"), pa.schema([("x", pa.int64())])))
>>> x = pa.StructArray.from_arrays([pa.array([0, 2, 5]), pa.array([4, 10, 8]),
...                                 pa.array([0, 0, 0])], ["min", "max", "null_count"])
>>> batch = pa.record_batch({"row_count": pa.array([10, 10, 10]), "x": x})
>>> evaluate(prog, [batch], {}, frozenset()).tolist()
[0, 1, 1]
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np
import pyarrow as pa

from prunekit.errors import UnsupportedError
from prunekit.expr.program.ir import Program

from . import codegen, compiler, machine
from .codegen import CHUNK, UNROLL, emit, first_call, kernel_args, load_kernel, on_disk
from .identity import PerObject
from .inputs import prepare
from .interpret import interpret
from .recipe import use_compiled_read
from .slots import LongStrings
from .vmcode import NotAssembled, assemble

_sources: dict[tuple, str] = {}


def list_lengths(params: list) -> tuple:
    """Per parameter: the length of a list short enough to unroll, else -1."""
    return tuple(len(p) if isinstance(p, np.ndarray) and p.ndim == 1 and len(p) <= UNROLL
                 else -1 for p in params)


def shape_of(prepared, program: Program | None = None) -> tuple:
    """What a kernel's source depends on besides the program: the batch layout, the lengths
    of unrolled IN lists and the per-call flags (baked in as constants, so that LLVM folds
    away the NaN logic a flag rules out: Q5 of the benchmarks went from 190 to 153 instructions
    per 4 containers). The lengths depend on the program alone (a coded list has a code per
    literal), so with ``program`` given they are worked out once for it. Last, the dtype
    each slot's values are read as (``Prepared.dtypes``)."""
    lengths = (list_lengths(prepared.params) if program is None else
               _lengths.get(program, _program_lengths))
    return prepared.layout, lengths, tuple(map(bool, prepared.flags)), prepared.dtypes


_lengths = PerObject()  # a Program object -> its list lengths (``shape_of``)


def _program_lengths(program: Program) -> tuple:
    """``list_lengths`` of any batch's parameters, from the program: a list parameter holds a
    value (or, coded, a code) per literal."""
    return tuple(len(p.value) if p.is_list and len(p.value) <= UNROLL else -1
                 for p in program.params)


def kernel_for(program: Program, layout: tuple, lengths: tuple = (), flags: tuple = (),
               dtypes: tuple = ()):
    """The compiled kernel for this program shape, batch layout, unrolled list lengths, flags
    and slot dtypes (source cached by key)."""
    shape = (layout, lengths, flags, dtypes)
    return load_kernel(_source(_key(program, shape), program, shape))


def _key(program: Program, shape: tuple) -> tuple:
    return _program_id(program), shape


# A kernel's key starts with its program's steps, hundreds of frozen dataclasses that Python
# hashes one by one: ~1,500 hashes per call for Q7 of the benchmarks (0.5-1 ms of a 13 ms call).
# So each Program object gets a small number once, equal for equal programs. It is kept in
# this process (by the object's id, checked through a weak reference), never on the object:
# a program pickled to a Spark worker must not carry a number from another process.
_program_ids = PerObject()  # a Program object -> its number
_numbers: dict[tuple, int] = {}  # what a kernel depends on in a program -> its number
_numbers_lock = threading.Lock()


def _program_id(program: Program) -> int:
    return _program_ids.get(program, _number)


def _number(program: Program) -> int:
    whole = (program.steps, tuple(s.stat for s in program.slots), len(program.params),
             len(program.flags))
    with _numbers_lock:
        return _numbers.setdefault(whole, len(_numbers))


def _source(key: tuple, program: Program, shape: tuple) -> str:
    source = _sources.get(key)
    if source is None:
        layout, lengths, flags, dtypes = shape
        source = _sources[key] = emit(program, layout, list_lengths=lengths, flags=flags,
                                      dtypes=dtypes)
    return source


# ---- first use of a shape ----------------------------------------------------------------
# A shape not yet compiled (in this process or on disk) is answered by an interpreter: the
# compiled one (``vm.py``) once the process has it loaded (``machine.py``), else NumPy's. Its
# fused kernel is compiled in the background only once interpreting it has cost what compiling
# it would (``compiler.py``), and later calls use the kernel once it is ready. Compiling a fused
# kernel takes 1-3 s. Kernels already in Numba's disk cache load in milliseconds once Numba is
# set up in the process (see NUMBA_SETUP_S).
# Numba's compile time grows faster than linearly with a kernel's size (a 1,000-term OR took
# ~40 s); programs beyond this many steps are always interpreted (Q7 of the benchmarks, a
# 20-leaf tree, has about 420).
MAX_COMPILED_STEPS = 4_000
_ready: dict[tuple, object] = {}
_payback = compiler.Payback()


def compiled_shapes() -> int:
    """How many shapes' fused kernels this process has ready."""
    return len(_ready)


def ready_kernel(program: Program, prepared, args: list, wait: bool, total: int = 0,
                 shape: tuple | None = None, key: tuple | None = None):
    """The kernel for ``prepared``'s shape if it can run now, else None: then the caller
    interprets this batch and calls ``start_build``. ``wait``: compile it now if needed.

    A call while the kernel compiles interprets: waiting for the compiler took 1-4 s on the
    2-core VM. ``shape``: ``shape_of(prepared)``, and ``key`` its kernel's key, if the caller
    has them."""
    shape = shape_of(prepared) if shape is None else shape
    key = _key(program, shape) if key is None else key
    kernel = _ready.get(key)
    if kernel is not None:
        return kernel
    if not wait and compiler.pending(key):
        return None  # interpreting now beats waiting for the compiler (seconds)
    if len(program.steps) > MAX_COMPILED_STEPS:
        if wait:
            raise UnsupportedError(
                f"the predicate's statistics program has {len(program.steps)} steps, more than "
                f"the {MAX_COMPILED_STEPS} prunekit compiles; use backend='auto' or 'numpy'")
        return None
    source = _source(key, program, shape)
    if wait or (on_disk(source) and (
            _ready or _interpreting_costs_more(program, max(total, prepared.n)))):
        kernel = load_kernel(source)
        first_call(source, kernel, args)  # compile (or load) for these types now
        # Numba is loaded now: batches are read in compiled code too. A caller that waits
        # for the kernel waits for the reader (milliseconds once in the disk cache), so that
        # its next calls do not share the interpreter with a thread loading it.
        use_compiled_read(wait=wait)
        _ready[key] = kernel
        if not wait:  # "auto": Numba is set up now, and the compiled interpreter loads cheaply
            machine.start()
        return kernel
    return None


# Loading a kernel from the disk cache is quick once Numba has set itself up in the process,
# but the first load pays that set-up: 0.3-0.5 s on the 2-core VM, as much as the rest of
# `import prunekit`. Until then the interpreter answers, unless it would be slower: it costs
# about INTERPRET_NS nanoseconds per container and program step (Q2 of the benchmarks: 112
# steps, 1M containers, 40-70 ms).
NUMBA_SETUP_S = 0.4
INTERPRET_NS = 0.6


def _interpreting_costs_more(program: Program, containers: int) -> bool:
    return len(program.steps) * containers * INTERPRET_NS * 1e-9 > NUMBA_SETUP_S


def start_build(program: Program, args: list, key: tuple, seconds: float) -> None:
    """Count ``seconds`` spent interpreting ``key``'s shape; once that has cost what compiling
    it would (``compiler.Payback``), compile its kernel in the background (once), unless
    ``PRUNEKIT_BACKGROUND_COMPILE=0``: then ``"auto"`` interprets shapes not yet compiled
    (kernels already in the disk cache still load), and which path answers no longer depends
    on a compiler's timing. The test suite runs so; its tests of the kernels ask for them
    (``backend="numba"``)."""
    if len(program.steps) > MAX_COMPILED_STEPS or key in _ready:
        return
    if os.environ.get("PRUNEKIT_BACKGROUND_COMPILE", "1") == "0":
        return
    if not _payback.spent(key, seconds):
        return
    source = _source(key, program, key[1])  # a kernel's key ends with its shape (``_key``)

    def loaded() -> None:  # on the compiler's thread, once the kernel is on disk
        kernel = load_kernel(source)
        first_call(source, kernel, args)
        use_compiled_read()
        _ready[key] = kernel
        machine.start()

    compiler.submit(key, ("kernel", source, compiler.type_twins(args)), loaded)


# ---- threads ---------------------------------------------------------------------------
# Kernels release the GIL (nogil=True), so a batch is split into ranges run on a small pool of
# Python threads: no Numba threading layer (OpenMP stalled 4-8 ms at random on a 2-core VM,
# is not fork-safe, and the workqueue layer refuses concurrent callers), no environment
# variables for users to set. Below PARALLEL_MIN containers one range runs on the calling
# thread: handing work to a thread costs tens of microseconds.
#
# Measured on the 2-core VM (median of 30, serial vs 2 threads, benchmark workload, load ~3):
#   containers      16K     64K     256K     1M
#   Q1 (compute)    0.26x   0.72x   1.19x    1.56x
#   Q2 (7 arrays)   0.80x   0.91x   0.94x    0.99x
#   Q3, Q5          0.85x   0.92x   0.96x    0.99x
# Queries that read several arrays are bound by memory bandwidth, which a second core does not
# add to; compute-bound ones gain from 256K containers on. Hence the threshold.
PARALLEL_MIN = 262_144
# Threads take pieces of a batch as they finish the previous one, not one half each: a vCPU that
# the host stalls for a millisecond then delays the call by at most one piece. Measured on the
# 2-core VM (1M containers, 30 calls, best/median ms): Q4 4.07/5.24 in halves, 4.10/4.95 in 16
# pieces; Q7 11.5/13.9 and 10.6/13.5 (32 pieces); Q2 2.60/4.33 and 2.54/3.40.
# A piece is never smaller than MIN_PIECE containers, though: each starts its own streams of
# reads and its own bounds-only pass, and at 1M containers 16 pieces took 10% longer than 4
# (Q5, best of 100 interleaved calls: 1.34 against 1.23 ms; at 10M the count made no
# difference).
PIECES_PER_WORKER = 8
MIN_PIECE = 262_144
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _get_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=_workers(), thread_name_prefix="prunekit")
        return _pool


def _forget_pool_after_fork() -> None:
    # A forked child has the pool object but not its threads: start a new one if needed.
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_after_fork)


_thread = threading.local()  # per thread: the buffer its kernel calls key strings into


def _key_buffer(words: int) -> np.ndarray:
    """This thread's buffer of at least ``words`` keys: kept between calls (at most
    KEY_AHEAD keys per keyed bound, 512 KiB each), so that no call allocates one."""
    buffer = getattr(_thread, "keys", None)
    if buffer is None or len(buffer) < words:
        buffer = _thread.keys = np.empty(words, np.int64)
    return buffer


def run_kernel(kernel, n: int, out: np.ndarray, args: list, parallel: bool | None = None,
               keyed: int = 0) -> bool:
    """Fill ``out[:n]``: in pieces shared by the thread pool and the calling thread for large
    batches, else inline. False when a kernel stopped early: a string keyed in the kernel is
    longer than 7 bytes (then the other pieces are left undone: the caller starts again).
    ``keyed``: how many string bounds a generated kernel keys (``codegen.keyed_bounds``);
    each call then gets its thread's key buffer in place of ``args[0]``."""
    # A small batch runs inline without asking how many cores there are (a system call).
    small = parallel is False or (parallel is None and n < PARALLEL_MIN)
    if small and not keyed:
        return kernel(0, n, out, *args) == 0
    if keyed:
        rest = args[1:]
        call = lambda lo, hi: kernel(  # noqa: E731
            lo, hi, out, _key_buffer(keyed * min(codegen.KEY_AHEAD, hi - lo)), *rest)
    else:
        call = lambda lo, hi: kernel(lo, hi, out, *args)  # noqa: E731
    parts = 1 if small else _workers()
    if parts <= 1:
        return call(0, n) == 0
    step = max(-(-n // (parts * PIECES_PER_WORKER)), MIN_PIECE)
    step += (-step) % CHUNK  # whole chunks per piece
    starts = iter(range(0, n, step))
    lock, failed = threading.Lock(), []

    def work() -> None:
        while not failed:
            with lock:
                lo = next(starts, None)
            if lo is None:
                return
            if call(lo, min(n, lo + step)) != 0:
                failed.append(lo)

    futures = [_get_pool().submit(work) for _ in range(parts - 1)]
    work()  # the calling thread takes pieces too, so it never waits on an idle pool
    for f in futures:
        f.result()
    return not failed


def evaluate(program: Program, batches: list[pa.RecordBatch], nan_in_bounds: dict[str, bool],
             no_nan: frozenset[str], backend: str = "auto",
             caches: list[dict] | None = None) -> np.ndarray:
    """Outcomes for every container of ``batches``, in order, as one int8 array.

    ``backend``: ``"auto"`` (the kernel when ready, else an interpreter while it compiles:
    the compiled one once loaded, else NumPy's), ``"numba"`` (always the kernel, compiling
    first if needed), ``"vm"`` (always the compiled interpreter) or ``"numpy"``. ``caches``
    (one dict per batch, kept by the caller with the batches) saves string codes between
    calls."""
    total = batches[0].num_rows if len(batches) == 1 else sum(b.num_rows for b in batches)
    out = np.empty(total, np.int8)
    decided: dict[tuple, object] = {}  # per batch shape: the kernel, or None to interpret
    interpreted: dict[tuple, list] = {}  # per shape interpreted: args, seconds
    start = 0
    for index, batch in enumerate(batches):
        n = batch.num_rows
        if n == 0:
            continue
        cache = caches[index] if caches is not None else None
        for keys_in_kernel in (True, False):  # again without, if a string is too long for it
            read = partial(prepare, program, batch, nan_in_bounds, no_nan, cache, keys_in_kernel)
            built = _run_batch(program, read, backend, total, decided, out[start: start + n])
            if built is not None:
                break
        if built:
            args, key, seconds = built
            interpreted.setdefault(key, [args, 0.0])[1] += seconds
        start += n
    for key, (args, seconds) in interpreted.items():  # after answering
        start_build(program, args, key, seconds)
    return out


_UNDECIDED = object()


def _run_batch(program: Program, read, backend: str, total: int, decided: dict,
               out: np.ndarray):
    """Fill ``out`` for one batch, prepared by ``read(for_kernel)``. None if it holds a string
    too long to key in the kernel; else ``(args, key, seconds)`` when it was
    interpreted for want of its kernel (``start_build``), or ()."""
    kernel, wanted = None, None
    if backend in ("auto", "numba"):
        prepared = read(True)  # straight into a kernel's table, where a recipe reads it
        args = kernel_args(program, prepared)
        kept = prepared.kernels
        flags = tuple(prepared.flags) if kept is not None else None
        kernel = kept.get(flags) if kept is not None else None  # ready, for this layout
        if kernel is None:
            shape = shape_of(prepared, program)
            key = _key(program, shape)
            kernel = decided.get(key, _UNDECIDED)  # once per call: never wait on our compiler
            if kernel is _UNDECIDED:
                kernel = decided[key] = ready_kernel(program, prepared, args,
                                                     wait=backend == "numba", total=total,
                                                     shape=shape, key=key)
            if kernel is None and backend == "auto":
                wanted = (args, key)
            if kernel is not None and kept is not None:
                kept[flags] = kernel
    if kernel is not None:
        keyed = codegen.keyed_bounds(prepared) if args[0] is codegen.NO_KEYS else 0
        return () if run_kernel(kernel, prepared.n, out, args, keyed=keyed) else None
    started = time.perf_counter()
    if backend not in ("auto", "numba") or prepared.slots is None:
        prepared = read(False)  # the slots an interpreter reads
    if not _interpret(program, prepared, backend, out):
        return None
    return (*wanted, time.perf_counter() - started) if wanted else ()


def _interpret(program: Program, prepared, backend: str, out: np.ndarray) -> bool:
    """Fill ``out`` by the compiled interpreter if loaded (or asked for), else NumPy's; False
    if a string is too long for the compiled one's keys."""
    vm = machine.wait() if backend == "vm" else machine.ready() if backend == "auto" else None
    if vm is not None:
        try:
            call = assemble(program, prepared)
        except NotAssembled as e:
            if backend == "vm":
                raise UnsupportedError(f"the compiled interpreter cannot run this predicate: "
                                       f"{e}; use backend='auto' or 'numpy'") from None
        else:
            return run_kernel(vm, prepared.n, out, call.args)
    # A new shape is interpreted while its kernel compiles: its chunks go to the pool too
    # (median of 12 random new shapes at 1M containers, one run: 113 ms on one thread, 84 on two)
    pool = _get_pool() if prepared.n >= PARALLEL_MIN and _workers() > 1 else None
    try:
        out[:] = interpret(program, prepared, pool)
    except LongStrings:
        return False
    return True
