# ratecard: `make demo` and `make test` need only python3; everything else is installed into .venv from the
# hashed lock files (requirements-bootstrap.lock brings uv and setuptools, requirements.lock everything else).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DB     ?= var/prices.duckdb
SAMPLES_PORT ?= 8765
DASHBOARD    := pipelines/dashboard
PILOT_EXAMPLE := pipelines/samples/pilots/example.csv
TRAFFIC_EXAMPLE := pipelines/samples/pilots/traffic_example.csv
TRAINING_EXAMPLE := pipelines/samples/pilots/training_example.csv
VENDOR_STAMP := $(DASHBOARD)/vendor/.stamp
# What ruff lints and format-checks; mypy's packages are set in pyproject.toml.
LINT_PATHS := pipelines assets schemas warehouse ratecard tests bench
export DAGSTER_DISABLE_TELEMETRY := 1
export GX_ANALYTICS_ENABLED := False
export TQDM_DISABLE := 1
# Bytecode caches are written even where the environment says not to (Python images set PYTHONDONTWRITEBYTECODE):
# the suite starts hundreds of Python processes, and each would compile ratecard's modules (and pytest rewrite
# the test modules) again, about 0.3 s of CPU a process.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test check reliability fuzz dev dev-offline bench soak lock show clean vendor browser docs

$(STAMP): requirements.lock requirements-bootstrap.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r requirements-bootstrap.lock
	$(BIN)/uv pip install --python $(BIN)/python --quiet --require-hashes --compile-bytecode -r requirements.lock
	$(BIN)/uv pip install --python $(BIN)/python --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

## demo: refresh every source offline from the bundled samples into $(DB), land the example pilots, plans and traffic
## profiles and training runs, print the workloads' deployment decisions, the training spends and the headline tables,
## write the dashboard
demo: $(STAMP) $(VENDOR_STAMP)
	$(BIN)/ratecard refresh --offline --db $(DB)
	$(BIN)/ratecard pilot import $(PILOT_EXAMPLE) --db $(DB)
	$(BIN)/ratecard pilot plan --workload chat-8b --provider Hyperstack --baseline 'NVIDIA H100 SXM' --one-time-cost 40000 \
	  --monthly-maintenance 500 --monthly-volume 2000000000 --lifetime-months 12 --note 'EXAMPLE ONLY' --db $(DB)
	$(BIN)/ratecard pilot plan --workload summarise-batch --provider Hyperstack --baseline 'NVIDIA H100 SXM' \
	  --one-time-cost 60000 --monthly-maintenance 1000 --monthly-volume 50000000000 --lifetime-months 24 \
	  --note 'EXAMPLE ONLY' --db $(DB)
	$(BIN)/ratecard pilot traffic --csv $(TRAFFIC_EXAMPLE) --db $(DB)
	$(BIN)/ratecard pilot costs --workload chat-8b --db $(DB)
	$(BIN)/ratecard pilot costs --workload summarise-batch --db $(DB)
	$(BIN)/ratecard pilot training $(TRAINING_EXAMPLE) --db $(DB)
	$(BIN)/ratecard show --db $(DB)
	$(BIN)/ratecard dashboard --db $(DB)
	$(BIN)/ratecard decide --db $(DB)

## test: the whole suite in three pytest-xdist workers (on two cores a third overlaps the others' waits on
## subprocesses, PostgreSQL and timeouts; tests that share a landed warehouse stay in one worker through their
## xdist_group), then its ten slowest tests (the dashboard's browser test needs Debian's chromium)
test: $(STAMP) $(VENDOR_STAMP) browser
	$(BIN)/python -m pytest -n 3 --dist loadgroup --durations=10

