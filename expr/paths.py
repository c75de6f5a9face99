"""Names of statistics columns for nested fields (leaf paths).

A statistics table has one struct column per leaf of the data. A top-level column's leaf path has
one part, a field of a struct has several (``address.city`` is ``("address", "city")``). The
statistics column of a leaf is named by ``leaf_key(path)``: its parts joined by ``.``, a part
written in backticks (a backtick inside doubled) when it contains ``.`` or a backtick or is empty.
So a top-level column whose name holds a dot (``"a.b"``, keyed ``"`a.b`"``) never collides with
field ``b`` of struct ``a`` (keyed ``"a.b"``), and ``split_leaf_key`` inverts ``leaf_key``.

Why backticks: they are how Spark SQL quotes such a name (``SELECT `a.b`.c``), so the key reads as
the column reference a user writes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from prunekit.errors import StatisticsError


def _needs_quotes(part: str) -> bool:
    return part == "" or "." in part or "`" in part


def leaf_key(path: Sequence[str]) -> str:
    """The statistics column name of the leaf at ``path``.

    >>> leaf_key(["x"]), leaf_key(["address", "city"]), leaf_key(["a.b"]), leaf_key(["a.b", "c"])
    ('x', 'address.city', '`a.b`', '`a.b`.c')
    >>> leaf_key(["my col", "x`y"])
    'my col.`x``y`'
    """
    if not path:
        raise ValueError("a leaf path has at least one part")
    return ".".join("`" + p.replace("`", "``") + "`" if _needs_quotes(p) else p for p in path)


def split_leaf_key(key: str) -> tuple[str, ...]:
    """The leaf path a statistics column name stands for (the inverse of ``leaf_key``).

    >>> split_leaf_key("address.city"), split_leaf_key("`a.b`.c"), split_leaf_key("my col")
    (('address', 'city'), ('a.b', 'c'), ('my col',))
    >>> split_leaf_key("`x``y`")
    ('x`y',)
    """
    parts: list[str] = []
    i, n = 0, len(key)
    while True:
        if i < n and key[i] == "`":
            j, buf = i + 1, []
            while True:
                k = key.find("`", j)
                if k < 0:
                    raise StatisticsError(f"unclosed backtick in statistics column {key!r}")
                buf.append(key[j:k])
                if key.startswith("``", k):
                    buf.append("`")
                    j = k + 2
                    continue
                i = k + 1
                break
            parts.append("".join(buf))
        else:
            k = key.find(".", i)
            k = n if k < 0 else k
            part = key[i:k]
            if "`" in part or part == "":
                raise StatisticsError(f"malformed statistics column name {key!r}: quote a part "
                                      "holding '.' or '`' in backticks")
            parts.append(part)
            i = k
        if i == n:
            return tuple(parts)
        if key[i] != ".":
            raise StatisticsError(f"malformed statistics column name {key!r} at offset {i}")
        i += 1


def leaf_selector(columns) -> Callable[[str], bool]:
    """Which statistics keys a reader's ``columns=`` asks for: each name is a leaf's key or a
    struct's (all the leaves under it), as ``leaf_key`` spells them, in any case (Spark
    resolves names case-insensitively; a leaf too many costs little); None asks for all.

    >>> wanted = leaf_selector(["x", "Address"])
    >>> [k for k in ["x", "y", "address.city", "address.zip", "`address.city`"] if wanted(k)]
    ['x', 'address.city', 'address.zip']
    >>> leaf_selector(None)("anything")
    True
    """
    if columns is None:
        return lambda key: True
    if isinstance(columns, str):
        columns = [columns]
    paths = {tuple(p.lower() for p in split_leaf_key(c)) for c in columns}
    depth = max((len(p) for p in paths), default=0)

    def wanted(key: str) -> bool:
        parts = tuple(p.lower() for p in split_leaf_key(key))
        return any(parts[:i] in paths for i in range(1, min(depth, len(parts)) + 1))

    return wanted
