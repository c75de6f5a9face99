"""The compiled interpreter (``kernels/vm.py``) answers as the NumPy interpreter does.

Whole predicates are compared in ``test_property.py`` (hypothesis examples), in every test of
``cases.BACKENDS`` and in ``test_kernel_paths.py``. Here: random programs of single ops over
statistics of every dtype, which reach NumPy's typing rules (``vmtypes.py``) far beyond what
predicates build; which programs it takes and which it leaves to NumPy; its registers; and
how ``classify`` uses it.
"""

import decimal

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import prunekit as pk
from benchmarks.bench_latency import new_shape_sql
from benchmarks.workload import QUERIES
from benchmarks.workload import SCHEMA as BENCH_SCHEMA
from prunekit.errors import UnsupportedError
from prunekit.expr.program.ir import Param, Program, Slot, Step
from prunekit.kernels import interpret, machine, run, vmcode
from prunekit.kernels.inputs import Prepared
from prunekit.kernels.slots import SlotData
from tests.support.layouts import PREDICATES, SCHEMA, random_statistics

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
          np.float32, np.float64]


def _vm_outcomes(program: Program, prepared: Prepared) -> np.ndarray:
    out = np.full(prepared.n, -1, np.int8)
    call = vmcode.assemble(program, prepared)
    assert machine.wait()(0, prepared.n, out, *call.args) == 0
    return out


