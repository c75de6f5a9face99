# prunekit: `make demo` and `make test` set everything up on a fresh machine (Python >= 3.10 with
# venv is the only prerequisite; Java is needed only for the Spark extra).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-test

.PHONY: venv demo test test-deep test-fast lint clean fuzz bench

# uv installs the test extra in about half pip's time on a fresh machine (it fetches and
# unpacks in parallel); pip only installs uv. pyspark comes as a source archive, so its wheel
# is built here: stored, not compressed, the install takes 23 s instead of 37 s on the 2-core
# VM (compressing its jars into the wheel took most of the difference). uv builds that wheel
# again for every new venv and keeps each build in its cache, 2.4 GB a time (69 GB had piled
# up on one machine and filled its disk); pruning drops the builds nothing refers to.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check uv
	$(BIN)/uv pip install -q --python $(BIN)/python \
		--config-settings-package "pyspark:--build-option=--compression=stored" -e ".[test]"
	$(BIN)/uv cache prune -q
	touch $(STAMP)

venv: $(STAMP)

demo: venv
	$(BIN)/python -m prunekit.demo

# The suite CI runs, over every core (JOBS=1 for one process). The goal is 8 minutes on two
# cores with empty kernel caches, set-up included: 5.4 to 6.6 minutes in three runs on a 2-core VM
# where the suite took 8.8 before the deep tier took the benchmarks' dry run and the random
# checks' full sizes (tests/conftest.py); that VM's speed has varied by a fifth, and on a
# slower 2-core machine in December 2026 the suite took 9.0 and 9.4 minutes cold, over the
# goal. Both cores stay busy throughout, so more workers do not help (three took 4% longer): of
# about 700 worker-seconds, a third is the Spark tests (mostly planning and Janino code
# generation on the driver JVM; Spark's interpreted expressions took longer still) and much of
# the rest Numba compiling kernels (the compiled interpreter alone 20 s). An idle worker takes
# pending tests from a busy one (worksteal): with plain load balancing one worker once finished
# 90 s before the other. The Spark tests come first in the collection, so they all land on one
# worker and one JVM (tests/conftest.py). Every hand-written case through both
# interpreters, the fused kernel for a sample of them that takes every path of its generator
# (checked), the property tests at their make-test budgets (tests/conftest.py), all of TPC-H
# and a third of TPC-DS, Spark, the docs and the README. The slowest tests are listed last.
#
# The suite starts hundreds of Python processes (its workers, fresh-process and command-line
# tests, Spark's Python workers). With PYTHONDONTWRITEBYTECODE set, as some machines set it, each
# would compile from source every module it imports, 0.6 s more for a process importing
# prunekit, Numba, pyspark and DuckDB; so the suite's processes write bytecode (into the
# project's own venv and its git-ignored __pycache__ folders) and read it back.
JOBS ?= auto
WRITE_BYTECODE := PYTHONDONTWRITEBYTECODE=
test: venv
	$(WRITE_BYTECODE) $(BIN)/python -m pytest -q -n $(JOBS) --dist worksteal --check-kernel-paths \
		--durations=15
	$(BIN)/asv check --python=same

# What make test leaves out: the fused kernel for every hand-written case, the property tests
# at their full budgets, the random checks at their full sizes and the tests marked deep (the
# asv suite's dry run among them); the 99 TPC-DS queries in Spark on a scale-1 lake, natively and
# through prunekit.spark_glue.sql, with equal rows (benchmarks/tpc/spark_run.py); then a
# bounded fuzz (FUZZ_MINUTES of predicates, then JOIN_FUZZ_MINUTES of join queries, then
# DUCKDB_FUZZ_MINUTES of DuckDB-dialect predicates, DATAFUSION_FUZZ_MINUTES of DataFusion's).
test-deep: venv
	$(WRITE_BYTECODE) $(BIN)/python -m pytest -q -n $(JOBS) --deep --check-kernel-paths \
		--durations=15
	$(BIN)/python -m benchmarks.tpc.spark_run --scale $(DEEP_TPCDS_SCALE) --check
	$(MAKE) fuzz FUZZ_MINUTES=$(DEEP_FUZZ_MINUTES) JOIN_FUZZ_MINUTES=$(DEEP_JOIN_FUZZ_MINUTES) \
		SPARK_JOIN_FUZZ_MINUTES=$(DEEP_SPARK_JOIN_FUZZ_MINUTES) \
		DUCKDB_FUZZ_MINUTES=$(DEEP_DUCKDB_FUZZ_MINUTES) \
		DATAFUSION_FUZZ_MINUTES=$(DEEP_DATAFUSION_FUZZ_MINUTES)
