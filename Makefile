# Two commands for a new user: `make demo` and `make test`. Both bootstrap .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test browser local-llm lint docs typecheck check clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip==25.3"
	$(BIN)/python -m pip install --quiet -e ".[all,dev]"
	touch $(STAMP)

install: $(STAMP)

demo: install
	$(BIN)/factdiff demo

# The review pages are tested in the distribution's headless Chromium, driven by Playwright
# (no chromedriver: Playwright speaks to the browser itself). Installed here when missing and
# make runs as root (e.g. in CI): the browser and its hard dependencies only, no recommended
# packages; dbus-x11 stands in for the session bus chromium's GTK needs, which would
# otherwise pull in systemd. Elsewhere the browser tests skip and say why.
CHROMIUM ?= /usr/bin/chromium
BROWSER_PACKAGES := chromium dbus-x11
APT_GET ?= apt-get
USER_ID ?= $(shell id -u)

browser:
	@if [ ! -x $(CHROMIUM) ]; then \
		if [ "$(USER_ID)" = 0 ] && command -v $(firstword $(APT_GET)) >/dev/null; then \
			echo "installing $(BROWSER_PACKAGES) with apt-get --no-install-recommends (only what the headless browser tests need)"; \
			$(APT_GET) update -qq && DEBIAN_FRONTEND=noninteractive $(APT_GET) install -y -qq --no-install-recommends $(BROWSER_PACKAGES); \
		else \
			echo "$(CHROMIUM) is missing: run 'apt-get install -y --no-install-recommends $(BROWSER_PACKAGES)' as root (browser tests will skip)"; \
		fi; \
	fi

# A local OpenAI-compatible model server (llama.cpp via llama-cpp-python) and a small model
# (SmolLM2-135M-Instruct) in .venv-llm, for the tests marked `real_model`; they skip and say
# why until this has run. The compiled wheel is cached per version and build flags.
local-llm:
	PYTHON=$(PYTHON) bash scripts/local-llm.sh

test: install browser
	$(BIN)/python -m pytest -q

lint: install
	$(BIN)/ruff check factdiff tests bench scripts
	$(BIN)/ruff format --check factdiff tests bench scripts
	$(BIN)/lint-imports --no-cache
	$(MAKE) docs

# The docs site (mkdocs.yml) into site/, strict: a broken link or anchor, a page missing from
# the nav or a nav entry without a page fails the build. The CLI, HTTP API, settings and
# Python API references are generated from the code (scripts/docs_hooks.py); nothing is
# fetched. `$(BIN)/mkdocs serve` previews it.
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --clean --site-dir site

typecheck: install
	$(BIN)/mypy

check: lint typecheck test

clean:
	rm -rf $(VENV) .venv-llm .mypy_cache .ruff_cache .pytest_cache .hypothesis site
