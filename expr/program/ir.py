"""The statistics program: what a predicate becomes before it becomes a kernel.

A program is plain, picklable data (it is what travels to Spark executors): a list of *slots*
(statistic arrays it reads), *params* (literal values, passed as arguments so ``x > 5`` and
``x > 7`` share one kernel) and *steps*, a DAG of scalar operations evaluated once per container.
The last step is the outcome. Step ``i`` may only use steps ``< i``.

The builder removes common sub-expressions (the facts about a column are derived once however
many leaves use them) and folds constants, which is how ``always_true`` is known.

>>> b = ProgramBuilder()
>>> lo = b.load(b.slot("x", "min"))
>>> b.and_(b.lt(lo, b.param(5, "x")), b.const(True)) == b.lt(lo, b.param(5, "x"))
True
>>> b.or_(b.valid(b.slot("x", "min")), b.const(True)) == b.const(True)
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Ops and their arity class. Semantics live in kernels/ops.py (source spelling and NumPy
# reference side by side); this list only fixes the vocabulary.
BOOL_OPS = {"and", "or", "not"}
COMPARE_OPS = {"lt", "le", "gt", "ge", "eq"}
OTHER_OPS = {
    "load",  # (slot,) statistic value; meaningless where not valid
    "valid",  # (slot,) statistic is present (Arrow validity)
    "param",  # (param,) a literal value
    "flag",  # (flag,) a per-call boolean (NaN semantics of the statistics)
    "const",  # (value,) True/False or a small integer
    "isnan",  # (a,)
    "add",  # (a, b) integer sum (counts)
    "mul",  # (a, k) product with a constant step (callers rule out overflow)
    "within",  # (a, c) -c <= a <= c
    "toint",  # (a,) a uint64 value as int64 (meaningful where fits_int64)
    "fits_int64",  # (a,) a uint64 value is at most 2**63 - 1
    "tofloat",  # (a,) a column cast to DOUBLE (order-preserving, rounding)
    "tofloat32",  # (a,) a column cast to FLOAT, as a double (order-preserving, rounding)
    "min2",  # (a, b) the smaller (floats; callers rule out NaN)
    "max2",  # (a, b) the larger
    "floordiv",  # (a, k) floor division by a positive constant step (timestamp -> date)
    "any_in",  # (list, lo, lo_ok, hi, hi_ok) a list element lies in [lo, hi] (unknown: open)
    "covers",  # (list, lo, hi) every integer of [lo, hi] is in the list
    "outcome",  # (may_true, may_false, may_null, empty) -> 0/1/2
}
ALL_OPS = BOOL_OPS | COMPARE_OPS | OTHER_OPS
LEAF_OPS = {"load", "valid", "param", "flag", "const"}  # args are table indices or values

STATS = ("min", "max", "null_count", "nan_count", "min_exact", "max_exact", "values", "bloom",
         "like")


@dataclass(frozen=True)
class Slot:
    """A statistic array the program reads: ``column`` None means the container's row_count.
    The value-set statistics (``values``, ``bloom``) are read through ``literals``, the domain
    values a leaf looks up: the slot holds each container's answer (``kernels/valuesets.py``).
    ``like`` is no statistic of its own: whether ``min`` matches the RE2 expression
    ``literals[0]`` of a LIKE pattern (``kernels/patterns.py``)."""

    column: str | None
    stat: str
    literals: tuple = ()


@dataclass(frozen=True)
class Param:
    """A literal argument. ``column`` names the column whose domain it lives in (strings and
    wide decimals are mapped to that column's order-preserving codes per batch); ``is_list``
    marks a sorted IN list."""

    value: object
    column: str | None
    is_list: bool = False


@dataclass(frozen=True)
class Step:
    op: str
    args: tuple


@dataclass(frozen=True)
class Program:
    slots: tuple[Slot, ...]
    params: tuple[Param, ...]
    flags: tuple[tuple[str, str], ...]  # (column, flag name)
    steps: tuple[Step, ...]
    notes: tuple[str, ...] = ()  # why leaves were weakened, for explain()
    column_types: tuple[tuple[str, object], ...] = ()  # (column, Arrow type of its min/max)

    @property
    def always_true(self) -> bool:
        """Nothing but an empty container can ever be pruned."""
        root = self.steps[-1]
        may_true = self.steps[root.args[0]]
        return may_true == Step("const", (True,))

    @property
    def columns_read(self) -> dict[str, tuple[str, ...]]:
        """The statistics read, per data column (``row_count`` aside).

        >>> Program((Slot("x", "max"), Slot(None, "row_count"), Slot("x", "min")), (), (),
        ...         ()).columns_read
        {'x': ('max', 'min')}
        """
        out: dict[str, set[str]] = {}
        for slot in self.slots:
            if slot.column is not None:
                out.setdefault(slot.column, set()).add(slot.stat)
        return {c: tuple(sorted(s)) for c, s in out.items()}


@dataclass
class ProgramBuilder:
    slots: list[Slot] = field(default_factory=list)
    params: list[Param] = field(default_factory=list)
    flags: list[tuple[str, str]] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    column_types: dict = field(default_factory=dict)
    _index: dict = field(default_factory=dict)

    # ---- leaves ------------------------------------------------------------------------
    def _add(self, op: str, *args) -> int:
        step = Step(op, args)
        found = self._index.get(step)
        if found is None:
            found = len(self.steps)
            self.steps.append(step)
            self._index[step] = found
        return found

    def _intern(self, table: list, item, key=None) -> int:
        # One dict per table; the key includes the value's type (1 == 1.0 == True in Python,
        # but they are different literals) and its repr (NaN != NaN, yet one NaN argument).
        index = self._index.setdefault(("table", id(table)), {})
        key = (type(item), item) if key is None else key
        found = index.get(key)
        if found is None:
            found = index[key] = len(table)
            table.append(item)
        return found

    def slot(self, column: str | None, stat: str, literals: tuple = ()) -> int:
        # repr in the key: a NaN literal is one slot, and 1 and 1.0 are different literals.
        return self._intern(self.slots, Slot(column, stat, literals),
                            (column, stat, repr(literals)) if literals else None)

    def load(self, slot: int) -> int:
        return self._add("load", slot)

    def valid(self, slot: int) -> int:
        return self._add("valid", slot)

    def param(self, value: object, column: str | None, is_list: bool = False) -> int:
        item = Param(tuple(value) if is_list else value, column, is_list)
        key = (column, is_list, type(item.value), repr(item.value))
        return self._add("param", self._intern(self.params, item, key))

    def flag(self, column: str, name: str) -> int:
        return self._add("flag", self._intern(self.flags, (column, name)))

    def const(self, value: bool | int) -> int:
        return self._add("const", value)

    def is_const(self, step: int, value: bool) -> bool:
        # Hot in and_/or_ over wide trees: compare indices, not Step objects.
        return step == (self._true if value else self._false)

    def __post_init__(self) -> None:
        self._true, self._false = self.const(True), self.const(False)

    # ---- boolean algebra, folding constants ------------------------------------------------
    def and_(self, *xs: int) -> int:
        if any(self.is_const(x, False) for x in xs):
            return self.const(False)
        xs = tuple(dict.fromkeys(x for x in xs if not self.is_const(x, True)))
        if not xs:
            return self.const(True)
        return xs[0] if len(xs) == 1 else self._add("and", *sorted(xs))

    def or_(self, *xs: int) -> int:
        if any(self.is_const(x, True) for x in xs):
            return self.const(True)
        xs = tuple(dict.fromkeys(x for x in xs if not self.is_const(x, False)))
        if not xs:
            return self.const(False)
        return xs[0] if len(xs) == 1 else self._add("or", *sorted(xs))

    def not_(self, x: int) -> int:
        step = self.steps[x]
        if step.op == "const":
            return self.const(not step.args[0])
        if step.op == "not":
            return step.args[0]
        return self._add("not", x)

    # ---- arithmetic and comparisons ------------------------------------------------------
    def cmp(self, op: str, a: int, b: int) -> int:
        return self._add(op, a, b)

    def lt(self, a: int, b: int) -> int:
        return self._add("lt", a, b)

    def le(self, a: int, b: int) -> int:
        return self._add("le", a, b)

    def gt(self, a: int, b: int) -> int:
        return self._add("gt", a, b)

    def ge(self, a: int, b: int) -> int:
        return self._add("ge", a, b)

    def eq(self, a: int, b: int) -> int:
        return self._add("eq", a, b)

    def op(self, name: str, *args) -> int:
        assert name in ALL_OPS, name
        return self._add(name, *args)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def build(self, root: int) -> Program:
        """Freeze, keeping only what the root needs, renumbered in order."""
        needed = {root}
        for i in range(root, -1, -1):
            if i in needed and self.steps[i].op not in LEAF_OPS:
                needed.update(self.steps[i].args)
        order = sorted(needed)
        renumber = {old: new for new, old in enumerate(order)}
        tables = {"load": self.slots, "valid": self.slots, "param": self.params,
                  "flag": self.flags}
        kept: dict[str, dict[int, int]] = {"load": {}, "param": {}, "flag": {}}
        for old in order:  # table entries in first-use order
            s = self.steps[old]
            if s.op in tables:
                group = kept["load" if s.op == "valid" else s.op]
                group.setdefault(s.args[0], len(group))
        steps = []
        for old in order:
            s = self.steps[old]
            if s.op in tables:
                steps.append(Step(s.op, (kept["load" if s.op == "valid" else s.op][s.args[0]],)))
            elif s.op == "const":
                steps.append(s)
            else:
                steps.append(Step(s.op, tuple(renumber[a] for a in s.args)))

        def pick(table: list, group: dict[int, int]) -> tuple:
            return tuple(table[old] for old, _ in sorted(group.items(), key=lambda kv: kv[1]))

        slots = pick(self.slots, kept["load"])
        used = {s.column for s in slots}
        types = tuple((c, t) for c, t in self.column_types.items() if c in used)
        return Program(slots, pick(self.params, kept["param"]), pick(self.flags, kept["flag"]),
                       tuple(steps), tuple(self.notes), types)
