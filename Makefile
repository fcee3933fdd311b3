# Quick start on a fresh machine with only Python 3 and make:
#   make demo   - builds .venv, installs the package, runs the CLI on the bundled example
#   make test   - installs the test extras and runs lint + the whole suite (doctests included)
#   make docs   - renders the chart images and builds the documentation site (--strict)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip

.PHONY: demo test lint docs bench bench-big clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PIP) install --quiet -e '.[test]'
	touch $@

$(VENV)/.installed-docs: $(VENV)/.installed
	$(PIP) install --quiet -e '.[docs]'
	touch $@

$(VENV)/.installed-bench: $(VENV)/.installed
	$(PIP) install --quiet -e '.[bench]'
	touch $@

demo: $(VENV)/.installed
	$(BIN)/pl-metrics report examples/predictions.parquet --y-true y_true --y-pred y_pred --by region
	$(BIN)/pl-metrics summary examples/predictions.parquet --y-true y_true --y-pred y_pred --by region --by model_version

lint: $(VENV)/.installed-test
	$(BIN)/ruff check pl_metrics tests benchmarks examples docs

test: lint
	$(BIN)/python -m pytest

docs: $(VENV)/.installed-docs
	$(BIN)/python docs/make_images.py
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# Side-by-side benchmarks (minutes); figures go to docs/benchmarks.md by hand.
bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/bench_report.py
	$(BIN)/python benchmarks/bench_ranking.py

# Out-of-core: generates 100M rows (~3 GB) under benchmarks/data, then measures.
bench-big: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/make_data.py --rows 100_000_000 --out benchmarks/data/d100m
	$(BIN)/python benchmarks/bench_memory.py benchmarks/data/d100m

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache site docs/img
