# evidence-rank: two commands from a fresh clone (Python 3.11):
#   make demo   installs the tool and scores fixtures/example.json
#   make test   installs the test extras and runs the whole suite
#   make fuzz   installs atheris and runs the fuzz campaign (docs/fuzzing.md; FUZZ_ARGS="--scale 0.1")
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
OUT    ?= out

.PHONY: install install-test demo test parity lint bench fuzz clean

$(BIN)/python:
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "evidence-rank needs Python >= 3.11"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,agentdescent,dask,dev]'
	touch $@ $(VENV)/.installed

$(VENV)/.installed-fuzz: pyproject.toml $(VENV)/.installed-test
	$(BIN)/python -m pip install --quiet -e '.[test,agentdescent,dask,dev,fuzz]'
	touch $@

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

demo: install
	$(BIN)/evidence-rank score fixtures/example.json --out-dir $(OUT)

test: install-test
	$(BIN)/python -m pytest

parity: install-test
	$(BIN)/python -m pytest tests/test_parity.py

lint: install-test
	$(BIN)/ruff check curator_io validator ranking tests bench fuzz

# About 1,000,000 inputs over every target, two at a time, niced; FUZZ_ARGS="--scale 0.1" for a tenth.
fuzz: $(VENV)/.installed-fuzz
	$(BIN)/python -m fuzz $(FUZZ_ARGS)

bench: install-test
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache build *.egg-info
