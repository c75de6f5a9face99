"""Values worked out once per live object (a ``Program``), kept in this process by the object's
id and checked through a weak reference, never stored on the object: a program pickled to a
Spark worker must not carry what another process worked out. Hashing a program instead (its
steps are hundreds of frozen dataclasses) cost more per call than the work it would save.

>>> class Thing: pass
>>> memo = PerObject()
>>> a = Thing()
>>> memo.get(a, lambda thing: 42), memo.get(a, lambda thing: 0)   # built once
(42, 42)
>>> ident = id(a); del a; ident in memo                           # forgotten with the object
False
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable


class PerObject:
    """``get(obj, build)``: ``build(obj)`` the first time for this object, the kept value
    after; an entry goes when its object does (an object that reuses the id gets its own)."""

    def __init__(self) -> None:
        self._entries: dict[int, tuple] = {}  # id -> (weak reference to the object, value)
        # reentrant: a collection inside `get` may run `_forget` on this thread
        self._lock = threading.RLock()

    def get(self, obj, build: Callable):
        ident = id(obj)
        entry = self._entries.get(ident)
        if entry is not None and entry[0]() is obj:
            return entry[1]
        value = build(obj)
        with self._lock:
            self._entries[ident] = (weakref.ref(obj, lambda _: self._forget(ident)), value)
        return value

    def _forget(self, ident: int) -> None:
        with self._lock:
            entry = self._entries.get(ident)
            if entry is not None and entry[0]() is None:  # not a newer object with this id
                del self._entries[ident]

    def __contains__(self, ident: int) -> bool:
        return ident in self._entries
