# evidence-rank: two commands from a fresh clone (Python 3.11):
#   make demo   installs the tool and scores fixtures/example.json
#   make test   installs the test extras (and Chromium, for the browser tests), lints, type-checks and
#               runs the whole suite (what CI runs); BROWSER=0: no Chromium, the browser tests left out;
#               the ACE tests run last, in .venv-ace, with Python 3.12 or newer (below)
#   make fuzz   installs atheris and runs the fuzz campaign (docs/fuzzing.md; FUZZ_ARGS="--scale 0.1")
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
OUT    ?= out
# What ruff lints and formats; mypy's files are in pyproject.toml ([tool.mypy]).
SOURCES = curator_io validator ranking evidence_rank_pytest.py tests bench fuzz

.PHONY: install install-test browser demo check test test-ace static parity lint format wheel bench bench-render fuzz clean

$(BIN)/python:
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "evidence-rank needs Python >= 3.11"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# An editable install compiles none of the project's modules (pip compiles only what it
# copies): compile them here, or every run pays for it where __pycache__ cannot be
# written (PYTHONDONTWRITEBYTECODE, a read-only checkout). bench/RESULTS.md has the cost.
COMPILE = $(BIN)/python -m compileall -q curator_io validator ranking evidence_rank_pytest.py

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	$(COMPILE)
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,agentdescent,dask,dev,gepa,dspy]'
	$(COMPILE)
	touch $@ $(VENV)/.installed

$(VENV)/.installed-fuzz: pyproject.toml $(VENV)/.installed-test
	$(BIN)/python -m pip install --quiet -e '.[test,agentdescent,dask,dev,gepa,fuzz]'
	touch $@

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

# The browser tests (tests/ranking/views/html/test_browser.py) drive headless Chromium.
# Debian/Ubuntu: installed from the distribution when missing (as root, else with sudo), after
# one line that says so. Elsewhere, install Chromium or Chrome and set EVIDENCE_RANK_CHROMIUM
# to its path. Where installing it is not wanted, `make test BROWSER=0` installs nothing and
# leaves the browser tests out (-m "not browser"); CI runs `make test`, with them.
BROWSER ?= 1
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
browser:
	@[ -n "$$EVIDENCE_RANK_CHROMIUM" ] || command -v chromium >/dev/null 2>&1 || { \
	  echo "make browser: installing Chromium with $(strip $(SUDO) apt-get) for the browser tests (make test BROWSER=0 leaves them out)"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends chromium >/dev/null; }

demo: install
	$(BIN)/evidence-rank score fixtures/example.json --out-dir $(OUT)

# CI (.ci/run) runs `make test`: a lint error, an unformatted file or a type error fails it
# before the suite starts. `make check` is the same gate, to run before a commit.
check: test

# The ACE integration (docs/ace.md) needs ace-framework, and ace-framework 0.8 and later needs Python 3.12
# or newer: its tests (marked `ace`) run in a second environment, $(ACE_VENV), made with the first such
# Python found: python3.12, python3.13 or python3.14 on PATH, else the oldest pyenv has that is 3.12 or
# newer (a pyenv shim of a version that is not selected fails its check and is passed over). No path is
# written here; ACE_PYTHON=/path/to/python3.12 chooses one. Where there is none, `make test` says so in
# one line and runs everything else.
ACE_VENV ?= .venv-ace
ACE_BIN   = $(ACE_VENV)/bin
IS_312    = -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1
ACE_PYTHON ?= $(eval ACE_PYTHON := $(FIND_ACE_PYTHON))$(ACE_PYTHON)
FIND_ACE_PYTHON = $(shell \
  for p in python3.12 python3.13 python3.14; do \
    command -v $$p >/dev/null 2>&1 && $$p $(IS_312) && { command -v $$p; exit 0; }; \
  done; \
  command -v pyenv >/dev/null 2>&1 && for v in $$(pyenv versions --bare 2>/dev/null | sort -V); do \
    p="$$(pyenv prefix $$v 2>/dev/null)/bin/python"; \
    [ -x "$$p" ] && "$$p" $(IS_312) && { echo "$$p"; exit 0; }; \
  done; true)

$(ACE_VENV)/.installed: pyproject.toml
	$(ACE_PYTHON) -m venv $(ACE_VENV)
	$(ACE_BIN)/python -m pip install --quiet --upgrade pip
	$(ACE_BIN)/python -m pip install --quiet -e '.[test,ace]'
	touch $@

# $(ACE_VENV) has the test and ace extras only, so it runs the ACE test files alone.
ACE_TESTS = $(wildcard tests/ranking/integrations/test_ace*.py)
ACE_INSTALL = $(if $(ACE_PYTHON),$(ACE_VENV)/.installed)
ACE_RUN = $(if $(ACE_PYTHON),$(ACE_BIN)/python -m pytest -q -m ace $(ACE_TESTS),@echo "make test: no Python 3.12 \
  or newer found (python3.12, python3.13, python3.14, pyenv), so the ACE tests (docs/ace.md) are left out; the rest ran")

test-ace: $(ACE_INSTALL)
	$(ACE_RUN)

# The reference path (EVIDENCE_RANK_REFERENCE=1: nothing from curator_io/_fast/) runs the parity
# corpus and the seeded fuzz run too, so both paths are held to the same bytes.
REFERENCE_TESTS = tests/parity/test_parity.py tests/fuzz/test_short_campaign.py tests/curator_io/test_reference.py

test: static $(if $(filter 0,$(BROWSER)),,browser) $(ACE_INSTALL)
	$(BIN)/python -m pytest -m "not ace$(if $(filter 0,$(BROWSER)), and not browser)"
	EVIDENCE_RANK_REFERENCE=1 $(BIN)/python -m pytest -q $(REFERENCE_TESTS)
	$(ACE_RUN)

static: install-test
	$(BIN)/ruff check $(SOURCES)
	$(BIN)/ruff format --check $(SOURCES)
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

parity: install-test
	$(BIN)/python -m pytest tests/parity/test_parity.py

lint: static

format: install-test
	$(BIN)/ruff check --fix $(SOURCES)
	$(BIN)/ruff format $(SOURCES)

# The sdist and the wheel built from it, in dist/ (README: "Installing it elsewhere"): with build and
# setuptools alone in the venv (no test extra), without isolation (no download), its log kept in
# build/wheel.log and only the files it wrote printed.
$(VENV)/.installed-build: | $(BIN)/python
	$(BIN)/python -m pip install --quiet 'build>=1.2' 'setuptools>=77'
	touch $@

wheel: $(VENV)/.installed-build
	@mkdir -p build
	@$(BIN)/python -m build --no-isolation --outdir dist . > build/wheel.log 2>&1 || { tail -20 build/wheel.log; exit 1; }
	@grep -E '^Successfully built' build/wheel.log

# About 1,000,000 inputs over every target, two at a time, niced; FUZZ_ARGS="--scale 0.1" for a tenth.
fuzz: $(VENV)/.installed-fuzz
	$(BIN)/python -m fuzz $(FUZZ_ARGS)

bench: install-test
	$(BIN)/python bench/run.py

bench-render: install-test browser
	$(BIN)/python bench/render.py

clean:
	rm -rf $(VENV) $(ACE_VENV) $(OUT) .pytest_cache .mypy_cache .ruff_cache build dist *.egg-info
