# ratecard: `make demo` and `make test` need only python3; everything else is installed into .venv from the
# hashed lock files (requirements-bootstrap.lock brings uv and setuptools, requirements.lock everything else).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DB     ?= warehouse/prices.duckdb
# What ruff lints and format-checks; mypy's packages are set in pyproject.toml.
LINT_PATHS := pipelines assets schemas warehouse tests bench
export DAGSTER_DISABLE_TELEMETRY := 1
export GX_ANALYTICS_ENABLED := False
export TQDM_DISABLE := 1

.PHONY: demo test check reliability dev bench lock show clean

$(STAMP): requirements.lock requirements-bootstrap.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r requirements-bootstrap.lock
	$(BIN)/uv pip install --python $(BIN)/python --quiet --require-hashes -r requirements.lock
	$(BIN)/uv pip install --python $(BIN)/python --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

## demo: refresh every source offline from the bundled samples into $(DB), then print the headline tables
demo: $(STAMP)
	$(BIN)/ratecard refresh --offline --db $(DB)
	$(BIN)/ratecard show --db $(DB)

## test: the whole suite
test: $(STAMP)
	$(BIN)/python -m pytest

## check: ruff lint, ruff format check and mypy; runs all three and fails if any failed (CI runs it before test)
check: $(STAMP)
	@status=0; \
	echo "== ruff check"; $(BIN)/ruff check $(LINT_PATHS) || status=1; \
	echo "== ruff format --check"; $(BIN)/ruff format --check $(LINT_PATHS) || status=1; \
	echo "== mypy"; $(BIN)/mypy || status=1; \
	exit $$status

## reliability: the fault matrix alone, with its report (one line per scenario, then per promise how many
## scenarios measured it and what they found)
reliability: $(STAMP)
	$(BIN)/python -m pytest tests/reliability -q

## show: print the current views of $(DB)
show: $(STAMP)
	$(BIN)/ratecard show --db $(DB)

## dev: the Dagster UI (assets, checks, the daily schedule) on http://127.0.0.1:3000
dev: $(STAMP)
	mkdir -p .dagster && ln -sf ../dagster.yaml .dagster/dagster.yaml
	DAGSTER_HOME=$(CURDIR)/.dagster $(BIN)/dagster dev -m pipelines.definitions -h 127.0.0.1 -p 3000

## bench: speed ratios measured in one run
bench: $(STAMP)
	$(BIN)/python -m bench

## lock: re-resolve requirements.lock from pyproject.toml, and the DuckDB 1.x clients' locks (hashes, no index URLs)
lock: $(STAMP)
	$(BIN)/uv pip compile pyproject.toml --extra test --extra dev --extra deploy --generate-hashes --python-version 3.11 --no-header -o requirements.lock
	for client in tests/clients/*.in; do \
	  $(BIN)/uv pip compile $$client --generate-hashes --python-version 3.11 --no-header -o $${client%.in}.lock || exit 1; \
	done

clean:
	rm -rf $(VENV) .pytest_cache .dagster .mypy_cache .ruff_cache
