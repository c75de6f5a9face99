"""The one background compiler: a kernel worth compiling is compiled in a child process, one at
a time, and loaded here once it is on disk. A process never waits for it at exit.

Under ``backend="auto"`` a new shape is interpreted. Whether its fused kernel is then compiled
is rent or buy (``Payback``): interpreting a shape again and again costs time on every call,
compiling it costs once. So a shape is compiled once the time spent interpreting it reaches
what a compilation costs (``COMPILE_S``). A one-off call over a notebook's containers never
gets there; a shape asked for over and over, or a call over tens of millions of containers,
does.

Compiling happens in a child process (``compile_child.py``), started on the first job, reading
jobs from a pipe:

- the caller's threads never compete with the compiler for the GIL (interpreting slowed from
  0.1 to 0.5-0.9 s at 1M containers while a thread compiled beside it);
- at exit the child is killed, whatever it is doing. Numba writes every cache file whole (a
  temporary file, renamed), so a killed compilation leaves nothing half-written on disk, and
  ``codegen.first_call`` recompiles an entry it cannot load. A compiling thread killed at exit
  would instead be stopped inside LLVM while the interpreter tears down;
- the child dies with this process (a parent-death signal on Linux; elsewhere it reads the end
  of its pipe once its job is done).

Without a writable cache directory nothing is compiled in the background (the child could not
hand its result over); ``backend="numba"`` still compiles in the caller's process.

Jobs wait in one queue, each once (``submit`` with a key already queued or running does
nothing), at most ``MAX_QUEUED`` of them: a shape that matters is asked for again. When the
child reports a job done, the worker thread here loads its result from the disk cache
(milliseconds once Numba is set up) and hands it to the job's ``loaded`` callback.

>>> Payback().spent(("shape",), 0.01)  # 10 ms of interpreting: not worth a compilation yet
False
>>> Payback().spent(("shape",), 2.0)
True
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

from .cache import kernel_directory

# Compiling a new shape's fused kernel took 1.0-2.8 s of one core (median 1.7 s; eight random
# shapes of 3-9 leaves, Numba already set up, the 2-core VM). Interpreting one call over 1M
# containers took 41-190 ms in NumPy and 15-32 ms in the compiled interpreter, against 6-11 ms
# for the kernel. A shape is compiled once it has been interpreted for the low end of a
# compilation's cost: at most twice what compiling it at once would have cost, whatever the
# calls to come (the rent-or-buy bound), and never for a shape met once on a few containers.
COMPILE_S = 1.0
MAX_QUEUED = 32
# Shapes whose interpreting time is kept: beyond this many, the oldest are forgotten.
MAX_TRACKED = 4096


class Payback:
    """Interpreting time per shape key, and whether a shape has now earned its compilation."""

    def __init__(self):
        self._seconds: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def spent(self, key, seconds: float) -> bool:
        """Add ``seconds`` spent interpreting ``key``; True once the total reaches
        ``COMPILE_S`` (then the count starts again, for a compilation that failed)."""
        with self._lock:
            total = self._seconds.pop(key, 0.0) + seconds
            if total >= COMPILE_S:
                return True
            self._seconds[key] = total
            while len(self._seconds) > MAX_TRACKED:
                self._seconds.popitem(last=False)
            return False


# ---- arguments of the same types ---------------------------------------------------------
def type_twins(args: list) -> list:
    """What a child needs to compile a kernel for ``args``' Numba types without the data: per
    NumPy array its dtype, dimensions, layout and whether it is writable (each part of its
    Numba type), the small ones' shape too (a kernel may read an unrolled list before its
    loop); other arguments as they are."""
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            layout = "C" if a.flags.c_contiguous else "F" if a.flags.f_contiguous else "A"
            shape = a.shape if a.size <= 65_536 else (0,) * a.ndim
            out.append(("array", a.dtype.str, shape, layout, bool(a.flags.writeable)))
        else:
            out.append(("value", a))
    return out


def from_twins(twins: list) -> list:
    """Arguments of the types ``type_twins`` describes (zeros)."""
    out = []
    for twin in twins:
        if twin[0] == "value":
            out.append(twin[1])
            continue
        _, dtype, shape, layout, writable = twin
        if layout == "A":  # every other element of an array twice as long in each dimension
            a = np.zeros(tuple(2 * max(d, 2) for d in shape), dtype)
            a = a[tuple(slice(None, 2 * max(d, 2), 2) for d in shape)]
        elif layout == "F":
            a = np.zeros(tuple(max(d, 2) for d in shape), dtype, order="F")
        else:
            a = np.zeros(shape, dtype)
        a.setflags(write=writable)
        out.append(a)
    return out


# ---- this process: the queue and the worker that feeds the child -------------------------
class _Job:
    def __init__(self, request: tuple, loaded: Callable[[], None]):
        self.request, self.loaded = request, loaded


_queue: OrderedDict = OrderedDict()  # key -> _Job, oldest first
_running: set = set()
_state = threading.Condition()
_worker: list = []  # the worker thread, once started
_child: list = []  # (process, to child, from child, its cache directory), once started
_closing: list = []
_starting = threading.Lock()


def submit(key, request: tuple, loaded: Callable[[], None]) -> bool:
    """Queue a job (once per ``key``): ``request`` for the child, then ``loaded()`` here once
    the child has put its result in the disk cache. False if not queued (already queued or
    running, the queue full, or the process exiting)."""
    with _state:
        if _closing or key in _queue or key in _running or len(_queue) >= MAX_QUEUED:
            return False
        _queue[key] = _Job(request, loaded)
        if not _worker:
            thread = threading.Thread(target=_work, daemon=True, name="prunekit-compile")
            _worker.append(thread)
            thread.start()
        _state.notify()
    return True


def pending(key) -> bool:
    """Whether ``key`` is queued or compiling."""
    with _state:
        return key in _queue or key in _running


def wait_idle(timeout: float | None = None) -> bool:
    """Block until no job is queued or running (tests, benchmarks); False on timeout."""
    with _state:
        return _state.wait_for(lambda: not _queue and not _running, timeout)


def _work() -> None:
    while True:
        with _state:
            _state.wait_for(lambda: _queue or _closing)
            if _closing:
                return
            key, job = _queue.popitem(last=False)
            _running.add(key)
        try:
            ok = _ask_child(job.request)
            if ok and not _closing:
                job.loaded()
        except Exception:  # noqa: BLE001 - the interpreters keep answering; a later
            pass  # backend="numba" call compiles in the foreground and reports the error
        finally:
            with _state:
                _running.discard(key)
                _state.notify_all()


def _ask_child(request: tuple) -> bool:
    """Send ``request`` to the child (started if needed, or again for another cache directory)
    and wait for its answer."""
    directory = kernel_directory()
    if directory is None:
        return False  # no disk cache to hand a result over through
    if _child and _child[0][3] != directory:
        _stop_child()
    try:
        if not _child:
            _start_child(directory)
        process, to_child, from_child, _ = _child[0]
        to_child.send(request)
        return from_child.recv() == "done"
    except (EOFError, OSError):  # the child died (killed at exit, or crashed): a new one next
        _stop_child()
        return False


def _start_child(directory) -> None:
    with _starting:  # shutdown waits for a child being started, to kill it too
        if _closing:
            raise OSError("exiting")
        down_read, down_write = os.pipe()
        up_read, up_write = os.pipe()
        env = dict(os.environ, PRUNEKIT_CACHE_DIR=str(directory.parent))  # this cache
        process = subprocess.Popen(
            [sys.executable, "-m", "prunekit.kernels.compile_child", str(down_read), str(up_write)],
            pass_fds=(down_read, up_write), env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(down_read)
        os.close(up_write)
        from multiprocessing.connection import Connection  # only with a child

        _child.append((process, Connection(down_write, readable=False),
                       Connection(up_read, writable=False), directory))


def _stop_child() -> None:
    for process, to_child, from_child, _ in _child:
        process.kill()
        process.wait()
        to_child.close()
        from_child.close()
    _child.clear()


def shutdown(timeout: float = 1.0) -> None:
    """Drop queued jobs, kill the child (a compilation it is running is abandoned), and give
    the worker ``timeout`` seconds to finish loading a result it already has. Runs at exit."""
    with _state:
        _closing.append(True)
        _queue.clear()
        _state.notify_all()
    started = _starting.acquire(timeout=timeout)  # a child being started is killed too
    try:
        for process, *_ in list(_child):  # the worker, reading its answer, sees the pipe end
            process.kill()
            process.wait()
    finally:
        if started:
            _starting.release()
    for thread in _worker:
        thread.join(timeout)


atexit.register(shutdown)


def _forget_after_fork() -> None:
    # A forked child (a Spark worker forked by its daemon) has neither the thread nor the pipes,
    # and its locks may have been held by a thread it does not have.
    global _state, _starting
    _state = threading.Condition()
    _starting = threading.Lock()
    _queue.clear()
    _running.clear()
    _worker.clear()
    _child.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)
