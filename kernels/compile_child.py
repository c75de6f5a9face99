"""The background compiler's child process: compiles each job it reads into the disk cache.

Started by ``compiler.py`` as ``python -m prunekit.kernels.compile_child <jobs fd> <answers
fd>``; it reads a job (a kernel's source and its arguments' types, the compiled interpreter,
or the compiled reader), compiles it, or loads it if another process already did, and answers
"done" or the error. It ends when its parent closes the pipe, and on Linux is killed with it.

>>> from multiprocessing import Pipe
>>> jobs, ask = Pipe(duplex=False)
>>> answers, answer = Pipe(duplex=False)
>>> ask.send(("nothing we know",)); ask.close()
>>> serve(jobs, answer)
>>> answers.recv()
"failed: ValueError: unknown job 'nothing we know'"
"""

from __future__ import annotations

import os
import sys
from multiprocessing.connection import Connection

from . import machine
from .codegen import first_call, load_kernel
from .compiler import from_twins
from .exported import loaded_read


def serve(jobs: Connection, answers: Connection) -> None:
    """Compile each job into the disk cache; answer "done" or the error's text."""
    while True:
        try:
            request = jobs.recv()
        except EOFError:  # the parent is gone
            return
        try:
            kind = request[0]
            if kind == "kernel":
                _, source, twins = request
                first_call(source, load_kernel(source), from_twins(twins))
            elif kind == "interpreter":
                machine.wait()
            elif kind == "reader":
                loaded_read()
            else:
                raise ValueError(f"unknown job {kind!r}")
            answers.send("done")
        except Exception as e:  # noqa: BLE001 - reported to the parent, which interprets
            answers.send(f"failed: {type(e).__name__}: {e}")


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() == 1:  # the parent died before the signal was asked for
        sys.exit(0)


if __name__ == "__main__":
    _die_with_parent()
    serve(Connection(int(sys.argv[1]), writable=False),
           Connection(int(sys.argv[2]), readable=False))
