# Two commands for a new user: `make demo` and `make test`. Both bootstrap .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test browser lint typecheck check clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip==25.3"
	$(BIN)/python -m pip install --quiet -e ".[all,dev]"
	touch $(STAMP)

install: $(STAMP)

demo: install
	$(BIN)/factdiff demo

# The review pages are tested in the distribution's headless Chromium: installed here when
# missing (as root, e.g. in CI); elsewhere the browser tests skip and say why.
browser:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; \
		else \
			echo "chromium is missing: run 'apt-get install -y chromium chromium-driver' as root (browser tests will skip)"; \
		fi; \
	fi

test: install browser
	$(BIN)/python -m pytest -q

lint: install
	$(BIN)/ruff check factdiff tests bench scripts
	$(BIN)/ruff format --check factdiff tests bench scripts

typecheck: install
	$(BIN)/mypy

check: lint typecheck test

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
