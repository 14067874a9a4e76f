# Two commands do everything: `make run` and `make test`. Each creates .venv with the first
# Python >= 3.12 found and installs into it from the lock files in requirements/ (exact
# versions, checked against their hashes; `make lock` rewrites them from pyproject.toml); a
# stamp file makes the install idempotent.
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: goldens run test bench lint venv test-deps migrate demo clean backup load purge serve lock
LOCKS := requirements

$(PY):
	"$$(scripts/find-python)" -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.installed: $(LOCKS)/base.txt pyproject.toml | $(PY)
	$(PIP) install --quiet --require-hashes -r $(LOCKS)/base.txt
	$(PIP) install --quiet --no-deps -e .
	touch $@

$(VENV)/.installed-test: $(LOCKS)/test.txt pyproject.toml | $(PY)
	$(PIP) install --quiet --require-hashes -r $(LOCKS)/test.txt
	$(PIP) install --quiet --no-deps -e .
	touch $@

$(VENV)/.installed-bench: $(LOCKS)/bench.txt pyproject.toml | $(PY)
	$(PIP) install --quiet --require-hashes -r $(LOCKS)/bench.txt
	$(PIP) install --quiet --no-deps -e .
	touch $@

# The lock files, all three from pyproject.toml in one go (uv, hashes for every platform's
# files, Python 3.12 and newer): base (make run, make serve), test (+ test and dev extras),
# bench (every extra). Run after changing dependencies in pyproject.toml; to upgrade what is
# pinned, `make lock UPGRADE=--upgrade` (or UPGRADE="--upgrade-package django"). A test fails
# when pyproject.toml names a package that a lock file lacks.
UV_COMPILE = $(VENV)/bin/uv pip compile pyproject.toml --quiet --generate-hashes --universal \
	--python-version 3.12 $(UPGRADE)
lock: | $(PY)
	$(PIP) install --quiet 'uv>=0.13,<0.14'
	UV_CUSTOM_COMPILE_COMMAND="make lock" $(UV_COMPILE) -o $(LOCKS)/base.txt
	UV_CUSTOM_COMPILE_COMMAND="make lock" $(UV_COMPILE) --extra test --extra dev -o $(LOCKS)/test.txt
	UV_CUSTOM_COMPILE_COMMAND="make lock" $(UV_COMPILE) --all-extras -o $(LOCKS)/bench.txt

venv: $(VENV)/.installed

migrate: venv
	$(PY) manage.py migrate --noinput

demo: migrate
	$(PY) manage.py load_demo

# Development: DEBUG on (settings default it off), for `run` and the migrate/demo it needs.
run: export DEBUG ?= true
run: demo
	$(PY) manage.py runserver $(HOST):$(PORT)

# The production stack from this checkout and .env (ENV_FILE=... names another file): migrate,
# collectstatic, load_demo, gunicorn (gthread) on $(HOST):$(PORT), daily backup and purge in a
# scheduler thread. README "Run your club's site"; scripts/serve.py.
serve: venv
	$(PY) scripts/serve.py --bind $(HOST):$(PORT)

# The whole suite with coverage of rules/, battlefield/ and arbiter/ (printed; under 93 % fails).
COVERAGE_ARGS ?= --cov --cov-report=term --cov-fail-under=93
test: $(VENV)/.installed-test
	$(PY) -m pytest -n 2 $(COVERAGE_ARGS) $(PYTEST_ARGS)

bench: export DEBUG ?= true
bench: $(VENV)/.installed-bench
	$(PY) bench/run.py

# Re-record the verdict regression corpus (tests/regression) from the engine as it is now; review
# the result with `git diff tests/regression/goldens` before committing it.
goldens: $(VENV)/.installed-test
	$(PY) -m tests.regression.corpus --write

# mypy's Django plugin imports the settings: a development run (DEBUG on, no SECRET_KEY).
lint: export DEBUG ?= true
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
