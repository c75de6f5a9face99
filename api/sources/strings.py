"""Helpers on strings that more than one table format needs: Delta and Iceberg both keep a
cut prefix of a long string as a bound, and the least string above it is where an upper
bound ends.
"""

from __future__ import annotations


def successor(prefix: str | bytes) -> str | bytes | None:
    """The least string above every string that starts with ``prefix`` (its last code point,
    or byte, incremented; trailing ones at their maximum dropped); None if there is none.
    Code point order is UTF-8 byte order, the order Iceberg and Spark compare strings in.

    >>> successor("ab"), successor(b"a\\xff"), successor("\\U0010ffff")
    ('ac', b'b', None)
    """
    items = list(prefix)
    top = 0xFF if isinstance(prefix, bytes) else 0x10FFFF
    while items:
        c = items.pop()
        c = c if isinstance(c, int) else ord(c)
        if c < top:
            c += 1
            if isinstance(prefix, bytes):
                return bytes([*items, c])
            if c == 0xD800:  # surrogates are no code points of UTF-8 text
                c = 0xE000
            return "".join(items) + chr(c)
    return None