@st.composite
def _values(draw, dtype, n):
    """Values of ``dtype`` with its extremes (and NaN, infinities, -0.0 for floats)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        special = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, 16777217.0, 2.0**63, -2.0**63]
        pick = st.one_of(st.sampled_from(special), st.floats(-2.0**60, 2.0**60, width=32))
    else:
        info = np.iinfo(dtype)
        pick = st.one_of(st.sampled_from([info.min, info.max, 0, 1, -1 if info.min else 2]),
                         st.integers(int(info.min), int(info.max)))
    return np.array(draw(st.lists(pick, min_size=n, max_size=n)), dtype)


# Ops on values, with how many value operands they take; each program ends by comparing
# the results, combining the booleans and taking the outcome.
VALUE_OPS = {"add": 2, "mul": 2, "min2": 2, "max2": 2, "floordiv": 2, "tofloat": 1,
             "tofloat32": 1, "toint": 1}
BOOL_OPS = {"lt": 2, "le": 2, "gt": 2, "ge": 2, "eq": 2, "within": 2, "isnan": 1,
            "fits_int64": 1}


@st.composite
def _programs(draw):
    """A program over three slots of random dtypes (some masked), scalar parameters and
    Python constants: random value ops, then random comparisons, and/or/not, outcome."""
    n = draw(st.integers(1, 40))
    slots, data, steps, params = [], [], [], []
    for k in range(3):
        dtype = draw(st.sampled_from(DTYPES))
        values = draw(_values(dtype, n))
        bitmap = (np.packbits(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))),
                              bitorder="little") if draw(st.booleans()) else None)
        slots.append(Slot(f"c{k}", "min"))
        data.append(SlotData(values, bitmap))
        steps.append(Step("load", (k,)))
        steps.append(Step("valid", (k,)))
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["int64", "float64", "uint64"]))
        value = draw(_values(kind, 1))[0]
        params.append(value)
        steps.append(Step("param", (len(params) - 1,)))
    for _ in range(draw(st.integers(0, 2))):
        steps.append(Step("const", (draw(st.sampled_from([0, 1, 2, -3, 2**40, True, False])),)))
    numbers = [i for i, s in enumerate(steps) if s.op != "valid"]
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(sorted(VALUE_OPS)))
        steps.append(Step(op, tuple(draw(st.sampled_from(numbers))
                                    for _ in range(VALUE_OPS[op]))))
        numbers.append(len(steps) - 1)
    booleans = [i for i, s in enumerate(steps) if s.op == "valid"]
    for _ in range(draw(st.integers(1, 5))):
        op = draw(st.sampled_from(sorted(BOOL_OPS)))
        steps.append(Step(op, tuple(draw(st.sampled_from(numbers))
                                    for _ in range(BOOL_OPS[op]))))
        booleans.append(len(steps) - 1)
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(["and", "or", "not"]))
        arity = 1 if op == "not" else draw(st.integers(2, 4))
        steps.append(Step(op, tuple(draw(st.sampled_from(booleans)) for _ in range(arity))))
        booleans.append(len(steps) - 1)
    steps.append(Step("outcome", tuple(draw(st.sampled_from(booleans)) for _ in range(4))))
    program = Program(tuple(slots), tuple(Param(p, None) for p in params), (), tuple(steps))
    return program, Prepared(n, data, params, [])


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(_programs())
def test_random_programs_answer_as_numpy(case):
    program, prepared = case
    try:
        with np.errstate(all="ignore"):
            expected = interpret.interpret(program, prepared)
    except (OverflowError, TypeError, ValueError):
        assume(False)  # NumPy itself refuses it: no predicate builds such a program
    try:
        got = _vm_outcomes(program, prepared)
    except vmcode.NotAssembled:
        assume(False)  # left to the NumPy interpreter: counted below
    np.testing.assert_array_equal(got, expected)


def test_random_programs_are_mostly_assembled(examples):
    """The differential test above is not vacuous: most random programs run on the VM (57-69%
    in random runs of 300-600; the rest use ops on types no predicate builds: floor division of
    floats, uint64 sums, ``within`` of mixed types). Derandomized, so the count is the same
    every run."""
    assembled = tried = 0

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True)
    @given(_programs())
    def count(case):
        nonlocal assembled, tried
        try:
            with np.errstate(all="ignore"):
                interpret.interpret(*case)
        except (OverflowError, TypeError, ValueError):
            return
        tried += 1
        try:
            vmcode.assemble(*case)
            assembled += 1
        except vmcode.NotAssembled:
            pass

    count()
    assert assembled > 0.5 * tried, (assembled, tried)


@pytest.mark.parametrize("text", PREDICATES + [f"Q{i}" for i in range(1, 8)]
                         + [f"new shape {i}" for i in range(12)])
def test_every_predicate_of_the_suites_is_assembled(text):
    """Everything the kernel tests and the benchmarks evaluate runs on the VM, not on NumPy."""
    if text.startswith("Q"):
        pred = pk.PruningPredicate(QUERIES[text], BENCH_SCHEMA)
        stats = None
    elif text.startswith("new shape"):
        pred = pk.PruningPredicate(new_shape_sql(int(text.split()[-1])), BENCH_SCHEMA)
        stats = None
    else:
        pred = pk.PruningPredicate(text, SCHEMA)
        stats = pk.Statistics.from_arrow(random_statistics(np.random.default_rng(3), 500))
    if stats is None:
        from benchmarks.workload import statistics

        stats = statistics(2000)
    batch = stats.table.to_batches()[0]
    prepared = run.prepare(pred.program, batch, stats.nan_in_bounds, stats.no_nan)
    np.testing.assert_array_equal(_vm_outcomes(pred.program, prepared),
                                  interpret.interpret(pred.program, prepared))


def test_registers_are_reused_and_never_written_while_read():
    leaves = " OR ".join(f"(x > {i} AND f < {i}.5)" for i in range(60))
    pred = pk.PruningPredicate(leaves, SCHEMA)
    stats = pk.Statistics.from_arrow(random_statistics(np.random.default_rng(4), 100))
    prepared = run.prepare(pred.program, stats.table.to_batches()[0], stats.nan_in_bounds,
                           stats.no_nan)
    call = vmcode.assemble(pred.program, prepared)
    # Reused, not one per step (most of those left are the 120 literals, and the 60 ANDs
    # that the final OR reads)
    assert len(pred.program.steps) > 1000 and call.sizes.sum() < len(pred.program.steps) / 4
    for op, dst, a, b, *_ in call.code.tolist():
        if op in (vmcode.AND, vmcode.OR):
            assert dst not in (a, b)  # in-place rows make LLVM run the scalar loop


def test_a_new_shape_is_answered_by_the_vm_once_it_is_loaded(monkeypatch, tmp_path):
    machine.wait()
    monkeypatch.setattr(run, "_ready", {})
    monkeypatch.setattr(run, "start_build", lambda *a: None)  # stays a new shape
    monkeypatch.setattr(run, "interpret", lambda *a, **k: pytest.fail("NumPy interpreted"))
    calls = []
    real = machine.ready()
    monkeypatch.setattr(machine, "ready", lambda: lambda *a: calls.append(a[1]) or real(*a))
    pred = pk.PruningPredicate("x > 3 AND (f < 2.5 OR x IN (1, 2, 9))", SCHEMA)
    stats = random_statistics(np.random.default_rng(6), 300)
    got = pred.classify(stats)
    assert calls == [300]
    monkeypatch.undo()
    np.testing.assert_array_equal(got, pred.classify(stats, backend="numpy"))


def test_programs_it_cannot_run_go_to_numpy(monkeypatch):
    def refuse(program, prepared):
        raise vmcode.NotAssembled("a reason")

    machine.wait()
    monkeypatch.setattr(run, "assemble", refuse)
    monkeypatch.setattr(run, "_ready", {})
    monkeypatch.setattr(run, "start_build", lambda *a: None)
    pred = pk.PruningPredicate("x > 3", SCHEMA)
    stats = random_statistics(np.random.default_rng(7), 50)
    np.testing.assert_array_equal(pred.classify(stats), pred.classify(stats, backend="numpy"))
    with pytest.raises(UnsupportedError, match="a reason"):
        pred.classify(stats, backend="vm")


def test_backend_names_are_checked():
    with pytest.raises(ValueError, match="'vm'"):
        pk.PruningPredicate("x > 3", SCHEMA).classify(
            random_statistics(np.random.default_rng(0), 5), backend="jit")


def test_decimal_statistics_are_read_with_their_stride():
    """Decimal bounds are the low words of 16-byte values: a strided view, read in place."""
    t = pa.decimal128(10, 2)
    values = pa.array([decimal.Decimal(v) for v in ("0.01", "2.50", "-0.03", "999.99")], t)
    stats = pa.table({"row_count": pa.array([5] * 4), "d": pa.StructArray.from_arrays(
        [values, values, pa.array([0] * 4)], ["min", "max", "null_count"])})
    pred = pk.PruningPredicate("d > 2.49", {"d": t})
    prepared = run.prepare(pred.program, stats.to_batches()[0], {}, frozenset())
    call = vmcode.assemble(pred.program, prepared)
    assert 2 in call.slots[:, 2]  # a stride of two int64 words
    assert pred.classify(stats, backend="vm").tolist() == [0, 2, 0, 2]


@pytest.mark.parametrize("short", ["values", "bitmap", "offsets"])
def test_statistics_shorter_than_the_batch_are_left_to_numpy(short):
    """The VM reads statistics through their addresses, without bounds checks: a buffer too
    short for the batch is never given to it."""
    n = 20
    values = np.arange(n, dtype=np.int64)
    bitmap = np.full(3, 255, np.uint8)
    if short == "values":
        data = SlotData(values[:n - 1], None)
    elif short == "bitmap":
        data = SlotData(values, bitmap[:2])
    else:
        data = SlotData(np.zeros(n, np.int32), None, keys_of=np.zeros(8, np.uint8))
    program = Program((Slot("x", "min"),), (), (), (
        Step("load", (0,)), Step("const", (3,)), Step("lt", (0, 1)), Step("valid", (0,)),
        Step("outcome", (2, 3, 3, 3))))
    with pytest.raises(vmcode.NotAssembled, match="shorter than the batch"):
        vmcode.assemble(program, Prepared(n, [data], [], []))
    vmcode.assemble(program, Prepared(n - 1 if short != "bitmap" else 16, [data], [], []))


def test_integer_floor_division_wraps_as_numpy_does():
    """INT64_MIN // -1 overflows: NumPy wraps it to INT64_MIN, and so does the compiled
    interpreter (LLVM's division leaves it undefined). Found by the random programs above."""
    n = 4
    lo = np.iinfo(np.int64).min
    program = Program(
        slots=(Slot("c0", "min"), Slot("c1", "min")), params=(), flags=(),
        steps=(Step("load", (0,)), Step("valid", (0,)), Step("load", (1,)), Step("valid", (1,)),
               Step("floordiv", (0, 2)), Step("const", (-5,)), Step("ge", (4, 5)),
               Step("const", (False,)), Step("outcome", (6, 7, 7, 7))))
    prepared = Prepared(n, [SlotData(np.array([lo, lo, 7, -7], np.int64), None),
                            SlotData(np.array([-1, 2, -1, 0], np.int64), None)], [], [])
    with np.errstate(all="ignore"):
        expected = interpret.interpret(program, prepared)
    np.testing.assert_array_equal(_vm_outcomes(program, prepared), expected)
    assert expected.tolist() == [0, 0, 0, 2]  # INT64_MIN, INT64_MIN / 2, -7, 0 against -5
