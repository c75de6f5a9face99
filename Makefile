# prunekit: `make demo` and `make test` set everything up on a fresh machine (Python >= 3.10 with
# venv is the only prerequisite; Java is needed only for the Spark extra).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-test

.PHONY: venv demo test test-fast lint clean fuzz bench

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $(STAMP)

venv: $(STAMP)

demo: venv
	$(BIN)/python -m prunekit.demo

# The whole suite, over every core (JOBS=1 for one process); the slowest tests are listed last.
JOBS ?= auto
test: venv
	$(BIN)/python -m pytest -q -n $(JOBS) --durations=15
	$(BIN)/asv check --python=same

# The edit loop: everything but the Spark and the slow tests (see tests/conftest.py).
test-fast: venv
	$(BIN)/python -m pytest -q -n $(JOBS) -m "not spark and not slow"

# The asv suite, each benchmark once (about 8 minutes on 2 cores), then one table of ratios
# (printed even when a benchmark failed; the exit status is asv's).
# An existing environment saves results only under an explicit commit hash.
bench: venv
	$(BIN)/asv run --python=same --quick --show-stderr --set-commit-hash $$(git rev-parse HEAD); \
	status=$$?; $(BIN)/python -m benchmarks.summary; exit $$status

# Differential fuzzing against DataFusion and the reference evaluator; failures are written as
# minimal JSON cases into tests/regressions/ (replayed by make test). Then random join queries
# over random star and snowflake lakes, kept row groups against all of them in DuckDB.
FUZZ_MINUTES ?= 30
JOIN_FUZZ_MINUTES ?= 10
fuzz: venv
	nice -n 10 $(BIN)/python -m tests.support.fuzz --minutes $(FUZZ_MINUTES)
	nice -n 10 $(BIN)/python -m tests.support.join_fuzz --minutes $(JOIN_FUZZ_MINUTES)

lint: venv
	$(BIN)/python -m ruff check .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
