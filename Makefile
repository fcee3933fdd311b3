# Quick start on a fresh machine with only Python 3 and make:
#   make demo   - builds .venv, installs the package, runs the CLI on the bundled example
#   make test   - installs the test extras and runs lint + the whole suite (doctests included)
#                 in .venv (the newest polars), then the library suite again in .venv-floor
#                 (the oldest polars pyproject.toml allows, pinned exactly; `make test-floor`
#                 runs only that one; the environment tests run once, at the newest)
#   make docs   - renders the chart images and builds the documentation site (--strict)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
# The floor venv pins polars to the lower bound of `dependencies` in pyproject.toml,
# read from there so that the claim and the test cannot drift apart.
# ... and uses the oldest Python that requires-python allows (3.10) when the machine has
# it (a python3.10 on PATH or in pyenv), else python3: the floor of both at once.
FLOOR_PYTHON ?= $(shell for p in python3.10 $(HOME)/.pyenv/versions/3.10*/bin/python3.10; do \
	$$p -c 'import sys' >/dev/null 2>&1 && { echo $$p; break; }; done)
FLOOR_VENV   := .venv-floor
FLOOR_BIN    := $(FLOOR_VENV)/bin
FLOOR_PIP    := $(FLOOR_BIN)/python -m pip
POLARS_FLOOR := $(shell sed -n 's/^dependencies = .*"polars>=\([0-9.]*\)".*/\1/p' pyproject.toml)

.PHONY: demo test test-newest test-floor lint docs bench bench-big clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PIP) install --quiet -e '.[test]'
	touch $@

$(FLOOR_BIN)/python:
	$(or $(FLOOR_PYTHON),$(PYTHON)) -m venv $(FLOOR_VENV)
	$(FLOOR_PIP) install --quiet --upgrade pip

# One resolve with the exact pin: pip fails if the pin contradicts pyproject.toml.
$(FLOOR_VENV)/.installed-test: $(FLOOR_BIN)/python pyproject.toml
	@test -n "$(POLARS_FLOOR)" || { echo "no polars>=X.Y in pyproject.toml dependencies" >&2; exit 1; }
	$(FLOOR_PIP) install --quiet -e '.[test]' 'polars==$(POLARS_FLOOR)'
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
	$(BIN)/ruff check pl_metrics tests benchmarks examples docs tools

test: test-newest test-floor

# -n auto: one worker per core (pytest-xdist); the suite's tests are independent.
# --dist loadgroup: the tests of one xdist_group share a worker (the Spark tests: one
# Spark session, one JVM, instead of one per worker); at pytest 9.2 / xdist 3.8 the
# groups are ignored (pytest-xdist#1386) and each worker may start its own session
test-newest: lint
	$(BIN)/python -m pytest -n auto --dist loadgroup

# The library suite again at the floor; the environment tests (Spark, mypy, the docs,
# the CLI in subprocesses, the browser: tests/conftest.py) ran once, at the newest.
# The property tests draw a quarter of their examples there (PLM_FLOOR_EXAMPLES,
# tests/conftest.py): the full search runs at the newest.
test-floor: $(FLOOR_VENV)/.installed-test
	$(FLOOR_BIN)/python -c 'import sys, polars; print("floor: polars", polars.__version__, "python", sys.version.split()[0])'
	PLM_FLOOR_EXAMPLES=0.25 $(FLOOR_BIN)/python -m pytest -n auto --dist loadgroup -m "not environment"

docs: $(VENV)/.installed-docs
	$(BIN)/python docs/make_images.py
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# Side-by-side benchmarks (minutes); figures go to docs/benchmarks.md by hand.
bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/bench_report.py
	$(BIN)/python benchmarks/bench_ranking.py
	$(BIN)/python benchmarks/bench_scoring.py

# Out-of-core: generates 100M rows (~3 GB) under benchmarks/data, then measures.
bench-big: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/make_data.py --rows 100_000_000 --out benchmarks/data/d100m
	$(BIN)/python benchmarks/bench_memory.py benchmarks/data/d100m

clean:
	rm -rf $(VENV) $(FLOOR_VENV) .pytest_cache .hypothesis .ruff_cache site docs/img