## vendor: the dashboard's browser libraries from npm (versions and hashes in pipelines/dashboard/package-lock.json)
vendor: $(VENDOR_STAMP)
$(VENDOR_STAMP): $(DASHBOARD)/package.json $(DASHBOARD)/package-lock.json
	cd $(DASHBOARD) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	mkdir -p $(DASHBOARD)/vendor
	cp $(DASHBOARD)/node_modules/vega/build/vega.min.js $(DASHBOARD)/node_modules/vega-lite/build/vega-lite.min.js \
	   $(DASHBOARD)/node_modules/vega-embed/build/vega-embed.min.js \
	   $(DASHBOARD)/node_modules/simple-datatables/dist/umd/simple-datatables.js $(DASHBOARD)/vendor/
	cp $(DASHBOARD)/node_modules/simple-datatables/dist/style.css $(DASHBOARD)/vendor/simple-datatables.css
	touch $@

## browser: Debian's chromium for the browser test; installed through apt when missing and run as root, without the
## desktop packages its libraries recommend (19 packages instead of 106; 18 s instead of 40 s here)
browser:
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y --no-install-recommends chromium; \
	  else echo "chromium is missing: run  sudo apt-get install -y --no-install-recommends chromium  (Debian's package)" >&2; exit 1; fi; }

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
	$(BIN)/python -m pytest tests/reliability -q -n auto --dist loadgroup

## fuzz: the parser fuzz tests with 1,000 mutants per source and scenario (`make test` draws 60), to look for new
## findings; pin each one found in tests/reliability/test_fuzz_parsers.py
fuzz: $(STAMP)
	RATECARD_FUZZ_EXAMPLES=1000 $(BIN)/python -m pytest tests/reliability/test_fuzz_parsers.py -q -n auto

## show: print the current views of $(DB)
show: $(STAMP)
	$(BIN)/ratecard show --db $(DB)

## dev: the Dagster UI (assets, checks, the daily schedule) on http://127.0.0.1:3000
dev: $(STAMP)
	mkdir -p var/dagster && ln -sf ../../dagster.yaml var/dagster/dagster.yaml
	DAGSTER_HOME=$(CURDIR)/var/dagster $(BIN)/dagster dev -m pipelines.definitions -h 127.0.0.1 -p 3000

## dev-offline: `make dev` with no network: `ratecard samples serve` answers for every source on 127.0.0.1:$(SAMPLES_PORT)
## (RATECARD_OFFLINE_BASE_URL points the sources there) while the UI runs; both stop together
dev-offline: $(STAMP)
	@$(BIN)/ratecard samples serve --port $(SAMPLES_PORT) & server=$$!; \
	trap 'kill $$server 2>/dev/null' EXIT; trap 'exit 130' INT TERM; \
	sleep 1; kill -0 $$server 2>/dev/null || exit 1; \
	RATECARD_OFFLINE_BASE_URL=http://127.0.0.1:$(SAMPLES_PORT) $(MAKE) --no-print-directory dev

## bench: speed ratios measured in one run
bench: $(STAMP)
	$(BIN)/python -m bench

## soak: a month of daily refreshes with faults and kills, on a DuckDB file and on a DuckLake (PostgreSQL at
## 127.0.0.1:5432), every invariant checked after each day (bench/soak.py); SEED and DAYS change the month
soak: $(STAMP)
	$(BIN)/python -m bench.soak --days $(or $(DAYS),30) --seed $(or $(SEED),1)

## docs: regenerate docs/data-dictionary.md from the COMMENT ON text of a freshly built warehouse
docs: $(STAMP)
	$(BIN)/python -m pipelines.cli.dictionary docs/data-dictionary.md

## lock: re-resolve requirements.lock from pyproject.toml, and the DuckDB 1.x clients' locks (hashes, no index URLs)
lock: $(STAMP)
	$(BIN)/uv pip compile pyproject.toml --extra test --extra dev --extra deploy --generate-hashes --python-version 3.11 --no-header -o requirements.lock
	for client in tests/clients/*.in; do \
	  $(BIN)/uv pip compile $$client --generate-hashes --python-version 3.11 --no-header -o $${client%.in}.lock || exit 1; \
	done

clean:
	rm -rf $(VENV) .pytest_cache var/dagster .mypy_cache .ruff_cache
