# `make run` and `make test` do every set-up step themselves on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
INSTALLED := $(VENV)/.installed

.PHONY: run test install migrate chromium services check-deploy format

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(INSTALLED): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(INSTALLED)

# The engine's bytecode, compiled once here: a machine with PYTHONDONTWRITEBYTECODE would otherwise
# compile every module again in each CLI process (~0.3 s of a 5 s timeline). Up to date: a no-op.
install: $(INSTALLED)
	$(BIN)/python -m compileall -q scheduler_core > /dev/null

migrate: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_demos

# Embedded single-machine mode: SQLite + filesystem broker, daphne and a Celery worker together.
run: migrate
	$(BIN)/python manage.py runembedded --port $(PORT)

# Browser tests drive Debian's chromium; install it when we can (root) and it is missing.
chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	  else echo "chromium missing and not root: browser tests will be skipped"; fi; \
	fi

# Best effort: start local PostgreSQL/Redis if they are installed but not running. Service tests
# skip without them locally and fail under CI=true.
services:
	@if command -v redis-server >/dev/null && ! (command -v redis-cli >/dev/null && redis-cli -h 127.0.0.1 ping >/dev/null 2>&1); then \
	  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null || true; fi
	@if command -v pg_ctlcluster >/dev/null && ! pg_isready -q -h 127.0.0.1 2>/dev/null; then \
	  for v in $$(ls /etc/postgresql 2>/dev/null); do pg_ctlcluster --skip-systemctl-redirect $$v main start || true; done; fi

test: migrate chromium services
	$(BIN)/python -m pytest tests

check-deploy: install
	SECRET_KEY=$$($(BIN)/python -c 'import secrets; print(secrets.token_urlsafe(50))') ALLOWED_HOSTS=schedlab.example.com \
	  $(BIN)/python manage.py check --deploy --fail-level WARNING

# One layout for all Python code; `make test` checks it (tests/tools/test_lint.py).
format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .
