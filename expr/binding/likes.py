"""LIKE patterns as facts about the strings they match (docs/semantics.md §2, §3).

Spark's ``LIKE``: ``%`` matches any run of characters, ``_`` exactly one character (a code
point), the escape character (``\\`` unless ``ESCAPE`` names another) makes the next character
literal. A pattern whose only wildcards are trailing ``%`` runs, or that has none, Spark
rewrites into ``startsWith`` or ``=`` on the bytes; any other pattern is a regular expression
over the value decoded from UTF-8, where an invalid byte sequence reads as U+FFFD.

From a pattern, ``shape`` derives what statistics can test:

- ``prefix``: the literal characters before the first wildcard; every match starts with them.
- ``floor``: the pattern up to its first ``%`` with each ``_`` made the smallest character
  (byte 0x00); every match is at least ``floor`` in byte order (at the first character where
  a match differs, it has a larger first byte). Nothing this simple bounds a match from above
  beyond the prefix's successor: a ``_`` may match any character, or an invalid byte.
- ``regex``: the whole pattern as an RE2 expression (pyarrow's ``match_substring_regex``), to
  test one known value; every literal character is written as its code point (``\\x{61}``),
  so no text of the pattern is read as regular-expression syntax.

A literal U+FFFD may stand, in the decoded reading, for an invalid byte sequence, so for bounds
it counts as ``_`` and the pattern is never read as an equality or a plain prefix.

>>> s = shape("ab_c%", "\\\\")
>>> s.kind, s.prefix, s.floor, s.regex
('pattern', 'ab', b'ab\\x00c', '(?s)\\\\A\\\\x{61}\\\\x{62}.\\\\x{63}.*\\\\z')
>>> shape("ab%%", "\\\\").kind, shape("a!_b", "!").kind, shape("a!_b", "!").prefix
('prefix', 'equal', 'a_b')
"""

from __future__ import annotations

from dataclasses import dataclass

from prunekit.errors import SqlSyntaxError

ONE, ANY = object(), object()  # the wildcards ``_`` and ``%`` among literal characters
_FFFD = "\ufffd"


@dataclass(frozen=True)
class Shape:
    """What a LIKE pattern says about its matches. ``kind``: ``equal`` (no wildcard: the value
    is ``prefix``), ``prefix`` (literal characters then only ``%``: exactly the values starting
    with ``prefix``) or ``pattern`` (anything else: implied by ``prefix`` and ``floor``, decided
    by ``regex`` for one known value)."""

    kind: str
    prefix: str
    floor: bytes
    regex: str


def tokens(pattern: str, escape: str) -> list:
    """The pattern as literal characters and the wildcards ``ONE`` and ``ANY``.

    >>> [t if isinstance(t, str) else "ONE" if t is ONE else "ANY" for t in tokens("a!%_%", "!")]
    ['a', '%', 'ONE', 'ANY']
    """
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == escape:
            if i + 1 >= len(pattern):
                raise SqlSyntaxError(f"LIKE pattern {pattern!r} ends with the escape character")
            # Spark refuses an escape before anything but %, _ or itself (the query fails,
            # so any answer is sound); prunekit reads it as a literal.
            out.append(pattern[i + 1])
            i += 2
            continue
        out.append(ONE if ch == "_" else ANY if ch == "%" else ch)
        i += 1
    return out


def shape(pattern: str, escape: str) -> Shape:
    """The facts statistics can test about ``pattern`` (module docstring)."""
    parts = tokens(pattern, escape)
    prefix = []
    for t in parts:
        if not isinstance(t, str) or t == _FFFD:
            break
        prefix.append(t)
    rest = parts[len(prefix):]
    if _FFFD in parts:
        kind = "pattern"
    elif not rest:
        kind = "equal"
    else:
        kind = "prefix" if all(t is ANY for t in rest) else "pattern"
    floor = bytearray()
    for t in parts:
        if t is ANY:
            break
        floor += b"\x00" if t is ONE or t == _FFFD else t.encode("utf-8", "surrogatepass")
    return Shape(kind, "".join(prefix), bytes(floor), regex(parts))


def regex(parts: list) -> str:
    """An RE2 expression matching exactly the whole values the tokens match (``.`` is one
    code point; ``(?s)`` lets it match a line break, as Spark's DOTALL does).

    >>> regex(tokens("a%_", "\\\\"))
    '(?s)\\\\A\\\\x{61}.*.\\\\z'
    """
    body = "".join("." if t is ONE else ".*" if t is ANY else f"\\x{{{ord(t):x}}}"
                   for t in parts)
    return "(?s)\\A" + body + "\\z"


def prefix_successor(prefix: bytes) -> bytes | None:
    """The smallest byte string above every string that starts with ``prefix``.

    >>> prefix_successor(b"ab"), prefix_successor(b"a\\xff"), prefix_successor(b"\\xff")
    (b'ac', b'b', None)
    """
    stripped = prefix.rstrip(b"\xff")
    if not stripped:
        return None
    return stripped[:-1] + bytes([stripped[-1] + 1])
