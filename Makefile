# Two commands for a fresh machine:
#   make run   - set everything up and serve the app with the example surveys
#   make test  - set everything up (Chromium included) and run the whole test suite
# And, for the privacy and statistics core:
#   make mutation - mutation testing (mutmut) of analysis/ and the randomizers (surveys/protocol.py, surveys/numeric_protocol.py)
#   make docs     - the documentation site (README.md, docs/, analysis/README.md) built into site/
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum requirements.txt | cut -d' ' -f1)
CHROMIUM ?= /usr/bin/chromium-headless-shell
HOST ?= 127.0.0.1
PORT ?= 5000

MUTATION_STAMP := $(VENV)/.mutation-installed-$(shell cksum requirements-mutation.txt | cut -d' ' -f1)
DOCS_STAMP := $(VENV)/.docs-installed-$(shell cksum requirements-docs.txt | cut -d' ' -f1)
MUTATION_JOBS ?= 2

.PHONY: run test setup chromium postgresql axe bench mutation lint docs

setup: $(STAMP)

$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

# make run serves the shipped example surveys (a production installation starts with none).
run: export FLASK_EXAMPLE_SURVEYS ?= true
run: $(STAMP)
	$(BIN)/flask --app app init-db
	$(BIN)/flask --app app surveys check || echo "Some survey files have problems (above); the others are served."
	@$(BIN)/flask --app app surveys links --base http://$(HOST):$(PORT)
	$(BIN)/flask --app app run --host $(HOST) --port $(PORT)

# Playwright cannot download its own browser here: use Debian's Chromium, its headless shell (the package named
# as the binary: CHROMIUM=/usr/bin/chromium installs and drives the full browser instead). Where the package
# cannot be installed but the full browser is there, the tests drive the full browser (tests/conftest.py).
chromium:
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  echo "Installing Debian's $(notdir $(CHROMIUM)) for the browser tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  { $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(notdir $(CHROMIUM)) >/dev/null; } \
	  || { [ -x /usr/bin/chromium ] && echo "Could not install $(notdir $(CHROMIUM)): the tests drive /usr/bin/chromium"; }; \
	fi

# The tests start a throwaway PostgreSQL cluster from Debian's server binaries
# (tests/conftest.py::postgres_server); a run where it cannot start fails.
postgresql:
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
	  echo "Installing Debian's postgresql for the PostgreSQL tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq postgresql >/dev/null; \
	fi

# axe-core for the browser tests' accessibility check (tests/helpers/accessibility.py): the pinned version's
# tarball from the npm registry, checked against its integrity hash, kept in .cache/ (git-ignored).
axe: $(STAMP)
	$(BIN)/python -m tests.helpers.accessibility

# The suite runs on TEST_WORKERS parallel workers (pytest-xdist; `auto`: one per core), each with its own
# Chromium and its own throwaway PostgreSQL cluster; TEST_WORKERS=0 runs it in one process. --dist loadgroup
# hands each test to the first idle worker, the long ones first (tests/conftest.py). Compiled
# bytecode is kept (git-ignored __pycache__/) even where PYTHONDONTWRITEBYTECODE is set: otherwise every worker,
# gunicorn and subprocess compiles the app again, and pytest rewrites every test module's asserts again.
TEST_WORKERS ?= auto
# The tests' temporary files (SQLite databases, PostgreSQL clusters, browser profiles) in memory where the machine
# has /dev/shm: there an fsync, which SQLite makes at every commit, costs nothing, where on a shared disk it costs
# milliseconds (test_integrity.py: 35-46 s instead of 71-81 s). No test depends on it: a process killed with
# SIGKILL loses nothing the kernel holds, in memory or on disk.
TEST_TMPDIR ?= $(firstword $(wildcard /dev/shm) /tmp)

test: $(STAMP) $(DOCS_STAMP) chromium postgresql axe lint
	env -u PYTHONDONTWRITEBYTECODE TMPDIR=$(TEST_TMPDIR) RR_CHROMIUM=$(CHROMIUM) RR_REQUIRE_BROWSER=1 \
	  $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

# ruff: lint and formatting, both as configured in pyproject.toml.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: $(STAMP) postgresql
	$(BIN)/python -m bench.run

# Mutation testing: mutmut mutates the modules named in pyproject.toml
# ([tool.mutmut]) one change at a time and runs the tests that reach each
# change. Every run starts from a clean mutants/ folder (mutmut would keep
# stale verdicts after a test changes). The report prints killed / tried per
# module and fails on a surviving mutant not listed, with its reason, in
# tests/equivalent_mutants.txt. Not part of `make test`. Tests marked slow
# (seeded simulations) are left out ([tool.mutmut] pytest_add_cli_args):
# each would run once per mutant it reaches. A whole run is about 14,700
# mutants and takes over three hours on 2 shared cores (MUTATION_JOBS=1
# halves the load). MUTATE takes mutmut's name patterns and runs and checks
# those mutants only, a module in minutes:
#   make mutation MUTATE='analysis.central* analysis.fit*'
$(MUTATION_STAMP): $(STAMP) requirements-mutation.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-mutation.txt
	rm -f $(VENV)/.mutation-installed-*
	touch $(MUTATION_STAMP)

mutation: $(MUTATION_STAMP)
	rm -rf mutants
	mkdir mutants
	@echo "mutmut run --max-children $(MUTATION_JOBS) (log: mutants/run.log)"
	@nice -n 10 $(BIN)/mutmut run --max-children $(MUTATION_JOBS) $(foreach p,$(MUTATE),'$(p)') > mutants/run.log 2>&1 \
	  || { tail -c 3000 mutants/run.log; echo; echo "mutmut run failed"; exit 1; }
	@tail -n 1 mutants/run.log
	$(BIN)/python -m tests.mutation_report $(foreach p,$(MUTATE),'$(p)')

# The documentation site: MkDocs with the Material theme (requirements-docs.txt), strict, so
# a broken link or anchor fails the build (tests/test_docs.py builds it too).
$(DOCS_STAMP): $(STAMP) requirements-docs.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-docs.txt
	rm -f $(VENV)/.docs-installed-*
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict --site-dir site
