"""The errors prunekit raises, all of them (``prunekit`` exports each).

Every error derives from :class:`PrunekitError` and from the builtin exception a caller would
naturally catch, so ``except ValueError`` keeps working for code that does not know prunekit.

>>> issubclass(SqlSyntaxError, ValueError) and issubclass(SqlSyntaxError, PrunekitError)
True
"""

from __future__ import annotations


class PrunekitError(Exception):
    """Base class of every error raised by prunekit."""


class SqlSyntaxError(PrunekitError, ValueError):
    """The predicate text is not valid SQL; ``line`` and ``col`` point at the problem (1-based)."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None):
        where = f" (line {line}, column {col})" if line is not None else ""
        super().__init__(message + where)
        self.line = line
        self.col = col


class UnknownColumnError(PrunekitError, LookupError):
    """The predicate names a column the schema does not have."""

    def __init__(self, name: str, known: list[str]):
        close = _close_match(name, known)
        hint = f" (did you mean {close[0]!r}?)" if close else f"; columns are {sorted(known)!r}"
        super().__init__(f"unknown column {name!r}{hint}")
        self.name = name

    def __str__(self) -> str:  # LookupError would otherwise print the repr of the message
        return self.args[0]


class TypeMismatchError(PrunekitError, TypeError):
    """A literal or expression cannot be compared with a column of the given type."""


class StatisticsError(PrunekitError, ValueError):
    """Statistics are not in the canonical layout (wrong lengths, missing fields, wrong types)."""


class UnsupportedError(PrunekitError, NotImplementedError):
    """A construct prunekit cannot accept at all (it is not a boolean predicate, for example)."""


class AliasError(PrunekitError, ValueError):
    """``aliases`` cannot be applied: a cycle, or an alias named like a schema column."""


class TableNotReadError(PrunekitError, LookupError):
    """``PruningPredicate.from_query`` was asked about a table the query does not read."""


class UnknownTableError(PrunekitError, LookupError):
    """A query names a table that is neither given nor known to the session."""

    def __init__(self, name: str, known: list[str]):
        close = _close_match(name, known)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        super().__init__(f"unknown table {name!r}: not in tables and not in the Spark "
                         f"session{hint}")
        self.name = name

    def __str__(self) -> str:
        return self.args[0]


def _close_match(name: str, known: list[str]) -> list[str]:
    import difflib  # only when an error is raised: not on every import of prunekit

    return difflib.get_close_matches(name, known, n=1)
