# Two commands for a fresh machine:
#   make run   - set everything up and serve the app with the example surveys
#   make test  - set everything up (Chromium included) and run the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum requirements.txt | cut -d' ' -f1)
CHROMIUM ?= /usr/bin/chromium
HOST ?= 127.0.0.1
PORT ?= 5000

.PHONY: run test setup chromium bench

setup: $(STAMP)

$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/flask --app app init-db
	$(BIN)/flask --app app surveys check || echo "Some survey files have problems (above); the others are served."
	$(BIN)/flask --app app run --host $(HOST) --port $(PORT)

# Playwright cannot download its own browser here: use Debian's Chromium.
chromium:
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  echo "Installing Debian's chromium for the browser tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; \
	fi

test: $(STAMP) chromium
	RR_CHROMIUM=$(CHROMIUM) RR_REQUIRE_BROWSER=1 $(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python -m bench.run
