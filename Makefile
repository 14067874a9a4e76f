# Two commands do everything: `make run` and `make test`. Each creates .venv with the first
# Python >= 3.12 found and installs into it; a stamp file makes the install idempotent.
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: goldens run test bench lint venv test-deps migrate demo clean backup load purge

$(PY):
	"$$(scripts/find-python)" -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(PY)
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PIP) install --quiet -e '.[test,dev]'
	touch $@

$(VENV)/.installed-bench: pyproject.toml | $(PY)
	$(PIP) install --quiet -e '.[test,dev,bench]'
	touch $@

venv: $(VENV)/.installed

migrate: venv
	$(PY) manage.py migrate --noinput

demo: migrate
	$(PY) manage.py load_demo

run: demo
	$(PY) manage.py runserver $(HOST):$(PORT)

# The whole suite with coverage of rules/, battlefield/ and arbiter/ (printed; under 93 % fails).
COVERAGE_ARGS ?= --cov --cov-report=term --cov-fail-under=93
test: $(VENV)/.installed-test
	$(PY) -m pytest -n 2 $(COVERAGE_ARGS) $(PYTEST_ARGS)

bench: $(VENV)/.installed-bench
	$(PY) bench/run.py

# Re-record the verdict regression corpus (tests/regression) from the engine as it is now; review
# the result with `git diff tests/regression/goldens` before committing it.
goldens: $(VENV)/.installed-test
	$(PY) -m tests.regression.corpus --write

lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# A consistent copy of the database into backups/ (SQLite online backup, or pg_dump when
# DATABASE_URL is PostgreSQL); restore: docs/deploy.md.
backup: venv
	$(PY) manage.py backup --output $(or $(BACKUP_DIR),backups)

# Scenarios deleted over 30 days ago and old rate-limit counters (run daily).
purge: venv
	$(PY) manage.py purge

# Load test: gunicorn on 127.0.0.1 (a free port) with a scratch database, 50 clients for 60 s.
LOAD_ARGS ?= --clients 50 --seconds 60
load: $(VENV)/.installed-test
	$(PY) scripts/load.py $(LOAD_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache
