# Quick start on a fresh machine with only Python 3 and make:
#   make demo   - builds .venv, installs the package, runs the CLI on the bundled example
#   make test   - installs the test extras and runs lint + the whole suite (doctests included)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip

.PHONY: demo test lint bench bench-data clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PIP) install --quiet -e '.[test]'
	touch $@

$(VENV)/.installed-bench: $(VENV)/.installed
	$(PIP) install --quiet -e '.[bench]'
	touch $@

demo: $(VENV)/.installed
	$(BIN)/pl-metrics report examples/predictions.parquet --y-true y_true --y-pred y_pred --by region
	$(BIN)/pl-metrics summary examples/predictions.parquet --y-true y_true --y-pred y_pred --by region --by model_version

lint: $(VENV)/.installed-test
	$(BIN)/ruff check pl_metrics tests benchmarks examples

test: lint
	$(BIN)/python -m pytest

bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/bench_report.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache
