# iclr-reader: two commands from a fresh clone (README's quick start).
#   make run     set up .venv if needed, then start the app on the bundled ICLR 2025 list
#   make test    set up .venv if needed, then run the whole test suite (what CI runs)
#   make check   the fast inner loop: every test but the slow ones and those of the installed program (e2e)
#   make lint    ruff, ruff format --check, mypy, import-linter (what CI runs before the tests)
# The venv is made once and reinstalled only when pyproject.toml changes (the stamp files below).

PYTHON ?= python3
# The suite starts many Python processes (four xdist workers, the command line, index builders): let
# them keep compiled modules, which an environment with PYTHONDONTWRITEBYTECODE set forbids (each
# compiling the project again cost make check about 20 s of its 100).
unexport PYTHONDONTWRITEBYTECODE
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test check lint

run: $(VENV)/.installed-test
	$(BIN)/iclr-reader

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest

check: $(VENV)/.installed-test
	$(BIN)/python -m pytest -m "not slow and not e2e"

lint: $(VENV)/.installed-lint
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

$(VENV)/.created:
	$(PYTHON) -c 'import sys; sys.exit("iclr-reader needs Python 3.11 or newer" if sys.version_info < (3, 11) else 0)'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.created
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@

$(VENV)/.installed-lint: pyproject.toml $(VENV)/.created
	$(BIN)/python -m pip install -q -e '.[test,lint]'
	touch $@ $(VENV)/.installed-test
