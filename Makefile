# prunekit: `make demo` and `make test` set everything up on a fresh machine (Python >= 3.10 with
# venv is the only prerequisite; Java is needed only for the Spark extra).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-test

.PHONY: venv demo test lint clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $(STAMP)

venv: $(STAMP)

demo: venv
	$(BIN)/python -m prunekit.demo

test: venv
	$(BIN)/python -m pytest -q

lint: venv
	$(BIN)/python -m ruff check .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
