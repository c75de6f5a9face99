"""Where kernels are kept on disk: one directory per process, decided on first use.

``PRUNEKIT_CACHE_DIR`` wins; else the user cache directory; else the temp directory; else none
(kernels then compile in memory, and nothing is compiled in the background).

>>> directory = kernel_directory()
>>> directory is None or directory.name == "kernels"
True
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def cache_dir() -> Path | None:
    """A writable directory for kernel sources and Numba's cache, or None (then no disk cache).

    ``PRUNEKIT_CACHE_DIR`` wins; else the user cache directory; else the temp directory."""
    candidates = [os.environ.get("PRUNEKIT_CACHE_DIR"),
                  os.path.join(os.environ.get("XDG_CACHE_HOME") or
                               os.path.join(os.path.expanduser("~"), ".cache"), "prunekit"),
                  os.path.join(tempfile.gettempdir(), f"prunekit-{os.getuid()}")]
    for c in candidates:
        if not c:
            continue
        path = Path(c) / "kernels"
        try:
            path.mkdir(parents=True, exist_ok=True)
            probe = path / f".probe-{os.getpid()}"
            probe.write_text("")
            probe.unlink()
            return path
        except OSError:
            continue
    return None


_CACHE_DIR: list = []


def kernel_directory() -> Path | None:
    """The directory this process keeps kernels in (``cache_dir``, decided once), or None."""
    if not _CACHE_DIR:
        _CACHE_DIR.append(cache_dir())
    return _CACHE_DIR[0]
