"""The last few values a process worked out, by key: what the table sources keep of snapshots
that never change (a Delta version, an Iceberg snapshot), so that a repeated query reads no
log or manifest again. The least recently used is dropped first.

>>> kept = Recent(2)
>>> kept.put("a", 1); kept.put("b", 2); kept.get("a"); kept.put("c", 3)
1
>>> kept.get("b") is None, kept.get("a"), kept.get("c")
(True, 1, 3)
"""

from __future__ import annotations

import threading
from collections import OrderedDict


class Recent:
    """At most ``size`` values by key; ``get`` gives None for a key not kept."""

    def __init__(self, size: int):
        self.size = size
        self._values: OrderedDict = OrderedDict()
        self._lock = threading.Lock()  # Spark's driver threads and notebooks share a process

    def get(self, key):
        with self._lock:
            value = self._values.get(key)
            if value is not None:
                self._values.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self.size:
                self._values.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
