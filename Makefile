# evidence-rank: two commands from a fresh clone (Python 3.11):
#   make demo   installs the tool and scores fixtures/example.json
#   make test   installs the test extras and runs the whole suite
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
OUT    ?= out

.PHONY: install install-test demo test parity lint bench clean

$(BIN)/python:
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "evidence-rank needs Python >= 3.11"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# An editable install compiles none of the project's modules (pip compiles only what it
# copies): compile them here, or every run pays for it where __pycache__ cannot be
# written (PYTHONDONTWRITEBYTECODE, a read-only checkout). bench/RESULTS.md has the cost.
COMPILE = $(BIN)/python -m compileall -q curator_io validator ranking

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	$(COMPILE)
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,agentdescent,dask,dev]'
	$(COMPILE)
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

demo: install
	$(BIN)/evidence-rank score fixtures/example.json --out-dir $(OUT)

test: install-test
	$(BIN)/python -m pytest

parity: install-test
	$(BIN)/python -m pytest tests/test_parity.py

lint: install-test
	$(BIN)/ruff check curator_io validator ranking tests bench

bench: install-test
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache build *.egg-info