DEEP_FUZZ_MINUTES ?= 10
DEEP_TPCDS_SCALE ?= 1
DEEP_JOIN_FUZZ_MINUTES ?= 5
DEEP_SPARK_JOIN_FUZZ_MINUTES ?= 3
DEEP_DUCKDB_FUZZ_MINUTES ?= 3
DEEP_DATAFUSION_FUZZ_MINUTES ?= 3

# The edit loop: everything but the Spark and the slow tests (see tests/conftest.py).
test-fast: venv
	$(WRITE_BYTECODE) $(BIN)/python -m pytest -q -n $(JOBS) -m "not spark and not slow"

# The asv suite, each benchmark once (about 8 minutes on 2 cores), then one table of ratios
# (printed even when a benchmark failed; the exit status is asv's).
# An existing environment saves results only under an explicit commit hash.
bench: venv
	$(BIN)/asv run --python=same --quick --show-stderr --set-commit-hash $$(git rev-parse HEAD); \
	status=$$?; $(BIN)/python -m benchmarks.summary; exit $$status

# Differential fuzzing against DataFusion and the reference evaluator; failures are written as
# minimal JSON cases into tests/regressions/ (replayed by make test). Then random join queries
# over random star and snowflake lakes, kept row groups against all of them in DuckDB, and the
# same queries in Spark through prunekit.spark_glue.sql against Spark's plain query. Last,
# predicates written in DuckDB's SQL (dialect="duckdb") against DuckDB's own rows, and in
# DataFusion's (dialect="datafusion") against DataFusion's rows and its own row-group pruning;
# failures go to tests/regressions/duckdb/ and tests/regressions/datafusion/. Then the grid of
# operands and literal forms against each engine's rows, one value per row group, for as long.
FUZZ_MINUTES ?= 30
JOIN_FUZZ_MINUTES ?= 10
SPARK_JOIN_FUZZ_MINUTES ?= 5
DUCKDB_FUZZ_MINUTES ?= 10
DATAFUSION_FUZZ_MINUTES ?= 10
fuzz: venv
	nice -n 10 $(BIN)/python -m tests.support.fuzz --minutes $(FUZZ_MINUTES)
	nice -n 10 $(BIN)/python -m tests.support.join_fuzz --minutes $(JOIN_FUZZ_MINUTES)
	nice -n 10 $(BIN)/python -m tests.support.join_fuzz --spark --queries 10 \
		--minutes $(SPARK_JOIN_FUZZ_MINUTES)
	nice -n 10 $(BIN)/python -m tests.support.duckdb_differential --minutes $(DUCKDB_FUZZ_MINUTES)
	nice -n 10 $(BIN)/python -m tests.support.datafusion_differential \
		--minutes $(DATAFUSION_FUZZ_MINUTES)
	nice -n 10 $(BIN)/python -m tests.support.engine_grid --predicates 100000 \
		--minutes $(DATAFUSION_FUZZ_MINUTES)
	nice -n 10 $(BIN)/python -m tests.support.engine_grid --predicates 100000 --engine duckdb \
		--minutes $(DUCKDB_FUZZ_MINUTES)

lint: venv
	$(BIN)/python -m ruff check .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
