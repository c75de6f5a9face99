"""The compiled interpreter in a process: loaded once, in the background, and never waited for.

``vm.py`` is compiled once per prunekit and Numba version (13 s on the 2-core VM, by the
background compiler) and then loaded from the disk cache (about 0.1 s once Numba is set up). A
process loads it once it has loaded Numba for a kernel anyway, under ``backend="auto"``
(``run.py`` calls ``start``; a process that asks for the kernels, as Spark executors do, never
uses it), so it never adds Numba's set-up to a first answer; until it is ready the NumPy
interpreter answers instead.

>>> kernel = wait()  # compiles it first if this machine never did
>>> import numpy as np
>>> kernel(0, 0, np.empty(0, np.int8), *EMPTY)
0
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import numpy as np

from . import compiler
from .codegen import first_call, load_kernel, on_disk, stamp

# Arguments of the right types and no work: a call with them compiles (or loads) the kernel.
EMPTY = [np.zeros((0, 7), np.int64), np.zeros((0, 9), np.int64), np.zeros(0, np.float64),
         np.zeros(0, np.uint64), np.zeros(0, np.int64), np.zeros(0, np.float64),
         np.zeros(0, np.uint64), np.zeros((0, 2), np.int64), np.zeros(4, np.int64)]

_kernel: list = []  # the loaded kernel, once it has run
_lock = threading.Lock()
_started: list = []


def _source() -> str:
    """``vm.py``'s text, stamped with what its compiled code depends on besides itself (the
    opcodes, the compiled helpers, Numba's version), so a stale cached copy is never loaded."""
    here = Path(__file__).parent
    opcodes = hashlib.sha256((here / "vmcode.py").read_bytes()).hexdigest()[:16]
    return f"# compiled interpreter {stamp()} {opcodes}\n" + (here / "vm.py").read_text()


def ready():
    """The compiled interpreter if this process has it loaded, else None (never blocks)."""
    return _kernel[0] if _kernel else None


def wait():
    """The compiled interpreter, loading or compiling it now if needed."""
    with _lock:
        if not _kernel:
            source = _source()
            kernel = load_kernel(source)
            first_call(source, kernel, EMPTY)
            _kernel.append(kernel)
    return _kernel[0]


def start() -> None:
    """Load the compiled interpreter, once per process, without blocking: from the disk cache
    on a thread of its own (0.1 s); on a machine that never compiled it, through the
    background compiler (``compiler.py``: 13 s in a child process, abandoned if the process
    exits first, so a short-lived process neither waits for it nor leaves it half-done)."""
    with _lock:
        if _kernel or _started:
            return
        _started.append(True)
    if on_disk(_source()):
        threading.Thread(target=_load, daemon=False, name="prunekit-load-vm").start()
    elif not compiler.submit("compiled interpreter", ("interpreter",), _load):
        _started.clear()  # not queued (a full queue): asked again after the next kernel


def _load() -> None:
    try:
        wait()
    except Exception:  # noqa: BLE001 - the NumPy interpreter keeps answering
        pass


def _forget_after_fork() -> None:
    # A child forked while the thread ran has no thread: let it start one.
    global _lock
    _lock = threading.Lock()
    if not _kernel:
        _started.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)
